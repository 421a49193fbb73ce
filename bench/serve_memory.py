"""What a server keeps per screen: an SSH session in the lobby, a spectator following another's drawing, a browser.

    python bench/serve_memory.py [--clients 50] [--waves 10] [--tracemalloc] [--size 12]

The server runs in this process (``start_server``, its browser front too), so
its memory can be looked at from inside after a full collection: Python
objects of each kind (apps, widgets, Textual ``Strip``s, SSH sessions), the
bytes Python allocated (``--tracemalloc``: exact, but it slows everything
down several times) and the process's RSS.  The clients run in a child
process (this script with ``--clients-for PORT``), so none of their memory is
counted.

Alice and Bob sit at a Mono table (``--size``); then, in turn, and measured
after each step:

1. ``--clients`` SSH spectators come ``--waves`` at a time (10), each signs in
   and watches the table at once, all at one terminal size: one of them draws
   for the others, who follow (issue 37: a follower's app is torn down);
2. as many SSH sessions sign in and stay in the lobby;
3. as many browser sessions watch the table.

With ``--waves 0`` the SSH sessions all sign in first (measured: the lobby),
then all watch at once: every spectator's app lives at the same time for a
while, and the process keeps that peak as RSS.

Each step's figures are printed per screen (what it added / the screens it
added).  Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def measure() -> dict[str, float]:
    """The server's memory now, after a full collection."""
    from textual.strip import Strip
    from textual.widget import Widget

    from termgames.server.ssh import GameSession
    from termgames.server.ui.app import ServeApp

    gc.collect()
    objects = gc.get_objects()
    figures: dict[str, float] = {
        "objects": len(objects),
        "apps": sum(1 for o in objects if isinstance(o, ServeApp)),
        "widgets": sum(1 for o in objects if isinstance(o, Widget)),
        "strips": sum(1 for o in objects if isinstance(o, Strip)),
        "sessions": sum(1 for o in objects if isinstance(o, GameSession)),
        "rss_mb": rss_mb(),
    }
    del objects
    if tracemalloc.is_tracing():
        figures["traced_mb"] = tracemalloc.get_traced_memory()[0] / 2**20
    return figures


def show(step: str, before: dict[str, float], after: dict[str, float], screens: int) -> None:
    per = {key: (after[key] - before.get(key, 0.0)) / max(1, screens) for key in after}
    traced = f", Python heap {per['traced_mb'] * 1024:.0f} kB" if "traced_mb" in per else ""
    print(
        f"{step} ({screens}): per screen RSS {per['rss_mb'] * 1024:.0f} kB{traced}, {per['objects']:.0f} objects, "
        f"{per['apps']:.2f} apps, {per['widgets']:.1f} widgets, {per['strips']:.1f} Strips"
        f"   [in all: {after['apps']:.0f} apps, {after['widgets']:.0f} widgets, {after['strips']:.0f} Strips, "
        f"RSS {after['rss_mb']:.0f} MB]"
    )


def largest(what: str, before: tracemalloc.Snapshot, after: tracemalloc.Snapshot, screens: int) -> None:
    """Where the heap a step added is, by the file that allocated it, per screen."""
    stats = after.compare_to(before, "filename")
    top = sorted(stats, key=lambda stat: -stat.size_diff)[:8]
    print(f"  {what}, per screen, by file: " + ", ".join(
        f"{Path(stat.traceback[0].filename).name} {stat.size_diff / screens / 1024:.0f} kB" for stat in top
    ))


