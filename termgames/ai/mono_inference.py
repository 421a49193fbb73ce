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
from collections.abc import Sequence

from ..rules.mono import Grid, _sums
from .budget import Deadline

#: Shapes of seen regions one attempt may try in all, and per region (before going back one region).
SHAPES_PER_ATTEMPT = 40
SHAPES_PER_REGION = 4


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
        least ``effort`` attempts when none is found yet).
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
        return found

    # -- one attempt ---------------------------------------------------------

    def _plan(self, known: dict[int, int]) -> list[tuple[int, list[int], list[list[int]], bytearray]]:
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

    def _attempt(self, plan, rng: random.Random, trouble: dict[int, int] | None = None) -> tuple[int, ...] | None:
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


def _pieces(neighbours, cells: set[int]) -> list[list[int]]:
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


def _component_in(neighbours, start: int, members: set[int]) -> set[int]:
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
