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
no third-party imports: pure Python, plus the optional compiled core
(:mod:`.cores`).  :class:`Solver`
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

The solver's parts: :mod:`.shapes`, positions as sets of cells (their names
and pictures, components, moves, the line table and the mirror rule);
:mod:`.analysis`, what :meth:`Solver.analyse` reports and how a solve stops;
:mod:`.cores`, the searches on bits, pure Python and compiled (how they are
fast is told there); and here :class:`Solver`, which hands each component to
a core, watches the budgets and keeps the cache.

:class:`Solver` uses the compiled core where it is built, unless told
otherwise (``Solver(core="python")``, or the environment variable
``TERMGAMES_PURE_PYTHON=1``); larger components and machines without the
extension use the pure-Python cores.  Both paths give the same values (the
tests compare them); :attr:`Solver.implementation` says which one runs.
"""

from __future__ import annotations

import heapq
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from functools import reduce
from operator import or_, xor

from .analysis import Analysis, ComponentReport, SolveStopped
from .cores import DICT_WIDTHS, TABLE_BOXES, CompiledCore, CompiledStrip, PythonCore, compiled_core_available
from .shapes import Cell, Move, all_moves, as_cells, cell_name, components, line_nimber, mirror_wins, parse_shape

__all__ = [
    "Analysis",
    "Cell",
    "ComponentReport",
    "Move",
    "SolveStopped",
    "Solver",
    "cell_name",
    "compiled_core_available",
    "line_nimber",
    "mirror_wins",
    "parse_shape",
]

CACHE_FORMAT = "monunrail-nimbers"
CACHE_VERSION = 1
#: The first line of :meth:`Solver.dump`'s output (then the caller's tag and a newline).
DUMP_MAGIC = b"MonUnrail solver dump 1"

#: About how many bytes of memory one byte of the cache's JSON takes once parsed (lists of ints).
JSON_COST = 6

#: Set (to anything but "" or "0") to use the pure-Python solver even where
#: the compiled core is built.
PURE_PYTHON_ENV = "TERMGAMES_PURE_PYTHON"


# --------------------------------------------------------------------------
# Shapes as rows of bits (the cache's entries)
# --------------------------------------------------------------------------


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


# --------------------------------------------------------------------------
# The public solver
# --------------------------------------------------------------------------

_AnyCore = PythonCore | CompiledCore


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
        if core == "c" and not compiled_core_available():
            raise RuntimeError("the compiled MonUnrail core (termgames._unrail) is not built")
        if core == "auto":
            core = "c" if compiled_core_available() and os.environ.get(PURE_PYTHON_ENV, "") in ("", "0") else "python"
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
        if self._compiled and lo == CompiledStrip.height and hi <= CompiledStrip.width:
            core = self._cores.get(("strip", 0))
            if core is None:
                core = self._add_core(("strip", 0), CompiledStrip(self._line_table, self._symmetry))
            return core
        if self._compiled and lo <= CompiledCore.height and hi <= CompiledCore.width:
            core = self._cores.get(("c", 0))
            if core is None:
                core = self._add_core(("c", 0), CompiledCore(self._line_table, self._symmetry))
            return core
        if self._tables and not self._compiled:
            for H, W in TABLE_BOXES:
                if lo <= H and hi <= W:
                    key = ("table", H * 100 + W)
                    core = self._cores.get(key)
                    if core is None:
                        core = self._add_core(key, PythonCore(H, W, True, self._line_table, self._symmetry))
                    return core
        for W in DICT_WIDTHS:
            if hi <= W:
                break
        else:
            raise ValueError(f"a component spanning {h} x {w} cells is too large to solve")
        key = ("dict", W)
        core = self._cores.get(key)
        if core is None:
            core = self._add_core(key, PythonCore(W, W, False, self._line_table, self._symmetry))
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
        cells = as_cells(cells)
        if self._symmetry and mirror_wins(cells):
            return 0
        g = 0
        for comp in components(cells):
            g ^= self._component_value(comp)
        return g

    def moves(self, cells: Iterable[Cell]) -> list[Move]:
        """Every legal removal: 1 to 3 tiles in a line of one row or column.

        Each move is a sorted tuple of cells; the list is sorted by size, then
        by cells.
        """
        return all_moves(as_cells(cells))

    def winning_moves(self, cells: Iterable[Cell]) -> list[Move]:
        """The moves that leave a position of value 0 (none if it is 0)."""
        cells = as_cells(cells)
        if self._symmetry and mirror_wins(cells):
            return []
        comps = components(cells)
        values = [self._component_value(k) for k in comps]
        total = reduce(xor, values, 0)
        if not total:
            return []
        out = []
        for comp, g in zip(comps, values):
            want = total ^ g
            for move in all_moves(comp):
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
        result = Analysis(as_cells(cells))
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
        comps = sorted(components(cells), key=lambda k: (len(k), sorted(k)))
        result.components = [ComponentReport(k, moves=len(all_moves(k))) for k in comps]
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
        moves = all_moves(comp)
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
        cells = as_cells(cells)
        if not cells:
            raise ValueError("no tiles left: there is no move")
        if self.nimber(cells):
            raise ValueError("the position is not lost: use winning_moves()")
        best: Move | None = None
        best_key = None
        for move in all_moves(cells):
            rest = cells.difference(move)
            largest = max((len(k) for k in components(rest)), default=0)
            key = (-len(move), largest, len(all_moves(rest)))
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
            if isinstance(core, CompiledCore):
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
            if not (1 <= h <= DICT_WIDTHS[-1] and 1 <= w <= DICT_WIDTHS[-1] and 0 < bits < 1 << (h * w)):
                raise ValueError(f"MonUnrail cache: entry {i} is out of range")
            if not 0 <= g < 255:
                raise ValueError(f"MonUnrail cache: entry {i} has value {g} out of range")
            lo, hi = min(h, w), max(h, w)
            if self._compiled and lo == CompiledStrip.height and hi <= CompiledStrip.width:
                batch = batches["strip"]
            elif self._compiled and lo <= CompiledCore.height and hi <= CompiledCore.width:
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
                assert isinstance(compiled, CompiledCore)  # the batch holds only shapes this core takes
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
            if isinstance(core, CompiledCore):
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

    def load_dump(self, read: Callable[[int], bytes], chunk: int = 1 << 20, size: int | None = None) -> int:
        """Take in what :meth:`dump` wrote (after its tag: see :meth:`dump_tag`); the classes read.

        Raises :class:`ValueError` for data that is not a dump, is cut short or
        holds an entry that is not a class of shapes; what was read before
        stays (it was checked).  A section of a kind this solver does not
        keep (the compiled cores' in a pure-Python solver) is skipped.
        ``size``, the bytes left to read where the caller knows it (a file's
        length): a section that claims more is refused before any room is
        made for it, so a damaged header costs nothing.  Room is made within
        :attr:`memory_limit` (:class:`SolveStopped` "memory" past it).
        """
        import json

        count = 0
        left = size
        cores = {b"C": ("c", (1, 1)), b"S": ("strip", (2, 2))}
        while True:
            head = read(9)
            if not head:
                return count
            if len(head) != 9 or head[:1] not in (b"C", b"S", b"J"):
                raise ValueError("not a MonUnrail solver dump")
            kind, length = head[:1], int.from_bytes(head[1:], "little")
            if left is not None:
                left -= 9
                if length > left:
                    raise ValueError(f"the dump's section claims {length} bytes where {max(0, left)} are left")
                left -= length
            if kind == b"J":
                limit = self._memory_limit
                # parsed, the JSON takes several times its length (lists of ints): check before reading it
                if limit is not None and self.memory + JSON_COST * length > limit:
                    raise SolveStopped("memory", f"the dump's shapes need about {JSON_COST * length} bytes")
                blob = read(length)
                if len(blob) != length:
                    raise ValueError("the dump is cut short")
                count += self.import_cache(json.loads(blob))
                continue
            core: _AnyCore | None = None
            if self._compiled:
                core = self._cores.get((cores[kind][0], 0)) or self._core_for(*cores[kind][1])
            entry = CompiledStrip.dump_entry if kind == b"S" else CompiledCore.dump_entry
            if length % entry:
                raise ValueError("not a MonUnrail solver dump")
            if isinstance(core, CompiledCore):
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
                if isinstance(core, CompiledCore):
                    count += core.load_dump(data)
