"""The MonUnrail solver's persistent cache: solved shapes kept between runs.

Large unrailing positions take seconds to solve, and a game or a ``termgames
solve`` run meets the same shapes again and again, so the values a
:class:`~termgames.rules.monunrail_solver.Solver` computed are kept in the
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

``$TERMGAMES_SOLVER_CACHE`` names another file, or ``off`` to keep nothing.
The rules layer stays free of I/O: this module only moves the plain data of
``export_cache``/``import_cache`` to and from disk.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

from .paths import data_dir, write_atomically

if TYPE_CHECKING:
    from .rules.monunrail_solver import Solver

CACHE_ENV = "TERMGAMES_SOLVER_CACHE"
FILE_NAME = "monunrail-nimbers.json.gz"
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


def save(solver: Solver, path: Path | None = None, limit: int = MAX_SHAPES) -> int:
    """Merge the solver's shapes into the cache file; the number of shapes written.

    Never raises for a file system that refuses (read-only, full disk): the
    cache is an optimisation, and the old file stays as it was.
    """
    path = path if path is not None else default_path()
    if path is None:
        return 0
    old = _read(path)
    if old is not None:
        # the solver checks the old entries as it takes them in (a damaged
        # file is dropped from there on) and then holds the union
        with contextlib.suppress(ValueError, TypeError):
            solver.import_cache(old)
    data = solver.export_cache()
    # the largest shapes first (they save the most work); the sort is stable
    kept = sorted(data["shapes"], key=lambda entry: -entry[2].bit_count())[: max(0, limit)]
    out = {"format": data["format"], "version": data["version"], "shapes": kept}
    blob = gzip.compress(json.dumps(out, separators=(",", ":")).encode("utf-8"), compresslevel=6, mtime=0)
    try:
        write_atomically(path, blob)
    except OSError:
        return 0
    return len(kept)
