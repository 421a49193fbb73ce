"""What a Mono seat can infer about a hidden board from the values it has seen.

A board is a tiling by regions 1..R, region k being k orthogonally connected
cells of value k.  A *consistent layout* keeps every uncovered value where it
was seen.  :class:`LayoutSampler` draws consistent layouts; the share of
layouts giving a hidden cell a value is the belief that the cell holds it.

The sampler follows the pbmserv generator that lays out random boards (the
truth, for random layouts) as closely as the constraints allow:

1. *Seen* regions (a value already uncovered) are placed first: the seen
   cells of the region, joined by shortest paths through free cells when
   they lie apart, then grown one random frontier cell at a time, as pbmserv
   grows a region, never over a cell seen with another value.  Regions that
   found no room in earlier attempts go first, then the most determined.  A
   region that cannot be placed sends the search back to another shape of
   the region before it (depth first, within a budget of shapes).
2. The rest of the board is filled exactly as pbmserv fills it: the smallest
   gap first, a random combination of unused regions that sums to its size,
   one member grown inside it.  With nothing seen this *is* the generator.

Random growth can miss every layout of a tightly constrained view;
:meth:`LayoutSampler.complete_search` then finds one by a depth-first search
that reaches every tiling.

After every placement each piece of empty board must be a sum of unused
region sizes and the seen cells of each region still to place must share a
piece.  The distribution is close to the true posterior, not equal to it
(seen regions grow from their seen cells, not from a uniformly chosen
start); ``bench/mono_ai.py --calibration`` measures how close.  The bot
(:mod:`termgames.ai.mono`) mostly keeps layouts drawn from the plain prior
and filters them, which is exact, and uses this sampler to top them up.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence

from ..rules.mono import Grid, _sums
from .budget import Deadline

#: Shapes of seen regions one attempt may try in all, and per region (before going back one region).
SHAPES_PER_ATTEMPT = 40
SHAPES_PER_REGION = 4
#: Placements the complete search may try when random attempts found no layout (a few seconds at most).
COMPLETE_SEARCH_STEPS = 200_000
#: The complete search's first run; each restart doubles it.
RESTART_STEPS = 200


#: A region seen, in a sampling plan: its value, its seen cells, those cells in connected groups, and the cells
#: it may not take (see LayoutSampler._plan).
PlanItem = tuple[int, list[int], list[list[int]], bytearray]


class LayoutSampler:
    """Draws layouts of one grid consistent with a set of seen values."""

    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        self.cells = grid.cells
        self.regions = grid.regions
        self.neighbours = grid.neighbours

    # -- public --------------------------------------------------------------

    def samples(
        self,
        known: dict[int, int],
        count: int,
        rng: random.Random,
        effort: int = 8,
        least: int = 8,
        deadline: Deadline | None = None,
    ) -> list[tuple[int, ...]]:
        """Up to ``count`` consistent layouts, within ``effort * count`` attempts.

        Views whose layouts are hard to find get fewer samples rather than a
        slow answer; still, the search goes on (up to twice as long)
        until it has ``least`` of them.  The work is counted in attempts, not
        seconds, so the same arguments always give the same layouts, unless
        ``deadline`` expires first: then the layouts found so far (after at
        least ``effort`` attempts when none is found yet).  When the attempts
        find none, :meth:`complete_search` looks for one, so a view that has a
        layout gets at least one unless the deadline (2 s when none is given)
        runs out first.
        """
        plan = self._plan(known)
        found: list[tuple[int, ...]] = []
        limit = effort * count
        attempts = 0
        trouble: dict[int, int] = {}
        while len(found) < count and (attempts < limit or len(found) < min(least, count)) and attempts < 2 * limit:
            attempts += 1
            layout = self._attempt(plan, rng, trouble)
            if layout is not None:
                found.append(layout)
            if deadline is not None and (found or attempts >= effort) and deadline.expired():
                break
        if not found and count > 0 and (deadline is None or not deadline.expired()):
            # Random growth can miss every layout of a tightly constrained view; a complete search cannot.  On
            # small boards it answers in well under a second; on large ones the time cap bounds it.
            layout = self.complete_search(known, rng, deadline=deadline or Deadline())
            if layout is not None:
                found.append(layout)
        return found

    def complete_search(
        self,
        known: dict[int, int],
        rng: random.Random,
        deadline: Deadline | None = None,
        steps: int = COMPLETE_SEARCH_STEPS,
    ) -> tuple[int, ...] | None:
        """A consistent layout whenever one exists, unless ``steps`` shapes or ``deadline`` run out first.

        Depth first, in two stages, every shape enumerated once (Redelmeier's
        algorithm) and every placement followed by :meth:`_fillable`:

        1. each seen region, most seen cells for its size first, in every
           connected shape of its size that holds all its seen cells and no
           cell seen with another value;
        2. the lowest empty cell, by each unused region (in an order shuffled
           by ``rng``) in every connected shape whose lowest cell it is.

        Every tiling is reachable this way, so only the budget can make it
        miss one.
        """
        cells = self.cells
        width = self.grid.width
        neighbours = self.neighbours
        values = [0] * cells
        seen_cells: dict[int, list[int]] = {}
        for cell in sorted(known):
            seen_cells.setdefault(known[cell], []).append(cell)
        seen_order: list[int] = []
        budget = [0]

        def spent() -> bool:
            budget[0] -= 1
            if budget[0] > 0 and (deadline is None or budget[0] % 256 or not deadline.expired()):
                return False
            budget[0] = 0
            return True

        def distance(a: int, b: int) -> int:
            return abs(a // width - b // width) + abs(a % width - b % width)

        def shapes(root: int, size: int, allowed: Callable[[int], bool], wanted: Sequence[int]) -> Iterator[list[int]]:
            """Every connected shape of ``size`` allowed cells holding ``root`` and all of ``wanted``."""
            shape: list[int] = []

            def hopeless() -> bool:
                room = size - len(shape)
                missing = [cell for cell in wanted if cell not in shape]
                return len(missing) > room or any(
                    min(distance(cell, member) for member in shape) > room for cell in missing
                )

            def extend(untried: list[int], reached: set[int]) -> Iterator[list[int]]:
                untried = list(untried)
                while untried:
                    cell = untried.pop()
                    shape.append(cell)
                    if len(shape) == size:
                        if not hopeless():
                            yield shape
                    elif not (wanted and hopeless()):
                        new = [other for other in neighbours[cell] if other not in reached and allowed(other)]
                        rng.shuffle(new)
                        yield from extend(untried + new, reached | set(new))
                    shape.pop()

            yield from extend([root], {root})

        def fits(region: int, shape: list[int], rest: set[int]) -> bool:
            for cell in shape:
                values[cell] = region
            if self._room_for(values, rest, seen_cells):
                return True
            for cell in shape:
                values[cell] = 0
            return False

        def place_seen(index: int, unused: set[int]) -> bool:
            if index == len(seen_order):
                return fill(0, unused)
            region = seen_order[index]
            wanted = seen_cells[region]
            rest = unused - {region}

            def allowed(cell: int) -> bool:
                return not values[cell] and known.get(cell, region) == region

            for shape in shapes(wanted[0], region, allowed, wanted):
                if spent():
                    return False
                if fits(region, shape, rest):
                    if place_seen(index + 1, rest):
                        return True
                    for cell in shape:
                        values[cell] = 0
                if not budget[0]:
                    return False
            return False

        def fill(_start: int, unused: set[int]) -> bool:
            # The empty pieces are independent once the seen regions lie: only which regions each piece takes
            # ties them.  So each piece is tiled on its own, and a piece tiled once is never tiled again.
            pieces = sorted(self._gaps(values), key=len)
            return assign(pieces, 0, frozenset(unused))

        tilings: dict[tuple[frozenset[int], frozenset[int]], dict[int, int] | None] = {}

        def assign(pieces: list[list[int]], index: int, unused: frozenset[int]) -> bool:
            if index == len(pieces):
                return not unused
            piece = pieces[index]
            for subset in _subsets_summing(sorted(unused), len(piece), rng):
                if spent():
                    return False
                rest = unused - subset
                bits = _sums(rest)
                if any(not bits >> len(other) & 1 for other in pieces[index + 1 :]):
                    continue
                key = (frozenset(piece), subset)
                if key in tilings:
                    tiling = tilings[key]
                else:
                    tiling = tile(piece, subset)
                    if not budget[0]:
                        return False  # out of budget: no answer, and none to remember
                    tilings[key] = tiling
                if tiling is None:
                    continue
                for cell, region in tiling.items():
                    values[cell] = region
                if assign(pieces, index + 1, rest):
                    return True
                for cell in piece:
                    values[cell] = 0
                if not budget[0]:
                    return False
            return False

        def tile(piece: list[int], regions: frozenset[int]) -> dict[int, int] | None:
            """``piece`` cut into connected shapes of the sizes ``regions`` (each once), or None."""
            inside = set(piece)
            cut = dict.fromkeys(piece, 0)

            def local_fillable(unused: set[int]) -> bool:
                bits = _sums(unused)
                return all(bits >> len(part) & 1 for part in _pieces(neighbours, {c for c in inside if not cut[c]}))

            def lowest(start: int, unused: set[int]) -> bool:
                empty = [cell for cell in piece if not cut[cell]]
                if not empty:
                    return not unused
                first = min(empty)
                choices = sorted(unused)
                rng.shuffle(choices)
                for region in choices:
                    rest = unused - {region}

                    def allowed(cell: int) -> bool:
                        return cell > first and cell in inside and not cut[cell]

                    for shape in shapes(first, region, allowed, ()):
                        if spent():
                            return False
                        for cell in shape:
                            cut[cell] = region
                        if local_fillable(rest) and lowest(first, rest):
                            return True
                        for cell in shape:
                            cut[cell] = 0
                        if not budget[0]:
                            return False
                return False

            return dict(cut) if lowest(0, set(regions)) else None

        # Restarts in random orders with doubling budgets: one unlucky order can cost thousands of times what
        # another does (a heavy tail), and the last run's budget still grows without bound.
        spent_so_far = 0
        run = RESTART_STEPS
        while spent_so_far < steps:
            run = min(run, steps - spent_so_far)
            budget[0] = run
            values[:] = [0] * cells
            seen_order[:] = sorted(
                seen_cells, key=lambda region: (region - len(seen_cells[region]), rng.random())
            )
            found = place_seen(0, set(range(1, self.regions + 1)))
            spent_so_far += run - budget[0]
            if found:
                self.last_search_steps = spent_so_far
                return tuple(values)
            if deadline is not None and deadline.expired():
                break
            if budget[0]:  # the whole tree was searched: there is no layout
                break
            run *= 2
        self.last_search_steps = spent_so_far
        return None

    # -- one attempt ---------------------------------------------------------

    def _plan(self, known: dict[int, int]) -> list[PlanItem]:
        """Per region seen: its value, its seen cells, those cells in connected groups, and the cells it may not
        take."""
        by_value: dict[int, list[int]] = {}
        for cell in sorted(known):
            by_value.setdefault(known[cell], []).append(cell)
        plan = []
        for region, seen in by_value.items():
            forbidden = bytearray(self.cells)
            for cell, value in known.items():
                if value != region:
                    forbidden[cell] = 1
            groups = []
            left = set(seen)
            while left:
                group = _component_in(self.neighbours, min(left), left)
                groups.append(sorted(group))
                left -= group
            plan.append((region, seen, groups, forbidden))
        return plan

    def _attempt(
        self, plan: list[PlanItem], rng: random.Random, trouble: dict[int, int] | None = None
    ) -> tuple[int, ...] | None:
        """One layout by depth-first placement with random choices, or None when the budget runs out.

        Seen regions are placed first: those that found no room in earlier
        attempts (``trouble`` counts how often, and is updated), then the most
        determined (they leave the least room to others).  A region that
        cannot be placed sends the search back to try another shape for the
        region before it.
        """
        values = [0] * self.cells
        trouble = {} if trouble is None else trouble
        order = sorted(plan, key=lambda item: (-trouble.get(item[0], 0), item[0] - len(item[1]), rng.random()))
        pending_after = [[item[1] for item in order[place + 1 :] if len(item[1]) > 1] for place in range(len(order))]
        budget = [SHAPES_PER_ATTEMPT]

        def place(index: int, unused: set[int]) -> bool:
            if index == len(order):
                for _try in range(3):
                    if self._fill_rest(values, set(unused), rng):
                        return True
                    for cell in range(self.cells):
                        if values[cell] in unused:
                            values[cell] = 0
                return False
            region, _seen, groups, forbidden = order[index]
            rest = unused - {region}
            for _try in range(SHAPES_PER_REGION):
                if budget[0] <= 0:
                    return False
                budget[0] -= 1
                shape = self._grow_anchored(values, forbidden, region, groups, rng)
                if shape is None:
                    trouble[region] = trouble.get(region, 0) + 1
                    continue
                if not self._fillable(values, shape, rest, pending_after[index]):
                    continue
                for cell in shape:
                    values[cell] = region
                if place(index + 1, rest):
                    return True
                for cell in shape:
                    values[cell] = 0
            return False

        if place(0, set(range(1, self.regions + 1))):
            return tuple(values)
        return None

    def _grow_anchored(
        self, values: list[int], forbidden: bytearray, region: int, groups: list[list[int]], rng: random.Random
    ) -> set[int] | None:
        """A connected shape of ``region`` cells holding every group of seen cells of the region."""
        neighbours = self.neighbours
        shape = set(groups[0])
        if len(groups) > 1:
            missing = {cell for group in groups[1:] for cell in group}
            while missing:
                # Breadth-first from the whole shape to the nearest seen cell not joined yet.
                parent: dict[int, int] = {cell: -1 for cell in shape}
                frontier = sorted(shape)
                reached = -1
                while frontier and reached < 0:
                    rng.shuffle(frontier)
                    following = []
                    for cell in frontier:
                        for other in neighbours[cell]:
                            if other in parent or values[other] or forbidden[other]:
                                continue
                            parent[other] = cell
                            if other in missing:
                                reached = other
                                break
                            following.append(other)
                        if reached >= 0:
                            break
                    frontier = following
                if reached < 0:
                    return None
                # The whole group of the cell reached joins the shape, with the path to it.
                group = next(g for g in groups if reached in g)
                cell = parent[reached]
                while cell not in shape:
                    shape.add(cell)
                    cell = parent[cell]
                shape.update(group)
                missing.difference_update(group)
                if len(shape) > region:
                    return None
        if len(shape) == region:
            return shape
        edge = []
        on_edge = set()
        for cell in sorted(shape):
            for other in neighbours[cell]:
                if other not in shape and other not in on_edge and not values[other] and not forbidden[other]:
                    on_edge.add(other)
                    edge.append(other)
        while len(shape) < region:
            if not edge:
                return None
            index = rng.randrange(len(edge))
            cell = edge[index]
            edge[index] = edge[-1]
            edge.pop()
            shape.add(cell)
            for other in neighbours[cell]:
                if other not in shape and other not in on_edge and not values[other] and not forbidden[other]:
                    on_edge.add(other)
                    edge.append(other)
        return shape

    def _fillable(
        self, values: list[int], shape: set[int], unused: set[int], pending: Sequence[list[int]] = ()
    ) -> bool:
        """Whether the empty board left once ``shape`` is placed can still be filled (necessary conditions).

        Each piece must be a sum of unused sizes, and the seen cells of each
        region still to place (``pending``) must lie in one piece.
        """
        bits = _sums(unused)
        neighbours = self.neighbours
        piece_of = [0] * self.cells
        for cell in shape:
            piece_of[cell] = -1
        piece = 0
        for start in range(self.cells):
            if piece_of[start] or values[start]:
                continue
            piece += 1
            piece_of[start] = piece
            stack = [start]
            size = 0
            while stack:
                cell = stack.pop()
                size += 1
                for other in neighbours[cell]:
                    if not piece_of[other] and not values[other]:
                        piece_of[other] = piece
                        stack.append(other)
            if not bits >> size & 1:
                return False
        for seen in pending:
            first = piece_of[seen[0]]
            if any(piece_of[cell] != first for cell in seen):
                return False
        return True

    def _room_for(self, values: list[int], unused: set[int], seen_cells: dict[int, list[int]]) -> bool:
        """Whether the empty board can still take the ``unused`` regions (necessary conditions, stronger than
        :meth:`_fillable`'s): the seen cells of each unused region lie in one piece, which must take that region;
        what is left of each piece must be a sum of the regions no piece must take."""
        piece_of = [-1] * self.cells
        gaps = self._gaps(values)
        for number, gap in enumerate(gaps):
            for cell in gap:
                piece_of[cell] = number
        forced = [0] * len(gaps)
        free = set(unused)
        for region in unused:
            seen = seen_cells.get(region)
            if not seen:
                continue
            number = piece_of[seen[0]]
            if number < 0 or any(piece_of[cell] != number for cell in seen):
                return False
            forced[number] += region
            free.discard(region)
            if len(seen) < region and not self._reachable(values, region, seen, seen_cells):
                return False
        bits = _sums(free)
        return all(forced[n] <= len(gap) and bits >> (len(gap) - forced[n]) & 1 for n, gap in enumerate(gaps))

    def _reachable(self, values: list[int], region: int, seen: list[int], seen_cells: dict[int, list[int]]) -> bool:
        """Whether ``region`` can still grow from its first seen cell to every other within its size, through
        empty cells not seen with another value, and find as many such cells as its size."""
        neighbours = self.neighbours
        blocked = bytearray(self.cells)
        for other, cells in seen_cells.items():
            if other != region:
                for cell in cells:
                    blocked[cell] = 1
        depth = {seen[0]: 0}
        frontier = [seen[0]]
        steps = 0
        while frontier and steps < region - 1 and len(depth) < self.cells:
            steps += 1
            following = []
            for cell in frontier:
                for other in neighbours[cell]:
                    if other not in depth and not values[other] and not blocked[other]:
                        depth[other] = steps
                        following.append(other)
            frontier = following
        if any(cell not in depth for cell in seen):
            return False
        # Room: the cells within reach must number at least the region's size.
        return len(depth) >= region

    def _gaps(self, values: list[int]) -> list[list[int]]:
        neighbours = self.neighbours
        seen = bytearray(self.cells)
        gaps = []
        for start in range(self.cells):
            if seen[start] or values[start]:
                continue
            seen[start] = 1
            stack = [start]
            gap = []
            while stack:
                cell = stack.pop()
                gap.append(cell)
                for other in neighbours[cell]:
                    if not seen[other] and not values[other]:
                        seen[other] = 1
                        stack.append(other)
            gaps.append(gap)
        return gaps

    def _fill_rest(self, values: list[int], unused: set[int], rng: random.Random) -> bool:
        """pbmserv's loop over the empty board: smallest gap, fitting combination, grow one member.

        The gaps are kept up to date as regions split them, so a step looks
        only at the gap it fills (boards of 35 regions have 630 cells).
        """
        neighbours = self.neighbours
        gaps = self._gaps(values)
        while unused:
            smallest = min(len(g) for g in gaps)
            gap = rng.choice([g for g in gaps if len(g) == smallest])
            combination = random_subset(sorted(unused), len(gap), rng)
            if combination is None:
                return False
            region = rng.choice(combination)
            unused.discard(region)
            bits = _sums(unused)
            # Another gap that no longer fits dooms this layout whatever the shape: one try is enough.
            tries = 20 if all(bits >> len(g) & 1 for g in gaps if g is not gap) else 1
            inside = set(gap)
            shape: set[int] = set()
            pieces: list[list[int]] = []
            for _try in range(tries):
                start = rng.choice(gap)
                shape = {start}
                edge = [o for o in neighbours[start] if o in inside]
                on_edge = set(edge)
                while len(shape) < region:
                    index = rng.randrange(len(edge))
                    cell = edge[index]
                    edge[index] = edge[-1]
                    edge.pop()
                    shape.add(cell)
                    for other in neighbours[cell]:
                        if other in inside and other not in shape and other not in on_edge:
                            on_edge.add(other)
                            edge.append(other)
                pieces = _pieces(neighbours, inside - shape)
                if all(bits >> len(piece) & 1 for piece in pieces):
                    break
            for cell in shape:
                values[cell] = region
            gaps.remove(gap)
            gaps.extend(pieces)
        return True


def random_subset(sizes: list[int], total: int, rng: random.Random) -> list[int] | None:
    """A subset of ``sizes`` summing to ``total``, uniformly among all such subsets.

    The same draw as the rules' generator makes, with the table of subset
    counts held as big integers (one coefficient of (1 + x^s) products per
    sum), which keeps boards of 35 regions quick.
    """
    n = len(sizes)
    bits = n + 1  # a count of subsets is below 2^n
    mask = (1 << bits) - 1
    keep = (1 << ((total + 1) * bits)) - 1
    # ways[i]: the counts of subsets of sizes[i:] by their sum.
    ways = [0] * (n + 1)
    ways[n] = 1
    for i in range(n - 1, -1, -1):
        ways[i] = (ways[i + 1] + (ways[i + 1] << (sizes[i] * bits))) & keep

    def count(i: int, s: int) -> int:
        return (ways[i] >> (s * bits)) & mask

    if count(0, total) == 0:
        return None
    chosen, s = [], total
    for i in range(n):
        take = count(i + 1, s - sizes[i]) if s >= sizes[i] else 0
        if take and rng.randrange(count(i, s)) < take:
            chosen.append(sizes[i])
            s -= sizes[i]
    return chosen


def _subsets_summing(sizes: list[int], total: int, rng: random.Random) -> Iterator[frozenset[int]]:
    """Every subset of the distinct ``sizes`` that sums to ``total``, each once, in an order shuffled by ``rng``."""
    # reach[i]: the sums some subset of sizes[i:] makes, as bits.
    reach = [0] * (len(sizes) + 1)
    reach[len(sizes)] = 1
    for i in range(len(sizes) - 1, -1, -1):
        reach[i] = reach[i + 1] | reach[i + 1] << sizes[i]
    chosen: list[int] = []

    def walk(i: int, left: int) -> Iterator[frozenset[int]]:
        if not reach[i] >> left & 1:
            return
        if left == 0:
            yield frozenset(chosen)
            return
        branches = [True, False]
        rng.shuffle(branches)
        for take in branches:
            if take and sizes[i] <= left:
                chosen.append(sizes[i])
                yield from walk(i + 1, left - sizes[i])
                chosen.pop()
            elif not take:
                yield from walk(i + 1, left)

    yield from walk(0, total)


def _pieces(neighbours: Sequence[Sequence[int]], cells: set[int]) -> list[list[int]]:
    """``cells`` split into orthogonally connected pieces."""
    pieces = []
    left = set(cells)
    while left:
        start = min(left)
        left.discard(start)
        piece = [start]
        stack = [start]
        while stack:
            cell = stack.pop()
            for other in neighbours[cell]:
                if other in left:
                    left.discard(other)
                    piece.append(other)
                    stack.append(other)
        pieces.append(piece)
    return pieces


def _component_in(neighbours: Sequence[Sequence[int]], start: int, members: set[int]) -> set[int]:
    seen = {start}
    stack = [start]
    while stack:
        cell = stack.pop()
        for other in neighbours[cell]:
            if other in members and other not in seen:
                seen.add(other)
                stack.append(other)
    return seen


def consistent(layout: Sequence[int], known: dict[int, int]) -> bool:
    return all(layout[cell] == value for cell, value in known.items())


def candidates_from(
    layouts: Sequence[Sequence[int]], board: Sequence[int | None]
) -> list[tuple[tuple[int, float], ...] | None]:
    """Per cell: None where ``board`` shows the value, else every value ``layouts`` give it with its share,
    commonest first (ties: the lower value first).  No layouts: None everywhere."""
    result: list[tuple[tuple[int, float], ...] | None] = []
    total = len(layouts)
    for cell, shown in enumerate(board):
        if shown is not None or not total:
            result.append(None)
            continue
        counts: dict[int, int] = {}
        for layout in layouts:
            value = layout[cell]
            counts[value] = counts.get(value, 0) + 1
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        result.append(tuple((value, count / total) for value, count in ranked))
    return result


def beliefs_from(layouts: Sequence[Sequence[int]], board: Sequence[int | None]) -> list[tuple[int, float] | None]:
    """Per cell: None where ``board`` shows the value, else the commonest value in ``layouts`` and its share."""
    return [None if ranked is None else ranked[0] for ranked in candidates_from(layouts, board)]
