"""How long the server's loop waits for its store: one move stored, a screen's presence, a table's moves read.

    python bench/store_ops.py [--db postgresql://USER@HOST/DB | --db throwaway] [--moves 300]

Every store call is made from the server's event loop and answered at once (the PostgreSQL store runs
asyncpg on a thread of its own and the loop waits for the answer: see ``termgames/server/stores/postgres.py``),
so these times are how long each change holds every screen of that server process.  Without ``--db``,
the SQLite file of one process, for comparison.  Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from termgames.match import MoveRecord  # after the path: the tree's termgames, not an installed one
from termgames.server.stores import open_store


def timed(action: Callable[[int], object], count: int) -> list[float]:
    times = []
    for number in range(count):
        started = time.perf_counter()
        action(number)
        times.append((time.perf_counter() - started) * 1000)
    return sorted(times)


def report(name: str, times: list[float]) -> None:
    p95 = times[max(0, int(len(times) * 0.95) - 1)]
    print(f"{name:<28} median {statistics.median(times):6.2f} ms   95th percentile {p95:6.2f} ms   ({len(times)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None)
    parser.add_argument("--moves", type=int, default=300)
    args = parser.parse_args()
    cluster = None
    url = args.db
    if url == "throwaway":
        sys.path.insert(0, str(ROOT / "tests"))
        from pgcluster import start_cluster  # type: ignore[import-not-found]  # tests/ is on sys.path just above

        cluster = start_cluster()
        url = cluster.new_database()
    folder = Path(tempfile.mkdtemp(prefix="termgames-store-bench-"))
    store = open_store(url, folder / "termgames.db")
    try:
        seats = [{"kind": "human", "name": "alice"}, {"kind": "human", "name": "bob"}]
        table_id = store.create_table("copolymer", {"size": 5}, 1, seats, "alice")
        report("a move stored (append_move)", timed(
            lambda ply: store.append_move(table_id, ply, MoveRecord(ply % 2, f"move{ply}", "t")), args.moves
        ))
        report("a screen opens (enter)", timed(lambda _n: store.enter(table_id, "carol", False), args.moves))
        report("the table's moves read", timed(lambda _n: store.moves_from(table_id, 0), 50))
        report("an account looked up", timed(lambda _n: store.key_of("alice"), args.moves))
        print(f"store: {store.describe()}")
    finally:
        store.close()
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
