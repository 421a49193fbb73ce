"""Hostile players against ``termgames serve``, second round (issue 23, part B): a rating farmed with one key,
a server filled with tables nobody plays, a table's chat flooded.

Each test reproduces one attack of the issue: it failed before the fix and holds after it.  Those that take
``new_store`` run against SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import asyncssh
import pytest
from hubkit import Listener, until

from termgames.match import AI, Match, Seat
from termgames.records import loads
from termgames.rules import RuleError
from termgames.server.commands import run_command
from termgames.server.hub import Hub
from termgames.server.ssh import start_server

MALLORY_KEY = "SHA256:mallory"


def make_hub(new_store, folder, *accounts: str, **limits) -> Hub:
    """A hub on the test's store; each name in ``accounts`` claimed by its own key (``name:KEY`` names it)."""
    hub = Hub(new_store(), folder / "records", **limits)
    for account in accounts:
        name, _, key = account.partition(":")
        assert hub.store.claim(name, key or f"SHA256:{name}")
    return hub


def play_out(table) -> None:
    while not table.over:
        table.play(table.match.state.to_move()[0], "random")


def sql(store, statement: str, *args) -> None:
    """One statement on either store (``?`` placeholders; PostgreSQL's are numbered here)."""
    if hasattr(store, "db"):
        store.db.execute(statement, args)
        return
    numbered = statement
    for number in range(1, len(args) + 1):
        numbered = numbered.replace("?", f"${number}", 1)
    store._run(lambda c: c.execute(numbered, *args))


def backdate(store, table_id: int, days: float) -> None:
    """Make a table look as if it was made, and its last move played, ``days`` ago."""
    when = (datetime.now(UTC) - timedelta(days=days)).replace(microsecond=0).isoformat()
    sql(store, "UPDATE tables SET created = ? WHERE id = ?", when, table_id)
    sql(store, "UPDATE moves SET time = ? WHERE table_id = ?", when, table_id)


# --------------------------------------------------------------------------
# 3. A rating farmed with one key
# --------------------------------------------------------------------------


def test_two_names_of_one_key_never_face_each_other_at_a_rated_table(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, f"mallory:{MALLORY_KEY}", f"mallory-alt:{MALLORY_KEY}", "bob")
    refusal = "a rated table: mallory-alt and mallory sign in with one SSH key, so one person plays both"
    with pytest.raises(RuleError, match=refusal):
        hub.create_table("mono", {"size": 2}, [Seat(name="mallory"), Seat(name="mallory-alt")], "mallory")
    # challenge: one line on stderr, status 2
    refused = run_command(hub, "mallory", "challenge mono --size 2 mallory-alt")
    assert refused.status == 2 and refused.stderr == f"termgames: {refusal}\n"
    # taking the open seat of one's own rated table under the other name
    table = hub.create_table("mono", {"size": 2}, [Seat(name="mallory"), Seat()], "mallory")
    with pytest.raises(RuleError, match=f"table {table.id} is rated: mallory-alt and mallory sign in with one"):
        table.join("mallory-alt")
    assert table.join("bob") == 1  # another person is welcome
    # Casual, they may play each other: nothing is rated.
    casual = run_command(hub, "mallory", "challenge mono --casual --size 2 mallory-alt")
    assert casual.status == 0 and "; casual; " in casual.stdout


def test_a_name_claimed_by_the_same_key_after_it_was_seated_leaves_the_game_unrated(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, f"mallory:{MALLORY_KEY}")
    # mallory-alt has no account yet: the seat is reserved, then the same key claims the name.
    table = hub.create_table("mono", {"size": 2}, [Seat(name="mallory"), Seat(name="mallory-alt")], "mallory")
    assert table.rated
    assert hub.store.claim("mallory-alt", MALLORY_KEY)
    watcher = Listener("carol", None)
    table.subscribe(watcher)
    play_out(table)
    assert hub.store.ratings() == [] and table.rating_changes == []
    assert ("notice", "Not rated: two seats' names sign in with one SSH key: one person played both") in (
        watcher.events
    )


