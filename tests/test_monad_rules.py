"""Monad's rules: the rules page's examples, the rulings, and random matches that must keep their invariants."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from termgames.match import Match, SeatInfo
from termgames.records import dumps, loads
from termgames.rules import RuleError, get_game
from termgames.rules.monad import (
    DIRECTIONS,
    Board,
    Command,
    MonadState,
    MonadView,
    board_from_json,
    board_json,
    coerce_command,
    empty_board,
    format_commands,
    make_map,
    neighbour,
    neighbour_table,
    outcome,
    parse_commands,
    parse_fault,
    resolve_turn,
)
from termgames.rules.monad.board import start_cells
from termgames.rules.monad.geometry import hex_distance
from termgames.rules.monad.turn import COLLISION, FIGHT, HIVE_DESTROYED, HIVE_HELD, NO_EFFECT, PRODUCED


def position(
    width: int = 10,
    height: int = 10,
    players: int = 2,
    units: dict[tuple[int, int], tuple[int, int]] | None = None,
    hives: dict[tuple[int, int], int] | None = None,
    bank: tuple[int, ...] | None = None,
    resources: dict[tuple[int, int], int] | None = None,
    obstacles: tuple[tuple[int, int], ...] = (),
    production: dict[tuple[int, int], int] | None = None,
    limit: int = 2000,
) -> Board:
    """A hand-made board: units {(x, y): (seat, n)}, hives {(x, y): seat}."""
    board = empty_board(width, height, players, limit)
    owner, count = list(board.owner), list(board.units)
    for (x, y), (seat, n) in (units or {}).items():
        owner[y * width + x], count[y * width + x] = seat, n
    hive = list(board.hive)
    for (x, y), seat in (hives or {}).items():
        hive[y * width + x] = seat
    points = list(board.production)
    for (x, y), p in (production or {}).items():
        points[y * width + x] = p
    stock = list(board.resources)
    for (x, y), r in (resources or {}).items():
        stock[y * width + x] = r
    blocked = list(board.obstacle)
    for x, y in obstacles:
        blocked[y * width + x] = True
    had = tuple(any(h == s for h in hive) for s in range(players))
    return replace(
        board,
        owner=tuple(owner),
        units=tuple(count),
        hive=tuple(hive),
        production=tuple(points),
        resources=tuple(stock),
        obstacle=tuple(blocked),
        bank=bank or (0,) * players,
        had_hive=had,
    ).with_derived()


def at(board: Board, x: int, y: int) -> tuple[int, int]:
    """(owner, units) of a cell."""
    cell = y * board.width + x
    return board.owner[cell], board.units[cell]


def cmds(text: str) -> list[Command]:
    return parse_commands(text)


# --------------------------------------------------------------------------
# Ruling 1: the neighbour tables
# --------------------------------------------------------------------------

EVEN = {"NE": (1, -1), "NW": (0, -1), "E": (1, 0), "W": (-1, 0), "SE": (1, 1), "SW": (0, 1)}
ODD = {"NE": (0, -1), "NW": (-1, -1), "E": (1, 0), "W": (-1, 0), "SE": (0, 1), "SW": (-1, 1)}


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_neighbours_of_an_even_row(direction: str) -> None:
    dx, dy = EVEN[direction]
    assert neighbour(4, 4, direction, 10, 10) == (4 + dx, 4 + dy)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_neighbours_of_an_odd_row(direction: str) -> None:
    dx, dy = ODD[direction]
    assert neighbour(4, 5, direction, 10, 10) == (4 + dx, 5 + dy)


def test_neighbours_off_the_map_are_none() -> None:
    assert neighbour(0, 0, "NW", 10, 10) is None
    assert neighbour(0, 1, "W", 10, 10) is None
    assert neighbour(0, 1, "SW", 10, 10) is None  # odd row: SW is (x-1, y+1)
    assert neighbour(9, 0, "SE", 10, 10) is None  # even row: SE is (x+1, y+1)
    assert neighbour(9, 9, "E", 10, 10) is None


def test_neighbour_table_agrees_with_neighbour_and_is_symmetric() -> None:
    table = neighbour_table(7, 6)
    opposite = {"E": "W", "W": "E", "NE": "SW", "SW": "NE", "NW": "SE", "SE": "NW"}
    for y in range(6):
        for x in range(7):
            for d, direction in enumerate(DIRECTIONS):
                found = neighbour(x, y, direction, 7, 6)
                assert table[y * 7 + x][d] == (-1 if found is None else found[1] * 7 + found[0])
                if found is not None:
                    assert neighbour(found[0], found[1], opposite[direction], 7, 6) == (x, y)
                    assert hex_distance((x, y), found) == 1


# --------------------------------------------------------------------------
# The rules page's examples
# --------------------------------------------------------------------------


def attack_hive(defenders: int, attackers: int) -> tuple[Board, object]:
    """bob's hive at 5,5 with ``defenders``; ann attacks with ``attackers`` from 4,5 (E)."""
    units = {(4, 5): (0, attackers)}
    if defenders:
        units[(5, 5)] = (1, defenders)
    board = position(units=units, hives={(5, 5): 1})
    return resolve_turn(board, [cmds(f"4,5 {attackers} MOVE E"), []])


