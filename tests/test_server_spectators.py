"""Spectators of one table with terminals alike are drawn once (server/drawing.py).

The groups on their own with stand-in members, then over SSH: every follower's
terminal shows exactly what its leader's shows, a key makes a follower draw
itself again, a leader who goes hands the group on, and players never group.
"""

from __future__ import annotations

import contextlib
import gc

import asyncssh
import pytest
from hubkit import until
from sshterm import command, connect
from test_server_ssh import ALICE_LAYOUT, BOB_LAYOUT, lay_out, rows_seen

from termgames.server.collector import EndedApps
from termgames.server.drawing import SpectatorGroups
from termgames.server.ssh import start_server
from termgames.server.ui.app import ServeApp


class StandIn:
    def __init__(self, name: str) -> None:
        self.name = name
        self.received: list[bytes] = []
        self.calls: list[str] = []

    def send(self, data: bytes) -> None:
        self.received.append(data)

    def following_changed(self, following: bool) -> None:
        self.calls.append("follow" if following else "draw")

    def draw_whole_screen_for(self, newcomer: StandIn) -> None:
        self.calls.append(f"whole screen for {newcomer}")

    def __repr__(self) -> str:
        return self.name


def test_the_first_leads_the_next_follow_and_a_leader_going_hands_the_group_on():
    groups = SpectatorGroups()
    a, b, c, other = StandIn("a"), StandIn("b"), StandIn("c"), StandIn("other")
    groups.join(a, (1, (100, 30)))
    assert not groups.following(a) and groups.followers(a) == [] and a.calls == []
    groups.join(b, (1, (100, 30)))
    groups.join(c, (1, (100, 30)))
    groups.join(other, (1, (80, 24)))  # another size: a group of its own
    assert groups.followers(a) == [b, c] and groups.following(b) and groups.following(c)
    assert b.calls == ["follow"] and c.calls == ["follow"]
    # Each newcomer's terminal gets the leader's whole screen, for her alone.
    assert a.calls == ["whole screen for b", "whole screen for c"]
    assert not groups.following(other) and len(groups) == 2
    assert groups.receivers(a) == [a, b, c] and groups.receivers(b) == [] and groups.receivers(other) == [other]

    groups.leave(b)  # a follower's key: it draws itself again
    assert b.calls == ["follow", "draw"] and groups.followers(a) == [c]
    groups.leave(a)  # the leader goes: the next one draws, for itself and the rest
    assert c.calls == ["follow", "draw"] and not groups.following(c) and groups.followers(c) == []
    groups.leave(c)
    groups.leave(c)  # twice is harmless
    assert len(groups) == 1 and not groups.following(a) and groups.receivers(c) == [c]


@pytest.fixture
def keys():
    names = ("alice", "bob", *(f"w{number}" for number in range(1, 10)))
    return {name: asyncssh.generate_private_key("ssh-ed25519") for name in names}


@contextlib.asynccontextmanager
async def mono_table_watched(tmp_path, keys, widths: dict[str, int]):
    """A server, alice and bob seated at a new Mono table, and a spectator per name in ``widths`` (its columns)."""
    server = await start_server(tmp_path, "127.0.0.1", 0)
    port = server.port
    terminals = []
    try:
        made = await command(port, "alice", keys["alice"], "challenge mono --size 5 --no-auto bob")
        assert made.exit_status == 0, made.stderr
        alice = await connect(port, "alice", keys["alice"])
        bob = await connect(port, "bob", keys["bob"])
        terminals += [alice, bob]
        await alice.wait_for("your move")
        await alice.press("enter")
        await bob.wait_for("#1 Mono")
        await bob.press("enter")
        await bob.wait_for("alice to lay out")
        for name, width in widths.items():
            watcher = await connect(port, name, keys[name], width=width)
            terminals.append(watcher)
            await watcher.wait_for("Being played")
            await watcher.press("w")
            await watcher.wait_for("you are watching")
        groups = server.spectator_groups

        def grouped() -> bool:
            """Each spectator is in its group (it joins once its screen is drawn): a group a width."""
            sessions = {session.player: session for session in server.sessions}
            alike = [[name for name in widths if widths[name] == width] for width in set(widths.values())]
            return len(groups) == len(alike) and all(
                any(len(groups.followers(sessions[name])) == len(names) - 1 for name in names) for names in alike
            )

        await until(grouped)
        sessions = {session.player: session for session in server.sessions}
        yield server.spectator_groups, sessions, terminals
    finally:
        for terminal in terminals:
            if not terminal.closed:
                await terminal.close()
        await server.close()