async def test_the_lobby_form_refuses_a_rated_table_of_one_key_in_one_line(tmp_path, new_store):
    from textual.widgets import Input

    from termgames.server.ui.app import ServeApp
    from termgames.server.ui.lobby import CreateTableScreen

    hub = make_hub(new_store, tmp_path, f"mallory:{MALLORY_KEY}", f"mallory-alt:{MALLORY_KEY}")
    app = ServeApp(hub=hub, player="mallory")
    async with app.run_test(size=(110, 32)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("enter")  # Copolymer
        await pilot.pause()
        assert isinstance(app.screen, CreateTableScreen)
        app.screen.query_one("#seat-name-1", Input).value = "mallory-alt"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, CreateTableScreen) and not hub.tables
        error = str(app.screen.query_one("#setup-error").render())
        assert error == "! a rated table: mallory-alt and mallory sign in with one SSH key, so one person plays both"


# --------------------------------------------------------------------------
# 4. Filling the server
# --------------------------------------------------------------------------


async def guest_command(port: int, line: str) -> asyncssh.SSHCompletedProcess:
    """``line`` run by a new guest (keyboard-interactive, no key): a new visit, a new guest name."""
    async with asyncssh.connect(
        "127.0.0.1", port, username="mallory", known_hosts=None, client_keys=None,
        preferred_auth="keyboard-interactive", password="",
    ) as conn:
        return await conn.run(line, check=False)


async def test_guests_of_one_address_share_one_table_limit(tmp_path):
    key = asyncssh.generate_private_key("ssh-ed25519")
    server = await start_server(tmp_path, "127.0.0.1", 0, max_tables_per_player=2, max_tables=10)
    try:
        for _ in range(2):  # two visits, two guest names: one address
            made = await guest_command(server.port, "challenge copolymer --size 5 bob")
            assert made.exit_status == 0, made.stderr
        third = await guest_command(server.port, "challenge copolymer --size 5 bob")
        assert third.exit_status == 2
        assert third.stderr == (
            "termgames: the guests of your address have 2 open tables, the limit per player: "
            "finish or resign one before opening another\n"
        )
        # ... and the server is not full for anyone else.
        async with asyncssh.connect(
            "127.0.0.1", server.port, username="alice", client_keys=[key], known_hosts=None
        ) as conn:
            assert (await conn.run("challenge copolymer --size 5 bob", check=False)).exit_status == 0
    finally:
        await server.close()


def test_the_guests_of_an_ipv6_network_count_together():
    from termgames.server.people import guest_owner

    assert guest_owner("2001:db8:1:2::5") == guest_owner("2001:db8:1:2:ffff::9") == "guest:2001:db8:1:2::/64"
    assert guest_owner("2001:db8:1:3::5") != guest_owner("2001:db8:1:2::5")
    assert guest_owner("::ffff:192.0.2.7") == guest_owner("192.0.2.7") == "guest:192.0.2.7"


def test_one_key_counts_once_whatever_names_it_signs_in_as(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, f"mallory:{MALLORY_KEY}", f"mallory-alt:{MALLORY_KEY}",
                   max_tables_per_player=2)
    hub.create_table("copolymer", {"size": 5}, [Seat(name="mallory"), Seat(name="bob")], "mallory")
    hub.create_table("copolymer", {"size": 5}, [Seat(name="mallory-alt"), Seat(name="bob")], "mallory-alt")
    with pytest.raises(RuleError, match="you have 2 open tables, the limit per player"):
        hub.create_table("copolymer", {"size": 5}, [Seat(name="mallory-alt"), Seat(name="bob")], "mallory-alt")


def computers(count: int = 4, level: str = "easy") -> list[Seat]:
    return [Seat(f"cpu{n}", AI, level) for n in range(1, count + 1)]