@pytest.mark.parametrize(
    ("defenders", "attackers", "hive_stands", "left"),
    [
        (0, 8, True, (-1, 0)),  # enemy loses 8, hive unaffected
        (0, 10, False, (-1, 0)),  # enemy loses 10, hive destroyed
        (3, 8, True, (1, 3)),  # enemy loses 8, hive and 3 unaffected
        (3, 15, False, (0, 2)),  # enemy loses 13, hive and 3 destroyed
        (3, 12, True, (-1, 0)),  # enemy loses 12, hive loses its 3 units
        (3, 13, False, (-1, 0)),  # enemy loses 13, hive and 3 destroyed
    ],
)
def test_hive_defence_examples(defenders: int, attackers: int, hive_stands: bool, left: tuple[int, int]) -> None:
    after, _report = attack_hive(defenders, attackers)
    cell = 5 * 10 + 5
    assert (after.hive[cell] == 1) is hive_stands
    assert at(after, 5, 5) == left
    assert at(after, 4, 5) == (-1, 0)
    assert after.unit_totals == (left[1] if left[0] == 0 else 0, left[1] if left[0] == 1 else 0)


def test_hive_defence_loses_attackers_minus_nine() -> None:
    after, report = attack_hive(7, 14)  # 10 <= 14 < 17: the 14 die, 7 - (14 - 9) = 2 defenders stay
    assert at(after, 5, 5) == (1, 2)
    assert any(e[0] == HIVE_HELD and e[4:] == (14, 5) for e in report.events)  # type: ignore[attr-defined]


def test_several_attackers_fight_each_other_before_the_hive() -> None:
    # ann 15 and carl 4 attack bob's hive (3 defenders): ann keeps 11, 11 < 13, so ann dies and bob loses 2.
    board = position(players=3, units={(4, 5): (0, 15), (6, 5): (2, 4), (5, 5): (1, 3)}, hives={(5, 5): 1})
    after, report = resolve_turn(board, [cmds("4,5 15 MOVE E"), [], cmds("6,5 4 MOVE W")])
    assert at(after, 5, 5) == (1, 1)
    assert after.hive[55] == 1
    kinds = [e[0] for e in report.events]  # type: ignore[attr-defined]
    assert kinds.index(FIGHT) < kinds.index(HIVE_HELD)


def test_collision_example() -> None:
    # The rules page: A sends 8 from (2,4) toward (2,5), B sends 5 from (2,5) toward (2,4): A's 3 go on.
    board = position(units={(2, 4): (0, 8), (2, 5): (1, 5)})
    after, report = resolve_turn(board, [cmds("2,4 8 MOVE SW"), cmds("2,5 5 MOVE NE")])
    assert at(after, 2, 5) == (0, 3)
    assert at(after, 2, 4) == (-1, 0)
    assert after.unit_totals == (3, 0)
    assert report.events[0] == (COLLISION, 42, 0, 8, 52, 1, 5)  # type: ignore[attr-defined]
    assert report.carried == ((Command(2, 4, 8, "MOVE", "SW"),), (Command(2, 5, 5, "MOVE", "NE"),))


def test_collision_losses_leave_the_source_cells_and_stayers_fight_the_survivors() -> None:
    # ann 8 of 10 at 2,4 move SW; bob sends 5 of 9 from 2,5 back: ann's 3 arrive and meet bob's 4 who stayed.
    board = position(units={(2, 4): (0, 10), (2, 5): (1, 9)})
    after, _ = resolve_turn(board, [cmds("2,4 8 MOVE SW"), cmds("2,5 5 MOVE NE")])
    assert at(after, 2, 4) == (0, 2)
    assert at(after, 2, 5) == (1, 1)


def test_equal_collision_eliminates_both() -> None:
    board = position(units={(2, 4): (0, 5), (2, 5): (1, 5)})
    after, _ = resolve_turn(board, [cmds("2,4 5 MOVE SW"), cmds("2,5 5 MOVE NE")])
    assert after.unit_totals == (0, 0)


