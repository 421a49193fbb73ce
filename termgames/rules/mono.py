"""Mono (Cameron Browne, 2007), as pbmserv plays it, with the Mono rulings.

Every player splits a hidden grid into regions: region k is k orthogonally
connected cells of value k.  On a turn a player probes positions of the
opponents' boards, building a list of values; the turn ends at the first value
lower than the one before it.  The list before the decrease scores the squares
of its runs of equal values.  The game ends at the end of the round in which
some board is completely uncovered.

Notation (pbmserv's, plus ``hold`` for playing one probe at a time):

* first move: ``random`` or a layout string in reading order (top row first);
* ``a3``, ``a3,f2,g1``: probe these, then random probes until a decrease
  (unless the game has ``no_auto``);
* ``a3,f2,random``: the same, random probes even with ``no_auto``;
* ``a1,a2,end``: probe these and end the turn;
* ``a3,hold``: probe and keep the turn open for more commands; ``end`` or
  ``random`` alone then finish an open turn.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from .base import ALL, Game, OptionSpec, RuleError, State, View, Viewer, possessive
from .options import INT, SWITCH

LABELS = "123456789abcdefghijklmnopqrstuvwxyz"
MIN_REGIONS, MAX_REGIONS = 2, 35
RANDOM, END, HOLD = "random", "end", "hold"
HIDDEN_LAYOUT = "layout"


def label(value: int) -> str:
    return LABELS[value - 1]


def score_values(values: Sequence[int]) -> int:
    """Runs of equal values, each worth its length squared: [2,3,5,5,5,5,7,7,8] -> 23."""
    total, run = 0, 0
    for index, value in enumerate(values):
        run = run + 1 if index and value == values[index - 1] else 1
        if index + 1 == len(values) or values[index + 1] != value:
            total += run * run
    return total


# --------------------------------------------------------------------------
# Geometry
# --------------------------------------------------------------------------


def column_name(column: int) -> str:
    """a, b, ... z, then aa, ab, ... (boards of 26+ regions are wider than the alphabet)."""
    name = ""
    column += 1
    while column:
        column, rest = divmod(column - 1, 26)
        name = chr(ord("a") + rest) + name
    return name


@dataclass(frozen=True)
class Grid:
    regions: int
    height: int
    width: int
    names: tuple[str, ...]  # cell index (row-major, top row first) -> "a3"
    index: dict[str, int]
    neighbours: tuple[tuple[int, ...], ...]

    @property
    def cells(self) -> int:
        return self.height * self.width

    def row_number(self, cell: int) -> int:
        """The row as players name it: 1 at the bottom."""
        return self.height - cell // self.width


@lru_cache(maxsize=64)
def grid_for(regions: int) -> Grid:
    cells = regions * (regions + 1) // 2
    height = (regions + 1) // 2
    width = cells // height
    names = tuple(f"{column_name(c)}{height - r}" for r in range(height) for c in range(width))
    neighbours = []
    for cell in range(cells):
        r, c = divmod(cell, width)
        around = []
        if r > 0:
            around.append(cell - width)
        if r < height - 1:
            around.append(cell + width)
        if c > 0:
            around.append(cell - 1)
        if c < width - 1:
            around.append(cell + 1)
        neighbours.append(tuple(around))
    return Grid(regions, height, width, names, {n: i for i, n in enumerate(names)}, tuple(neighbours))


def _component(grid: Grid, start: int, members: set[int] | frozenset[int]) -> set[int]:
    seen = {start}
    stack = [start]
    while stack:
        cell = stack.pop()
        for other in grid.neighbours[cell]:
            if other in members and other not in seen:
                seen.add(other)
                stack.append(other)
    return seen


# --------------------------------------------------------------------------
# Layouts
# --------------------------------------------------------------------------


def parse_layout(text: str, regions: int) -> tuple[int, ...]:
    """A manual layout in reading order, checked region by region."""
    grid = grid_for(regions)
    chars = text.strip().lower()
    if len(chars) != grid.cells:
        raise RuleError(f"the layout has {len(chars)} values; a {regions}-region board has {grid.cells}")
    values = []
    for char in chars:
        position = LABELS.find(char)
        if position < 0 or position >= regions:
            raise RuleError(f"{char!r} is not a region label of a {regions}-region board (labels 1-{label(regions)})")
        values.append(position + 1)
    check_layout(tuple(values), regions)
    return tuple(values)


def check_layout(values: tuple[int, ...], regions: int) -> None:
    grid = grid_for(regions)
    for region in range(1, regions + 1):
        problem = region_problem(grid, region, {i for i, v in enumerate(values) if v == region})
        if problem is not None:
            raise RuleError(problem)


def region_problem(grid: Grid, region: int, cells: set[int]) -> str | None:
    """What keeps ``cells`` from being region ``region`` of a layout: ``region`` cells, connected; None if nothing.

    The layout rule, for :func:`check_layout` and for the screen's check of a layout being typed.
    """
    if len(cells) != region:
        noun = "cell" if len(cells) == 1 else "cells"
        return f"region {label(region)} has {len(cells)} {noun}, it needs {region}"
    if len(_component(grid, next(iter(cells)), cells)) != region:
        return f"region {label(region)} is not connected"
    return None


def _random_subset(sizes: list[int], total: int, rng: random.Random) -> list[int] | None:
    """A subset of ``sizes`` summing to ``total``, uniformly among all such subsets."""
    # ways[i][s]: subsets of sizes[i:] that sum to s.
    n = len(sizes)
    ways = [[0] * (total + 1) for _ in range(n + 1)]
    ways[n][0] = 1
    for i in range(n - 1, -1, -1):
        for s in range(total + 1):
            ways[i][s] = ways[i + 1][s] + (ways[i + 1][s - sizes[i]] if s >= sizes[i] else 0)
    if ways[0][total] == 0:
        return None
    chosen, s = [], total
    for i in range(n):
        take = ways[i + 1][s - sizes[i]] if s >= sizes[i] else 0
        if take and rng.randrange(ways[i][s]) < take:
            chosen.append(sizes[i])
            s -= sizes[i]
    return chosen


def _grow(grid: Grid, gap: set[int], size: int, rng: random.Random) -> set[int]:
    start = rng.choice(sorted(gap))
    shape = {start}
    frontier = set(n for n in grid.neighbours[start] if n in gap)
    while len(shape) < size:
        cell = rng.choice(sorted(frontier))
        shape.add(cell)
        frontier.discard(cell)
        frontier.update(n for n in grid.neighbours[cell] if n in gap and n not in shape)
    return shape


def _sums(sizes: Iterable[int]) -> int:
    """Bit s is set when some subset of ``sizes`` sums to s."""
    bits = 1
    for size in sizes:
        bits |= bits << size
    return bits


def _fillable(grid: Grid, rest: set[int], sizes: list[int]) -> bool:
    """Each piece of ``rest`` must be a sum of some of ``sizes`` (a necessary condition)."""
    bits = _sums(sizes)
    cells = set(rest)
    while cells:
        piece = _component(grid, next(iter(cells)), cells)
        if not bits >> len(piece) & 1:
            return False
        cells -= piece
    return True


def random_layout(regions: int, rng: random.Random, attempts: int = 500) -> tuple[int, ...]:
    """The pbmserv algorithm: fill the smallest gap first with a random fitting combination.

    A grown region that cuts its gap into pieces no remaining regions can fill
    is grown again (a few tries) before the whole board restarts; that keeps
    restarts rare on large boards without changing what layouts can come out.
    """
    grid = grid_for(regions)
    for _attempt in range(attempts):
        order = list(range(1, regions + 1))
        rng.shuffle(order)
        values = [0] * grid.cells
        unused = order[:]
        while unused:
            empty = {i for i, v in enumerate(values) if v == 0}
            gaps: list[set[int]] = []
            while empty:
                gap = _component(grid, next(iter(empty)), empty)
                gaps.append(gap)
                empty -= gap
            smallest = min(len(g) for g in gaps)
            gap = rng.choice([g for g in gaps if len(g) == smallest])
            combination = _random_subset(unused, len(gap), rng)
            if combination is None:
                break
            region = rng.choice(combination)
            others = [size for size in unused if size != region]
            for _try in range(20):
                shape = _grow(grid, gap, region, rng)
                if _fillable(grid, gap - shape, others):
                    break
            for cell in shape:
                values[cell] = region
            unused.remove(region)
        else:
            return tuple(values)
    # Practically unreachable; a boustrophedon fill is always valid.
    return _snake_layout(grid, rng)


def _snake_layout(grid: Grid, rng: random.Random) -> tuple[int, ...]:
    path = []
    for r in range(grid.height):
        columns = range(grid.width) if r % 2 == 0 else range(grid.width - 1, -1, -1)
        path += [r * grid.width + c for c in columns]
    order = list(range(1, grid.regions + 1))
    rng.shuffle(order)
    values = [0] * grid.cells
    position = 0
    for region in order:
        for cell in path[position : position + region]:
            values[cell] = region
        position += region
    return tuple(values)


# --------------------------------------------------------------------------
# View
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Probe:
    cell: int
    value: int
    random: bool


@dataclass(frozen=True)
class TurnRecord:
    """One finished (or open) probing turn: public once played."""

    seat: int
    probes: tuple[Probe, ...]
    #: The values that score (the list before the decrease).
    scoring: tuple[int, ...]
    score: int
    ended_by_decrease: bool


@dataclass(frozen=True)
class MonoView(View):
    grid: Grid | None = None
    #: Per seat: the board as this viewer may see it (None where hidden), or () before its layout.
    boards: tuple[tuple[int | None, ...], ...] = ()
    #: Per seat: cells of that board uncovered so far, and those uncovered by random probes.
    uncovered: tuple[frozenset[int], ...] = ()
    random_uncovered: tuple[frozenset[int], ...] = ()
    laid_out: tuple[bool, ...] = ()
    #: Positions the viewer has probed (what it may not probe again).
    probed: frozenset[int] = frozenset()
    #: The turn in progress (open with ``hold``), if any.
    open_turn: TurnRecord | None = None
    #: Every finished probing turn, oldest first.
    turns: tuple[TurnRecord, ...] = ()
    round: int = 0
    final_round: bool = False
    phase: str = "layout"
    take: str = "best"
    #: Whether the game was made with ``--no-auto`` (a public option: a command without a keyword then ends
    #: after its positions instead of going on at random).
    no_auto: bool = False
    #: Per move so far: the probes it made (none for a layout), in order.
    move_probes: tuple[tuple[Probe, ...], ...] = ()

    def log_text(self, move: str, ply: int | None = None) -> str:
        """A probing move as pbmserv lists it, with what it uncovered: ``d3=3 d2=4 c2*=7``."""
        if ply is not None and ply < len(self.move_probes) and self.move_probes[ply] and self.grid is not None:
            return " ".join(
                f"{self.grid.names[p.cell]}{'*' if p.random else ''}={label(p.value)}" for p in self.move_probes[ply]
            )
        # A layout string says nothing at a glance (the board shows it): the log names it.
        if self.grid is not None and len(move) == self.grid.cells and "," not in move and move != END:
            return HIDDEN_LAYOUT
        return move.removesuffix(",hold")

    def turn_values(self) -> list[int]:
        """The values ``show --json`` reports as "turn": the open turn's, else the last finished turn's."""
        record = self.open_turn or (self.turns[-1] if self.turns else None)
        return [probe.value for probe in record.probes] if record else []

    def rows(self, seat: int) -> list[list[int | None]]:
        assert self.grid is not None
        board = self.boards[seat]
        if not board:
            return [[None] * self.grid.width for _ in range(self.grid.height)]
        w = self.grid.width
        return [list(board[r * w : (r + 1) * w]) for r in range(self.grid.height)]

    def board_json(self) -> dict[str, Any]:
        assert self.grid is not None
        return {
            "height": self.grid.height,
            "width": self.grid.width,
            "boards": {name: self.rows(seat) for seat, name in enumerate(self.players)},
            "turn": self.turn_values(),
        }

    def board_text(self, ascii: bool = False) -> str:
        """Every board side by side, values as labels and . where hidden (ASCII either way)."""
        assert self.grid is not None
        grid = self.grid
        cell_width = 2
        header = "    " + " ".join(f"{column_name(c):>{cell_width - 1}}" for c in range(grid.width))
        blocks = []
        for seat, name in enumerate(self.players):
            lines = [f"{name} ({int(self.scores[seat])})".center(len(header)), header]
            for r, row in enumerate(self.rows(seat)):
                number = grid.height - r
                marks = []
                for c, value in enumerate(row):
                    cell = r * grid.width + c
                    text = "." if value is None else label(value)
                    if cell in self.random_uncovered[seat]:
                        text += "*"
                    elif cell in self.uncovered[seat] and self.viewer in (seat, ALL):
                        text += "'"
                    else:
                        text += " "
                    marks.append(text)
                lines.append(f"{number:>2}  " + "".join(marks).rstrip() + f"  {number}")
            lines.append(header)
            blocks.append(lines)
        width = max(len(line) for block in blocks for line in block)
        out = []
        for i in range(len(blocks[0])):
            out.append("   ".join(block[i].ljust(width) for block in blocks).rstrip())
        turn = self.turn_values()
        out += ["", f"turn: {' '.join(map(str, turn)) if turn else '-'}", self.status]
        return "\n".join(out)


# --------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class MonoState(State):
    layouts: tuple[tuple[int, ...] | None, ...] = ()
    #: Per seat: the positions that seat has probed.
    probed: tuple[frozenset[int], ...] = ()
    #: Per board: uncovered cells, and those uncovered by a random probe.
    uncovered: tuple[frozenset[int], ...] = ()
    random_uncovered: tuple[frozenset[int], ...] = ()
    totals: tuple[int, ...] = ()
    turn: int = 0
    round: int = 0  # 0 while laying out
    open_turn: TurnRecord | None = None
    turns: tuple[TurnRecord, ...] = ()
    over: bool = False
    last_action: str = ""
    #: Per move applied: the probes it made (public: every probe uncovers its cell).
    move_probes: tuple[tuple[Probe, ...], ...] = ()

    @property
    def grid(self) -> Grid:
        return grid_for(self.options["size"])

    @property
    def take(self) -> str:
        if self.options.get("take_min"):
            return "min"
        if self.options.get("take_max"):
            return "max"
        return "best"

    # -- queries -----------------------------------------------------------

    def to_move(self) -> tuple[int, ...]:
        return () if self.over else (self.turn,)

    def is_over(self) -> bool:
        return self.over

    def scores(self) -> tuple[float, ...]:
        return tuple(float(t) for t in self.totals)

    def board_uncovered(self, seat: int) -> bool:
        return len(self.uncovered[seat]) == self.grid.cells

    def final_round(self) -> bool:
        return self.round > 0 and any(self.board_uncovered(s) for s in range(len(self.seats)))

    def unprobed(self, seat: int) -> list[int]:
        done = self.probed[seat]
        return [cell for cell in range(self.grid.cells) if cell not in done]

    def random_move(self, seat: int, rng: random.Random) -> str:
        if self.layouts[seat] is None:
            return "".join(label(value) for value in random_layout(self.options["size"], rng))
        cell = self.grid.names[rng.choice(self.unprobed(seat))]
        return cell if rng.random() < 0.5 else f"{cell},{END}"

    # -- moves -------------------------------------------------------------

    def normalise_move(self, seat: int, move: str) -> str:
        return ",".join(part.strip() for part in move.strip().lower().split(","))

    def redact_move(self, seat: int, move: str, viewer: Viewer) -> str:
        if (
            viewer != seat
            and viewer != ALL
            and not self.over
            and move != RANDOM
            and self.layouts[seat] is not None
            and self._is_layout_text(move)
        ):
            return HIDDEN_LAYOUT
        return move

    def drawn(self, seat: int, move: str, after: State) -> str | None:
        """A random layout as its layout string; random probes as the positions they probed."""
        if self.layouts[seat] is None:
            layout = after.layouts[seat] if isinstance(after, MonoState) else None
            return "".join(label(value) for value in layout) if move == RANDOM and layout is not None else None
        if not isinstance(after, MonoState) or len(after.move_probes) <= len(self.move_probes):
            return None
        chosen = [self.grid.names[probe.cell] for probe in after.move_probes[-1] if probe.random]
        return ",".join(chosen) if chosen else None

    def _is_layout_text(self, move: str) -> bool:
        return "," not in move and len(move) == self.grid.cells and move not in (RANDOM, END, HOLD)

    def _apply(self, seat: int, move: str) -> MonoState:
        text = move.strip().lower()
        if self.layouts[seat] is None:
            return self._lay_out(seat, text)
        return self._probe_command(seat, text)

    def _lay_out(self, seat: int, text: str) -> MonoState:
        regions = self.options["size"]
        if text == RANDOM:
            layout = random_layout(regions, self.rng("layout"))
            how = "laid out a random board"
        else:
            if "," in text or text in self.grid.index or text in (END, HOLD):
                raise RuleError(f"{self.seats[seat]} must first lay out a board: 'random' or a layout string")
            layout = parse_layout(text, regions)
            how = "laid out a board"
        layouts = list(self.layouts)
        layouts[seat] = layout
        state = replace(
            self,
            ply=self.ply + 1,
            layouts=tuple(layouts),
            last_action=f"{self.seats[seat]} {how}",
            move_probes=(*self.move_probes, ()),
        )
        nxt = seat + 1
        if nxt < len(self.seats):
            return replace(state, turn=nxt)
        return replace(state, turn=0, round=1)

    def _parse_command(self, seat: int, text: str) -> tuple[list[int], str | None]:
        parts = [p.strip() for p in text.split(",")]
        if any(not p for p in parts):
            raise RuleError(f"{text!r} has an empty item (write positions like a3,f2,g1)")
        keyword = parts[-1] if parts[-1] in (RANDOM, END, HOLD) else None
        positions = parts[:-1] if keyword else parts
        cells: list[int] = []
        grid = self.grid
        for name in positions:
            if name in (RANDOM, END, HOLD):
                raise RuleError(f"{name!r} may only end a command")
            cell = grid.index.get(name)
            if cell is None:
                if len(name) == grid.cells or name.isdigit():
                    raise RuleError("boards are laid out only on a player's first move")
                raise RuleError(
                    f"{name!r} is not a position of this board "
                    f"(columns a-{column_name(grid.width - 1)}, rows 1-{grid.height})"
                )
            if cell in self.probed[seat]:
                raise RuleError(f"{self.seats[seat]} has probed {name} already")
            if cell in cells:
                raise RuleError(f"{name} is listed twice")
            cells.append(cell)
        return cells, keyword

    def _probe_command(self, seat: int, text: str) -> MonoState:
        cells, keyword = self._parse_command(seat, text)
        if not cells and keyword == HOLD:
            raise RuleError("'hold' follows the positions to probe, e.g. a3,hold")
        if not cells and keyword == END and self.open_turn is None:
            raise RuleError("a turn probes at least one position")
        left = self.unprobed(seat)
        if not cells and keyword == RANDOM and not left and self.open_turn is None:
            raise RuleError("there is no position left to probe")
        rng = self.rng("probe")
        values = [p.value for p in self.open_turn.probes] if self.open_turn else []
        probes = list(self.open_turn.probes) if self.open_turn else []
        probed = set(self.probed[seat])
        uncovered = [set(u) for u in self.uncovered]
        random_uncovered = [set(u) for u in self.random_uncovered]
        decreased = False

        def probe(cell: int, by_random: bool) -> bool:
            """Probe one position; True when its value ends the turn."""
            value = self._take_value(seat, cell, values)
            probed.add(cell)
            for other in range(len(self.seats)):
                if other != seat:
                    uncovered[other].add(cell)
                    if by_random:
                        random_uncovered[other].add(cell)
            ends = bool(values) and value < values[-1]
            values.append(value)
            probes.append(Probe(cell, value, by_random))
            return ends

        for cell in cells:
            if probe(cell, False):
                decreased = True
                break
        keep_open = False
        if not decreased:
            if keyword == HOLD:
                keep_open = True
            elif keyword == RANDOM or (keyword is None and not self.options.get("no_auto")):
                while True:
                    choices = [c for c in range(self.grid.cells) if c not in probed]
                    if not choices:
                        break
                    if probe(rng.choice(choices), True):
                        decreased = True
                        break
        # A turn also stays open when hold reached no decrease but nothing is left: close it.
        if keep_open and len(probed) == self.grid.cells:
            keep_open = False
        scoring = tuple(values[:-1]) if decreased else tuple(values)
        record = TurnRecord(seat, tuple(probes), scoring, score_values(scoring), decreased)
        state = replace(
            self,
            ply=self.ply + 1,
            probed=tuple(frozenset(probed) if s == seat else self.probed[s] for s in range(len(self.seats))),
            uncovered=tuple(frozenset(u) for u in uncovered),
            random_uncovered=tuple(frozenset(u) for u in random_uncovered),
            move_probes=(*self.move_probes, tuple(probes[len(self.open_turn.probes) if self.open_turn else 0:])),
        )
        if keep_open:
            return replace(state, open_turn=record, last_action=self._describe(record, open_=True))
        totals = list(self.totals)
        totals[seat] += record.score
        state = replace(
            state,
            open_turn=None,
            turns=(*self.turns, record),
            totals=tuple(totals),
            last_action=self._describe(record),
        )
        return state._next_turn(seat)

    def _take_value(self, seat: int, cell: int, values: list[int]) -> int:
        # Probing starts once every board is laid out: no layout is None here.
        options = [layout[cell] for o, layout in enumerate(self.layouts) if o != seat and layout is not None]
        take = self.take
        if take == "min":
            return min(options)
        if take == "max":
            return max(options)
        if values:
            fitting = [v for v in options if v >= values[-1]]
            if fitting:
                return min(fitting)
        # Nothing fits: the lowest, which ends the turn (or the first value of the turn).
        return min(options)

    def _next_turn(self, seat: int) -> MonoState:
        nxt = seat + 1
        if nxt < len(self.seats):
            return replace(self, turn=nxt)
        if any(self.board_uncovered(s) for s in range(len(self.seats))):
            return replace(self, over=True, last_action=self.last_action + "; the game is over")
        return replace(self, turn=0, round=self.round + 1)

    def _describe(self, record: TurnRecord, open_: bool = False) -> str:
        grid = self.grid
        probes = ", ".join(
            f"{grid.names[p.cell]}{'*' if p.random else ''}={label(p.value)}" for p in record.probes
        )
        who = self.seats[record.seat]
        if open_:
            return f"{who} probed {probes}; the turn goes on ({record.score} so far)"
        return f"{who} probed {probes} and scored {record.score}"

    # -- views -------------------------------------------------------------

    def view(self, viewer: Viewer) -> MonoView:
        return self._view(viewer, reveal_all=False)

    def view_all(self) -> MonoView:
        return self._view(ALL, reveal_all=True)

    def _view(self, viewer: Viewer, reveal_all: bool) -> MonoView:
        boards: list[tuple[int | None, ...]] = []
        for seat, layout in enumerate(self.layouts):
            if layout is None:
                boards.append(())
            elif reveal_all or seat == viewer:
                boards.append(layout)
            else:
                shown = self.uncovered[seat]
                boards.append(tuple(v if i in shown else None for i, v in enumerate(layout)))
        return MonoView(
            game="mono",
            viewer=viewer,
            players=self.seats,
            to_move=self.to_move(),
            over=self.over,
            scores=self.scores(),
            winners=self.winners(),
            status=self._status(),
            last_action=self.last_action,
            grid=self.grid,
            boards=tuple(boards),
            uncovered=self.uncovered,
            random_uncovered=self.random_uncovered,
            laid_out=tuple(layout is not None for layout in self.layouts),
            probed=self.probed[viewer] if viewer is not None and 0 <= viewer < len(self.seats) else frozenset(),
            open_turn=self.open_turn,
            turns=self.turns,
            round=self.round,
            final_round=self.final_round(),
            phase="over" if self.over else ("layout" if self.round == 0 else "probe"),
            take=self.take,
            no_auto=bool(self.options.get("no_auto")),
            move_probes=self.move_probes,
        )

    def _status(self) -> str:
        if self.over:
            winners = self.winners()
            if len(winners) > 1:
                return "Game over: a tie between " + " and ".join(self.seats[w] for w in winners)
            return f"Game over: {self.seats[winners[0]]} wins with {self.totals[winners[0]]}"
        who = self.seats[self.turn]
        if self.round == 0:
            return f"{who} to lay out a board"
        if self.open_turn is not None:
            values = " ".join(label(p.value) for p in self.open_turn.probes)
            return f"{possessive(who)} turn goes on: {values} (scores {self.open_turn.score})"
        ending = ", the last round" if self.final_round() else ""
        return f"round {self.round}{ending}: {who} to probe"


# --------------------------------------------------------------------------
# Game
# --------------------------------------------------------------------------


RULES = """\
# Mono

