"""``termgames serve`` under load: 30 SSH clients on loopback, live Mono tables, move-to-screen latency.

    python bench/serve_latency.py [--clients 30] [--tables 6] [--moves 12] [--size 12] [--browsers 50]
                                  [--clock SPEC] [--seeks N] [--analyses N] [--waves N] [--watch-direct]
                                  [--workers N --db postgresql://USER@HOST/DB | --db throwaway]

``--clock SPEC`` (e.g. ``30m+0s``, long enough that nobody runs out) makes every table timed: every screen
then counts its clocks down, each repainting its running clock's line once a second.

With ``--workers N`` the server is ``termgames serve --workers N --db URL``: N
processes on one port sharing one PostgreSQL (``--db throwaway`` starts a
temporary cluster from the installed binaries, as the tests do).  CPU and
memory are then those of all the server's processes (the supervisor and its
workers; PostgreSQL's own processes are printed apart when the cluster is the
throwaway one), and memory per client is (RSS with the clients - RSS idle) / clients.

Starts ``termgames serve`` as its own process, then connects one SSH client
with a PTY per seat (6 tables of 2, 3 and 4 seats) and spectators up to 30
clients in all, each at its table's game screen.  At every table, in turn,
the player to move presses ``R`` then Enter (a random layout), later ``r`` (a random
probing turn); the time from that key to the first bytes of the redraw
on each other screen at the table (other seats and spectators) is one sample.
Tables play at the same time, a move every ``--pace`` seconds on average at
each (a server redraws every screen at the table for each move, so a pace
faster than the CPU can redraw builds a queue: try ``--pace 0.2``).  Prints the median and 95th percentile of those
samples and the server's resident memory.  Figures are printed, never asserted.

With ``--seeks N`` (even) N more accounts each seek a Copolymer correspondence game over SSH (``ssh NAME@HOST
seek copolymer --clock 3d/move``) while the tables play, spread over the moves in four lanes: every second seek
meets the one before and makes a table.  Prints the seek commands' round trip (median, 95th percentile) and
the tables they made, beside the move latency (compare its 95th percentile with a run without ``--seeks``).

With ``--analyses N`` N finished Copolymer games (size 7, random moves, about 37 moves) are written into the
server's store before it starts, and just before the moves N people (fresh keys) each ask for one's analysis at
the hard level (``ssh NAME@HOST analyse TABLE --level hard``, about half a second a move) all at once: the
server analyses them one after the other in its computer players' threads while the tables play.  Prints how far
the analyses came during the moves beside the move latency (compare its 95th percentile with a run without).

With ``--waves N`` the players sign in first, then the spectators N at a time, each at her table before the
next come (as spectators would arrive): a spectator who follows another's drawing has her app torn down
(issue 37), and her memory is used again by the next; all at once, every app lives at the same time for a
while and the server's RSS keeps that peak.

With ``--watch-direct`` the spectators sign in straight to their tables (``ssh -t NAME@HOST watch TABLE``)
instead of through the lobby (down to the table, ``w``): one who finds the spectators of her look drawn
already follows them with no app ever built (issue 37).  The players still come through the lobby.

With ``--browsers N`` the server serves browsers too (``--web``) and N browser
sessions watch the tables beside the SSH clients (spread over the tables in
turn), each its own account signed in as a player would be (``ssh NAME@HOST
web TABLE`` prints a link; the link's page gives the cookie; the websocket
opens at the table), as aiohttp websockets speaking the page's protocol (what
the browser itself costs is the browser's).  Their memory (RSS with them - RSS
before them, per session) and a move's latency to their screens are printed
beside the SSH ones.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import asyncssh

ROOT = Path(__file__).resolve().parent.parent
SEATS = [2, 3, 4, 2, 3, 4]  # players per table; spectators fill up to the client count
#: Seconds a client waits for a screen: hundreds signing in at once on a busy machine take minutes.
wait_limit = 90.0


class Client:
    """One SSH session with a PTY; remembers when its last bytes arrived."""

    def __init__(self, name: str, key: asyncssh.SSHKey) -> None:
        self.name = name
        self.key = key
        self.last = 0.0
        self.received = 0
        self.text = bytearray()
        self.arrived = asyncio.Event()

    async def open(self, port: int, command: str | None = None) -> None:
        """Sign in with a terminal: the lobby, or ``command`` (``watch TABLE``)."""
        self.conn = await asyncssh.connect(
            "127.0.0.1", port, username=self.name, client_keys=[self.key], known_hosts=None
        )
        self.process = await self.conn.create_process(
            command, term_type="xterm-256color", term_size=(100, 30), encoding=None
        )
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        while True:
            chunk = await self.process.stdout.read(65536)
            if not chunk:
                return
            self.last = time.perf_counter()
            self.received += len(chunk)
            # The latest screens only: a lobby redrawn while 100 clients sign in can send megabytes before a
            # player's Enter opens her table, and the setup waits for what comes after it.
            self.text += chunk
            if len(self.text) > 2_000_000:
                del self.text[:1_000_000]
            self.arrived.set()

    async def quiet(self, seconds: float = 0.4, limit: float = 20.0) -> None:
        """Wait until nothing has arrived for ``seconds``."""
        deadline = time.perf_counter() + limit
        while time.perf_counter() < deadline:
            if self.last and time.perf_counter() - self.last > seconds:
                return
            await asyncio.sleep(0.05)

    async def wait_for(self, needle: bytes, limit: float | None = None) -> None:
        deadline = time.perf_counter() + (limit if limit is not None else wait_limit)
        while needle not in self.text:
            if time.perf_counter() > deadline:
                import re

                seen = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b" ", bytes(self.text[-4000:])).decode("utf-8", "replace")
                raise RuntimeError(f"{self.name}: {needle!r} never arrived; last seen: {' '.join(seen.split())}")
            await asyncio.sleep(0.02)

    def press(self, keys: bytes) -> None:
        self.process.stdin.write(keys)

    async def close(self) -> None:
        self.process.close()
        self.conn.close()
        self.reader.cancel()


class BrowserClient:
    """One browser session: signed in with its own link, its websocket at its table; when its last frame came."""

    def __init__(self, name: str, key: asyncssh.SSHKey) -> None:
        self.name = name
        self.key = key
        self.last = 0.0
        self.text = bytearray()
        self.http: aiohttp.ClientSession | None = None
        self.socket: aiohttp.ClientWebSocketResponse | None = None
        self.reader: asyncio.Task[None] | None = None

    async def open(self, port: int, table_id: int) -> None:
        async with asyncssh.connect(
            "127.0.0.1", port, username=self.name, client_keys=[self.key], known_hosts=None
        ) as conn:
            printed = await conn.run(f"web {table_id}", check=False)
        assert printed.exit_status == 0, printed.stderr
        link = printed.stdout.split()[-1]
        base = link.split("?")[0]
        # An address, not a name: aiohttp keeps no cookie for it otherwise.
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
        async with self.http.get(link) as response:
            assert response.status == 200, response.status
        self.socket = await self.http.ws_connect(
            f"{base}ws?session=&width=100&height=30&table={table_id}", headers={"Origin": base.rstrip("/")},
            max_msg_size=0,
        )
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        assert self.socket is not None
        async for message in self.socket:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.last = time.perf_counter()
                self.text += message.data
                if len(self.text) > 2_000_000:
                    del self.text[:1_000_000]

    quiet = Client.quiet
    wait_for = Client.wait_for

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()
        if self.reader is not None:
            self.reader.cancel()
        if self.http is not None:
            await self.http.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def children(pid: int) -> list[int]:
    try:
        return [int(word) for word in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def listening(pid: int) -> bool:
    """Whether the process has a listening TCP socket (a worker ready for players)."""
    try:
        inodes = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
    except OSError:
        return False
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and f"socket:[{fields[9]}]" in inodes:
                return True
    return False


def _own_cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0  # it ended meanwhile
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of a process and its children (a server's workers, a cluster's backends)."""
    return _own_cpu_seconds(pid) + sum(tree_cpu_seconds(child) for child in children(pid))


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of the server so far: with --workers, the supervisor and every worker."""
    return tree_cpu_seconds(pid)


def rss_mb(pid: int) -> float:
    """Resident memory of the server: with --workers, the supervisor and every worker."""
    total = 0.0
    for each in [pid, *children(pid)]:
        try:
            for line in Path(f"/proc/{each}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            continue
    return total


def postmaster_pid(data: Path) -> int | None:
    try:
        return int((data / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


async def play_table(
    players: list[Client],
    watchers: list[Client],
    moves: int,
    pace: float,
    samples: list[float],
    rng: random.Random,
    probing: list[float] | None = None,
    browsers: list[BrowserClient] | None = None,
    browser_samples: list[float] | None = None,
) -> int:
    """Players press r in turn; each other screen's first bytes after the key are one sample (a browser's
    screen's in ``browser_samples``)."""
    made = 0
    browsers = browsers or []
    for turn in range(moves):
        mover = players[turn % len(players)]
        others: list[Client | BrowserClient] = [c for c in players + watchers if c is not mover]
        others += browsers
        await asyncio.sleep(rng.uniform(0.5 * pace, 1.5 * pace))  # the next player "thinks"
        start = time.perf_counter()
        # R then Enter: a random layout, confirmed (R alone only previews one); r: a random probing turn
        mover.press(b"R\r" if turn < len(players) else b"r")
        deadline = start + 5.0
        pending = list(others)
        while pending and time.perf_counter() < deadline:
            await asyncio.sleep(0.002)
            for client in list(pending):
                if client.last > start:
                    took = (client.last - start) * 1000
                    if isinstance(client, BrowserClient):
                        if browser_samples is not None:
                            browser_samples.append(took)
                    else:
                        samples.append(took)
                        if probing is not None and turn > len(players):  # past the layouts and the first probe
                            probing.append(took)
                    pending.remove(client)
        made += 1
        await asyncio.gather(*(c.quiet(0.15, 3) for c in [*players, *watchers, *browsers]))
    return made


