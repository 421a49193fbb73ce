"""Figures of issue 14: bits in a fresh seed, and moves lost when `termgames move` races on one record.

    python bench/hostile.py [--races 5] [--movers 12] [--flood] [--tables 1000] [--sigterm 8] [--resize-flood]

``--flood``: an in-process ``termgames serve`` on 127.0.0.1; one SSH client floods its lobby with 200 kB of
keys while another player runs ``tables``: that command's time (seconds).  ``--tables N``: with N tables open,
the time of a move made with the ``move`` command over SSH (median of 8, connection already open).
``--sigterm N``: ``termgames serve`` in a child process, quiet and then with computer-only tables of every game
playing (their hardest levels), sent SIGTERM N times each: the seconds from the signal to the process's exit;
and once more under the load of issue 32 (three hard computer players, five SSH screens, five browser pages).
``--channels``: one guest opens 8 SSH connections of 100 screens each (issue 32) against ``termgames serve``
in a child process: how many got a screen, and the server's resident memory before, with them open, and after
they closed.
``--resize-flood``: ``termgames serve --web`` in a child process; one guest address opens its 10 pages (or 10 SSH
screens) and each sends a resize 20 times a second, alternating 240x80 and 20x8, while another player runs
``ssh ... tables`` (before and during: median and max seconds) and moves at a one-minute table (the seconds
her clock was charged against the seconds the move took from key to screen).

Each race starts ``--movers`` processes that run ``termgames move RECORD CELL`` on one Copolymer record at
the same moment (distinct cells, so every move is legal whoever comes first) and counts the moves that
reported success but are missing from the record afterwards.  Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from termgames import records
from termgames.match import SEED_BITS, Match, SeatInfo, random_seed

CELLS = ["A1", "A3", "A5", "C1", "C4", "C7", "E1", "E5", "E9", "G4", "G7", "J7", "B2", "D5", "H6", "F3"]


def race(folder: Path, number: int, movers: int) -> tuple[int, int]:
    """One race: (moves accepted, moves lost)."""
    path = folder / f"race{number}.json"
    records.save(path, Match("copolymer", {"size": 9}, [SeatInfo("ann"), SeatInfo("bob")], random_seed()))
    command = [sys.executable, "-m", "termgames", "move", str(path)]
    children = [
        subprocess.Popen([*command, cell], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for cell in CELLS[:movers]
    ]
    accepted = sum(child.wait() == 0 for child in children)
    kept = len(records.load(path).moves)
    return accepted, accepted - kept


async def flood_figure(size: int) -> None:
    import asyncio

    import asyncssh

    from termgames.server.ssh import start_server

    keys = {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("alice", "mallory")}
    with tempfile.TemporaryDirectory() as folder:
        server = await start_server(folder, "127.0.0.1", 0)
        try:
            async with asyncssh.connect(
                "127.0.0.1", server.port, username="mallory", client_keys=[keys["mallory"]], known_hosts=None
            ) as flooder:
                process = await flooder.create_process(term_type="xterm", term_size=(100, 30), encoding=None)
                await asyncio.sleep(1.0)  # the lobby is up
                burst = (b"j" * 50 + b"k" * 50 + b"\x1b[B" * 20 + b"\x1b[A" * 20) * (size // 220 + 1)
                process.stdin.write(burst[:size])
                await asyncio.sleep(0.3)
                started = time.monotonic()
                async with asyncssh.connect(
                    "127.0.0.1", server.port, username="alice", client_keys=[keys["alice"]], known_hosts=None
                ) as conn:
                    await conn.run("tables", check=False)
                took = time.monotonic() - started
                process.close()
            print(f"flood: another player's tables during a {size // 1000} kB keystroke flood: {took:.2f} s")
        finally:
            await server.close()


async def tables_figure(count: int) -> None:
    import statistics

    import asyncssh

    from termgames.match import Seat
    from termgames.server.limits import NEW_PLAYER_TABLES
    from termgames.server.ssh import start_server

    key = asyncssh.generate_private_key("ssh-ed25519")
    with tempfile.TemporaryDirectory() as folder:
        server = await start_server(folder, "127.0.0.1", 0, max_tables=count + 10)
        try:
            # One creator per few tables: a newcomer's limit (the per-player limits) stays the default.
            for number in range(count):
                seats = [Seat(name="alice"), Seat(name="bob")]
                last = server.hub.create_table(
                    "copolymer", {"size": 9}, seats, f"host{number // NEW_PLAYER_TABLES}"
                )
            times = []
            async with asyncssh.connect(
                "127.0.0.1", server.port, username="alice", client_keys=[key], known_hosts=None
            ) as conn:
                for index in range(0, len(CELLS), 2):  # distinct cells: every move is legal
                    started = time.monotonic()
                    result = await conn.run(f"move {last.id} {CELLS[index]}", check=False)
                    times.append(time.monotonic() - started)
                    if result.exit_status != 0:
                        raise SystemExit(f"the move was refused: {result.stderr}")
                    last.play(1, CELLS[index + 1])  # bob answers, straight at the hub
            print(f"{count} tables open: a move over SSH (command round trip) median "
                  f"{statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms")
        finally:
            await server.close()


#: Computer-only tables the SIGTERM figure starts: every game at its hardest level, thinking all the time.
BUSY_TABLES = [
    ("mono", {"size": 9}, "hard"),
    ("copolymer", {}, "hard"),
    ("mosaic", {}, "hard"),
    ("monunrail", {}, "hard"),
    ("monad", {}, "swarm"),
]


def sigterm_time(folder: Path, port: int, players: int) -> float:
    """Start ``termgames serve`` on ``folder`` with ``players`` SSH players in its lobby, let it run 3 s, send
    SIGTERM: the seconds until the process has exited."""
    import asyncio
    import signal
    import threading

    import asyncssh

    command = [sys.executable, "-m", "termgames", "serve", "--data", str(folder), "--port", str(port)]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    for line in server.stderr:  # the server says it listens once every table is loaded
        if line.startswith("termgames serve:"):
            break
    else:
        raise SystemExit(f"the server did not start (status {server.wait()})")
    drawn: list[int] = []
    started_at = time.monotonic_ns() % 10**9  # fresh names: a name is its first key's

    async def play(number: int) -> None:
        key = asyncssh.generate_private_key("ssh-ed25519")
        async with asyncssh.connect(
            "127.0.0.1", port, username=f"p{started_at}x{number}", client_keys=[key], known_hosts=None
        ) as connection:
            process = await connection.create_process(term_type="xterm", term_size=(100, 30), encoding=None)
            with contextlib.suppress(Exception):
                await process.stdout.read(1)  # the lobby is being drawn
                drawn.append(number)
                while await process.stdout.read(65536):  # until the server closes the channel
                    pass

    async def everyone() -> None:
        await asyncio.gather(*(play(number) for number in range(players)), return_exceptions=True)

    clients = threading.Thread(target=lambda: asyncio.run(everyone()), daemon=True)
    clients.start()
    deadline = time.monotonic() + 30
    while len(drawn) < players and time.monotonic() < deadline:
        time.sleep(0.05)
    if len(drawn) < players:
        server.kill()  # a figure without its players would mean nothing: no server is left behind either
        server.wait()
        raise SystemExit(f"only {len(drawn)} of {players} players got in")
    time.sleep(3.0)  # the computer seats think meanwhile
    started = time.monotonic()
    server.send_signal(signal.SIGTERM)
    server.wait(60)
    took = time.monotonic() - started
    clients.join(10)
    return took


def sigterm_figure(runs: int) -> None:
    import socket
    import statistics

    from termgames.server.ssh import DATABASE_NAME
    from termgames.server.stores.sqlite import Store

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as quiet, tempfile.TemporaryDirectory() as busy:
        store = Store(Path(busy) / DATABASE_NAME)
        for copy in range(2):
            for game, options, level in BUSY_TABLES:
                seats = [{"kind": "ai", "name": f"cpu{n}", "level": level} for n in (1, 2)]
                store.create_table(game, options, random_seed(), seats, f"bench{copy}")
        store.close()
        cases = [("quiet server", quiet), (f"{2 * len(BUSY_TABLES)} computer tables playing", busy)]
        for name, folder in cases:
            for players in (0, 3):
                times = [sigterm_time(Path(folder), port, players) for _ in range(runs)]
                print(f"SIGTERM to exit, {name}, {players} players in the lobby: "
                      f"median {statistics.median(times):.2f} s, max {max(times):.2f} s ({runs} runs)")


def start_serving(folder: Path, port: int, web_port: int, *extra: str) -> subprocess.Popen[str]:
    """``termgames serve --web`` in a child process, once it listens (its stderr drained meanwhile)."""
    import threading

    command = [sys.executable, "-m", "termgames", "serve", "--data", str(folder), "--port", str(port),
               "--web", str(web_port), *extra]
    # Run from the data folder: ``-m termgames`` is the interpreter's (bench/hostile.py from another checkout's
    # interpreter times that checkout's server).
    server = subprocess.Popen(command, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    for line in server.stderr:
        if line.startswith("termgames serve --web:"):
            break
    else:
        raise SystemExit(f"the server did not start (status {server.wait()})")
    stream = server.stderr
    threading.Thread(target=lambda: [None for _ in stream], daemon=True).start()
    return server


def free_ports(count: int) -> list[int]:
    import socket

    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


#: Resizes a second each flooding terminal sends, and the sizes it alternates between (issue 32).
FLOOD_RATE = 20.0
FLOOD_SIZES = [(240, 80), (20, 8)]


async def browser_flood(web_port: int, pages: int, stop: object) -> None:
    """A guest's ``pages`` pages, each sending resizes at ``FLOOD_RATE`` until ``stop`` (an asyncio.Event) is set."""
    import asyncio
    import json

    import aiohttp

    base = f"http://127.0.0.1:{web_port}/"
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        await http.post(base + "guest", headers={"Origin": base.rstrip("/")}, allow_redirects=False)

        async def page() -> None:
            async with http.ws_connect(f"{base}ws?session=&width=100&height=30",
                                       headers={"Origin": base.rstrip("/")}) as socket:
                async def drain() -> None:
                    async for _message in socket:
                        pass

                reader = asyncio.create_task(drain())
                number = 0
                while not stop.is_set() and not socket.closed:  # type: ignore[attr-defined]
                    width, height = FLOOD_SIZES[number % 2]
                    number += 1
                    await socket.send_str(json.dumps(["resize", {"width": width, "height": height}]))
                    await asyncio.sleep(1 / FLOOD_RATE)
                reader.cancel()

        await asyncio.gather(*(page() for _ in range(pages)), return_exceptions=True)


