"""Figures of issue 14: bits in a fresh seed, and moves lost when `termgames move` races on one record.

    python bench/hostile.py [--races 5] [--movers 12] [--flood] [--tables 1000] [--sigterm 8]

``--flood``: an in-process ``termgames serve`` on 127.0.0.1; one SSH client floods its lobby with 200 kB of
keys while another player runs ``tables``: that command's time (seconds).  ``--tables N``: with N tables open,
the time of a move made with the ``move`` command over SSH (median of 8, connection already open).
``--sigterm N``: ``termgames serve`` in a child process, quiet and then with computer-only tables of every game
playing (their hardest levels), sent SIGTERM N times each: the seconds from the signal to the process's exit.

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--races", type=int, default=5)
    parser.add_argument("--movers", type=int, default=12, choices=range(2, len(CELLS) + 1), metavar="2-16")
    parser.add_argument("--flood", action="store_true", help="time another player's command during a flood")
    parser.add_argument("--flood-size", type=int, default=200_000)
    parser.add_argument("--tables", type=int, default=0, help="time a move with this many tables open")
    parser.add_argument("--sigterm", type=int, default=0, metavar="RUNS", help="time SIGTERM to exit, RUNS times")
    args = parser.parse_args()
    if args.sigterm:
        sigterm_figure(args.sigterm)
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