def test_a_table_of_computers_only_needs_a_registered_player_and_has_a_small_limit(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, "alice")  # two such tables a person
    guest = "guest-mallory-0123456789abcdef"
    with pytest.raises(RuleError, match=r"^only a registered player makes a table of computers only \(sign in"):
        hub.create_table("monad", {}, computers(level="greedy"), guest)
    with pytest.raises(RuleError, match="only a registered player"):
        hub.create_table("monad", {}, computers(level="greedy"), "nobody")  # a name no key has claimed
    for _ in range(2):
        hub.create_table("copolymer", {"size": 5}, computers(2), "alice")
    with pytest.raises(RuleError, match="you have 2 open tables of computers only, the limit per player"):
        hub.create_table("copolymer", {"size": 5}, computers(2), "alice")
    # Tables with a person at them are not held back by it.
    hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat("cpu", AI, "easy")], "alice")


async def test_computers_playing_each_other_wait_while_nobody_watches(tmp_path, new_store, monkeypatch):
    monkeypatch.setattr("termgames.rules.copolymer.Copolymer.ai_move_seconds", 0.0)
    hub = make_hub(new_store, tmp_path, "alice")
    try:
        table = hub.create_table("copolymer", {"size": 3}, computers(2), "alice")
        for _ in range(20):  # what the new table set going now (no time passes): a decision would show at once
            await asyncio.sleep(0)
        assert table.match.moves == [] and not table.thinking  # nobody there: no thinking, no rows
        watcher = Listener("alice", None)
        table.subscribe(watcher)
        await until(lambda: len(table.match.moves) >= 2)
        table.unsubscribe(watcher)
        await until(lambda: not table.thinking)  # a decision in flight may still land, then none is asked for
        stopped_at = len(table.match.moves)
        for _ in range(20):
            await asyncio.sleep(0)
        assert len(table.match.moves) == stopped_at and not table.thinking
    finally:
        hub.close()


def test_a_table_without_a_move_for_the_idle_days_is_closed_unrated_with_a_replayable_record(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, "alice", "bob", "carol")
    rated = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
    rated.play(0, "A1")
    waiting = hub.create_table("copolymer", {"size": 5}, [Seat(name="carol"), Seat()], "carol")
    lively = hub.create_table("copolymer", {"size": 5}, [Seat(name="bob"), Seat(name="carol")], "bob")
    guests = hub.create_table("copolymer", {"size": 5}, [Seat(name="guest-x-0123456789abcdef"), Seat()],
                              "guest-x-0123456789abcdef")
    unwatched = hub.create_table("copolymer", {"size": 5}, computers(2), "alice")
    for table, days in ((rated, 31), (waiting, 40), (lively, 29), (guests, 2), (unwatched, 2)):
        backdate(hub.store, table.id, days)
    hub.store.close()

    again = make_hub(new_store, tmp_path)  # a restart finds them idle
    assert set(again.tables) == {lively.id}  # only the live one read: the others closed without a replay
    listed = {t.id: t for t in again.finished_tables("alice")}
    assert listed[rated.id].final_status() == "closed: no move for 30 days"
    assert listed[guests.id].final_status() == "closed: no move for a day"
    assert listed[unwatched.id].final_status() == "closed: no move for a day"
    assert again.store.ratings() == []
    given = run_command(again, "carol", f"record {rated.id}")
    assert given.status == 0
    record = json.loads(given.stdout)
    assert record["closed"] == "closed for inactivity: no move for 30 days; not rated"
    replayed = loads(given.stdout)  # what termgames replay reads
    assert [m.move for m in replayed.moves] == ["A1"] and not replayed.over
    listing = run_command(again, "alice", "tables").stdout
    assert f"{rated.id:>4}  copolymer  rated   alice vs bob  (closed: no move for 30 days)" in listing
    with pytest.raises(RuleError, match=f"table {rated.id} was closed: no move for 30 days"):
        again.table(rated.id).play(1, "E5")
    with pytest.raises(RuleError, match="was closed"):
        again.table(waiting.id).join("alice")