async def ssh_flood(port: int, screens: int, stop: object) -> None:
    """A guest's ``screens`` SSH screens (one connection each), each resized at ``FLOOD_RATE`` until ``stop``."""
    import asyncio

    import asyncssh

    async def screen() -> None:
        async with asyncssh.connect(
            "127.0.0.1", port, username="mallory", known_hosts=None, client_keys=None,
            preferred_auth="keyboard-interactive", password="",
        ) as conn:
            process = await conn.create_process(term_type="xterm", term_size=(100, 30), encoding=None)

            async def drain() -> None:
                while await process.stdout.read(65536):
                    pass

            reader = asyncio.create_task(drain())
            number = 0
            while not stop.is_set():  # type: ignore[attr-defined]
                width, height = FLOOD_SIZES[number % 2]
                number += 1
                process.change_terminal_size(width, height)
                await asyncio.sleep(1 / FLOOD_RATE)
            reader.cancel()

    await asyncio.gather(*(screen() for _ in range(screens)), return_exceptions=True)


async def tables_times(port: int, key: object, runs: int) -> list[float]:
    """Seconds each of ``runs`` ``ssh alice@... tables`` took (a new connection each)."""
    import asyncssh

    times = []
    for _ in range(runs):
        started = time.monotonic()
        async with asyncssh.connect(
            "127.0.0.1", port, username="alice", client_keys=[key], known_hosts=None
        ) as conn:
            await conn.run("tables", check=False)
        times.append(time.monotonic() - started)
    return times


