"""Copolymer AI benchmark: playouts per second, time per decision, win rate.

    python bench/copolymer_ai.py [--games 200] [--level normal] [--workers 2]
                                 [--opponent random] [--playouts N] [--seconds S]

The bot plays ``--games`` games against a uniformly random player (each
claim drawn from the empty cells), or against another level with
``--opponent LEVEL``; games alternate who starts.  ``--playouts`` and
``--seconds`` replace the level's budget per decision.  Figures are
printed, never asserted: speed targets are read here.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import replace
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from termgames.ai import make_bot
from termgames.match import Match, Seat

RANDOM = "random"


def budgeted_bot(level: str, seed: int, playouts: int | None, seconds: float | None):
    bot = make_bot("copolymer", level, seed=seed)
    if playouts is not None:
        bot.settings = replace(bot.settings, playouts=playouts)
    if seconds is not None:
        bot.settings = replace(bot.settings, seconds=seconds)
    return bot


def play_one(job: tuple[int, argparse.Namespace]) -> dict:
    game, args = job
    bot_seat = game % 2
    match = Match("copolymer", {"size": args.size}, [Seat("first"), Seat("second")], game)
    bot = budgeted_bot(args.level, game, args.playouts, args.seconds)
    opponent = None if args.opponent == RANDOM else make_bot("copolymer", args.opponent, seed=10_000 + game)
    chooser = random.Random(game)
    decisions: list[float] = []
    searches: list[float] = []
    playouts = 0
    while not match.over:
        seat = match.state.to_move()[0]
        view = match.view(seat)
        if seat == bot_seat:
            started = time.perf_counter()
            move = bot.choose(view)
            spent = time.perf_counter() - started
            decisions.append(spent)
            if bot.last_playouts:
                playouts += bot.last_playouts
                searches.append(spent)
        elif opponent is not None:
            move = opponent.choose(view)
        else:
            move = view.board.names[chooser.choice(sorted(view.legal_cells()))]
        match.play(seat, move)
    scores = match.state.scores()
    return {
        "won": bot_seat in match.state.winners(),
        "margin": scores[bot_seat] - scores[1 - bot_seat],
        "decisions": decisions,
        "searches": searches,
        "playouts": playouts,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--level", default="normal")
    parser.add_argument("--opponent", default=RANDOM, help="random (the default) or an AI level")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--size", type=int, default=11, help="hexagon rows (11 is the standard 91-cell board)")
    parser.add_argument("--playouts", type=int, help="playouts per decision instead of the level's")
    parser.add_argument("--seconds", type=float, help="time cap per decision instead of the level's")
    args = parser.parse_args()
    started = time.perf_counter()
    with Pool(args.workers) as pool:
        results = pool.map(play_one, [(game, args) for game in range(args.games)], chunksize=1)
    elapsed = time.perf_counter() - started

    decisions = sorted(d for r in results for d in r["decisions"])
    searches = [s for r in results for s in r["searches"]]
    wins = sum(r["won"] for r in results)
    budget = budgeted_bot(args.level, 0, args.playouts, args.seconds).settings
    print(f"Copolymer AI, level {args.level} ({budget.playouts} playouts or {budget.seconds} s a decision), "
          f"{args.size}-row hexagon, against {args.opponent}, {args.games} games on {args.workers} workers")
    if searches:
        playouts = sum(r["playouts"] for r in results)
        print(f"playouts per second (one core): {playouts / sum(searches):,.0f}")
        print(f"seconds per searched decision: mean {statistics.mean(searches):.3f} over {len(searches)} searches")
    else:
        print("playouts per second: no search at this level")
    print(f"seconds per decision: mean {statistics.mean(decisions):.3f}, "
          f"95th percentile {decisions[int(0.95 * (len(decisions) - 1))]:.3f}, max {decisions[-1]:.3f} "
          f"over {len(decisions)} decisions")
    print(f"wins against {args.opponent}: {wins}/{args.games} = {100 * wins / args.games:.1f} %")
    print(f"mean margin: {statistics.mean(r['margin'] for r in results):+.1f} cells")
    print(f"wall time: {elapsed:.0f} s")


if __name__ == "__main__":
    main()
