"""Several ``termgames serve`` processes, one PostgreSQL: real processes, real SSH clients.

alice plays at one server, bob at another, carol watches at a third; every move reaches every screen live.
Then alice's server is killed (kill -9): bob and carol go on, alice reconnects to another server and is back
at her seat, and no accepted move is lost.  ``--workers 2`` (one port, SO_REUSEPORT) is tried too.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import asyncssh
import pytest
from sshterm import command, connect

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(process: subprocess.Popen, port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        if process.poll() is not None:
            raise AssertionError(process.stderr.read().decode() if process.stderr else "the server ended")
        time.sleep(0.1)
    raise AssertionError("termgames serve did not start")


def serve(folder: Path, port: int, db_url: str, host_key: Path, *more: str) -> subprocess.Popen:
    env = {**os.environ, "TERMGAMES_DB": db_url}
    process = subprocess.Popen(
        [sys.executable, "-m", "termgames", "serve", "--port", str(port), "--data", str(folder),
         "--host-key", str(host_key), *more],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
    )
    wait_for_port(process, port)
    return process


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stderr:
        process.stderr.close()


async def host_key_of(port: int) -> str:
    async with asyncssh.connect("127.0.0.1", port, username="probe", known_hosts=None,
                                preferred_auth="keyboard-interactive", password="") as conn:
        key = conn.get_server_host_key()
        assert key is not None
        return key.get_fingerprint()


@pytest.fixture
def keys():
    return {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("alice", "bob", "carol")}


async def test_three_servers_one_game_live_and_a_killed_server_costs_no_move(tmp_path, pg_url, keys):
    host_key = tmp_path / "host_key"
    ports = [free_port() for _ in range(3)]
    processes = [serve(tmp_path / f"server{n}", port, pg_url, host_key) for n, port in enumerate(ports)]
    clients = []
    try:
        # Every server shows players the same host key.
        assert len({await host_key_of(port) for port in ports}) == 1

        made = await command(ports[0], "alice", keys["alice"], "challenge copolymer --size 5 bob")
        assert made.exit_status == 0, made.stderr
        alice = await connect(ports[0], "alice", keys["alice"])
        bob = await connect(ports[1], "bob", keys["bob"])
        carol = await connect(ports[2], "carol", keys["carol"])
        clients = [alice, bob, carol]
        await alice.wait_for("your move")
        await alice.press("enter")
        await bob.wait_for("#1 Copolymer")
        await bob.press("enter")
        await alice.wait_for("● bob")  # bob's presence, from the other server
        await carol.wait_for("Being played")
        await carol.press("enter")
        await carol.wait_for("you are watching")
        await alice.wait_for("1 watching")  # carol, at a third server

        await alice.press("enter")  # alice claims the cursor's cell at server 0
        await bob.wait_for("bob to claim")  # ... seen live at server 1
        await carol.wait_for("bob to claim")  # ... and at server 2
        await bob.press("right", "enter")  # bob at server 1, next to alice's cell
        await alice.wait_for("alice to claim")
        await carol.wait_for("alice to claim")
        moved = await command(ports[0], "alice", keys["alice"], "move 1 A1")  # and a correspondence move
        assert moved.exit_status == 0, moved.stderr
        await bob.wait_for("bob to claim")
        before = json.loads((await command(ports[1], "bob", keys["bob"], "show 1 --json")).stdout)
        assert len(before["moves"]) == 3

        # alice's server dies mid-game.
        os.kill(processes[0].pid, signal.SIGKILL)
        processes[0].wait()
        await bob.wait_for("○ alice away", timeout=30)  # its presence is swept: alice is away
        alice = await connect(ports[2], "alice", keys["alice"])  # back through another server
        clients.append(alice)
        await alice.wait_for("alice (you)")  # straight to her seat
        await alice.wait_for("bob to claim")
        after = json.loads((await command(ports[2], "alice", keys["alice"], "show 1 --json")).stdout)
        assert after["moves"] == before["moves"]  # no accepted move lost
        moved = await command(ports[1], "bob", keys["bob"], "move 1 D4")
        assert moved.exit_status == 0, moved.stderr
        await alice.wait_for("alice to claim")
        await carol.wait_for("alice to claim")
    finally:
        for client in clients:
            await client.close()
        for process in processes:
            stop(process)


async def test_workers_share_one_port_and_a_killed_worker_is_replaced(tmp_path, pg_url, keys):
    port = free_port()
    host_key = tmp_path / "host_key"
    supervisor = serve(tmp_path / "data", port, pg_url, host_key, "--workers", "2")
    try:
        made = await command(port, "alice", keys["alice"], "challenge copolymer --size 5 bob")
        assert made.exit_status == 0, made.stderr
        workers = _children(supervisor.pid)
        assert len(workers) == 2
        # Moves from many connections, spread by the kernel over both workers, all land in one game.
        for number in range(6):
            shown = json.loads((await command(port, "alice", keys["alice"], "show 1 --json")).stdout)
            player = shown["to_move"][0]  # as the table stands, whichever worker answered
            moved = await command(port, player, keys[player], f"move 1 {'ABC'[number % 3]}{number // 3 + 1}")
            assert moved.exit_status == 0, moved.stderr
        os.kill(workers[0], signal.SIGKILL)
        while _alive(workers[0]):
            await asyncio.sleep(0.05)
        # A connection the dying worker accepted is reset, and while the other worker was still starting when
        # the first was killed (a loaded machine), nobody listens until the supervisor's new worker does: a
        # player connects again, as she would.
        deadline = time.monotonic() + 30
        while True:
            try:
                shown = json.loads((await command(port, "bob", keys["bob"], "show 1 --json")).stdout)
                break
            except (ConnectionError, asyncssh.ConnectionLost):
                assert time.monotonic() < deadline, "no worker took a connection after one was killed"
                await asyncio.sleep(0.2)
        assert len(shown["moves"]) == 6
        deadline = time.monotonic() + 30
        while len(_children(supervisor.pid)) < 2 or workers[0] in _children(supervisor.pid):
            assert time.monotonic() < deadline, "the killed worker was not replaced"
            await asyncio.sleep(0.2)
    finally:
        stop(supervisor)
    assert _children(supervisor.pid) == []


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent has closed its sockets already)."""
    try:
        return "\tZ" not in Path(f"/proc/{pid}/status").read_text().split("State:", 1)[1][:4]
    except (OSError, IndexError):
        return False


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(word) for word in text.split()]