async def timed_move(port: int, number: int) -> tuple[float, float]:
    """A new player moves at a one-minute Copolymer table against another: (seconds her clock was charged,
    seconds from her key to the move on her screen)."""
    import asyncio
    import json

    import asyncssh

    mover, other = f"mover{number}", f"other{number}"
    keys = {name: asyncssh.generate_private_key("ssh-ed25519") for name in (mover, other)}
    async with asyncssh.connect("127.0.0.1", port, username=other, client_keys=[keys[other]],
                                known_hosts=None) as conn:
        await conn.run("tables", check=False)  # the name is this key's
    async with asyncssh.connect(
        "127.0.0.1", port, username=mover, client_keys=[keys[mover]], known_hosts=None
    ) as conn:
        made = await conn.run(f"challenge copolymer --size 5 --clock 1m {other}", check=False)
        table = next(word for word in made.stdout.replace(":", " ").split() if word.isdigit())
        process = await conn.create_process(term_type="xterm", term_size=(100, 30), encoding=None)
        seen = bytearray()

        async def until(needle: bytes, timeout: float = 60) -> None:
            async with asyncio.timeout(timeout):
                while needle not in seen:
                    seen.extend(await process.stdout.read(65536))

        await until(b"your move")
        process.stdin.write(b"\r")  # the table (her only one)
        await until(b"to claim")
        seen.clear()
        started = time.monotonic()
        process.stdin.write(b"\r")  # claim the cursor's cell
        await until(f"{other} to claim".encode())
        took = time.monotonic() - started
        process.close()
        shown = await conn.run(f"show {table} --json", check=False)
    left = json.loads(shown.stdout)["clock"][mover]
    return 60.0 - left, took


