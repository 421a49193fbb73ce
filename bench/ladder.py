"""The ladder: every AI level of a game against every other and a random player, on all cores.

    python bench/ladder.py GAME [--games 100] [--workers N] [--largest] [--seats N] [--seed S]
                                [--save-slowest FILE] [--only LEVEL,LEVEL...] [--plies N] [--time-limit SECONDS]
                                [GAME OPTION FLAGS, e.g. --size 35]

A round robin of the game's levels plus ``random`` (a player who moves at
random: :meth:`State.random_move`, or the random move of the game's notation
its ladder entry names (Mono's ``random`` probe, pbmserv's random prober),
or the game's own random bot when a level is so named),
``--games`` games per pairing, seats alternated from game to game.
Printed, never asserted (issue 16's targets are read here):

* per pairing, the upper level's score (a win 1, a tie 1/2) with its 95 %
  Wilson interval, and in games that score points the points ratio;
* a rating per level (``termgames.rating``: openskill's Plackett-Luce, every game once, in
  20 fixed shuffled orders, the mean of the 20: one order alone swings
  with the last games), random included;
* seconds per decision of each level (one ``choose`` call): mean, 95th
  percentile and max of the wall clock, and the most processor time one
  decision took (on a shared machine the wall clock also counts the other
  processes' turns), and where the slowest decision happened (game seed,
  seats, ply: ``--save-slowest FILE`` writes it as JSON, replayable by the
  tests).

Option flags after the game are the game's own (``--size 35``);
``--largest`` sets every numeric option to its maximum instead (the largest
board the game offers) and seats the game's most players (``--seats N``
sets the count: the pair alternates around the table), for decision times;
match limits stay (the game's ladder entry names them, and the numeric
options that are no size: Monad's turns; Mosaic's 60 routines, without which
two evenly matched bots may never finish); ``--plies N`` stops every game
after N plies (times only: such games have no result); ``--only`` plays the
pairings among the participants it names; ``--time-limit`` starts no game
after so many seconds (pairings are interleaved, so every pairing has played
about as often).  A game whose ladder entry names a runner plays on it (Monad:
its match runner, simultaneous turns, a decision is one seat's answer to one turn,
``--plies`` counts turns).  Everything is a function of ``--seed``: the same command
plays the same games.  Each game's ladder entry is in its descriptor
(:class:`termgames.games.Ladder`): this file names no game.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from termgames.ai import Bot, make_bot
from termgames.ai.timed import TimedGame
from termgames.games import describe, load
from termgames.match import Match, Seat
from termgames.rules import get_game

RANDOM = "random"


@dataclass(frozen=True)
class Job:
    game: str
    options: dict[str, Any]
    #: Participant per seat: a level or RANDOM (two seats, or more with ``--seats``: the pair alternating).
    seats: tuple[str, ...]
    seed: int
    #: Plies after which the game stops unfinished (0: play it out), for decision times on the largest boards.
    plies: int = 0


@dataclass
class Outcome:
    job: Job
    scores: tuple[float, ...]
    winners: tuple[int, ...]
    #: Per participant, the seconds of each decision (wall clock).
    times: dict[str, list[float]] = field(default_factory=dict)
    #: Per participant, the processor seconds of each decision (what the machine's other load does not inflate).
    cpu_times: dict[str, list[float]] = field(default_factory=dict)
    #: The slowest decision: (seconds, seat, moves before it).
    slowest: tuple[float, int, list[tuple[int, str]]] | None = None


def bot_seed(seed: int, seat: int) -> int:
    return seed * 10 + seat + 1


def play(job: Job) -> Outcome:
    """One game of ``job``, on the game's own runner if its ladder entry names one; bots seeded from the
    game's seed and their seat."""
    runner = describe(job.game).ladder.runner
    bot_seeds = [bot_seed(job.seed, seat) for seat in range(len(job.seats))]
    if runner is not None:
        played: TimedGame = load(runner)(job.seats, job.options, job.seed, bot_seeds, job.plies)
    else:
        played = play_on_match(job, bot_seeds)
    return outcome_of(job, played)


