"""MonUnrail's removal phase ("unrailing"): nimbers of sets of grid cells.

After the track is complete the players take turns removing 1 to 3 tiles that
are contiguous in one row or one column of the grid; tile types and track
connections do not matter (MonUnrail ruling 7).  Whoever removes the last tile
wins, so this is an impartial game under normal play and every position has a
Grundy value (nimber): 0 means the player to move loses against perfect play.
The value of a position is the XOR of the values of its orthogonally connected
components, and the value of one component is the mex (least excluded value)
of the values of the positions one move away: the method of the MonUnrail
rules' "Solving unrailing" (the author's repository, jakkdl/MonUnrail-nimbers).

Cells are ``(column, row)`` pairs, column 0 = ``A`` and row 0 = row ``1``, so
``A1`` is the top left (:func:`cell_name`, :func:`parse_shape`).  No I/O and
no third-party imports: pure Python, plus the optional compiled core of this
package (below).  :class:`Solver`
keeps its results in memory; :meth:`Solver.export_cache` and
:meth:`Solver.import_cache` hand them over as plain lists of ints for a caller
that wants to persist them (:meth:`Solver.dump` and :meth:`Solver.load_dump`,
everything, raw, for a long solve to go on in a later run).

Before any search, a position the second player wins by mirroring is 0
(:func:`mirror_wins`: its own half turn about the centre of its box, and no
removal meets its own image); every core uses the same rule for each shape
and position it reaches.  Long solves report and can be stopped
(:meth:`Solver.watching`, :attr:`Solver.memory_limit`, :class:`SolveStopped`);
:meth:`Solver.analyse` answers move by move, saying how each value was found
and what is known when a stop comes.

How the pure-Python path is fast enough (``bench/monunrail_solver.py``
prints the figures):

* A component is a Python int with one bit per cell, row-major, placed at the
  origin (top-left of its bounding box) of a fixed frame.  Moves are masks
  taken from lazily built tables: keyed by three-row windows of the shape in
  frames up to 6 wide (one lookup per row yields every horizontal and
  vertical move starting in that row), by single rows in wider frames,
  where windows hardly repeat.  A child is ``shape ^ move``.
* Results are looked up by the exact bits of a child position: when a class
  of shapes is solved its value is stored under all 8 rotations/reflections
  (and, in a table core, under every translation inside the box).  Most
  children are then a single lookup.  Positions whose bounding box fits one
  of the boxes 5x5, 4x6, 3x8 or 2x12 use a flat ``bytearray`` indexed by the
  bits (a "table core", 16 or 32 MB each, made when first needed): a
  random lookup costs ~45 ns instead of ~400 ns in a dict of millions of int
  keys.  Larger shapes use a dict ("dict core").
* Children that are not known yet are mostly disconnected (the move cut the
  shape).  They are split in one batch per solved shape: all such children
  are packed side by side into one big int (64-bit lanes, a free row between
  shapes), one bit-parallel flood fill from the lowest cell of every lane
  finds each lane's first piece, and the remainder of each lane is looked
  up directly (usually it is a single known piece).  Only lanes whose
  remainder is unknown go through another batch.  A table core memoises the
  values of such disconnected children too (it has a byte for every
  position of its box anyway).
* Straight rows are octal game 0.777 and are tabulated (:func:`line_nimber`).

The compiled core
-----------------

``termgames/_unrail.c`` (the extension module ``termgames._unrail``, built
by ``pip install`` when a C compiler is present) solves the same game about
ten times faster than the pure-Python cores above (5x5 in ~1 s instead of
~8-12 s, 6x4 in ~1 s, 2x12 in ~0.1 s) and for far more shapes than fit a
table core: any component that fits 8 rows by 16 columns in one of its
orientations.  It keeps one entry per class of symmetric shapes (the
canonical form is the least of the images) in a hash table of 128-bit
shapes, and works on 64-bit 8 x 8 boards for shapes of up to 8 columns.
Components of two rows (up to 32 columns) go to its strip core instead: a
2 x N strip has 2.4 times more classes for every column and leaves the 8 x 16
frame at N = 17, so the strip core keeps a class in 9 bytes (a 64-bit key, a
byte of value), splits a position into pieces with a few bit operations (the
runs of columns that share a row with the next) and looks pieces of up to 8
columns and straight rows up in tables that stay in the processor's cache.
Both tables are in huge pages where Linux offers them.
:class:`Solver` uses it unless told otherwise (``Solver(core="python")``, or
the environment variable ``TERMGAMES_PURE_PYTHON=1``); larger components and
machines without the extension use the pure-Python cores.  Both paths give the same values (the
tests compare them); :attr:`Solver.implementation` says which one runs.
"""

from __future__ import annotations

import heapq
import os
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from functools import reduce
from itertools import compress, repeat
from operator import and_, eq, or_, rshift, xor
from types import ModuleType
from typing import Any

__all__ = [
    "Analysis",
    "Cell",
    "ComponentReport",
    "Move",
    "SolveStopped",
    "Solver",
    "cell_name",
    "line_nimber",
    "mirror_wins",
    "parse_shape",
]

#: A cell: ``(column, row)``, both 0-based; ``(0, 0)`` is ``A1``.
Cell = tuple[int, int]
#: A move: the removed cells, sorted.
Move = tuple[Cell, ...]

CACHE_FORMAT = "monunrail-nimbers"
CACHE_VERSION = 1
#: The first line of :meth:`Solver.dump`'s output (then the caller's tag and a newline).
DUMP_MAGIC = b"MonUnrail solver dump 1"

#: Set (to anything but "" or "0") to use the pure-Python solver even where
#: the compiled core is built.
PURE_PYTHON_ENV = "TERMGAMES_PURE_PYTHON"

_compiled: ModuleType | None
try:
    from .. import _unrail as _compiled  # typed by _unrail.pyi
except ImportError:  # built without a C compiler: the pure-Python cores do it all
    _compiled = None


def compiled_core_available() -> bool:
    """Whether the compiled core (``termgames._unrail``) is built."""
    return _compiled is not None


# --------------------------------------------------------------------------
# Text helpers
# --------------------------------------------------------------------------


def parse_shape(text: str) -> frozenset[Cell]:
    """The cells of a picture made of ``#`` (tile) and ``.`` (empty) rows.

    The top row comes first and its first character is ``A1``.  Trailing
    whitespace on a line and blank lines at the start and end are ignored; a
    blank line in between is an empty row.  Any other character raises
    :class:`ValueError` naming its line and column (1-based, in ``text``).
    """
    lines = text.split("\n")
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    last = len(lines)
    while last > first and not lines[last - 1].strip():
        last -= 1
    cells = set()
    for row, line in enumerate(lines[first:last]):
        for col, ch in enumerate(line.rstrip()):
            if ch == "#":
                cells.add((col, row))
            elif ch != ".":
                raise ValueError(
                    f"line {first + row + 1}, column {col + 1}: unexpected {ch!r} (use '#' for a tile, '.' for empty)"
                )
    return frozenset(cells)