async def test_spectators_alike_see_the_leaders_frames_and_a_key_makes_one_draw_itself(tmp_path, keys):
    widths = {"w1": 100, "w2": 100, "w3": 100, "w4": 90}
    async with mono_table_watched(tmp_path, keys, widths) as (groups, sessions, terminals):
        alice, bob, *watchers = terminals
        w1, w2, w3, w4 = watchers
        assert groups.followers(sessions["w1"]) == [sessions["w2"], sessions["w3"]]
        assert not groups.following(sessions["w4"]) and groups.followers(sessions["w4"]) == []
        # Players never group: their views are their own.
        assert not groups.following(sessions["alice"]) and not groups.followers(sessions["alice"])

        await alice.press("R", "enter")  # a random layout, confirmed
        for terminal in (bob, *watchers):
            await terminal.wait_for("bob to lay out")
        await until(lambda: w2.text() == w1.text() and w3.text() == w1.text())
        assert "1. alice layout" in w4.text()  # drawn by its own app

        # w2 presses a key: its own app draws its whole screen, and every move from then on.
        await w2.press("escape")  # (closes the chat line, which is not open: nothing to see)
        await until(lambda: not groups.following(sessions["w2"]))
        assert groups.followers(sessions["w1"]) == [sessions["w3"]]
        await until(lambda: "bob to lay out" in w2.text())  # drawn by its app, built again for her key
        # The leader leaves the table: w3 draws from now on.
        await w1.press("q")
        await w1.wait_for("Leave the table?")
        await w1.press("y")
        await w1.wait_for("Being played")
        assert not groups.following(sessions["w3"])

        await bob.press("R", "enter")
        for terminal in (alice, w2, w3, w4):
            await terminal.wait_for("round 1: alice to probe")
        # Drawn by two apps, alike: neither lost a line while following (w3's built again as it came to lead).
        await until(lambda: w3.text() == w2.text() and "2. bob layout" in w3.text())


async def test_a_leader_gone_or_a_follower_resized_each_draws_on_its_own(tmp_path, keys):
    async with mono_table_watched(tmp_path, keys, {"w1": 100, "w2": 100, "w3": 100}) as (groups, sessions, terminals):
        alice, bob, w1, w2, w3 = terminals
        assert groups.followers(sessions["w1"]) == [sessions["w2"], sessions["w3"]]

        # The leader's connection drops: w2 draws, for itself and w3.
        await w1.close()
        await until(lambda: groups.followers(sessions["w2"]) == [sessions["w3"]])
        await alice.press("R", "enter")
        for terminal in (w2, w3):
            await terminal.wait_for("bob to lay out")
        await until(lambda: w3.text() == w2.text())

        # w3's terminal grows: it draws its own screen, at its new size.
        w3.screen.resize(32, 110)  # the emulated terminal too
        w3.process.change_terminal_size(110, 32)
        await until(lambda: not groups.following(sessions["w3"]))
        assert groups.followers(sessions["w2"]) == []
        await bob.press("R", "enter")
        await w2.wait_for("round 1: alice to probe")
        await w3.wait_for("round 1: alice to probe")
        await w3.wait_for("2. bob layout")  # (her app was built again for the resize: its panel a frame later)


