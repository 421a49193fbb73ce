"""The server reads time from one time source: a test moves it and every part of the server follows, no sleeping.

Tables idle out, the chat limit refills, stored times are written and clocks run out by the hub's time source
alone (a ``ManualTime`` here, years away from the machine's clock, so that any part still reading the machine's
clock would show).
"""

from __future__ import annotations

import pytest

from termgames.clock import parse_clock
from termgames.match import Seat
from termgames.rules import RuleError
from termgames.server.hub import Hub
from termgames.timesource import ManualTime, utc_now

DAY = 24 * 3600.0


def make_hub(new_store, tmp_path, time: ManualTime, *accounts: str) -> Hub:
    hub = Hub(new_store(), tmp_path / "records", time_source=time)
    for name in accounts:
        assert hub.store.claim(name, f"SHA256:{name}")
    return hub


def test_stored_times_are_the_hubs(tmp_path, new_store):
    time = ManualTime(start=2_000_000_000.0)  # 2033: no machine's clock reads that today
    hub = make_hub(new_store, tmp_path, time, "alice", "bob")
    try:
        table = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
        created = next(t for t in hub.store.open_activity() if t.id == table.id)
        assert created.last == utc_now(time).replace(microsecond=0).isoformat()
    finally:
        hub.close()


def test_a_table_idles_out_when_the_time_source_says_so(tmp_path, new_store):
    time = ManualTime()
    hub = make_hub(new_store, tmp_path, time, "alice", "bob")
    try:
        table = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
        table.play(0, "A1")
        time.advance(29 * DAY)
        assert hub.close_idle() == []
        time.advance(2 * DAY)
        assert hub.close_idle() == [table.id]
        with pytest.raises(RuleError, match="was closed"):
            hub.table(table.id).play(1, "E5")
    finally:
        hub.close()


def test_the_chat_limit_refills_with_the_hubs_time(tmp_path, new_store):
    time = ManualTime()
    hub = make_hub(new_store, tmp_path, time, "alice", "bob")
    try:
        table = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
        for _ in range(5):  # a burst
            table.say("alice", "hello", "key:SHA256:alice")
        with pytest.raises(RuleError, match="too many chat lines"):
            table.say("alice", "hello", "key:SHA256:alice")
        time.advance(3.0)  # 20 a minute: one line every 3 s
        table.say("alice", "again", "key:SHA256:alice")
    finally:
        hub.close()


def test_a_clock_runs_out_by_the_hubs_time(tmp_path, new_store):
    time = ManualTime()
    hub = make_hub(new_store, tmp_path, time, "alice", "bob")
    try:
        table = hub.create_table(
            "copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice", clock=parse_clock("1m")
        )
        table.play(0, "A1")
        time.advance(30.0)
        clocks, now = table.read_clocks()
        assert clocks.left_at(1, now) == pytest.approx(30.0)
        time.advance(31.0)
        table.check_clocks(hub.now())  # what the server's one timer does when the deadline comes
        assert table.over and [flag.seat for flag in table.match.flags] == [1]
    finally:
        hub.close()
