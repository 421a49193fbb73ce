"""``ssh -t HOST watch TABLE``: a table's screen straight from sign-in, and a newcomer's first frame (issue 37).

A spectator who finds the spectators of her look drawn already follows them with no app ever built; one who
finds none leads a new group; a player with a seat there gets her seat's screen, never a group's; a table that
is not there (or not in play) is one line and a non-zero status.  When anyone joins a group, the leader's whole
screen goes to her terminal alone, and every member's terminal stays the leader's.
"""

from __future__ import annotations

import asyncio
import random

import asyncssh
import pytest
from hubkit import until
from sshterm import Terminal, command
from test_server_spectators import cells, mono_table_watched
from test_server_ssh import ALICE_LAYOUT, BOB_LAYOUT, lay_out, rows_seen

from termgames.match import Seat
from termgames.server.ui.app import ServeApp


async def watch(port: int, name: str, key: asyncssh.SSHKey, line: str = "watch 1", width: int = 100) -> Terminal:
    """Sign in as ``name`` with a terminal (``ssh -t``) and run ``line``."""
    conn = await asyncssh.connect("127.0.0.1", port, username=name, client_keys=[key], known_hosts=None)
    process = await conn.create_process(line, term_type="xterm-256color", term_size=(width, 32), encoding=None)
    return Terminal(conn, process, width, 32)


@pytest.fixture
def keys():
    names = ("alice", "bob", *(f"w{number}" for number in range(1, 6)))
    return {name: asyncssh.generate_private_key("ssh-ed25519") for name in names}


@pytest.fixture
def apps_built(monkeypatch) -> list[str]:
    """The players whose apps are built from here on, in order."""
    built: list[str] = []
    init = ServeApp.__init__

    def counted(self, **settings) -> None:
        built.append(settings["player"])
        init(self, **settings)

    monkeypatch.setattr(ServeApp, "__init__", counted)
    return built


def finished_table(hub):
    table = hub.create_table("copolymer", {"size": 3}, [Seat(name="alice"), Seat(name="bob")], "alice", seed=1)
    rng = random.Random(1)
    while not table.over:
        seat = table.match.view(None).to_move[0]
        table.play(seat, table.match.state.random_move(seat, rng))
    return table


def sessions_of(server) -> dict:
    return {session.player: session for session in server.sessions}


async def test_watch_joins_the_group_of_her_look_without_an_app_and_a_key_wakes_her(tmp_path, keys, apps_built):
    async with mono_table_watched(tmp_path, keys, {"w1": 100, "w2": 100}) as (groups, sessions, terminals):
        _alice, _bob, w1, _w2 = terminals
        server = sessions["w1"].service
        built_before = len(apps_built)
        w3 = await watch(server.port, "w3", keys["w3"])
        terminals.append(w3)
        await w3.wait_for("you are watching")
        session = sessions_of(server)["w3"]
        assert session.app is None and groups.followers(sessions["w1"]) == [sessions["w2"], session]
        assert apps_built[built_before:] == []  # no app of hers, ever
        assert "alice  vs  bob" in w3.text()
        assert "w3" in server.hub.table(1).spectators()  # her place at the table, as the lobby's w gives
        await until(lambda: cells(w3) == cells(w1))

        # Her key builds her app at the table and reaches it: q asks whether she leaves; leaving is the lobby.
        await w3.press("q")
        await w3.wait_for("Leave the table?")
        assert apps_built[built_before:] == ["w3"] and session.app is not None
        assert not groups.following(session) and groups.followers(sessions["w1"]) == [sessions["w2"]]
        await w3.press("y")
        await w3.wait_for("Being played")
        assert "w3" not in server.hub.table(1).spectators()


