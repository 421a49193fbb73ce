"""Several servers, one PostgreSQL: hubs in one test process, each with its own store (its own connections).

Each hub is what one ``termgames serve`` process holds; they hear each other only through the database
(LISTEN/NOTIFY), exactly as separate processes do.  The SSH tests across real processes are in
``test_server_workers.py``.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from hubkit import Listener, pg_servers, until

from termgames.match import AI, MoveRecord, Seat
from termgames.rules import RuleError
from termgames.server import news as news_module
from termgames.server.hub import Hub
from termgames.server.stores import postgres as pgstore
from termgames.server.stores.interface import PlyTaken
from termgames.server.stores.postgres import PostgresStore


@pytest.fixture
async def servers(pg_url, tmp_path):
    """Three hubs (three servers) on one database."""
    async with pg_servers(pg_url, tmp_path, 3) as hubs:
        yield hubs


async def test_moves_seats_presence_and_chat_reach_every_server(servers):
    a, b, c = servers
    table = a.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat()], "alice")
    await until(lambda: table.id in b.tables and table.id in c.tables)
    alice = Listener("alice", 0)
    table.subscribe(alice)
    assert b.table(table.id).join("bob") == 1  # bob takes the open seat at another server
    bob = Listener("bob", 1)
    b.table(table.id).subscribe(bob)
    carol = Listener("carol", None)
    c.table(table.id).subscribe(carol)
    await until(lambda: table.names == ("alice", "bob"))
    await until(lambda: table.connected() == {"alice", "bob"} and table.spectators() == ["carol"])
    assert ("seats", "bob takes seat 2") in alice.events
    assert ("presence", "carol is here") in alice.events

    table.play(0, "A1")  # at server a
    await until(lambda: len(b.table(table.id).match.moves) == 1 and len(c.table(table.id).match.moves) == 1)
    assert ("moved", "") in bob.events and ("moved", "") in carol.events
    b.table(table.id).play(1, "E5")  # at server b
    await until(lambda: len(table.match.moves) == 2)
    assert [m.move for m in c.table(table.id).match.moves] == ["A1", "E5"]

    c.table(table.id).say("carol", "nice")
    await until(lambda: ("chat", "carol: nice") in alice.events and ("chat", "carol: nice") in bob.events)

    c.table(table.id).unsubscribe(carol)
    await until(lambda: table.spectators() == [])
    assert ("presence", "carol left") in alice.events

    # A server started later loads it all from the database, chat included.
    late = Hub(PostgresStore(a.store.url), None)
    try:
        again = late.table(table.id)
        assert [m.move for m in again.match.moves] == ["A1", "E5"] and ("carol", "nice") in again.chat
    finally:
        late.close()
        late.store.close()


async def test_two_servers_accepting_the_same_ply_end_with_exactly_one_move(servers):
    a, b, _c = servers
    table = a.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
    await until(lambda: table.id in b.tables)
    at_b = b.table(table.id)
    alice_at_b = Listener("alice", 0)
    at_b.subscribe(alice_at_b)
    # alice's two screens, one at each server, send a move for the same turn before either hears of the other.
    table.play(0, "A1")
    with pytest.raises(RuleError, match="another move was accepted first"):
        at_b.play(0, "B2")
    assert [m.move for m in at_b.match.moves] == ["A1"]  # the loser's board shows the winner's move
    assert ("moved", "") in alice_at_b.events
    # a's own news of the move arrives late at b: nothing is played twice.  News comes in the order it was
    # sent, so a chat line a says after the move reaching b means the move's news has reached b too.
    table.say("alice", "after my move")
    await until(lambda: ("alice", "after my move") in at_b.chat)
    assert [m.move for m in at_b.match.moves] == ["A1"] and [m.move for m in table.match.moves] == ["A1"]
    assert [m.move for m in a.store.moves_from(table.id, 0)] == ["A1"]


def test_the_same_ply_from_two_connections_at_the_same_moment(pg_url):
    """Two stores in two threads insert ply 0 at once: the database decides, exactly one is stored."""
    setup = PostgresStore(pg_url)
    table_id = setup.create_table("copolymer", {"size": 5}, 1, [{"kind": "human", "name": "a"}] * 2, "a")
    setup.close()
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def server(move: str) -> None:
        store = PostgresStore(pg_url)  # made in this thread: it is this "server's" loop thread
        try:
            barrier.wait()
            store.append_move(table_id, 0, MoveRecord(0, move, "t"))
            outcomes.append("stored")
        except PlyTaken:
            outcomes.append("taken")
        finally:
            store.close()

    threads = [threading.Thread(target=server, args=(move,)) for move in ("A1", "B2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["stored", "taken"]
    check = PostgresStore(pg_url)
    assert len(check.moves_from(table_id, 0)) == 1
    check.close()


async def test_one_open_seat_taken_at_two_servers_at_once_seats_one_player(servers):
    a, b, _c = servers
    table = a.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat()], "alice")
    await until(lambda: table.id in b.tables)
    at_b = b.table(table.id)
    assert table.join("bob") == 1  # at server a
    with pytest.raises(RuleError, match="was just taken"):
        at_b.join("carol")  # server b has not heard of bob yet: the database says no
    assert at_b.names == ("alice", "bob") and table.names == ("alice", "bob")


async def test_a_finished_game_is_kept_in_the_database(servers):
    from termgames.records import loads

    a, b, _c = servers
    table = a.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice")
    await until(lambda: table.id in b.tables)
    while not table.over:
        table.play(table.match.state.to_move()[0], "random")
    record = loads(a.store.record(table.id))
    assert record.over and [m.move for m in record.moves] == [m.move for m in table.match.moves]
    await until(lambda: b.table(table.id).over)
    assert b.finished_tables("alice")[0].id == table.id


async def test_undo_asked_at_one_server_is_accepted_at_another(servers):
    a, b, _c = servers
    table = a.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
    await until(lambda: table.id in b.tables)
    at_b = b.table(table.id)
    bob = Listener("bob", 1)
    at_b.subscribe(bob)
    table.play(0, "A1")
    await until(lambda: len(at_b.match.moves) == 1)
    assert table.request_undo(0) == "Asked bob to accept the undo"
    await until(lambda: ("undo-request", "alice asks to take back their last move") in bob.events)
    at_b.answer_undo(1, True)
    assert at_b.match.moves == []
    await until(lambda: table.match.moves == [])
    assert a.store.moves_from(table.id, 0) == []


async def test_one_server_plays_a_tables_computer_seats_and_another_takes_over_when_it_dies(
    pg_url, tmp_path, monkeypatch
):
    monkeypatch.setattr(news_module, "AI_TAKEOVER_SECONDS", 0.2)
    monkeypatch.setattr(pgstore, "AI_ASK_AGAIN", 0.1)
    a = Hub(PostgresStore(pg_url), tmp_path / "a")
    b = Hub(PostgresStore(pg_url), tmp_path / "b")
    a.start()
    b.start()
    try:
        table = a.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat("cpu", AI, "easy")], "alice")
        await until(lambda: table.id in b.tables)
        assert a.store.may_play_ai(table.id) and not b.store.may_play_ai(table.id)
        a.close()
        a.store.close()  # server a is gone: its connection, and the lock of the table's computer seats, with it
        table_at_b = b.table(table.id)
        table_at_b.play(0, "A1")
        await until(lambda: len(table_at_b.match.moves) == 2)  # b's runner took the computer seat over
        assert table_at_b.match.moves[1].seat == 1
    finally:
        for hub in (a, b):
            hub.close()
            hub.store.close()


def test_the_schema_is_versioned_and_a_newer_one_is_refused(pg_url):
    from termgames.server.stores.interface import StoreError

    store = PostgresStore(pg_url)
    store.close()
    again = PostgresStore(pg_url)  # already at the version: nothing to do
    again._run(lambda c: c.execute("INSERT INTO schema_version (version) VALUES (99)"))
    again.close()
    with pytest.raises(StoreError, match="version 99, newer than this termgames knows"):
        PostgresStore(pg_url)


def test_a_migration_numbered_below_the_newest_applied_is_still_applied(pg_url, monkeypatch):
    """Two branches took versions N+1 and N+2: a database migrated with N+2 alone gets N+1 once both are merged."""
    from termgames.server.stores import postgres_schema

    base = list(postgres_schema.MIGRATIONS)
    top = base[-1][0]
    later = (top + 2, "CREATE TABLE later_one (x INTEGER)")
    monkeypatch.setattr(postgres_schema, "MIGRATIONS", [*base, later])
    monkeypatch.setattr(postgres_schema, "SCHEMA_VERSION", top + 2)
    PostgresStore(pg_url).close()  # the gap (top + 1) is skipped
    earlier = (top + 1, "CREATE TABLE earlier_one (x INTEGER)")
    monkeypatch.setattr(postgres_schema, "MIGRATIONS", [*base, earlier, later])
    store = PostgresStore(pg_url)
    try:
        versions = store._run(lambda c: c.fetch("SELECT version FROM schema_version ORDER BY version"))
        assert [row[0] for row in versions][-2:] == [top + 1, top + 2]
        assert store._run(lambda c: c.fetchval("SELECT count(*) FROM earlier_one")) == 0
    finally:
        store.close()


async def test_a_rated_game_finished_at_one_server_shows_its_ratings_at_the_others(servers):
    a, b, _c = servers
    for name in ("alice", "bob"):
        assert a.store.claim(name, f"SHA256:{name}")
    table = a.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice")
    assert table.rated
    await until(lambda: table.id in b.tables)
    assert b.rating("alice", "mono") is None  # read (and kept) before the game ends
    watcher = Listener("carol", None)
    b.table(table.id).subscribe(watcher)
    while not table.over:
        table.play(table.match.state.to_move()[0], "random")
    await until(lambda: b.table(table.id).rating_changes == table.rating_changes != [])
    alice = b.rating("alice", "mono")
    assert alice is not None and alice.games == 1
    assert any(kind == "notice" and text.startswith("Rated: ") for kind, text in watcher.events)


# -- losing the database under running servers --------------------------------------------------------------


async def test_a_database_restart_under_two_servers_and_a_move_from_the_other_reaches_each(
    pg_cluster, pg_url, tmp_path, monkeypatch
):
    monkeypatch.setattr(pgstore, "PING_SECONDS", 0.5)
    a = Hub(PostgresStore(pg_url), tmp_path / "a")
    b = Hub(PostgresStore(pg_url), tmp_path / "b")
    a.start()
    b.start()
    try:
        table = a.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
        await until(lambda: table.id in b.tables)
        at_b = b.table(table.id)
        alice, bob = Listener("alice", 0), Listener("bob", 1)
        table.subscribe(alice)
        at_b.subscribe(bob)
        table.play(0, "A1")
        await until(lambda: len(at_b.match.moves) == 1)
        server_before = a.store.server

        await asyncio.to_thread(pg_cluster.pause)
        await until(lambda: not a.store.online and not b.store.online)
        # A move while the database is away: one clear line, nothing changes, nothing accepted is lost.
        with pytest.raises(RuleError, match="database cannot be reached: your move was not made"):
            at_b.play(1, "E5")
        assert [m.move for m in at_b.match.moves] == ["A1"]
        lost = ("notice", news_module.DATABASE_LOST)
        assert lost in alice.events and lost in bob.events

        await asyncio.to_thread(pg_cluster.start_again)
        await until(lambda: a.store.online and b.store.online, timeout=20)
        assert a.store.server != server_before  # a new listening connection
        assert ("notice", news_module.DATABASE_BACK) in alice.events
        at_b.play(1, "E5")  # at the other server: heard at a through its new listening connection
        await until(lambda: len(table.match.moves) == 2)
        table.play(0, "B1")
        await until(lambda: [m.move for m in at_b.match.moves] == ["A1", "E5", "B1"])
        await until(lambda: table.connected() == {"alice", "bob"})  # presence taken back under the new connections
        assert [m.move for m in a.store.moves_from(table.id, 0)] == ["A1", "E5", "B1"]

        # A restart in one step too (pg_ctl restart): the servers come back and hear each other.
        await asyncio.to_thread(pg_cluster.restart)
        deadline = time.monotonic() + 20
        while True:
            try:
                at_b.play(1, "D5")
                break
            except RuleError:  # until b has seen the database go and come back
                assert time.monotonic() < deadline, "server b never reached the database again"
                await asyncio.sleep(0.1)
        await until(lambda: len(table.match.moves) == 4, timeout=20)
    finally:
        for hub in (a, b):
            hub.close()
            hub.store.close()


async def test_a_server_cut_off_reads_again_what_changed_meanwhile(servers, monkeypatch):
    """Server a cannot reach the database while b goes on: a's news is lost; once back a reads the tables again."""
    a, b, _c = servers
    table = a.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
    await until(lambda: table.id in b.tables)
    at_b = b.table(table.id)
    table.play(0, "A1")
    await until(lambda: len(at_b.match.moves) == 1)
    watcher = Listener("carol", None)
    table.subscribe(watcher)

    url = a.store.url
    a.store.url = "postgresql://nobody@/nothing?host=/nonexistent"  # a's network to the database is down
    b.store._run(lambda c: c.execute("SELECT pg_terminate_backend($1)", a.store.server))
    await until(lambda: not a.store.online)
    at_b.play(1, "E5")  # news a never hears
    at_b.say("bob", "still there?")
    table.say("alice", "hello?")  # a cannot store it: it waits at a for the database
    made_meanwhile = b.create_table("copolymer", {"size": 5}, [Seat(name="bob"), Seat(name="carol")], "bob")
    await asyncio.sleep(0.3)
    assert len(table.match.moves) == 1 and made_meanwhile.id not in a.tables

    a.store.url = url  # back
    await until(lambda: a.store.online)
    await until(lambda: [m.move for m in table.match.moves] == ["A1", "E5"])
    assert made_meanwhile.id in a.tables
    assert ("moved", "") in watcher.events
    # The chat too, both ways: bob's line read again at a, alice's stored late and heard at b.
    await until(lambda: list(table.chat)[-2:] == [("bob", "still there?"), ("alice", "hello?")])
    await until(lambda: list(at_b.chat)[-2:] == [("bob", "still there?"), ("alice", "hello?")])
    assert [line for line in a.store.load_table(table.id).chat if line[0] == "alice"] == [("alice", "hello?")]
    assert ("chat", "") in watcher.events
    await until(lambda: "carol" in at_b.spectators())  # a's presence rows name its new connection


