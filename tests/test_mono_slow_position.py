"""The Mono decision on 35 regions that once took 74 s (issue 16), saved by ``bench/ladder.py --save-slowest``.

A fresh bot meets the position after the whole game so far: the path that
was slow (layouts followed step by step over every turn, each step drawing
anew).  The cap is asserted on the Deadline, through a clock that counts its
reads, plus a generous wall-clock bound for the real position.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from termgames.ai import make_bot
from termgames.ai.budget import TIME_CAP, Deadline
from termgames.match import Match, Seat

SAVED = Path(__file__).parent / "data" / "mono_slow_35.json"


def saved_position() -> tuple[Match, dict]:
    record = json.loads(SAVED.read_text())
    match = Match("mono", record["options"], [Seat(f"p{seat + 1}") for seat in range(2)], record["seed"])
    for seat, move in record["moves"]:
        match.play(seat, move)
    return match, record


def test_the_saved_position_is_the_slow_one() -> None:
    match, record = saved_position()
    assert match.options["size"] == 35
    assert record["seconds"] > 2 * TIME_CAP
    assert record["seat"] in match.state.to_move()


def test_the_saved_position_decides_within_the_cap() -> None:
    match, record = saved_position()
    seat = record["seat"]
    bot = make_bot("mono", record["level"], seed=record["bot_seed"])
    started = time.perf_counter()
    move = bot.choose(match.view(seat))
    spent = time.perf_counter() - started
    match.play(seat, move)  # a legal move
    assert spent < 5 * TIME_CAP  # generous, for a loaded machine: it took 74 s


def test_on_a_slow_clock_the_saved_position_stops_at_the_deadline() -> None:
    """A clock that moves a second each read: the bot must stop after a handful of looks, not walk the game."""
    match, record = saved_position()
    seat = record["seat"]
    bot = make_bot("mono", record["level"], seed=record["bot_seed"])
    reads = 0

    def clock() -> float:
        nonlocal reads
        reads += 1
        return float(reads)

    move = bot.choose(match.view(seat), Deadline(TIME_CAP, clock=clock))
    match.play(seat, move)
    assert 1 < reads < 20  # it looked, and stopped looking once the time was up


def test_the_layouts_of_the_saved_position_stop_at_the_deadline() -> None:
    """35 regions are played by shapes now; the layouts that were slow there still stop at a deadline."""
    match, record = saved_position()
    seat = record["seat"]
    bot = make_bot("mono", record["level"], seed=record["bot_seed"])
    reads = 0

    def clock() -> float:
        nonlocal reads
        reads += 1
        return float(reads)

    started = time.perf_counter()
    bot._worlds(match.view(seat), [1 - seat], None, Deadline(TIME_CAP, clock=clock))
    assert 1 < reads < 20
    assert time.perf_counter() - started < 5 * TIME_CAP  # generous: the walk over 200 turns took 100 s
