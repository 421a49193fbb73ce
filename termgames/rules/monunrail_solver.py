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
that wants to persist them.

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
:class:`Solver` uses it unless told otherwise (``Solver(core="python")``, or
the environment variable ``TERMGAMES_PURE_PYTHON=1``); larger components and
machines without the extension use the pure-Python cores.  Both paths give the same values (the
tests compare them); :attr:`Solver.implementation` says which one runs.
"""

from __future__ import annotations

import os
import sys
from array import array
from collections.abc import Iterable
from functools import reduce
from itertools import compress, repeat
from operator import and_, eq, or_, rshift, xor
from types import ModuleType
from typing import Any

__all__ = ["Cell", "Move", "Solver", "cell_name", "line_nimber", "parse_shape"]

#: A cell: ``(column, row)``, both 0-based; ``(0, 0)`` is ``A1``.
Cell = tuple[int, int]
#: A move: the removed cells, sorted.
Move = tuple[Cell, ...]

CACHE_FORMAT = "monunrail-nimbers"
CACHE_VERSION = 1

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
    * ``solved()`` -> list of ``(key, value)`` for the shapes solved or loaded
      here (one orientation per class of symmetric shapes);
    * ``width``, ``height``, ``table``; ``size`` = ``len(solved())``.
    """

    def __init__(self, height: int, width: int, table: bool, line_table: bool = True):
        self.height = H = height
        self.width = W = width
        self.table = table
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

        # ---- solving one class ---------------------------------------------
        def solve(S):
            h = (S.bit_length() - 1) // W + 1
            rows = [(S >> (r * W)) & RM for r in range(h)]
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
        self.solved = lambda: list(zip(solved_keys, solved_vals))
        self._sizes = lambda: len(solved_keys)
        if line_table:
            for n in range(1, W + 1):
                load((1 << n) - 1, line_nimber(n))

    @property
    def size(self) -> int:
        return self._sizes()

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


#: Builds a pure-Python core: ``_new_core(height, width, table, line_table)``.
_new_core = _Core

_LOW64 = (1 << 64) - 1


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

    def __init__(self, line_table: bool = True) -> None:
        assert _compiled is not None, "the Solver makes a compiled core only where it is built"
        self._core = _compiled.Core()
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
        return self._core.value(key & _LOW64, key >> 64)

    def load(self, key: int, value: int) -> None:
        self._core.load(key & _LOW64, key >> 64, value)

    def solved(self) -> list[tuple[int, int]]:
        return [(lo | hi << 64, g) for lo, hi, g in self._core.solved()]

    def export_entries(self) -> list[list[int]]:
        """``solved()`` as ``[h, w, bits, value]`` entries of :meth:`Solver.export_cache`."""
        return self._core.export_entries()

    def load_entries(self, entries: list[list[int]]) -> int:
        """Load checked ``[h, w, bits, value]`` entries that fit the frame one way
        or the other; -1, or the index of the first that is not a connected
        shape filling its box."""
        return self._core.load_entries(entries)

    @property
    def size(self) -> int:
        return self._core.size

    @property
    def memory(self) -> int:
        """Bytes the C side holds."""
        return self._core.memory


# --------------------------------------------------------------------------
# The public solver
# --------------------------------------------------------------------------


