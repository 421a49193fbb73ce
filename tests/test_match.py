"""The mid-end: Match (moves, undo, truncate, views at a ply), Seat and parse_player."""

from __future__ import annotations

import random

import pytest

from termgames.match import AI, HUMAN, Match, MoveRecord, Seat, default_seats, parse_player
from termgames.rules import RuleError, get_game
from termgames.rules.base import ALL

COPOLYMER = get_game("copolymer")


def small_match(seats=None, seed: int = 11) -> Match:
    return Match("copolymer", {"size": 5}, seats or [Seat("ann"), Seat("bob")], seed)


def play_out(match: Match, chooser_seed: int = 0, limit: int | None = None) -> Match:
    chooser = random.Random(chooser_seed)
    while not match.over and (limit is None or len(match.moves) < limit):
        (seat,) = match.state.to_move()
        empty = sorted(match.view(seat).legal_cells())
        match.play(seat, match.state.board.names[chooser.choice(empty)])
    return match


# --------------------------------------------------------------------------
# Construction and play
# --------------------------------------------------------------------------


def test_new_match():
    match = small_match()
    assert match.game is COPOLYMER
    assert match.options == {"shape": "hexagon", "size": 5}
    assert match.names == ("ann", "bob")
    assert match.moves == [] and len(match.states) == 1
    assert not match.over and match.result() is None
    assert match.describe() == "Copolymer (hexagon of 5 rows, 19 cells): ann vs bob"
    assert Match(COPOLYMER, None, default_seats(COPOLYMER), 1).names == ("p1", "p2")


def test_play_records_normalised_moves_and_times():
    match = small_match()
    match.play(0, " c3 ", time="2024-01-02T03:04:05+00:00")
    match.play(match.seat_of("bob"), "a1")
    assert [m.move for m in match.moves] == ["C3", "A1"]
    assert [m.seat for m in match.moves] == [0, 1]
    assert match.moves[0].time == "2024-01-02T03:04:05+00:00"
    assert match.moves[1].time  # stamped with the current time
    assert len(match.states) == 3 and match.state.ply == 2


def test_a_refused_move_changes_nothing():
    match = small_match()
    match.play(0, "C3")
    states, moves = list(match.states), list(match.moves)
    for seat, move in [(1, "C3"), (0, "A1"), (1, "Q9"), (1, "")]:
        with pytest.raises(RuleError):
            match.play(seat, move)
        assert match.states == states and match.moves == moves
    with pytest.raises(RuleError, match="no player 'carol'"):
        match.play(match.seat_of("carol"), "A1")


def test_replay_names_the_first_bad_move():
    moves = [MoveRecord(0, "C3", ""), MoveRecord(1, "A1", ""), MoveRecord(0, "A1", "")]
    with pytest.raises(RuleError) as caught:
        Match.replay("copolymer", {"size": 5}, [Seat("ann"), Seat("bob")], 1, moves)
    assert str(caught.value).startswith("move 3 ('A1') is illegal: A1 is already taken")


def test_result_once_over():
    match = play_out(small_match())
    assert match.over
    result = match.result()
    assert set(result) == {"scores", "winners"}
    assert sum(result["scores"].values()) == 19
    assert all(isinstance(v, int) for v in result["scores"].values())
    (winner,) = result["winners"]
    assert result["scores"][winner] >= 10


def test_same_options_seats_seed_and_moves_give_the_same_game():
    first = play_out(small_match(seed=99), chooser_seed=5)
    second = small_match(seed=99)
    for record in first.moves:
        second.play(record.seat, record.move)
    assert second.states == first.states
    assert second.result() == first.result()
    third = Match.replay("copolymer", {"size": 5}, first.seats, 99, first.moves)
    assert third.states == first.states and third.moves == first.moves
    # Every view along the way agrees too.
    for ply in range(len(first.moves) + 1):
        assert third.view(0, ply) == first.view(0, ply)
    # The seed is part of the game (a different seed is a different state) ...
    other = Match.replay("copolymer", {"size": 5}, first.seats, 98, first.moves)
    assert other.state != first.state and other.state.owners == first.state.owners


# --------------------------------------------------------------------------
# Undo and truncate
# --------------------------------------------------------------------------


def test_undo_removes_the_last_move():
    match = small_match()
    assert match.undo() is False
    match.play(0, "C3")
    match.play(1, "A1")
    after_one = match.states[1]
    assert match.undo() is True
    assert [m.move for m in match.moves] == ["C3"]
    assert match.state == after_one and len(match.states) == 2
    assert match.state.to_move() == (1,)
    assert match.undo() is True
    assert match.moves == [] and len(match.states) == 1
    assert match.undo() is False