def test_units_moving_into_the_same_cell_do_not_collide_but_fight_there() -> None:
    board = position(units={(1, 4): (0, 8), (3, 4): (1, 5)})
    after, report = resolve_turn(board, [cmds("1,4 8 MOVE E"), cmds("3,4 5 MOVE W")])
    assert at(after, 2, 4) == (0, 3)
    assert [e[0] for e in report.events] == [FIGHT]  # type: ignore[attr-defined]


def test_three_player_cell_example() -> None:
    # A 12, B 8, C 10 in (2,5) after movement: A keeps 2, B and C lose all.
    board = position(players=3, units={(1, 5): (0, 12), (3, 5): (1, 8), (2, 6): (2, 10)})
    after, _ = resolve_turn(board, [cmds("1,5 12 MOVE E"), cmds("3,5 8 MOVE W"), cmds("2,6 10 MOVE NW")])
    assert at(after, 2, 5) == (0, 2)
    assert after.unit_totals == (2, 0, 0)


def test_equal_largest_forces_all_die() -> None:
    board = position(players=3, units={(1, 5): (0, 9), (3, 5): (1, 9), (2, 6): (2, 4)})
    after, _ = resolve_turn(board, [cmds("1,5 9 MOVE E"), cmds("3,5 9 MOVE W"), cmds("2,6 4 MOVE NW")])
    assert at(after, 2, 5) == (-1, 0)


def test_moving_into_stationary_enemies_fights_them() -> None:
    board = position(units={(1, 5): (0, 4), (2, 5): (1, 6)})
    after, _ = resolve_turn(board, [cmds("1,5 4 MOVE E"), []])
    assert at(after, 2, 5) == (1, 2)


def test_own_groups_swap_without_collision() -> None:
    board = position(units={(1, 5): (0, 4), (2, 5): (0, 6)})
    after, report = resolve_turn(board, [cmds("1,5 4 MOVE E; 2,5 6 MOVE W"), []])
    assert at(after, 1, 5) == (0, 6) and at(after, 2, 5) == (0, 4)
    assert report.events == ()


# --------------------------------------------------------------------------
# Ruling 4: commands dropped with a reason
# --------------------------------------------------------------------------


def test_dropped_commands_and_their_reasons() -> None:
    board = position(units={(5, 5): (0, 2), (0, 0): (0, 1), (7, 7): (1, 3)}, obstacles=((6, 5),))
    text = (
        "5,5 3 MOVE E; 5,5 1 MOVE E; 5,5 2 MINE; 5,5 1 MINE; 7,7 1 MINE; 0,0 1 MOVE NW; 4,4 1 MINE;"
        " 20,3 1 MINE; 5,5 0 MINE"
    )
    after, report = resolve_turn(board, [cmds(text), []])
    dropped = report.dropped[0]
    assert dropped[0] == "5,5 3 MOVE E: only 2 units there"
    assert dropped[1].startswith("5,5 1 MOVE E: moves into an obstacle at 6,5")
    assert dropped[2] == "5,5 1 MINE: only 0 of the 2 units there are not yet commanded"
    assert dropped[3] == "7,7 1 MINE: no units of yours there"
    assert dropped[4] == "0,0 1 MOVE NW: moves off the map"
    assert dropped[5] == "4,4 1 MINE: no units of yours there"
    assert dropped[6] == "20,3 1 MINE: 20,3 is off the map"
    assert dropped[7] == "5,5 0 MINE: a command moves at least 1 unit"
    # 5,5 2 MINE passed ruling 4's check, then found no resources to mine: carried out to no effect, not dropped.
    assert len(dropped) == 8
    assert [c.text() for c in report.carried[0]] == ["5,5 2 MINE"]
    assert (NO_EFFECT, 0, "5,5 2 MINE: no resources left there") in report.events
    assert after.units == board.units


def test_units_without_commands_stay_idle() -> None:
    board = position(units={(5, 5): (0, 4)}, resources={(5, 5): 30})
    after, _ = resolve_turn(board, [[], []])
    assert after.resources == board.resources and after.bank == board.bank and at(after, 5, 5) == (0, 4)


def test_arriving_units_cannot_be_commanded_the_same_turn() -> None:
    board = position(units={(4, 5): (0, 3)})
    _after, report = resolve_turn(board, [cmds("4,5 3 MOVE E; 5,5 3 MOVE E"), []])
    assert report.dropped[0] == ("5,5 3 MOVE E: no units of yours there",)


# --------------------------------------------------------------------------
# Builds, mining, production (rulings 5-7)
# --------------------------------------------------------------------------


