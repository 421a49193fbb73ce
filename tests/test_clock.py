"""Clocks without a server: the --clock grammar, the arithmetic with made-up times, flags in the match, records.

No test here waits for real time: every moment is passed in.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hubkit import until

from termgames import records
from termgames.clock import Clocks, ClockSpec, clock_text, next_change, parse_clock
from termgames.match import AI, Match, Seat
from termgames.records import RecordError
from termgames.report import view_json
from termgames.rules import RuleError
from termgames.turns import undo_ply

T0 = 1_700_000_000.0


# -- the grammar -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "base", "increment", "per_move", "canonical"),
    [
        ("10m+5s", 600, 5, False, "10m+5s"),
        ("30s+2s", 30, 2, False, "30s+2s"),
        ("3d+1d", 3 * 86400, 86400, False, "3d+1d"),
        ("5m", 300, 0, False, "5m+0s"),
        ("90s+0s", 90, 0, False, "90s+0s"),
        ("3d/move", 3 * 86400, 0, True, "3d/move"),
        ("45s/move", 45, 0, True, "45s/move"),
        (" 2H+30S ", 7200, 30, False, "2h+30s"),
        ("60d", 60 * 86400, 0, False, "60d+0s"),
    ],
)
def test_the_grammar_reads_fischer_and_per_move_clocks(text, base, increment, per_move, canonical):
    spec = ClockSpec.parse(text)
    assert (spec.base, spec.increment, spec.per_move) == (base, increment, per_move)
    assert str(spec) == canonical and ClockSpec.parse(str(spec)) == spec


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("0s", "more than 0 s"),
        ("0m+5s", "more than 0 s"),
        ("0s/move", "more than 0 s"),
        ("61d", "more than 60 days"),
        ("1441h", "more than 60 days"),
        ("10m+61d", "more than 60 days"),
        ("999999999d", "more than 60 days"),
        ("１０m", "digits 0-9 only"),  # fullwidth digits
        ("٣d/move", "digits 0-9 only"),  # an Arabic-Indic three
        ("10", "not a number and a unit"),
        ("10m+", "not a number and a unit"),
        ("1.5h", "not a number and a unit"),
        ("-5m", "not a number and a unit"),
        ("10w", "not a number and a unit"),
        ("5m/move/move", "not a number and a unit"),
        ("", "empty"),
        ("1" * 100 + "s", "too long"),
        ("5m\x1b[2J", "not a number and a unit"),
    ],
)
def test_a_bad_clock_is_refused_in_one_line_naming_clock_and_the_grammar(text, why):
    with pytest.raises(RuleError) as caught:
        ClockSpec.parse(text)
    message = str(caught.value)
    assert message.startswith("--clock ") and why in message and "BASE+INC" in message and "N/move" in message
    assert "\n" not in message and "\x1b" not in message


def test_no_clock_is_untimed():
    assert parse_clock(None) is None and parse_clock("  ") is None


def test_a_day_or_more_is_correspondence_marked_under_a_fifth_and_live_under_20_seconds():
    assert ClockSpec.parse("3d/move").correspondence and ClockSpec.parse("3d/move").warning_seconds == 3 * 86400 / 5
    assert ClockSpec.parse("1d+0s").correspondence
    assert not ClockSpec.parse("23h+1h").correspondence
    assert ClockSpec.parse("10m+5s").warning_seconds == 20
    assert ClockSpec.parse("30s+2s").warning_seconds == 20


# -- the arithmetic, with made-up times ------------------------------------------------------------


def test_a_fischer_clock_charges_the_mover_and_adds_the_increment():
    clocks = Clocks.new(ClockSpec.parse("10m+5s"), 2).run([0], T0)
    assert clocks.left_at(0, T0 + 30) == 570 and clocks.left_at(1, T0 + 30) == 600
    clocks, left = clocks.after_move(0, T0 + 30, [1])
    assert left == 575 and clocks.running == (1,) and clocks.since == T0 + 30
    assert clocks.left_at(0, T0 + 1000) == 575  # stopped
    assert clocks.left_at(1, T0 + 90) == 540
    assert clocks.deadline() == T0 + 30 + 600


def test_an_n_per_move_clock_is_fresh_at_every_turn():
    clocks = Clocks.new(ClockSpec.parse("45s/move"), 2).run([0], T0)
    clocks, left = clocks.after_move(0, T0 + 40, [1])
    assert left == 5  # what was left of N when the move came
    clocks, left = clocks.after_move(1, T0 + 50, [0])
    assert left == 35 and clocks.left_at(0, T0 + 50) == 45  # fresh again
    assert clocks.due(T0 + 95) == (0,) and clocks.due(T0 + 94.9) == ()


def test_a_seat_keeping_the_turn_goes_on_with_its_clock_running():
    clocks = Clocks.new(ClockSpec.parse("1m+2s"), 2).run([0], T0)
    clocks, left = clocks.after_move(0, T0 + 10, [0])  # Copolymer: a claim that earns another
    assert left == 52 and clocks.running == (0,) and clocks.left_at(0, T0 + 20) == 42


def test_simultaneous_turns_run_every_clock_until_each_seat_moves():
    clocks = Clocks.new(ClockSpec.parse("1m+0s"), 3).run([0, 1, 2], T0)
    clocks, left = clocks.after_move(1, T0 + 10, [0, 2])  # Monad: seat 1 sent its commands
    assert left == 50 and clocks.running == (0, 2)
    assert clocks.left_at(0, T0 + 30) == 30 and clocks.left_at(2, T0 + 30) == 30
    clocks, _ = clocks.after_move(0, T0 + 30, [2])
    clocks, _ = clocks.after_move(2, T0 + 40, [0, 1, 2])  # the turn resolves: all run again
    assert [clocks.left_at(seat, T0 + 40) for seat in range(3)] == [30, 50, 20]


def test_a_flag_stops_the_clock_at_zero_and_it_never_runs_again():
    clocks = Clocks.new(ClockSpec.parse("5s"), 3).run([0], T0)
    assert clocks.due(T0 + 5) == (0,)
    clocks = clocks.flagged(0, T0 + 5).run([0, 1], T0 + 5)
    assert clocks.out == (0,) and clocks.running == (1,) and clocks.left_at(0, T0 + 99) == 0


def test_no_time_is_charged_while_the_clocks_do_not_count():
    clocks = Clocks.new(ClockSpec.parse("1m"), 2)
    same, left = clocks.after_move(0, T0 + 500, [1])  # a table still waiting for players
    assert same == clocks and left == 60
    clocks = clocks.run([0], T0).paused(T0 + 10)
    assert clocks.left_at(0, T0 + 1000) == 50
    clocks = clocks.resumed(T0 + 1000)
    assert clocks.left_at(0, T0 + 1005) == 45
    assert clocks.shifted(300).left_at(0, T0 + 1305) == 45  # a downtime credited


def test_the_stored_clock_reads_back_and_a_bad_one_is_refused():
    clocks = Clocks.new(ClockSpec.parse("3d/move"), 2).run([1], T0).flagged(0, T0 + 1)
    assert Clocks.from_json(json.loads(json.dumps(clocks.to_json())), 2) == clocks
    for bad in ({"spec": "3d/move", "left": [1], "running": []}, {"spec": "x", "left": [1, 2]},
                {"spec": "1m", "left": [1, float("nan")]}, {"spec": "1m", "left": [1, 2], "running": [5]}, []):
        with pytest.raises((ValueError, RuleError)):
            Clocks.from_json(bad, 2)


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0, "0:00"), (0.2, "0:01"), (59.5, "1:00"), (272, "4:32"), (3599, "59:59"), (3600.5, "1h 00m"),
     (5 * 3600 + 60 * 7, "5h 07m"), (86400 * 2 + 3600 * 5, "2d 5h")],
)
def test_a_clock_reads_m_ss_under_an_hour_and_days_and_hours_beyond(seconds, shown):
    assert clock_text(seconds) == shown


def test_the_next_repaint_comes_when_the_text_changes():
    for seconds in (0.2, 5, 59.5, 3599.5, 3600.5, 3661, 86400.5, 90000, 200000.25):
        after = seconds - next_change(seconds)
        assert clock_text(after) != clock_text(seconds)
        assert clock_text(seconds - next_change(seconds) + 0.01) == clock_text(seconds)


# -- flags in the match ------------------------------------------------------------------------------


def timed(game: str, seats: int, spec: str = "1m+0s", **options) -> Match:
    names = [Seat(name) for name in ("ann", "bob", "cat", "dan")[:seats]]
    match = Match(game, options, names, 7, clock=ClockSpec.parse(spec))
    match.start_clocks(T0)
    return match


def test_two_seats_the_other_wins_on_time():
    match = timed("copolymer", 2, size=5)
    match.play(0, "A1", at=T0 + 5)
    assert match.clocks is not None and match.clocks.due(T0 + 66) == (1,)
    match.flag(1, at=T0 + 66)
    assert match.over and match.ended_by == "time" and match.winners() == (0,) and match.to_move() == ()
    view = match.view(None)
    assert view.over and view.winners == (0,) and view.status == "bob ran out of time: ann wins on time"
    assert match.result() == {"scores": {"ann": 1, "bob": 0}, "winners": ["ann"], "ended_by": "time"}
    assert match.ranks() == [0.0, 1.0]
    with pytest.raises(RuleError, match="over"):
        match.play(1, "B2")
    with pytest.raises(RuleError, match="ran out of time"):  # the flag, and the moves before it, stand
        undo_ply(match, [0, 1])
    assert match.view(None, ply=0).over is False  # a replay before the flag: the game went on


def test_three_seats_the_computer_takes_the_seat_and_it_ranks_last():
    match = timed("mono", 3, size=3)
    seat = match.to_move()[0]
    match.flag(seat, at=T0 + 61)
    assert not match.over and match.ended_by is None and match.computer_plays(seat)
    assert match.computer_level(seat) == match.game.default_level and match.timeout_move(seat) is None
    assert "the computer plays for them" in match.view(None).status
    # The computer plays the game out for that seat; it never wins and it ranks last.
    from termgames.ai import make_bot

    bot = make_bot("mono", "easy", seed=1)
    while not match.over:
        mover = match.to_move()[0]
        match.play(mover, bot.choose(match.view(mover)), at=T0 + 62)
    assert seat not in match.winners()
    ranks = match.ranks()
    assert ranks[seat] == max(ranks) and sorted(ranks).count(ranks[seat]) == 1
    assert records.loads(records.dumps(match)).ranks() == ranks


def test_a_seat_out_of_time_never_wins_and_ranks_last_even_with_the_best_score():
    match = timed("mono", 3, size=3)
    match.flag(0, at=T0 + 61)

    class Ended:  # the rules' last position, as if seat 0 had scored best
        def is_over(self) -> bool:
            return True

        def winners(self) -> tuple[int, ...]:
            return (0,)

        def scores(self) -> tuple[int, ...]:
            return (9, 5, 7)

    match.states[-1] = Ended()  # type: ignore[call-overload]  # a stand-in state
    assert match.winners() == (2,)  # the best score among the seats that kept their time
    assert match.ranks() == [2.0, 1.0, 0.0]


def test_monad_a_seat_out_of_time_passes_every_turn():
    match = timed("monad", 3, width=8, height=8, turns=3)
    match.flag(2, at=T0 + 61)
    assert match.timeout_move(2) == "pass" and not match.over
    assert match.clock_seats() == (0, 1)  # its clock no longer runs


async def test_the_turn_runner_passes_for_a_monad_seat_out_of_time_at_once():

    from termgames.table import LocalTable

    match = Match("monad", {"width": 8, "height": 8, "turns": 3}, [Seat("ann"), Seat("bob"), Seat("cat")], 7,
                  clock=ClockSpec.parse("1m"))
    table = LocalTable(match)
    table.now = lambda: T0
    table.start()
    match.flag(2, at=T0 + 1)
    table.runner.moved()
    await until(lambda: bool(match.moves))
    assert [(m.seat, m.move) for m in match.moves] == [(2, "pass")]
    table.close()


def test_an_undo_never_goes_back_past_a_flag():
    match = timed("mono", 3, size=3)
    first = match.to_move()[0]
    match.play(first, "random", at=T0 + 1)
    nxt = match.to_move()[0]
    match.flag(nxt, at=T0 + 70)
    with pytest.raises(RuleError, match="ran out of time"):
        undo_ply(match, [first])


# -- records keep the clocks ---------------------------------------------------------------------------


def test_a_timed_record_keeps_the_clocks_and_the_flag_and_replays_them():
    match = timed("copolymer", 2, "2m+3s", size=5)
    match.play(0, "A1", at=T0 + 20)
    match.play(1, "B2", at=T0 + 50)
    match.flag(0, at=T0 + 20 + 123 + 3)
    data = json.loads(records.dumps(match, now=T0 + 200))
    assert data["version"] == 3 and data["clock"]["spec"] == "2m+3s"
    assert [move["clock"] for move in data["moves"]] == [103, 93]
    assert data["flags"] == [{"seat": "ann", "ply": 2, "time": match.flags[0].time}]
    assert data["result"]["ended_by"] == "time"
    again = records.loads(json.dumps(data))
    assert again.over and again.ended_by == "time" and again.winners() == (1,)
    assert again.clocks_at(0) == (120, 120) and again.clocks_at(1) == (103, 120) and again.clocks_at(2) == (0, 93)
    assert view_json(again, None, T0)["clock"] == {"ann": 0, "bob": 93}


def test_a_saved_running_clock_resumes_where_it_stood():
    match = timed("copolymer", 2, "1m+0s", size=5)
    match.play(0, "A1", at=T0 + 10)
    saved = records.loads(records.dumps(match, now=T0 + 25))  # bob thought 15 s, then the game was put away
    assert saved.clocks is not None and not saved.clocks.counting
    saved.start_clocks(T0 + 5000)
    assert saved.clocks.left_at(1, T0 + 5010) == 35


def test_an_untimed_record_stays_version_2_and_old_records_load():
    match = Match("copolymer", {"size": 5}, [Seat("ann"), Seat("bob")], 7)
    match.play(0, "A1")
    data = json.loads(records.dumps(match))
    assert data["version"] == 2 and "clock" not in data and "clock" not in data["moves"][0]
    data["version"] = 1
    data["seed"] = 7
    assert records.loads(json.dumps(data)).clock is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["clock"].update(spec="0s"), "more than 0 s"),
        (lambda d: d["clock"].update(left={"ann": 1}), "time left"),
        (lambda d: d["clock"]["left"].update(ann="x"), "time left"),
        (lambda d: d["moves"][0].update(clock=-1), "'clock' in move 1"),
        (lambda d: d["flags"].append({"seat": "bob", "ply": 9, "time": ""}), "ran out of time after move 9"),
        (lambda d: d["flags"].append({"seat": "zed", "ply": 1, "time": ""}), "who has no seat"),
        (lambda d: d["flags"].extend([{"seat": "ann", "ply": 1, "time": ""}] * 2), "ran out of time already"),
        (lambda d: (d.pop("clock"), d["flags"].append({"seat": "ann", "ply": 1, "time": ""})), "no clock"),
    ],
)
def test_a_tampered_clock_is_refused_in_one_line(change, message):
    match = timed("mono", 3, size=3)
    match.play(match.to_move()[0], "random", at=T0 + 1)
    data = json.loads(records.dumps(match, now=T0 + 2))
    data["flags"] = []
    change(data)
    with pytest.raises(RecordError) as caught:
        records.loads(json.dumps(data))
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_show_json_gains_clock_and_ended_by(tmp_path):
    untimed = Match("copolymer", {"size": 5}, [Seat("ann"), Seat("bob", AI, "easy")], 7)
    finished = timed("copolymer", 2, "1m", size=5)
    finished.flag(0, at=T0 + 61)
    for name, match in (("untimed", untimed), ("flagged", finished)):
        records.save(tmp_path / f"{name}.json", match)
    shown = {}
    for name in ("untimed", "flagged"):
        done = subprocess.run(
            [sys.executable, "-m", "termgames", "show", str(tmp_path / f"{name}.json"), "--json"],
            capture_output=True, text=True, check=True,
        )
        shown[name] = json.loads(done.stdout)
    assert shown["untimed"]["clock"] == {"ann": None, "bob": None} and shown["untimed"]["ended_by"] is None
    assert shown["flagged"]["clock"] == {"ann": 0, "bob": 60} and shown["flagged"]["ended_by"] == "time"
    assert shown["flagged"]["winners"] == ["bob"] and shown["flagged"]["over"] is True


def test_play_refuses_a_bad_clock_in_one_line():
    done = subprocess.run(
        [sys.executable, "-m", "termgames", "play", "copolymer", "--clock", "0s"], capture_output=True, text=True,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--clock '0s'" in lines[0] and "BASE+INC" in lines[0]
