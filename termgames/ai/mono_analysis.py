"""Mono's analyst: a move valued in expected points, over layouts drawn from what its player could see.

The mover's view before the move is all it uses (:mod:`termgames.analysis`):
the opponents' boards as far as they were uncovered then, never the layouts
themselves.  From it the bot's own machinery (:class:`~.mono.MonoBot`) draws
*worlds*, one layout of each opponent board consistent with every value shown,
and scores in each the move played and every alternative:

* a probe kept open (``CELL,hold``, how the screen plays) is worth what the
  bot's search says of it: the points it adds to the turn's list, less the
  points it spends of later turns (a region's unprobed cells are worth the
  square of their count; a probe lowers that), plus the best continuation of
  the run it leads to;
* any other command (``a3,f2,end``, ``a3`` followed by random probes,
  ``random``) is played out in every world as the rules would (the take rule,
  the turn ending at the first lower value, random probes drawn at random):
  the points it adds, less the points it spends;
* ``end`` of an open turn is worth 0: nothing added, nothing spent.

The best alternative is the best single probe (or ``end``); a command worth
more than all of them is its own best.  A layout (the first move) is not
valued: how well a board hides shows only in the opponents' turns, and no
position before it tells its player anything.  Nothing is computed with
hindsight, so :attr:`~termgames.analysis.Judgement.hindsight` stays False: a
probe into a region the player could not have known of is judged by the
chances the player had.
"""

from __future__ import annotations

import random
from dataclasses import replace

from ..rules import View
from ..rules.mono import END, HOLD, RANDOM, MonoView
from .budget import SEARCH_SHARE, Deadline
from .judgement import Judgement, mover
from .mono import MIN_WORLDS, MonoBot, _Search

UNIT = "expected points"


def make_analyst(level: str, seed: int) -> MonoAnalyst:
    """The analyst thinking as the bot of ``level`` does (its layouts per decision and weights)."""
    return MonoAnalyst(level, seed)


class MonoAnalyst:
    unit = UNIT

    def __init__(self, level: str, seed: int) -> None:
        self.bot = MonoBot(level, seed)
        # Every level values a probe with the run it leads to, in one order fixed before the values come up:
        # deciding after each probe (hard) picks each next cell from the few worlds still agreeing, which
        # knows those worlds too well and credits probes with more than a player could expect to score.
        self.bot.settings = replace(self.bot.settings, continuation=True, adaptive=False)
        self.seed = seed

    def judge(self, before: View, move: str, deadline: Deadline) -> Judgement:
        if not isinstance(before, MonoView) or before.grid is None:
            raise ValueError("Mono's analyst judges Mono views")
        me = mover(before)
        if not before.laid_out[me]:
            return Judgement(0.0, 0.0, None, note="a layout is not valued: it shows only in the opponents' turns")
        grid = before.grid
        parts = [part.strip() for part in move.strip().lower().split(",")]
        keyword = parts[-1] if parts[-1] in (RANDOM, END, HOLD) else None
        names = parts[:-1] if keyword else parts
        cells = [grid.index[name] for name in names if name in grid.index]
        if len(cells) != len(names):
            raise ValueError(f"{move!r} is not a probe of this board")
        unprobed = [cell for cell in range(grid.cells) if cell not in before.probed]
        record = before.open_turn if before.open_turn is not None and before.open_turn.seat == me else None
        if not unprobed:
            return Judgement(0.0, 0.0, None, note="nothing is left to probe")
        values = [probe.value for probe in record.probes] if record else []
        search_time = deadline.within(deadline.remaining() * SEARCH_SHARE)
        opponents, worlds = self.bot.worlds(before, search_time.share(0.5))
        if len(worlds) < MIN_WORLDS:
            return Judgement(0.0, 0.0, None, note="too few layouts of the hidden boards were drawn in time to judge")
        search, last, run = self.bot.search_for(before, opponents, worlds, unprobed, values)
        if keyword == HOLD and len(cells) == 1:
            played = search.probe_value(cells[0], last, run)
        elif keyword == END and not cells:
            played = 0.0
        else:
            auto = keyword == RANDOM or (keyword is None and not before.no_auto)
            played = self._played_out(search, cells, auto, last, run)
        best: str | None = END if record is not None else None
        best_value = 0.0 if record is not None else -float("inf")
        for cell in search.promising_first(sorted(unprobed), last):
            if search_time.expired() and best is not None:
                break
            value = search.probe_value(cell, last, run)
            if value > best_value + 1e-9:
                best, best_value = f"{grid.names[cell]},{HOLD}", value
        if best is None or played >= best_value - 1e-9:
            return Judgement(played, played, None)
        note = "ending the turn keeps the rest for later" if best == END else f"{best.split(',')[0]} was worth more"
        return Judgement(played, best_value, best, note=note)

    def _played_out(self, search: _Search, cells: list[int], auto: bool, last: int | None, run: int) -> float:
        """A whole command played out in every world: the mean of the points it adds less the points it spends.

        ``auto``: random probes follow the listed ones until a lower value, drawn at random in each world
        (from a source fixed by the seed and the world).
        """
        total = 0.0
        rebate = 2 * search.weight
        for index in range(len(search.worlds)):
            rng = random.Random(f"{self.seed}:{index}:{cells}")
            order = list(cells)
            untouched = [cell for cell in search.unprobed if cell not in cells]
            previous, length = last, run
            used: dict[tuple[int, int], int] = {}
            net = 0.0
            step = 0
            while True:
                if step < len(order):
                    cell = order[step]
                elif auto and untouched:
                    cell = untouched.pop(rng.randrange(len(untouched)))
                else:
                    break
                step += 1
                spent = search.cost[index][cell]
                for key in search.region_keys(index, cell):
                    seen = used.get(key, 0)
                    spent -= rebate * seen
                    used[key] = seen + 1
                net -= spent
                got = search.taken(index, cell, previous)
                if previous is not None and got < previous:
                    break  # the turn ends: the lower value scores nothing
                if got == previous:
                    net += 2 * length + 1
                    length += 1
                else:
                    net += 1
                    length = 1
                previous = got
            total += net
        return total / len(search.worlds)