def test_build_costs_100_and_needs_them() -> None:
    board = position(units={(2, 2): (0, 1), (7, 7): (1, 1)}, bank=(150, 99))
    after, report = resolve_turn(board, [cmds("2,2 1 BUILD"), cmds("7,7 1 BUILD")])
    assert after.hive[22] == 0 and after.hive[77] == -1
    assert after.bank == (50, 99)
    assert report.dropped[1] == ()  # ruling 4 drops none of these: the BUILD is carried out to no effect
    assert (NO_EFFECT, 1, "7,7 1 BUILD: a hive costs 100 resources, you have 99") in report.events
    assert after.had_hive == (True, False)


def test_one_hive_a_cell_and_the_second_build_helps_production() -> None:
    board = position(units={(2, 2): (0, 3)}, bank=(300, 0))
    after, _ = resolve_turn(board, [cmds("2,2 1 BUILD; 2,2 2 BUILD"), []])
    assert after.bank == (200, 0)
    assert after.hive_counts == (1, 0)
    # 1 point for the turn + 3 builders = 4: no unit yet.
    assert after.production[22] == 4 and at(after, 2, 2) == (0, 3)
    after2, _ = resolve_turn(after, [[], []])
    assert after2.production[22] == 0 and at(after2, 2, 2) == (0, 4)


def test_no_build_when_an_enemy_moved_in() -> None:
    board = position(units={(2, 2): (0, 5), (3, 2): (1, 1)}, bank=(100, 0))
    after, report = resolve_turn(board, [cmds("2,2 5 BUILD"), cmds("3,2 1 MOVE W")])
    assert after.hive[22] == -1 and after.bank == (100, 0)
    assert report.dropped[0] == ()
    assert (NO_EFFECT, 0, "2,2 5 BUILD: another player's units came into the cell") in report.events
    assert at(after, 2, 2) == (0, 4)


def test_production_every_five_points_and_builders_help() -> None:
    board = position(units={(2, 2): (0, 2)}, hives={(2, 2): 0}, production={(2, 2): 3})
    after, report = resolve_turn(board, [cmds("2,2 2 BUILD"), []])
    # 3 + 1 + 2 builders = 6: one unit, 1 point carried over.
    assert at(after, 2, 2) == (0, 3) and after.production[22] == 1
    assert (PRODUCED, 22, 0, 1) in report.events


def test_mining_takes_one_per_unit_and_what_is_left() -> None:
    board = position(units={(2, 2): (0, 5), (3, 3): (0, 2)}, resources={(2, 2): 3, (3, 3): 40})
    after, _ = resolve_turn(board, [cmds("2,2 5 MINE; 3,3 2 MINE"), []])
    assert after.resources[22] == 0 and after.resources[33] == 38
    assert after.bank == (5, 0)


def test_a_cell_with_a_hive_cannot_be_mined() -> None:
    board = position(units={(2, 2): (0, 2)}, resources={(2, 2): 30}, bank=(100, 0))
    after, report = resolve_turn(board, [cmds("2,2 1 BUILD; 2,2 1 MINE"), []])
    assert after.resources[22] == 30 and after.bank == (0, 0)
    assert report.dropped[0] == ()
    assert (NO_EFFECT, 0, "2,2 1 MINE: a cell with a hive cannot be mined") in report.events


def test_a_new_hive_produces_from_its_first_turn() -> None:
    board = position(units={(2, 2): (0, 1)}, bank=(100, 0))
    after, _ = resolve_turn(board, [cmds("2,2 1 BUILD"), []])
    assert after.production[22] == 2  # 1 for the turn + 1 builder


# --------------------------------------------------------------------------
# Victory (ruling 9)
# --------------------------------------------------------------------------


def test_no_winner_while_the_other_never_had_a_hive_and_has_units() -> None:
    board = position(units={(2, 2): (0, 1), (7, 7): (1, 1)}, hives={(2, 2): 0})
    assert outcome(board) == (False, ())


def test_winner_when_the_other_lost_its_last_hive() -> None:
    board = position(units={(1, 5): (0, 20), (7, 7): (1, 2)}, hives={(2, 2): 0, (2, 5): 1})
    after, _ = resolve_turn(board, [cmds("1,5 20 MOVE E"), []])
    assert after.hive_counts == (1, 0)
    assert outcome(after) == (True, (0,))


def test_winner_when_the_others_hold_nothing() -> None:
    board = position(units={(2, 2): (0, 1)}, hives={(2, 2): 0})
    assert outcome(board) == (True, (0,))


def test_turn_limit_most_units_wins_or_draw() -> None:
    board = position(units={(2, 2): (0, 3), (7, 7): (1, 2)}, hives={(2, 2): 0, (7, 7): 1}, limit=1)
    after, _ = resolve_turn(board, [[], []])
    assert outcome(after) == (True, (0,))
    board = position(units={(2, 2): (0, 2), (7, 7): (1, 2)}, limit=1)
    after, _ = resolve_turn(board, [[], []])
    assert outcome(after) == (True, (0, 1))


