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
  where that is worth most (the hard level re-orders after each probe, as
  it will play).  The continuation's order is chosen from all worlds
  together, so no world's answer leaks into the choice.
* The best probe is played with ``hold`` and the bot decides again once it
  has seen the value; when no probe beats keeping the future value, it
  answers ``end`` (a turn's first probe cannot be declined).  In the last
  round nothing is kept for later.  Levels differ in layouts per decision
  and in how the run is followed; easy does not look past the probe.

When fewer than :data:`MIN_WORLDS` layouts can be drawn in time (late in
games on the largest boards, where the constraints make layouts rare), the
bot follows regions by their shapes alone (:func:`follow_regions`).  The
hard level lays out its own board as the longest-bordered of many layouts
drawn as the generator draws them (each cell's border counted by its value),
then winds it further by swapping neighbouring cells of two regions: regions
that wind are harder to follow, and the large ones are worth most.
Every decision honours a :class:`~.budget.Deadline` (2 s by default).

Layouts are followed along the game (see :meth:`MonoBot._layouts`):
filtered by every value uncovered, topped up when fewer than half are left.
Everything a decision uses is a function of the seed and the view alone, so
a bot with a seed answers the same view the same way, whatever it was asked
before.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..rules.mono import END, HOLD, RANDOM, Grid, MonoView, TurnRecord, grid_for, label
from .budget import SEARCH_SHARE, TIME_CAP, Deadline, deadline_for
from .mono_inference import LayoutSampler, beliefs_from, consistent

#: One sampled layout per opponent board (in the order of the opponents): a world the bot judges probes in.
World = tuple[tuple[int, ...], ...]

#: Attempts per layout wanted, at most (see LayoutSampler.samples).
SAMPLING_EFFORT = 4
#: Cells of the standard board (nine regions), for which the levels' sample counts are meant.
STANDARD_CELLS = 45
#: Fewest layouts per board a decision asks for (three or four players share the level's samples);
#: half as many on boards of more than twice the standard size, whose layouts are slow to draw.
MIN_SAMPLES = 24
#: Fewest worlds a probe is judged over; with fewer the bot follows regions by their shapes alone
#: (on 35 regions, 9 times a random prober's points where a dozen sampled layouts made 1.3 times).
MIN_WORLDS = 8
#: Boards larger than this (29 regions and more) are played by shapes alone: their layouts take longer to
#: draw than a decision may (measured: sampling still won 8 of 10 against shapes on 20 regions).
SHAPES_ONLY_CELLS = 420
#: Steps of layouts the bot keeps (a game of nine regions has a few dozen).
CHAIN_MEMORY = 256


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
    #: Whether that run is followed deciding after each probe (else: one order of cells, cut where best).
    adaptive: bool = False
    #: Random layouts of its own board the bot draws, keeping the one hardest to probe (0: "random").
    layout_candidates: int = 0
    #: How the hardest layout is judged: "border" (cells next to another region), "weighted" (each such
    #: cell counted by its value: the large regions are worth most to a prober).
    layout_score: str = "border"
    #: Swaps of neighbouring cells (keeping every region connected) tried to lengthen the chosen layout's
    #: border further (0: the generator's layouts as drawn).
    layout_climb: int = 0


LEVELS = {
    "easy": Level("easy", samples=24, future_weight=0.3, continuation=False),
    "normal": Level("normal", samples=150, future_weight=0.45),
    "hard": Level(
        "hard", samples=400, future_weight=0.45, adaptive=True,
        layout_candidates=200, layout_score="weighted", layout_climb=20_000,
    ),
}




# --------------------------------------------------------------------------
# The deduction overlay
# --------------------------------------------------------------------------


def cell_beliefs(
    view: MonoView, board_seat: int, *, samples: int = 200, seed: int = 0
) -> list[tuple[int, float] | None]:
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
def _beliefs(
    regions: int, board: tuple[int | None, ...], samples: int, seed: int
) -> tuple[tuple[int, float] | None, ...]:
    known = {cell: value for cell, value in enumerate(board) if value is not None}
    # The overlay waits for this: no longer than a bot's decision (fewer layouts on the largest boards).
    layouts = sample_layouts(regions, known, samples, f"beliefs:{seed}", Deadline(TIME_CAP * SEARCH_SHARE))
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


def sample_layouts(
    regions: int, known: dict[int, int], count: int, salt: str, deadline: Deadline | None = None
) -> list[tuple[int, ...]]:
    """Up to ``count`` layouts consistent with ``known``, drawn from a source fixed by ``salt`` and ``known``.

    Four attempts a layout at most (one attempt takes about half a
    millisecond on the standard board): a view whose layouts are hard to
    find gets fewer of them, not a slow answer; fewer still when ``deadline``
    expires.
    """
    rng = random.Random(f"{salt}:{regions}:{sorted(known.items())}")
    return LayoutSampler(grid_for(regions)).samples(known, count, rng, effort=SAMPLING_EFFORT, deadline=deadline)


# --------------------------------------------------------------------------
# The bot
# --------------------------------------------------------------------------


class MonoBot:
    def __init__(self, level: str, seed: int) -> None:
        """The bot of ``level`` (a name from :data:`LEVELS`, checked by :func:`termgames.ai.make_bot`)."""
        self.settings = LEVELS[level]
        self.level = level
        self.seed = seed
        #: Layouts of a board after a history of uncovering steps, by a digest of that history.
        self._chain: dict[str, list[tuple[int, ...]]] = {}

    def choose(self, view: MonoView, deadline: Deadline | None = None) -> str:
        """The next move; within ``deadline`` (:data:`~.budget.TIME_CAP` when None): layouts are drawn in
        the first half of its search share, probes scored in the rest, the best so far played when it expires."""
        deadline = deadline_for(deadline)
        search = deadline.within(deadline.remaining() * SEARCH_SHARE)
        me = view.viewer
        if view.grid is None or me is None or me < 0 or me not in view.to_move:
            raise ValueError("the bot is asked for a move when it is not its turn")
        if not view.laid_out[me]:
            return self._own_layout(view, search)
        grid = view.grid
        unprobed = [cell for cell in range(grid.cells) if cell not in view.probed]
        record = view.open_turn if view.open_turn is not None and view.open_turn.seat == me else None
        if not unprobed:
            return END if record is not None else RANDOM
        values = [probe.value for probe in record.probes] if record else []
        opponents = [seat for seat in range(len(view.players)) if seat != me and view.laid_out[seat]]
        worlds = [] if grid.cells > SHAPES_ONLY_CELLS else self._worlds(view, opponents, record, search.share(0.5))
        if len(worlds) < MIN_WORLDS:
            # Too few consistent layouts found in time (late in games on the largest boards) to judge by:
            # follow regions by their shapes alone.
            cell = follow_regions(view, opponents, unprobed, values)
            return END if cell is None else f"{grid.names[cell]},{HOLD}"
        cell = self._best_probe(view, opponents, worlds, unprobed, values, search)
        if cell is None:
            return END
        return f"{grid.names[cell]},{HOLD}"

    def _own_layout(self, view: MonoView, deadline: Deadline) -> str:
        """The bot's own board: ``random``, or the hardest to probe of a few random layouts.

        Probers score by finding a region and following it; a region whose
        cells lie far apart (a long border with other regions) is hard to
        follow, for a person and for the sampler (which expects the
        generator's compact shapes).  Of ``layout_candidates`` layouts drawn
        as the generator draws them, the one with the longest border is kept
        (each cell's count of other regions' neighbours weighted by its
        value with the "weighted" score: a large region is worth most to a
        prober who follows it), then lengthened by swapping neighbouring
        cells (``layout_climb`` tries).
        """
        candidates = self.settings.layout_candidates
        if not candidates or view.grid is None:
            return RANDOM
        grid = view.grid
        rng = random.Random(f"{self.seed}:layout:{grid.regions}")
        # The sampler with nothing seen is the generator, and quicker than the rules' (which restarts); on the
        # largest boards drawing stops at half the time, leaving the rest to the climb.
        draw = deadline.share(0.5) if self.settings.layout_climb else deadline
        layouts = LayoutSampler(grid).samples({}, candidates, rng, effort=SAMPLING_EFFORT, least=1, deadline=draw)
        if not layouts:
            return RANDOM
        weighted = LAYOUT_SCORES[self.settings.layout_score]
        best, best_border = layouts[0], -1
        for index, layout in enumerate(layouts):
            if index % 16 == 15 and deadline.expired():
                break  # scoring 200 layouts of 20 regions takes a while on a busy machine
            border = layout_border(grid, layout, weighted)
            if border > best_border:
                best, best_border = layout, border
        if self.settings.layout_climb:
            best = climb_border(grid, best, weighted, rng, self.settings.layout_climb, deadline)
        return "".join(label(value) for value in best)

    def layouts(self, view: MonoView, board_seat: int) -> list[tuple[int, ...]]:
        """The layouts of ``board_seat``'s board the bot reasons with in ``view`` (for measuring them)."""
        me = view.viewer
        record = view.open_turn if view.open_turn is not None and view.open_turn.seat == me else None
        opponents = [seat for seat in range(len(view.players)) if seat != me and view.laid_out[seat]]
        if board_seat not in opponents:
            raise ValueError(f"board {board_seat} is not an opponent's laid-out board")
        return [world[opponents.index(board_seat)] for world in self._worlds(view, opponents, record)]

    # -- samples -------------------------------------------------------------

    def _worlds(
        self, view: MonoView, opponents: list[int], record: TurnRecord | None, deadline: Deadline | None = None
    ) -> list[World]:
        """Joint samples: one layout per opponent board, each consistent with what the view shows."""
        assert view.grid is not None
        # Larger boards cost more a layout: fewer layouts, so that a decision keeps its pace.
        scale = min(1.0, STANDARD_CELLS / view.grid.cells) / len(opponents)
        least = MIN_SAMPLES if view.grid.cells <= 2 * STANDARD_CELLS else MIN_SAMPLES // 2
        count = max(least, int(self.settings.samples * scale))
        per_board = [self._layouts(view, seat, record, count, deadline) for seat in opponents]
        size = min(len(layouts) for layouts in per_board)
        return [tuple(layouts[i] for layouts in per_board) for i in range(size)]

    def _layouts(
        self, view: MonoView, seat: int, record: TurnRecord | None, count: int, deadline: Deadline | None = None
    ) -> list[tuple[int, ...]]:
        """Layouts of ``seat``'s board consistent with the view, followed along the game.

        The board became known step by step: each finished turn of another
        player, then each probe of the open turn.  The layouts of one step are
        those of the step before that agree with the values it uncovered,
        topped up with fresh ones whenever fewer than half are left.  So
        most decisions filter instead of drawing, and layouts drawn early
        (from the plain random-layout prior) stay while they agree, which is
        exact conditioning.  Each step's layouts depend only on the seed and
        the steps so far, all read from the view: the same view gets the same
        layouts, whether the bot followed the game or not (unless a deadline
        cut a top-up short).  The walk starts from the latest step still
        remembered: a long game (35 regions) has more steps than the memory
        holds, and walking again from the first step, drawing at every step
        whose layouts were forgotten, once took 74 s for one decision.
        """
        assert view.grid is not None
        regions = view.grid.regions
        board = view.boards[seat]
        steps = [[probe.cell for probe in turn.probes] for turn in view.turns if turn.seat != seat]
        if record is not None:
            steps += [[probe.cell] for probe in record.probes]
        history = hashlib.blake2b(f"{self.seed}:{seat}:{regions}:{count}".encode(), digest_size=16)
        keys = [history.hexdigest()]
        uncovered_at: list[dict[int, int]] = [{}]
        known: dict[int, int] = {}
        for cells in steps:
            uncovered = {cell: value for cell in cells if cell not in known and (value := board[cell]) is not None}
            known.update(uncovered)
            uncovered_at.append(uncovered)
            history.update((",".join(map(str, cells)) + ";").encode())
            keys.append(history.hexdigest())
        done = next((step for step in range(len(keys) - 1, -1, -1) if keys[step] in self._chain), None)
        if done is None:
            done = 0
            self._remember(keys[0], sample_layouts(regions, {}, count, keys[0], deadline))
        layouts = self._chain[keys[done]]
        seen = {cell: value for step in uncovered_at[: done + 1] for cell, value in step.items()}
        out_of_time = False
        for step in range(done + 1, len(keys)):
            out_of_time = out_of_time or (deadline is not None and deadline.expired())
            if out_of_time and step < len(keys) - 1:
                # Out of time (a fresh bot in a long game): the steps left filter at once, with one top-up.
                continue
            uncovered = {cell: value for later in uncovered_at[done + 1 : step + 1] for cell, value in later.items()}
            seen.update(uncovered)
            layouts = [layout for layout in layouts if consistent(layout, uncovered)]
            if len(layouts) < (count + 1) // 2:
                layouts = layouts + sample_layouts(regions, seen, count - len(layouts), keys[step], deadline)
            self._remember(keys[step], layouts)
            done = step
        return layouts

    def _remember(self, key: str, layouts: list[tuple[int, ...]]) -> None:
        if len(self._chain) >= CHAIN_MEMORY:
            del self._chain[next(iter(self._chain))]
        self._chain[key] = layouts

    # -- decision ------------------------------------------------------------

    def search_for(
        self, view: MonoView, opponents: list[int], worlds: list[World], unprobed: list[int], values: list[int]
    ) -> tuple[_Search, int | None, int]:
        """The search that scores probes over ``worlds`` as this bot does, with the turn's last value and the
        length of its run (also the analyst's, :mod:`.mono_analysis`: it values moves as the bot does)."""
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
            count = [0, *range(1, regions + 1)]
            for cell in view.probed:
                probed_value = board[cell]
                if probed_value is not None:
                    count[probed_value] -= 1
            left.append(count)
        weight = self.settings.future_weight / len(opponents)
        if view.final_round:
            weight = 0.0  # no later turn to keep anything for
        search = _Search(worlds, unprobed, take, left, weight, self.settings.continuation, self.settings.adaptive)
        return search, last, run

    def worlds(self, view: MonoView, deadline: Deadline | None = None) -> tuple[list[int], list[World]]:
        """The opponents whose boards are laid out and the worlds the bot would judge ``view``'s probes in."""
        me = view.viewer
        record = view.open_turn if view.open_turn is not None and view.open_turn.seat == me else None
        opponents = [seat for seat in range(len(view.players)) if seat != me and view.laid_out[seat]]
        return opponents, self._worlds(view, opponents, record, deadline)

    def _best_probe(
        self,
        view: MonoView,
        opponents: list[int],
        worlds: list[World],
        unprobed: list[int],
        values: list[int],
        deadline: Deadline | None = None,
    ) -> int | None:
        """The probe worth most, or None when ending the turn is worth more than any probe.

        When ``deadline`` expires the best of the probes scored so far is
        played: the cells most likely to continue the run are scored first.
        """
        search, last, run = self.search_for(view, opponents, worlds, unprobed, values)
        best_cell, best_score = None, 0.0
        for cell in search.promising_first(sorted(unprobed), last):
            if deadline is not None and deadline.expired() and (best_cell is not None or last is not None):
                break
            score = search.probe_value(cell, last, run)
            if (best_cell is None and last is None) or score > best_score + 1e-9:
                best_cell, best_score = cell, score
        return best_cell


#: Per layout score: the power of a cell's value its border counts are weighted by.
LAYOUT_SCORES = {"border": 0, "weighted": 1}


def layout_border(grid: Grid, layout: tuple[int, ...], weighted: int = 0) -> int:
    """How hard ``layout`` is to follow: its cells next to another region (each counted by its value when
    ``weighted``), one count per such neighbour."""
    neighbours = grid.neighbours
    return sum(
        layout[cell] ** weighted * sum(layout[other] != layout[cell] for other in neighbours[cell])
        for cell in range(grid.cells)
    )


def climb_border(
    grid: Grid, layout: tuple[int, ...], weighted: int, rng: random.Random, tries: int, deadline: Deadline
) -> tuple[int, ...]:
    """``layout`` with its border lengthened: ``tries`` swaps of two neighbouring cells of two regions, each
    kept when both regions stay connected and the border does not shrink (fewer when ``deadline`` expires)."""
    values = list(layout)
    neighbours = grid.neighbours
    for attempt in range(tries):
        if attempt % 64 == 0 and deadline.expired():
            break
        a = rng.randrange(grid.cells)
        b = rng.choice(neighbours[a])
        p, q = values[a], values[b]
        if p == q:
            continue
        before = _local_border(neighbours, values, (a, b), weighted)
        values[a], values[b] = q, p
        after = _local_border(neighbours, values, (a, b), weighted)
        if after >= before and _connected(neighbours, values, b, p) and _connected(neighbours, values, a, q):
            continue
        values[a], values[b] = p, q
    return tuple(values)


def _local_border(neighbours: Sequence[Sequence[int]], values: list[int], cells: tuple[int, ...], weighted: int) -> int:
    """The border term of ``cells`` and their neighbours (what swapping ``cells`` can change)."""
    around = set(cells)
    for cell in cells:
        around.update(neighbours[cell])
    return sum(
        values[cell] ** weighted * sum(values[other] != values[cell] for other in neighbours[cell])
        for cell in around
    )


def _connected(neighbours: Sequence[Sequence[int]], values: list[int], start: int, region: int) -> bool:
    """Whether the cells of ``region`` (one of them ``start``) are orthogonally connected."""
    seen = {start}
    stack = [start]
    while stack:
        cell = stack.pop()
        for other in neighbours[cell]:
            if values[other] == region and other not in seen:
                seen.add(other)
                stack.append(other)
    return len(seen) == region


def follow_regions(view: MonoView, opponents: list[int], unprobed: list[int], values: list[int]) -> int | None:
    """A probe chosen from the shapes of regions alone, when no layout can be drawn (late on 35 regions).

    A region is connected, so a cell next to a seen cell of value k with
    cells of k still unseen is likely to hold k.  A turn goes on with the
    run's value while such a cell is left, and ends otherwise (what is
    pristine stays for later); its first probe goes next to the region with
    most cells unseen, or where nothing is seen when no region has room.
    With several opponents the first board's shapes are followed.
    """
    assert view.grid is not None
    neighbours = view.grid.neighbours
    board = view.boards[opponents[0]]
    missing = [0, *range(1, view.grid.regions + 1)]
    for value in board:
        if value is not None:
            missing[value] -= 1

    def beside(value: int) -> list[int]:
        """Unprobed cells next to a seen cell of ``value``, those with most such neighbours first."""
        counted = {cell: sum(board[other] == value for other in neighbours[cell]) for cell in unprobed}
        return sorted((cell for cell, count in counted.items() if count), key=lambda cell: (-counted[cell], cell))

    if values:
        run_value = values[-1]
        following = beside(run_value) if missing[run_value] > 0 else []
        return following[0] if following else None
    for value in sorted(range(1, len(missing)), key=lambda value: (-missing[value], -value)):
        if missing[value] <= 0:
            break
        following = beside(value)
        if following:
            return following[0]
    return min(unprobed, key=lambda cell: (sum(board[other] is not None for other in neighbours[cell]), cell))


class _Search:
    """Scores probes over a fixed set of worlds.

    Everything a world says about an unprobed cell is tabled first: the
    values on each board, the value taken there after each possible last
    value (the take rule), and the pristine value probing it would spend.
    """

    def __init__(
        self,
        worlds: list[World],
        unprobed: list[int],
        take: str,
        left: list[list[int]],
        weight: float,
        continuation: bool,
        adaptive: bool = False,
    ) -> None:
        self.worlds = worlds
        self.unprobed = unprobed
        self.continuation = continuation
        self.adaptive = adaptive
        self.weight = weight
        boards = len(left)
        self.boards = boards
        #: Per world: per cell, the values of the boards, lowest first (multiplayer) or the value (one board).
        self.sorted_values: list = []
        #: Per world: per cell, the value taken whatever came before (None when it depends on that: "best").
        self.fixed: list = []
        #: Per world: per cell, the pristine value its probe spends.
        self.cost: list[dict[int, float]] = []
        #: Per world, per value w: the unprobed cells a run of w would take w at.
        self.where: list[dict[int, list[int]]] = []
        for world in worlds:
            cost: dict[int, float] = {}
            where: dict[int, list[int]] = {}
            if boards == 1:
                layout = world[0]
                counts = left[0]
                for cell in unprobed:
                    value = layout[cell]
                    cost[cell] = weight * (2 * counts[value] - 1)
                    where.setdefault(value, []).append(cell)
                self.sorted_values.append(layout)
                self.fixed.append(layout)
            else:
                ordered: dict[int, tuple[int, ...]] = {}
                fixed: dict[int, int] = {}
                for cell in unprobed:
                    values = [layout[cell] for layout in world]
                    cost[cell] = weight * sum(2 * left[board][value] - 1 for board, value in enumerate(values))
                    ordered[cell] = tuple(sorted(values))
                    if take == "best":
                        for value in set(values):
                            where.setdefault(value, []).append(cell)
                    else:
                        fixed[cell] = min(values) if take == "min" else max(values)
                        where.setdefault(fixed[cell], []).append(cell)
                self.sorted_values.append(ordered)
                self.fixed.append(fixed if take != "best" else None)
            self.cost.append(cost)
            self.where.append(where)

    def promising_first(self, cells: list[int], last: int | None) -> list[int]:
        """``cells`` with those most often taking ``last`` (the run's value) or more first, then the cheapest."""
        worlds = range(len(self.worlds))
        if last is None:
            return sorted(cells, key=lambda cell: sum(self.cost[index][cell] for index in worlds))
        hits = {cell: sum(1 for index in worlds if self.taken(index, cell, last) == last) for cell in cells}
        return sorted(cells, key=lambda cell: -hits[cell])

    def taken(self, index: int, cell: int, last: int | None) -> int:
        fixed = self.fixed[index]
        if fixed is not None:
            return fixed[cell]
        values = self.sorted_values[index][cell]
        if last is not None:
            for value in values:
                if value >= last:
                    return value
        return values[0]

    def region_keys(self, index: int, cell: int) -> Iterable[tuple[int, int]]:
        """The (board, region) pairs a probe of ``cell`` touches in world ``index``."""
        return enumerate(layout[cell] for layout in self.worlds[index])

    def probe_value(self, cell: int, last: int | None, run: int) -> float:
        """Expected gain of probing ``cell`` now, against ending the turn now (0)."""
        groups: dict[int, list[int]] = {}
        total = 0.0
        for index in range(len(self.worlds)):
            value = self.taken(index, cell, last)
            cost = self.cost[index][cell]
            if last is not None and value < last:
                total -= cost  # the turn ends here
                continue
            total += (2 * run + 1 if value == last else 1) - cost
            groups.setdefault(value, []).append(index)
        if self.continuation:
            follow = self.adaptive_run_value if self.adaptive else self.run_value
            for value, group in groups.items():
                total += follow(group, cell, value, run + 1 if value == last else 1)
        return total / len(self.worlds)

    def adaptive_run_value(
        self, group: list[int], probed: int, value: int, run: int, chain: tuple[int, ...] = ()
    ) -> float:
        """Summed over the worlds of ``group``: the run of ``value`` continued as the bot would,
        deciding after each probe.

        The next cell is the one most likely to take ``value`` among the
        worlds still possible (those where every cell tried so far did);
        the run goes on only where that is worth more than stopping.
        """
        counts: dict[int, int] = {}
        for index in group:
            for cell in self.where[index].get(value, ()):
                counts[cell] = counts.get(cell, 0) + 1
        counts.pop(probed, None)
        for cell in chain:
            counts.pop(cell, None)
        if not counts or len(chain) >= MAX_RUN:
            return 0.0
        cell = min(counts, key=lambda c: (-counts[c], c))
        if counts[cell] < len(group) * RUN_LEAST:
            return 0.0
        before = (probed, *chain)
        hits = []
        total = 0.0
        for index in group:
            world = self.worlds[index]
            spent = self.cost[index][cell]
            for layout in world:
                region = layout[cell]
                spent -= 2 * self.weight * sum(1 for other in before if layout[other] == region)
            got = self.taken(index, cell, value)
            if got == value:
                total += 2 * (run + len(chain)) + 1 - spent
                hits.append(index)
            else:
                total += (1 if got > value else 0) - spent
        if hits:
            total += self.adaptive_run_value(hits, probed, value, run, (*chain, cell))
        return max(0.0, total)

    def run_value(self, group: list[int], probed: int, value: int, run: int) -> float:
        """Summed over the worlds of ``group``: the best continuation of a run of ``value`` (length ``run``).

        The cells most likely to take ``value`` are tried in order of
        likelihood until a miss; the cut-off is the prefix worth most.
        Each cell of a region probed on the way makes the region's next
        cell cheaper to spend (m^2 falls by 2m-1, then 2m-3, ...).
        """
        counts: dict[int, int] = {}
        for index in group:
            for cell in self.where[index].get(value, ()):
                counts[cell] = counts.get(cell, 0) + 1
        counts.pop(probed, None)
        least = len(group) * RUN_LEAST
        order = sorted((c for c in counts if counts[c] >= least), key=lambda c: (-counts[c], c))[:MAX_RUN]
        if not order:
            return 0.0
        gains = [0.0] * (len(order) + 1)
        rebate = 2 * self.weight
        for index in group:
            used: dict[tuple[int, int], int] = {key: 1 for key in self.region_keys(index, probed)}
            cost = self.cost[index]
            length = run
            net = 0.0
            for step, cell in enumerate(order, start=1):
                got = self.taken(index, cell, value)
                spent = cost[cell]
                for key in self.region_keys(index, cell):
                    seen = used.get(key, 0)
                    spent -= rebate * seen
                    used[key] = seen + 1
                if got == value:
                    net += 2 * length + 1 - spent
                    length += 1
                    gains[step] += net
                    continue
                net += (1 if got > value else 0) - spent
                for rest in range(step, len(order) + 1):
                    gains[rest] += net
                break
        return max(gains)


#: Longest continuation a probe is credited with (cells tried after it).
MAX_RUN = 12
#: Least share of the worlds in which a cell must take the run's value to be tried in a continuation.
RUN_LEAST = 0.25
