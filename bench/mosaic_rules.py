"""Mosaic rules benchmark: time to compute the legal moves of a position, by step.

    python bench/mosaic_rules.py [--games 5] [--players 2 3 4] [--routines 30]

Random games (uniform choice among the legal moves) with ``--max-routines``;
every position's legal set is computed from a fresh state (no cache) and
timed.  Figures are printed (mean, 95th percentile, max per step kind, and
the largest legal sets), never asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from termgames.rules.mosaic import Mosaic


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--routines", type=int, default=30)
    args = parser.parse_args()
    game = Mosaic()
    for players in args.players:
        times: dict[str, list[float]] = {}
        sizes: dict[str, int] = {}
        plies = 0
        started = time.perf_counter()
        for seed in range(args.games):
            state = game.new({"max_routines": args.routines}, [f"p{i + 1}" for i in range(players)], seed)
            rng = random.Random(seed)
            while not state.is_over():
                kind = state.phase if state.phase == "building" else f"{state.kind} {state.subroutine}".strip()
                clock = time.perf_counter()
                legal = state.legal_moves()
                times.setdefault(kind, []).append(time.perf_counter() - clock)
                sizes[kind] = max(sizes.get(kind, 0), len(legal))
                state = state.apply(state.turn, rng.choice(legal))
                plies += 1
        elapsed = time.perf_counter() - started
        print(f"{players} players: {args.games} games, {plies} moves, {elapsed:.1f} s in all")
        for kind, values in sorted(times.items()):
            values.sort()
            p95 = values[int(0.95 * (len(values) - 1))]
            print(
                f"  {kind:<16} n={len(values):<6} mean {statistics.mean(values) * 1000:7.2f} ms"
                f"  p95 {p95 * 1000:7.2f} ms  max {values[-1] * 1000:8.2f} ms  largest set {sizes[kind]}"
            )


if __name__ == "__main__":
    main()