def test_an_ended_apps_driver_lets_textuals_method_caches_go():
    """Textual's key parser caches parses per parser (each holds its app through its last key), and its styles
    cache two styles per widget's line cache (each holds the widget's last lines): an ended app's driver empties
    both, so that closed channels' and torn-down followers' apps are freed (issue 37)."""
    from textual._styles_cache import StylesCache
    from textual._xterm_parser import XTermParser
    from textual.color import Color

    from termgames.server.ui.driver import forget_ended_apps

    parser = XTermParser(debug=False)
    list(parser.feed("\x1b[1;5A"))  # ctrl+up: an extended key, parsed through the cache
    assert XTermParser._parse_extended_key.cache_info().currsize > 0
    StylesCache().get_inner_outer(Color(1, 2, 3), Color(4, 5, 6))
    assert StylesCache.get_inner_outer.cache_info().currsize > 0
    forget_ended_apps()
    assert XTermParser._parse_extended_key.cache_info().currsize == 0
    assert StylesCache.get_inner_outer.cache_info().currsize == 0


async def test_a_followers_app_is_torn_down_and_built_again_by_her_key(tmp_path, keys):
    async with mono_table_watched(tmp_path, keys, {"w1": 100, "w2": 100, "w3": 100}) as (groups, sessions, terminals):
        alice, _bob, w1, w2, w3 = terminals
        assert groups.followers(sessions["w1"]) == [sessions["w2"], sessions["w3"]]
        # Following, a spectator holds no app: only her place at the table, a spectator still.
        await until(lambda: sessions["w2"].app is None and sessions["w3"].app is None)
        assert sessions["w1"].app is not None
        table = server_table(sessions)
        assert sorted(table.spectators()) == ["w1", "w2", "w3"]
        # And its memory is free: nothing holds the app that went (Textual's key parser's cache did, and the last
        # message the others' apps handled, made in its context), nor its widgets' lines (Textual's styles cache).
        assert await apps_left_once_collected() == ["alice", "bob", "w1"]
        assert lines_kept_without_a_widget() == 0

        await alice.press("R", "enter")
        for terminal in (w1, w2, w3):
            await terminal.wait_for("bob to lay out")
        await until(lambda: w2.text() == w1.text() and w3.text() == w1.text())

        # Her key builds her app again, at the table, and reaches it: q asks whether she leaves.
        await w2.press("q")
        await w2.wait_for("Leave the table?")
        assert sessions["w2"].app is not None and not groups.following(sessions["w2"])
        assert groups.followers(sessions["w1"]) == [sessions["w3"]] and sessions["w3"].app is None
        assert sorted(table.spectators()) == ["w1", "w2", "w3"]  # nobody came or went meanwhile
        await w2.press("n")
        await until(lambda: "Leave the table?" not in w2.text())
        assert "bob to lay out" in w2.text() and "you are watching" in w2.text()
        assert not groups.following(sessions["w2"])  # her screen stays her own, as after any key of hers

        # The leader goes: the next one's app is built again and draws for the rest.
        await w1.close()
        await until(lambda: sessions["w3"].app is not None and sorted(table.spectators()) == ["w2", "w3"])
        assert groups.followers(sessions["w3"]) == []
        await until(lambda: "bob to lay out" in w3.text() and "you are watching" in w3.text())


def server_table(sessions):
    return next(iter(sessions.values())).service.hub.table(1)


async def apps_left_once_collected() -> list[str]:
    """Whose apps are in memory after a full collection, once the ones that went have finished closing."""
    players: list[str] = []

    def few() -> bool:
        gc.collect()
        players[:] = sorted(o.player for o in gc.get_objects() if isinstance(o, ServeApp))
        return len(players) <= 3

    with contextlib.suppress(AssertionError):  # an app's last messages may still be on their way
        await until(few, timeout=5.0)
    return players


def lines_kept_without_a_widget() -> int:
    """Widgets' line caches in memory whose widget is gone (each holds the widget's last lines)."""
    from textual._styles_cache import StylesCache
    from textual.widget import Widget

    gc.collect()
    objects = gc.get_objects()
    owned = {id(o._styles_cache) for o in objects if isinstance(o, Widget)}
    return sum(1 for o in objects if isinstance(o, StylesCache) and id(o) not in owned)