def cell_name(cell: Cell) -> str:
    """``(3, 2)`` -> ``"D3"``: column letter(s) then the 1-based row."""
    col, row = cell
    if col < 0 or row < 0:
        raise ValueError(f"cell {cell!r} is off the board")
    letters = ""
    col += 1
    while col:
        col, rem = divmod(col - 1, 26)
        letters = chr(65 + rem) + letters
    return f"{letters}{row + 1}"


# --------------------------------------------------------------------------
# Straight rows: octal game 0.777
# --------------------------------------------------------------------------

_LINE = [0]


def line_nimber(n: int) -> int:
    """The nimber of a straight row of ``n`` tiles (octal game 0.777).

    Removing 1, 2 or 3 adjacent tiles leaves up to two shorter rows.  The
    sequence has no short period (none up to 2,500 for n <= 10,000), so it is
    tabulated on demand.
    """
    if n < 0:
        raise ValueError("a row cannot have a negative length")
    g = _LINE
    for k in range(len(g), n + 1):
        seen = set()
        for t in (1, 2, 3):
            rest = k - t
            if rest < 0:
                break
            for a in range(rest // 2 + 1):
                seen.add(g[a] ^ g[rest - a])
        v = 0
        while v in seen:
            v += 1
        g.append(v)
    return g[n]


# --------------------------------------------------------------------------
# Plain geometry on cell sets (for the API; the cores work on bits)
# --------------------------------------------------------------------------


def _as_cells(cells: Iterable[Cell]) -> frozenset[Cell]:
    out = frozenset((int(c), int(r)) for c, r in cells)
    return out


def _components(cells: frozenset[Cell]) -> list[frozenset[Cell]]:
    """Orthogonally connected components, in a deterministic order."""
    left = set(cells)
    comps = []
    for start in sorted(cells):
        if start not in left:
            continue
        left.discard(start)
        comp = [start]
        i = 0
        while i < len(comp):
            c, r = comp[i]
            i += 1
            for nb in ((c + 1, r), (c - 1, r), (c, r + 1), (c, r - 1)):
                if nb in left:
                    left.discard(nb)
                    comp.append(nb)
        comps.append(frozenset(comp))
    return comps


def _moves(cells: frozenset[Cell]) -> list[Move]:
    out: list[Move] = []
    for c, r in cells:
        out.append(((c, r),))
        if (c + 1, r) in cells:
            out.append(((c, r), (c + 1, r)))
            if (c + 2, r) in cells:
                out.append(((c, r), (c + 1, r), (c + 2, r)))
        if (c, r + 1) in cells:
            out.append(((c, r), (c, r + 1)))
            if (c, r + 2) in cells:
                out.append(((c, r), (c, r + 1), (c, r + 2)))
    out.sort(key=lambda m: (len(m), m))
    return out


def mirror_wins(cells: Iterable[Cell]) -> bool:
    """Whether the second player wins ``cells`` by mirroring, so that its value is 0 without a search.

    That is when the position is its own half turn about the centre of its
    bounding box and no legal removal meets its own image: the second player
    then answers every removal with its image, which is disjoint from it and
    so still legal, and the position stays symmetric; she always has a move,
    so she makes the last one.  A removal lies in one row or one column.  With
    an even number of rows and of columns no row or column is its own image,
    so no removal ever meets its image.  With an odd number of rows (or
    columns), only a removal through the central cells can: the centre cell,
    or the two central cells of the middle row (column); so the condition is
    that they are not all there.  This holds for a whole position of several
    components as much as for one (the empty position is left out: it needs
    no reason).
    """
    cells = cells if isinstance(cells, (set, frozenset)) else frozenset(cells)
    if not cells:
        return False
    cols = [c for c, _ in cells]
    rows = [r for _, r in cells]
    c0, c1, r0, r1 = min(cols), max(cols), min(rows), max(rows)
    if any((c0 + c1 - c, r0 + r1 - r) not in cells for c, r in cells):
        return False
    if (c1 - c0) % 2 and (r1 - r0) % 2:  # even numbers of columns and rows
        return True
    centre = {(c, r) for c in ((c0 + c1) // 2, (c0 + c1 + 1) // 2) for r in ((r0 + r1) // 2, (r0 + r1 + 1) // 2)}
    return not centre <= cells


# --------------------------------------------------------------------------
# Limits and progress
# --------------------------------------------------------------------------


class SolveStopped(Exception):
    """A solve stopped before its answer: a limit was reached or the caller's progress callback said so.

    ``limit`` names it ("time", "memory" or what the raiser chose).  Every
    shape solved before it stays in the solver, so a second call goes on
    from there.  Out of :meth:`Solver.analyse`, ``analysis`` holds what was
    known when it stopped; it is None elsewhere.
    """

    def __init__(self, limit: str, message: str = "") -> None:
        super().__init__(message or f"the {limit} limit was reached")
        self.limit = limit
        self.analysis: Analysis | None = None


#: Shapes a pure-Python core solves between two calls of the progress callback (~20-50 ms).
PYTHON_TICK_EVERY = 1000


# --------------------------------------------------------------------------
# The bit-level cores
# --------------------------------------------------------------------------


class _Lazy(dict):
    """A dict that builds a missing entry with ``fn(key)``."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def __missing__(self, key):
        v = self[key] = self.fn(key)
        return v


#: Table-core boxes (rows x columns, rows <= columns), tried in this order.
_BOXES = ((5, 5), (4, 6), (3, 8), (2, 12))
#: Frame widths of dict cores.
_DICT_WIDTHS = (8, 16, 32, 64, 128, 256)


class _Core:
    """Nimbers of connected shapes that fit one frame, as bits.

    A shape is an int with bit ``r * width + c`` for the cell in row ``r``,
    column ``c`` (no guard column), normalised to the origin: it has a cell in
    row 0 and one in column 0.  A *table core* (``table=True``) covers the box
    ``height x width`` (``height * width <= 25``) with a ``bytearray`` holding
    the value of every position seen, connected or not (255 = unknown); a
    *dict core* covers shapes up to ``width x width`` with a dict of the
    connected shapes only.

    Interface, also the contract for a compiled replacement:

    * ``lookup(key)`` -> value or ``None`` (no solving);
    * ``value(key)`` -> value, solving as needed (``key`` normalised, fits);
    * ``load(key, value)`` stores a known value for a normalised shape;
    * ``solved()`` -> an iterable of ``(key, value)`` for the shapes solved or loaded
      here (one orientation per class of symmetric shapes);
    * ``width``, ``height``, ``table``; ``size`` = ``len(solved())``;
      ``memory``, about the bytes it holds;
    * ``progress`` (None or a callable without arguments, called every
      ``tick_every`` shapes solved; an exception it raises ends the solve)
      and ``limit`` (bytes it may hold, 0 for no limit; checked at the same
      moments, raising :class:`SolveStopped`).

    With ``symmetry`` a shape the second player wins by mirroring
    (:func:`mirror_wins`) is given 0 at once.
    """

    def __init__(self, height: int, width: int, table: bool, line_table: bool = True, symmetry: bool = True):
        self.height = H = height
        self.width = W = width
        self.table = table
        self.progress: Callable[[], object] | None = None
        self.tick_every = PYTHON_TICK_EVERY
        self.limit = 0
        if table and H * W > 25:
            # <= 25 cells: at most 95 moves, so every value (and every xor of
            # values) is < 128 and fits a byte without meeting UNK
            raise ValueError("a table core covers at most 25 cells")
        RM = (1 << W) - 1
        W3 = (1 << (3 * W)) - 1
        V2 = 1 | 1 << W
        V3 = V2 | 1 << (2 * W)
        if table:
            # every position of the box, connected or not, has a byte
            UNK = 255
            # One code path reads both kinds of memo (indexing, .get through ``look``): typed loosely on purpose.
            tab: Any = bytearray(b"\xff") * (1 << (H * W))
            tab[0] = 0
            look = tab.__getitem__
        else:
            # only connected shapes: memoising disconnected positions too
            # only grows the dict (measured ~12% slower on 2x13)
            UNK = None
            tab = {0: 0}
            look = tab.get

        solved_keys: list[int] = []
        solved_vals = bytearray() if table else []

        # ---- tables built on demand ------------------------------------
        def window_moves(key, r):
            p0 = key & RM
            p1 = (key >> W) & RM
            p2 = (key >> (2 * W)) & RM
            out = [1 << c for c in range(W) if p0 >> c & 1]
            out += [3 << c for c in range(W - 1) if (p0 >> c) & 3 == 3]
            out += [7 << c for c in range(W - 2) if (p0 >> c) & 7 == 7]
            q = p0 & p1
            out += [V2 << c for c in range(W) if q >> c & 1]
            q &= p2
            out += [V3 << c for c in range(W) if q >> c & 1]
            return tuple(m << (r * W) for m in out)

        def row_moves(p, r, unit):
            # unit 1: horizontal moves in a row with pattern p; unit V2 or
            # V3: vertical moves starting at the columns set in p
            if unit == 1:
                out = [1 << c for c in range(W) if p >> c & 1]
                out += [3 << c for c in range(W - 1) if (p >> c) & 3 == 3]
                out += [7 << c for c in range(W - 2) if (p >> c) & 7 == 7]
            else:
                out = [unit << c for c in range(W) if p >> c & 1]
            return tuple(m << (r * W) for m in out)

        last = W - 1

        def img_row(p, r):
            # the 8 transforms of the W x W frame, applied to row r, pattern p
            out = [0] * 8
            for c in range(W):
                if p >> c & 1:
                    for k, (rr, cc) in enumerate(
                        (
                            (r, c),
                            (r, last - c),
                            (last - r, c),
                            (last - r, last - c),
                            (c, r),
                            (c, last - r),
                            (last - c, r),
                            (last - c, last - r),
                        )
                    ):
                        out[k] |= 1 << (rr * W + cc)
            return tuple(out)

        rows_max = H if table else W
        # Narrow frames: one table per three-row window (windows repeat a
        # lot).  Wider frames: tables per row pattern, as windows of wide
        # shapes hardly ever repeat.
        windows = W <= 6
        moves = [_Lazy(lambda key, r=r: window_moves(key, r)) for r in range(rows_max)]
        hmoves = [_Lazy(lambda p, r=r: row_moves(p, r, 1)) for r in range(rows_max)]
        v2moves = [_Lazy(lambda p, r=r: row_moves(p, r, V2)) for r in range(rows_max)]
        v3moves = [_Lazy(lambda p, r=r: row_moves(p, r, V3)) for r in range(rows_max)]
        img = [_Lazy(lambda p, r=r: img_row(p, r)) for r in range(rows_max)]
        # per (h, w): right shifts that bring each frame image to the origin
        shifts = {}
        offs = {}

        def trans(hh, ww):
            # offsets of every translation of an hh x ww shape inside the box
            if hh > H or ww > W:
                return ()
            return tuple(r * W + c for r in range(H - hh + 1) for c in range(W - ww + 1))

        for h in range(1, rows_max + 1):
            for w in range(1, W + 1):
                shifts[h, w] = (
                    0,
                    last + 1 - w,
                    (last + 1 - h) * W,
                    (last + 1 - h) * W + last + 1 - w,
                    0,
                    last + 1 - h,
                    (last + 1 - w) * W,
                    (last + 1 - w) * W + last + 1 - h,
                )
                if table:
                    a = trans(h, w)
                    b = trans(w, h)
                    offs[h, w] = (a, a, a, a, b, b, b, b)
        lane_bytes = [((h + 1) * W + 64) // 64 * 8 for h in range(rows_max + 1)]
        consts: dict[tuple[int, int], tuple[int, int, int, int]] = {}

        def lane_consts(n, nb):
            v = consts.get((n, nb))
            if v is None:
                unit = b"\1" + bytes(nb - 1)
                REP = int.from_bytes(unit * n, "little")
                rows = (8 * nb - 1) // W
                full = (1 << (rows * W)) - 1
                c0 = sum(1 << (r * W) for r in range(rows))
                NC0 = int.from_bytes((full & ~c0).to_bytes(nb, "little") * n, "little")
                NCL = int.from_bytes((full & ~(c0 << last)).to_bytes(nb, "little") * n, "little")
                v = consts[(n, nb)] = (REP, REP << (8 * nb - 1), NC0, NCL)
            return v

        # ---- storing a solved class --------------------------------------
        def store(S, g, rows=None):
            if rows is None:
                rows = [(S >> (r * W)) & RM for r in range((S.bit_length() - 1) // W + 1)]
            h = len(rows)
            w = reduce(or_, rows).bit_length()
            images = map(rshift, map(sum, zip(*[img[r][p] for r, p in enumerate(rows)])), shifts[h, w])
            if table:
                for im, o in zip(images, offs[h, w]):
                    for k in o:
                        tab[im << k] = g
            else:
                for im in images:
                    tab[im] = g
            solved_keys.append(S)
            solved_vals.append(g)

        # ---- a piece found at an absolute position -------------------------
        def piece(x):
            lo = (x & -x).bit_length() - 1
            y = x >> (lo - lo % W)
            f = y
            sh = W
            while f >> sh:
                f |= f >> sh
                sh <<= 1
            f &= RM
            y >>= (f & -f).bit_length() - 1
            g = look(y)
            if g == UNK:
                g = solve(y)
            if not table:
                tab[x] = g
            return g

        def unpack(X, n, nb):
            if nb == 8:
                return array("Q", X.to_bytes(8 * n, "little"))
            b = X.to_bytes(nb * n, "little")
            return [int.from_bytes(b[i : i + nb], "little") for i in range(0, nb * n, nb)]

        # ---- values of positions not in the cache, in one batch ------------
        def split(cs, h):
            n = len(cs)
            nb = lane_bytes[h]
            REP, TOP, NC0, NCL = lane_consts(n, nb)
            if nb == 8:
                C = int.from_bytes(array("Q", cs), "little")
            else:
                C = int.from_bytes(b"".join([c.to_bytes(nb, "little") for c in cs]), "little")
            CL = C & NC0
            CR = C & NCL
            Cp = C | TOP
            X = Cp & ~(Cp - REP) & C  # the lowest cell of every lane
            while True:
                Y = X | ((X << 1) & CL) | ((X >> 1) & CR) | (((X << W) | (X >> W)) & C)
                if Y == X:
                    break
                X = Y
            first = unpack(X, n, nb)
            rest = unpack(C ^ X, n, nb)
            v1 = list(map(look, first))
            if UNK in v1:
                for i, v in enumerate(v1):
                    if v == UNK:
                        v1[i] = piece(first[i])
            rv = list(map(look, rest))
            if UNK in rv:
                idx = [i for i, v in enumerate(rv) if v == UNK]
                sub = [rest[i] for i in idx]
                for i, c, v in zip(idx, sub, split(sub, h)):
                    rv[i] = v
                    if table:
                        tab[c] = v
            return list(map(xor, v1, rv))

        # ---- the mirror strategy -------------------------------------------
        central = {}
        for h in range(1, rows_max + 1):
            for w in range(1, W + 1):
                # the cells a removal meeting its own half turn goes through (none with even sides)
                central[h, w] = (
                    0
                    if h % 2 == 0 and w % 2 == 0
                    else sum(1 << (r * W + c) for r in {(h - 1) // 2, h // 2} for c in {(w - 1) // 2, w // 2})
                )

        ticks = [0]

        def tick():
            ticks[0] = 0
            if self.limit and self.memory > self.limit:
                raise SolveStopped("memory", f"the solver's tables hold about {self.memory} bytes, past the limit")
            if self.progress is not None:
                self.progress()

        # ---- solving one class ---------------------------------------------
        def solve(S):
            ticks[0] += 1
            if ticks[0] >= self.tick_every:
                tick()
            h = (S.bit_length() - 1) // W + 1
            rows = [(S >> (r * W)) & RM for r in range(h)]
            if symmetry:
                w = reduce(or_, rows).bit_length()
                if sum([img[r][p][3] for r, p in enumerate(rows)]) >> shifts[h, w][3] == S:
                    m = central[h, w]
                    if S & m != m or not m:
                        store(S, 0, rows)
                        return 0
            if windows:
                children = [S ^ m for r in range(h) for m in moves[r][(S >> (r * W)) & W3]]
            else:
                children = [S ^ m for r, p in enumerate(rows) for m in hmoves[r][p]]
                if h > 1:
                    qs = list(map(and_, rows, rows[1:]))
                    children += [S ^ m for r, q in enumerate(qs) for m in v2moves[r][q]]
                    if h > 2:
                        qs = list(map(and_, qs, rows[2:]))
                        children += [S ^ m for r, q in enumerate(qs) for m in v3moves[r][q]]
            vals = list(map(look, children))
            seen = set(vals)
            if UNK in seen:
                seen.discard(UNK)
                cs = list(compress(children, map(eq, vals, repeat(UNK))))
                res = split(cs, h)
                seen.update(res)
                if table:
                    for c, v in zip(cs, res):
                        tab[c] = v
            g = 0
            while g in seen:
                g += 1
            store(S, g, rows)
            return g

        def value(key):
            g = look(key)
            if g == UNK:
                g = solve(key)
            return g

        def lookup(key):
            g = look(key)
            return None if g == UNK else g

        def load(key, g):
            if look(key) == UNK:
                store(key, g)

        self.value = value
        self.lookup = lookup
        self.load = load
        self.solved = lambda: zip(solved_keys, solved_vals)
        self._sizes = lambda: len(solved_keys)
        self._memory = (
            (lambda: len(tab) + 45 * len(solved_keys))
            if table
            # a dict entry with an int key of a few digits: ~100 bytes, the solved lists ~40 more
            else (lambda: sys.getsizeof(tab) + 100 * len(tab) + 40 * len(solved_keys))
        )
        if line_table:
            for n in range(1, W + 1):
                load((1 << n) - 1, line_nimber(n))

    @property
    def size(self) -> int:
        return self._sizes()

    @property
    def memory(self) -> int:
        return self._memory()

    def fits(self, h: int, w: int) -> bool:
        """Whether a shape of ``h`` rows by ``w`` columns fits as it stands."""
        if self.table:
            return h <= self.height and w <= self.width
        return h <= self.width and w <= self.width

    def encode(self, cells: Iterable[Cell]) -> int:
        W = self.width
        return sum(1 << (r * W + c) for c, r in cells)


def _rows(key: int, stride: int) -> list[int]:
    mask = (1 << stride) - 1
    out = []
    while key:
        out.append(key & mask)
        key >>= stride
    return out


def _join(rows: Iterable[int], stride: int) -> int:
    return sum(p << (r * stride) for r, p in enumerate(rows))


def _connected_rows(rows: list[int], w: int) -> bool:
    """Whether the rows (patterns of ``w`` bits) form one connected shape."""
    s = w + 1
    key = _join(rows, s)
    x = key & -key
    while True:
        y = x | (((x << 1) | (x >> 1) | (x << s) | (x >> s)) & key)
        if y == x:
            return x == key
        x = y


#: Builds a pure-Python core: ``_new_core(height, width, table, line_table, symmetry)``.
_new_core = _Core

_LOW64 = (1 << 64) - 1


def _stopped_by_limit(error: Exception) -> SolveStopped:
    return SolveStopped("memory", str(error))


def _c_side(name: str) -> Any:
    """An attribute of a compiled core's object on the C side, read and written through."""
    return property(lambda self: getattr(self._core, name), lambda self, value: setattr(self._core, name, value))


class _CompiledCore:
    """``termgames._unrail.Core`` behind the interface of :class:`_Core`.

    A shape is an int with bit ``r * 16 + c`` for the cell in row ``r``,
    column ``c``: up to 8 rows by 16 columns.  The C side takes it as two
    64-bit halves.  Disconnected positions are welcome too (``value`` and
    ``lookup`` take the XOR of the pieces).
    """

    height = 8
    width = 16
    table = False

    def __init__(self, line_table: bool = True, symmetry: bool = True) -> None:
        assert _compiled is not None, "the Solver makes a compiled core only where it is built"
        self._core: Any = _compiled.Core(symmetry=symmetry)  # a Core, or a Strip in the subclass
        if line_table:
            for n in range(1, self.width + 1):
                self.load((1 << n) - 1, line_nimber(n))

    def fits(self, h: int, w: int) -> bool:
        return h <= self.height and w <= self.width

    def encode(self, cells: Iterable[Cell]) -> int:
        return sum(1 << (r * 16 + c) for c, r in cells)

    def lookup(self, key: int) -> int | None:
        return self._core.lookup(key & _LOW64, key >> 64)

    def value(self, key: int) -> int:
        assert _compiled is not None
        try:
            return self._core.value(key & _LOW64, key >> 64)
        except _compiled.LimitReached as error:
            raise _stopped_by_limit(error) from None

    def load(self, key: int, value: int) -> None:
        self._core.load(key & _LOW64, key >> 64, value)

    def solved(self) -> list[tuple[int, int]]:
        return [(lo | hi << 64, g) for lo, hi, g in self._core.solved()]

    def export_entries(self, limit: int = -1) -> list[list[int]]:
        """``solved()`` as ``[h, w, bits, value]`` entries of :meth:`Solver.export_cache`: the ``limit``
        largest (all if negative), picked on the C side so that a large table costs no large list."""
        return self._core.export_entries(limit)

    def load_entries(self, entries: list[list[int]]) -> int:
        """Load checked ``[h, w, bits, value]`` entries that fit the frame one way
        or the other; -1, or the index of the first that is not a connected
        shape filling its box."""
        return self._core.load_entries(entries)

    #: :meth:`Solver.dump`'s section of this kind of core, and the bytes of one of its entries there.
    dump_kind = b"C"
    dump_entry = 18

    def dump(self, write: Callable[[bytes], object], chunk: int) -> int:
        """Every class, raw, through ``write`` in pieces of about ``chunk`` bytes; the bytes written."""
        buckets = self._core.buckets
        step = max(1, chunk // 64)
        done = 0
        for start in range(0, buckets, step):
            piece = self._core.dump_range(start, step)
            if piece:
                write(piece)
                done += len(piece)
        return done

    def load_dump(self, data: bytes) -> int:
        """Read entries :meth:`dump` wrote (whole ones); ValueError for one that is not a class of shapes."""
        assert _compiled is not None
        try:
            return self._core.load_dump(data)
        except _compiled.LimitReached as error:
            raise _stopped_by_limit(error) from None

    def reserve(self, count: int) -> None:
        """Room for ``count`` more classes at once: entries that come in another table's order (a dump, the
        cache file) must not make the table grow on the way (their order makes a smaller table crawl)."""
        assert _compiled is not None
        try:
            self._core.reserve(count)
        except _compiled.LimitReached as error:
            raise _stopped_by_limit(error) from None

    @property
    def size(self) -> int:
        return self._core.size

    @property
    def memory(self) -> int:
        """Bytes the C side holds."""
        return self._core.memory

    # the watch, as _Core's: the C side's attributes
    progress = _c_side("progress")
    tick_every = _c_side("tick_every")
    limit = _c_side("limit")


class _CompiledStrip(_CompiledCore):
    """``termgames._unrail.Strip``: shapes of two rows and up to 32 columns, in a core of their own.

    A 2 x N strip has 2.4 times more classes of shapes for every column (56
    million for 2 x 21) and stops fitting the 8 x 16 frame at N = 17; the
    strip core keeps a class in 9 bytes instead of 21 and splits a position
    into pieces with a few bit operations.  A shape is an int with bit
    ``r * 32 + c`` for the cell in row ``r`` (0 or 1), column ``c``.
    """

    height = 2
    width = 32
    dump_kind = b"S"
    dump_entry = 9

    def __init__(self, line_table: bool = True, symmetry: bool = True) -> None:
        assert _compiled is not None, "the Solver makes a compiled core only where it is built"
        # rows of one line are valued from the line table inside the core, whatever line_table says:
        # line_table=False is about the general grid solver
        self._core = _compiled.Strip(symmetry=symmetry)

    def encode(self, cells: Iterable[Cell]) -> int:
        return sum(1 << (r * 32 + c) for c, r in cells)

    def lookup(self, key: int) -> int | None:
        return self._core.lookup(key)

    def value(self, key: int) -> int:
        assert _compiled is not None
        try:
            return self._core.value(key)
        except _compiled.LimitReached as error:
            raise _stopped_by_limit(error) from None

    def load(self, key: int, value: int) -> None:
        self._core.load(key, value)

    def solved(self) -> list[tuple[int, int]]:
        out = []
        for h, w, bits, g in self._core.export_entries(-1):
            assert h == 2
            out.append((bits & ((1 << w) - 1) | (bits >> w) << 32, g))
        return out


# --------------------------------------------------------------------------
# What analyse() finds out
# --------------------------------------------------------------------------


@dataclass
class ComponentReport:
    """One connected component of a position :meth:`Solver.analyse` looked at."""

    cells: frozenset[Cell]
    #: How many legal moves it has.
    moves: int = 0
    #: Its nimber; None while it is not known.
    value: int | None = None
    #: How the value was found: "symmetric" (the second player mirrors: :func:`mirror_wins`), "line" (a
    #: straight row: the line table), "known" (the solver had it, from earlier work or its cache), "solved".
    how: str = ""
    #: The values of the positions its moves leave (the component alone), for the moves worked out so far.
    children: dict[Move, int] = field(default_factory=dict)

    @property
    def floor(self) -> int:
        """The least value it can have given the children worked out: their mex."""
        seen = set(self.children.values())
        g = 0
        while g in seen:
            g += 1
        return g


@dataclass
class Analysis:
    """What :meth:`Solver.analyse` found out about a position; complete when it returns, partial in a
    :class:`SolveStopped` or in a progress callback."""

    cells: frozenset[Cell]
    #: The whole position is won by the second player's mirroring (:func:`mirror_wins`): 0, nothing searched.
    symmetric: bool = False
    #: Its components, smallest first (none listed for a symmetric position: none was needed).
    components: list[ComponentReport] = field(default_factory=list)
    #: The nimber: the XOR of the components' values; None while one is not known.
    nimber: int | None = None
    #: Every move that leaves a position worth 0, once all are known (then sorted as :meth:`Solver.moves`).
    winning_moves: list[Move] | None = None

    @property
    def moves(self) -> int:
        return sum(k.moves for k in self.components)

    @property
    def moves_checked(self) -> int:
        """Moves whose resulting position has been valued."""
        return sum(len(k.children) for k in self.components)

    def working_on(self) -> ComponentReport | None:
        """The component being valued (the first without a value), or None once all have one."""
        return next((k for k in self.components if k.value is None), None)

    def sure_winning_moves(self) -> list[Move]:
        """The moves known so far to leave 0: all of them once :attr:`winning_moves` is set."""
        if self.winning_moves is not None:
            return self.winning_moves
        unknown = [k for k in self.components if k.value is None]
        if len(unknown) > 1:
            return []
        others = reduce(xor, (k.value for k in self.components if k.value is not None), 0)
        if unknown:
            # a move that leaves its component worth the xor of the others leaves 0, whatever the component is worth
            found = [m for m, v in unknown[0].children.items() if v == others]
        else:
            found = [m for k in self.components for m, v in k.children.items() if v == others ^ (k.value or 0)]
        found.sort(key=lambda m: (len(m), m))
        return found


# --------------------------------------------------------------------------
# The public solver
# --------------------------------------------------------------------------

_AnyCore = _Core | _CompiledCore


class Solver:
    """Nimbers, moves and winning moves of unrailing positions.

    ``Solver()`` is what callers want: it uses the compiled core where it
    is built (and ``$TERMGAMES_PURE_PYTHON`` is not set), else pure Python.
    ``core="python"`` or ``core="c"`` chooses (``"c"`` raises
    :class:`RuntimeError` where it is not built).  ``line_table=False`` sends
    straight rows through the general grid solver and ``tables=False`` uses
    dict cores only (pure Python); ``symmetry=False`` searches positions the
    second player wins by mirroring instead of answering 0 at once (the plain
    search, to check the rule against); ``tick_every`` sets how many shapes
    the cores solve between two calls of the progress callback.  These exist
    for tests and measurements.
    A solver keeps every result it computed (``cache_size``); create a new
    one to forget them.

    Long solves: :meth:`watching` installs a callback the solver calls every
    so often (every few tens of milliseconds while it searches); an
    exception it raises, such as :class:`SolveStopped`, ends the solve and
    comes out of the call.  :attr:`memory_limit` bounds the bytes the
    compiled cores hold: a table that would grow past it raises
    :class:`SolveStopped` ("memory") instead.  Either way every shape solved
    before stays.
    """

    def __init__(
        self,
        *,
        line_table: bool = True,
        tables: bool = True,
        core: str = "auto",
        symmetry: bool = True,
        tick_every: int | None = None,
    ) -> None:
        if core not in ("auto", "c", "python"):
            raise ValueError(f"core must be 'auto', 'c' or 'python', not {core!r}")
        if core == "c" and _compiled is None:
            raise RuntimeError("the compiled MonUnrail core (termgames._unrail) is not built")
        if core == "auto":
            core = "c" if _compiled is not None and os.environ.get(PURE_PYTHON_ENV, "") in ("", "0") else "python"
        self._compiled = core == "c"
        #: Which implementation of the hot loop runs: "C" or "pure Python".
        self.implementation = "C" if self._compiled else "pure Python"
        self._line_table = line_table
        self._tables = tables
        self._symmetry = symmetry
        self._tick_every = tick_every
        self._progress: Callable[[], object] | None = None
        self._memory_limit: int | None = None
        self._cores: dict[tuple[str, int], _AnyCore] = {}

    # ---- the cores ---------------------------------------------------------
    def _add_core(self, key: tuple[str, int], core: _AnyCore) -> _AnyCore:
        self._cores[key] = core
        if self._tick_every is not None:
            core.tick_every = self._tick_every
        core.progress = self._progress
        self._share_memory_limit()
        return core

    def _core_for(self, h: int, w: int) -> _AnyCore:
        """The core that solves a new shape of ``h x w`` cells (any order)."""
        lo, hi = min(h, w), max(h, w)
        if self._compiled and lo == _CompiledStrip.height and hi <= _CompiledStrip.width:
            core = self._cores.get(("strip", 0))
            if core is None:
                core = self._add_core(("strip", 0), _CompiledStrip(self._line_table, self._symmetry))
            return core
        if self._compiled and lo <= _CompiledCore.height and hi <= _CompiledCore.width:
            core = self._cores.get(("c", 0))
            if core is None:
                core = self._add_core(("c", 0), _CompiledCore(self._line_table, self._symmetry))
            return core
        if self._tables and not self._compiled:
            for H, W in _BOXES:
                if lo <= H and hi <= W:
                    key = ("table", H * 100 + W)
                    core = self._cores.get(key)
                    if core is None:
                        core = self._add_core(key, _new_core(H, W, True, self._line_table, self._symmetry))
                    return core
        for W in _DICT_WIDTHS:
            if hi <= W:
                break
        else:
            raise ValueError(f"a component spanning {h} x {w} cells is too large to solve")
        key = ("dict", W)
        core = self._cores.get(key)
        if core is None:
            core = self._add_core(key, _new_core(W, W, False, self._line_table, self._symmetry))
        return core

    @staticmethod
    def _key(core: _AnyCore, cells: list[Cell], h: int, w: int) -> int | None:
        """``cells`` (at the origin, ``h`` rows x ``w`` columns) as a key of
        ``core``, turned if needed; ``None`` if it does not fit."""
        if core.fits(h, w):
            return core.encode(cells)
        if core.fits(w, h):
            return core.encode([(r, c) for c, r in cells])
        return None

    @staticmethod
    def _at_origin(comp: frozenset[Cell]) -> tuple[list[Cell], int, int]:
        c0 = min(c for c, _ in comp)
        r0 = min(r for _, r in comp)
        cells = [(c - c0, r - r0) for c, r in comp]
        w = max(c for c, _ in cells) + 1
        h = max(r for _, r in cells) + 1
        return cells, h, w

    def _known_value(self, comp: frozenset[Cell]) -> tuple[int | None, str]:
        """The value of a connected component if it needs no search, and why: (None, "") if it does."""
        if self._symmetry and len(comp) > 1 and mirror_wins(comp):
            return 0, "symmetric"
        cells, h, w = self._at_origin(comp)
        if self._line_table and min(h, w) == 1:
            return line_nimber(len(cells)), "line"
        for core in self._cores.values():
            key = self._key(core, cells, h, w)
            if key is not None:
                g = core.lookup(key)
                if g is not None:
                    return g, "known"
        return None, ""

    def _component_value(self, comp: frozenset[Cell]) -> int:
        g, _ = self._known_value(comp)
        if g is not None:
            return g
        cells, h, w = self._at_origin(comp)
        core = self._core_for(h, w)
        key = self._key(core, cells, h, w)
        assert key is not None
        # the solver recurses up to about three frames per cell, on top of the
        # caller's; Python-to-Python calls do not use the C stack in 3.11, so
        # a higher limit is safe
        need = 1000 + 4 * len(cells)
        if sys.getrecursionlimit() < need:
            sys.setrecursionlimit(need)
        return core.value(key)

    def _remember(self, comp: frozenset[Cell], g: int) -> None:
        """Keep the value of a component worked out here (by :meth:`analyse`) in its core."""
        cells, h, w = self._at_origin(comp)
        if min(h, w) == 1 and self._line_table:
            return
        core = self._core_for(h, w)
        key = self._key(core, cells, h, w)
        assert key is not None
        core.load(key, g)

    # ---- long solves -------------------------------------------------------
    @contextmanager
    def watching(self, callback: Callable[[], object] | None) -> Iterator[None]:
        """Call ``callback()`` every so often while solving, within the ``with`` block.

        It runs in the solving thread, every ``tick_every`` shapes solved
        (tens of milliseconds); an exception it raises ends the solve and
        comes out of the solver's method, every shape solved before staying
        in the solver.  It must not call this solver's methods (the compiled
        cores hold their lock); :attr:`cache_size` and :attr:`memory` may be
        read.
        """
        previous = self._progress
        self._set_progress(callback)
        try:
            yield
        finally:
            self._set_progress(previous)

    def _set_progress(self, callback: Callable[[], object] | None) -> None:
        self._progress = callback
        for core in self._cores.values():
            core.progress = callback

    @property
    def memory_limit(self) -> int | None:
        """Bytes the cores may hold at most (None: no limit); a solve that needs more stops with
        :class:`SolveStopped` ("memory").  The compiled cores check it before their tables grow; the
        pure-Python ones, which estimate their size, every ``tick_every`` shapes."""
        return self._memory_limit

    @memory_limit.setter
    def memory_limit(self, limit: int | None) -> None:
        self._memory_limit = limit
        self._share_memory_limit()

    def _share_memory_limit(self) -> None:
        # each core may have what the others do not hold now
        limit = self._memory_limit
        total = self.memory
        for core in self._cores.values():
            core.limit = 0 if limit is None else max(1, limit - (total - core.memory))

    @property
    def memory(self) -> int:
        """About how many bytes the cores hold."""
        return sum(core.memory for core in self._cores.values())

    # ---- public API --------------------------------------------------------
    def nimber(self, cells: Iterable[Cell]) -> int:
        """The nimber of the position: 0 iff the player to move loses."""
        cells = _as_cells(cells)
        if self._symmetry and mirror_wins(cells):
            return 0
        g = 0
        for comp in _components(cells):
            g ^= self._component_value(comp)
        return g

    def moves(self, cells: Iterable[Cell]) -> list[Move]:
        """Every legal removal: 1 to 3 tiles in a line of one row or column.

        Each move is a sorted tuple of cells; the list is sorted by size, then
        by cells.
        """
        return _moves(_as_cells(cells))

    def winning_moves(self, cells: Iterable[Cell]) -> list[Move]:
        """The moves that leave a position of value 0 (none if it is 0)."""
        cells = _as_cells(cells)
        if self._symmetry and mirror_wins(cells):
            return []
        comps = _components(cells)
        values = [self._component_value(k) for k in comps]
        total = reduce(xor, values, 0)
        if not total:
            return []
        out = []
        for comp, g in zip(comps, values):
            want = total ^ g
            for move in _moves(comp):
                if self.nimber(comp.difference(move)) == want:
                    out.append(move)
        out.sort(key=lambda m: (len(m), m))
        return out

    def analyse(self, cells: Iterable[Cell], progress: Callable[[Analysis], object] | None = None) -> Analysis:
        """The nimber and the winning moves of a position, with how they were found.

        The same answer as :meth:`nimber` and :meth:`winning_moves`, worked
        out so that a long solve can report how far it is: a position the
        second player wins by mirroring is 0 at once (nothing else is
        looked at); otherwise each component, smallest first, is valued
        from the cache, the line table or its own symmetry, or else move by
        move (the moves that leave a position the second player wins by
        mirroring first, as their value is known at once).
        ``progress(analysis)``, if given, is called with the partial
        analysis after every move valued and every so often in between (as
        :meth:`watching`); an exception it raises ends the analysis.  A
        :class:`SolveStopped` comes out with ``analysis`` set to what was
        known then.
        """
        result = Analysis(_as_cells(cells))
        tick = None if progress is None else (lambda: progress(result))
        try:
            with self.watching(tick) if tick is not None else nullcontext():
                self._analyse(result, tick)
        except SolveStopped as stop:
            stop.analysis = result
            raise
        return result

    def _analyse(self, result: Analysis, tick: Callable[[], object] | None) -> None:
        cells = result.cells
        if self._symmetry and mirror_wins(cells):
            result.symmetric = True
        if not cells or result.symmetric:
            result.nimber = 0
            result.winning_moves = []
            return
        comps = sorted(_components(cells), key=lambda k: (len(k), sorted(k)))
        result.components = [ComponentReport(k, moves=len(_moves(k))) for k in comps]
        for report in result.components:
            report.value, report.how = self._known_value(report.cells)
            if report.value is None:
                self._value_children(report, tick)
                report.value = report.floor
                report.how = "solved"
                self._remember(report.cells, report.value)
        total = reduce(xor, (k.value or 0 for k in result.components), 0)
        result.nimber = total
        if not total:
            result.winning_moves = []
            return
        for report in result.components:
            self._value_children(report, tick)
        winning = [m for k in result.components for m, v in k.children.items() if v == total ^ (k.value or 0)]
        winning.sort(key=lambda m: (len(m), m))
        result.winning_moves = winning

    def _value_children(self, report: ComponentReport, tick: Callable[[], object] | None) -> None:
        """Value every position a move of the component leaves (the component alone)."""
        comp = report.cells
        moves = _moves(comp)
        if self._symmetry:
            # their value is known without a search: first, so that a winning move shows early
            for move in moves:
                if move not in report.children and mirror_wins(comp.difference(move)):
                    report.children[move] = 0
        for move in moves:
            if move not in report.children:
                report.children[move] = self.nimber(comp.difference(move))
                if tick is not None:
                    tick()

    def best_losing_move(self, cells: Iterable[Cell]) -> Move:
        """In a lost position (value 0), the move that keeps the most play.

        For a computer player that hopes the opponent errs: fewest tiles
        removed (so always one), then the largest remaining component, then
        the most legal moves left; ties go to the first move in :meth:`moves`
        order.  Raises :class:`ValueError` if the position is empty or not
        lost (use :meth:`winning_moves` then).
        """
        cells = _as_cells(cells)
        if not cells:
            raise ValueError("no tiles left: there is no move")
        if self.nimber(cells):
            raise ValueError("the position is not lost: use winning_moves()")
        best: Move | None = None
        best_key = None
        for move in _moves(cells):
            rest = cells.difference(move)
            largest = max((len(k) for k in _components(rest)), default=0)
            key = (-len(move), largest, len(_moves(rest)))
            if best_key is None or key > best_key:
                best, best_key = move, key
        assert best is not None
        return best

    # ---- the cache ---------------------------------------------------------
    @property
    def cache_size(self) -> int:
        """How many shapes (one per class of symmetric shapes) have a value."""
        return sum(core.size for core in self._cores.values())

    def export_cache(self, limit: int | None = None) -> dict:
        """Everything solved so far as plain data (a dict of lists of ints); with ``limit``, only the
        ``limit`` largest shapes (by cells; what a cache of bounded size keeps), picked without a list of
        everything.

        ``{"format": "monunrail-nimbers", "version": 1, "shapes": [[h, w,
        bits, value], ...]}``: a connected shape of ``h`` rows and ``w``
        columns touching all four sides of that box, with bit ``r * w + c``
        of ``bits`` set for its cell in row ``r``, column ``c``.
        """
        seen = set()
        shapes = []
        for core in self._cores.values():
            if isinstance(core, _CompiledCore):
                entries = core.export_entries(-1 if limit is None else limit)
            else:
                W = core.width
                solved: Iterable[tuple[int, int]] = core.solved()
                if limit is not None:
                    solved = heapq.nlargest(limit, solved, key=lambda item: item[0].bit_count())
                entries = []
                for key, g in solved:
                    rows = _rows(key, W)
                    w = reduce(or_, rows).bit_length()
                    entries.append([len(rows), w, _join(rows, w), g])
            for entry in entries:
                shape = (entry[0], entry[1], entry[2])
                if shape not in seen:
                    seen.add(shape)
                    shapes.append(entry)
        if limit is not None and len(shapes) > limit:
            shapes.sort(key=lambda entry: -entry[2].bit_count())
            del shapes[limit:]
        return {"format": CACHE_FORMAT, "version": CACHE_VERSION, "shapes": shapes}

    def import_cache(self, data: dict) -> int:
        """Load what :meth:`export_cache` produced; returns the shapes read.

        Raises :class:`ValueError` for data of another format or version or
        with an entry that is not a connected shape filling its box.  Values
        are trusted: they are not recomputed.
        """
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
            raise ValueError("not a MonUnrail nimber cache")
        if data.get("version") != CACHE_VERSION:
            raise ValueError(f"unsupported MonUnrail cache version {data.get('version')!r}")
        shapes = data.get("shapes")
        if not isinstance(shapes, list):
            raise ValueError("MonUnrail cache: 'shapes' must be a list")
        batches: dict[str, tuple[list, list[int]]] = {"strip": ([], []), "c": ([], [])}
        for i, entry in enumerate(shapes):
            if (
                not isinstance(entry, (list, tuple))
                or len(entry) != 4
                or not all(type(x) is int for x in entry)
            ):
                raise ValueError(f"MonUnrail cache: entry {i} is not [h, w, bits, value]")
            h, w, bits, g = entry
            if not (1 <= h <= _DICT_WIDTHS[-1] and 1 <= w <= _DICT_WIDTHS[-1] and 0 < bits < 1 << (h * w)):
                raise ValueError(f"MonUnrail cache: entry {i} is out of range")
            if not 0 <= g < 255:
                raise ValueError(f"MonUnrail cache: entry {i} has value {g} out of range")
            lo, hi = min(h, w), max(h, w)
            if self._compiled and lo == _CompiledStrip.height and hi <= _CompiledStrip.width:
                batch = batches["strip"]
            elif self._compiled and lo <= _CompiledCore.height and hi <= _CompiledCore.width:
                batch = batches["c"]
            else:
                batch = None
            if batch is not None:
                # checked and loaded by a compiled core, in one batch below
                batch[0].append(entry)
                batch[1].append(i)
                continue
            mask = (1 << w) - 1
            rows = [(bits >> (r * w)) & mask for r in range(h)]
            cols = reduce(or_, rows)
            if not (rows[0] and rows[-1] and cols & 1 and cols >> (w - 1)) or not _connected_rows(rows, w):
                raise ValueError(f"MonUnrail cache: entry {i} is not a connected shape filling its box")
            core = self._core_for(h, w)
            if core.fits(h, w):
                key = _join(rows, core.width)
            else:
                cells = [(c, r) for r, p in enumerate(rows) for c in range(w) if p >> c & 1]
                turned = self._key(core, cells, h, w)
                assert turned is not None, "_core_for chose a core the shape fits one way or the other"
                key = turned
            core.load(key, g)
        for (entries, where), size in zip(batches.values(), ((2, 2), (1, 1))):
            if entries:
                compiled = self._core_for(*size)
                assert isinstance(compiled, _CompiledCore)  # the batch holds only shapes this core takes
                compiled.reserve(len(entries))
                bad = compiled.load_entries(entries)
                if bad >= 0:
                    raise ValueError(f"MonUnrail cache: entry {where[bad]} is not a connected shape filling its box")
        return len(shapes)

    def dump(self, write: Callable[[bytes], object], tag: str = "", chunk: int = 1 << 20) -> int:
        """Everything solved, in full, through ``write``: for a long solve stopped by a budget to hand on
        to the next run (:meth:`export_cache` is the compact, bounded form); the bytes written.

        Raw entries of the compiled cores, pieces of about ``chunk`` bytes at a
        time (their tables may be most of the machine's memory: no copy of them
        is made), and the pure-Python cores' shapes as :meth:`export_cache`
        JSON.  ``tag`` (one line of text, such as which position this was)
        comes back from :meth:`load_dump`.
        """
        import json

        done = 0

        def out(data: bytes) -> None:
            nonlocal done
            write(data)
            done += len(data)

        out(DUMP_MAGIC + b" " + tag.replace("\n", " ").encode("utf-8") + b"\n")
        python_shapes = []
        for core in self._cores.values():
            if isinstance(core, _CompiledCore):
                length = core.size * core.dump_entry
                out(core.dump_kind + length.to_bytes(8, "little"))
                written = core.dump(out, chunk)
                if written != length:
                    raise RuntimeError(f"a core changed while it was dumped ({written} bytes, not {length})")
            else:
                for key, g in core.solved():
                    rows = _rows(key, core.width)
                    w = reduce(or_, rows).bit_length()
                    python_shapes.append([len(rows), w, _join(rows, w), g])
        if python_shapes:
            data = {"format": CACHE_FORMAT, "version": CACHE_VERSION, "shapes": python_shapes}
            blob = json.dumps(data, separators=(",", ":")).encode("ascii")
            out(b"J" + len(blob).to_bytes(8, "little"))
            out(blob)
        return done

    @staticmethod
    def dump_tag(read: Callable[[int], bytes]) -> str | None:
        """The tag of what :meth:`dump` wrote (None if it is not such a thing), reading its first line."""
        line = b""
        while not line.endswith(b"\n") and len(line) < 4096:
            more = read(1)
            if not more:
                return None
            line += more
        if not line.startswith(DUMP_MAGIC + b" "):
            return None
        return line[len(DUMP_MAGIC) + 1 : -1].decode("utf-8", "replace")

    def load_dump(self, read: Callable[[int], bytes], chunk: int = 1 << 20) -> int:
        """Take in what :meth:`dump` wrote (after its tag: see :meth:`dump_tag`); the classes read.

        Raises :class:`ValueError` for data that is not a dump, is cut short or
        holds an entry that is not a class of shapes; what was read before
        stays (it was checked).  A section of a kind this solver does not
        keep (the compiled cores' in a pure-Python solver) is skipped.
        """
        import json

        count = 0
        cores = {b"C": ("c", (1, 1)), b"S": ("strip", (2, 2))}
        while True:
            head = read(9)
            if not head:
                return count
            if len(head) != 9 or head[:1] not in (b"C", b"S", b"J"):
                raise ValueError("not a MonUnrail solver dump")
            kind, length = head[:1], int.from_bytes(head[1:], "little")
            if kind == b"J":
                blob = read(length)
                if len(blob) != length:
                    raise ValueError("the dump is cut short")
                count += self.import_cache(json.loads(blob))
                continue
            core: _AnyCore | None = None
            if self._compiled:
                core = self._cores.get((cores[kind][0], 0)) or self._core_for(*cores[kind][1])
            entry = _CompiledStrip.dump_entry if kind == b"S" else _CompiledCore.dump_entry
            if length % entry:
                raise ValueError("not a MonUnrail solver dump")
            if isinstance(core, _CompiledCore):
                core.reserve(length // entry)
            step = max(1, chunk // entry) * entry
            while length:
                want = min(step, length)  # whole entries
                data = read(want)
                while len(data) < want:
                    more = read(want - len(data))
                    if not more:
                        raise ValueError("the dump is cut short")
                    data += more
                length -= want
                if isinstance(core, _CompiledCore):
                    count += core.load_dump(data)