def play_on_match(job: Job, bot_seeds: list[int]) -> TimedGame:
    """One game of ``job`` on a :class:`Match`, one mover at a time."""
    descriptor = describe(job.game)
    match = Match(job.game, job.options, [Seat(f"p{seat + 1}") for seat in range(len(job.seats))], job.seed)
    # A game whose levels include a random bot (Monad's) plays it as the random player.
    own_random = RANDOM in descriptor.ai_levels
    bots: dict[int, Bot] = {
        seat: make_bot(job.game, level, seed=bot_seeds[seat])
        for seat, level in enumerate(job.seats)
        if level != RANDOM or own_random
    }
    rng = random.Random(f"random player:{job.seed}")
    played = TimedGame()
    while not match.over and not (job.plies and len(played.moves) >= job.plies):
        seat = match.state.to_move()[0]
        bot = bots.get(seat)
        if bot is None:
            move = descriptor.ladder.random_move or match.state.random_move(seat, rng)
        else:
            view = match.view(seat)
            move = played.timed(seat, len(played.moves), partial(bot.choose, view))
        match.play(seat, move)
        played.moves.append((seat, move))
    played.scores = tuple(match.state.scores())
    played.winners = tuple(match.state.winners()) if match.over else ()
    return played


def outcome_of(job: Job, played: TimedGame) -> Outcome:
    """The ladder's figures of one game: each participant's decision times and the slowest decision."""
    outcome = Outcome(job, played.scores, played.winners)
    for decision in played.decisions:
        participant = job.seats[decision.seat]
        outcome.times.setdefault(participant, []).append(decision.seconds)
        outcome.cpu_times.setdefault(participant, []).append(decision.cpu_seconds)
    slowest = played.slowest
    if slowest is not None:
        outcome.slowest = (slowest.seconds, slowest.seat, played.moves[: slowest.before])
    return outcome


