"""Analysts' figures: seconds per judgement against the level's budget, and the classes they give.

    python bench/analysts.py [--game mono|mosaic|monad] [--level LEVEL] [--players 2] [--games 1]
                             [--moves 80] [--players-level LEVEL] [--seconds 2.0]

For each game (all three by default) the game's bots (``--players-level``,
each decision cut at 0.3 s) play ``--games`` seeded games of up to
``--moves`` moves (``random``: the rules' random moves, for a game without a
random bot); then every move is judged by the game's analyst
(``GameDescriptor.analyst``) at ``--level`` (each game's default level when
not given) from its mover's view before it, each judgement under a deadline of
``--seconds`` (the bots' cap, :data:`termgames.ai.budget.TIME_CAP`, by
default).  Printed per game: judgements, mean / 95th percentile / worst
seconds, how many ran past the deadline, and how many moves each class got.
Figures are printed, never asserted (issue 36: every decision within the
level's budget).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from termgames.ai import make_bot
from termgames.ai.budget import TIME_CAP, Deadline
from termgames.analysis import CLASSES, Thresholds
from termgames.games import GAMES, load
from termgames.match import Match, Seat
from termgames.rules import View

GAMES_ANALYSED = ("mono", "mosaic", "monad")


def played_moves(game: str, players: int, level: str | None, seed: int, moves: int) -> list[tuple[View, str]]:
    """(mover's view before the move, move) for each move of one game of the game's bots."""
    match = Match(game, {}, [Seat(f"p{i + 1}") for i in range(players)], seed)
    # "random" for a game without a random bot: the rules' random moves (Mono's random layouts and probes).
    at_random = level == "random" and level not in GAMES[game].ai_levels
    bots = [] if at_random else [make_bot(game, level, seed=seed * 10 + i) for i in range(players)]
    rng = random.Random(seed)
    found: list[tuple[View, str]] = []
    while not match.over and len(found) < moves:
        seat = match.state.to_move()[0]
        view = match.view(seat)
        move = match.state.random_move(seat, rng) if at_random else bots[seat].choose(view, Deadline(0.3))
        found.append((view, move))
        match.play(seat, move)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=GAMES_ANALYSED)
    parser.add_argument("--level")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--moves", type=int, default=80)
    parser.add_argument("--players-level")
    parser.add_argument("--seconds", type=float, default=TIME_CAP)
    args = parser.parse_args()
    for game in (args.game,) if args.game else GAMES_ANALYSED:
        descriptor = GAMES[game]
        assert descriptor.analyst is not None
        level = args.level or descriptor.default_level
        thresholds = Thresholds(*descriptor.analysis_thresholds)
        seconds: list[float] = []
        classes = dict.fromkeys(CLASSES, 0)
        late = 0
        for seed in range(1, args.games + 1):
            analyst = load(descriptor.analyst)(level, seed)
            for view, move in played_moves(game, args.players, args.players_level, seed, args.moves):
                deadline = Deadline(args.seconds)
                start = time.perf_counter()
                judgement = analyst.judge(view, move, deadline)
                took = time.perf_counter() - start
                seconds.append(took)
                late += took > args.seconds
                classes[thresholds.classify(judgement.loss)] += 1
        seconds.sort()
        p95 = seconds[min(len(seconds) - 1, int(len(seconds) * 0.95))]
        counts = ", ".join(f"{name} {count}" for name, count in classes.items())
        print(
            f"{game} at {level}: {len(seconds)} judgements, mean {statistics.mean(seconds):.3f} s, "
            f"p95 {p95:.3f} s, worst {seconds[-1]:.3f} s, {late} past {args.seconds:g} s; {counts}"
        )


if __name__ == "__main__":
    main()
