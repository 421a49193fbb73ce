"""The Mono computer player: sampled layouts of the hidden boards, probes chosen by expected turn score.

What the bot makes of the game:

* It sees only its own seat's view.  For every opponent board it draws
  layouts consistent with every value shown there (:mod:`.mono_inference`);
  boards are independent, so sample i of each board together make one
  *world*, and the value a probe would take in that world follows the take
  rule (with three or four players).
* A turn is a list of values; runs of equal values score their squares.  A
  region k is the only source of value k, so the way to score is to find a
  region and probe the rest of it in the same turn (a run of m scores m^2),
  then climb to a higher region the same way.  A region's unprobed cells are
  therefore worth keeping *pristine*: the bot values its future turns as
  ``future_weight * sum(m_k^2)`` over the unprobed parts of regions (the
  mean over opponent boards), which every probe lowers.
* Each candidate probe is scored in every world: the immediate gain (a run
  extended from n to n+1 earns 2n+1, a higher value 1, a lower value ends the
  turn), the pristine value it spends, and the best continuation of the run
  it leads to: the cells most likely to carry the same value, in order of
  likelihood (given the probe's value), probed until the first miss, cut
  where that is worth most.  The continuation is the same order for every
  world, so no world's answer leaks into the choice.
* The best probe is played with ``hold`` and the bot decides again once it
  has seen the value; when no probe beats keeping the future value, it
  answers ``end`` (a turn's first probe cannot be declined).

Samples are reused within a turn: the layouts drawn at the start of the turn
are filtered by the values the turn uncovers and topped up.  Everything a
decision uses is a function of the seed and the view alone, so a bot with
a seed answers the same view the same way, whatever it was asked before.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from ..rules.mono import END, HOLD, RANDOM, MonoView, grid_for
from .mono_inference import LayoutSampler, beliefs_from, consistent

DEFAULT_LEVEL = "normal"


@dataclass(frozen=True)
class Level:
    """How hard one level thinks."""

    name: str
    #: Worlds (sampled layouts of each opponent board) per decision.
    samples: int
    #: Weight of the pristine value sum(m_k^2) of what is left for later turns.
    future_weight: float
    #: Whether a probe is followed by the run it could continue (else: the probe alone).
    continuation: bool = True


LEVELS = {
    "easy": Level("easy", samples=24, future_weight=0.3, continuation=False),
    "normal": Level("normal", samples=200, future_weight=0.3),
    "hard": Level("hard", samples=500, future_weight=0.3),
}


def make_bot(level: str | None = DEFAULT_LEVEL, seed: int | None = None) -> "MonoBot":
    name = (level or DEFAULT_LEVEL).lower()
    if name not in LEVELS:
        raise ValueError(f"Mono's AI levels are {', '.join(LEVELS)}, not {level!r}")
    return MonoBot(LEVELS[name], random.randrange(2**31) if seed is None else seed)


# --------------------------------------------------------------------------
# The deduction overlay
# --------------------------------------------------------------------------


def cell_beliefs(view: MonoView, board_seat: int, *, samples: int = 200, seed: int = 0) -> list[tuple[int, float] | None]:
    """What the bot's inference believes of each hidden cell of ``board_seat``'s board.

    One entry per cell, row-major from the top row, as ``view.boards``: None
    where the view shows the value, else (most likely value, its probability).
    Only what ``view`` shows is used.  Raises ValueError for the viewer's own
    board (nothing is hidden there).
    """
    if view.grid is None or not 0 <= board_seat < len(view.players):
        raise ValueError(f"there is no board {board_seat}")
    if board_seat == view.viewer:
        raise ValueError("a player's own board hides nothing from that player")
    board = view.boards[board_seat] or (None,) * view.grid.cells
    return list(_beliefs(view.grid.regions, tuple(board), samples, seed))


@lru_cache(maxsize=32)
def _beliefs(regions: int, board: tuple[int | None, ...], samples: int, seed: int) -> tuple[tuple[int, float] | None, ...]:
    known = {cell: value for cell, value in enumerate(board) if value is not None}
    layouts = _sample(regions, known, samples, f"beliefs:{seed}")
    if layouts:
        return tuple(beliefs_from(layouts, board))
    return tuple(_counting_beliefs(regions, board))


def _counting_beliefs(regions: int, board: tuple[int | None, ...]) -> list[tuple[int, float] | None]:
    """When no layout could be drawn: each value as likely as its region has cells unseen."""
    missing = {k: k for k in range(1, regions + 1)}
    for value in board:
        if value is not None:
            missing[value] -= 1
    total = sum(missing.values()) or 1
    value, count = max(missing.items(), key=lambda item: (item[1], -item[0]))
    return [None if shown is not None else (value, count / total) for shown in board]


def _sample(regions: int, known: dict[int, int], count: int, salt: str) -> list[tuple[int, ...]]:
    """``count`` layouts consistent with ``known``, drawn from a source fixed by ``salt`` and ``known``."""
    rng = random.Random(f"{salt}:{regions}:{sorted(known.items())}")
    return LayoutSampler(grid_for(regions)).samples(known, count, rng, budget=count // 4 + 4)


# --------------------------------------------------------------------------
# The bot
# --------------------------------------------------------------------------


class MonoBot:
    def __init__(self, level: Level, seed: int) -> None:
        self.settings = level
        self.level = level.name
        self.seed = seed
        #: Layouts drawn at the start of a turn, by (board's regions, values seen then).
        self._drawn: dict[tuple[int, tuple[tuple[int, int], ...]], list[tuple[int, ...]]] = {}

    def choose(self, view: MonoView) -> str:
        me = view.viewer
        if view.grid is None or me is None or me < 0 or me not in view.to_move:
            raise ValueError("the bot is asked for a move when it is not its turn")
        if not view.laid_out[me]:
            return RANDOM
        grid = view.grid
        unprobed = [cell for cell in range(grid.cells) if cell not in view.probed]
        record = view.open_turn if view.open_turn is not None and view.open_turn.seat == me else None
        if not unprobed:
            return END if record is not None else RANDOM
        values = [probe.value for probe in record.probes] if record else []
        opponents = [seat for seat in range(len(view.players)) if seat != me and view.laid_out[seat]]
        worlds = self._worlds(view, opponents, record)
        if not worlds:
            # No consistent layout found (practically never): let chance finish the turn.
            return RANDOM
        cell = self._best_probe(view, opponents, worlds, unprobed, values)
        if cell is None:
            return END
        return f"{grid.names[cell]},{HOLD}"

    # -- samples -------------------------------------------------------------

    def _worlds(self, view: MonoView, opponents: list[int], record) -> list[tuple[tuple[int, ...], ...]]:
        """Joint samples: one layout per opponent board, each consistent with what the view shows."""
        assert view.grid is not None
        regions = view.grid.regions
        count = self.settings.samples
        this_turn = {probe.cell for probe in record.probes} if record else set()
        per_board = []
        for seat in opponents:
            known = {cell: value for cell, value in enumerate(view.boards[seat]) if value is not None}
            # The layouts drawn for the board as it was when this turn began, filtered by what the turn showed.
            before = {cell: value for cell, value in known.items() if cell not in this_turn}
            key = (regions, tuple(sorted(before.items())))
            drawn = self._drawn.get(key)
            if drawn is None:
                drawn = _sample(regions, before, count, f"bot:{self.seed}")
                if len(self._drawn) > 16:
                    self._drawn.clear()
                self._drawn[key] = drawn
            layouts = [layout for layout in drawn if consistent(layout, known)] if this_turn else list(drawn)
            # Mid-turn the filtered layouts serve while at least half are left: a decision stays quick.
            if len(layouts) < (count + 1) // 2:
                layouts += _sample(regions, known, count - len(layouts), f"bot:{self.seed}:more")
            if not layouts:
                return []
            per_board.append(layouts)
        size = min(len(layouts) for layouts in per_board)
        return [tuple(layouts[i] for layouts in per_board) for i in range(size)]

    # -- decision ------------------------------------------------------------

    def _best_probe(self, view: MonoView, opponents: list[int], worlds, unprobed: list[int], values: list[int]) -> int | None:
        """The probe worth most, or None when ending the turn is worth more than any probe."""
        assert view.grid is not None
        regions = view.grid.regions
        take = view.take if len(opponents) > 1 else "min"
        last = values[-1] if values else None
        run = 0
        for value in reversed(values):
            if value != last:
                break
            run += 1
        # Unprobed cells of each region, per board: the same in every world (probed cells are shown).
        left = []
        for seat in opponents:
            board = view.boards[seat]
            count = [0] + list(range(1, regions + 1))
            for cell in view.probed:
                value = board[cell]
                if value is not None:
                    count[value] -= 1
            left.append(count)
        weight = self.settings.future_weight / len(opponents)
        if view.final_round:
            weight = 0.0  # no later turn to keep anything for
        search = _Search(worlds, unprobed, take, left, weight, self.settings.continuation)
        best_cell, best_score = None, 0.0
        for cell in sorted(unprobed):
            score = search.probe_value(cell, last, run)
            if (best_cell is None and last is None) or score > best_score + 1e-9:
                best_cell, best_score = cell, score
        return best_cell


class _Search:
    """Scores probes over a fixed set of worlds."""

    def __init__(self, worlds, unprobed: list[int], take: str, left: list[list[int]], weight: float, continuation: bool) -> None:
        self.worlds = worlds
        self.unprobed = unprobed
        self.take = take
        self.left = left
        self.weight = weight
        self.continuation = continuation
        self.boards = len(left)
        #: Per world, per value w: the unprobed cells a run of w would take w at.
        self.where: list[dict[int, list[int]]] = []
        for world in worlds:
            where: dict[int, list[int]] = {}
            for cell in unprobed:
                for w in self.run_values(world, cell):
                    where.setdefault(w, []).append(cell)
            self.where.append(where)

    def run_values(self, world, cell: int) -> set[int]:
        """The values w for which a probe of ``cell`` right after a w takes w."""
        options = {layout[cell] for layout in world}
        if self.boards == 1 or self.take == "best":
            return options
        return {min(options) if self.take == "min" else max(options)}

    def taken(self, world, cell: int, last: int | None) -> int:
        if self.boards == 1:
            return world[0][cell]
        options = [layout[cell] for layout in world]
        if self.take == "max":
            return max(options)
        if self.take == "best" and last is not None:
            fitting = [v for v in options if v >= last]
            if fitting:
                return min(fitting)
        return min(options)

    def spent(self, world, cell: int, used: dict[tuple[int, int], int] | None = None) -> float:
        """Pristine value lost by probing ``cell`` in ``world`` (``used``: cells of regions probed already)."""
        total = 0
        for board, layout in enumerate(world):
            region = layout[cell]
            m = self.left[board][region] - (used.get((board, region), 0) if used else 0)
            total += 2 * m - 1
        return self.weight * total

    def probe_value(self, cell: int, last: int | None, run: int) -> float:
        """Expected gain of probing ``cell`` now, against ending the turn now (0)."""
        groups: dict[int, list[int]] = {}
        total = 0.0
        for index, world in enumerate(self.worlds):
            value = self.taken(world, cell, last)
            cost = self.spent(world, cell)
            if last is not None and value < last:
                total -= cost  # the turn ends here
                continue
            gain = 2 * run + 1 if value == last else 1
            total += gain - cost
            groups.setdefault(value, []).append(index)
        if self.continuation:
            for value, group in groups.items():
                total += self.run_value(group, cell, value, run + 1 if value == last else 1)
        return total / len(self.worlds)

    def run_value(self, group: list[int], probed: int, value: int, run: int) -> float:
        """Summed over the worlds of ``group``: the best continuation of a run of ``value`` (length ``run``).

        The cells most likely to take ``value`` are tried in order of
        likelihood until a miss; the cut-off is the prefix worth most.
        """
        counts: dict[int, int] = {}
        for index in group:
            for cell in self.where[index].get(value, ()):
                counts[cell] = counts.get(cell, 0) + 1
        counts.pop(probed, None)
        least = len(group) / 4
        order = sorted((c for c in counts if counts[c] >= least), key=lambda c: (-counts[c], c))[:MAX_RUN]
        if not order:
            return 0.0
        gains = [0.0] * (len(order) + 1)
        for index in group:
            world = self.worlds[index]
            used: dict[tuple[int, int], int] = {}
            for board, layout in enumerate(world):
                used[(board, layout[probed])] = 1
            length = run
            net = 0.0
            for step, cell in enumerate(order, start=1):
                got = self.taken(world, cell, value)
                cost = self.spent(world, cell, used)
                for board, layout in enumerate(world):
                    key = (board, layout[cell])
                    used[key] = used.get(key, 0) + 1
                if got == value:
                    net += 2 * length + 1 - cost
                    length += 1
                    gains[step] += net
                    continue
                net += (1 if got > value else 0) - cost
                for rest in range(step, len(order) + 1):
                    gains[rest] += net
                break
        return max(gains)


#: Longest continuation a probe is credited with (cells tried after it).
MAX_RUN = 12