def test_everyone_out_goes_on_to_the_turn_limit_and_a_draw() -> None:
    board = position(units={(2, 4): (0, 5), (2, 5): (1, 5)}, limit=3)
    after, _ = resolve_turn(board, [cmds("2,4 5 MOVE SW"), cmds("2,5 5 MOVE NE")])
    assert after.unit_totals == (0, 0) and outcome(after) == (False, ())  # ruling 9: only victory or the limit
    after, _ = resolve_turn(after, [[], []])
    assert outcome(after) == (False, ())
    after, _ = resolve_turn(after, [[], []])
    assert outcome(after) == (True, (0, 1))


def test_the_last_player_left_without_a_hive_wins_at_the_limit_or_by_a_hive() -> None:
    board = position(units={(2, 4): (0, 6), (2, 5): (1, 5)}, bank=(100, 100))
    after, _ = resolve_turn(board, [cmds("2,4 6 MOVE SW"), cmds("2,5 5 MOVE NE")])
    assert after.hive_counts == (0, 0) and outcome(after) == (False, ())
    after, _ = resolve_turn(after, [cmds("2,5 1 BUILD"), []])
    assert outcome(after) == (True, (0,))  # the only one holding hives; bob holds neither hive nor unit


# --------------------------------------------------------------------------
# Notation
# --------------------------------------------------------------------------


def test_parse_and_format_round_trip() -> None:
    text = "3,4 2 move ne ;5,5 1 MINE;  1,1 5 Build;"
    commands = parse_commands(text)
    assert commands == [Command(3, 4, 2, "MOVE", "NE"), Command(5, 5, 1, "MINE"), Command(1, 1, 5, "BUILD")]
    assert format_commands(commands) == "3,4 2 MOVE NE; 5,5 1 MINE; 1,1 5 BUILD"
    assert parse_commands("pass") == [] and parse_commands("  ") == [] and format_commands([]) == "pass"
    assert commands[0].as_list() == [3, 4, 2, "MOVE", "NE"] and commands[1].as_list() == [5, 5, 1, "MINE"]


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(-3, 70),
            st.integers(-3, 70),
            st.integers(-2, 10**6),
            st.sampled_from(["MINE", "BUILD", *(f"MOVE {d}" for d in DIRECTIONS)]),
        ),
        max_size=12,
    )
)
def test_canonical_text_reads_back_the_same_commands(items: list[tuple[int, int, int, str]]) -> None:
    commands = [Command(x, y, n, *action.split()) for x, y, n, action in items]
    text = format_commands(commands)
    assert parse_commands(text) == commands
    # The long way (spaces, lower case, other separators) reads the same commands.
    loose = " ;\n ".join(f" {c.x} , {c.y}  {c.n} {c.action.lower()} {(c.direction or '').lower()}" for c in commands)
    assert parse_commands(loose or "pass") == commands


@pytest.mark.parametrize(
    "text",
    [
        "3,4 2 MOVE", "3,4 2 MOVE UP", "1,1 1 MOVE EE", "1,1 1 MINEX", "1,1 1 MINE; 2,2 1 JUMP",
        "3,4 MINE", "x,4 2 MINE", "3,4 2 MINE NE", "3,4 2 JUMP", "hello",
    ],
)
def test_unreadable_commands_are_rule_errors(text: str) -> None:
    with pytest.raises(RuleError):
        parse_commands(text)


def test_coerce_command_forms() -> None:
    expected = Command(3, 4, 2, "MOVE", "NE")
    assert coerce_command([3, 4, 2, "MOVE", "NE"]) == expected
    assert coerce_command((3, 4, 2, "move", "ne")) == expected
    assert coerce_command({"x": 3, "y": 4, "n": 2, "action": "MOVE", "direction": "NE"}) == expected
    assert coerce_command("3,4 2 MOVE NE") == expected
    assert coerce_command([5, 5, 1, "MINE"]) == Command(5, 5, 1, "MINE")
    for bad in (
        [1, 2],
        [1, 2, "3", "MINE"],
        {"x": 1},
        7,
        [1, 2, 3, "MOVE"],
        [True, 2, 3, "MINE"],
        Command(1.5, 2, 3, "MINE"),  # type: ignore[arg-type]  # what a careless bot may build
        Command(1, 2, 3, "MOVE", "UP"),
    ):
        with pytest.raises(RuleError):
            coerce_command(bad)