class Children:
    """The clients' process: a line in (a step), a line out once it is done."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    async def step(self, line: str) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()
        answer = await self.process.stdout.readline()
        if not answer.startswith(b"done"):
            raise RuntimeError(f"the clients' process: {answer.decode(errors='replace')!r}")


async def settle(seconds: float = 1.0) -> None:
    """Let the last frames and teardowns finish (nothing is waited for but time: a benchmark, not a test)."""
    await asyncio.sleep(seconds)


async def serve(args: argparse.Namespace) -> None:
    from termgames.server.ssh import start_server
    from termgames.web.guard import ConnectionLimits
    from termgames.web.serve import WebSettings, start_web

    folder = Path(tempfile.mkdtemp(prefix="termgames-memory-"))
    # Every client signs in from one address: no per-address limit may refuse one.
    server = await start_server(folder, "127.0.0.1", 0, max_startups=100000, max_sessions=100000)
    limits = ConnectionLimits(per_address=100000, total=100000)
    server.web = await start_web(server, WebSettings(0, max_sessions=100000, limits=limits))
    clients = await asyncio.create_subprocess_exec(
        sys.executable, str(Path(__file__).resolve()), "--clients-for", str(server.port), "--web-port",
        str(server.web.port), "--size", str(args.size),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )
    children = Children(clients)
    try:
        await children.step("table")
        await settle()
        if args.tracemalloc:
            tracemalloc.start()
        base = measure()
        snapshots = [tracemalloc.take_snapshot()] if args.tracemalloc else []
        if args.waves:
            # Spectators come a few at a time, as they would: each signs in and watches at once.
            await children.step(f"spectate {args.clients} {args.waves}")
            await settle(3.0)
            watching = measure()
            show(f"SSH spectators, {args.waves} at a time (followers but one)", base, watching, args.clients)
            if args.tracemalloc:
                snapshots.append(tracemalloc.take_snapshot())
                largest("the SSH spectators' Python heap", snapshots[-2], snapshots[-1], args.clients)
            await children.step(f"lobby {args.clients}")
            await settle(2.0)
            lobby = measure()
            show("SSH sessions in the lobby", watching, lobby, args.clients)
            last = lobby
        else:
            # Everyone signs in first, then all watch at once: every spectator's app lives at the same time.
            await children.step(f"lobby {args.clients}")
            await settle(2.0)
            lobby = measure()
            show("SSH sessions in the lobby", base, lobby, args.clients)
            await children.step("watch")
            await settle(3.0)
            watching = measure()
            show("  the same, then watching one table (followers but one)", lobby, watching, args.clients)
            show("SSH spectators (followers but one)", base, watching, args.clients)
            if args.tracemalloc:
                snapshots.append(tracemalloc.take_snapshot())
                largest("the SSH spectators' Python heap", snapshots[-2], snapshots[-1], args.clients)
            last = watching
        await children.step(f"browse {args.clients}")
        await settle(3.0)
        browsing = measure()
        show("browser sessions watching", last, browsing, args.clients)
        if args.tracemalloc:
            snapshots.append(tracemalloc.take_snapshot())
            largest("the browser sessions' Python heap", snapshots[-2], snapshots[-1], args.clients)
        await children.step("close")
    finally:
        if clients.returncode is None:
            clients.kill()
        await clients.wait()
        await server.close()
    if args.tracemalloc:
        tracemalloc.stop()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")


async def run_clients(args: argparse.Namespace) -> None:
    """The child: SSH and browser clients, driven a step a line (see :class:`Children`)."""
    import asyncssh

    sys.path.insert(0, str(BENCH))
    from serve_latency import BrowserClient, Client  # the latency benchmark's clients, as they are

    port = args.clients_for

    def key() -> asyncssh.SSHKey:
        return asyncssh.generate_private_key("ssh-ed25519")  # a person each: no per-person limit refuses one

    players = [Client(name, key()) for name in ("alice", "bob")]
    watchers: list[Client] = []
    spectators: list[Client] = []
    pages: list[BrowserClient] = []
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := (await reader.readline()).decode().split():
        try:
            if line[0] == "table":
                async with asyncssh.connect(
                    "127.0.0.1", port, username="alice", client_keys=[players[0].key], known_hosts=None
                ) as conn:
                    made = await conn.run(f"challenge mono --size {args.size} --no-auto bob", check=False)
                    assert made.exit_status == 0, made.stderr
                for player in players:
                    await player.open(port)
                    await player.wait_for(b"signed in as")
                    player.press(b"\r")
                    await player.wait_for(b"vs  bob")
            elif line[0] == "spectate":
                count, wave = int(line[1]), int(line[2])
                for start in range(0, count, wave):
                    arriving = [Client(f"s{index}", key()) for index in range(start, min(count, start + wave))]
                    spectators += arriving
                    await asyncio.gather(*(c.open(port) for c in arriving))
                    await asyncio.gather(*(c.wait_for(b"Being played") for c in arriving))
                    for spectator in arriving:
                        spectator.press(b"w")
                    await asyncio.gather(*(c.wait_for(b"you are watching") for c in arriving))
                    await asyncio.gather(*(c.quiet(0.3) for c in arriving))
            elif line[0] == "lobby":
                watchers = [Client(f"w{index}", key()) for index in range(int(line[1]))]
                for start in range(0, len(watchers), 20):  # sign-ins are throttled per address
                    await asyncio.gather(*(c.open(port) for c in watchers[start:start + 20]))
                await asyncio.gather(*(c.wait_for(b"Being played") for c in watchers))
                await asyncio.gather(*(c.quiet(0.5) for c in watchers))
            elif line[0] == "watch":
                for watcher in watchers:
                    watcher.press(b"w")
                await asyncio.gather(*(c.wait_for(b"you are watching") for c in watchers))
                await asyncio.gather(*(c.quiet(0.5) for c in watchers))
            elif line[0] == "browse":
                pages = [BrowserClient(f"web{index}", key()) for index in range(int(line[1]))]
                for start in range(0, len(pages), 10):
                    await asyncio.gather(*(page.open(port, 1) for page in pages[start:start + 10]))
                await asyncio.gather(*(page.wait_for(b"you are watching") for page in pages))
                await asyncio.gather(*(page.quiet(0.5) for page in pages))
            elif line[0] == "close":
                for client in [*players, *spectators, *watchers, *pages]:
                    await client.close()
            print("done", flush=True)
        except Exception as error:  # told to the parent, which stops
            print(f"failed {type(error).__name__}: {error}".replace("\n", " "), flush=True)
            return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=50, help="SSH sessions, and as many browser sessions")
    parser.add_argument("--size", type=int, default=12, help="the Mono table's board size")
    parser.add_argument(
        "--waves", type=int, default=10,
        help="spectators arrive this many at a time, each watching as she signs in; 0: all sign in, then all watch",
    )
    parser.add_argument("--tracemalloc", action="store_true", help="also the Python heap (slow)")
    parser.add_argument("--clients-for", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--web-port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    started = time.perf_counter()
    if args.clients_for:
        asyncio.run(run_clients(args))
        return
    asyncio.run(serve(args))
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