def test_undo_for_a_human_against_an_ai_removes_the_ai_replies():
    match = small_match([Seat("ann"), Seat("bot", AI, "easy")])
    assert match.human_seats() == [0]
    match.play(0, "C3")
    match.play(1, "A1")
    match.play(0, "C2")
    # B2 touches ann's C2 and C3: the bot must claim again, then E5 ends its turn.
    match.play(1, "B2")
    assert match.state.to_move() == (1,)
    match.play(1, "E5")
    assert match.state.to_move() == (0,)
    assert match.undo_ply_for([0]) == 2
    assert match.undo(seats=[0]) is True
    assert [m.move for m in match.moves] == ["C3", "A1"]
    assert match.state.to_move() == (0,)  # ann gets her move back
    assert match.state == Match.replay("copolymer", {"size": 5}, match.seats, 11, match.moves).state
    assert match.undo(seats=[0]) is True
    assert match.moves == []
    assert match.undo(seats=[0]) is False


def test_undo_for_a_seat_that_has_not_moved_does_nothing():
    match = small_match([Seat("bot", AI, "easy"), Seat("bob")])
    match.play(0, "C3")
    assert match.undo(seats=[1]) is False
    assert len(match.moves) == 1


def test_undo_of_a_finished_game_reopens_it():
    match = play_out(small_match())
    assert match.over
    match.undo()
    assert not match.over and match.result() is None
    assert len(match.moves) == 18


def test_truncate():
    match = play_out(small_match(), limit=8)
    states = list(match.states)
    match.truncate(5)
    assert len(match.moves) == 5 and match.states == states[:6]
    match.truncate(99)  # beyond the end: nothing changes
    assert len(match.moves) == 5
    match.truncate(-3)
    assert match.moves == [] and match.states == states[:1]
    # Play goes on from the truncated position.
    match.play(0, "E5")
    assert [m.move for m in match.moves] == ["E5"]


# --------------------------------------------------------------------------
# Views
# --------------------------------------------------------------------------


def test_view_at_a_ply():
    match = play_out(small_match(), limit=6)
    for ply in range(7):
        view = match.view(0, ply)
        assert view.owners == match.states[ply].owners
        assert view.moves == tuple((m.seat, m.move) for m in match.moves[:ply])
        assert sum(owner is not None for owner in view.owners) == ply
        assert view.viewer == 0
    assert match.view(1, 0).moves == () and set(match.view(1, 0).owners) == {None}
    assert match.view(None, 100) == match.view(None)  # clamped to now
    assert match.view(None, -5) == match.view(None, 0)
    assert match.view(None).moves == match.view(None, 6).moves
    assert match.view(1).viewer == 1 and match.view(None).viewer is None


def test_view_of_every_board_only_once_over():
    match = play_out(small_match(), limit=10)
    with pytest.raises(RuleError, match="once the game is over"):
        match.view(ALL)
    with pytest.raises(RuleError):
        match.view(ALL, 3)
    play_out(match)
    final = match.view(ALL)
    assert final.over and final.owners == match.state.owners
    assert len(final.moves) == len(match.moves)
    # A replay of the finished game may show every board at any ply.
    early = match.view(ALL, 3)
    assert early.owners == match.states[3].owners and len(early.moves) == 3


def test_views_are_what_the_seat_sees():
    match = small_match()
    view = match.view(0)
    assert view.is_my_turn() and not match.view(1).is_my_turn() and not match.view(None).is_my_turn()
    assert view.status == "ann to claim"
    assert view.name(1) == "bob"


# --------------------------------------------------------------------------
# Seats
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seat"),
    [
        ("alice", Seat("alice")),
        ("  alice ", Seat("alice")),
        ("alice:human", Seat("alice", HUMAN, None)),
        ("bob:ai", Seat("bob", AI, COPOLYMER.default_level)),
        ("bob:ai:hard", Seat("bob", AI, "hard")),
        ("bob:AI:Easy", Seat("bob", AI, "easy")),
        ("bob:ai:normal", Seat("bob", AI, "normal")),
    ],
)
def test_parse_player(text, seat):
    parsed = parse_player(text, COPOLYMER)
    assert parsed == seat
    assert parse_player(parsed.spec(), COPOLYMER) == parsed


@pytest.mark.parametrize(
    "text",
    ["", "   ", ":ai", "bob:robot", "bob:ai:genius", "bob:ai:hard:extra", "bob:human:hard", "bob:"],
)
def test_bad_player_specs_are_refused(text):
    with pytest.raises(RuleError) as caught:
        parse_player(text, COPOLYMER)
    assert "\n" not in str(caught.value)


def test_seat_info():
    bot = Seat("bob", AI, "hard")
    assert bot.is_ai and bot.spec() == "bob:ai:hard" and bot.describe() == "bob (AI, hard)"
    human = Seat("alice")
    assert not human.is_ai and human.kind == HUMAN and human.spec() == "alice" and human.describe() == "alice"
    match = small_match([human, bot])
    assert match.human_seats() == [0]
    assert match.describe().endswith("alice vs bob (AI, hard)")


def test_bad_seats_are_refused_by_match():
    with pytest.raises(RuleError):
        Match("copolymer", {}, [Seat("ann")], 1)
    with pytest.raises(RuleError):
        Match("copolymer", {}, [Seat("ann"), Seat("ann")], 1)
    with pytest.raises(RuleError, match="no game"):
        Match("chess", {}, [Seat("ann"), Seat("bob")], 1)
