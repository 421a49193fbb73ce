"""Copolymer AI benchmark: playouts per second, time per decision, win rate against random.

    python bench/copolymer_ai.py [--games 200] [--level normal] [--workers 2]

Games alternate who starts; the random player claims a uniformly random empty
cell. Figures are printed, never asserted: speed targets are read here.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from termgames.ai import make_bot  # noqa: E402
from termgames.match import Match, SeatInfo  # noqa: E402


def play_one(args: tuple[int, str, dict]) -> dict:
    game, level, options = args
    ai_seat = game % 2
    match = Match("copolymer", options, [SeatInfo("first"), SeatInfo("second")], game)
    bot = make_bot("copolymer", level, seed=game)
    chooser = random.Random(game)
    decisions: list[float] = []
    playouts = 0
    search_seconds = 0.0
    while not match.over:
        seat = match.state.to_move()[0]
        view = match.view(seat)
        if seat == ai_seat:
            started = time.perf_counter()
            move = bot.choose(view)
            spent = time.perf_counter() - started
            decisions.append(spent)
            if bot.last_playouts:
                playouts += bot.last_playouts
                search_seconds += spent
        else:
            move = view.board.names[chooser.choice(sorted(view.legal_cells()))]
        match.play(seat, move)
    scores = match.state.scores()
    return {
        "won": ai_seat in match.state.winners(),
        "margin": scores[ai_seat] - scores[1 - ai_seat],
        "decisions": decisions,
        "playouts": playouts,
        "search_seconds": search_seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--level", default="normal")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--size", type=int, default=11, help="hexagon rows (11 is the standard 91-cell board)")
    args = parser.parse_args()
    started = time.perf_counter()
    jobs = [(game, args.level, {"size": args.size}) for game in range(args.games)]
    with Pool(args.workers) as pool:
        results = pool.map(play_one, jobs)
    elapsed = time.perf_counter() - started
    decisions = [d for r in results for d in r["decisions"]]
    wins = sum(r["won"] for r in results)
    playouts = sum(r["playouts"] for r in results)
    search_seconds = sum(r["search_seconds"] for r in results)
    print(f"Copolymer AI, level {args.level}, {args.size}-row hexagon, {args.games} games on {args.workers} workers")
    if search_seconds:
        print(f"playouts per second (one core): {playouts / search_seconds:,.0f}")
    else:
        print("playouts per second: no search at this level")
    print(f"seconds per decision: mean {statistics.mean(decisions):.3f}, "
          f"95th percentile {sorted(decisions)[int(0.95 * (len(decisions) - 1))]:.3f}, max {max(decisions):.3f}")
    print(f"win rate against random: {wins}/{args.games} = {100 * wins / args.games:.1f} %")
    print(f"mean margin: {statistics.mean(r['margin'] for r in results):+.1f} cells")
    print(f"wall time: {elapsed:.0f} s")


if __name__ == "__main__":
    main()