async def test_a_computer_thinking_at_one_server_shows_at_the_others(servers, monkeypatch):
    a, b, _c = servers
    release = threading.Event()

    def slow_choose(bot, view, deadline):
        release.wait(10)
        return original(bot, view, deadline)

    from termgames import turns

    original = turns.choose_within
    monkeypatch.setattr(turns, "choose_within", slow_choose)
    table = a.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat("cpu", AI, "easy")], "alice")
    await until(lambda: table.id in b.tables)
    at_b = b.table(table.id)
    watcher = Listener("carol", None)
    at_b.subscribe(watcher)
    table.play(0, "A1")
    await until(lambda: table.runner.thinking == {1})
    await until(lambda: at_b.thinking == {1})  # b does not play the seat: it heard that a thinks
    assert at_b.runner.thinking == frozenset() and ("thinking", "") in watcher.events
    release.set()
    await until(lambda: len(at_b.match.moves) == 2)
    await until(lambda: at_b.thinking == frozenset())


async def test_any_server_gives_a_finished_games_record(servers):
    from termgames.records import loads
    from termgames.server.commands import run_command

    a, b, _c = servers
    table = a.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice")
    await until(lambda: table.id in b.tables)
    early = run_command(b, "bob", f"record {table.id}")
    assert early.status == 2 and "not finished" in early.stderr
    while not table.over:
        table.play(table.match.state.to_move()[0], "random")
    await until(lambda: b.table(table.id).over)
    assert a.record_path(table).exists() and not b.record_path(b.table(table.id)).exists()
    given = run_command(b, "bob", f"record {table.id}")  # b did not finish it: the database's copy
    assert given.status == 0, given.stderr
    record = loads(given.stdout)
    assert record.over and [m.move for m in record.moves] == [m.move for m in table.match.moves]
