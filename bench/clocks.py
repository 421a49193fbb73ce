"""What the server's clocks cost: an idle server with 1,000 running clocks, a move's latency, a flag's delay.

    python bench/clocks.py [--tables 1000] [--idle 60] [--moves 400] [--flags 100] [--db throwaway|URL]

Runs a hub (what one ``termgames serve`` process holds, without SSH) in this process, on SQLite in a
temporary folder or on PostgreSQL (``--db throwaway`` starts a temporary cluster from the installed
binaries, as the tests do):

* **idle**: ``--tables`` open tables of two seats with running clocks (``3d/move``), then the process's CPU
  over ``--idle`` seconds with nothing happening; the same with untimed tables for comparison.
* **a move**: the time ``LiveTable.play`` takes (the move checked, stored, announced) at timed and untimed
  tables, median and 95th percentile of ``--moves`` moves each.
* **a flag**: ``--flags`` tables whose clocks (``2s``) run out 20 ms apart; how long after its deadline each
  seat is flagged (the one timer's delay, the store's transaction included; each flag ends its game, whose
  record is written and synced: about 8 ms, so flags much closer together than that queue up).

Figures are printed, never asserted (targets: idle under 2 % of a core; a move's latency unchanged; a flag
within 1 s).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from termgames.clock import ClockSpec  # after the path: the tree's termgames, not an installed one
from termgames.match import Seat
from termgames.server.hub import Hub
from termgames.server.stores import open_store


def new_hub(url: str | None, folder: Path) -> Hub:
    return Hub(open_store(url, folder / "termgames.db"), folder / "records", max_tables=100_000,
               max_tables_per_player=100_000)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(len(ordered) * share) - 1)]


async def idle_cpu(url: str | None, tables: int, seconds: float, clock: ClockSpec | None) -> float:
    """The hub's CPU over ``seconds`` with ``tables`` open tables and nothing happening, in % of a core."""
    folder = Path(tempfile.mkdtemp(prefix="termgames-clocks-"))
    hub = new_hub(url, folder)
    for number in range(tables):
        hub.create_table("copolymer", {"size": 9}, [Seat(f"a{number}"), Seat(f"b{number}")], f"a{number}",
                         clock=clock)
    hub.start()
    await asyncio.sleep(2)  # the start-up's work done
    before_cpu, before = time.process_time(), time.perf_counter()
    await asyncio.sleep(seconds)
    used = (time.process_time() - before_cpu) / (time.perf_counter() - before)
    hub.close()
    hub.store.close()
    return used * 100


async def move_latency(url: str | None, moves: int, clock: ClockSpec | None) -> list[float]:
    """Milliseconds each ``play`` takes, over ``moves`` moves at tables of two (a new table every 40 moves)."""
    folder = Path(tempfile.mkdtemp(prefix="termgames-clocks-"))
    hub = new_hub(url, folder)
    hub.start()
    samples: list[float] = []
    table = None
    while len(samples) < moves:
        if table is None or table.over or len(table.match.moves) >= 40:
            number = len(samples)
            table = hub.create_table("copolymer", {"size": 9}, [Seat(f"a{number}"), Seat(f"b{number}")],
                                     f"a{number}", clock=clock)
        seat = table.to_move()[0]
        view = table.view(seat)
        cell = view.board.names[min(view.legal_cells())]  # type: ignore[attr-defined]  # a Copolymer view
        started = time.perf_counter()
        table.play(seat, cell)
        samples.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(0)
    hub.close()
    hub.store.close()
    return samples


async def flag_delays(url: str | None, count: int) -> list[float]:
    """Seconds between each of ``count`` deadlines and the flag that fell for it."""
    folder = Path(tempfile.mkdtemp(prefix="termgames-clocks-"))
    hub = new_hub(url, folder)
    hub.start()
    deadlines: dict[int, float] = {}
    flagged: dict[int, float] = {}

    class Watch:
        def __init__(self, table_id: int) -> None:
            self.player, self.seat, self.table_id = "bench", None, table_id

        def table_event(self, kind: str, text: str) -> None:
            if kind == "notice" and "ran out of time" in text and self.table_id not in flagged:
                flagged[self.table_id] = time.time()

    for number in range(count):
        table = hub.create_table("copolymer", {"size": 5}, [Seat(f"a{number}"), Seat(f"b{number}")], f"a{number}",
                                 clock=ClockSpec.parse("2s"))
        clocks = table.match.clocks
        deadline = clocks.deadline() if clocks is not None else None
        assert deadline is not None
        deadlines[table.id] = deadline
        table.subscribers.append(Watch(table.id))
        await asyncio.sleep(0.02)  # the deadlines 20 ms apart
    end = time.time() + 10
    while len(flagged) < count and time.time() < end:
        await asyncio.sleep(0.05)
    hub.close()
    hub.store.close()
    return [flagged[table_id] - deadline for table_id, deadline in deadlines.items() if table_id in flagged]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--idle", type=float, default=60.0, help="seconds of idle measured")
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--flags", type=int, default=100)
    parser.add_argument("--db", default=None, help="postgresql://USER@HOST/DB, or 'throwaway' (a temporary cluster)")
    args = parser.parse_args()
    cluster = None
    url = args.db
    if args.db == "throwaway":
        sys.path.insert(0, str(ROOT / "tests"))
        from pgcluster import start_cluster  # type: ignore[import-not-found]  # tests/ is on sys.path just above

        cluster = start_cluster()
    try:
        def database() -> str | None:
            return cluster.new_database() if cluster is not None else url

        print(f"store: {'PostgreSQL' if database() else 'SQLite'}")
        timed = await idle_cpu(database(), args.tables, args.idle, ClockSpec.parse("3d/move"))
        untimed = await idle_cpu(database(), args.tables, args.idle, None)
        print(f"idle, {args.tables} open tables: {timed:.2f} % of a core with running clocks, "
              f"{untimed:.2f} % untimed (over {args.idle:g} s; target: under 2 %)")
        for name, clock in (("untimed", None), ("timed 10m+5s", ClockSpec.parse("10m+5s"))):
            samples = await move_latency(database(), args.moves, clock)
            print(f"a move, {name}: median {statistics.median(samples):.2f} ms, "
                  f"95th percentile {percentile(samples, 0.95):.2f} ms ({len(samples)} moves)")
        delays = await flag_delays(database(), args.flags)
        if delays:
            print(f"a flag after its deadline: median {statistics.median(delays) * 1000:.0f} ms, "
                  f"95th percentile {percentile(delays, 0.95) * 1000:.0f} ms, max {max(delays) * 1000:.0f} ms "
                  f"({len(delays)} of {args.flags} flagged; target: within 1 s)")
        else:
            print("no flag fell")
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    asyncio.run(main())