*Cameron Browne, 2007. Two to four players.*

Each player hides a board split into regions: **region k is k orthogonally
connected cells of value k** (region 1 is one cell of value 1, region 2 two
cells of value 2, ... region 9 nine cells of value 9). Above 9, regions are
labelled a, b, c ... (a = 10).

## Playing

1. **Layout.** On your first move you lay out your board: `random` lets the
   server do it, or type a layout string in reading order (top row first,
   left to right), e.g. `666699777664999787344999787342955888312555888`.
2. **Probing.** On each turn you probe positions on your opponent's board,
   building a list of the values you uncover. The turn ends at the **first
   value lower than the one before it**. You never probe a position twice.
3. **Scoring.** The list before the decrease splits into runs of equal values;
   each run scores its length squared. `2 3 5 5 5 5 7 7 8 3` scores
   1+1+16+4+1 = 23 (the final 3 ends the turn and scores nothing).
4. **End.** The game ends at the **end of the round** in which some board is
   completely uncovered, so everybody has the same number of turns. The
   highest total wins; equal totals tie.

If you probe all your listed positions without a decrease, random probes go
on for you until one (marked `*`), unless you end with `end` or the game was
made with `--no-auto`. Use `end` to keep parts of the board pristine for
later.

## Three or four players

One probe uncovers that position on every opponent's board. The value added
to your list is the best one for you: the lowest value not lower than your
last one. With `--take-min` it is always the lowest, with `--take-max` always
the highest (much harder).