# --------------------------------------------------------------------------
# Maps (rulings 2 and 3)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("obstacles", [0.0, 0.2])
def test_two_player_maps_are_rotation_symmetric(seed: int, obstacles: float) -> None:
    board = make_map(20, 20, 2, obstacles, seed)
    cells = 400
    for cell in range(cells):
        image = cells - 1 - cell
        assert board.resources[cell] == board.resources[image]
        assert board.obstacle[cell] == board.obstacle[image]
        assert 0 <= board.resources[cell] <= 50
        if board.obstacle[cell]:
            assert board.resources[cell] == 0
    assert board.starts == (21, 378)  # (1,1) and (18,18)
    assert (obstacles > 0) == any(board.obstacle)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**40),
    width=st.integers(6, 24),
    height=st.integers(6, 24),
    obstacles=st.sampled_from([0.0, 0.05, 0.25, 0.5]),
)
def test_two_player_maps_are_symmetric_at_turn_0(seed: int, width: int, height: int, obstacles: float) -> None:
    board = make_map(width, height, 2, obstacles, seed)
    cells = width * height
    assert all(board.resources[c] == board.resources[cells - 1 - c] for c in range(cells))
    assert all(board.obstacle[c] == board.obstacle[cells - 1 - c] for c in range(cells))
    first, second = board.starts
    assert first == cells - 1 - second and not board.obstacle[first]
    assert board.units[first] == board.units[second] == 1 and board.bank == (100, 100)
    assert all(0 <= r <= 50 for r in board.resources)


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("obstacles", [0.0, 0.15])
def test_three_and_four_player_regions_have_equal_totals(players: int, obstacles: float) -> None:
    board = make_map(20, 20, players, obstacles, 7)
    starts = start_cells(20, 20, players)
    totals = [0] * players
    blocked = [0] * players
    for cell in range(400):
        x, y = cell % 20, cell // 20
        distances = [hex_distance((x, y), s) for s in starts]
        region = distances.index(min(distances))
        totals[region] += board.resources[cell]
        blocked[region] += board.obstacle[cell]
    assert len(set(totals)) == 1 and len(set(blocked)) == 1
    assert [board.xy(c) for c in board.starts] == list(starts)


def test_start_position() -> None:
    board = make_map(20, 20, 4, 0.0, 1)
    assert [board.xy(c) for c in board.starts] == [(5, 5), (5, 15), (15, 5), (15, 15)]
    assert board.unit_totals == (1, 1, 1, 1) and board.bank == (100,) * 4 and board.hive_counts == (0,) * 4
    assert make_map(20, 20, 3, 0.0, 1).starts == tuple(y * 20 + x for x, y in ((5, 5), (10, 14), (15, 5)))


def test_maps_depend_on_the_seed_only() -> None:
    assert make_map(12, 10, 2, 0.1, 5) == make_map(12, 10, 2, 0.1, 5)
    assert make_map(12, 10, 2, 0.1, 5) != make_map(12, 10, 2, 0.1, 6)


def test_options() -> None:
    game = get_game("monad")
    options = game.parse_cli_options(["--width", "12", "--height=14", "--obstacles", "0.1", "--turns", "50"])
    assert options == {"width": 12, "height": 14, "obstacles": 0.1, "turns": 50}
    for bad in (["--obstacles", "0.9"], ["--obstacles", "lots"], ["--width", "3"]):
        with pytest.raises(RuleError):
            game.parse_cli_options(bad)


# --------------------------------------------------------------------------
# Random matches: invariants
# --------------------------------------------------------------------------


def toward(board: Board, cell: int, goal: int) -> str:
    """The direction from ``cell`` that gets nearest ``goal``."""
    x, y = board.xy(cell)
    best, choice = hex_distance((x, y), board.xy(goal)), DIRECTIONS[0]
    for direction in DIRECTIONS:
        step = neighbour(x, y, direction, board.width, board.height)
        if step is not None and hex_distance(step, board.xy(goal)) < best:
            best, choice = hex_distance(step, board.xy(goal)), direction
    return choice


def random_commands(board: Board, seat: int, rng: random.Random) -> list[Command]:
    """Mostly sensible commands for ``seat``, with some that must be dropped; big groups raid enemy hives."""
    commands = []
    enemy_hives = [c for c in board.hive_cells if board.hive[c] != seat]
    for cell in board.occupied:
        if board.owner[cell] != seat:
            continue
        x, y = board.xy(cell)
        left = board.units[cell]
        if enemy_hives and left >= 6 and rng.random() < 0.7:
            goal = min(enemy_hives, key=lambda h: hex_distance((x, y), board.xy(h)))
            commands.append(Command(x, y, left, "MOVE", toward(board, cell, goal)))
            continue
        while left > 0 and rng.random() < 0.8:
            n = rng.randint(1, left + (1 if rng.random() < 0.1 else 0))
            roll = rng.random()
            if roll < 0.55:
                commands.append(Command(x, y, n, "MOVE", rng.choice(DIRECTIONS)))
            elif roll < 0.8:
                commands.append(Command(x, y, n, "MINE"))
            else:
                commands.append(Command(x, y, n, "BUILD"))
            left -= n
    if rng.random() < 0.2:
        commands.append(Command(rng.randrange(-1, board.width + 1), rng.randrange(board.height), 1, "MINE"))
    return commands


