"""The unrailing solver's searches on bits: the pure-Python cores and the compiled ones.

:class:`.solver.Solver` hands each connected component to one of these and
keeps them; they share one interface (:class:`PythonCore`'s docstring).

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
Both tables are in huge pages where Linux offers them.  :class:`CompiledCore`
and :class:`CompiledStrip` put them behind the pure-Python cores' interface;
:func:`compiled_core_available` says whether the module is built.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable, Iterable, Sequence
from functools import partial, reduce
from itertools import compress, repeat
from operator import and_, eq, or_, rshift, xor
from types import ModuleType
from typing import Any

from .analysis import SolveStopped
from .shapes import Cell, line_nimber

_compiled: ModuleType | None
try:
    from ... import _unrail as _compiled  # typed by _unrail.pyi
except ImportError:  # built without a C compiler: the pure-Python cores do it all
    _compiled = None


def compiled_core_available() -> bool:
    """Whether the compiled core (``termgames._unrail``) is built."""
    return _compiled is not None


#: Shapes a pure-Python core solves between two calls of the progress callback (~20-50 ms).
PYTHON_TICK_EVERY = 1000


# --------------------------------------------------------------------------
# The bit-level cores
# --------------------------------------------------------------------------


class _Lazy(dict[int, tuple[int, ...]]):
    """A dict that builds a missing entry with ``fn(key)``."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[int], tuple[int, ...]]) -> None:
        super().__init__()
        self.fn = fn

    def __missing__(self, key: int) -> tuple[int, ...]:
        v = self[key] = self.fn(key)
        return v


#: Table-core boxes (rows x columns, rows <= columns), tried in this order.
TABLE_BOXES = ((5, 5), (4, 6), (3, 8), (2, 12))
#: Frame widths of dict cores.
DICT_WIDTHS = (8, 16, 32, 64, 128, 256)


class PythonCore:
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

    def __init__(
        self, height: int, width: int, table: bool, line_table: bool = True, symmetry: bool = True
    ) -> None:
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
        def window_moves(key: int, r: int) -> tuple[int, ...]:
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

        def row_moves(p: int, r: int, unit: int) -> tuple[int, ...]:
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

        def img_row(p: int, r: int) -> tuple[int, ...]:
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
        moves = [_Lazy(partial(window_moves, r=r)) for r in range(rows_max)]
        hmoves = [_Lazy(partial(row_moves, r=r, unit=1)) for r in range(rows_max)]
        v2moves = [_Lazy(partial(row_moves, r=r, unit=V2)) for r in range(rows_max)]
        v3moves = [_Lazy(partial(row_moves, r=r, unit=V3)) for r in range(rows_max)]
        img = [_Lazy(partial(img_row, r=r)) for r in range(rows_max)]
        # per (h, w): right shifts that bring each frame image to the origin
        shifts = {}
        offs = {}

        def trans(hh: int, ww: int) -> tuple[int, ...]:
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

        def lane_consts(n: int, nb: int) -> tuple[int, int, int, int]:
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
        def store(S: int, g: int, rows: list[int] | None = None) -> None:
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
        def piece(x: int) -> int:
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

        def unpack(X: int, n: int, nb: int) -> Sequence[int]:
            if nb == 8:
                return array("Q", X.to_bytes(8 * n, "little"))
            b = X.to_bytes(nb * n, "little")
            return [int.from_bytes(b[i : i + nb], "little") for i in range(0, nb * n, nb)]

        # ---- values of positions not in the cache, in one batch ------------
        def split(cs: Sequence[int], h: int) -> list[int]:
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

        def tick() -> None:
            ticks[0] = 0
            if self.limit and self.memory > self.limit:
                raise SolveStopped("memory", f"the solver's tables hold about {self.memory} bytes, past the limit")
            if self.progress is not None:
                self.progress()

        # ---- solving one class ---------------------------------------------
        def solve(S: int) -> int:
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

        def value(key: int) -> int:
            g = look(key)
            if g == UNK:
                g = solve(key)
            return g

        def lookup(key: int) -> int | None:
            g = look(key)
            return None if g == UNK else g

        def load(key: int, g: int) -> None:
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


# --------------------------------------------------------------------------
# The compiled cores
# --------------------------------------------------------------------------

_LOW64 = (1 << 64) - 1


def _stopped_by_limit(error: Exception) -> SolveStopped:
    return SolveStopped("memory", str(error))


def _c_side(name: str) -> Any:
    """An attribute of a compiled core's object on the C side, read and written through."""
    return property(lambda self: getattr(self._core, name), lambda self, value: setattr(self._core, name, value))


class CompiledCore:
    """``termgames._unrail.Core`` behind the interface of :class:`PythonCore`.

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

    # the watch, as PythonCore's: the C side's attributes
    progress = _c_side("progress")
    tick_every = _c_side("tick_every")
    limit = _c_side("limit")


class CompiledStrip(CompiledCore):
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