def resize_flood_figure(runs: int) -> None:
    import asyncio
    import statistics

    import asyncssh

    keys = {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("alice", "bob")}
    port, web_port = free_ports(2)
    with tempfile.TemporaryDirectory() as folder:
        server = start_serving(Path(folder), port, web_port)
        try:
            async def figures() -> None:
                async with asyncssh.connect("127.0.0.1", port, username="bob", client_keys=[keys["bob"]],
                                            known_hosts=None) as conn:
                    await conn.run("tables", check=False)  # bob's name is his key's
                before = await tables_times(port, keys["alice"], runs)
                print(f"another player's tables, quiet server: median {statistics.median(before):.2f} s, "
                      f"max {max(before):.2f} s ({runs} runs)")
                floods = (("10 browser pages", browser_flood), ("10 SSH screens", ssh_flood))
                for number, (name, flood) in enumerate(floods):
                    stop = asyncio.Event()
                    flooding = asyncio.create_task(flood(web_port if flood is browser_flood else port, 10, stop))
                    await asyncio.sleep(3.0)  # every page is up and flooding
                    during = await tables_times(port, keys["alice"], runs)
                    charged, took = await timed_move(port, number)
                    stop.set()
                    await flooding
                    print(f"another player's tables during a resize flood from {name}: median "
                          f"{statistics.median(during):.2f} s, max {max(during):.2f} s; her move at a one-minute "
                          f"table: key to screen {took:.2f} s, her clock charged {charged:.1f} s "
                          "(from the challenge to her move)")

            asyncio.run(figures())
        finally:
            server.terminate()
            server.wait(30)


def sigterm_under_load(runs: int) -> None:
    """SIGTERM to ``termgames serve --web`` while three hard computer players play (watched by five SSH screens)
    and five browser pages are open (issue 32's load): the seconds from the signal to the process's exit."""
    import statistics

    times = [sigterm_load_time() for _ in range(runs)]
    print(f"SIGTERM to exit, 3 hard computer players, 5 SSH screens watching, 5 browser pages: "
          f"median {statistics.median(times):.2f} s, max {max(times):.2f} s ({runs} runs)")


def sigterm_load_time() -> float:
    import asyncio
    import signal
    import threading

    import asyncssh

    from termgames.server.ssh import DATABASE_NAME
    from termgames.server.stores.sqlite import Store

    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / DATABASE_NAME)
        seats = [{"kind": "ai", "name": f"cpu{n}", "level": "hard"} for n in (1, 2, 3)]
        store.create_table("mosaic", {}, random_seed(), seats, "bench")
        store.close()
        port, web_port = free_ports(2)
        server = start_serving(Path(folder), port, web_port)
        ready: list[str] = []
        stop = threading.Event()

        async def watcher(number: int) -> None:
            key = asyncssh.generate_private_key("ssh-ed25519")
            async with asyncssh.connect("127.0.0.1", port, username=f"watcher{number}", client_keys=[key],
                                        known_hosts=None) as conn:
                process = await conn.create_process(term_type="xterm", term_size=(100, 30), encoding=None)
                await process.stdout.read(1)
                await asyncio.sleep(1.0)
                process.stdin.write(b"\r")  # watch the table being played
                ready.append("ssh")
                with contextlib.suppress(Exception):
                    while await process.stdout.read(65536):
                        pass

        async def everyone() -> None:
            pages = asyncio.Event()
            tasks = [asyncio.create_task(watcher(number)) for number in range(5)]
            tasks.append(asyncio.create_task(browser_flood_pages(web_port, 5, pages, ready)))
            while not stop.is_set():
                await asyncio.sleep(0.05)
            pages.set()
            await asyncio.gather(*tasks, return_exceptions=True)

        clients = threading.Thread(target=lambda: asyncio.run(everyone()), daemon=True)
        clients.start()
        deadline = time.monotonic() + 30
        while len(ready) < 10 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(3.0)  # the computers think meanwhile
        started = time.monotonic()
        server.send_signal(signal.SIGTERM)
        server.wait(60)
        took = time.monotonic() - started
        stop.set()
        clients.join(10)
        if len(ready) < 10:
            raise SystemExit(f"only {len(ready)} of 10 terminals got in")
        return took


