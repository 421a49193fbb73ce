"""How long ``termgames serve`` takes to start with many finished and idle tables in its database.

    python bench/serve_startup.py [--db throwaway | --db postgresql://USER@HOST/DB] [--finished 1000 ...]
                                  [--idle 200 ...] [--open 10] [--game mosaic]

A start-up is the hub reading its database (``Hub(store)``): before issue 23 it replayed every table ever
played, finished or not; now it closes idle tables without replaying them, replays the unfinished ones and
lists the newest finished ones from their rows.  Every table here plays one game of ``--game`` between two
random computer players (a Mosaic move takes about a millisecond to replay): ``--finished`` to its end,
``--idle`` half-way with its last move 60 days ago, ``--open`` half-way a moment ago.  The database is filled
with plain SQL (it only has to hold the rows), the hub started twice (the second start finds the idle tables
closed by the first, where this version closes them).  Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from termgames.ai import make_bot  # after the path: the tree's termgames, not an installed one
from termgames.match import Match, MoveRecord, Seat
from termgames.rules import get_game
from termgames.server.hub import Hub
from termgames.server.stores import open_store

SEATS = [{"kind": "human", "name": "alice", "level": None}, {"kind": "human", "name": "bob", "level": None}]
LEVELS = {"mosaic": "random", "monad": "random"}


def one_game(game_name: str, seed: int, routines: int) -> tuple[dict, list[tuple[int, str]]]:
    """The options and moves of one game between two random computer players."""
    game = get_game(game_name)
    options = {"max_routines": routines} if game_name == "mosaic" else {}
    match = Match(game, options, [Seat("alice"), Seat("bob")], seed)
    bots = [make_bot(game_name, LEVELS.get(game_name, "easy"), seed=seat) for seat in range(2)]
    rng = random.Random(seed)
    while not match.over:
        seat = rng.choice(match.state.to_move())
        match.play(seat, bots[seat].choose(match.view(seat)))
    return match.options, [(record.seat, record.move) for record in match.moves]


def fill(store, game: str, options: dict, seed: int, moves: list[tuple[int, str]], tables: list[tuple[str, int]]):
    """``tables``: (kind, how many) with kind finished, idle or open; rows written in bulk."""
    now = datetime.now(UTC).replace(microsecond=0)
    rows = []  # (finished, moves with their times)
    for kind, count in tables:
        played = moves if kind == "finished" else moves[: len(moves) // 2]
        when = (now - timedelta(days=60) if kind == "idle" else now).isoformat()
        rows += [(kind == "finished", [(seat, move, when) for seat, move in played], when)] * count
    if hasattr(store, "db"):  # SQLite
        db = store.db
        db.execute("BEGIN")
        for finished, played, when in rows:
            table_id = db.execute(
                "INSERT INTO tables (game, options, seed, seats, creator, created, finished) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game, json.dumps(options), str(seed), json.dumps(SEATS), "alice", when, int(finished)),
            ).lastrowid
            db.executemany(
                "INSERT INTO moves (table_id, ply, seat, move, time) VALUES (?, ?, ?, ?, ?)",
                [(table_id, ply, seat, move, t) for ply, (seat, move, t) in enumerate(played)],
            )
        db.execute("COMMIT")
        return

    async def write(conn) -> None:
        async with conn.transaction():
            for finished, played, when in rows:
                table_id = await conn.fetchval(
                    "INSERT INTO tables (game, options, seed, seats, creator, created, finished) "
                    "VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                    game, json.dumps(options), str(seed), json.dumps(SEATS), "alice", when, finished,
                )
                await conn.copy_records_to_table(
                    "moves", columns=["table_id", "ply", "seat", "move", "time"],
                    records=[(table_id, ply, seat, move, t) for ply, (seat, move, t) in enumerate(played)],
                )

    store._run(write)


def start(url: str | None, path: Path) -> tuple[float, int]:
    """Seconds ``Hub(store)`` took, and how many tables it holds."""
    store = open_store(url, path)
    try:
        started = time.perf_counter()
        hub = Hub(store, None)
        took = time.perf_counter() - started
        held = len(hub.tables)
        hub.close()
        return took, held
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None)
    parser.add_argument("--game", default="mosaic")
    parser.add_argument("--finished", type=int, nargs="+", default=[0, 250, 1000])
    parser.add_argument("--idle", type=int, nargs="+", default=[0, 50, 200])
    parser.add_argument("--open", type=int, default=10)
    parser.add_argument("--routines", type=int, default=30, help="Mosaic's routine limit (its game's length)")
    args = parser.parse_args()
    if len(args.finished) != len(args.idle):
        parser.error("--finished and --idle take as many numbers each (one run per pair)")
    cluster = None
    if args.db == "throwaway":
        sys.path.insert(0, str(ROOT / "tests"))
        from pgcluster import start_cluster  # type: ignore[import-not-found]  # tests/ is on sys.path just above

        cluster = start_cluster()
    options, moves = one_game(args.game, 7, args.routines)
    records = [MoveRecord(seat, move, "") for seat, move in moves]
    replay_started = time.perf_counter()
    Match.replay(args.game, options, [Seat("alice"), Seat("bob")], 7, records)
    print(f"one {args.game} game: {len(moves)} moves, replayed in {time.perf_counter() - replay_started:.3f} s")
    try:
        for finished, idle in zip(args.finished, args.idle):
            url = cluster.new_database() if cluster is not None else args.db
            folder = Path(tempfile.mkdtemp(prefix="termgames-startup-bench-"))
            store = open_store(url, folder / "termgames.db")
            try:
                fill(store, args.game, options, 7, moves, [("finished", finished), ("idle", idle), ("open", args.open)])
            finally:
                store.close()
            first, held_first = start(url, folder / "termgames.db")
            second, held_second = start(url, folder / "termgames.db")
            print(
                f"{finished:>5} finished, {idle:>4} idle, {args.open} open tables: start {first:6.2f} s "
                f"(holds {held_first}), again {second:6.2f} s (holds {held_second})"
            )
        print(f"store: {'PostgreSQL' if cluster is not None or args.db else 'SQLite'}")
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
