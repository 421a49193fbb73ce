"""Computer players.

A bot sees a game only through the view of its own seat, exactly what a human
in that seat would see, and answers with a move in the game's notation.
Bots are pure Python (no UI, no I/O) and may take a while: front ends run
them off the UI thread, and every decision honours a :class:`~.budget.Deadline`
(:data:`~.budget.TIME_CAP`, 2 s, when none is given; a front end may pass its
own and call ``stop()`` on it to have the move now).  Each game's descriptor (:mod:`termgames.games`) names
its bot and levels; :func:`make_bot` is the one way to get a bot.
"""

from __future__ import annotations

import inspect
import random
from typing import Protocol

from ..games import describe, load
from ..rules import View
from .budget import TIME_CAP, Deadline

__all__ = ["TIME_CAP", "Bot", "Deadline", "choose_within", "make_bot"]


class Bot(Protocol):
    level: str

    def choose(self, view: View, deadline: Deadline | None = None) -> str:
        """The move to play in the position ``view`` shows (the bot's seat is ``view.viewer``).

        The search stops when ``deadline`` expires (or is stopped) and the
        best move found so far is played; None means :data:`TIME_CAP` seconds.
        """
        ...


def make_bot(game: str, level: str | None = None, seed: int | None = None) -> Bot:
    """A computer player of ``game`` at ``level`` (its default level when None or "").

    RuleError (a ValueError) names the game's levels when ``level`` is not one.
    """
    descriptor = describe(game)
    name = descriptor.check_level(level)
    assert descriptor.bot is not None  # check_level refused a game without levels
    factory = load(descriptor.bot)
    bot: Bot = factory(name, random.randrange(2**31) if seed is None else seed)
    return bot


def choose_within(bot: Bot, view: View, deadline: Deadline) -> str:
    """``bot.choose(view, deadline)``, or ``bot.choose(view)`` for a bot whose ``choose`` takes no deadline
    (a player's own bot written against the one-argument API, a test double)."""
    try:
        parameters = inspect.signature(bot.choose).parameters
    except (TypeError, ValueError):  # a callable without a signature: the plain call
        return bot.choose(view)
    if len(parameters) >= 2 or any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters.values()):
        return bot.choose(view, deadline)
    return bot.choose(view)
