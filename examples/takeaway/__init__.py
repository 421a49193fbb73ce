"""Take-away: the template game, the smallest complete game termgames can play (as Tatham's ``nullgame.c``).

Copy this folder to start a game: its rules (:mod:`.rules`), its computer player (:mod:`.bot`) and the
descriptor below are all a game needs to be listed, played with ``new``/``move``/``show``, kept in records,
played at a server by commands, and checked by ``tests/test_game_contract.py``.  The checklist in
``docs/architecture.md`` walks through them and says where each goes in termgames, and what a game adds
for a screen.

It is not one of termgames's games: :data:`DESCRIPTOR` is in no registry.  The contract tests register it
for their own run (``tests/games/__init__.py``: ``EXAMPLES``), so it keeps working as the shared code
changes.  A real game's descriptor is one entry in ``GAMES`` (``termgames/games.py``), its modules under
``termgames/rules/`` and ``termgames/ai/``, named there as ``termgames.rules.NAME:Class``.
"""

from __future__ import annotations

from termgames.games import GameDescriptor

DESCRIPTOR = GameDescriptor(
    name="takeaway",
    title="Take-away",
    summary="Take 1 to 3 counters from one heap; whoever takes the last counter wins.",
    rules="takeaway.rules:TakeAway",
    bot="takeaway.bot:make_bot",
    ai_levels=("random", "perfect"),
    default_level="perfect",
    # Each level is a bot of its own strategy, not one bot at several strengths.
    levels_are_bots=True,
    # The first player wins every position whose heaps' nim-sum is not 0: a rematch swaps the seats.
    first_player_edge=True,
)