def test_a_table_idle_while_the_server_runs_is_closed_and_its_players_told(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, "alice", "bob", idle_days=3)  # --idle-days 3
    table = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
    table.play(0, "A1")
    watcher = Listener("carol", None)
    table.subscribe(watcher)
    assert hub.close_idle() == []  # a move a moment ago
    assert hub.close_idle(datetime.now(UTC) + timedelta(days=4)) == [table.id]
    assert table.over and table.closed == "no move for 3 days"
    assert ("notice", "Table closed: no move for 3 days; not rated") in watcher.events
    record = json.loads(hub.record_path(table).read_text(encoding="utf-8"))
    assert record["closed"].startswith("closed for inactivity") and len(record["moves"]) == 1
    refused = run_command(hub, "bob", f"move {table.id} E5")
    assert refused.stderr == f"termgames: table {table.id} was closed: no move for 3 days\n"
    with pytest.raises(RuleError, match="was closed"):
        table.request_undo(0)
    assert hub.close_idle(datetime.now(UTC) + timedelta(days=40)) == []  # closed once


@pytest.fixture
async def two_servers(pg_url, tmp_path):
    from termgames.server.stores.postgres import PostgresStore

    hubs = [Hub(PostgresStore(pg_url), tmp_path / f"records{n}") for n in range(2)]
    for hub in hubs:
        hub.start()
    yield hubs
    for hub in hubs:
        hub.close()
        hub.store.close()


async def test_of_several_servers_exactly_one_closes_an_idle_table_and_the_others_hear_it(two_servers):
    a, b = two_servers
    tables = [a.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
              for _ in range(3)]
    for _ in range(200):
        if all(t.id in b.tables for t in tables):
            break
        await asyncio.sleep(0.02)
    later = datetime.now(UTC) + timedelta(days=31)
    closed_a, closed_b = a.close_idle(later), b.close_idle(later)
    assert sorted(closed_a + closed_b) == [t.id for t in tables] and closed_b == []
    for _ in range(200):
        if all(b.tables[t.id].closed for t in tables):
            break
        await asyncio.sleep(0.02)
    assert all(b.tables[t.id].closed == "no move for 30 days" for t in tables)
    # A server that has not heard yet is refused by the database: its move is not stored.
    b.tables[tables[0].id].closed = ""
    with pytest.raises(RuleError, match="was closed"):
        b.tables[tables[0].id].play(0, "A1")
    assert b.store.load_table(tables[0].id).moves == []


