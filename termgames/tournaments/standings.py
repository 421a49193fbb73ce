"""Standings: points, games and tiebreaks of every player, best first, from the rounds played.

Swiss, round robin and tables of N: a game's points (1, 0.5, 0 at two seats; by place at more) and a bye's 1,
ties broken by **Buchholz** (the sum of the final points of every opponent met; a bye adds none) and then
**Sonneborn-Berger** (the final points of each opponent beaten, half of each one drawn; at tables of N each
opponent's points times the share of the points this player took from the table against her), then by name.

Arena (:func:`arena_standings`): as lichess counts, 2 for a win, 1 for a draw, 0 for a loss; after two wins in a
row a player is *on a streak* and her results count double (4 a win, 2 a draw) until a game she does not win.
Ties: more wins, then fewer games, then name.

Pure Python: the server's tournaments store the rounds and call these.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .pairing import Game


@dataclass
class Standing:
    """One player's line of the standings."""

    player: str
    points: float = 0.0
    games: int = 0
    wins: int = 0
    byes: int = 0
    tiebreaks: dict[str, float] = field(default_factory=dict)
    #: Arena: on a streak now (her next win counts double).
    streak: bool = False

    def json(self) -> dict[str, object]:
        return {"player": self.player, "points": self.points, "games": self.games, "tiebreaks": dict(self.tiebreaks)}


def _finished(rounds: Iterable[Iterable[Game]]) -> list[Game]:
    return [game for games in rounds for game in games if game.points is not None]


def round_standings(players: Sequence[str], rounds: Iterable[Iterable[Game]]) -> list[Standing]:
    """Swiss, round robin and tables of N, best first (points, Buchholz, Sonneborn-Berger, name)."""
    games = _finished(rounds)
    lines = {name: Standing(name) for name in players}
    for game in games:
        assert game.points is not None
        for name, points in zip(game.seats, game.points):
            line = lines.setdefault(name, Standing(name))
            line.points += points
            if game.bye:
                line.byes += 1
                continue
            line.games += 1
            if points == max(game.points) and game.points.count(points) == 1:
                line.wins += 1
    final = {name: line.points for name, line in lines.items()}
    buchholz: defaultdict[str, float] = defaultdict(float)
    berger: defaultdict[str, float] = defaultdict(float)
    for game in games:
        if game.bye:
            continue
        assert game.points is not None
        for seat, name in enumerate(game.seats):
            mine = game.points[seat]
            for other_seat, other in enumerate(game.seats):
                if other_seat == seat:
                    continue
                buchholz[name] += final[other]
                # Two seats: 1 against a beaten opponent, 0.5 a drawn one.  More seats: the share of the pair's
                # points that was hers (1 ahead of her, 0.5 tied, 0 behind).
                theirs = game.points[other_seat]
                share = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
                berger[name] += share * final[other]
    for name, line in lines.items():
        line.tiebreaks = {"buchholz": buchholz[name], "sonneborn_berger": berger[name]}
    return sorted(
        lines.values(),
        key=lambda line: (-line.points, -line.tiebreaks["buchholz"], -line.tiebreaks["sonneborn_berger"], line.player),
    )


#: Arena points: a win, a draw, a loss; doubled on a streak.
ARENA_WIN, ARENA_DRAW = 2, 1
#: Wins in a row that start a streak.
STREAK_AFTER = 2


def arena_standings(players: Sequence[str], games: Iterable[Game]) -> list[Standing]:
    """An arena's standings from its finished games in the order they ended, best first."""
    lines = {name: Standing(name) for name in players}
    run: Counter[str] = Counter()  # wins in a row
    for game in games:
        if game.points is None or game.bye:
            continue
        for seat, name in enumerate(game.seats):
            line = lines.setdefault(name, Standing(name))
            line.games += 1
            mine, best = game.points[seat], max(game.points)
            won = mine == best and game.points.count(best) == 1
            drew = mine == best and not won
            factor = 2 if run[name] >= STREAK_AFTER else 1
            if won:
                line.points += ARENA_WIN * factor
                line.wins += 1
                run[name] += 1
            else:
                line.points += ARENA_DRAW * factor if drew else 0
                run[name] = 0
            line.streak = run[name] >= STREAK_AFTER
    for line in lines.values():
        line.tiebreaks = {"wins": float(line.wins)}
    return sorted(lines.values(), key=lambda line: (-line.points, -line.wins, line.games, line.player))


def crosstable(order: Sequence[str], rounds: Iterable[Iterable[Game]]) -> dict[str, dict[str, list[float]]]:
    """Who scored what against whom: for each player of ``order``, the points she took from each opponent she met,
    a number a meeting, in the order they played (at tables of N: the share of the pair's points that was hers, as
    Sonneborn-Berger counts it: 1 ahead, 0.5 tied, 0 behind).  Byes and games not over are left out."""
    table: dict[str, dict[str, list[float]]] = {name: {} for name in order}
    for game in _finished(rounds):
        if game.bye:
            continue
        assert game.points is not None
        two = len(game.seats) == 2
        for seat, name in enumerate(game.seats):
            for other_seat, other in enumerate(game.seats):
                if other_seat == seat:
                    continue
                mine, theirs = game.points[seat], game.points[other_seat]
                got = mine if two else (1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
                table.setdefault(name, {}).setdefault(other, []).append(got)
    return table
