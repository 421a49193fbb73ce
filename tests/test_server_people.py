"""People are not free: new names from one address are few a day, and a newcomer's tables are few.

The attacks of issue 32 item 4, each against a real server with real SSH clients where it can be, and on both
stores where the hub counts (``new_store``).
"""

from __future__ import annotations

import time

import asyncssh
import pytest

from termgames.match import Seat
from termgames.rules import RuleError
from termgames.server import hub as hub_module
from termgames.server.hub import Hub
from termgames.server.ssh import start_server
from termgames.server.stores.interface import RatedResult
from termgames.timesource import CallableTime


class Clock:
    """The hub's clock (seconds since the epoch), moved on by the test."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


async def run(port: int, name: str, key: asyncssh.SSHKey, line: str) -> asyncssh.SSHCompletedProcess:
    async with asyncssh.connect(
        "127.0.0.1", port, username=name, client_keys=[key], known_hosts=None, preferred_auth="publickey"
    ) as conn:
        return await conn.run(line, check=False)


async def sign_in(port: int, name: str, key: asyncssh.SSHKey) -> tuple[bool, str]:
    """Whether ``name`` signs in with ``key``, and the banner the server sent meanwhile."""
    banners: list[str] = []

    class Client(asyncssh.SSHClient):
        def auth_banner_received(self, msg: str, lang: str) -> None:
            banners.append(msg)

    try:
        async with asyncssh.connect(
            "127.0.0.1", port, username=name, client_keys=[key], known_hosts=None, client_factory=Client,
        ) as conn:
            await conn.run("tables", check=False)
        return True, "".join(banners)
    except asyncssh.PermissionDenied:
        return False, "".join(banners)


async def test_one_address_makes_a_few_new_names_a_day(tmp_path, monkeypatch):
    # The test's clients come from loopback, which is not counted: here it counts as any address.
    monkeypatch.setattr(hub_module, "is_loopback", lambda address: False)
    clock = Clock()
    server = await start_server(
        tmp_path, "127.0.0.1", 0, max_new_names_per_address=3, time_source=CallableTime(clock)
    )
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(5)]
    try:
        for n in range(3):
            assert (await sign_in(server.port, f"fresh{n}", keys[n]))[0]
        refused, banner = await sign_in(server.port, "fresh3", keys[3])
        assert not refused  # not let in, not even as a guest instead
        assert banner == (
            "termgames: 3 new names were made from your address within a day, its limit "
            "(--max-new-names-per-address): sign in with a name of yours, or try again tomorrow\r\n"
        )
        assert server.store.key_of("fresh3") is None
        # A name of one's own still signs in, and a known key cannot claim another name either.
        assert (await sign_in(server.port, "fresh0", keys[0]))[0]
        assert not (await sign_in(server.port, "fresh0-alt", keys[0]))[0]
        clock.now += 86400 + 60  # a day later
        assert (await sign_in(server.port, "fresh3", keys[3]))[0]
    finally:
        await server.close()


def test_loopback_is_not_counted_and_an_ipv6_network_counts_once(tmp_path, new_store):
    hub = Hub(new_store(), tmp_path / "records", max_new_names_per_address=2)
    try:
        for _ in range(5):
            assert hub.new_name_refusal("127.0.0.1", spend=True) == ""
            assert hub.new_name_refusal("::1", spend=True) == ""
        assert hub.new_name_refusal("2001:db8:1:2::5", spend=True) == ""
        assert hub.new_name_refusal("2001:db8:1:2:ffff::9", spend=True) == ""
        assert "2 new names were made from your address" in hub.new_name_refusal("2001:db8:1:2::77", spend=False)
        assert hub.new_name_refusal("2001:db8:1:3::5", spend=False) == ""  # another /64
        # Asking without spending spends nothing.
        for _ in range(3):
            assert hub.new_name_refusal("192.0.2.9", spend=False) == ""
    finally:
        hub.close()
        hub.store.close()


async def test_three_fresh_keys_cannot_fill_a_server_a_registered_player_challenges_on(tmp_path):
    server = await start_server(tmp_path, "127.0.0.1", 0, max_tables=150)
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(4)]
    try:
        for n in range(3):
            async with asyncssh.connect(
                "127.0.0.1", server.port, username=f"throwaway{n}", client_keys=[keys[n]], known_hosts=None,
                preferred_auth="publickey",
            ) as conn:
                for _ in range(5):
                    made = await conn.run("challenge copolymer --size 5 --casual bob", check=False)
                    assert made.exit_status == 0, made.stderr
                refused = await conn.run("challenge copolymer --size 5 --casual bob", check=False)
                assert refused.exit_status == 2
                assert refused.stderr == (
                    "termgames: you have 5 open tables, the limit of a newcomer, one more for each rated game you "
                    "finish: finish or resign one first\n"
                )
        made = await run(server.port, "alice", keys[3], "challenge copolymer --size 5 bob")
        assert made.exit_status == 0, made.stderr
    finally:
        await server.close()


def test_a_newcomers_tables_grow_with_the_rated_games_she_finishes(tmp_path, new_store):
    hub = Hub(new_store(), tmp_path / "records", new_player_tables=2, max_tables_per_player=4)
    try:
        for name in ("alice", "bob"):
            assert hub.store.claim(name, f"SHA256:{name}")
        assert hub.store.claim("alice-alt", "SHA256:alice")  # another name of alice's key

        def open_one(creator: str = "alice", opponent: str = "carol"):
            return hub.create_table("copolymer", {"size": 5}, [Seat(name=creator), Seat(name=opponent)], creator)

        first, _second = open_one(), open_one()
        with pytest.raises(RuleError, match=r"you have 2 open tables, the limit of a newcomer, one more for each"):
            open_one("alice-alt")
        # A rated game finished (against bob) makes room for one more.
        rated = hub.create_table(
            "copolymer", {"size": 5}, [Seat(name="bob"), Seat(name="alice")], "bob", rated=True
        )
        hub.store.finish_table(rated.id, RatedResult("copolymer", ("bob", "alice"), (0.0, 1.0)))
        assert hub.store.rated_games("SHA256:alice") == 1
        assert hub.tables_allowed("key:SHA256:alice") == 3
        open_one("alice-alt")
        with pytest.raises(RuleError, match="the limit of a newcomer"):
            open_one()
        assert first.id  # (kept open: three now)
        # Never past --max-tables-per-player, however many games she finishes.
        hub.config = hub.config.with_settings(new_player_tables=100)
        open_one()
        with pytest.raises(RuleError, match="you have 4 open tables, the limit per player"):
            open_one()
        # The guests of one address stay newcomers: they finish no rated game.
        guest = "guest-x-0123456789abcdef"
        for _ in range(4):
            hub.create_table("copolymer", {"size": 5}, [Seat(name=guest), Seat(name="bob")], guest,
                             owner="guest:192.0.2.5")
        hub.config = hub.config.with_settings(new_player_tables=1)
        with pytest.raises(RuleError, match="the guests of your address have 4 open tables"):
            hub.create_table("copolymer", {"size": 5}, [Seat(name=guest), Seat(name="bob")], guest,
                             owner="guest:192.0.2.5")
    finally:
        hub.close()
        hub.store.close()


def test_a_hundred_fresh_keys_fill_a_tenth_of_the_default_server(tmp_path, new_store):
    hub = Hub(new_store(), tmp_path / "records")
    try:
        made = 0
        for n in range(100):
            key = f"SHA256:throwaway{n}"
            assert hub.store.claim(f"throwaway{n}", key)
            while True:
                try:
                    hub.create_table(
                        "copolymer", {"size": 5}, [Seat(name=f"throwaway{n}"), Seat(name="bob")], f"throwaway{n}",
                        rated=False, owner=f"key:{key}",
                    )
                except RuleError:
                    break
                made += 1
                assert made <= 1000
        assert made == 500 and made <= hub.config.max_tables // 10
    finally:
        hub.close()
        hub.store.close()


# -- databases made before the quotas ------------------------------------------------------------------


def test_a_sqlite_database_made_before_the_quotas_gets_them_and_keeps_its_addresses(tmp_path):
    import sqlite3

    from termgames.server.stores.interface import Quota
    from termgames.server.stores.sqlite import Store

    path = tmp_path / "termgames.db"
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE notice_settings (
            folded TEXT PRIMARY KEY, player TEXT NOT NULL, mode TEXT NOT NULL DEFAULT 'bell',
            email TEXT NOT NULL DEFAULT '', confirmed INTEGER NOT NULL DEFAULT 0,
            code_hash TEXT NOT NULL DEFAULT '', code_expires TEXT NOT NULL DEFAULT '',
            code_tries INTEGER NOT NULL DEFAULT 0, mailed TEXT NOT NULL DEFAULT '', seen TEXT NOT NULL DEFAULT ''
        );
        CREATE TABLE mail_throttle (what TEXT PRIMARY KEY, sent TEXT NOT NULL);
        INSERT INTO notice_settings (folded, player, email, confirmed) VALUES ('alice', 'alice', 'a@example.org', 1);
        INSERT INTO mail_throttle VALUES ('address:a@example.org', '2026-01-01T00:00:00+00:00');
        """
    )
    db.commit()
    db.close()
    store = Store(path)
    try:
        assert store.notice_settings("alice").email == "a@example.org" and store.notice_settings("alice").confirmed
        assert store.begin_confirmation(
            "bob", "b@example.org", "b@example.org", "salt$hash", "2026-01-01T00:30:00+00:00",
            "2026-01-01T00:00:00+00:00", [Quota("mail:server", 1, "2025-12-31T23:00:00+00:00")],
        ) == ""
        assert store.take_quota([Quota("mail:server", 1, "2025-12-31T23:00:00+00:00")],
                                "2026-01-01T00:01:00+00:00") == "mail:server"
        tables = {row[0] for row in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "mail_throttle" not in tables and {"quota_uses", "mailbox_codes"} <= tables
    finally:
        store.close()


async def test_a_postgresql_database_of_schema_7_is_migrated_to_the_quotas(pg_url, tmp_path):
    import asyncpg

    from termgames.server.stores.interface import Quota
    from termgames.server.stores.postgres import PostgresStore
    from termgames.server.stores.postgres_schema import MIGRATIONS, SCHEMA_VERSION

    conn = await asyncpg.connect(pg_url)
    await conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for number, statements in MIGRATIONS:
        if number <= 7:
            await conn.execute(statements)
            await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", number)
    await conn.execute(
        "INSERT INTO notice_settings (folded, player, email, confirmed) "
        "VALUES ('alice', 'alice', 'a@example.org', TRUE)"
    )
    await conn.close()

    store = PostgresStore(pg_url)
    try:
        assert store._run(lambda c: c.fetchval("SELECT max(version) FROM schema_version")) == SCHEMA_VERSION
        assert store.notice_settings("alice").confirmed
        assert store.begin_confirmation(
            "bob", "b@example.org", "b@example.org", "salt$hash", "2026-01-01T00:30:00+00:00",
            "2026-01-01T00:00:00+00:00", [Quota("mail:server", 1, "2025-12-31T23:00:00+00:00")],
        ) == ""
        # A code waits at that mailbox: carol is given it, and no quota is spent.
        assert store.begin_confirmation(
            "carol", "B@example.org", "b@example.org", "salt$other", "2026-01-01T00:31:00+00:00",
            "2026-01-01T00:01:00+00:00", [Quota("mail:server", 1, "2025-12-31T23:00:00+00:00")],
        ) == "waiting:2026-01-01T00:30:00+00:00"
        assert store.notice_settings("carol").code_hash == "salt$hash"
    finally:
        store.close()
