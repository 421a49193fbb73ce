"""Seeks and quick pairing (``ssh HOST seek``, the lobby's seek list): pairing, limits, expiry, restarts, servers
sharing one PostgreSQL, and the commands over real SSH clients."""

from __future__ import annotations

import json
import time

import asyncssh
import pytest
from hubkit import pg_servers, until
from sshterm import command, connect

from termgames.clock import ClockSpec
from termgames.games import GAMES
from termgames.match import Seat
from termgames.rules import RuleError
from termgames.server.commands import run_command
from termgames.server.hub import Hub
from termgames.server.notices import Notice
from termgames.server.people import guest_owner, key_owner, name_owner
from termgames.server.ssh import start_server

LIVE = ClockSpec.parse("5m+3s")
DAYS = ClockSpec.parse("3d/move")


class Clock:
    """The hub's clock (seconds since the epoch), moved on by the test: no test waits for time to pass."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def later(self, days: float = 0.0, hours: float = 0.0) -> None:
        self.now += days * 86400 + hours * 3600


class Heard:
    """A connected player's app, as the notices see it: the notices it was handed."""

    def __init__(self) -> None:
        self.notices: list[Notice] = []

    def __call__(self, notice: Notice) -> None:
        self.notices.append(notice)


def make_hub(new_store, folder, clock: Clock | None = None, **settings) -> Hub:
    hub = Hub(new_store(), folder / "records", now=clock or time.time, **settings)
    return hub


def seek(hub: Hub, player: str, game: str = "copolymer", options=None, **kwargs):
    return hub.seeks.seek(player, name_owner(player), game, options or {"size": 5}, **kwargs)


