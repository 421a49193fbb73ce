"""Running a long MonUnrail solve: its budgets, its progress line and the line that says why it stopped.

The solver (:mod:`termgames.rules.monunrail.solver`) is pure: it calls back
every few tens of milliseconds while it searches and stops when the callback
raises.  This module is what ``termgames solve`` and the game screen's hints
put behind that callback:

* :class:`Budget`: a time limit and a memory budget.  The memory budget is
  checked against the process's resident memory and, before they grow,
  against the solver's own tables (``Solver.memory_limit``, so that a table
  that doubles never overshoots it); by default it is a share of the
  machine's memory, and never more than what the machine has free.
* :class:`ProgressLine`: rich's progress display on standard error, shown
  only on a terminal and only once a solve has taken a moment.
* :func:`stop_report`: the one line that says which budget stopped a solve,
  how far it got and what it knows.

Linux reads ``/proc``; elsewhere the figures degrade to what
:mod:`resource` and :func:`os.sysconf` give, or to none (then only the time
limit and the solver's own tables bound a solve).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .rules.monunrail.solver import Analysis, Move, SolveStopped, cell_name

if TYPE_CHECKING:
    from .rules.monunrail.solver import Solver

#: Exit status of ``termgames solve`` when a budget stopped it.
EXIT_BUDGET = 3
#: The default memory budget: this share of the machine's memory (never more than it has free).
DEFAULT_MEMORY_SHARE = 0.5
#: Seconds a hint on the game screen may take.
HINT_SECONDS = 2.0
#: The progress line appears once a solve has taken this long.
SHOW_AFTER = 0.5
#: The process's memory is read at most this often (seconds); the clock at every call.
MEMORY_EVERY = 0.05

Clock = Callable[[], float]


def monotonic() -> float:
    """The budgets' clock (looked up when a budget starts, so that a test can give it another)."""
    return time.monotonic()

_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_size(text: str) -> int:
    """``"2G"``, ``"1.5 GB"``, ``"500M"``, ``"800MiB"``, ``"4096"`` (bytes) -> bytes; units are powers of 1024.

    Raises :class:`ValueError` with a readable message.
    """
    found = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmgt]?)(?:i?b)?\s*", text.lower())
    if not found:
        raise ValueError(f"{text!r} is not a size: use a number with K, M, G or T (such as 500M or 2G)")
    size = int(float(found[1]) * _UNITS[found[2]])
    if size <= 0:
        raise ValueError(f"{text!r}: the memory budget must be more than nothing")
    return size