class Solver:
    """Nimbers, moves and winning moves of unrailing positions.

    ``Solver()`` is what callers want: it uses the compiled core where it
    is built (and ``$TERMGAMES_PURE_PYTHON`` is not set), else pure Python.
    ``core="python"`` or ``core="c"`` chooses (``"c"`` raises
    :class:`RuntimeError` where it is not built).  ``line_table=False`` sends
    straight rows through the general grid solver and ``tables=False`` uses
    dict cores only (pure Python); both exist for tests and measurements.
    A solver keeps every result it computed (``cache_size``); create a new
    one to forget them.
    """

    def __init__(self, *, line_table: bool = True, tables: bool = True, core: str = "auto") -> None:
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
        self._cores: dict[tuple[str, int], _Core | _CompiledCore] = {}

    # ---- the cores ---------------------------------------------------------
    def _core_for(self, h: int, w: int) -> _Core | _CompiledCore:
        """The core that solves a new shape of ``h x w`` cells (any order)."""
        lo, hi = min(h, w), max(h, w)
        if self._compiled and lo <= _CompiledCore.height and hi <= _CompiledCore.width:
            core = self._cores.get(("c", 0))
            if core is None:
                core = self._cores["c", 0] = _CompiledCore(self._line_table)
            return core
        if self._tables and not self._compiled:
            for H, W in _BOXES:
                if lo <= H and hi <= W:
                    key = ("table", H * 100 + W)
                    core = self._cores.get(key)
                    if core is None:
                        core = self._cores[key] = _new_core(H, W, True, self._line_table)
                    return core
        for W in _DICT_WIDTHS:
            if hi <= W:
                break
        else:
            raise ValueError(f"a component spanning {h} x {w} cells is too large to solve")
        key = ("dict", W)
        core = self._cores.get(key)
        if core is None:
            core = self._cores[key] = _new_core(W, W, False, self._line_table)
        return core

    @staticmethod
    def _key(core: _Core | _CompiledCore, cells: list[Cell], h: int, w: int) -> int | None:
        """``cells`` (at the origin, ``h`` rows x ``w`` columns) as a key of
        ``core``, turned if needed; ``None`` if it does not fit."""
        if core.fits(h, w):
            return core.encode(cells)
        if core.fits(w, h):
            return core.encode([(r, c) for c, r in cells])
        return None

    def _component_value(self, comp: frozenset[Cell]) -> int:
        c0 = min(c for c, _ in comp)
        r0 = min(r for _, r in comp)
        cells = [(c - c0, r - r0) for c, r in comp]
        w = max(c for c, _ in cells) + 1
        h = max(r for _, r in cells) + 1
        if self._line_table and min(h, w) == 1:
            return line_nimber(len(cells))
        for core in self._cores.values():
            key = self._key(core, cells, h, w)
            if key is not None:
                g = core.lookup(key)
                if g is not None:
                    return g
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

    # ---- public API --------------------------------------------------------
    def nimber(self, cells: Iterable[Cell]) -> int:
        """The nimber of the position: 0 iff the player to move loses."""
        g = 0
        for comp in _components(_as_cells(cells)):
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

    def export_cache(self) -> dict:
        """Everything solved so far as plain data (a dict of lists of ints).

        ``{"format": "monunrail-nimbers", "version": 1, "shapes": [[h, w,
        bits, value], ...]}``: a connected shape of ``h`` rows and ``w``
        columns touching all four sides of that box, with bit ``r * w + c``
        of ``bits`` set for its cell in row ``r``, column ``c``.
        """
        seen = set()
        shapes = []
        for core in self._cores.values():
            if isinstance(core, _CompiledCore):
                for compiled_entry in core.export_entries():
                    shape = (compiled_entry[0], compiled_entry[1], compiled_entry[2])
                    if shape not in seen:
                        seen.add(shape)
                        shapes.append(compiled_entry)
                continue
            W = core.width
            for key, g in core.solved():
                rows = _rows(key, W)
                w = reduce(or_, rows).bit_length()
                entry = (len(rows), w, _join(rows, w))
                if entry not in seen:
                    seen.add(entry)
                    shapes.append([*entry, g])
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
        batch: list = []
        where: list[int] = []
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
            if self._compiled and min(h, w) <= _CompiledCore.height and max(h, w) <= _CompiledCore.width:
                # checked and loaded by the compiled core, in one batch below
                batch.append(entry)
                where.append(i)
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
        if batch:
            compiled = self._core_for(1, 1)
            assert isinstance(compiled, _CompiledCore)  # the batch holds only shapes the compiled core takes
            bad = compiled.load_entries(batch)
            if bad >= 0:
                raise ValueError(f"MonUnrail cache: entry {where[bad]} is not a connected shape filling its box")
        return len(shapes)