## Notation

| move | meaning |
|---|---|
| `random` | first move: a random layout; later: random probes until a decrease |
| `666699777...` | first move: your layout, in reading order |
| `a3` / `a3,f2,g1` | probe these, then random probes until a decrease |
| `a3,f2,g1,random` | the same, random probes even with `--no-auto` |
| `a1,a2,a3,end` | probe these and end the turn |
| `a3,hold` | probe and keep the turn open (`end` or `random` finish it) |

Columns are a, b, c ... from the left, rows 1 at the bottom.

## Options

`--size R` regions (2-35, default 9): a board of R(R+1)/2 cells, floor((R+1)/2)
rows high (9 regions: 5 rows of 9). `--no-auto`, and with 3-4 players
`--take-min` or `--take-max`. `--no-hints` turns off the screen's deduction
overlay (key `d`), for games where everybody should deduce alone.

## How this server decides

* The nine-region board is 5 rows by 9 columns, as the example shows (the
  "5x11" of the original introduction is the ten-region board).
* A board counts as uncovered once each of its cells has been probed by some
  opponent; the round in which that happens is the last one.
* With three or four players the first value of a turn never ends it, and if
  no opponent's value fits your list the lowest one is taken and ends the turn.
"""

class Mono(Game):
    name = "mono"
    #: An AI turn is many probes: each value stays in sight long enough to be read.
    ai_move_seconds = 0.7
    option_specs = (
        OptionSpec("size", INT, 9, "regions", minimum=MIN_REGIONS, maximum=MAX_REGIONS),
        OptionSpec("no_auto", SWITCH, False, "no automatic random probes"),
        OptionSpec("take_min", SWITCH, False, "3-4 players: always take the lowest value"),
        OptionSpec("take_max", SWITCH, False, "3-4 players: always take the highest value"),
        OptionSpec("no_hints", SWITCH, False, "no deduction overlay (for shared games)"),
    )

    def _check_option_combination(self, options: dict[str, Any]) -> None:
        if options["take_min"] and options["take_max"]:
            raise RuleError("--take-min and --take-max exclude each other")

    def describe_options(self, options: dict[str, Any]) -> str:
        grid = grid_for(options.get("size", 9))
        parts = [f"{grid.regions} regions, {grid.height}x{grid.width}"]
        for flag in ("no_auto", "take_min", "take_max", "no_hints"):
            if options.get(flag):
                parts.append("--" + flag.replace("_", "-"))
        return ", ".join(parts)

    def _new(self, options: dict[str, Any], seats: tuple[str, ...], seed: int) -> MonoState:
        if (options["take_min"] or options["take_max"]) and len(seats) < 3:
            flag = "--take-min" if options["take_min"] else "--take-max"
            raise RuleError(f"{flag} is for three or four players, not {len(seats)}")
        n = len(seats)
        empty: frozenset[int] = frozenset()
        return MonoState(
            seats=seats,
            seed=seed,
            options=options,
            layouts=(None,) * n,
            probed=(empty,) * n,
            uncovered=(empty,) * n,
            random_uncovered=(empty,) * n,
            totals=(0,) * n,
        )

    def rules_text(self) -> str:
        return RULES



def probes_in(record: TurnRecord, grid: Grid) -> Iterable[str]:
    """The turn in pbmserv's move-list style: random probes marked with ``*``."""
    for probe in record.probes:
        yield f"{grid.names[probe.cell]}{'*' if probe.random else ''}"