def losses(event: tuple) -> int:  # type: ignore[type-arg]
    kind = event[0]
    if kind == COLLISION:
        return 2 * min(event[3], event[6])
    if kind == FIGHT:
        return sum(n for _s, n in event[2]) - event[4]
    if kind == HIVE_HELD:
        return event[4] + event[5]
    if kind == HIVE_DESTROYED:
        return event[4] + event[5] - event[6]
    return 0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31),
    players=st.integers(2, 4),
    size=st.sampled_from([(8, 8), (10, 8), (12, 12)]),
    obstacles=st.sampled_from([0.0, 0.1, 0.3]),
)
def test_random_matches_keep_the_invariants(seed: int, players: int, size: tuple[int, int], obstacles: float) -> None:
    width, height = size
    board = make_map(width, height, players, obstacles, seed)
    board = type(board)(**{**{f: getattr(board, f) for f in board.__dataclass_fields__}, "bank": (400,) * players})
    rng = random.Random(seed)
    for _turn in range(80):
        commands = [random_commands(board, s, rng) for s in range(players)]
        after, report = resolve_turn(board, commands)
        # Units change only by production, combat and collisions.
        produced = sum(e[3] for e in report.events if e[0] == PRODUCED)
        lost = sum(losses(e) for e in report.events)
        assert sum(after.unit_totals) == sum(board.unit_totals) + produced - lost
        if not report.events:
            assert after.unit_totals == board.unit_totals
        # Resources never negative; only mining moves them, building spends 100.
        assert min(after.resources) >= 0 and min(after.bank) >= 0
        mined = sum(board.resources) - sum(after.resources)
        built = sum(1 for e in report.events if e[0] == "built")
        assert sum(after.bank) == sum(board.bank) + mined - 100 * built
        # One player per cell, hives hold only their owner's units, derived fields agree with the cells.
        for cell in range(width * height):
            assert (after.units[cell] > 0) == (after.owner[cell] >= 0)
            assert not after.obstacle[cell] or after.units[cell] == 0
            if after.hive[cell] >= 0 and after.units[cell] > 0:
                assert after.owner[cell] == after.hive[cell]
        assert after == after.with_derived() and after.occupied == after.with_derived().occupied
        assert after.unit_totals == after.with_derived().unit_totals
        assert after.hive_counts == after.with_derived().hive_counts
        # Every command is either carried out or dropped with a reason.
        for seat in range(players):
            assert len(report.carried[seat]) + len(report.dropped[seat]) == len(commands[seat])
        board = after
        if outcome(board)[0]:
            break


def play_random_match(players: int, seed: int, turns: int) -> Match:
    names = ["ann", "bob", "cy", "di"][:players]
    match = Match("monad", {"width": 10, "height": 10, "turns": turns}, [SeatInfo(n) for n in names], seed)
    rng = random.Random(seed)
    while not match.over:
        state = match.state
        for seat in rng.sample(state.to_move(), len(state.to_move())):
            if rng.random() < 0.05:
                match.play(seat, "fault bot was late")
            else:
                match.play(seat, format_commands(random_commands(state.board, seat, rng)))  # type: ignore[attr-defined]
    return match


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(2, 4))
def test_replay_of_a_record_equals_the_live_match(seed: int, players: int) -> None:
    live = play_random_match(players, seed, 40)
    again = loads(dumps(live))
    assert len(again.states) == len(live.states)
    for a, b in zip(live.states, again.states):
        assert a.board == b.board  # type: ignore[attr-defined]
        assert a.pending == b.pending  # type: ignore[attr-defined]
        assert board_json(a.board, live.names) == board_json(b.board, again.names)  # type: ignore[attr-defined]
    assert again.result() == live.result()


# --------------------------------------------------------------------------
# Simultaneous turns
# --------------------------------------------------------------------------


def monad_view(match: Match, viewer: int | None) -> MonadView:
    view = match.view(viewer)
    assert isinstance(view, MonadView)
    return view


