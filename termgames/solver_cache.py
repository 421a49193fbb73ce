"""The MonUnrail solver's persistent cache: solved shapes kept between runs.

Large unrailing positions take seconds to solve, and a game or a ``termgames
solve`` run meets the same shapes again and again, so the values a
:class:`~termgames.rules.monunrail.solver.Solver` computed are kept in the
user data folder (``monunrail-nimbers.json.gz``, gzipped JSON in the format of
:meth:`Solver.export_cache`, which carries its own version).

* :func:`load` fills a solver from the file.  A missing, corrupt, truncated or
  outdated file is ignored (the solver simply starts cold): a cache must never
  stop anyone from playing.
* :func:`save` merges the solver's shapes with those already in the file
  (taking the file's into the solver), keeps the :data:`MAX_SHAPES` largest (a large shape saves the most work; the
  small ones are quick to solve again) and writes the file atomically (a
  temporary file renamed over the old one), so a crash or a second process
  never leaves half a file behind.

A solve stopped by a budget (``termgames solve --time-limit``/``--max-memory``)
solved far more than the bounded file keeps, and a second run would have to
solve most of it again; so it also leaves a *resume file*
(``monunrail-resume.bin`` beside the cache, :meth:`Solver.dump`'s raw
format): everything it solved, tagged with its position.  A later solve of
the same position takes it in (:func:`load_resume`) and goes on from there;
the run that finishes deletes it (:func:`discard_resume`).  There is one such
file at a time, the last stopped position's; it is as large as the solver's
tables were, within the memory budget.

``$TERMGAMES_SOLVER_CACHE`` names another file, or ``off`` to keep nothing.
The rules layer stays free of I/O: this module only moves the plain data of
``export_cache``/``import_cache`` and the bytes of ``dump``/``load_dump`` to
and from disk.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from .paths import data_dir, write_atomically
from .rules.monunrail.solver import Solver, SolveStopped

CACHE_ENV = "TERMGAMES_SOLVER_CACHE"
FILE_NAME = "monunrail-nimbers.json.gz"
RESUME_NAME = "monunrail-resume.bin"
#: At most this many shapes are kept (~0.5 MB on disk, ~0.2 s to read).
MAX_SHAPES = 100_000


def default_path() -> Path | None:
    """The cache file: ``$TERMGAMES_SOLVER_CACHE``, else the user data folder's; ``None`` if turned off."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return None if env.strip().lower() == "off" else Path(env).expanduser()
    return data_dir() / FILE_NAME


def _read(path: Path) -> dict | None:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, EOFError, zlib.error, ValueError, UnicodeDecodeError, RecursionError):
        # missing, unreadable, not gzip, truncated, not JSON, absurdly nested: start cold
        return None
    return data if isinstance(data, dict) else None


def load(solver: Solver, path: Path | None = None) -> int:
    """Fill ``solver`` from the cache file; the number of shapes read (0 if none or unusable)."""
    path = path if path is not None else default_path()
    if path is None:
        return 0
    data = _read(path)
    if data is None:
        return 0
    try:
        return solver.import_cache(data)
    except (ValueError, TypeError):
        # another version or a damaged entry: entries before it were fine,
        # and the next save rewrites the file whole
        return 0


def save(solver: Solver, path: Path | None = None, limit: int | None = None) -> int:
    """Merge the solver's shapes into the cache file; the number of shapes written.

    Never raises for a file system that refuses (read-only, full disk): the
    cache is an optimisation, and the old file stays as it was.
    """
    path = path if path is not None else default_path()
    if path is None:
        return 0
    limit = MAX_SHAPES if limit is None else limit
    old = _read(path)
    if old is not None:
        # the solver checks the old entries as it takes them in (a damaged
        # file is dropped from there on) and then holds the union; a solver
        # whose tables are at its memory limit keeps what it took in
        with contextlib.suppress(ValueError, TypeError, SolveStopped):
            solver.import_cache(old)
    # the largest shapes first (they save the most work), chosen by the solver without a list of all
    data = solver.export_cache(limit=max(0, limit))
    kept = sorted(data["shapes"], key=lambda entry: -entry[2].bit_count())
    out = {"format": data["format"], "version": data["version"], "shapes": kept}
    blob = gzip.compress(json.dumps(out, separators=(",", ":")).encode("utf-8"), compresslevel=6, mtime=0)
    try:
        write_atomically(path, blob)
    except OSError:
        return 0
    return len(kept)


# --------------------------------------------------------------------------
# The resume file of a solve stopped by a budget
# --------------------------------------------------------------------------


def resume_path() -> Path | None:
    """The resume file, beside the cache file; ``None`` if the cache is turned off."""
    path = default_path()
    return None if path is None else path.with_name(RESUME_NAME)


def position_tag(cells: Iterable[tuple[int, int]]) -> str:
    """What names a position in the resume file: a digest of its cells, moved to the origin."""
    cells = sorted(set(cells))
    if not cells:
        return "empty"
    c0 = min(c for c, _ in cells)
    r0 = min(r for _, r in cells)
    text = ";".join(f"{c - c0},{r - r0}" for c, r in cells)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:24]


def save_resume(solver: Solver, tag: str, path: Path | None = None) -> int:
    """Write everything ``solver`` holds to the resume file for the position ``tag`` (replacing any other);
    the bytes written, 0 if the file system refused (the old file then stays as it was)."""
    path = path if path is not None else resume_path()
    if path is None:
        return 0
    written = 0

    def produce(out: BinaryIO) -> None:
        nonlocal written
        written = solver.dump(out.write, tag)

    try:
        write_atomically(path, produce)
    except OSError:
        return 0
    return written


def load_resume(solver: Solver, tag: str, path: Path | None = None) -> int:
    """Take the resume file into ``solver`` if it is the position ``tag``'s; the shapes read (0 if none).

    A damaged file is read up to its damage (every entry is checked) and
    otherwise ignored: like the cache, it never stops anyone.
    """
    path = path if path is not None else resume_path()
    if path is None:
        return 0
    try:
        with open(path, "rb") as handle:
            if solver.dump_tag(handle.read) != tag:
                return 0
            return solver.load_dump(handle.read)
    except (OSError, ValueError, SolveStopped):
        return 0  # what was read before the damage stays: it was checked


def discard_resume(tag: str, path: Path | None = None) -> None:
    """Delete the resume file if it is the position ``tag``'s (its solve has finished)."""
    path = path if path is not None else resume_path()
    if path is None:
        return
    try:
        with open(path, "rb") as handle:
            mine = Solver.dump_tag(handle.read) == tag
        if mine:
            path.unlink()
    except OSError:
        pass
