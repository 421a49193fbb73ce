"""MonUnrail AI benchmark: win rate against a random player, time per move, Impossible search times.

    python bench/monunrail_ai.py                 # 200 games, normal level
    python bench/monunrail_ai.py --games 50 --level hard
    python bench/monunrail_ai.py --search 30     # only the Impossible search survey, 30 games

The random player places a random legal placement (a random line of 1-3
cells next to the track, random fitting tiles), calls Impossible only when it
has no placement at all, takes the pie swap half the time, and removes a
random legal group of tiles.  The bot alternates seats.  Targets from the
issue: a win rate of at least 95 % and under 2 s per move on two cores.

The search survey plays games in which both sides place random tiles that
keep a completion possible (the hard positions for the search: long games,
little supply left) and times the exact completion search at each position.
No assertions: the figures are for the hand-over report.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from termgames.ai import make_bot
from termgames.rules.monunrail import (
    KIND_OF_MASK,
    MonUnrail,
    ParsedMove,
    cell_name,
    start_grid,
    trace_circuit,
)
from termgames.rules.monunrail.completion import (
    placements,
    random_placement,
    search_nodes,
)
from termgames.rules.monunrail.solver import Solver


def random_move(view, rng: random.Random, solver: Solver, careful: bool) -> str:
    if view.phase == "building":
        if view.pie_offer and rng.random() < 0.5:
            return "swap"
        if careful:
            # prefer a random placement that neither completes nor breaks the track
            fallback = None
            for _ in range(30):
                items = random_placement(view.grid, view.supply, rng)
                if items is None:
                    break
                fallback = fallback or items
                grid, supply = list(view.grid), list(view.supply)
                for index, mask in items:
                    grid[index] = mask
                    supply[KIND_OF_MASK[mask]] -= 1
                if trace_circuit(grid) is None and search_nodes(grid, supply)[0]:
                    return ParsedMove("place", items).text()
            return "impossible" if fallback is None else ParsedMove("place", fallback).text()
        items = random_placement(view.grid, view.supply, rng)
        return "impossible" if items is None else ParsedMove("place", items).text()
    move = rng.choice(solver.moves(view.unrail_cells()))
    return ",".join(cell_name(c) for c in move)


def play(game: MonUnrail, level: str, seed: int, careful: bool) -> tuple[bool, list[float], str]:
    state = game.new({}, ["bot", "random"] if seed % 2 == 0 else ["random", "bot"], seed)
    bot_seat = 0 if seed % 2 == 0 else 1
    bot = make_bot("monunrail", level, seed)
    rng = random.Random(seed)
    solver = Solver()
    times = []
    while not state.is_over():
        view = state.view(state.turn)
        if state.turn == bot_seat:
            start = time.perf_counter()
            move = bot.choose(view)
            times.append(time.perf_counter() - start)
        else:
            move = random_move(view, rng, solver, careful)
        state = state.apply(state.turn, move)
    return state.winner == bot_seat, times, state.ended_by


def survey_search(games: int, seed: int) -> None:
    rng = random.Random(seed)
    samples: dict[bool, list[tuple[float, int]]] = {True: [], False: []}
    for _ in range(games):
        grid, supply = list(start_grid()), [8, 8, 8]
        while True:
            candidates = []
            for items in placements(grid, supply, rng):
                candidates.append(items)
                if len(candidates) >= 30:
                    break
            moved = False
            for items in candidates:
                g2, s2 = list(grid), list(supply)
                for index, mask in items:
                    g2[index] = mask
                    s2[KIND_OF_MASK[mask]] -= 1
                if trace_circuit(g2) is not None:
                    continue
                start = time.perf_counter()
                found, count = search_nodes(g2, s2)
                samples[found].append((time.perf_counter() - start, count))
                if found:
                    grid, supply, moved = g2, s2, True
                    break
            if not moved:
                break
    for found, label in ((True, "with a completion"), (False, "without a completion")):
        rows = samples[found]
        if not rows:
            continue
        seconds = sorted(t for t, _ in rows)
        nodes = sorted(n for _, n in rows)
        print(
            f"Impossible search, {len(rows)} positions {label}: "
            f"mean {statistics.mean(seconds) * 1000:.1f} ms, "
            f"p95 {seconds[int(0.95 * (len(seconds) - 1))] * 1000:.1f} ms, "
            f"max {seconds[-1] * 1000:.1f} ms; nodes mean {statistics.mean(nodes):.0f}, max {nodes[-1]}"
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--level", default="normal")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--opponent",
        choices=("random", "careful"),
        default="random",
        help="careful: a random player that keeps the track open and completable while it can",
    )
    parser.add_argument("--search", type=int, default=20, help="games of the search survey (0: none)")
    args = parser.parse_args(argv)
    print(
        f"MonUnrail AI ({args.level}) vs {args.opponent} player, Python {platform.python_version()}, "
        f"solver: {Solver().implementation}"
    )
    game = MonUnrail()
    if args.search:
        from termgames.rules.monunrail.completion import _path_tables

        _path_tables()  # built once per process (~0.1 s): not part of any search
        survey_search(args.search, args.seed)
    if not args.games:
        return 0
    wins = 0
    times: list[float] = []
    endings: dict[str, int] = {}
    started = time.perf_counter()
    for number in range(args.games):
        won, spent, ended_by = play(game, args.level, args.seed + number, args.opponent == "careful")
        wins += won
        times += spent
        endings[ended_by] = endings.get(ended_by, 0) + 1
        if (number + 1) % 25 == 0:
            print(f"  {number + 1} games: {wins} won", flush=True)
    times.sort()
    p95 = times[int(0.95 * (len(times) - 1))]
    print(
        f"win rate {wins}/{args.games} = {100 * wins / args.games:.1f} %  "
        f"(games ended by: {', '.join(f'{k} {v}' for k, v in sorted(endings.items()))})"
    )
    print(
        f"seconds per bot move: mean {statistics.mean(times):.3f}, p95 {p95:.3f}, max {times[-1]:.3f} "
        f"over {len(times)} moves; {time.perf_counter() - started:.0f} s in all"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