async def test_a_leader_gone_wakes_the_next_alone_and_the_rest_sleep_on(tmp_path, keys):
    widths = {"w1": 100, "w2": 100, "w3": 100, "w4": 100}
    async with mono_table_watched(tmp_path, keys, widths) as (groups, sessions, terminals):
        alice, _bob, w1, w2, w3, w4 = terminals
        assert groups.followers(sessions["w1"]) == [sessions["w2"], sessions["w3"], sessions["w4"]]
        await until(lambda: all(sessions[name].app is None for name in ("w2", "w3", "w4")))
        await w1.close()
        # Its new app has the look it had: it leads the same group, and nobody else is woken.
        await until(lambda: sessions["w2"].app is not None and "you are watching" in w2.text())
        assert groups.followers(sessions["w2"]) == [sessions["w3"], sessions["w4"]]
        assert sessions["w3"].app is None and sessions["w4"].app is None
        await alice.press("R", "enter")
        for terminal in (w2, w3, w4):
            await terminal.wait_for("bob to lay out")
        await until(lambda: w3.text() == w2.text() and w4.text() == w2.text())


async def test_a_notice_wakes_a_follower_and_reaches_her_alone(tmp_path, keys):
    async with mono_table_watched(tmp_path, keys, {"w1": 100, "w2": 100}) as (groups, sessions, terminals):
        _alice, _bob, w1, w2 = terminals
        await until(lambda: sessions["w2"].app is None)
        port = sessions["w1"].service.port
        made = await command(port, "alice", keys["alice"], "challenge mono --size 5 w2")
        assert made.exit_status == 0, made.stderr
        await w2.wait_for("Challenged")
        assert sessions["w2"].app is not None and not groups.following(sessions["w2"])
        assert "alice  vs  bob" in w2.text()  # at the table she watched, her own app drawing it
        assert "Challenged" not in w1.text()


async def test_a_follower_torn_down_is_still_here_her_live_seek_waits(tmp_path, keys):
    async with mono_table_watched(tmp_path, keys, {"w1": 100, "w2": 100}) as (groups, sessions, terminals):
        _alice, _bob, _w1, w2 = terminals
        hub = sessions["w1"].service.hub
        await w2.press("q")  # her key wakes her app: she leaves the table, seeks a game, and watches again
        await w2.wait_for("Leave the table?")
        await w2.press("y")
        await w2.wait_for("Being played")
        made = await command(sessions["w1"].service.port, "w2", keys["w2"], "seek copolymer --clock 5m+3s")
        assert made.exit_status == 0, made.stderr
        await w2.press("w")
        await until(lambda: groups.following(sessions["w2"]) and sessions["w2"].app is None)
        # Her app went, not she: her notices still reach her session, and her live seek waits on.
        assert hub.notices.is_connected("w2")
        assert [seek.player for seek in hub.seeks.current()] == ["w2"]


def cells(terminal) -> list[list[tuple]]:
    """Her screen as her terminal shows it (pyte's): each cell's character, colours and attributes."""
    screen = terminal.screen
    return [
        [(c.data, c.fg, c.bg, c.bold, c.italics, c.underscore, c.reverse) for c in map(screen.buffer[y].__getitem__,
                                                                                    range(screen.columns))]
        for y in range(screen.lines)
    ]