def test_simultaneous_turns_and_hidden_pending_commands() -> None:
    match = Match("monad", {}, [SeatInfo("ann"), SeatInfo("bob")], 3)
    assert match.state.to_move() == (0, 1)
    match.play(1, "18,18 1 MINE")
    assert match.state.to_move() == (0,)
    assert match.view(0).moves == ((1, "(commands hidden until the turn resolves)"),)
    assert match.view(None).moves == ((1, "(commands hidden until the turn resolves)"),)
    assert match.view(1).moves == ((1, "18,18 1 MINE"),)
    assert "18,18" not in match.view(0).last_action and "18,18" not in match.view(0).status
    ann_view, bob_view = monad_view(match, 0), monad_view(match, 1)
    assert ann_view.own_commands is None and bob_view.own_commands == (Command(18, 18, 1, "MINE"),)
    with pytest.raises(RuleError, match="bob has already sent commands for turn 1; waiting for ann"):
        match.play(1, "pass")
    match.play(0, "1,1 1 build")
    assert match.state.board.turn == 1 and match.state.to_move() == (0, 1)  # type: ignore[attr-defined]
    assert match.view(0).moves == ((1, "18,18 1 MINE"), (0, "1,1 1 BUILD"))
    assert "turn 1: ann built a hive at 1,1" in monad_view(match, 0).turn_log
    assert "turn 1: bob: 18,18 1 MINE" in monad_view(match, 0).turn_log


def test_fault_is_an_empty_move_reported_as_dropped() -> None:
    match = Match("monad", {}, [SeatInfo("ann"), SeatInfo("bob")], 3)
    match.play(0, "fault  timed out after 1.0 s")
    match.play(1, "pass")
    report = match.state.last_report  # type: ignore[attr-defined]
    assert report.dropped == (("fault: timed out after 1.0 s",), ())
    assert match.moves[0].move == "fault timed out after 1.0 s"
    assert parse_fault("fault " + "x" * 5000) == "x" * 297 + "..."
    assert parse_fault("faulty 1,1 1 MINE") is None and parse_fault("FAULT") == "no reason given"


def test_seats_with_nothing_left_still_move_every_turn() -> None:
    game = get_game("monad")
    start = game.new({}, ["ann", "bob", "cy"], 1)
    assert isinstance(start, MonadState)
    board = position(20, 20, 3, units={(5, 5): (0, 2), (15, 5): (2, 1)}, hives={(5, 5): 0})
    state = replace(start, board=board)
    assert state.to_move() == (0, 1, 2)
    waiting = state.apply(0, "pass").apply(2, "pass")
    assert waiting.board.turn == 0 and waiting.to_move() == (1,)  # type: ignore[attr-defined]
    after = waiting.apply(1, "1,1 1 MINE")
    assert after.board.turn == 1  # type: ignore[attr-defined]
    assert after.last_report.dropped[1] == ("1,1 1 MINE: no units of yours there",)  # type: ignore[attr-defined]


def test_board_json_round_trip_and_observation() -> None:
    match = play_random_match(3, 11, 25)
    state = match.state
    assert isinstance(state, MonadState)
    board = state.board
    data = board_json(board, match.names)
    again = board_from_json(data, match.names)
    for name in ("width", "height", "turn", "limit", "resources", "obstacle", "owner", "units", "hive", "production"):
        assert getattr(again, name) == getattr(board, name), name
    assert again.bank == board.bank and again.unit_totals == board.unit_totals
    view = monad_view(match, 1)
    seen = view.observation()
    assert seen["seat"] == 1 and seen["me"] == "bob" and seen["players"] == ["ann", "bob", "cy"]
    assert {k: v for k, v in seen.items() if k not in ("seat", "me", "players")} == data
    assert view.board_json() == data
    text = view.board_text(ascii=True)
    assert text.isascii() and f"turn {board.turn} of 25" in text


def test_long_moves_are_cut_in_the_log_text() -> None:
    view = monad_view(Match("monad", {}, [SeatInfo("ann"), SeatInfo("bob")], 3), 0)
    short = "1,1 1 BUILD"
    assert view.log_text(short) == short
    long = "; ".join(f"{x},1 1 MINE" for x in range(12))
    cut = view.log_text(long)
    assert cut.startswith("0,1 1 MINE; 1,1 1 MINE") and cut.endswith("; ... (12 commands)") and len(cut) < 70


def test_counts_may_be_long_but_digits_are_ascii():
    from termgames.rules.monad.notation import parse_commands

    (command,) = parse_commands(f"1,1 {10**30} BUILD")
    assert command.n == 10**30
    with pytest.raises(RuleError):
        parse_commands("1,\u0663 1 MINE")  # an Arabic-Indic three is no digit of the notation
    with pytest.raises(RuleError):
        parse_commands(f"{10**12},1 1 MINE")