def wilson(score: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson interval of a share ``score`` of ``games`` (ties count half a win)."""
    if games == 0:
        return 0.0, 1.0
    p = score / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def largest_options(game_name: str) -> dict[str, Any]:
    game = get_game(game_name)
    options = with_match_limits(game_name, game.default_options())
    for spec in game.option_specs:
        largest = spec.kind.largest(spec)
        if largest is not None and spec.name not in describe(game_name).ladder.not_sizes:
            options[spec.name] = largest
    return game.check_options(options)


def with_match_limits(game_name: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with the match limits of the game's ladder entry where they are still at the game's default."""
    game = get_game(game_name)
    defaults = game.default_options()
    options = {**defaults, **options}
    for name, value in describe(game_name).ladder.match_limits.items():
        if options[name] == defaults[name]:
            options[name] = value
    return game.check_options(options)


def participants(game_name: str) -> list[str]:
    levels = list(describe(game_name).ai_levels)
    return [RANDOM] + [level for level in levels if level != RANDOM]


def jobs_for(game_name: str, options: dict[str, Any], games: int, seed: int, plies: int = 0,
             seats: int = 2) -> list[Job]:
    """Every pairing's games, interleaved (one game of each pairing, then the next), so that a run cut short
    by ``--time-limit`` has played every pairing about as often.  With more than two ``seats`` the pair's
    two participants alternate around the table (high, low, high, ...), the first seat alternating too."""
    jobs = []
    for index in range(games):
        for low, high in combinations(participants(game_name), 2):
            first, second = (high, low) if index % 2 == 0 else (low, high)
            table = tuple(first if seat % 2 == 0 else second for seat in range(seats))
            jobs.append(Job(game_name, options, table, seed * 1_000_003 + index, plies))
    return jobs


def score_of(outcome: Outcome, participant: str) -> float:
    """The participant's share of the game's win: its seats among the winners, over the winners."""
    if not outcome.winners:
        return 0.0
    won = sum(1 for seat in outcome.winners if outcome.job.seats[seat] == participant)
    return won / len(outcome.winners)


def points_of(outcome: Outcome, participant: str) -> float:
    return sum(score for seat, score in enumerate(outcome.scores) if outcome.job.seats[seat] == participant)


def ratings(outcomes: list[Outcome], names: list[str], seed: int, orders: int = 20) -> dict[str, tuple[float, float]]:
    """Per participant: openskill's (mu, sigma), each the mean over ``orders`` passes through every game once,
    each pass in its own shuffled order (fixed by ``seed``).

    One pass rates the last games most: over 100 games that one side won 65 of, the gap between the two
    ratings came out anywhere from 0 to 9 with the order alone; the mean of 20 orders is steady.
    """
    from termgames.rating import Rating, rate

    rated_games = [o for o in outcomes if o.winners and len(o.job.seats) == 2]
    # Stopped unfinished (--plies) or a participant on several seats (--seats): not rated.
    sums = {name: [0.0, 0.0] for name in names}
    shuffler = random.Random(seed)
    for _ in range(orders):
        rated = {name: Rating() for name in names}
        order = list(rated_games)
        shuffler.shuffle(order)
        for outcome in order:
            a, b = outcome.job.seats
            ranks = [0.0 if seat in outcome.winners else 1.0 for seat in range(2)]
            rated[a], rated[b] = rate([rated[a], rated[b]], ranks)
        for name, rating in rated.items():
            sums[name][0] += rating.mu
            sums[name][1] += rating.sigma
    return {name: (mu / orders, sigma / orders) for name, (mu, sigma) in sums.items()}


def report(game_name: str, options: dict[str, Any], outcomes: list[Outcome], args: argparse.Namespace,
           wall: float) -> None:
    names = [name for name in participants(game_name) if any(name in o.job.seats for o in outcomes)]
    rank = {name: index for index, name in enumerate(names)}
    cut_short = len(outcomes) < len(jobs_for(game_name, options, args.games, args.seed)) and not args.only
    seats = len(outcomes[0].job.seats) if outcomes else 2
    games = f"up to {args.games}" if cut_short else str(args.games)
    flags = describe_options(game_name, options)
    table = f", {seats} seats (the pair alternating around the table; no ratings)" if seats != 2 else ""
    print(f"## {describe(game_name).title} ladder, {flags or 'default options'}{table}: {games} games a pairing, "
          f"seats alternated, {args.workers} workers, {time.strftime('%Y-%m-%d', time.gmtime())}")
    print()
    if args.plies:
        print(f"(games stopped after {args.plies} plies: decision times only, scores meaningless)")
        print()
    print("| pairing | score of the first | 95 % interval | points ratio |")
    print("|---|---|---|---|")
    for low, high in combinations(names, 2):
        if rank[low] > rank[high]:
            low, high = high, low
        played = [o for o in outcomes if set(o.job.seats) == {low, high}]
        if not played:
            continue
        score = sum(score_of(o, high) for o in played)
        lo, hi = wilson(score, len(played))
        points_high = sum(points_of(o, high) for o in played)
        points_low = sum(points_of(o, low) for o in played)
        points_game = any(score not in (0, 1) for o in played for score in o.scores)
        ratio = f"{points_high / points_low:.2f}x" if points_game and points_low > 0 else "-"
        print(f"| {high} vs {low} | {score:g} of {len(played)} ({100 * score / max(1, len(played)):.0f} %) "
              f"| {100 * lo:.0f}-{100 * hi:.0f} % | {ratio} |")
    print()
    print("| level | rating (openskill mu ± sigma, mean of 20 orders) "
          "| seconds a decision: mean | p95 | max | max CPU | decisions |")
    print("|---|---|---|---|---|---|---|")
    rated = ratings(outcomes, names, args.seed)
    for name in names:
        mu, sigma = rated[name]
        times = [t for o in outcomes for t in o.times.get(name, [])]
        cpu = [t for o in outcomes for t in o.cpu_times.get(name, [])]
        if times:
            figures = (f"{statistics.mean(times):.3f} | {percentile(times, 0.95):.3f} | {max(times):.3f} "
                       f"| {max(cpu):.3f} | {len(times)}")
        else:
            figures = "- | - | - | - | -"
        print(f"| {name} | {mu:.1f} ± {sigma:.1f} | {figures} |")
    slowest = max((o for o in outcomes if o.slowest), key=lambda o: o.slowest[0] if o.slowest else 0.0,
                  default=None)
    if slowest is not None and slowest.slowest is not None:
        seconds, seat, moves = slowest.slowest
        print()
        print(f"slowest decision: {seconds:.2f} s by {slowest.job.seats[seat]} in seat {seat + 1}, "
              f"game seed {slowest.job.seed}, seats {'/'.join(slowest.job.seats)}, after {len(moves)} moves")
        if args.save_slowest:
            record = {
                "game": game_name,
                "options": options,
                "seed": slowest.job.seed,
                "seats": list(slowest.job.seats),
                "seat": seat,
                "level": slowest.job.seats[seat],
                "bot_seed": bot_seed(slowest.job.seed, seat),
                "moves": moves,
                "seconds": round(seconds, 3),
            }
            Path(args.save_slowest).write_text(json.dumps(record, indent=1) + "\n")
    print()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"command: python bench/ladder.py {' '.join(sys.argv[1:])}; wall time {wall:.0f} s, "
          f"load average {load:.1f} on {os.cpu_count()} cores")


