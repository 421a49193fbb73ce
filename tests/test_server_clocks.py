"""The server keeps the time: flags at two, three and four seats, Monad's passes, exactly one flag among
servers, no time charged while no server ran, what show and tables say.  Every hub here counts with a
made-up clock (``now``): no test waits for real time to pass.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from pathlib import Path

import pytest
from hubkit import Listener

from termgames.clock import ClockSpec
from termgames.match import AI, Seat, prepare_move
from termgames.rules import RuleError
from termgames.server.clocks import read_clock
from termgames.server.commands import run_command
from termgames.server.hub import Hub

T0 = 1_800_000_000.0


class FakeTime:
    """The hub's time: moved on by hand."""

    def __init__(self, at: float = T0) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at


def make_hub(store, folder: Path, clock: FakeTime, *accounts: str) -> Hub:
    hub = Hub(store, folder / "records", now=clock)
    for name in accounts:
        assert hub.store.claim(name, f"SHA256:{name}")
    return hub


async def until(condition, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("it never happened")


def one_minute() -> ClockSpec:
    return ClockSpec.parse("1m+0s")


# -- two seats -----------------------------------------------------------------------------------


async def test_two_seats_the_timer_flags_at_once_the_other_wins_on_time_and_it_is_rated(tmp_path, new_store):
    now = FakeTime()
    hub = make_hub(new_store(), tmp_path, now, "alice", "bob")
    table = hub.create_table("copolymer", {"size": 5}, [Seat("alice"), Seat("bob")], "alice", clock=one_minute())
    assert table.rated
    alice = Listener("alice", 0)
    table.subscribe(alice)
    hub.start()
    try:
        now.at = T0 + 20
        table.play(0, "A1")
        now.at = T0 + 20 + 60  # bob's minute is up: the one timer flags him, whoever is connected
        hub.timekeeper.schedule(table)
        await until(lambda: table.over)
        assert table.match.ended_by == "time" and table.match.winners() == (0,)
        assert ("notice", "bob ran out of time: alice wins on time") in alice.events
        assert table.final_status() == "bob ran out of time: alice wins on time"
        changes = {change.player: change.after.mu - change.before.mu for change in table.rating_changes}
        assert changes["alice"] > 0 > changes["bob"]
        with pytest.raises(RuleError):
            table.play(1, "B2")
        shown = json.loads(run_command(hub, "bob", f"show {table.id} --json").stdout)
        assert shown["ended_by"] == "time" and shown["clock"] == {"alice": 40.0, "bob": 0.0}
        # A restarted server finds it finished, flagged once, rated once.
        again = make_hub(new_store(), tmp_path, now)
        kept = again.table(table.id)
        assert kept.over and kept.match.ended_by == "time" and len(kept.match.flags) == 1
        record = json.loads(again.record_json(kept))
        assert record["flags"][0]["seat"] == "bob" and record["result"]["ended_by"] == "time"
    finally:
        hub.close()


def test_a_move_that_comes_after_the_time_ran_out_is_refused_and_flags(tmp_path, new_store):
    now = FakeTime()
    hub = make_hub(new_store(), tmp_path, now)
    table = hub.create_table("copolymer", {"size": 5}, [Seat("alice"), Seat("bob")], "alice", clock=one_minute())
    now.at = T0 + 61  # no timer ran (no loop): the move itself finds the time up
    with pytest.raises(RuleError, match="alice ran out of time"):
        table.play(0, "A1")
    assert table.over and not table.match.moves and table.match.winners() == (1,)


def test_show_json_is_null_per_seat_when_untimed_and_tables_lists_time_left_least_first(tmp_path, new_store):
    now = FakeTime()
    hub = make_hub(new_store(), tmp_path, now)
    seats = [Seat("alice"), Seat("bob")]
    plain = hub.create_table("copolymer", {"size": 5}, seats, "alice")
    slow = hub.create_table("copolymer", {"size": 5}, seats, "alice", clock=ClockSpec.parse("3d/move"))
    fast = hub.create_table("copolymer", {"size": 5}, seats, "alice", clock=ClockSpec.parse("10m+5s"))
    theirs = hub.create_table("copolymer", {"size": 5}, seats, "alice", clock=one_minute())
    theirs.play(0, "A1")
    now.at = T0 + 100
    shown = json.loads(run_command(hub, "alice", f"show {plain.id} --json").stdout)
    assert shown["clock"] == {"alice": None, "bob": None} and shown["ended_by"] is None
    lines = run_command(hub, "alice", "tables").stdout.splitlines()
    assert [int(line[1:5]) for line in lines] == [fast.id, slow.id, plain.id, theirs.id]
    assert "8:20 left" in lines[0] and "2d 23h left" in lines[1] and "left" not in lines[2] + lines[3]
    text = run_command(hub, "alice", f"show {fast.id}").stdout
    assert "Clock 10m+5s: alice " in text and " (running), bob 10:00" in text


def test_challenge_takes_a_clock_and_refuses_an_absurd_one_in_one_line(tmp_path, new_store):
    hub = make_hub(new_store(), tmp_path, FakeTime())
    made = run_command(hub, "alice", "challenge copolymer --size 5 --clock 30s+2s bob")
    assert made.status == 0 and "clock 30s+2s" in made.stdout
    for spec, why in (("0s", "more than 0 s"), ("61d", "60 days"), ("１m", "digits 0-9")):
        refused = run_command(hub, "alice", f"challenge copolymer --clock {spec} bob")
        assert refused.status == 2 and why in refused.stderr and "--clock" in refused.stderr
        assert refused.stderr.count("\n") == 1
    assert hub.store.claim("carol", "SHA256:carol")
    with pytest.raises(RuleError, match="computers only is untimed"):
        hub.create_table("copolymer", {}, [Seat("c1", AI, "easy"), Seat("c2", AI, "easy")], "carol", clock=one_minute())


def test_the_clocks_start_once_the_last_seat_is_taken(tmp_path, new_store):
    now = FakeTime()
    hub = make_hub(new_store(), tmp_path, now)
    table = hub.create_table("copolymer", {"size": 5}, [Seat("alice"), Seat()], "alice", clock=one_minute())
    now.at = T0 + 3600  # nobody came for an hour: nobody's clock ran
    table.check_clocks(now.at)
    assert not table.over
    table.join("bob")
    now.at += 10
    reading = table.read_clocks()
    assert reading is not None and reading[0].left_at(0, reading[1]) == 50


# -- three or four seats ----------------------------------------------------------------------------


def test_three_seats_the_computer_plays_the_seat_out_of_time_and_it_ranks_last(tmp_path, new_store):
    now = FakeTime()
    hub = make_hub(new_store(), tmp_path, now, "alice", "bob", "carol")
    table = hub.create_table(
        "mono", {"size": 3}, [Seat("alice"), Seat("bob"), Seat("carol")], "alice", clock=one_minute()
    )
    watcher = Listener("dave", None)
    table.subscribe(watcher)
    slow = table.to_move()[0]
    now.at = T0 + 60
    table.check_clocks(now.at)
    name = table.names[slow]
    assert not table.over and table.match.computer_plays(slow)
    assert ("notice", f"{name} ran out of time: the computer (normal) plays for {name} from now on") in watcher.events
    with pytest.raises(RuleError, match="ran out of time"):
        table.play(slow, "random")  # the player came back: the seat is the computer's now
    assert table.presence()[slow] == (name, "ai")  # every screen's line of who is here says so
    while not table.over:  # (no loop runs here: the moves the runner would make for the seat, made by hand)
        mover = table.to_move()[0]
        now.at += 1
        if mover == slow:
            table.play_prepared(prepare_move(table.match.state, mover, "random"))
        else:
            table.play(mover, "random")
    ranks = {change.player: change.rank for change in table.rating_changes}
    assert ranks[name] == max(ranks.values()) and list(ranks.values()).count(ranks[name]) == 1
    assert "ran out of time" in table.final_status()


async def test_monad_a_seat_out_of_time_passes_and_the_turns_stop_waiting_for_it(tmp_path, new_store):
    now = FakeTime()
    hub = make_hub(new_store(), tmp_path, now)
    table = hub.create_table(
        "monad", {"width": 8, "height": 8, "turns": 5}, [Seat("alice"), Seat("bob"), Seat("carol")], "alice",
        clock=one_minute(),
    )
    hub.start()
    try:
        table.play(0, "pass")
        table.play(1, "pass")
        now.at = T0 + 61
        hub.timekeeper.schedule(table)
        await until(lambda: len(table.match.moves) >= 3)  # carol, out of time, passed at once
        assert table.match.moves[2].seat == 2 and table.match.moves[2].move == "pass"
        assert table.match.state.turn == 1 and not table.over
        table.play(0, "pass")
        table.play(1, "pass")  # the second turn: nobody waits for carol
        await until(lambda: table.match.state.turn == 2)
    finally:
        hub.close()


# -- several servers, restarts --------------------------------------------------------------------------


def test_of_two_servers_exactly_one_flags_and_a_late_move_at_the_other_is_refused(tmp_path, pg_url):
    from termgames.server.stores.postgres import PostgresStore

    now, behind = FakeTime(), FakeTime()  # b's machine's clock is a little behind a's
    a = make_hub(PostgresStore(pg_url), tmp_path / "a", now, "alice", "bob")
    b = make_hub(PostgresStore(pg_url), tmp_path / "b", behind)
    try:
        table = a.create_table("copolymer", {"size": 5}, [Seat("alice"), Seat("bob")], "alice", clock=one_minute())
        at_b = b.table(table.id)
        now.at, behind.at = T0 + 61, T0 + 59.5
        a.tables[table.id].check_clocks(now.at)  # a flags first: stored
        # b has not heard of it (no loop runs its news here) and its clock says alice has time left: her move
        # there is refused by the store all the same.
        with pytest.raises(RuleError, match="alice ran out of time"):
            at_b.play_prepared(prepare_move(at_b.match.state, 0, "A1"))
        assert at_b.over and at_b.match.ended_by == "time" and len(at_b.match.flags) == 1
        behind.at = T0 + 61
        at_b.check_clocks(behind.at)  # its own timer comes too: nothing more is stored
        stored = a.store.table_clock(table.id)
        assert len(read_clock(stored, 2)[1]) == 1 and a.store.moves_from(table.id, 0) == []
        assert len(a.store.rating_changes(table.id)) == 2  # rated once
    finally:
        for hub in (a, b):
            hub.close()
            hub.store.close()


async def test_the_other_servers_hear_each_move_s_clock_and_the_flag(tmp_path, pg_url):
    from termgames.server.stores.postgres import PostgresStore

    now = FakeTime()
    a = make_hub(PostgresStore(pg_url), tmp_path / "a", now)
    b = make_hub(PostgresStore(pg_url), tmp_path / "b", now)
    for hub in (a, b):
        hub.start()
    try:
        table = a.create_table("copolymer", {"size": 5}, [Seat("alice"), Seat("bob")], "alice", clock=one_minute())
        await until(lambda: table.id in b.tables)
        at_b = b.tables[table.id]
        bob = Listener("bob", 1)
        at_b.subscribe(bob)
        now.at = T0 + 12
        table.play(0, "A1")
        await until(lambda: len(at_b.match.moves) == 1)
        assert at_b.clock.text == table.clock.text and at_b.match.moves[0].clock == 48
        now.at = T0 + 12 + 60
        table.check_clocks(now.at)  # a flags bob (b's own timer would too: a is first here)
        await until(lambda: at_b.over)
        assert at_b.match.ended_by == "time" and ("notice", "bob ran out of time: alice wins on time") in bob.events
        assert at_b.clock.text == table.clock.text
    finally:
        for hub in (a, b):
            hub.close()
            hub.store.close()


def test_two_connections_flagging_at_the_same_moment_store_one_flag(pg_url):
    """Two stores in two threads flag one seat at once: the database decides, exactly one is stored."""
    from termgames.server.stores.postgres import PostgresStore

    setup = PostgresStore(pg_url)
    table_id = setup.create_table("copolymer", {"size": 5}, 1, [{"kind": "human", "name": "a"}] * 2, "a", clock="c0")
    setup.close()
    results: list[bool] = []
    barrier = threading.Barrier(4)

    def flag() -> None:
        store = PostgresStore(pg_url)
        try:
            barrier.wait()
            results.append(store.flag(table_id, 0, "c0", f"c1-{threading.get_ident()}"))
        finally:
            store.close()

    threads = [threading.Thread(target=flag) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False, False, False, True]


@pytest.mark.parametrize("down", [3600.0, 5.0])
def test_time_while_no_server_ran_is_not_charged(tmp_path, new_store, down):
    now = FakeTime()
    hub = make_hub(new_store(), tmp_path, now)
    table = hub.create_table("copolymer", {"size": 5}, [Seat("alice"), Seat("bob")], "alice", clock=one_minute())
    now.at = T0 + 20
    hub.timekeeper.beat()
    now.at = T0 + 22
    hub.close()  # its last heartbeat: the server stops here
    hub.store.close()
    now.at = T0 + 22 + down
    again = make_hub(new_store(), tmp_path, now)
    reading = again.table(table.id).read_clocks()
    assert reading is not None
    clocks, at = reading
    if down > 10:  # no server ran for an hour: alice is charged her 22 s only
        assert clocks.left_at(0, at) == pytest.approx(38)
        assert not again.table(table.id).over
    else:  # a restart within seconds is charged (to within 10 s)
        assert clocks.left_at(0, at) == pytest.approx(38 - down)


def test_another_server_running_meanwhile_means_no_credit(tmp_path, pg_url):
    from termgames.server.stores.postgres import PostgresStore

    now = FakeTime()
    a = make_hub(PostgresStore(pg_url), tmp_path / "a", now)
    table = a.create_table("copolymer", {"size": 5}, [Seat("alice"), Seat("bob")], "alice", clock=one_minute())
    now.at = T0 + 30
    a.timekeeper.beat()  # a still runs
    b = make_hub(PostgresStore(pg_url), tmp_path / "b", now)
    try:
        clocks, at = b.table(table.id).read_clocks() or (None, 0.0)
        assert clocks is not None and clocks.left_at(0, at) == 30
    finally:
        for hub in (a, b):
            hub.close()
            hub.store.close()


# -- notices -----------------------------------------------------------------------------------------


def test_a_clock_falling_below_a_fifth_of_its_time_is_news_for_its_player_once(tmp_path, new_store):
    now = FakeTime()
    hub = make_hub(new_store(), tmp_path, now)
    heard: list = []
    hub.notices.attach("bob", heard.append)
    table = hub.create_table("copolymer", {"size": 5}, [Seat("alice"), Seat("bob")], "alice",
                             clock=ClockSpec.parse("10m+0s"))
    now.at = T0 + 10
    table.play(0, "A1")
    assert [notice.kind for notice in heard] == ["challenge", "move"]
    now.at = T0 + 10 + 481  # 119 s left of bob's 10 minutes: under a fifth; the timekeeper's entry comes up
    hub.timekeeper._fire()
    hub.timekeeper._fire()
    assert [notice.kind for notice in heard] == ["challenge", "move", "clock"]
    assert "Under a fifth of your time" in heard[-1].text
    from termgames.server.notices import time_left

    assert time_left(table, 1) == 119


# -- a database made before clocks ---------------------------------------------------------------------


def test_an_sqlite_database_made_before_clocks_gains_its_columns(tmp_path):
    from termgames.server.stores.sqlite import Store

    path = tmp_path / "termgames.db"
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE tables (id INTEGER PRIMARY KEY AUTOINCREMENT, game TEXT NOT NULL, options TEXT NOT NULL,"
        " seed TEXT NOT NULL, seats TEXT NOT NULL, creator TEXT NOT NULL, created TEXT NOT NULL,"
        " finished INTEGER NOT NULL DEFAULT 0, rated INTEGER NOT NULL DEFAULT 0, owner TEXT NOT NULL DEFAULT '',"
        " closed TEXT NOT NULL DEFAULT '', outcome TEXT NOT NULL DEFAULT '');"
        "CREATE TABLE moves (table_id INTEGER NOT NULL, ply INTEGER NOT NULL, seat INTEGER NOT NULL,"
        " move TEXT NOT NULL, time TEXT NOT NULL, PRIMARY KEY (table_id, ply));"
        "INSERT INTO tables (game, options, seed, seats, creator, created) VALUES ('copolymer', '{\"size\": 5}',"
        " '1', '[{\"kind\": \"human\", \"name\": \"a\"}, {\"kind\": \"human\", \"name\": \"b\"}]', 'a', 'x');"
        "INSERT INTO moves VALUES (1, 0, 0, 'A1', 'x');"
    )
    old.commit()
    old.close()
    hub = Hub(Store(path), tmp_path / "records")
    table = hub.table(1)
    assert table.match.clock is None and [m.move for m in table.match.moves] == ["A1"]
    table.play(1, "B2")
    hub.close()
    hub.store.close()
