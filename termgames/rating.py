"""Ratings, one way for all of termgames: openskill's Weng-Lin Plackett-Luce model.

The ladder (``bench/ladder.py``) rates levels, Monad's tournament rates bots
and ``termgames serve`` rates accounts, all with :func:`rate`: one game at a
time, every participant its own team, ranks from the game's result (lower
is better, equal ranks a tie).  A :class:`Rating` is ``mu`` (the estimated
strength) and ``sigma`` (how unsure that estimate is); its
:attr:`~Rating.ordinal` ``mu - 3 sigma`` is the conservative figure that
standings sort by (openskill's ``ordinal``).

Pure Python; openskill is imported by the first :func:`rate` only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: openskill's defaults for a newcomer (mu 25, sigma 25/3): written here so that reading one needs no import.
DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0
#: Above this sigma a rating is shown with a "?": too few games to say much (a newcomer's is 8.3; about 20
#: two-player games between equals bring it below).
PROVISIONAL_SIGMA = 5.0


@dataclass(frozen=True)
class Rating:
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA

    @property
    def ordinal(self) -> float:
        """``mu - 3 sigma``: what standings sort by (a newcomer's is 0)."""
        return self.mu - 3.0 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.sigma > PROVISIONAL_SIGMA

    def short(self) -> str:
        """The rating in a few characters, for listings: mu rounded, ``?`` while provisional (``25?``)."""
        return f"{self.mu:.0f}{'?' if self.provisional else ''}"


_model: Any = None


def _plackett_luce() -> Any:
    global _model
    if _model is None:
        from openskill.models import PlackettLuce

        _model = PlackettLuce()
    return _model


def rate(ratings: Sequence[Rating], ranks: Sequence[float]) -> list[Rating]:
    """The ratings after one game: ``ratings[i]`` finished at ``ranks[i]`` (0 best, equal ranks tie)."""
    if len(ratings) != len(ranks):
        raise ValueError(f"{len(ratings)} ratings but {len(ranks)} ranks")
    if len(ratings) < 2:
        return list(ratings)
    model = _plackett_luce()
    teams = [[model.create_rating([r.mu, r.sigma])] for r in ratings]
    rated = model.rate(teams, ranks=[float(rank) for rank in ranks])
    return [Rating(float(team[0].mu), float(team[0].sigma)) for team in rated]


def ranks_of(winners: Sequence[int], scores: Sequence[float], seats: int) -> list[float]:
    """Each seat's rank at the end of a game: the winners first (tied), then the rest by score, ties as ties.

    Winners come first even where a game's winners are not simply its best
    scores; the rest are ordered by their scores (equal scores share a rank).
    Scores are compared as they are: an int of any size (Monad's units) is never made a float, which
    could not hold one past 1.8e308 (and would tie two counts that differ in their 17th digit).
    """
    winning = set(winners)
    rest = sorted({scores[seat] for seat in range(seats) if seat not in winning}, reverse=True)
    first = 1 if winning else 0
    return [0.0 if seat in winning else float(first + rest.index(scores[seat])) for seat in range(seats)]
