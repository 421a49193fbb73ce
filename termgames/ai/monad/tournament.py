"""Monad tournaments: every pairing on mirrored seats over seeded maps, in parallel, rated.

Each round draws one map seed per pairing; the pair plays it twice, each bot
once on each seat (the map is symmetric, so seat luck cancels).  Matches run
in worker processes (``jobs``); the results are taken in a fixed order, so a
tournament's table depends only on its bots, rounds, options and seed.

Ratings come from ``termgames.rating`` (openskill's Weng-Lin Plackett-Luce, the maintained
open-source TrueSkill-like system): each bot's ``mu`` and ``sigma``, shown
as ``mu`` with the interval ``mu +- 2 sigma`` (about 95 %), and ranked by the
conservative ``mu - 3 sigma`` (openskill's "ordinal").
"""

from __future__ import annotations

import csv
import io
import itertools
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ...untrusted import printable


@dataclass(frozen=True)
class Game:
    """One scheduled match: two bots (by index) on seats 0 and 1 of a seeded map."""

    round: int
    first: int
    second: int
    seed: int


@dataclass(frozen=True)
class GameResult:
    game: Game
    #: 1: first seat won, 2: second seat won, 0: draw (or nobody).
    outcome: int
    turns: int
    faults: tuple[int, int]
    error: str = ""


@dataclass
class Standing:
    name: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: int = 0
    mu: float = 25.0
    sigma: float = 25.0 / 3
    errors: list[str] = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


def schedule(bots: int, rounds: int, seed: int) -> list[Game]:
    """Every pair, every round, both seat orders on the same map seed."""
    games = []
    for round_number in range(rounds):
        for pair_number, (a, b) in enumerate(itertools.combinations(range(bots), 2)):
            map_seed = (seed * 1_000_003 + round_number * 7919 + pair_number) % (2**31)
            games.append(Game(round_number, a, b, map_seed))
            games.append(Game(round_number, b, a, map_seed))
    return games


def play_game(specs: Sequence[str], game: Game, options: dict[str, Any], limits: dict[str, float]) -> GameResult:
    """Run one scheduled match (in a worker process); errors become a drawn game with the error kept."""
    from .match import MonadMatch

    try:
        names = ["a", "b"]
        match = MonadMatch([specs[game.first], specs[game.second]], options, game.seed, names=names, **limits)
        result = match.run()
    except Exception as error:  # one broken match must not end the tournament
        return GameResult(game, 0, 0, (0, 0), f"{type(error).__name__}: {error}")
    outcome = result.winners[0] + 1 if len(result.winners) == 1 else 0
    faults = (result.bots[0].faults, result.bots[1].faults)
    return GameResult(game, outcome, result.turns, faults)


def run_games(
    specs: Sequence[str],
    games: Sequence[Game],
    options: dict[str, Any],
    limits: dict[str, float],
    jobs: int,
) -> Iterator[GameResult]:
    """The results of ``games`` in schedule order, played by ``jobs`` worker processes (1: in this one)."""
    if jobs <= 1:
        for game in games:
            yield play_game(specs, game, options, limits)
        return
    # Fresh interpreters, not forks: the caller may run threads (a progress bar's) that hold locks.
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(play_game, list(specs), game, options, limits) for game in games]
        try:
            for future in futures:
                yield future.result()
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def rate(names: Sequence[str], results: Sequence[GameResult]) -> list[Standing]:
    """Wins, draws, losses and openskill ratings, best first."""
    from ...rating import Rating, rate

    ratings = [Rating() for _name in names]
    standings = [Standing(name) for name in names]
    for result in results:
        first, second = result.game.first, result.game.second
        standings[first].faults += result.faults[0]
        standings[second].faults += result.faults[1]
        if result.error:
            standings[first].errors.append(result.error)
            standings[second].errors.append(result.error)
            continue
        if result.outcome == 1:
            standings[first].wins += 1
            standings[second].losses += 1
            ranks = [0.0, 1.0]
        elif result.outcome == 2:
            standings[second].wins += 1
            standings[first].losses += 1
            ranks = [1.0, 0.0]
        else:
            standings[first].draws += 1
            standings[second].draws += 1
            ranks = [0.0, 0.0]
        ratings[first], ratings[second] = rate([ratings[first], ratings[second]], ranks)
    for standing, rating in zip(standings, ratings):
        standing.mu, standing.sigma = rating.mu, rating.sigma
    return sorted(standings, key=lambda s: (-s.ordinal, s.name))


def tournament(
    specs: Sequence[str],
    rounds: int = 2,
    jobs: int | None = None,
    options: dict[str, Any] | None = None,
    seed: int = 1,
    limits: dict[str, float] | None = None,
    names: Sequence[str] | None = None,
    on_result: Callable[[GameResult], None] | None = None,
) -> tuple[list[Standing], list[GameResult]]:
    """Play the whole tournament; (standings best first, every game's result)."""
    if len(specs) < 2:
        raise ValueError("a tournament needs at least two bots")
    games = schedule(len(specs), rounds, seed)
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    results = []
    for result in run_games(list(specs), games, dict(options or {}), dict(limits or {}), workers):
        results.append(result)
        if on_result is not None:
            on_result(result)
    return rate(list(names or specs), results), results


COLUMNS = ("rank", "bot", "games", "wins", "draws", "losses", "rating", "low", "high", "faults")


def rows(standings: Sequence[Standing]) -> list[list[Any]]:
    return [
        [
            rank,
            s.name,
            s.games,
            s.wins,
            s.draws,
            s.losses,
            round(s.mu, 2),
            round(s.mu - 2 * s.sigma, 2),
            round(s.mu + 2 * s.sigma, 2),
            s.faults,
        ]
        for rank, s in enumerate(standings, start=1)
    ]


def table_text(standings: Sequence[Standing]) -> str:
    """The results as an aligned text table (rating: mu, interval mu +- 2 sigma)."""
    header = ["#", "bot", "games", "wins", "draws", "losses", "rating", "interval (95 %)", "faults"]
    body = [
        [
            str(r[0]),
            str(r[1]),
            str(r[2]),
            str(r[3]),
            str(r[4]),
            str(r[5]),
            f"{r[6]:.1f}",
            f"{r[7]:.1f} .. {r[8]:.1f}",
            str(r[9]),
        ]
        for r in rows(standings)
    ]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    left = {1}
    lines = []
    for line in [header, *body]:
        cells = [cell.ljust(widths[i]) if i in left else cell.rjust(widths[i]) for i, cell in enumerate(line)]
        lines.append("  ".join(cells).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths))
    # An error may quote a bot (its stderr when it would not start): one printable line each.
    errors = [
        printable(f"{s.name}: {len(s.errors)} match(es) failed, e.g. {s.errors[0]}", keep_newlines=False)
        for s in standings
        if s.errors
    ]
    return "\n".join(lines + errors) + "\n"


def table_csv(standings: Sequence[Standing]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(rows(standings))
    return out.getvalue()
