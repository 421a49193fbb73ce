"""Tournament pairing and standings (termgames/tournaments): Swiss, round robin, arena, tables of N."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termgames.tournaments.pairing import (
    Entrant,
    Game,
    History,
    arena_pairs,
    place_points,
    round_robin,
    swiss_round,
    table_sizes,
    tables_round,
    two_seat_points,
)
from termgames.tournaments.standings import arena_standings, crosstable, round_standings


def play_out(games: list[Game], rng: random.Random) -> list[Game]:
    """Each game finished with a random result (draws too)."""
    done = []
    for game in games:
        if game.over:
            done.append(game)
            continue
        roll = rng.random()
        winners = game.seats if roll < 0.2 else (game.seats[0],) if roll < 0.6 else (game.seats[1],)
        done.append(Game(game.seats, two_seat_points(game.seats, winners)))
    return done


def pairs_of(rounds: list[list[Game]]) -> Counter[frozenset[str]]:
    return Counter(frozenset(game.seats) for games in rounds for game in games if not game.bye)


def test_a_worked_round_robin_has_hand_computed_tiebreaks() -> None:
    # A beats D, B draws C; A draws C, B beats D; A beats B, C beats D.
    rounds = [
        [Game(("A", "D"), (1.0, 0.0)), Game(("B", "C"), (0.5, 0.5))],
        [Game(("A", "C"), (0.5, 0.5)), Game(("B", "D"), (1.0, 0.0))],
        [Game(("A", "B"), (1.0, 0.0)), Game(("C", "D"), (1.0, 0.0))],
    ]
    table = [(line.player, line.points, line.tiebreaks) for line in round_standings("ABCD", rounds)]
    assert table == [
        ("A", 2.5, {"buchholz": 3.5, "sonneborn_berger": 2.5}),
        ("C", 2.0, {"buchholz": 4.0, "sonneborn_berger": 2.0}),
        ("B", 1.5, {"buchholz": 4.5, "sonneborn_berger": 1.0}),
        ("D", 0.0, {"buchholz": 6.0, "sonneborn_berger": 0.0}),
    ]


def test_buchholz_breaks_a_tie_before_sonneborn_berger() -> None:
    # X and Y both 1 point; X's opponents scored more.
    rounds = [[Game(("X", "P"), (1.0, 0.0)), Game(("Y", "Q"), (1.0, 0.0))], [Game(("P", "R"), (1.0, 0.0))]]
    order = [line.player for line in round_standings(["X", "Y", "P", "Q", "R"], rounds)]
    assert order.index("X") < order.index("Y")


def test_seven_players_three_swiss_rounds() -> None:
    players = [Entrant(f"p{n}", rating=100 - n) for n in range(7)]
    rng = random.Random(5)
    rounds: list[list[Game]] = []
    for _ in range(3):
        games = swiss_round(players, rounds)
        byes = [game for game in games if game.bye]
        assert len(byes) == 1 and len(games) == 4
        seated = [name for game in games for name in game.seats]
        assert sorted(seated) == sorted(p.name for p in players)
        rounds.append(play_out(games, rng))
    assert max(pairs_of(rounds).values()) == 1, "never the same pair twice"
    byes = Counter(game.seats[0] for games in rounds for game in games if game.bye)
    assert max(byes.values()) == 1, "one bye a player"
    history = History.of(rounds)
    assert all(abs(history.first_balance(p.name)) <= 1 for p in players if history.byes[p.name] == 0)


def test_the_first_round_bye_goes_to_the_lowest_rated() -> None:
    players = [Entrant(name, rating) for name, rating in [("ann", 30), ("bob", 20), ("cy", 10)]]
    games = swiss_round(players, [])
    assert games[-1].bye and games[-1].seats == ("cy",) and games[-1].points == (1.0,)
    assert games[0].seats == ("ann", "bob")


def test_the_bye_skips_who_had_one() -> None:
    players = [Entrant(name, 0) for name in "abc"]
    rounds = [[Game(("a", "b"), (1.0, 0.0)), Game(("c",), (1.0,))]]
    games = swiss_round(players, rounds)
    (bye,) = [game for game in games if game.bye]
    assert bye.seats == ("b",)  # lowest-ranked eligible: b has 0 points, c had the bye


def test_score_groups_meet_first() -> None:
    players = [Entrant(f"p{n}", 0) for n in range(8)]
    rounds = [[Game((f"p{2 * n}", f"p{2 * n + 1}"), (1.0, 0.0)) for n in range(4)]]
    games = swiss_round(players, rounds)
    points = History.of(rounds).points
    assert all(points[game.seats[0]] == points[game.seats[1]] for game in games)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=2, max_value=40), st.integers(min_value=0, max_value=2**31))
def test_swiss_never_repeats_while_it_can_avoid_it(count: int, seed: int) -> None:
    players = [Entrant(f"p{n}", rating=n % 7) for n in range(count)]
    rng = random.Random(seed)
    rounds: list[list[Game]] = []
    for _ in range(min(4, (count - 1) // 2)):
        games = swiss_round(players, rounds)
        assert sorted(name for game in games for name in game.seats) == sorted(p.name for p in players)
        rounds.append(play_out(games, rng))
        assert max(pairs_of(rounds).values(), default=1) == 1


def test_a_thousand_players_pair_without_repeats() -> None:
    players = [Entrant(f"p{n}", rating=n % 97) for n in range(1000)]
    rng = random.Random(1)
    rounds: list[list[Game]] = []
    for _ in range(3):
        rounds.append(play_out(swiss_round(players, rounds), rng))
    assert max(pairs_of(rounds).values()) == 1


def test_round_robin_meets_everyone_once_with_balanced_seats() -> None:
    for count in (4, 5, 6, 7):
        names = [f"p{n}" for n in range(count)]
        rounds = round_robin(names)
        assert len(rounds) == (count - 1 if count % 2 == 0 else count)
        assert pairs_of(rounds) == Counter(frozenset(pair) for pair in itertools.combinations(names, 2))
        firsts = Counter(game.seats[0] for games in rounds for game in games if not game.bye)
        games_played = count - 1
        assert all(abs(2 * firsts[name] - games_played) <= 1 for name in names), firsts
        byes = Counter(game.seats[0] for games in rounds for game in games if game.bye)
        assert byes == (Counter(names) if count % 2 else Counter())


def test_double_round_robin_swaps_the_seats() -> None:
    rounds = round_robin(["a", "b", "c", "d"], double=True)
    assert len(rounds) == 6
    seats = Counter(game.seats for games in rounds for game in games)
    assert all(seats[(a, b)] == 1 and seats[(b, a)] == 1 for a, b in itertools.combinations("abcd", 2))


def test_place_points_and_ties() -> None:
    assert place_points([30, 10, 20]) == (1.0, 0.0, 0.5)
    assert place_points([10, 5, 5]) == (1.0, 0.25, 0.25)
    assert place_points([4, 4, 1, 0]) == pytest.approx((5 / 6, 5 / 6, 1 / 3, 0.0))
    assert two_seat_points(("a", "b"), ("b",)) == (0.0, 1.0)
    assert two_seat_points(("a", "b"), ("a", "b")) == (0.5, 0.5)


def test_tables_of_three_by_score_groups_avoid_meeting_again() -> None:
    assert table_sizes(7, 3, 2) == [3, 2, 2]
    assert table_sizes(9, 4, 2) == [3, 3, 3]
    assert table_sizes(1, 4, 2) == [1]
    players = [Entrant(f"p{n}", 0) for n in range(9)]
    rounds: list[list[Game]] = []
    rng = random.Random(2)
    for _ in range(2):
        games = tables_round(players, rounds, seats=3, fewest=2)
        assert all(len(game.seats) == 3 for game in games)
        rounds.append([Game(g.seats, place_points([rng.random() for _ in g.seats])) for g in games])
    met = Counter(
        frozenset(pair) for games in rounds for game in games for pair in itertools.combinations(game.seats, 2)
    )
    assert max(met.values()) == 1


def test_arena_pairs_close_scores_and_not_the_last_opponent() -> None:
    waiting = [Entrant(name) for name in ("a", "b", "c", "d")]
    scores = {"a": 10.0, "b": 9.0, "c": 1.0, "d": 0.0}
    pairs = {game.seats for game in arena_pairs(waiting, scores, {})}
    assert pairs == {("a", "b"), ("c", "d")}
    pairs = {game.seats for game in arena_pairs(waiting, scores, {"a": "b", "b": "a"})}
    assert ("a", "b") not in pairs
    assert arena_pairs(waiting[:1], scores, {}) == []


def test_arena_streaks_double_the_points() -> None:
    games = [Game(("a", "b"), (1.0, 0.0)) for _ in range(4)]
    games += [Game(("a", "b"), (0.5, 0.5)), Game(("a", "b"), (0.0, 1.0))]
    standings = {line.player: line for line in arena_standings(["a", "b"], games)}
    # a: 2 + 2, then on a streak 4 + 4 and a draw 2, then a loss: 14; b: 1 for the draw, 2 for the win.
    assert standings["a"].points == 14 and standings["b"].points == 3
    assert not standings["a"].streak


def test_the_crosstable_says_who_took_what_from_whom() -> None:
    rounds = [
        [Game(("A", "D"), (1.0, 0.0)), Game(("B", "C"), (0.5, 0.5))],
        [Game(("A", "C"), (0.5, 0.5)), Game(("B", "D"), (1.0, 0.0)), Game(("E",), (1.0,))],
        [Game(("A", "B"), (1.0, 0.0)), Game(("C", "D"))],  # C-D not over: not in it
    ]
    table = crosstable("ABCDE", rounds)
    assert table["A"] == {"D": [1.0], "C": [0.5], "B": [1.0]}
    assert table["D"] == {"A": [0.0], "B": [0.0]}
    assert table["E"] == {}  # a bye meets nobody
    three = crosstable("xyz", [[Game(("x", "y", "z"), (1.0, 0.25, 0.25))]])
    assert three["x"] == {"y": [1.0], "z": [1.0]} and three["y"] == {"x": [0.0], "z": [0.5]}