def test_two_seeks_that_fit_make_a_table_at_once_and_the_first_seeker_hears_it(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    alice = Heard()
    hub.notices.attach("alice", alice)
    waiting = seek(hub, "alice", clock=DAYS)
    assert waiting.table is None and waiting.seek is not None
    assert [s.player for s in hub.seeks.current()] == ["alice"]
    paired = seek(hub, "bob", clock=DAYS)
    table = paired.table
    assert table is not None and sorted(table.names) == ["alice", "bob"]
    assert table.rated and str(table.match.clock) == "3d/move" and table.match.options["size"] == 5
    assert hub.seeks.current() == []  # both seeks made the table: gone
    assert [n.kind for n in alice.notices] == ["ready"] and f"#{table.id}" in alice.notices[0].text
    assert alice.notices[0].text.startswith("Your game is ready: table #")  # not "bob challenges you"
    # The table counts against the person whose seek made it, as any table of hers.
    assert [t.id for t in hub.store.load_open_tables() if t.owner.endswith(name_owner("bob"))] == [table.id]
    with pytest.raises(RuleError, match="you have 1 open tables"):
        hub.config = hub.config.with_settings(new_player_tables=1, max_tables_per_player=1)
        hub.check_new_table(name_owner("bob"))


@pytest.mark.parametrize(
    "first, second",
    [
        ({"clock": DAYS}, {"clock": ClockSpec.parse("1d/move")}),
        ({"clock": DAYS}, {"clock": DAYS, "rated": False}),
        ({"clock": DAYS, "options": {"size": 5}}, {"clock": DAYS, "options": {"size": 7}}),
        ({"clock": DAYS, "rating_range": (30.0, 40.0)}, {"clock": DAYS}),  # bob (25, unrated) is not in alice's range
        ({"clock": DAYS}, {"clock": DAYS, "rating_range": (0.0, 20.0)}),  # nor alice in bob's
    ],
)
def test_seeks_that_differ_wait_side_by_side(tmp_path, new_store, first, second):
    hub = make_hub(new_store, tmp_path)
    assert seek(hub, "alice", **first).table is None
    assert seek(hub, "bob", **second).table is None
    assert sorted(s.player for s in hub.seeks.current()) == ["alice", "bob"]


def test_ones_own_seeks_never_meet_and_within_range_they_do(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    assert seek(hub, "alice", clock=DAYS, rating_range=(20.0, 30.0)).table is None
    assert seek(hub, "alice", clock=DAYS).table is None  # her own: not a partner
    assert len(hub.seeks.of("alice")) == 2
    table = seek(hub, "bob", clock=DAYS, rating_range=(24.0, 26.0)).table
    assert table is not None and sorted(table.names) == ["alice", "bob"]
    assert len(hub.seeks.of("alice")) == 1  # the oldest that fitted made the table


def test_a_person_has_a_bounded_number_of_seeks_and_the_refusal_names_the_limit(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, max_seeks_per_player=2)
    owner = key_owner("SHA256:alice")
    for size in (5, 7):
        hub.seeks.seek("alice", owner, "copolymer", {"size": size}, clock=DAYS)
    with pytest.raises(RuleError, match=r"2 seeks waiting, the limit per player .--max-seeks-per-player."):
        hub.seeks.seek("alice2", owner, "copolymer", {"size": 9}, clock=DAYS)  # another name of her key
    # The guests of one address are one person; guests seek casual games only.
    guests = guest_owner("203.0.113.9")
    hub.notices.attach("guest-a-1", Heard())
    with pytest.raises(RuleError, match="guests seek casual games only"):
        hub.seeks.seek("guest-a-1", guests, "copolymer", {"size": 5}, clock=DAYS, rated=True)
    for size in (5, 7):
        assert not hub.seeks.seek("guest-a-1", guests, "copolymer", {"size": size}, clock=DAYS).seek.rated
    with pytest.raises(RuleError, match="the guests of your address have 2 seeks waiting"):
        hub.seeks.seek("guest-b-2", guests, "copolymer", {"size": 9}, clock=DAYS)


def test_a_seek_taken_from_the_list_makes_its_table_and_the_checks_hold(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    rated = seek(hub, "alice", clock=DAYS).seek
    casual = seek(hub, "carol", options={"size": 7}, clock=DAYS, rated=False).seek
    narrow = seek(hub, "dave", options={"size": 9}, clock=DAYS, rating_range=(40.0, 50.0)).seek
    with pytest.raises(RuleError, match="is yours"):
        hub.seeks.take("alice", name_owner("alice"), rated.id)
    with pytest.raises(RuleError, match="guests take casual seeks only"):
        hub.seeks.take("guest-x-1", guest_owner("203.0.113.9"), rated.id)
    with pytest.raises(RuleError, match="is for ratings 40-50"):
        hub.seeks.take("bob", name_owner("bob"), narrow.id)
    with pytest.raises(RuleError, match="there is no seek 99"):
        hub.seeks.take("bob", name_owner("bob"), 99)
    table = hub.seeks.take("bob", name_owner("bob"), rated.id).table
    assert table is not None and sorted(table.names) == ["alice", "bob"] and table.rated
    guest_table = hub.seeks.take("guest-x-1", guest_owner("203.0.113.9"), casual.id).table
    assert guest_table is not None and not guest_table.rated
    with pytest.raises(RuleError, match="there is no seek"):
        hub.seeks.take("erin", name_owner("erin"), rated.id)  # taken already
    assert [s.id for s in hub.seeks.current()] == [narrow.id]


def test_a_seek_for_three_waits_for_three(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    options = {}
    assert hub.seeks.seek("alice", name_owner("alice"), "mono", options, seats=3, clock=DAYS).table is None
    assert hub.seeks.seek("bob", name_owner("bob"), "mono", options, seats=2, clock=DAYS).table is None  # two seats
    assert hub.seeks.seek("carol", name_owner("carol"), "mono", options, seats=3, clock=DAYS).table is None
    table = hub.seeks.seek("dave", name_owner("dave"), "mono", options, seats=3, clock=DAYS).table
    assert table is not None and sorted(table.names) == ["alice", "carol", "dave"]
    with pytest.raises(RuleError, match="Copolymer is played by 2 to 2 players, not 3"):
        seek(hub, "erin", seats=3, clock=DAYS)


def test_a_live_seek_waits_while_its_owner_is_connected(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    with pytest.raises(RuleError, match=r"a live seek .5m\+3s. waits while you have a screen open"):
        seek(hub, "alice", clock=LIVE)
    app = Heard()
    hub.notices.attach("alice", app)
    seek(hub, "alice", clock=LIVE)
    seek(hub, "alice", options={"size": 7}, clock=DAYS)
    hub.notices.detach("alice", app)
    hub.seeks.owner_left("alice")
    assert [s.clock for s in hub.seeks.current()] == ["3d/move"]  # the live one ended with her visit


def test_a_correspondence_seek_expires_after_seek_days(tmp_path, new_store):
    clock = Clock()
    hub = make_hub(new_store, tmp_path, clock, seek_days=2.0)
    seek(hub, "alice", clock=DAYS)
    clock.later(days=1.9)
    assert len(hub.seeks.current()) == 1
    clock.later(days=0.2)
    assert hub.seeks.current() == []
    assert hub.store.seeks() == []  # dropped from the store too


def test_seeks_survive_a_restart_but_live_ones_whose_owners_left_do_not(tmp_path):
    from termgames.server.stores.sqlite import Store

    hub = Hub(Store(tmp_path / "db.sqlite"), tmp_path / "records")
    hub.notices.attach("alice", Heard())
    seek(hub, "alice", clock=LIVE)
    seek(hub, "alice", options={"size": 7}, clock=DAYS)
    hub.close()
    hub.store.close()
    again = Hub(Store(tmp_path / "db.sqlite"), tmp_path / "records")
    try:
        assert [s.clock for s in again.seeks.current()] == ["3d/move"]
    finally:
        again.close()
        again.store.close()


def test_the_commands_seek_seeks_json_and_unseek(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    made = run_command(hub, "alice", "seek copolymer --size 7 --clock 3d/move --rating-range 20-30")
    assert made.status == 0 and made.stdout.startswith("seek 1 waits: #1 Copolymer")
    listed = json.loads(run_command(hub, "bob", "seeks --json").stdout)
    assert listed == [
        {"id": 1, "game": "copolymer", "by": "alice", "options": {"shape": "hexagon", "size": 7}, "clock": "3d/move",
         "rated": True, "seats": 2, "rating_range": [20.0, 30.0]}
    ]
    assert run_command(hub, "alice", "seeks").stdout.startswith("*#1 Copolymer")
    refused = run_command(hub, "bob", "unseek 1")
    assert refused.status == 2 and "you have no seek 1" in refused.stderr
    bad = run_command(hub, "bob", "seek copolymer --rating-range high")
    assert bad.status == 2 and bad.stderr.count("\n") == 1 and "--rating-range takes LO-HI" in bad.stderr
    taken = run_command(hub, "bob", "seek --take 1")
    assert taken.status == 0 and taken.stdout.split(":")[0].isdigit()
    table_id = int(taken.stdout.split(":")[0])
    assert f"{table_id}" in run_command(hub, "alice", "tables").stdout  # listed like any other table
    run_command(hub, "alice", "seek monunrail --clock 3d/move")
    assert run_command(hub, "alice", "unseek").stdout.startswith("took back seek")
    assert run_command(hub, "alice", "seeks --json").stdout.strip() == "[]"


def test_every_game_offers_quick_pairings_that_are_clocks():
    for game in GAMES.values():
        assert game.quick_pairings, game.name
        for spec in game.quick_pairings:
            assert str(ClockSpec.parse(spec)) == spec


# -- servers sharing one PostgreSQL ---------------------------------------------------------------


async def test_two_servers_never_both_take_one_seek(pg_url, tmp_path):
    async with pg_servers(pg_url, tmp_path, 2) as (a, b):
        waiting = seek(a, "alice", clock=DAYS).seek
        assert waiting is not None
        b.seeks.changed()
        # Both servers take it at the same moment, from the list they hold: one table only.
        made = []
        for hub, taker in ((a, "bob"), (b, "carol")):
            try:
                made.append(hub.seeks.take(taker, name_owner(taker), waiting.id).table)
            except RuleError as error:
                made.append(str(error))
        tables = [t for t in made if not isinstance(t, str)]
        assert len(tables) == 1 and "just taken by someone else" in next(m for m in made if isinstance(m, str))
        assert a.store.seeks() == []


async def test_seeks_made_at_two_servers_meet(pg_url, tmp_path):
    async with pg_servers(pg_url, tmp_path, 2) as (a, b):
        # As if made at the same moment: neither server saw the other's seek when it paired its own.
        a.seeks.seek("alice", name_owner("alice"), "copolymer", {"size": 5}, clock=DAYS)
        b.seeks._kept = []
        b.seeks._seen.update(s.id for s in b.store.seeks())
        original = b.seeks.current
        b.seeks.current = lambda: [s for s in original() if s.player != "alice"]  # (its news not heard yet)
        assert b.seeks.seek("bob", name_owner("bob"), "copolymer", {"size": 5}, clock=DAYS).table is None
        b.seeks.current = original
        await until(lambda: any(not t.over for t in a.tables.values()) and any(not t.over for t in b.tables.values()))
        # Each server's news reaches the other in the order it was sent: once a table each makes afterwards has
        # reached the other, so has all the seeks' news.  Still exactly one table of theirs.
        marks = [server.create_table("copolymer", {"size": 5}, [Seat(name="dan"), Seat(name="eve")], "dan").id
                 for server in (a, b)]
        await until(lambda: all(mark in a.tables and mark in b.tables for mark in marks))
        open_tables = ({t.id for t in a.tables.values()} | {t.id for t in b.tables.values()}) - set(marks)
        assert len(open_tables) == 1
        assert a.store.seeks() == []


# -- over SSH ---------------------------------------------------------------------------------------


@pytest.fixture
def keys():
    return {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("alice", "bob")}


async def test_seeks_over_ssh_a_lobby_seek_taken_by_a_command(tmp_path, keys, db_url):
    server = await start_server(tmp_path, "127.0.0.1", 0, db=db_url)
    try:
        alice = await connect(server.port, "alice", keys["alice"])
        await alice.wait_for("Seeks")
        made = await command(server.port, "alice", keys["alice"], "seek copolymer --size 5 --clock 5m+3s")
        assert made.exit_status == 0 and "waits" in made.stdout
        await alice.wait_for("#1 Copolymer")  # her lobby lists it
        listed = await command(server.port, "bob", keys["bob"], "seeks --json")
        assert json.loads(listed.stdout)[0]["by"] == "alice"
        refused = await command(server.port, "bob", keys["bob"], "seek --take 1")
        assert refused.exit_status == 2 and "waits while you have a screen open" in refused.stderr
        bob = await connect(server.port, "bob", keys["bob"])
        await bob.wait_for("#1 Copolymer")
        taken = await command(server.port, "bob", keys["bob"], "seek --take 1")
        assert taken.exit_status == 0, taken.stderr
        table_id = taken.stdout.split(":")[0]
        await alice.wait_for(f"table #{table_id}, Copolymer")  # her notice: the game is ready
        tables = await command(server.port, "alice", keys["alice"], "tables")
        assert f"{table_id}  copolymer" in tables.stdout
        await alice.close()
        await bob.close()
    finally:
        await server.close()


# -- the lobby ---------------------------------------------------------------------------------------


async def test_the_lobby_lists_seeks_a_quick_pairing_line_seeks_and_enter_on_a_seek_seats_both(
    tmp_path, new_store, monkeypatch
):
    from termgames.server.ui.app import ServeApp
    from termgames.server.ui.lobby import LobbyScreen
    from termgames.server.ui.seek_lines import QUICK
    from termgames.server.ui.shared_game import SharedGameMixin

    monkeypatch.setattr("termgames.server.hub.LOBBY_NEWS_DELAY", 0)  # the lobbies hear at once
    hub = make_hub(new_store, tmp_path)
    alice, bob = ServeApp(hub=hub, player="alice"), ServeApp(hub=hub, player="bob")

    async def settle(*pilots) -> None:
        for _ in range(3):
            for pilot in pilots:
                await pilot.pause()

    def choose(app, option_id: str, list_id: str = "#tables") -> None:
        listing = app.screen.query_one(list_id)
        listing.highlighted = next(i for i, o in enumerate(listing.options) if o.id == option_id)

    async with alice.run_test(size=(100, 40)) as pa, bob.run_test(size=(100, 40)) as pb:
        assert isinstance(alice.screen, LobbyScreen)
        await pa.press("s")  # the quick-pairing screen
        await settle(pa)
        line = QUICK.index(("copolymer", "5m+3s"))
        choose(alice, f"quick:{line}", "#quick-pairing")
        await pa.press("enter")  # seeks Copolymer 5m+3s
        await settle(pa, pb)
        assert [(s.game, s.clock, s.player) for s in hub.seeks.current()] == [("copolymer", "5m+3s", "alice")]
        assert "seeking" in str(alice.screen.query_one("#quick-pairing").get_option(f"quick:{line}").prompt)
        await pa.press("enter")  # again: cancels
        await settle(pa, pb)
        assert hub.seeks.current() == []
        await pa.press("enter")
        await settle(pa, pb)
        await pa.press("escape")
        await settle(pa, pb)
        assert isinstance(alice.screen, LobbyScreen)
        seek_id = hub.seeks.current()[0].id
        # bob's lobby lists it; Enter on it makes the table, and both are seated.
        listing = bob.screen.query_one("#tables")
        assert any(o.id == f"seek:{seek_id}" for o in listing.options)
        choose(bob, f"seek:{seek_id}")
        await pb.press("enter")
        await settle(pa, pb)
        assert isinstance(bob.screen, SharedGameMixin)
        table = bob.screen.table.live
        assert sorted(table.names) == ["alice", "bob"] and str(table.match.clock) == "5m+3s"
        assert hub.seeks.current() == []
        assert any(f"table #{table.id}" in str(toast.message) for toast in alice._notifications)  # she hears it
        # A live seek of hers waits while her screen is open, and ends when it closes (her connection drops).
        await pa.press("s")
        await settle(pa)
        choose(alice, f"quick:{QUICK.index(('monunrail', '5m+3s'))}", "#quick-pairing")
        await pa.press("enter")
        await settle(pa)
        assert [s.game for s in hub.seeks.current()] == ["monunrail"]
    alice.release_tables()
    assert hub.seeks.current() == []


def test_a_player_at_her_seek_limit_still_takes_a_seek_for_two(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, max_seeks_per_player=1)
    seek(hub, "bob", options={"size": 7}, clock=DAYS)
    offered = seek(hub, "alice", clock=DAYS).seek
    table = hub.seeks.take("bob", name_owner("bob"), offered.id).table  # takes one, adds none
    assert table is not None and sorted(table.names) == ["alice", "bob"]


def test_the_store_takes_seeks_all_or_none(tmp_path, new_store):
    from termgames.server.stores.interface import StoredSeek

    store = new_store()
    made = [
        store.add_seek(StoredSeek(0, "copolymer", {"size": 5}, 2, "3d/move", True, name, f"name:{name}", None, 20.0,
                                  False, "2026-01-01T00:00:00+00:00", "2026-01-04T00:00:00+00:00"))
        for name in ("alice", "bob", "carol")
    ]
    assert [s.player for s in store.seeks()] == ["alice", "bob", "carol"]
    assert store.seeks()[0].high == 20.0 and store.seeks()[0].low is None
    assert store.drop_seeks([made[1]]) == 1
    assert not store.take_seeks([made[0], made[1]])  # bob's is gone: alice's stays
    assert [s.player for s in store.seeks()] == ["alice", "carol"]
    assert store.take_seeks([made[0], made[2]])
    assert store.seeks() == [] and not store.take_seeks([made[0]])