async def test_a_followers_screen_is_the_one_her_own_app_draws_at_several_sizes(tmp_path, keys):
    """Drawn once for a group, a spectator's screen is exactly the one her own app draws at her size: a
    follower (the leader's bytes) beside one whose app was built again by her key (its own bytes)."""
    widths = {"w1": 80, "w2": 80, "w3": 80, "w4": 100, "w5": 100, "w6": 100, "w7": 130, "w8": 130, "w9": 130}
    async with mono_table_watched(tmp_path, keys, widths) as (groups, sessions, terminals):
        alice, bob, *watchers = terminals
        by_name = dict(zip(widths, watchers, strict=True))
        trios = [("w1", "w2", "w3"), ("w4", "w5", "w6"), ("w7", "w8", "w9")]  # a leader, a follower, her own
        await until(lambda: all(sessions[follower].app is None for _, follower, _ in trios))
        for _leader, _follower, own in trios:
            await by_name[own].press("escape")  # (closes the chat line, which is not open: nothing to see)
        await until(lambda: all(not groups.following(sessions[own]) for _, _, own in trios))
        await lay_out(alice, ALICE_LAYOUT)  # a move: every screen redraws
        for terminal in (bob, *watchers):
            await terminal.wait_for("bob to lay out")
        for leader, follower, own in trios:
            assert groups.followers(sessions[leader]) == [sessions[follower]]
            assert sessions[follower].app is None and sessions[own].app is not None
            trio = [by_name[follower], by_name[own], by_name[leader]]
            await until(lambda trio=trio: cells(trio[0]) == cells(trio[1]) == cells(trio[2]))
            assert "1. alice layout" in by_name[own].text()


async def test_no_seats_board_ever_reaches_a_spectator_group(tmp_path, keys):
    """Hidden information: at a Mono table whose boards are hidden, a seat's player is never in a spectator
    group (her screen shows her board), and no spectator's terminal, following or drawing, ever gets a row of
    either seat's board."""
    widths = {"w1": 100, "w2": 100, "w3": 90, "w4": 90}  # alice and bob have 100 columns too
    async with mono_table_watched(tmp_path, keys, widths) as (groups, sessions, terminals):
        alice, bob, *watchers = terminals
        w1, w2, _w3, w4 = watchers
        assert groups.followers(sessions["w1"]) == [sessions["w2"]] and groups.followers(sessions["w3"]) == [
            sessions["w4"]
        ]
        await lay_out(alice, ALICE_LAYOUT)
        for terminal in (bob, *watchers):
            await terminal.wait_for("bob to lay out")
        await w4.press("escape")  # one draws herself from here (her app built again): her own frames
        await until(lambda: not groups.following(sessions["w4"]))
        await lay_out(bob, BOB_LAYOUT)
        for terminal in (alice, *watchers):
            await terminal.wait_for("round 1: alice to probe")
        await alice.press("tab", "enter")  # a probe of bob's board: one cell of it is public now
        await alice.wait_for("alice probed")
        await alice.press("e")
        for terminal in (bob, *watchers):
            await terminal.wait_for("round 1: bob to probe")
        await until(lambda: w2.text() == w1.text())

        for player in ("alice", "bob"):
            session = sessions[player]
            assert groups.look_of(session) is None and not groups.following(session) and not groups.followers(session)
        # Positive controls: each player's channel carried her own board, row by row.
        assert rows_seen(alice, ALICE_LAYOUT) == {0, 1, 2} and rows_seen(bob, BOB_LAYOUT) == {0, 1, 2}
        for terminal in watchers:  # the leaders' frames, the followers' (the leaders' bytes), her own
            assert rows_seen(terminal, ALICE_LAYOUT) == set() and rows_seen(terminal, BOB_LAYOUT) == set()


def test_ended_apps_make_a_full_collection_once_as_many_have_ended_as_run():
    """Torn-down followers' apps are cyclic garbage, freed only by a full collection, which the server makes
    rare: one comes once as many apps have ended since the last as are running (at least ``least``)."""
    collections: list[int] = []
    apps = EndedApps(collect=lambda: collections.append(apps.running), least=3)
    for _ in range(8):
        apps.started()
    for _ in range(4):
        apps.ended_one()
    assert collections == []  # no server's policy on: Python's own
    apps.servers = 1
    apps.ended_one()  # 5 ended, 3 running
    assert collections == [3]
    for _ in range(3):
        apps.ended_one()  # 2, 3, then 4 ended (the 5th was still closing at the last collection): at least 3
    assert collections == [3, 0]