def test_closing_and_a_move_or_two_closings_at_the_same_moment_end_one_way_only(pg_url):
    """Threads with stores of their own (separate servers) race on each table: a move against the close, and
    two closes; the database lets exactly one through."""
    import threading

    from termgames.match import MoveRecord
    from termgames.server.stores.interface import TableClosed
    from termgames.server.stores.postgres import PostgresStore

    setup = PostgresStore(pg_url)
    seats = [{"kind": "human", "name": "a"}, {"kind": "human", "name": "b"}]
    tables = [setup.create_table("copolymer", {"size": 5}, 1, seats, "a") for _ in range(8)]
    for table_id in tables:
        backdate(setup, table_id, 10)
    setup.close()
    before = (datetime.now(UTC) - timedelta(days=1)).replace(microsecond=0).isoformat()
    now = datetime.now(UTC).replace(microsecond=0).isoformat()
    barrier = threading.Barrier(3)
    outcomes: dict[int, list[str]] = {table_id: [] for table_id in tables}

    def server(role: str) -> None:
        store = PostgresStore(pg_url)  # made in this thread: it is this "server's" loop thread
        try:
            for table_id in tables:
                barrier.wait()
                if role == "move":
                    try:
                        store.append_move(table_id, 0, MoveRecord(0, "A1", now))
                        outcomes[table_id].append("moved")
                    except TableClosed:
                        pass
                elif store.close_table(table_id, "no move for a day", before):
                    outcomes[table_id].append("closed")
        finally:
            store.close()

    threads = [threading.Thread(target=server, args=(role,)) for role in ("move", "close", "close")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(len(done) == 1 for done in outcomes.values()), outcomes


def test_start_up_replays_neither_finished_nor_idle_tables(tmp_path, new_store, monkeypatch):
    hub = make_hub(new_store, tmp_path, "alice", "bob")
    for _ in range(6):
        play_out(hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice", rated=False))
    for _ in range(4):
        idle = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
        idle.play(0, "A1")
        backdate(hub.store, idle.id, 60)
    going_on = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
    going_on.play(0, "A1")
    hub.store.close()

    replayed = []
    original = Match.replay

    def counting(*args, **kwargs):
        replayed.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(Match, "replay", counting)
    again = make_hub(new_store, tmp_path)
    assert len(replayed) == 1 and set(again.tables) == {going_on.id}
    # The lobby lists the finished ones all the same, how they ended included; a replay reads one whole.
    finished = again.finished_tables("alice")
    assert len(finished) == 10 and len(replayed) == 1
    assert all(t.final_status() for t in finished)
    first = min(t.id for t in finished)
    assert again.table(first).over and len(replayed) == 2


# --------------------------------------------------------------------------
# 5. A table's chat flooded
# --------------------------------------------------------------------------


def test_chat_lines_are_limited_per_person_with_a_one_line_refusal(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)  # 20 lines a minute, in bursts of 5
    table = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
    sent = 0
    with pytest.raises(RuleError) as refused:
        for number in range(50):  # a spectator's flood, about 18 lines a second
            table.say("guest-m-0123456789abcdef", f"spam {number}")
            sent += 1
    assert sent == 5  # a burst, then the limit
    assert str(refused.value) == "too many chat lines: 20 a minute at most; that line was not sent"
    # Another visit from the same address is the same person; someone else still talks.
    for number in range(5):
        table.say("guest-n-0123456789abcdef", f"again {number}", owner="guest:192.0.2.7")
    with pytest.raises(RuleError):
        table.say("guest-o-0123456789abcdef", "and again", owner="guest:192.0.2.7")
    table.say("alice", "hello", owner="key:SHA256:alice")
    assert [who for who, _ in table.chat].count("alice") == 1


def test_postgresql_keeps_a_bounded_chat_history_per_table(pg_url):
    """(The SQLite store keeps no chat: the hub's memory holds a table's last lines.)"""
    from termgames.server.stores.postgres import PostgresStore

    kept = 100
    store = PostgresStore(pg_url)
    try:
        table_id = store.create_table("copolymer", {}, 1, [], "alice")
        other = store.create_table("copolymer", {}, 1, [], "alice")
        store.add_chat(other, "bob", "kept")
        for number in range(kept + 50):
            store.add_chat(table_id, "mallory", f"line {number}")
        count = store._run(lambda c: c.fetchval("SELECT count(*) FROM chat WHERE table_id = $1", table_id))
        assert count == kept
        assert store._run(lambda c: c.fetchval("SELECT count(*) FROM chat WHERE table_id = $1", other)) == 1
        assert store.load_table(table_id).chat[-1] == ("mallory", f"line {kept + 49}")
    finally:
        store.close()


async def test_a_player_mutes_another_at_her_own_screen(tmp_path, new_store):
    from termgames.server.ui.app import ServeApp
    from termgames.server.ui.shared_game import MuteScreen, SharedGameMixin

    hub = make_hub(new_store, tmp_path, "alice", "bob")
    table = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
    alice, bob = ServeApp(hub=hub, player="alice"), ServeApp(hub=hub, player="bob")
    async with alice.run_test(size=(100, 32)) as pa, bob.run_test(size=(100, 32)) as pb:
        alice.open_table(table.id)
        bob.open_table(table.id)
        await pa.pause()
        await pb.pause()
        table.say("guest-m-0123456789abcdef", "spam spam spam", owner="guest:192.0.2.7")
        table.say("bob", "good luck", owner="key:SHA256:bob")
        await pa.pause()
        assert isinstance(alice.screen, SharedGameMixin)
        assert "spam spam spam" in str(alice.screen.query_one("#chat-log").render())
        await pa.press("M")
        await pa.pause()
        assert isinstance(alice.screen, MuteScreen)
        assert alice.screen.people == ["bob", "guest-m-0123456789abcdef"]
        await pa.press("down", "enter")
        await pa.pause()
        shown = str(alice.screen.query_one("#chat-log").render())
        assert "spam" not in shown and "bob: good luck" in shown and "1 muted at your screen" in shown
        assert "spam spam spam" in str(bob.screen.query_one("#chat-log").render())  # her screen only
        # Chatting too fast: one line for the sender, the line kept in the box.
        for number in range(5):
            table.say("alice", f"hi {number}")  # (no connection here: her name stands for her)
        await pa.press("t", "x", "enter")
        await pa.pause()
        assert str(alice.screen.query_one("#message").render()) == (
            "too many chat lines: 20 a minute at most; that line was not sent"
        )
        assert alice.screen.query_one("#chat-input").value == "x"  # kept, to send in a moment


# --------------------------------------------------------------------------
# Databases made before
# --------------------------------------------------------------------------


async def test_a_postgresql_database_of_schema_3_is_migrated_and_its_idle_tables_closed(pg_url, tmp_path):
    import asyncpg

    from termgames.server.stores.postgres import PostgresStore
    from termgames.server.stores.postgres_schema import MIGRATIONS, SCHEMA_VERSION

    conn = await asyncpg.connect(pg_url)
    await conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for number, statements in MIGRATIONS[:3]:
        await conn.execute(statements)
        await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", number)
    seats = json.dumps([{"kind": "human", "name": "alice"}, {"kind": "human", "name": "bob"}])
    now = datetime.now(UTC).replace(microsecond=0).isoformat()
    for created, finished in (("2020-01-01T00:00:00+00:00", False), (now, False), (now, True)):
        await conn.execute(
            "INSERT INTO tables (game, options, seed, seats, creator, created, finished) "
            "VALUES ('copolymer', '{\"size\": 5}', '1', $1, 'alice', $2, $3)",
            seats, created, finished,
        )
    await conn.close()

    hub = Hub(PostgresStore(pg_url), tmp_path / "records")
    try:
        assert set(hub.tables) == {2}  # the idle one closed, the finished one listed, neither replayed
        assert hub.tables[2].owner == "name:alice"  # no owner kept then: worked out from its creator
        statuses = {t.id: t.final_status() for t in hub.finished_tables("alice")}
        assert statuses == {1: "closed: no move for 30 days", 3: "finished"}
        # Every migration since, up to this termgames's own (4 brought the closing; 5 the clocks; 6 the notices).
        assert hub.store._run(lambda c: c.fetchval("SELECT max(version) FROM schema_version")) == SCHEMA_VERSION
        hub.tables[2].play(0, "A1")  # the new move function
    finally:
        hub.close()
        hub.store.close()


async def test_the_lobby_lists_finished_and_closed_tables_it_did_not_replay(tmp_path, new_store):
    from termgames.server.ui.app import ServeApp

    hub = make_hub(new_store, tmp_path, "alice", "bob")
    done = hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice")
    play_out(done)
    idle = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
    backdate(hub.store, idle.id, 31)
    change = next(c for c in done.rating_changes if c.player == "alice")
    hub.store.close()

    again = make_hub(new_store, tmp_path)
    assert not again.tables
    app = ServeApp(hub=again, player="alice")
    async with app.run_test(size=(110, 32)) as pilot:
        await pilot.pause()
        listing = app.screen.query_one("#tables")
        finished = str(listing.get_option(f"done:{done.id}").prompt)
        assert f"alice {change.after.mu - change.before.mu:+.1f}" in finished  # what it did to her rating
        assert finished.endswith(done.final_status())
        assert str(listing.get_option(f"done:{idle.id}").prompt).endswith(" · closed: no move for 30 days")
        listing.highlighted = listing.get_option_index(f"done:{done.id}")
        await pilot.press("enter")  # the replay reads it whole
        await pilot.pause()
        assert type(app.screen).__name__.endswith("ReplayScreen") and again.tables[done.id].over