async def seek_lane(port: int, names: list[str], spacing: float, latencies: list[float], made: list[int]) -> None:
    """One lane of ``--seeks``: each name (a fresh key: a person) seeks a correspondence Copolymer game in turn."""
    for name in names:
        key = asyncssh.generate_private_key("ssh-ed25519")
        started = time.perf_counter()
        async with asyncssh.connect("127.0.0.1", port, username=name, client_keys=[key], known_hosts=None) as conn:
            result = await conn.run("seek copolymer --size 7 --clock 3d/move", check=False)
        latencies.append((time.perf_counter() - started) * 1000)
        assert result.exit_status == 0, result.stderr
        if str(result.stdout).split(":")[0].isdigit():  # "12: copolymer ...": the seek made table 12
            made.append(int(str(result.stdout).split(":")[0]))
        await asyncio.sleep(spacing)


def finished_games(folder: Path, db: str | None, count: int) -> list[int]:
    """``--analyses``: ``count`` finished Copolymer tables written into the server's store before it starts."""
    sys.path.insert(0, str(ROOT))
    from termgames.match import Seat
    from termgames.server.hub import Hub
    from termgames.server.ssh import DATABASE_NAME, RECORDS_NAME
    from termgames.server.stores import open_store

    store = open_store(db, folder / DATABASE_NAME)
    hub = Hub(store, folder / RECORDS_NAME)
    made = []
    try:
        for index in range(count):
            first = f"played{index}a"
            table = hub.create_table("copolymer", {"size": 7}, [Seat(name=first), Seat(name=f"played{index}b")],
                                     first, seed=index)
            rng = random.Random(index)
            while not table.over:
                seat = table.match.view(None).to_move[0]
                table.play(seat, table.match.state.random_move(seat, rng))
            made.append(table.id)
    finally:
        hub.close()
        store.close()
    return made


