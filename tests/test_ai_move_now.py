"""Time is part of strength, at the table: a thinking AI says how long it may take, and a key makes it move now."""

from __future__ import annotations

import threading

from test_turns import bids_table, until

from termgames.ai import Deadline
from termgames.match import AI, Seat
from termgames.rules import View


class SlowBot:
    """Thinks until its deadline is up (a minute here, unless hurried), then plays its best so far."""

    level = "normal"

    def __init__(self) -> None:
        self.deadlines: list[Deadline | None] = []
        self.asked = threading.Event()

    def choose(self, view: View, deadline: Deadline | None = None) -> str:
        self.deadlines.append(deadline)
        self.asked.set()
        assert deadline is not None
        while not deadline.expired():
            threading.Event().wait(0.01)
        return "2"


async def test_a_thinking_ai_shows_its_time_left_and_moves_now_when_hurried():
    table = bids_table(Seat("ann"), Seat("cpu", AI, "normal"))
    bot = SlowBot()
    table.runner._bots[(1, "normal")] = bot
    table.start()
    assert await until(bot.asked.is_set)
    left = table.time_left(1)
    assert left is not None and 0 < left <= 2.0  # the 2 s cap, whatever the bot would like
    assert table.time_left(0) is None  # a human seat is not thinking
    table.hurry()
    assert await until(lambda: table.match.moves, seconds=1.5)
    assert [(m.seat, m.move) for m in table.match.moves] == [(1, "2")]
    assert bot.deadlines[0] is not None and bot.deadlines[0].stopped