async def test_watch_with_no_group_of_her_look_leads_one_that_the_next_follows(tmp_path, keys, apps_built):
    async with mono_table_watched(tmp_path, keys, {}) as (groups, sessions, terminals):
        alice, bob, *_ = terminals
        server = sessions["alice"].service
        w1 = await watch(server.port, "w1", keys["w1"])
        terminals.append(w1)
        await w1.wait_for("you are watching")
        leader = sessions_of(server)["w1"]
        assert apps_built[-1] == "w1" and leader.app is not None
        assert groups.look_of(leader) is not None and not groups.following(leader)

        w2 = await watch(server.port, "w2", keys["w2"])
        terminals.append(w2)
        await w2.wait_for("you are watching")
        follower = sessions_of(server)["w2"]
        assert groups.followers(leader) == [follower] and follower.app is None and "w2" not in apps_built
        await lay_out(alice, ALICE_LAYOUT)
        for terminal in (bob, w1, w2):
            await terminal.wait_for("bob to lay out")
        await until(lambda: cells(w2) == cells(w1))

        # The leader goes: she draws, her app built at the table.
        await w1.close()
        await until(lambda: follower.app is not None and not groups.following(follower))
        await until(lambda: "bob to lay out" in w2.text() and "you are watching" in w2.text())


async def test_a_seated_players_watch_is_her_seat_never_a_group(tmp_path, keys):
    async with mono_table_watched(tmp_path, keys, {"w1": 100}) as (groups, sessions, terminals):
        alice, _bob, _w1 = terminals
        server = sessions["w1"].service
        await lay_out(alice, ALICE_LAYOUT)
        await alice.wait_for("bob to lay out")
        await alice.close()
        again = await watch(server.port, "alice", keys["alice"])  # her seat, 100 columns as w1's group
        terminals.append(again)
        await again.wait_for("bob to lay out")
        session = sessions_of(server)["alice"]
        assert session.app is not None and groups.look_of(session) is None and not groups.following(session)
        assert "you are watching" not in again.text()
        assert rows_seen(again, ALICE_LAYOUT) == {0, 1, 2}  # her own board: her seat's view
        assert rows_seen(terminals[2], ALICE_LAYOUT) == set()


async def test_watch_a_table_not_in_play_or_without_a_terminal_is_one_line_and_a_status(tmp_path, keys):
    async with mono_table_watched(tmp_path, keys, {}) as (groups, sessions, terminals):
        server = sessions["alice"].service
        for line, said in (("watch 99", "there is no table 99"), ("watch", "name one table"),
                           ("watch 1 2", "name one table")):
            w1 = await watch(server.port, "w1", keys["w1"], line)
            terminals.append(w1)
            finished = await w1.process.wait(check=False)
            assert finished.exit_status == 2, line
            assert said in finished.stderr.decode() and finished.stderr.decode().count("\n") == 1, finished.stderr
            assert len(groups) == 0 and "w1" not in sessions_of(server)
        # Without a terminal: how to ask for one.
        plain = await command(server.port, "w1", keys["w1"], "watch 1")
        assert plain.exit_status == 2 and plain.stderr.count("\n") == 1
        assert "watch needs a terminal: ssh -t" in plain.stderr and "watch TABLE" in plain.stderr
        # A finished table: where its record is.
        done = finished_table(server.hub)
        w1 = await watch(server.port, "w1", keys["w1"], f"watch {done.id}")
        terminals.append(w1)
        finished = await w1.process.wait(check=False)
        assert finished.exit_status == 2 and finished.stderr.decode().count("\n") == 1
        said = finished.stderr.decode()
        assert f"table {done.id} is over" in said and f"record {done.id}" in said


async def test_a_newcomers_first_frame_goes_to_her_alone_and_every_terminal_stays_the_leaders(tmp_path, keys):
    async with mono_table_watched(tmp_path, keys, {"w1": 100, "w2": 100}) as (groups, sessions, terminals):
        alice, bob, w1, w2 = terminals
        server = sessions["w1"].service
        await until(lambda: cells(w2) == cells(w1))
        newcomers = []
        for name in ("w3", "w4", "w5"):
            members = [w1, w2, *newcomers]
            before = [len(terminal.raw) for terminal in members]
            newcomer = await watch(server.port, name, keys[name])
            terminals.append(newcomer)
            newcomers.append(newcomer)
            await until(lambda newcomer=newcomer: cells(newcomer) == cells(w1))
            assert groups.following(sessions_of(server)[name])
            # The whole screen (its title row among the rest) reached her; the others only had the lines that
            # changed (her arrival on the presence line), not the frame she got.
            assert b"vs  bob" in newcomer.raw
            for terminal, had in zip(members, before, strict=True):
                assert b"vs  bob" not in terminal.raw[had:]
        await until(lambda: all(cells(terminal) == cells(w1) for terminal in (w2, *newcomers)))
        await lay_out(alice, ALICE_LAYOUT)
        await lay_out(bob, BOB_LAYOUT)
        for terminal in (w1, w2, *newcomers):
            await terminal.wait_for("round 1: alice to probe")
        await until(lambda: all(cells(terminal) == cells(w1) for terminal in (w2, *newcomers)))