def describe_options(game_name: str, options: dict[str, Any]) -> str:
    game = get_game(game_name)
    defaults = game.default_options()
    return ", ".join(f"{name} {value}" for name, value in options.items() if defaults.get(name) != value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=100, help="games per pairing")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--largest", action="store_true",
                        help="every numeric option at its maximum, and the game's most seats unless --seats says")
    parser.add_argument("--seats", type=int, default=0, help="seats a game (default 2; the pair alternates)")
    parser.add_argument("--plies", type=int, default=0,
                        help="stop each game after this many plies: decision times only, no results")
    parser.add_argument("--only", default="", help="comma-separated participants: pairings among them only")
    parser.add_argument("--save-slowest", default="", help="write the slowest decision's position to this file")
    parser.add_argument("--time-limit", type=float, default=0.0,
                        help="seconds after which no game starts; the games finished by then are reported")
    args, rest = parser.parse_known_args()
    game_name = describe(args.game).name
    game = get_game(game_name)
    options = largest_options(game_name) if args.largest else with_match_limits(game_name, game.parse_cli_options(rest))
    descriptor = describe(game_name)
    seats = args.seats or (descriptor.max_seats if args.largest else 2)
    if not descriptor.min_seats <= seats <= descriptor.max_seats:
        parser.error(f"{descriptor.title} seats {descriptor.players_text}, not {seats}")
    jobs = jobs_for(game_name, options, args.games, args.seed, args.plies, seats)
    if args.only:
        keep = set(args.only.split(","))
        jobs = [job for job in jobs if set(job.seats) <= keep]
    started = time.perf_counter()
    with Pool(args.workers) as pool:
        outcomes = []
        for outcome in pool.imap_unordered(play, jobs, chunksize=1):
            outcomes.append(outcome)
            if len(outcomes) % 10 == 0:
                print(f"{len(outcomes)} of {len(jobs)} games", file=sys.stderr, flush=True)
            if args.time_limit and time.perf_counter() - started > args.time_limit:
                # The games under way are dropped with the pool; the table says how many each pairing played.
                print(f"time limit: {len(outcomes)} of {len(jobs)} games played", file=sys.stderr, flush=True)
                break
    outcomes.sort(key=lambda o: (o.job.seats, o.job.seed))
    report(game_name, options, outcomes, args, time.perf_counter() - started)


if __name__ == "__main__":
    main()
