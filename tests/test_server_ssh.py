"""``termgames serve`` end to end: real SSH clients (asyncssh, in process) on loopback.

The heart is the hidden-information test: two players lay out known Mono
boards through their own screens, a guest watches, and everything written to
each channel is scanned for the rows of the boards that channel may not see.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import asyncssh
import pytest
from hubkit import until
from sshterm import command, connect, input_counter, until_received

from termgames.server.input_budget import MAX_SIZE
from termgames.server.ssh import HOST_KEY_NAME, start_server

# 5 regions: a 3x5 board, reading order (top row first).  No row of one is a row of the other.
ALICE_LAYOUT = "355553354412244"
BOB_LAYOUT = "555554444312233"
WIDTH = 5

ANSI = re.compile(rb"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07]*\x07|[()][0-9A-Za-z]|[=>78DEHM])")


def board_rows(layout: str) -> list[re.Pattern[str]]:
    """A pattern per board row as a screen draws it: row number, the values, row number, with spacing between.

    The row numbers are part of the pattern so that a row of one board can never
    be read into a row number next to another board's values.
    """
    rows = [layout[i : i + WIDTH] for i in range(0, len(layout), WIDTH)]
    height = len(rows)
    patterns = []
    for index, row in enumerate(rows):
        number = str(height - index)
        cells = number + row + number
        patterns.append(re.compile(r"(?<![0-9A-Za-z])" + r"[^0-9A-Za-z\n]{1,6}".join(cells) + r"(?![0-9A-Za-z])"))
    return patterns


def rows_seen(terminal, layout: str) -> set[int]:
    """Rows of ``layout`` found anywhere in what the channel received: every screen, and the raw bytes."""
    text = ANSI.sub(b" ", bytes(terminal.raw)).decode("utf-8", "replace")
    found = set()
    for index, pattern in enumerate(board_rows(layout)):
        if pattern.search(text) or any(pattern.search(frame) for frame in terminal.frames):
            found.add(index)
    return found


@pytest.fixture
def keys():
    return {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("alice", "bob", "mallory")}


async def lay_out(terminal, layout: str) -> None:
    # To the top-left cell, then one digit per cell in reading order.
    await terminal.press("up", "up", "left", "left", "left", "left", *layout, "enter")


async def test_mono_over_ssh_each_channel_carries_only_its_own_board(tmp_path, keys, db_url):
    server = await start_server(tmp_path, "127.0.0.1", 0, db=db_url)
    port = server.port
    clients = []
    try:
        made = await command(port, "alice", keys["alice"], "challenge mono --size 5 --no-auto bob")
        assert made.exit_status == 0, made.stderr
        alice = await connect(port, "alice", keys["alice"])
        bob = await connect(port, "bob", keys["bob"])
        guest = await connect(port, "zed", None)
        clients = [alice, bob, guest]
        await alice.wait_for("your move")
        await guest.wait_for("signed in as guest-zed-")
        await alice.press("enter")
        await bob.wait_for("#1 Mono")
        await bob.press("enter")
        await guest.wait_for("Being played")
        await guest.press("enter")  # the only table in progress: watch it
        await guest.wait_for("you are watching")
        await alice.wait_for("alice to lay out")

        await lay_out(alice, ALICE_LAYOUT)
        await bob.wait_for("bob to lay out")  # alice's move reached bob's screen
        await guest.wait_for("bob to lay out")
        await lay_out(bob, BOB_LAYOUT)
        await alice.wait_for("round 1: alice to probe")
        await alice.press("tab", "enter")  # probe the cursor's cell on bob's board
        await alice.wait_for("alice probed")
        await alice.press("e")
        await bob.wait_for("round 1: bob to probe")
        await bob.press("tab", "enter")
        await bob.wait_for("bob probed")
        await bob.press("e")
        await alice.wait_for("round 2: alice to probe")
        await guest.wait_for("round 2: alice to probe")

        # Chat reaches the other screens.
        # Type only once the chat line is open: on a loaded machine a letter sent sooner reaches the board.
        await alice.press("t")
        await alice.wait_for("say something")
        await alice.press(*"good luck", "enter")
        await bob.wait_for("alice: good luck")
        await guest.wait_for("alice: good luck")
        # A lone Escape reaches the app (the key parser is ticked): it closes and clears the chat line.
        await bob.press("t")
        await bob.wait_for("say something")
        await bob.press("x", "escape")
        bob_app = next(session.app for session in server.sessions if session.player == "bob")
        await until(lambda: not bob_app.screen.query_one("#chat-input").has_class("open"))  # the Escape read alone
        await bob.press("t")
        await bob.wait_for("say something")
        await bob.press("y", "enter")
        await alice.wait_for("bob: y")
        assert "bob: xy" not in alice.text()

        # Positive controls: each player's channel carries their own board, row by row.
        assert rows_seen(alice, ALICE_LAYOUT) == {0, 1, 2}
        assert rows_seen(bob, BOB_LAYOUT) == {0, 1, 2}
        # No row of another seat's hidden board ever went down a channel; the spectator saw neither.
        assert rows_seen(alice, BOB_LAYOUT) == set()
        assert rows_seen(bob, ALICE_LAYOUT) == set()
        assert rows_seen(guest, ALICE_LAYOUT) == set() and rows_seen(guest, BOB_LAYOUT) == set()
        # Nor the layout strings themselves (the move log redacts them).
        assert BOB_LAYOUT.encode() not in alice.raw and ALICE_LAYOUT.encode() not in bob.raw
        assert ALICE_LAYOUT.encode() not in guest.raw and BOB_LAYOUT.encode() not in guest.raw
    finally:
        for client in clients:
            await client.close()
        await server.close()


async def test_drop_reconnect_restart_and_a_correspondence_move(tmp_path, keys, db_url):
    server = await start_server(tmp_path, "127.0.0.1", 0, db=db_url)
    clients = []
    try:
        await command(server.port, "alice", keys["alice"], "challenge copolymer --size 5 bob")
        alice = await connect(server.port, "alice", keys["alice"])
        bob = await connect(server.port, "bob", keys["bob"])
        clients = [alice, bob]
        await alice.wait_for("your move")
        await alice.press("enter")
        await bob.wait_for("#1 Copolymer")
        await bob.press("enter")
        await alice.wait_for("● bob")
        await alice.press("enter")  # claim the cursor's cell
        await bob.wait_for("bob to claim")

        # Garbage and a connection lost mid-frame hurt nobody else.
        # (No letters: those are keys, and q then y would really leave the table.)
        garbage = bytes(range(0x80, 0x100)) + b"\x00\x01\x1b[999;999R\x1b[<0;1;1M\x1b[\x1bO\xc3\x28"
        counted = input_counter(server, "bob")
        bob.process.stdin.write(garbage)
        await until_received(counted, len(garbage))
        await bob.close()
        await alice.wait_for("○ bob away")

        bob = await connect(server.port, "bob", keys["bob"])
        clients.append(bob)
        await bob.wait_for("bob to claim")  # straight back to the seat he dropped from
        await alice.wait_for("● bob")

        # A correspondence move from bob's key shows up at once on alice's live screen.
        cells_before = alice.text().count("●")
        moved = await command(server.port, "bob", keys["bob"], "move 1 E5")
        assert moved.exit_status == 0, moved.stderr
        await alice.wait_for("alice to claim")
        assert "bob claimed E5" in alice.text() or alice.text().count("●") >= cells_before
        illegal = await command(server.port, "bob", keys["bob"], "move 1 E5")
        assert illegal.exit_status == 2 and illegal.stderr.count("\n") == 1 and illegal.stdout == ""

        for client in clients:
            await client.close()
        clients = []
        await server.close()

        # The server restarts on the same folder: same host key, same tables, same moves.
        key_before = (tmp_path / HOST_KEY_NAME).read_bytes()
        server = await start_server(tmp_path, "127.0.0.1", 0, db=db_url)
        assert (tmp_path / HOST_KEY_NAME).read_bytes() == key_before
        assert oct((tmp_path / HOST_KEY_NAME).stat().st_mode & 0o777) == "0o600"
        alice = await connect(server.port, "alice", keys["alice"])
        clients = [alice]
        # She was at the table when the server stopped: she is back at it, not in the lobby.
        await alice.wait_for("alice (you)")
        await alice.wait_for("alice to claim")
        assert "your move" not in alice.text()
        shown = await command(server.port, "alice", keys["alice"], "show 1 --json")
        assert '"moves": ["' in shown.stdout and "E5" in shown.stdout
    finally:
        for client in clients:
            await client.close()
        await server.close()


async def test_identity_guests_and_what_the_server_refuses(tmp_path, keys, db_url):
    server = await start_server(tmp_path, "127.0.0.1", 0, db=db_url)
    port = server.port
    try:
        assert (await command(port, "alice", keys["alice"], "tables")).exit_status == 0
        # Another key under alice's name is not alice: with no key it would be a guest, with only a key it is refused.
        with pytest.raises(asyncssh.PermissionDenied):
            async with asyncssh.connect(
                "127.0.0.1", port, username="alice", client_keys=[keys["mallory"]], known_hosts=None,
                preferred_auth="publickey",
            ):
                pass
        guest = await connect(port, "alice", None)
        await guest.wait_for("signed in as guest-alice-")
        await guest.close()

        async with asyncssh.connect(
            "127.0.0.1", port, username="alice", client_keys=[keys["alice"]], known_hosts=None
        ) as conn:
            with pytest.raises((asyncssh.Error, OSError)):
                async with conn.start_sftp_client():
                    pass
            with pytest.raises((asyncssh.Error, OSError)):
                await conn.forward_local_port("127.0.0.1", 0, "127.0.0.1", port)
                await conn.create_connection(asyncssh.SSHTCPSession, "127.0.0.1", port)
            other = await conn.run("cat /etc/passwd", check=False)
            assert other.exit_status == 2 and other.stderr.startswith("termgames: unknown command 'cat'")
            no_pty = await conn.run(check=False)  # a shell without a terminal
            assert no_pty.exit_status == 1 and "needs a terminal" in no_pty.stdout

        # Two moves for the same turn at the same moment: exactly one is accepted.
        await command(port, "alice", keys["alice"], "challenge mono --size 3 bob")
        first, second = await asyncio.gather(
            command(port, "alice", keys["alice"], "move 1 random"),
            command(port, "alice", keys["alice"], "move 1 random"),
        )
        assert sorted([first.exit_status, second.exit_status]) == [0, 2]
        assert "it is bob's turn" in (first.stderr + second.stderr)

        # An absurd terminal size is clamped.
        huge = await connect(port, "alice", keys["alice"], width=5000, height=3000, screen=MAX_SIZE)
        await huge.wait_for("signed in as alice", timeout=20)
        assert max(s.size for s in server.sessions) <= MAX_SIZE
        # A resized terminal lays the app out again.
        huge.process.change_terminal_size(90, 30)
        session = next(iter(server.sessions))
        await until(lambda: tuple(session.app.size) == (90, 30))
        await huge.close()
    finally:
        await server.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start_serve(folder: Path, port: int, db_url: str | None = None) -> subprocess.Popen:
    env = {key: value for key, value in os.environ.items() if key != "TERMGAMES_DB"}
    if db_url is not None:
        env["TERMGAMES_DB"] = db_url
    process = subprocess.Popen(
        [sys.executable, "-m", "termgames", "serve", "--port", str(port), "--data", str(folder)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return process
        if process.poll() is not None:
            raise AssertionError(process.stderr.read().decode())
        time.sleep(0.1)
    process.kill()
    raise AssertionError("termgames serve did not start")


async def test_kill_9_then_start_again_loses_nothing(tmp_path, keys, db_url):
    port = _free_port()
    process = _start_serve(tmp_path, port, db_url)
    try:
        await command(port, "alice", keys["alice"], "challenge mono --size 3 bob")
        await command(port, "alice", keys["alice"], "move 1 random")
        await command(port, "bob", keys["bob"], "move 1 random")
        before = (await command(port, "alice", keys["alice"], "show 1 --json")).stdout
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        process = _start_serve(tmp_path, port, db_url)
        after = (await command(port, "alice", keys["alice"], "show 1 --json")).stdout
        assert after == before
        assert json.loads(after)["move_seats"] == ["alice", "bob"]
        # The name stays alice's key's.
        with pytest.raises(asyncssh.PermissionDenied):
            await command(port, "alice", keys["mallory"], "tables")
    finally:
        process.kill()
        process.wait()
        process.stderr.close()


async def test_a_server_closing_with_players_at_a_table_stores_their_leaving_first(tmp_path, keys, db_url, caplog):
    """Shutdown closes the apps (each screen leaves its table, which the store records) before the store."""
    server = await start_server(tmp_path, "127.0.0.1", 0, db=db_url)
    port = server.port
    alice = None
    try:
        made = await command(port, "alice", keys["alice"], "challenge copolymer --size 5 bob")
        assert made.exit_status == 0, made.stderr
        alice = await connect(port, "alice", keys["alice"])
        await alice.wait_for("#1 Copolymer")
        await alice.press("enter")
        await alice.wait_for("alice (you)")  # at her table (the lobby's "your move" may be gone already)
        caplog.clear()
        with caplog.at_level("ERROR", logger="termgames"):
            await server.close()
            await until(lambda: not server.sessions)  # every app ended: what it did after the store closed is logged
        assert not [record.getMessage() for record in caplog.records if "not stored" in record.getMessage()]
    finally:
        if alice is not None:
            await alice.close()