async def test_a_crowd_arriving_at_once_builds_one_app_a_group(tmp_path, keys, apps_built):
    """The first of a look leads its group from the moment she arrives, before her app is built: the others,
    arriving meanwhile, follow it with no app of their own, and see what it draws from its first frame."""
    async with mono_table_watched(tmp_path, keys, {}) as (groups, sessions, terminals):
        server = sessions["alice"].service
        names = ("w1", "w2", "w3", "w4")
        crowd = await asyncio.gather(*(watch(server.port, name, keys[name]) for name in names))
        terminals.extend(crowd)
        for terminal in crowd:
            await terminal.wait_for("you are watching")
        built = [name for name in apps_built if name in names]
        assert len(built) == 1, built
        leader = sessions_of(server)[built[0]]
        assert len(groups) == 1 and len(groups.followers(leader)) == 3
        await until(lambda: all(cells(terminal) == cells(crowd[0]) for terminal in crowd))


async def test_a_notice_or_a_resize_wakes_a_follower_from_sign_in_at_the_table(tmp_path, keys):
    async with mono_table_watched(tmp_path, keys, {"w1": 100}) as (groups, sessions, terminals):
        (_alice, _bob, w1) = terminals
        server = sessions["w1"].service
        w2 = await watch(server.port, "w2", keys["w2"])
        w3 = await watch(server.port, "w3", keys["w3"])
        terminals += [w2, w3]
        for terminal in (w2, w3):
            await terminal.wait_for("you are watching")
        follower, other = sessions_of(server)["w2"], sessions_of(server)["w3"]
        assert follower.app is None and other.app is None

        made = await command(server.port, "alice", keys["alice"], "challenge mono --size 5 w2")
        assert made.exit_status == 0, made.stderr
        await w2.wait_for("Challenged")  # her own app, built at the table, shows her notice
        assert follower.app is not None and not groups.following(follower) and "alice  vs  bob" in w2.text()
        assert "Challenged" not in w1.text() and "Challenged" not in w3.text()

        w3.screen.resize(32, 110)  # her terminal grows: her own app draws it, at her new size
        w3.process.change_terminal_size(110, 32)
        await until(lambda: other.app is not None and not groups.following(other))
        await until(lambda: "you are watching" in w3.text() and other.size == (110, 32))


async def test_the_lobbys_watch_of_a_table_drawn_for_her_look_follows_at_once_without_its_screen(
    tmp_path, keys, apps_built, monkeypatch
):
    from sshterm import connect

    shown: list[str] = []  # whose apps built a table's screen, in order
    show = ServeApp._show_table

    def counted(self, shared) -> None:
        shown.append(self.player)
        show(self, shared)

    monkeypatch.setattr(ServeApp, "_show_table", counted)
    async with mono_table_watched(tmp_path, keys, {"w1": 100, "w2": 100}) as (groups, sessions, terminals):
        _alice, _bob, w1, _w2 = terminals
        server = sessions["w1"].service
        w3 = await connect(server.port, "w3", keys["w3"], width=100)
        terminals.append(w3)
        await w3.wait_for("Being played")
        assert apps_built[-1] == "w3"
        session = sessions_of(server)["w3"]
        lobby_app = session.app
        await w3.press("w")
        await w3.wait_for("you are watching")
        await until(lambda: session.app is None)  # her lobby's app went
        assert "w3" not in shown  # no table screen built in it
        assert groups.followers(sessions["w1"]) == [sessions["w2"], session]
        assert "w3" in server.hub.table(1).spectators()
        await until(lambda: cells(w3) == cells(w1))

        # As any follower: her key builds her app at the table.
        await w3.press("q")
        await w3.wait_for("Leave the table?")
        assert apps_built[-1] == "w3" and session.app is not None and session.app is not lobby_app
        assert shown[-1] == "w3"  # her new app's, at the table
        await w3.press("n")
        await w3.wait_for("you are watching")