async def ask_analyses(port: int, people: list[tuple[str, asyncssh.SSHKey, int]]) -> list[str]:
    """Each person asks for her table's analysis at the hard level, all at once: "done", or the server's line."""

    async def ask(name: str, key: asyncssh.SSHKey, table_id: int) -> str:
        async with asyncssh.connect("127.0.0.1", port, username=name, client_keys=[key], known_hosts=None) as conn:
            result = await conn.run(f"analyse {table_id} --level hard", check=False)
        assert result.exit_status in (0, 3), result.stderr
        return "done" if result.exit_status == 0 else str(result.stderr).strip().removeprefix("termgames: ")

    return await asyncio.gather(*(ask(*person) for person in people))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=30)
    parser.add_argument("--moves", type=int, default=12, help="moves per table")
    parser.add_argument("--pace", type=float, default=1.5, help="mean seconds between moves at a table")
    parser.add_argument("--size", type=int, default=9, help="Mono regions (9: the standard board)")
    parser.add_argument("--tables", type=int, default=len(SEATS), help="tables (of 2, 3 and 4 players in turn)")
    parser.add_argument("--workers", type=int, default=1, help="server processes (above 1: --db is needed)")
    parser.add_argument(
        "--waves", type=int, default=0,
        help="spectators sign in this many at a time, each at her table before the next come (0: all at once)",
    )
    parser.add_argument(
        "--watch-direct", action="store_true",
        help="spectators sign in straight to their tables (ssh -t HOST watch TABLE), not through the lobby",
    )
    parser.add_argument("--browsers", type=int, default=0, help="browser sessions watching the tables (--web)")
    parser.add_argument("--db", default=None, help="postgresql://USER@HOST/DB, or 'throwaway' (a temporary cluster)")
    parser.add_argument("--clock", default=None, metavar="SPEC", help="every table timed with this clock")
    parser.add_argument("--seeks", type=int, default=0, help="seeks made over SSH while the tables play (pairs)")
    parser.add_argument("--analyses", type=int, default=0,
                        help="finished games whose analyses N people ask for just before the moves")
    parser.add_argument(
        "--profile", default=None, metavar="FILE",
        help="sample the server with py-spy during the moves only (pip install py-spy): collapsed stacks to FILE",
    )
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    global wait_limit
    wait_limit = max(wait_limit, args.clients * 0.5)

    folder = Path(tempfile.mkdtemp(prefix="termgames-bench-"))
    port = free_port()
    web_port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("TERMGAMES_DB", None)
    cluster = None
    if args.db == "throwaway":
        sys.path.insert(0, str(ROOT / "tests"))
        from pgcluster import start_cluster  # type: ignore[import-not-found]  # tests/ is on sys.path just above

        cluster = start_cluster()
        env["TERMGAMES_DB"] = cluster.new_database()
    elif args.db:
        env["TERMGAMES_DB"] = args.db
    analysed = finished_games(folder, env.get("TERMGAMES_DB"), args.analyses) if args.analyses else []
    server = subprocess.Popen(
        [
            sys.executable,
            *(os.environ.get("BENCH_SERVER_PREFIX", "-m termgames").split()),
            "serve",
            "--port",
            str(port),
            "--data",
            str(folder),
            "--max-startups",
            "100000",  # every client of the benchmark signs in at once, from one address
            "--max-sessions",
            "100000",  # 1,000 clients and more: past the default for one server's SSH screens
            *(["--web", str(web_port), "--web-max-sessions", "100000"] if args.browsers else []),
            *(["--workers", str(args.workers)] if args.workers > 1 else []),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if server.poll() is not None:
                raise SystemExit("termgames serve did not start")
            time.sleep(0.1)
        if args.workers > 1:  # every worker listening (the port answers once the first does)
            for _ in range(300):
                if len(children(server.pid)) == args.workers and all(listening(pid) for pid in children(server.pid)):
                    break
                time.sleep(0.1)
            time.sleep(1.0)
        database_pid = postmaster_pid(cluster.data) if cluster is not None else None
        idle = rss_mb(server.pid)
        rng = random.Random(1)
        tables: list[tuple[list[Client], list[Client]]] = []
        table_ids: list[int] = []
        count = 0
        for number, seats in enumerate((SEATS * args.tables)[: args.tables], start=1):
            players = [Client(f"p{number}x{i}", asyncssh.generate_private_key("ssh-ed25519")) for i in range(seats)]
            first = players[0]
            names = " ".join(p.name for p in players[1:])
            async with asyncssh.connect(
                "127.0.0.1", port, username=first.name, client_keys=[first.key], known_hosts=None
            ) as conn:
                clock = f" --clock {args.clock}" if args.clock else ""
                result = await conn.run(f"challenge mono --size {args.size}{clock} {names}", check=False)
                assert result.exit_status == 0, result.stderr
            table_ids.append(int(str(result.stdout).split(":")[0]))  # "7: mono ...": table 7
            tables.append((players, []))
            count += seats
        for index in range(max(0, args.clients - count)):
            tables[index % len(tables)][1].append(
                Client(f"watcher{index}", asyncssh.generate_private_key("ssh-ed25519"))
            )

        everyone = [c for players, watchers in tables for c in players + watchers]
        started = time.perf_counter()
        if args.watch_direct:
            # The spectators straight to their tables (all at once, or --waves at a time); the players by the lobby.
            seated = [c for players, _w in tables for c in players]
            arriving = [(index, watcher) for index, (_p, watchers) in enumerate(tables) for watcher in watchers]
            waves = args.waves or len(arriving) or 1
            players_in = asyncio.gather(*(c.open(port) for c in seated))
            for start in range(0, len(arriving), waves):
                wave = arriving[start:start + waves]
                await asyncio.gather(*(watcher.open(port, f"watch {table_ids[i]}") for i, watcher in wave))
                if args.waves:
                    await asyncio.gather(*(watcher.wait_for(b"you are watching") for _i, watcher in wave))
            await players_in
            await asyncio.gather(*(c.wait_for(b"signed in as") for c in seated))
            for player in seated:
                player.press(b"\r")
            await asyncio.gather(*(watcher.wait_for(b"you are watching") for _i, watcher in arriving))
        elif args.waves:
            # The players first, then the spectators a few at a time, each at her table before the next come.
            seated = [c for players, _w in tables for c in players]
            await asyncio.gather(*(c.open(port) for c in seated))
            await asyncio.gather(*(c.wait_for(b"signed in as") for c in seated))
            for player in seated:
                player.press(b"\r")
            arriving = [(index, watcher) for index, (_p, watchers) in enumerate(tables) for watcher in watchers]
            arriving.sort(key=lambda pair: int(pair[1].name.removeprefix("watcher")))
            for start in range(0, len(arriving), args.waves):
                wave = arriving[start:start + args.waves]
                await asyncio.gather(*(watcher.open(port) for _i, watcher in wave))
                await asyncio.gather(*(watcher.wait_for(b"signed in as") for _i, watcher in wave))
                for table_index, watcher in wave:
                    watcher.press(b"\x1b[B" * table_index + b"w")
                await asyncio.gather(*(watcher.wait_for(b"you are watching") for _i, watcher in wave))
        else:
            await asyncio.gather(*(c.open(port) for c in everyone))
            await asyncio.gather(*(c.wait_for(b"signed in as") for c in everyone))
        connected = time.perf_counter() - started
        # Players: their one game is highlighted, Enter resumes it.  Watchers: down to their table, w.
        for table_index, (players, watchers) in enumerate(tables):
            if args.waves or args.watch_direct:
                break  # at their tables already
            for player in players:
                player.press(b"\r")
            for watcher in watchers:
                watcher.press(b"\x1b[B" * table_index + b"w")
        await asyncio.gather(*(c.wait_for(b"Mono") for c in everyone))
        for players, _watchers in tables:  # every player sits at her table
            await asyncio.gather(*(c.wait_for(b"vs  " + players[-1].name.encode()) for c in players))
        await asyncio.gather(*(c.wait_for(b"you are watching") for _p, watchers in tables for c in watchers))
        # A lobby redrawn while a watcher's arrow keys arrive (many screens opening at once) may have moved its
        # highlight: each watcher is counted at the table it really watches.
        watching = [c for _p, watchers in tables for c in watchers]
        tables = [(players, []) for players, _w in tables]
        for watcher in watching:
            at = max(range(len(tables)), key=lambda i: watcher.text.rfind(b"vs  " + tables[i][0][-1].name.encode()))
            tables[at][1].append(watcher)
        await asyncio.gather(*(c.quiet(0.5) for c in everyone))
        drawn = time.perf_counter() - started
        await asyncio.sleep(3.0)  # the last spectators' apps let go finish closing (freed as more end: collector.py)
        loaded = rss_mb(server.pid)
        browsers: list[list[BrowserClient]] = [[] for _ in tables]
        with_browsers, browsers_connected = loaded, 0.0
        if args.browsers:
            opened_at = time.perf_counter()
            pages = [BrowserClient(f"web{index}", asyncssh.generate_private_key("ssh-ed25519"))
                     for index in range(args.browsers)]
            for index, page in enumerate(pages):
                browsers[index % len(tables)].append(page)
            for start_at in range(0, len(pages), 10):  # ten at a time: the SSH sign-ins are throttled per address
                await asyncio.gather(*(
                    page.open(port, index % len(tables) + 1)
                    for index, page in enumerate(pages) if start_at <= index < start_at + 10
                ))
            await asyncio.gather(*(page.wait_for(b"you are watching") for page in pages))
            browsers_connected = time.perf_counter() - opened_at
            await asyncio.gather(*(page.quiet(0.5) for page in pages))
            with_browsers = rss_mb(server.pid)
        # Opening 30 screens keeps the server busy for a while after the last byte: wait until it is idle.
        settle_deadline = time.perf_counter() + 60
        while True:
            idle_cpu = cpu_seconds(server.pid)
            await asyncio.sleep(2)
            idle_cpu = (cpu_seconds(server.pid) - idle_cpu) / 2
            if idle_cpu < 0.2 or time.perf_counter() > settle_deadline:
                break
        # Then idle for real, long enough to see the clocks' ticks (a timed screen repaints once a second).
        idle_cpu = cpu_seconds(server.pid)
        await asyncio.sleep(10)
        idle_cpu = (cpu_seconds(server.pid) - idle_cpu) / 10

        samples: list[float] = []
        probing: list[float] = []
        browser_samples: list[float] = []
        database_cpu = tree_cpu_seconds(database_pid) if database_pid else 0.0
        server_cpu = cpu_seconds(server.pid)
        own_cpu = time.process_time()
        profiler = None
        if args.profile:  # what the moves cost, not the sign-ins: sampled from here to the last move
            profiler = subprocess.Popen(
                [shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy"), "record", "--nonblocking",
                 "--format", "raw", "--rate", "200", "--subprocesses", "--output", args.profile,
                 "--pid", str(server.pid)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            await asyncio.sleep(1.0)  # attached before the first move
        analysts = [(f"analyst{index}", asyncssh.generate_private_key("ssh-ed25519"), table_id)
                    for index, table_id in enumerate(analysed)]
        asked = await ask_analyses(port, analysts)
        began = time.perf_counter()
        seek_latencies: list[float] = []
        seek_tables: list[int] = []
        lanes = 4
        pairs = [(f"seeker{index}a", f"seeker{index}b") for index in range(args.seeks // 2)]
        spacing = args.moves * args.pace * lanes / max(1, args.seeks)  # spread over the moves
        # Each lane seeks pair after pair, one seek after the other: the second seek of a pair meets the first.
        seeking = asyncio.gather(*(
            seek_lane(port, [name for pair in pairs[lane::lanes] for name in pair], spacing, seek_latencies,
                      seek_tables)
            for lane in range(lanes)
        ))
        made = await asyncio.gather(
            *(play_table(p, w, args.moves, args.pace, samples, rng, probing, b, browser_samples)
              for (p, w), b in zip(tables, browsers))
        )
        elapsed = time.perf_counter() - began
        await seeking
        seeks_elapsed = time.perf_counter() - began
        if profiler is not None:
            profiler.send_signal(signal.SIGINT)  # py-spy writes its file on Ctrl+C
            profiler.wait(60)
        server_cpu = cpu_seconds(server.pid) - server_cpu
        database_cpu = (tree_cpu_seconds(database_pid) if database_pid else 0.0) - database_cpu
        own_cpu = time.process_time() - own_cpu
        after = rss_mb(server.pid)
        answers = await ask_analyses(port, analysts)
        for client in everyone:
            await client.close()
        for page in (page for pages_at in browsers for page in pages_at):
            await page.close()

        samples.sort()
        p95 = samples[max(0, int(len(samples) * 0.95) - 1)] if samples else float("nan")
        print(f"clients: {len(everyone)} ({sum(len(p) for p, _ in tables)} players at {len(tables)} Mono tables, "
              f"{sum(len(w) for _, w in tables)} spectators); all signed in and drawn in {connected:.2f} s")
        print(f"moves: {sum(made)} in {elapsed:.1f} s, {len(samples)} arrivals on other screens")
        if samples:
            print(f"move -> other screens: median {statistics.median(samples):.0f} ms, "
                  f"95th percentile {p95:.0f} ms, max {samples[-1]:.0f} ms (target: 95th < 200 ms)")
        if args.watch_direct:
            print(f"sign-in: the spectators straight to their tables (watch TABLE), the players by the lobby: all at "
                  f"their tables in {connected:.1f} s, and quiet in {drawn:.1f} s")
        else:
            print(f"sign-in: all {len(everyone)} signed in with their lobby drawn in {connected:.1f} s, at their "
                  f"tables and quiet in {drawn:.1f} s")
        if probing:
            probing.sort()
            print(
                f"  probing turns only (the layouts and the switch to probing excluded): median "
                f"{statistics.median(probing):.0f} ms, "
                f"95th percentile {probing[max(0, int(len(probing) * 0.95) - 1)]:.0f} ms"
            )
        if browser_samples:
            browser_samples.sort()
            print(
                f"move -> browser screens ({args.browsers} sessions watching, all opened in "
                f"{browsers_connected:.1f} s): median {statistics.median(browser_samples):.0f} ms, 95th percentile "
                f"{browser_samples[max(0, int(len(browser_samples) * 0.95) - 1)]:.0f} ms, "
                f"max {browser_samples[-1]:.0f} ms ({len(browser_samples)} arrivals)"
            )
        if args.seeks:
            seek_latencies.sort()
            print(
                f"seeks: {len(seek_latencies)} over SSH in {seeks_elapsed:.1f} s, {len(seek_tables)} tables made "
                f"(of {args.seeks // 2} pairs); a seek's round trip (connect, sign in, seek): median "
                f"{statistics.median(seek_latencies):.0f} ms, 95th percentile "
                f"{seek_latencies[max(0, int(len(seek_latencies) * 0.95) - 1)]:.0f} ms"
            )
        if analysts:
            running = [line for line in answers if "being analysed" in line]
            print(
                f"analyses: {len(analysts)} asked for at once at level hard just before the moves "
                f"({sum('queued' in line for line in asked)} queued); after the moves {answers.count('done')} done, "
                f"{len(running)} running ({'; '.join(line.split(': ')[1].split(';')[0] for line in running) or '-'}), "
                f"{sum('queued' in line for line in answers)} queued"
            )
        print(f"server CPU with {len(everyone)} clients and no moves: {idle_cpu * 100:.1f}% of a core (over 10 s)")
        print(
            f"CPU during the moves: server {server_cpu:.1f} s ({server_cpu / max(1, sum(made)) * 1000:.0f} ms a move), "
            f"the {len(everyone)} clients {own_cpu:.1f} s, in {elapsed:.1f} s"
        )
        arrivals = len(samples) + len(browser_samples)
        if arrivals:
            print(f"  server CPU per redraw per screen: {server_cpu / arrivals * 1000:.2f} ms "
                  f"({arrivals} screens redrawn)")
        if database_pid:
            print(f"  PostgreSQL (every process of the throwaway cluster): {database_cpu:.2f} s")
        print(
            f"server RSS: {idle:.0f} MB idle, {loaded:.0f} MB with {len(everyone)} clients, "
            f"{after:.0f} MB after the moves; {(loaded - idle) / max(1, len(everyone)):.1f} MB a client"
        )
        if args.browsers:
            print(
                f"  with {args.browsers} browser sessions: {with_browsers:.0f} MB, "
                f"{(with_browsers - loaded) / args.browsers:.1f} MB a browser session"
            )
        server_kind = (
            f"{args.workers} workers, PostgreSQL" if args.workers > 1
            else "1 process, " + ("PostgreSQL" if env.get("TERMGAMES_DB") else "SQLite")
        )
        print(f"server: {server_kind}; tables {'timed ' + args.clock if args.clock else 'untimed'}")
        print(f"machine: {os.cpu_count()} cores, load average {load_before:.2f} before, "
              f"{os.getloadavg()[0]:.2f} after")
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    asyncio.run(main())
