"""How the server feels to its players, end to end over real SSH clients (asyncssh, in process) on loopback:
a rematch is the same table again, a restart is announced with the way back."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pty
import select
import shutil
import struct
import subprocess
import termios

import asyncssh
import pytest
from sshterm import command, connect

from termgames.server.notices import desktop_sequence
from termgames.server.ssh import start_server


@pytest.fixture
def keys():
    return {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("alice", "bob")}


async def shown(port: int, name: str, key: asyncssh.SSHKey, table: int) -> dict:
    answer = await command(port, name, key, f"show {table} --json")
    assert answer.exit_status == 0, answer.stderr
    return json.loads(answer.stdout)


async def play_out(port: int, keys: dict, table: int) -> None:
    """Both players claim the first free cell in turn until the (small) Copolymer board is full."""
    for _ in range(20):
        state = await shown(port, "alice", keys["alice"], table)
        if state["over"]:
            return
        cell = next(cell for cell, owner in state["board"].items() if owner is None)
        mover = state["to_move"][0]
        moved = await command(port, mover, keys[mover], f"move {table} {cell}")
        assert moved.exit_status == 0, moved.stderr
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("kind", ["--rated", "--casual"])
async def test_a_rematch_of_a_clocked_table_keeps_its_clock_options_and_kind(tmp_path, keys, kind):
    server = await start_server(tmp_path, "127.0.0.1", 0)
    port = server.port
    alice = None
    try:
        made = await command(port, "alice", keys["alice"], f"challenge copolymer --size 3 --clock 10m+5s {kind} bob")
        assert made.exit_status == 0, made.stderr
        await command(port, "bob", keys["bob"], "tables")  # bob's account exists: the rematch may be rated
        alice = await connect(port, "alice", keys["alice"])
        await alice.wait_for("#1 Copolymer")
        await alice.press("enter")
        await alice.wait_for("alice (you)")
        await play_out(port, keys, 1)
        await alice.wait_for("rematch, seats swapped")
        await alice.press("\x12")  # Ctrl+R
        await alice.wait_for("bob  vs  alice")
        again = await shown(port, "alice", keys["alice"], 2)
        assert again["players"] == ["bob", "alice"] and again["options"] == {"shape": "hexagon", "size": 3}
        assert again["clock"]["alice"] == 600.0 and 590 < again["clock"]["bob"] <= 600.0  # bob moves first
        listed = (await command(port, "alice", keys["alice"], "tables")).stdout
        line = next(line for line in listed.splitlines() if line.lstrip("#").lstrip().startswith("2"))
        assert kind.removeprefix("--") in line, listed
    finally:
        if alice is not None:
            await alice.close()
        await server.close()


async def test_a_restart_tells_the_players_their_clocks_wait_and_the_way_back(tmp_path, keys):
    server = await start_server(tmp_path, "127.0.0.1", 0)
    port = server.port
    alice = None
    try:
        made = await command(port, "alice", keys["alice"], "challenge copolymer --size 5 --clock 10m bob")
        assert made.exit_status == 0, made.stderr
        alice = await connect(port, "alice", keys["alice"])
        await alice.wait_for("#1 Copolymer")
        await alice.press("enter")
        await alice.wait_for("alice (you)")
        closing, server = server.close(), None
        await closing
        await alice.wait_for("the server is restarting")
        said = alice.raw.decode("utf-8", "replace")
        assert "Clocks stop while it is down" in said
        assert f"Come back with: ssh -p {port} alice@127.0.0.1" in said
        # Said after the app gave the terminal back (out of the alternate screen): it stays on her screen.
        assert said.rindex("\x1b[?1049l") < said.index("the server is restarting")
    finally:
        if alice is not None:
            await alice.close()
        if server is not None:
            await server.close()


def test_the_desktop_notification_goes_through_tmux_and_screen_when_the_terminal_says_so():
    plain = desktop_sequence("Your move at table #1, Copolymer (bob moved)")
    assert plain == "\x1b]9;termgames: Your move at table #1, Copolymer (bob moved)\x07"
    assert desktop_sequence("Your move at table #1, Copolymer (bob moved)", "xterm-256color") == plain
    for term in ("tmux-256color", "tmux"):
        wrapped = desktop_sequence("Your move at table #1, Copolymer (bob moved)", term)
        assert wrapped == "\x1bPtmux;\x1b\x1b]9;termgames: Your move at table #1, Copolymer (bob moved)\x07\x1b\\"
    assert desktop_sequence("Your move", "screen.xterm-256color") == "\x1bP\x1b]9;termgames: Your move\x07\x1b\\"
    # A name cannot end the passthrough early either: no ESC of its own gets in.
    hostile = desktop_sequence("Your move (\x1b\\\x1b]0;pwned\x07 moved)", "tmux-256color")
    inner = hostile[len("\x1bPtmux;") : -len("\x1b\\")]
    assert inner.replace("\x1b\x1b", "").count("\x1b") == 0 and "\x07" not in inner[:-1]


async def test_over_ssh_from_inside_tmux_the_desktop_notification_comes_wrapped_for_tmux(tmp_path, keys):
    server = await start_server(tmp_path, "127.0.0.1", 0)
    port = server.port
    alice = None
    try:
        assert (await command(port, "alice", keys["alice"], "notify desktop")).exit_status == 0
        told = await command(port, "alice", keys["alice"], "notify")
        assert "allow-passthrough on" in told.stdout  # she is told what tmux needs
        await command(port, "alice", keys["alice"], "challenge copolymer --size 5 --casual bob")
        await command(port, "alice", keys["alice"], "move 1 A1")
        alice = await connect(port, "alice", keys["alice"], term="tmux-256color")
        await alice.wait_for("#1 Copolymer")
        moved = await command(port, "bob", keys["bob"], "move 1 E5")
        assert moved.exit_status == 0
        await alice.wait_for("Your move at table #1")
        wrapped = b"\x1bPtmux;\x1b\x1b]9;termgames: Your move at table #1, Copolymer (bob moved)\x07\x1b\\"
        assert wrapped in alice.raw
        assert alice.raw.count(b"]9;") == 1  # not bare as well: tmux would swallow that one anyway
    finally:
        if alice is not None:
            await alice.close()
        await server.close()


async def test_openssh_prints_the_restart_lines_before_the_connection_goes(tmp_path, keys):
    """OpenSSH drops what it has not printed when the server closes the connection first ("Disconnected by
    application"): the server waits (a little) for the client to hang up after its app said goodbye."""
    ssh = shutil.which("ssh")
    if ssh is None:
        pytest.skip("no OpenSSH client (apt-get install openssh-client): this test needs one")
    key_file = tmp_path / "alice_key"
    key_file.write_bytes(keys["alice"].export_private_key())
    key_file.chmod(0o600)
    server = await start_server(tmp_path / "data", "127.0.0.1", 0)
    port = server.port
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    client = subprocess.Popen(
        [ssh, "-tt", "-i", str(key_file), "-p", str(port), "-o", "StrictHostKeyChecking=no", "-o",
         "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", "alice@127.0.0.1"],
        stdin=terminal, stdout=terminal, stderr=terminal, env={**os.environ, "TERM": "xterm-256color"},
    )
    os.close(terminal)
    seen = bytearray()
    loop = asyncio.get_running_loop()

    async def read_until(wanted: bytes, timeout: float = 15.0) -> None:
        deadline = loop.time() + timeout
        while wanted not in seen:
            assert loop.time() < deadline, f"{wanted!r} never came: {bytes(seen[-400:])!r}"
            ready, _, _ = await loop.run_in_executor(None, select.select, [controller], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # the client has gone and its terminal with it
                    chunk = b""
                if not chunk:
                    assert wanted in seen, f"{wanted!r} never came: {bytes(seen[-400:])!r}"
                    return
                seen.extend(chunk)

    try:
        await read_until(b"signed in as alice")
        closing, server = server.close(), None
        await closing
        await read_until(b"Come back with: ssh -p")
        assert b"the server is restarting" in seen and b"Disconnected by application" not in seen
        assert await loop.run_in_executor(None, client.wait, 10) == 0
    finally:
        client.kill()
        client.wait()
        os.close(controller)
        if server is not None:
            await server.close()
