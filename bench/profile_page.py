"""How long one player page (``ssh HOST profile NAME``, the lobby's ``p``) keeps the server's loop busy.

    python bench/profile_page.py [--db throwaway | --db postgresql://USER@HOST/DB] [--tables 2000] [--repeat 5]

A hub on a new database plays ``--tables`` finished games of Mono (two regions, random moves, so each takes
a few milliseconds): alice and bob in every fourth (rated), bob and carol in the others, and every tenth against
a computer.  Then the pages of alice (a regular: her newest 100 tables are read, each with its kept record),
of dave (never played: every finished table's seats are looked through) and of bob are timed, and the
``profile`` command's text and JSON for alice.  Figures are printed, never asserted.
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

from termgames.match import AI, Seat  # after the path: the tree's termgames, not an installed one
from termgames.server.commands import run_command
from termgames.server.hub import Hub
from termgames.server.profile import player_profile
from termgames.server.stores import open_store


def fill(hub: Hub, tables: int) -> None:
    for name in ("alice", "bob", "carol", "dave"):
        hub.store.claim(name, f"SHA256:{name}")
    for number in range(tables):
        if number % 10 == 9:
            seats = [Seat(name="bob"), Seat("cpu", AI, "easy")]
        elif number % 4 == 0:
            seats = [Seat(name="alice"), Seat(name="bob")]
        else:
            seats = [Seat(name="bob"), Seat(name="carol")]
        table = hub.create_table("mono", {"size": 2}, seats, seats[0].name or "", owner=f"key:bench{number}")
        while not table.over:
            table.play(table.match.state.to_move()[0], "random")
        hub.tables.pop(table.id, None)  # finished: no longer held, as after a restart


def timed(work: Callable[[], object], repeat: int) -> str:
    took = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        took.append(time.perf_counter() - start)
    return f"median {statistics.median(took) * 1000:.1f} ms, worst {max(took) * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default="throwaway", help="throwaway (SQLite in a temporary folder) or a URL")
    parser.add_argument("--tables", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = None if args.db == "throwaway" else args.db
        store = open_store(url, Path(folder) / "termgames.db")
        hub = Hub(store, Path(folder) / "records", max_tables_per_player=args.tables + 10)
        start = time.perf_counter()
        fill(hub, args.tables)
        print(f"{args.tables} finished tables played in {time.perf_counter() - start:.1f} s ({store.describe()})")
        for name in ("alice", "bob", "dave"):
            page = player_profile(hub, name)
            figures = timed(lambda n=name: player_profile(hub, n), args.repeat)
            print(f"page of {name} ({page['played']} counted): {figures}")
        print(f"profile alice (text): {timed(lambda: run_command(hub, 'bob', 'profile alice'), args.repeat)}")
        print(f"profile alice --json: {timed(lambda: run_command(hub, 'bob', 'profile alice --json'), args.repeat)}")
        hub.close()
        store.close()


if __name__ == "__main__":
    main()
