"""MonUnrail's completion search: can the track still be completed (ruling 5, Impossible)?

The search (:func:`find_completion`) decides Impossible exactly, as ruling 5
says: can the track be completed with the remaining supply, placing any
number of tiles?  It extends open track ends one cell at a time (the most
constrained cell first) and prunes with: a cell no remaining tile fits, a
closed loop that leaves tiles out, regions of empty cells entered by an odd
number of track ends, and lower bounds on the tiles and turns still needed
(shortest paths between track ends on the open board) against the supply.

Also here, for the rules' finishing moves and for the computer player: the
legal placements of a position (:func:`placements`), one at random
(:func:`random_placement`) and those that complete the track now
(:func:`finishing_placements`).

It sits beside the nimber solver (:mod:`.solver`), the other search of the
game; it builds on the board's placement rules (:mod:`.board`), and the game
(:mod:`.game`) calls it.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator, Sequence
from functools import lru_cache

from .board import (
    CELLS,
    COLUMNS,
    KIND_OF_MASK,
    NEIGHBOUR,
    OPPOSITE,
    OPTIONS,
    ROWS,
    SIDES,
    E,
    N,
    S,
    W,
    cell_of,
    exit_side,
    index_of,
    open_end_list,
    placement_problem,
    side_rules,
    trace_circuit,
)


class SearchLimit(Exception):
    """The completion search met its node limit before deciding (only with ``node_limit``)."""


@lru_cache(maxsize=1)
def _path_tables() -> tuple[list[list[int]], list[list[int]]]:
    """Lower bounds for joining two track ends on an empty board.

    End ``e = 4 * index + k`` (``k`` = position of its side in SIDES) is a
    track leaving tile ``index`` through that side.  ``cells[e][f]``: fewest
    new tiles on a path from end e to end f (arriving into f's tile through
    f's side); ``turns[e][f]``: fewest turn tiles on such a path.  Both ignore
    the tiles already on the board, so they never overestimate.
    """
    big = 99
    count = CELLS * 4
    cells_table = [[big] * count for _ in range(count)]
    turns_table = [[big] * count for _ in range(count)]
    # state = 4 * cell + k: a path cell entered moving in direction SIDES[k]
    for start in range(CELLS):
        for k, side in enumerate(SIDES):
            first = NEIGHBOUR[start][side]
            if first < 0:
                continue
            e = 4 * start + k
            # fewest cells (BFS) and fewest turns (0-1 BFS) over path states
            dist = [big] * count
            turns = [big] * count
            s0 = 4 * first + k
            dist[s0] = 1
            queue = deque([s0])
            while queue:
                s = queue.popleft()
                cell, heading = divmod(s, 4)
                for k2, side2 in enumerate(SIDES):
                    if side2 == OPPOSITE[SIDES[heading]]:
                        continue
                    nxt = NEIGHBOUR[cell][side2]
                    if nxt >= 0 and dist[4 * nxt + k2] == big:
                        dist[4 * nxt + k2] = dist[s] + 1
                        queue.append(4 * nxt + k2)
            turns[s0] = 0
            dq = deque([s0])
            while dq:
                s = dq.popleft()
                cell, heading = divmod(s, 4)
                for k2, side2 in enumerate(SIDES):
                    if side2 == OPPOSITE[SIDES[heading]]:
                        continue
                    nxt = NEIGHBOUR[cell][side2]
                    if nxt < 0:
                        continue
                    cost = turns[s] + (k2 != heading)
                    t = 4 * nxt + k2
                    if cost < turns[t]:
                        turns[t] = cost
                        if k2 == heading:
                            dq.appendleft(t)
                        else:
                            dq.append(t)
            # End f = (tile g, side s_f): the path's last cell is g's neighbour on
            # s_f, and it leaves that cell moving opposite to s_f, into g.
            for g in range(CELLS):
                for kf, side_f in enumerate(SIDES):
                    last = NEIGHBOUR[g][side_f]
                    if last < 0:
                        continue
                    move_in = OPPOSITE[side_f]
                    best_cells = big
                    best_turns = big
                    for heading in range(4):
                        s = 4 * last + heading
                        if SIDES[heading] == OPPOSITE[move_in]:
                            continue
                        if dist[s] < best_cells:
                            best_cells = dist[s]
                        t = turns[s] + (SIDES[heading] != move_in)
                        if t < best_turns:
                            best_turns = t
                    cells_table[e][4 * g + kf] = best_cells
                    turns_table[e][4 * g + kf] = best_turns
    return cells_table, turns_table


_SIDE_POS = {N: 0, E: 1, S: 2, W: 3}


class _Search:
    """One run of the completion search over a mutable copy of the grid."""

    def __init__(
        self, grid: Sequence[int], supply: Sequence[int], node_limit: int | None, collect: int | None = None
    ) -> None:
        self.grid = list(grid)
        #: With ``collect``: keep going after a completion, recording up to that many (then stop).
        self.collect = collect
        self.found: list[tuple[tuple[int, int], ...]] = []
        self.supply = list(supply)
        self.node_limit = node_limit
        self.nodes = 0
        self.placed: list[tuple[int, int]] = []
        self.cells_table, self.turns_table = _path_tables()

    def run(self) -> tuple[tuple[int, int], ...] | None:
        if self._search():
            return tuple(sorted(self.placed))
        return None

    def _search(self) -> bool:
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise SearchLimit
        grid = self.grid
        ends = open_end_list(grid)
        if not ends:
            if trace_circuit(grid) is None:
                return False
            if self.collect is None:
                return True
            self.found.append(tuple(sorted(self.placed)))
            return len(self.found) > self.collect
        # Strands: follow the track from each open end to its other end.
        partner: dict[tuple[int, int], tuple[int, int]] = {}
        walked = 0
        for end in ends:
            if end in partner:
                continue
            cell, side = end
            leaving = exit_side(grid[cell], side)
            steps = 1
            while True:
                nxt = NEIGHBOUR[cell][leaving]
                if not grid[nxt]:
                    break
                entry = OPPOSITE[leaving]
                cell, leaving = nxt, exit_side(grid[nxt], entry)
                steps += 1
            other = (cell, leaving)
            partner[end] = other
            partner[other] = end
            walked += steps
        pieces = sum(2 if mask == 15 else 1 for mask in grid if mask)
        if walked != pieces:
            return False  # a closed loop that the rest can never join
        strands = len(ends) // 2
        # Demand: the empty cells track ends point into.
        demand: dict[int, int] = {}
        for cell, side in ends:
            target = NEIGHBOUR[cell][side]
            demand[target] = demand.get(target, 0) | OPPOSITE[side]
        straights, turns, crossroads = self.supply
        best_cell = -1
        best_options: list[int] = []
        for target, required in demand.items():
            _, forbidden = side_rules(grid, target)
            options = [
                m
                for m in OPTIONS[required][forbidden]
                if self.supply[KIND_OF_MASK[m]] > 0
            ]
            if not options:
                return False
            if best_cell < 0 or len(options) < len(best_options):
                best_cell, best_options = target, options
        if len(demand) > straights + turns + crossroads:
            return False
        # Regions of empty cells: ends pair up inside one region.
        region = [-1] * CELLS
        region_ends: list[list[tuple[int, int]]] = []
        for cell, side in ends:
            target = NEIGHBOUR[cell][side]
            if region[target] < 0:
                label = len(region_ends)
                region_ends.append([])
                region[target] = label
                stack = [target]
                while stack:
                    c = stack.pop()
                    for nb in NEIGHBOUR[c].values():
                        if nb >= 0 and not grid[nb] and region[nb] < 0:
                            region[nb] = label
                            stack.append(nb)
            region_ends[region[target]].append((cell, side))
        for members in region_ends:
            if len(members) % 2:
                return False
            if strands > 1 and len(members) == 2 and partner[members[0]] == members[1]:
                return False
        # Lower bounds on new tiles and turns: each end joins a partner end.
        cells_table, turns_table = self.cells_table, self.turns_table
        need_cells = need_turns = 0
        for members in region_ends:
            keys = [4 * cell + _SIDE_POS[side] for cell, side in members]
            for a, end in enumerate(members):
                row_c = cells_table[keys[a]]
                row_t = turns_table[keys[a]]
                mate = partner[end]
                low_c = low_t = 99
                for b, other in enumerate(members):
                    if b == a or (strands > 1 and other == mate):
                        continue
                    kb = keys[b]
                    if row_c[kb] < low_c:
                        low_c = row_c[kb]
                    if row_t[kb] < low_t:
                        low_t = row_t[kb]
                if low_c == 99:
                    return False
                need_cells += low_c
                need_turns += low_t
        if (need_turns + 1) // 2 > turns:
            return False
        if (need_cells + 1) // 2 > straights + turns + 2 * crossroads:
            return False
        # Branch on the most constrained cell, trying first the tiles whose new track ends lie
        # closest to other open ends (completions, when they exist, come early).
        supply = self.supply
        if len(best_options) > 1:
            others = [
                4 * cell + _SIDE_POS[side] for cell, side in ends if NEIGHBOUR[cell][side] != best_cell
            ]
            required = demand[best_cell]

            def reach(mask: int) -> int:
                total = 0
                for side in SIDES:
                    if mask & side and not required & side:
                        row = cells_table[4 * best_cell + _SIDE_POS[side]]
                        total += min((row[key] for key in others), default=0)
                return total

            best_options = sorted(best_options, key=reach)
        for mask in best_options:
            kind = KIND_OF_MASK[mask]
            supply[kind] -= 1
            grid[best_cell] = mask
            self.placed.append((best_cell, mask))
            if self._search():
                return True
            self.placed.pop()
            grid[best_cell] = 0
            supply[kind] += 1
        return False


def find_completion(
    grid: Sequence[int], supply: Sequence[int], node_limit: int | None = None
) -> tuple[tuple[int, int], ...] | None:
    """Tiles ((index, mask) pairs) that complete the track from the supply, or None if there are none.

    Exhaustive: None is a proof.  With ``node_limit`` it raises
    :class:`SearchLimit` instead of searching longer (bots use that; the
    Impossible call never does).  An already complete grid gives ``()``.
    """
    search = _Search(grid, supply, node_limit)
    return search.run()


def list_completions(
    grid: Sequence[int], supply: Sequence[int], limit: int, node_limit: int | None = None
) -> list[tuple[tuple[int, int], ...]] | None:
    """Every completion (each a sorted tuple of (index, mask)), or None when there are more than ``limit``.

    Raises :class:`SearchLimit` past ``node_limit`` nodes.  For hints and
    bots near the end of building, when few completions remain.
    """
    search = _Search(grid, supply, node_limit, collect=limit)
    search.run()
    return None if len(search.found) > limit else search.found


def search_nodes(grid: Sequence[int], supply: Sequence[int]) -> tuple[bool, int]:
    """(completion exists, nodes searched): for benchmarks."""
    search = _Search(grid, supply, None)
    found = search.run() is not None
    return found, search.nodes


# --------------------------------------------------------------------------
# Legal placements (for random players, bots and hints)
# --------------------------------------------------------------------------


def _segments(grid: Sequence[int]) -> list[tuple[int, ...]]:
    """Every line of 1 to 3 empty cells with at least one cell next to a tile."""
    touching = [
        not grid[i] and any(grid[nb] for nb in NEIGHBOUR[i].values() if nb >= 0) for i in range(CELLS)
    ]
    found = set()
    for i in range(CELLS):
        if not touching[i]:
            continue
        col, row = cell_of(i)
        for dc, dr in ((1, 0), (0, 1)):
            for length in (1, 2, 3):
                for offset in range(length):
                    c0, r0 = col - dc * offset, row - dr * offset
                    cells = []
                    for k in range(length):
                        c, r = c0 + dc * k, r0 + dr * k
                        if not (0 <= c < COLUMNS and 0 <= r < ROWS) or grid[r * COLUMNS + c]:
                            break
                        cells.append(r * COLUMNS + c)
                    else:
                        found.add(tuple(cells))
    return sorted(found)


def _fill(
    grid: list[int], supply: list[int], cells: Sequence[int], at: int, chosen: list[int], rng: random.Random | None
) -> Iterator[tuple[int, ...]]:
    """Every legal way to put tiles on ``cells`` (already checked to be a touching line), in order or shuffled."""
    if at == len(cells):
        yield tuple(chosen)
        return
    index = cells[at]
    required, forbidden = side_rules(grid, index)
    # the next cell of the line is still empty: it may take either
    options = [m for m in OPTIONS[required][forbidden] if supply[KIND_OF_MASK[m]] > 0]
    if rng is not None:
        rng.shuffle(options)
    for mask in options:
        kind = KIND_OF_MASK[mask]
        supply[kind] -= 1
        grid[index] = mask
        chosen.append(mask)
        yield from _fill(grid, supply, cells, at + 1, chosen, rng)
        chosen.pop()
        grid[index] = 0
        supply[kind] += 1


def placements(
    grid: Sequence[int], supply: Sequence[int], rng: random.Random | None = None
) -> Iterator[tuple[tuple[int, int], ...]]:
    """Every legal placement, lazily: tuples of (index, mask) sorted by index.

    With ``rng`` the lines and the tiles are visited in random order (for
    random players and sampling bots).
    """
    segments = _segments(grid)
    if rng is not None:
        rng.shuffle(segments)
    work = list(grid)
    stock = list(supply)
    for cells in segments:
        for masks in _fill(work, stock, cells, 0, [], rng):
            yield tuple(zip(cells, masks))


def random_placement(
    grid: Sequence[int], supply: Sequence[int], rng: random.Random
) -> tuple[tuple[int, int], ...] | None:
    """One legal placement drawn at random (a random line, then random fitting tiles), or None if there is none."""
    segments = _segments(grid)
    rng.shuffle(segments)
    work = list(grid)
    stock = list(supply)
    for cells in segments:
        for masks in _fill(work, stock, cells, 0, [], rng):
            return tuple(zip(cells, masks))
    return None


def finishing_placements(grid: Sequence[int], supply: Sequence[int]) -> list[tuple[tuple[int, int], ...]]:
    """Every legal placement that completes the track at once (at most 3 tiles in a line)."""
    ends = open_end_list(grid)
    if not ends:
        return []
    demand = {NEIGHBOUR[cell][side] for cell, side in ends}
    if len(demand) > 3:
        return []
    lines = [cells for cells in _segments(grid) if demand <= set(cells)]
    result = []
    work = list(grid)
    stock = list(supply)
    for cells in lines:
        for masks in _fill(work, stock, cells, 0, [], None):
            items = tuple(zip(cells, masks))
            after = list(grid)
            for index, mask in items:
                after[index] = mask
            if trace_circuit(after) is not None and placement_problem(grid, supply, items) is None:
                result.append(items)
    return result


def steps_towards(
    grid: Sequence[int], supply: Sequence[int], completion: Sequence[tuple[int, int]]
) -> list[tuple[tuple[int, int], ...]]:
    """The legal placements of one to three tiles of ``completion`` (one line): a way towards it."""
    masks = dict(completion)
    steps = []
    for index in masks:
        column, row = cell_of(index)
        for step_column, step_row in ((1, 0), (0, 1)):
            line = []
            for k in range(3):
                cell = (column + step_column * k, row + step_row * k)
                if cell[0] >= COLUMNS or cell[1] >= ROWS or index_of(cell) not in masks:
                    break
                line.append((index_of(cell), masks[index_of(cell)]))
                if placement_problem(grid, supply, tuple(line)) is None:
                    steps.append(tuple(line))
    return steps
