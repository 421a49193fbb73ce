"""The error every layer raises when the rules refuse something: the lowest floor, importing nothing.

It lives below the rules so that the game registry (:mod:`termgames.games`), which the rules read,
can refuse an unknown game or AI level with it too.  :mod:`termgames.rules` hands it on: scripts
write ``from termgames.rules import RuleError``.
"""

from __future__ import annotations


class RuleError(ValueError):
    """A move, layout or option that the rules refuse.

    ``str(error)`` is a single line meant for the player ("F6 is already
    taken", "it is bob's turn").
    """