def test_more_than_one_worker_needs_postgresql(tmp_path):
    env = {key: value for key, value in os.environ.items() if key != "TERMGAMES_DB"}
    result = subprocess.run(
        [sys.executable, "-m", "termgames", "serve", "--workers", "2", "--data", str(tmp_path)],
        capture_output=True, text=True, env=env, timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "--workers above 1 needs a shared database" in result.stderr


def test_an_unreachable_database_is_one_line_and_status_2(tmp_path):
    pytest.importorskip("asyncpg")
    env = {key: value for key, value in os.environ.items() if key != "TERMGAMES_DB"}
    result = subprocess.run(
        [sys.executable, "-m", "termgames", "serve", "--port", str(free_port()), "--data", str(tmp_path),
         "--db", f"postgresql://nobody@127.0.0.1:{free_port()}/nothing"],
        capture_output=True, text=True, env=env, timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("termgames: cannot reach the database postgresql://nobody@127.0.0.1:")
    assert result.stderr.strip().count("\n") == 0


async def test_a_database_restart_under_running_servers_and_a_move_from_the_other_reaches_the_screen(
    tmp_path, pg_cluster, pg_url, keys
):
    host_key = tmp_path / "host_key"
    ports = [free_port() for _ in range(2)]
    processes = [serve(tmp_path / f"server{n}", port, pg_url, host_key) for n, port in enumerate(ports)]
    alice = None
    try:
        made = await command(ports[0], "alice", keys["alice"], "challenge copolymer --size 5 bob")
        assert made.exit_status == 0, made.stderr
        alice = await connect(ports[0], "alice", keys["alice"])
        await alice.wait_for("your move")
        await alice.press("enter")
        await alice.wait_for("alice to claim")

        await asyncio.to_thread(pg_cluster.pause)  # the database goes away under both servers
        await alice.wait_for("The database cannot be reached: moves wait until it is back")
        await alice.press("enter")  # a move now: refused in one line, nothing lost
        await alice.wait_for("the database cannot be reached: your move was not made; try again in a moment")
        with pytest.raises(asyncssh.PermissionDenied):  # no key can be checked now (ssh shows why, in a banner)
            await command(ports[1], "bob", keys["bob"], "tables")
        with pytest.raises(asyncssh.PermissionDenied):  # ... and bob is not let in as a guest instead
            async with asyncssh.connect("127.0.0.1", ports[1], username="bob", client_keys=[keys["bob"]],
                                        known_hosts=None, password=""):
                pass
        await asyncio.to_thread(pg_cluster.start_again)
        await alice.wait_for("The database is back", timeout=30)
        await alice.press("enter")
        await alice.wait_for("bob to claim")

        await asyncio.to_thread(pg_cluster.restart)  # and a restart in one step
        deadline = time.monotonic() + 30
        while True:  # bob's move at the other server, once that server has the database back
            try:
                moved = await command(ports[1], "bob", keys["bob"], "move 1 E5")
            except asyncssh.PermissionDenied:  # no key can be checked while the database is away
                assert time.monotonic() < deadline, "bob could never sign in again"
                await asyncio.sleep(0.2)
                continue
            if moved.exit_status == 0:
                break
            assert "database" in moved.stderr and moved.stderr.count("\n") == 1, moved.stderr
            assert time.monotonic() < deadline, moved.stderr
            await asyncio.sleep(0.2)
        await alice.wait_for("bob claimed E5", timeout=20)  # heard by alice's server after its reconnection
        shown = json.loads((await command(ports[0], "alice", keys["alice"], "show 1 --json")).stdout)
        assert len(shown["moves"]) == 2
    finally:
        if alice is not None:
            await alice.close()
        for process in processes:
            stop(process)
