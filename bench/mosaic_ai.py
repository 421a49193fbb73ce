"""Mosaic AI benchmark: the stronger level's win rates, seconds per decision, and whole 3- and 4-player games.

    python bench/mosaic_ai.py [--games 100] [--level hard] [--baseline normal] [--workers 2]
                              [--max-routines 60] [--multi-level normal] [--skip-multi]

Two-player games of ``--level`` against a random player and against
``--baseline``, seats alternating (the deal changes with each game's seed);
then one complete three-player and one four-player game at ``--multi-level``
(the default level).  ``--max-routines`` bounds every game (ruling 5:
the highest score wins when it runs out).  Figures are printed, never
asserted: speed targets are read here.

Measured on the shared 2-core machine (load around 10) at 22:50 UTC, 24 Nov 2026, with
``--games 100 --workers 2`` (--max-routines 60): hard against random 100/100 won, hard against
normal 84/100 won; hard's seconds per decision mean 0.32, 95th percentile 0.93, max 1.52 (against
random) and mean 0.32, 95th 0.92, max 1.71 (against normal); a 60-routine three-player game at
normal 46 s (457 moves, max decision 1.35 s), a four-player one 222 s (1374 moves, max 1.62 s).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from termgames.ai import make_bot
from termgames.match import Match, SeatInfo


def play(seed: int, levels: list[str], max_routines: int) -> dict:
    """One game between bots of ``levels`` (seat order); the decisions' seconds by seat."""
    names = [f"{level}{seat + 1}" for seat, level in enumerate(levels)]
    match = Match("mosaic", {"max_routines": max_routines}, [SeatInfo(name) for name in names], seed)
    bots = [make_bot("mosaic", level, seed=seed * 10 + seat) for seat, level in enumerate(levels)]
    decisions: list[list[float]] = [[] for _ in levels]
    started = time.perf_counter()
    while not match.over:
        seat = match.state.to_move()[0]
        view = match.view(seat)
        before = time.perf_counter()
        move = bots[seat].choose(view)
        decisions[seat].append(time.perf_counter() - before)
        match.play(seat, move)
    state = match.state
    return {
        "winners": list(state.winners()),
        "scores": list(state.scores()),
        "decisions": decisions,
        "seconds": time.perf_counter() - started,
        "routines": state.routines,
        "moves": len(match.moves),
        "finish": getattr(state, "finish", ""),
    }


def duel(job: tuple[int, str, str, int]) -> dict:
    game, level, opponent, max_routines = job
    seat = game % 2
    levels = [level, opponent] if seat == 0 else [opponent, level]
    result = play(game, levels, max_routines)
    winners = result["winners"]
    result["won"] = winners == [seat]
    result["tied"] = seat in winners and len(winners) > 1
    result["mine"] = result["decisions"][seat]
    return result


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))]


def report_duels(level: str, opponent: str, results: list[dict]) -> None:
    wins = sum(r["won"] for r in results)
    ties = sum(r["tied"] for r in results)
    games = len(results)
    mine = [d for r in results for d in r["mine"]]
    print(f"{level} against {opponent}: {wins}/{games} won = {100 * wins / games:.1f} %"
          + (f" ({ties} tied)" if ties else ""))
    print(f"  seconds per decision ({level}): mean {statistics.mean(mine):.3f}, 95th percentile "
          f"{percentile(mine, 0.95):.3f}, max {max(mine):.3f} over {len(mine)} decisions")
    routines = [r["routines"] for r in results]
    print(f"  alteration routines per game: mean {statistics.mean(routines):.1f}, max {max(routines)}; "
          f"seconds per game: mean {statistics.mean(r['seconds'] for r in results):.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--level", default="hard")
    parser.add_argument("--baseline", default="normal")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-routines", type=int, default=60)
    parser.add_argument("--multi-level", default="normal")
    parser.add_argument("--skip-duels", action="store_true")
    parser.add_argument("--skip-multi", action="store_true")
    args = parser.parse_args()
    print(f"Mosaic AI: {args.games} two-player games a pairing, --max-routines {args.max_routines}, "
          f"{args.workers} workers")
    if not args.skip_duels:
        with Pool(args.workers) as pool:
            for opponent in ("random", args.baseline):
                started = time.perf_counter()
                jobs = [(game, args.level, opponent, args.max_routines) for game in range(args.games)]
                results = pool.map(duel, jobs, chunksize=1)
                report_duels(args.level, opponent, results)
                print(f"  wall time {time.perf_counter() - started:.0f} s")
    if not args.skip_multi:
        for players in (3, 4):
            result = play(1000 + players, [args.multi_level] * players, args.max_routines)
            decisions = [d for seat in result["decisions"] for d in seat]
            scores = ", ".join(f"{int(s)}" for s in result["scores"])
            print(f"{players}-player game at {args.multi_level}: {result['seconds']:.0f} s, {result['moves']} moves, "
                  f"{result['routines']} routines, scores {scores}: {result['finish']}")
            print(f"  seconds per decision: mean {statistics.mean(decisions):.3f}, 95th percentile "
                  f"{percentile(decisions, 0.95):.3f}, max {max(decisions):.3f}")


if __name__ == "__main__":
    main()
