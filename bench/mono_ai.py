"""Mono AI benchmark: score per game against random players, seconds per turn and per decision.

    python bench/mono_ai.py [--games 100] [--level normal] [--players 2] [--size 9]
                            [--workers 2] [--no-auto] [--take-min | --take-max]
                            [--future-weight W] [--bot-samples N]
                            [--opponent LEVEL]
    python bench/mono_ai.py --calibration [--games 40] [--size 9]
    python bench/mono_ai.py --sizes 2-35 [--games 2] [--level normal]

The bot plays ``--games`` games against players who only ever play
``random`` (their layout and every turn), or against bots of another level
with ``--opponent LEVEL``; the bot's seat moves round the table from game to
game.  A bot's *turn* is all its decisions between two
turns of the others (the bot probes one position at a time).  Figures are
printed, never asserted: the targets (at least twice the random player's
score per game, at most 2 s a turn) are read here.  ``--sizes A-B`` plays
``--games`` games on every board size from A to B regions and prints one
line a size (issue 16: normal keeps its lead on every size).

``--calibration`` measures the layouts instead: on random boards with a
random share of cells shown (the sampler alone, as the ``d`` overlay uses
it), and at the bot's decisions in play (its layouts followed along the
game), how much probability each hidden cell's true value gets, and whether
a belief of p comes true p of the time.
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
from termgames.ai.mono_inference import LayoutSampler
from termgames.match import Match, Seat
from termgames.rules.mono import grid_for, random_layout


def options_of(args: argparse.Namespace) -> dict:
    return {"size": args.size, "no_auto": args.no_auto, "take_min": args.take_min, "take_max": args.take_max}


def play_one(job: tuple[int, argparse.Namespace]) -> dict:
    game, args = job
    bot_seat = game % args.players
    seats = [Seat(f"p{i + 1}") for i in range(args.players)]
    match = Match("mono", options_of(args), seats, game)
    bot = make_bot("mono", args.level, seed=game)
    if args.future_weight is not None:
        bot.settings = replace(bot.settings, future_weight=args.future_weight)
    if args.adaptive:
        bot.settings = replace(bot.settings, adaptive=True)
    if args.bot_samples is not None:
        bot.settings = replace(bot.settings, samples=args.bot_samples)
    opponents = {}
    if args.opponent != "random":
        opponents = {
            seat: make_bot("mono", args.opponent, seed=10_000 * (seat + 1) + game) for seat in range(args.players)
        }
    decisions: list[float] = []
    turns: list[float] = []
    turn_time = 0.0
    while not match.over:
        seat = match.state.to_move()[0]
        if seat != bot_seat:
            if turn_time:
                turns.append(turn_time)
                turn_time = 0.0
            match.play(seat, opponents[seat].choose(match.view(seat)) if opponents else "random")
            continue
        view = match.view(seat)
        started = time.perf_counter()
        move = bot.choose(view)
        spent = time.perf_counter() - started
        decisions.append(spent)
        if view.phase == "probe":
            turn_time += spent
        match.play(seat, move)
    if turn_time:
        turns.append(turn_time)
    scores = match.state.scores()
    others = [scores[s] for s in range(args.players) if s != bot_seat]
    return {
        "bot": scores[bot_seat],
        "random": statistics.mean(others),
        "won": bot_seat in match.state.winners() and len(match.state.winners()) == 1,
        "tied": bot_seat in match.state.winners() and len(match.state.winners()) > 1,
        "decisions": decisions,
        "turns": turns,
    }


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))]


def benchmark(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    with Pool(args.workers) as pool:
        results = pool.map(play_one, [(game, args) for game in range(args.games)], chunksize=1)
    elapsed = time.perf_counter() - started
    bot = statistics.mean(r["bot"] for r in results)
    rand = statistics.mean(r["random"] for r in results)
    turns = [t for r in results for t in r["turns"]]
    decisions = [d for r in results for d in r["decisions"]]
    flags = " ".join(f"--{k.replace('_', '-')}" for k, v in options_of(args).items() if v is True)
    print(f"Mono AI, level {args.level}, {args.players} players, {args.size} regions {flags}".rstrip()
          + f", {args.games} games on {args.workers} workers, against {args.opponent} players")
    print(f"mean score per game: AI {bot:.1f}, {args.opponent} player {rand:.1f}, ratio {bot / rand:.2f} (target >= 2)")
    print(f"seconds per turn: mean {statistics.mean(turns):.3f}, 95th percentile {percentile(turns, 0.95):.3f}, "
          f"max {max(turns):.3f} over {len(turns)} turns (target <= 2)")
    print(f"seconds per decision: mean {statistics.mean(decisions):.3f}, 95th percentile "
          f"{percentile(decisions, 0.95):.3f}, max {max(decisions):.3f} over {len(decisions)} decisions")
    wins = sum(r["won"] for r in results)
    ties = sum(r["tied"] for r in results)
    print(f"AI wins: {wins}/{args.games} ({ties} ties)")
    print(f"wall time: {elapsed:.0f} s")


def sweep(args: argparse.Namespace) -> None:
    """``--games`` games a size on every size of ``--sizes``: the bot's points against random's, one line a size."""
    low, _, high = args.sizes.partition("-")
    sizes = range(int(low), int(high or low) + 1)
    jobs = [(game, replace_size(args, size)) for size in sizes for game in range(args.games)]
    started = time.perf_counter()
    with Pool(args.workers) as pool:
        results = pool.map(play_one, jobs, chunksize=1)
    print(f"Mono AI, level {args.level}, {args.players} players, {args.games} games a size against {args.opponent}")
    print("| regions | AI points a game | random's | ratio | AI wins | slowest decision |")
    print("|---|---|---|---|---|---|")
    for size in sizes:
        played = [r for (_, job_args), r in zip(jobs, results, strict=True) if job_args.size == size]
        bot = statistics.mean(r["bot"] for r in played)
        rand = statistics.mean(r["random"] for r in played)
        ratio = f"{bot / rand:.2f}x" if rand else "-"
        slowest = max((d for r in played for d in r["decisions"]), default=0.0)
        wins = sum(r["won"] for r in played)
        print(f"| {size} | {bot:.1f} | {rand:.1f} | {ratio} | {wins} of {len(played)} | {slowest:.2f} s |")
    print(f"wall time: {time.perf_counter() - started:.0f} s")


def replace_size(args: argparse.Namespace, size: int) -> argparse.Namespace:
    copy = argparse.Namespace(**vars(args))
    copy.size = size
    return copy


def calibrate_one(job: tuple[int, argparse.Namespace]) -> tuple[list[float], list[tuple[float, bool]], float]:
    """One random board, a random share of it shown: P(true value) per hidden cell, (belief, came true) pairs."""
    game, args = job
    grid = grid_for(args.size)
    rng = random.Random(game)
    truth = random_layout(args.size, rng)
    shown = rng.sample(range(grid.cells), rng.randrange(grid.cells))
    known = {cell: truth[cell] for cell in shown}
    started = time.perf_counter()
    layouts = LayoutSampler(grid).samples(known, args.samples, random.Random(game + 1))
    spent = time.perf_counter() - started
    true_share: list[float] = []
    pairs: list[tuple[float, bool]] = []
    for cell in range(grid.cells):
        if cell not in known and layouts:
            share, cell_pairs = belief_of(layouts, cell, truth[cell])
            true_share.append(share)
            pairs += cell_pairs
    return true_share, pairs, spent / max(1, len(layouts))


def calibrate_in_play(job: tuple[int, argparse.Namespace]) -> tuple[list[float], list[tuple[float, bool]]]:
    """A two-player game of the bot against random: at each of its decisions, its layouts against the truth."""
    game, args = job
    bot_seat = game % 2
    match = Match("mono", {"size": args.size}, [Seat("p1"), Seat("p2")], game)
    bot = make_bot("mono", args.level, seed=game)
    true_share: list[float] = []
    pairs: list[tuple[float, bool]] = []
    while not match.over:
        seat = match.state.to_move()[0]
        if seat != bot_seat:
            match.play(seat, "random")
            continue
        view = match.view(seat)
        if view.phase == "probe":
            truth = match.state.layouts[1 - seat]
            layouts = bot.layouts(view, 1 - seat)
            for cell, shown in enumerate(view.boards[1 - seat]):
                if shown is None:
                    share, cell_pairs = belief_of(layouts, cell, truth[cell])
                    true_share.append(share)
                    pairs += cell_pairs
        match.play(seat, bot.choose(view))
    return true_share, pairs


def belief_of(layouts, cell: int, true_value: int) -> tuple[float, list[tuple[float, bool]]]:
    counts: dict[int, int] = {}
    for layout in layouts:
        counts[layout[cell]] = counts.get(layout[cell], 0) + 1
    pairs = [(count / len(layouts), value == true_value) for value, count in counts.items()]
    return counts.get(true_value, 0) / len(layouts), pairs


def print_reliability(shares: list[float], pairs: list[tuple[float, bool]], what: str) -> None:
    print(f"mean probability of a hidden cell's true value: {statistics.mean(shares):.3f} over {len(shares)} {what}")
    print("belief      cells   came true")
    for low in range(0, 100, 10):
        chosen = [(p, hit) for p, hit in pairs if low / 100 <= p < (low + 10) / 100 or (low == 90 and p == 1.0)]
        if chosen:
            mean_belief = statistics.mean(p for p, _ in chosen)
            came_true = sum(hit for _, hit in chosen) / len(chosen)
            print(
                f"{low:3d}-{low + 10:3d} %  {len(chosen):6d}   {100 * came_true:5.1f} %  "
                f"(mean belief {100 * mean_belief:.1f} %)"
            )


def calibration(args: argparse.Namespace) -> None:
    with Pool(args.workers) as pool:
        results = pool.map(calibrate_one, [(game, args) for game in range(args.games)], chunksize=1)
        played = pool.map(calibrate_in_play, [(game, args) for game in range(max(1, args.games // 5))], chunksize=1)
    print(f"Mono layout sampler, {args.size} regions, {args.games} random boards with a random share shown, "
          f"{args.samples} samples each ({statistics.mean(r[2] for r in results) * 1000:.2f} ms a sample)")
    print_reliability([s for r in results for s in r[0]], [p for r in results for p in r[1]], "cells")
    print()
    print(f"The bot's own layouts in play, level {args.level}, {len(played)} games against random")
    print_reliability([s for r in played for s in r[0]], [p for r in played for p in r[1]], "cells at decisions")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--level", default="normal")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--size", type=int, default=9, help="regions (2-35)")
    parser.add_argument("--opponent", default="random", help="random (the default) or an AI level for the other seats")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-auto", action="store_true")
    parser.add_argument("--take-min", action="store_true")
    parser.add_argument("--take-max", action="store_true")
    parser.add_argument("--future-weight", type=float, help="the bot's weight of pristine value instead of the level's")
    parser.add_argument("--adaptive", action="store_true", help="the bot follows runs deciding after each probe")
    parser.add_argument("--bot-samples", type=int, help="the bot's samples per decision instead of the level's")
    parser.add_argument("--calibration", action="store_true", help="measure the layout sampler instead")
    parser.add_argument("--sizes", default="", help="A-B: --games games on every size from A to B regions")
    parser.add_argument("--samples", type=int, default=200, help="samples per board (--calibration)")
    args = parser.parse_args()
    if args.calibration:
        calibration(args)
    elif args.sizes:
        sweep(args)
    else:
        benchmark(args)


if __name__ == "__main__":
    main()