async def browser_flood_pages(web_port: int, pages: int, stop: object, ready: list[str]) -> None:
    """A guest's ``pages`` quiet pages (their output read), open until ``stop`` (an asyncio.Event) is set."""
    import asyncio

    import aiohttp

    base = f"http://127.0.0.1:{web_port}/"
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        await http.post(base + "guest", headers={"Origin": base.rstrip("/")}, allow_redirects=False)

        async def page() -> None:
            async with http.ws_connect(f"{base}ws?session=&width=100&height=30",
                                       headers={"Origin": base.rstrip("/")}) as socket:
                await socket.receive()
                ready.append("page")
                # A page that reads no more (a tab in the background, a browser busy with its flood): the server's
                # goodbye waits for no answer.
                while not stop.is_set():  # type: ignore[attr-defined]
                    await asyncio.sleep(0.05)

        await asyncio.gather(*(page() for _ in range(pages)), return_exceptions=True)


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def channels_figure(connections: int, channels: int) -> None:
    import asyncio

    import asyncssh

    port, web_port = free_ports(2)
    with tempfile.TemporaryDirectory() as folder:
        server = start_serving(Path(folder), port, web_port)
        try:
            before = resident_mb(server.pid)

            async def screen(conn: asyncssh.SSHClientConnection) -> bool:
                """True when the channel got a screen (its first bytes are not a refusal)."""
                try:
                    process = await conn.create_process(term_type="xterm", term_size=(100, 30), encoding=None)
                    async with asyncio.timeout(30):
                        first = await process.stdout.read(200)
                except (asyncssh.Error, OSError, TimeoutError):
                    return False
                return not first.startswith(b"termgames:")

            async def attack() -> tuple[int, float]:
                conns = [
                    await asyncssh.connect("127.0.0.1", port, username="mallory", known_hosts=None,
                                           client_keys=None, preferred_auth="keyboard-interactive", password="")
                    for _ in range(connections)
                ]
                got = await asyncio.gather(*(screen(conn) for conn in conns for _ in range(channels)))
                await asyncio.sleep(2.0)
                during = resident_mb(server.pid)
                for conn in conns:
                    conn.close()
                return sum(got), during

            opened, during = asyncio.run(attack())
            time.sleep(10.0)
            after = resident_mb(server.pid)
            print(f"one guest, {connections} connections of {channels} screens: {opened} got a screen; the server's "
                  f"memory {before:.0f} MB before, {during:.0f} MB with them open, {after:.0f} MB 10 s after they "
                  "closed")
        finally:
            server.terminate()
            server.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--races", type=int, default=5)
    parser.add_argument("--movers", type=int, default=12, choices=range(2, len(CELLS) + 1), metavar="2-16")
    parser.add_argument("--flood", action="store_true", help="time another player's command during a flood")
    parser.add_argument("--flood-size", type=int, default=200_000)
    parser.add_argument("--tables", type=int, default=0, help="time a move with this many tables open")
    parser.add_argument("--sigterm", type=int, default=0, metavar="RUNS", help="time SIGTERM to exit, RUNS times")
    parser.add_argument("--sigterm-load-only", action="store_true", help="with --sigterm: issue 32's load only")
    parser.add_argument("--channels", action="store_true", help="one guest's 8 connections of 100 SSH screens")
    parser.add_argument("--resize-flood", type=int, default=0, metavar="RUNS",
                        help="time another player's tables and move during resize floods, RUNS times each")
    args = parser.parse_args()
    if args.resize_flood:
        resize_flood_figure(args.resize_flood)
        return
    if args.channels:
        channels_figure(8, 100)
        return
    if args.sigterm:
        if not args.sigterm_load_only:
            sigterm_figure(args.sigterm)
        sigterm_under_load(args.sigterm)
        return
    if args.flood or args.tables:
        import asyncio

        if args.flood:
            asyncio.run(flood_figure(args.flood_size))
        if args.tables:
            asyncio.run(tables_figure(args.tables))
        return
    seeds = [random_seed() for _ in range(1000)]
    print(f"seed bits: {SEED_BITS} (largest of 1000 fresh seeds has {max(s.bit_length() for s in seeds)} bits)")
    started = time.monotonic()
    accepted = lost = 0
    with tempfile.TemporaryDirectory() as folder:
        for number in range(args.races):
            won, gone = race(Path(folder), number, args.movers)
            accepted, lost = accepted + won, lost + gone
    seconds = time.monotonic() - started
    print(f"raced moves: {args.races} races of {args.movers}, {accepted} accepted, {lost} lost ({seconds:.1f} s)")


if __name__ == "__main__":
    main()
