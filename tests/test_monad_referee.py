"""The engine against an independent referee (tests/monad_referee.py), board by board.

Random matches with random commands (some that must be dropped, several on one cell,
moves into adjacent enemies, hive attacks), 2 to 4 players, with and without obstacles,
through the engine in-process and, for a few, through the real CLI.
"""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from monad_referee import DIRECTIONS, Referee, neighbour

from termgames.rules import get_game
from termgames.rules.monad import MonadState
from termgames.rules.monad.board import board_from_json, board_json, outcome
from termgames.rules.monad.notation import parse_commands
from termgames.rules.monad.turn import resolve_turn


def crowd(board: dict[str, Any], names: list[str], rng: random.Random) -> dict[str, Any]:
    """The board with armies and hives scattered on it (one player a cell), so fights come early."""
    board = json.loads(json.dumps(board))
    free = [(x, y) for y, row in enumerate(board["cells"]) for x, cell in enumerate(row) if "obstacle" not in cell]
    rng.shuffle(free)
    for x, y in free[: len(free) // 2]:
        cell = board["cells"][y][x]
        cell.pop("owner", None), cell.pop("units", None)  # a start unit must not stay under another's hive
        owner = rng.choice(names)
        if rng.random() < 0.3:
            cell["hive"], cell["production"] = owner, rng.randint(0, 4)
        if rng.random() < 0.8:
            cell["owner"], cell["units"] = (
                owner,
                rng.choice([1, 2, 3, 5, 8, 9, 10, 11, 13, 20]),
            )
    for name in names:
        board["resources"][name] = rng.choice([0, 99, 100, 150, 250, 1000])
    for key in ("units", "hives"):
        board[key] = {name: 0 for name in names}
    for row in board["cells"]:
        for cell in row:
            if "owner" in cell:
                board["units"][cell["owner"]] += cell["units"]
            if "hive" in cell:
                board["hives"][cell["hive"]] += 1
    return board


def random_move(referee: Referee, player: int, rng: random.Random) -> str:
    """Commands for ``player``: mostly sensible, some to be dropped, some aimed at enemies."""
    commands: list[str] = []
    width, height = referee.width, referee.height
    for (x, y), cell in sorted(referee.cells.items()):
        units = cell.units.get(player, 0)
        if not units or rng.random() < 0.15:
            continue
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            n = rng.randint(1, units + (1 if rng.random() < 0.15 else 0))
            enemies = [
                d
                for d in DIRECTIONS
                if (t := referee.cells.get(neighbour(x, y, d)))
                and (any(q != player for q in t.units) or t.hive not in (None, player))
            ]
            roll = rng.random()
            hives = [d for d in enemies if referee.cells[neighbour(x, y, d)].hive not in (None, player)]
            if hives and roll < 0.5:
                n = units if rng.random() < 0.7 else n
                action = f"MOVE {rng.choice(hives)}"
            elif cell.hive == player and roll < 0.55:
                action = "BUILD"
            elif enemies and roll < 0.7:
                action = f"MOVE {rng.choice(enemies)}"
            elif roll < 0.2 and referee.resources[player] >= 100 and cell.hive is None:
                action = "BUILD"
            elif roll < 0.45:
                action = "MINE"
            elif roll < 0.5:
                action = "BUILD"
            else:
                action = f"MOVE {rng.choice(DIRECTIONS)}"
            commands.append(f"{x},{y} {n} {action}")
    for _ in range(rng.choice((0, 0, 0, 1))):  # a command on a random cell, or off the map
        x, y = rng.randint(0, width), rng.randint(0, height)
        commands.append(
            f"{x},{y} {rng.randint(1, 3)} {rng.choice(['MINE', 'BUILD', 'MOVE ' + rng.choice(DIRECTIONS)])}"
        )
    rng.shuffle(commands)
    return "; ".join(commands) if commands else "pass"


def engine_turn_facts(state: MonadState) -> tuple[dict[str, Any], dict[str, int]]:
    report = state.last_report
    assert report is not None
    commands = {name: [c.as_list() for c in report.carried[s]] for s, name in enumerate(state.seats)}
    dropped = {name: len(report.dropped[s]) for s, name in enumerate(state.seats)}
    return commands, dropped


def play_both(
    seed: int,
    players: int,
    size: int,
    obstacles: float,
    turns: int,
    check_commands: bool = True,
    crowded: bool = False,
) -> Referee:
    """A random match in the engine and the referee; returns the referee at the end."""
    names = ["ann", "bob", "cy", "di"][:players]
    options = {"width": size, "height": size, "obstacles": obstacles, "turns": turns}
    state = get_game("monad").new(options, names, seed)
    assert isinstance(state, MonadState)
    rng = random.Random(seed)
    if crowded:
        start = crowd(state.view(None).board_json(), names, rng)
        board = board_from_json(start, names)
        state = dataclasses.replace(state, board=board, result=outcome(board))
    referee = Referee(state.view(None).board_json(), names)
    while not referee.over:
        moves = {name: random_move(referee, p, rng) for p, name in enumerate(names)}
        assert not state.is_over(), f"engine over at turn {state.turn}, referee goes on"
        order = list(range(players))
        rng.shuffle(order)
        for p in order:
            assert p in state.to_move()  # every seat moves every turn, even one with nothing left
            state = state.apply(p, moves[names[p]])
        assert state.to_move() == tuple(range(players)) or state.is_over()
        result = referee.play_turn(moves)
        assert state.turn == referee.turn
        assert state.view(None).board_json() == referee.board_json(), f"turn {referee.turn}: {moves}"
        commands, dropped = engine_turn_facts(state)
        if check_commands:
            assert dropped == result.dropped, f"turn {referee.turn}: {moves} {dropped} {result.dropped}"
        if check_commands:
            assert commands == result.commands, f"turn {referee.turn}: {moves}"
    assert state.is_over()
    assert state.winners() == referee.winners
    return referee


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    players=st.integers(2, 4),
    size=st.sampled_from([6, 7, 8, 10]),
    obstacles=st.sampled_from([0.0, 0.0, 0.15, 0.3]),
    crowded=st.booleans(),
)
def test_engine_matches_referee(seed: int, players: int, size: int, obstacles: float, crowded: bool) -> None:
    """Crowded matches start with armies and hives scattered over the map: hive attacks from the first turns."""
    play_both(seed, players, size, obstacles, turns=120, crowded=crowded)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "termgames", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_cli_matches_referee(tmp_path: Path) -> None:
    """new / move --as (each seat, shuffled order) / show --json / trace against the referee."""
    names = ["ann", "bob", "cy"]
    record = tmp_path / "m.json"
    made = cli(
        "new",
        "monad",
        *[a for n in names for a in ("-p", n)],
        "--width",
        "7",
        "--height",
        "7",
        "--obstacles",
        "0.15",
        "--turns",
        "4",
        "--seed",
        "5",
        "--out",
        str(record),
    )
    assert made.returncode == 0, made.stderr
    shown = json.loads(cli("show", str(record), "--json").stdout)
    referee = Referee(shown["board"], names)
    rng = random.Random(5)
    boards = [shown["board"]]
    dropped_counts = []
    carried = []
    while not referee.over:
        moves = {name: random_move(referee, p, rng) for p, name in enumerate(names)}
        order = list(names)
        rng.shuffle(order)
        for i, name in enumerate(order):
            done = cli("move", str(record), moves[name], "--as", name)
            assert done.returncode == 0, done.stderr
            if i == 0:  # a seat moving twice in one turn is refused with one line
                twice = cli("move", str(record), "pass", "--as", name)
                assert twice.returncode != 0 and len(twice.stderr.strip().splitlines()) == 1, twice
        result = referee.play_turn(moves)
        dropped_counts.append(result.dropped)
        carried.append(result.commands)
        boards.append(referee.board_json())
        shown = json.loads(cli("show", str(record), "--json").stdout)
        assert shown["over"] == referee.over
        assert shown["to_move"] == ([] if referee.over else names)
        assert shown["board"] == referee.board_json()
    lines = [json.loads(line) for line in cli("monad", "trace", str(record)).stdout.splitlines()]
    assert [line["turn"] for line in lines] == list(range(len(boards)))
    assert lines[0]["commands"] == {n: [] for n in names} and lines[0]["dropped"] == {n: [] for n in names}
    for line, board in zip(lines, boards):
        assert line["board"] == board
    for line, counts, commands in zip(lines[1:], dropped_counts, carried):
        assert {n: len(r) for n, r in line["dropped"].items()} == counts
        assert all(isinstance(reason, str) for reasons in line["dropped"].values() for reason in reasons)
        assert line["commands"] == commands
    assert shown["winners"] == [names[p] for p in referee.winners]
    late = cli("move", str(record), "pass", "--as", names[0])
    assert late.returncode != 0 and len(late.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("obstacles", [0.0, 0.2])
def test_initial_board_follows_rulings_2_and_3(players: int, obstacles: float) -> None:
    names = ["ann", "bob", "cy", "di"][:players]
    starts = {
        2: [(1, 1), (18, 18)],
        3: [(5, 5), (10, 14), (15, 5)],
        4: [(5, 5), (5, 15), (15, 5), (15, 15)],
    }[players]
    for seed in (1, 2):
        board = get_game("monad").new({"obstacles": obstacles}, names, seed).view(None).board_json()
        assert (board["width"], board["height"], board["turn"], board["limit"]) == (
            20,
            20,
            0,
            2000,
        )
        assert board["resources"] == {n: 100 for n in names} and board["units"] == {n: 1 for n in names}
        assert board["hives"] == {n: 0 for n in names}
        cells = board["cells"]
        for y, row in enumerate(cells):
            for x, cell in enumerate(row):
                assert set(cell) <= {"resources", "obstacle", "owner", "units"}
                assert cell.get("obstacle", True) is True  # present only when true
                assert 0 <= cell["resources"] <= (0 if "obstacle" in cell else 50)
                if (x, y) in starts:
                    assert cell["owner"] == names[starts.index((x, y))] and cell["units"] == 1
                    assert "obstacle" not in cell
                else:
                    assert "owner" not in cell
                if players == 2:
                    assert {k: cell[k] for k in ("resources", "obstacle") if k in cell} == {
                        k: v for k, v in cells[19 - y][19 - x].items() if k in ("resources", "obstacle")
                    }


def test_cli_empty_move_and_a_move_starting_with_a_minus(tmp_path: Path) -> None:
    """ "An empty move (pass) is allowed"; a move beginning "-1,0" is a move (off the map: dropped), not an option."""
    record = tmp_path / "m.json"
    assert (
        cli(
            "new",
            "monad",
            "-p",
            "ann",
            "-p",
            "bob",
            "--seed",
            "2",
            "--out",
            str(record),
        ).returncode
        == 0
    )
    assert cli("move", str(record), "", "--as", "ann").returncode == 0
    done = cli("move", str(record), "-1,0 1 MINE; 18,18 1 MINE", "--as", "bob")
    assert done.returncode == 0, done.stderr
    last = json.loads(cli("monad", "trace", str(record)).stdout.splitlines()[-1])
    assert last["turn"] == 1 and last["commands"] == {
        "ann": [],
        "bob": [[18, 18, 1, "MINE"]],
    }
    assert {name: len(reasons) for name, reasons in last["dropped"].items()} == {
        "ann": 0,
        "bob": 1,
    }


def small_board(
    names: list[str], units: dict[tuple[int, int], tuple[str, int]], hives: dict[tuple[int, int], str]
) -> dict[str, Any]:
    """A 6x6 board in show --json's shape, no resources, with these units and hives."""
    cells: list[list[dict[str, Any]]] = [[{"resources": 0} for _ in range(6)] for _ in range(6)]
    for (x, y), name in hives.items():
        cells[y][x].update({"hive": name, "production": 0})
    for (x, y), (name, n) in units.items():
        cells[y][x].update({"owner": name, "units": n})
    board: dict[str, Any] = {"width": 6, "height": 6, "turn": 0, "limit": 50, "cells": cells}
    board["resources"] = {n: 0 for n in names}
    board["units"] = {n: sum(u for o, u in units.values() if o == n) for n in names}
    board["hives"] = {n: sum(1 for o in hives.values() if o == n) for n in names}
    return board


def both_after(board: dict[str, Any], names: list[str], moves: dict[str, str]) -> dict[str, Any]:
    """The board after one turn by the referee, checked equal to the engine's."""
    referee = Referee(board, names)
    referee.play_turn(moves)
    engine_board, _ = resolve_turn(board_from_json(board, names), [parse_commands(moves.get(n, "")) for n in names])
    assert board_json(engine_board, names) == referee.board_json()
    return referee.board_json()


@pytest.mark.parametrize(
    ("defenders", "attackers", "hive_stands", "defenders_left", "attackers_left"),
    [
        (0, 8, True, 0, 0),
        (0, 10, False, 0, 0),
        (3, 8, True, 3, 0),
        (3, 15, False, 0, 2),
        (3, 12, True, 0, 0),
        (3, 13, False, 0, 0),
    ],
)
def test_the_rules_six_hive_defence_examples(
    defenders: int, attackers: int, hive_stands: bool, defenders_left: int, attackers_left: int
) -> None:
    names = ["ann", "bob"]
    units = {(3, 2): ("bob", attackers)}
    if defenders:
        units[2, 2] = ("ann", defenders)
    after = both_after(small_board(names, units, {(2, 2): "ann"}), names, {"bob": f"3,2 {attackers} MOVE W"})
    cell = after["cells"][2][2]
    assert ("hive" in cell) == hive_stands
    # The hive that stands makes its production point (1 of 5): no new unit this turn.
    assert cell.get("units", 0) == (defenders_left if hive_stands else attackers_left)


def test_the_rules_collision_and_three_player_examples() -> None:
    names = ["ann", "bob", "cy"]
    # A sends 8 from (2, 4) toward (2, 5)'s cell and B 5 back: as if A alone sent 3.
    after = both_after(
        small_board(names, {(2, 4): ("ann", 8), (2, 5): ("bob", 5)}, {}),
        names,
        {"ann": "2,4 8 MOVE SW", "bob": "2,5 5 MOVE NE"},
    )
    assert after["cells"][5][2] == {"resources": 0, "owner": "ann", "units": 3} and after["units"]["bob"] == 0
    # A 12, B 8, C 10 meet in one cell: A keeps 2.
    after = both_after(
        small_board(names, {(1, 3): ("ann", 12), (3, 3): ("bob", 8), (2, 2): ("cy", 10)}, {}),
        names,
        {"ann": "1,3 12 MOVE E", "bob": "3,3 8 MOVE W", "cy": "2,2 10 MOVE SW"},
    )
    assert after["cells"][3][2] == {"resources": 0, "owner": "ann", "units": 2}
    assert after["units"] == {"ann": 2, "bob": 0, "cy": 0}