def parse_seconds(text: str) -> float:
    """``"90"``, ``"90s"``, ``"2m"``, ``"1.5h"`` -> seconds.  Raises :class:`ValueError` with a readable message."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(s|sec|m|min|h)?\s*", text.lower())
    if not found:
        raise ValueError(f"{text!r} is not a time: use seconds, or a number with s, m or h (such as 90 or 2m)")
    seconds = float(found[1]) * {"m": 60, "min": 60, "h": 3600}.get(found[2] or "s", 1)
    if seconds <= 0:
        raise ValueError(f"{text!r}: the time limit must be more than nothing")
    return seconds


def human_bytes(size: int | float) -> str:
    """1536 * 2**20 -> ``"1.5 GB"`` (powers of 1024, as the budget options read them)."""
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}" if size < 10 * scale else f"{size / scale:.0f} {unit}"
    return f"{int(size)} bytes"


def human_seconds(seconds: float) -> str:
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min"


def machine_memory() -> tuple[int | None, int | None]:
    """The machine's memory and what it has free (MemAvailable), in bytes; None where unknown."""
    total = available = None
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                name, _, rest = line.partition(":")
                if name == "MemTotal":
                    total = int(rest.split()[0]) * 1024
                elif name == "MemAvailable":
                    available = int(rest.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    if total is None:
        try:
            total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (AttributeError, ValueError, OSError):  # no sysconf, or not these names
            total = None
    return total, available


def process_memory() -> int | None:
    """This process's resident memory in bytes (its peak where the current figure is not to be had)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import resource
        import sys

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, KB elsewhere
    except (ImportError, OSError):
        return None


class Budget:
    """A time limit and a memory budget for a solve; :meth:`check` raises :class:`SolveStopped` past either.

    ``seconds``: None for no time limit.  ``memory``: bytes, None for the
    default (:data:`DEFAULT_MEMORY_SHARE` of the machine's memory).  Either
    way the budget is never more than the machine has free: what this
    process holds plus what is available, read again as the solve goes.
    """

    def __init__(self, seconds: float | None = None, memory: int | None = None, clock: Clock | None = None) -> None:
        self.seconds = seconds
        self.clock = clock if clock is not None else monotonic
        self.start = self.clock()
        total, _ = machine_memory()
        self.wanted = memory if memory is not None else (int(total * DEFAULT_MEMORY_SHARE) if total else None)
        #: The memory budget in bytes (None: unknown, not checked); :meth:`check` lowers it to what is free.
        self.memory = self.wanted
        #: Whether the machine's free memory, not the budget asked for, set :attr:`memory`.
        self.capped = False
        self._held = 0  # the process's resident memory at the last look
        self._looked = float("-inf")
        self._look_at_memory(force=True)

    def elapsed(self) -> float:
        return self.clock() - self.start

    def _look_at_memory(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._looked < MEMORY_EVERY:
            return
        self._looked = now
        held = process_memory()
        self._held = held or 0
        _, available = machine_memory()
        if held is not None and available is not None:
            free = held + available
            if self.wanted is None or free < self.wanted:
                self.memory, self.capped = free, True
            else:
                self.memory, self.capped = self.wanted, False

    @property
    def held(self) -> int:
        """The process's resident memory at the last look (bytes; 0 if unknown)."""
        return self._held

    def check(self, solver: Solver) -> None:
        """Raise :class:`SolveStopped` ("time" or "memory") once a budget is spent; else share what is left of
        the memory budget with the solver's tables (they stop before they would grow past it)."""
        if self.seconds is not None and self.elapsed() >= self.seconds:
            raise SolveStopped("time", f"the time limit of {human_seconds(self.seconds)} was reached")
        self._look_at_memory()
        if self.memory is None:
            return
        if self._held > self.memory:
            raise SolveStopped("memory", f"the process holds {human_bytes(self._held)}")
        self.limit_tables(solver)

    def limit_tables(self, solver: Solver) -> None:
        """Give the solver's tables what the rest of the process does not hold of the memory budget."""
        if self.memory is not None:
            # what is not the solver's (Python, the program) stays; the rest of the budget is for its tables
            solver.memory_limit = max(1, self.memory - max(0, self._held - solver.memory))

    def afford(self, solver: Solver, need: int, what: str) -> None:
        """Raise :class:`SolveStopped` ("memory") if ``need`` more bytes would take the process past the
        memory budget: for what is read before the solve starts (the solver's cache and resume files); else
        limit the solver's tables to the rest, as they make room for it."""
        self._look_at_memory(force=True)
        if self.memory is not None and self._held + need > self.memory:
            raise SolveStopped("memory", f"{what} needs about {human_bytes(need)}")
        self.limit_tables(solver)

    def describe(self, limit: str) -> str:
        """``"the time limit (2.0 s)"``, ``"the memory budget (1.5 GB, what the machine had free)"``."""
        if limit == "time" and self.seconds is not None:
            return f"the time limit ({human_seconds(self.seconds)})"
        if limit == "memory" and self.memory is not None:
            free = ", what the machine had free" if self.capped else ""
            return f"the memory budget ({human_bytes(self.memory)}{free})"
        return f"the {limit} limit"


class ProgressLine:
    """The progress of a long solve on standard error (rich's progress display), once it has taken a moment.

    ``enabled`` False (not a terminal, ``--json``) makes every call a no-op.
    The line goes away when the solve ends.
    """

    def __init__(self, enabled: bool, solver: Solver, budget: Budget) -> None:
        self.enabled = enabled
        self.solver = solver
        self.budget = budget
        self.start_size = solver.cache_size
        self._progress: Any = None
        self._task: Any = None

    def update(self, analysis: Analysis) -> None:
        if not self.enabled or self.budget.elapsed() < SHOW_AFTER:
            return
        if self._progress is None:
            from rich.console import Console
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task("")
        self._progress.update(self._task, description=self.describe(analysis))

    def describe(self, analysis: Analysis) -> str:
        solved = self.solver.cache_size
        parts = [_where(analysis), f"{max(0, solved - self.start_size):,} positions solved", f"cache {solved:,}"]
        if self.budget.held:
            parts.append(human_bytes(self.budget.held))
        return "solving: " + " · ".join(parts)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def box_name(cells: frozenset) -> str:
    """The corners of the bounding box of some cells: ``"B2-E5"`` (one name for a single cell)."""
    cols = [c for c, _ in cells]
    rows = [r for _, r in cells]
    first, last = cell_name((min(cols), min(rows))), cell_name((max(cols), max(rows)))
    return first if first == last else f"{first}-{last}"


def describe_component(cells: frozenset) -> str:
    """``"the 12-tile component at B2-E5"``."""
    return f"the {len(cells)}-tile component at {box_name(cells)}"


def _where(analysis: Analysis) -> str:
    current = analysis.working_on()
    total = len(analysis.components)
    if current is not None:
        where = f"component {analysis.components.index(current) + 1} of {total}, " if total > 1 else ""
        return f"{where}move {min(len(current.children) + 1, current.moves)} of {current.moves}"
    return f"winning moves: {analysis.moves_checked} of {analysis.moves} moves checked"


def move_text(move: Move) -> str:
    return "+".join(cell_name(cell) for cell in sorted(move))


def stop_report(stop: SolveStopped, budget: Budget, solver: Solver, start_size: int) -> str:
    """The one line that says which budget stopped a solve, how far it got and what it knows."""
    solved = max(0, solver.cache_size - start_size)
    head = (
        f"stopped at {budget.describe(stop.limit)} after {human_seconds(budget.elapsed())}, "
        f"{solved:,} positions solved"
    )
    analysis = stop.analysis
    if analysis is None:
        return head
    known: list[str] = []
    winning = analysis.sure_winning_moves()
    if analysis.nimber is not None:
        known.append(f"the nimber is {analysis.nimber}: the player to move wins")
        if winning:
            known.append(f"{len(winning)} winning move{'s' if len(winning) > 1 else ''} found so far ("
                         f"{', '.join(move_text(m) for m in winning[:5])}{', ...' if len(winning) > 5 else ''})")
        known.append(f"{analysis.moves_checked} of {analysis.moves} moves checked")
        return head + "; " + "; ".join(known)
    done = [k for k in analysis.components if k.value is not None]
    if done:
        values = ", ".join(f"{box_name(k.cells)} = {k.value}" for k in done)
        known.append(f"{len(done)} of {len(analysis.components)} components valued ({values})")
    current = analysis.working_on()
    if current is not None:
        floor = current.floor
        excluded = sorted(v for v in set(current.children.values()) if v > floor)
        bound = f"its nimber is at least {floor}" if floor else "its nimber is not known yet"
        if excluded:
            bound += f" and not {', '.join(map(str, excluded[:6]))}{', ...' if len(excluded) > 6 else ''}"
        known.append(f"{describe_component(current.cells)}: {len(current.children)} of {current.moves} moves "
                     f"valued, {bound}")
    if winning:
        known.append(f"the player to move wins: {move_text(winning[0])} leaves 0")
    return head + ("; " + "; ".join(known) if known else "")
