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

Both files are the user's own, and neither is trusted (issue 32):

* they are opened with ``O_NOFOLLOW`` and must be regular files of this
  user's (a symlink another user planted in a shared folder, another user's
  file, a FIFO, ``/dev/zero`` are ignored), and written by rename in a folder the user owns (a symlink at the
  name is replaced, never written through; a folder someone else owns is not
  written to);
* reading them stays within the solve's memory budget: the caller passes an
  ``afford`` check (``termgames solve``: :meth:`termgames.solver_run.Budget.afford`) that stops
  the run (:class:`SolveStopped` "memory") before a file that would not fit
  is taken in, and the solver's own tables make room only within
  :attr:`Solver.memory_limit`;
* the cache's JSON is read up to :data:`MAX_CACHE_TEXT` bytes once
  uncompressed (a file that holds more is damaged), and every count in the
  resume file's headers is checked against the file's length before room is
  made for it;
* a damaged file is ignored, with one line through the caller's ``warn``.

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
import stat
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

from .paths import data_dir, write_atomically
from .rules.monunrail.solver import JSON_COST, Solver, SolveStopped

#: Says one line about a file that was ignored (the caller prints it).
Warn = Callable[[str], None]
#: ``afford(need, what)`` raises :class:`SolveStopped` ("memory") when ``need`` more bytes would not fit.
Afford = Callable[[int, str], None]

CACHE_ENV = "TERMGAMES_SOLVER_CACHE"
FILE_NAME = "monunrail-nimbers.json.gz"
RESUME_NAME = "monunrail-resume.bin"
#: At most this many shapes are kept (~0.5 MB on disk, ~0.2 s to read).
MAX_SHAPES = 100_000
#: The most JSON read from the cache file, uncompressed: :data:`MAX_SHAPES` shapes take at most about 5.5 MB; a file
#: that holds more was not written by termgames (a gzip bomb must not fill memory).
MAX_CACHE_TEXT = 8 << 20
#: About the bytes one shape takes while the cache is written (its list of ints, its JSON, the gzip).
EXPORT_COST = 250


def default_path() -> Path | None:
    """The cache file: ``$TERMGAMES_SOLVER_CACHE``, else the user data folder's; ``None`` if turned off."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return None if env.strip().lower() == "off" else Path(env).expanduser()
    return data_dir() / FILE_NAME


class UnusableFile(Exception):
    """A file that is there but cannot be used (damaged, not a regular file); ``str()`` says why in one line."""


def _open(path: Path) -> BinaryIO | None:
    """``path`` opened for reading, if it is a regular file (None if there is none); a symlink is not
    followed and anything else (a FIFO, a device, a folder) is refused with :class:`UnusableFile`."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        handle = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as error:
        if os.path.islink(path):
            raise UnusableFile(f"{path} is a symlink: ignored (the solver reads its own files only)") from None
        raise UnusableFile(f"cannot read {path}: {error.strerror or error}") from None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            raise UnusableFile(f"{path} is not a regular file: ignored")
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            # its values are taken on trust: another user's file could make the solver answer wrong
            raise UnusableFile(f"{path} belongs to another user (uid {info.st_uid}): ignored")
        os.set_blocking(handle, True)
    except BaseException:
        os.close(handle)
        raise
    return os.fdopen(handle, "rb")


def _read(path: Path, afford: Afford | None = None) -> dict | None:
    """The cache file's data; None if there is none; :class:`UnusableFile` if it is damaged."""
    handle = _open(path)
    if handle is None:
        return None
    try:
        with handle, gzip.GzipFile(fileobj=handle, mode="rb") as unzipped:
            text = unzipped.read(MAX_CACHE_TEXT + 1)
        if len(text) > MAX_CACHE_TEXT:
            raise UnusableFile(f"{path} holds more than {MAX_CACHE_TEXT >> 20} MB of shapes: damaged, ignored")
        if afford is not None:
            afford(JSON_COST * len(text), f"the solver's cache {path.name}")
        data = json.loads(text.decode("utf-8"))
    except (OSError, EOFError, zlib.error, ValueError, UnicodeDecodeError, RecursionError):
        # unreadable, not gzip, truncated, not JSON, absurdly nested: start cold
        raise UnusableFile(f"{path} is damaged: ignored (the next save rewrites it)") from None
    if not isinstance(data, dict):
        raise UnusableFile(f"{path} is damaged: ignored (the next save rewrites it)")
    return data


def load(solver: Solver, path: Path | None = None, warn: Warn | None = None, afford: Afford | None = None) -> int:
    """Fill ``solver`` from the cache file; the number of shapes read (0 if none or unusable).

    A damaged file is ignored (one line through ``warn``); one that does not fit the memory budget
    (``afford``, and the solver's :attr:`~Solver.memory_limit`) stops with :class:`SolveStopped`.
    """
    path = path if path is not None else default_path()
    if path is None:
        return 0
    try:
        data = _read(path, afford)
    except UnusableFile as why:
        if warn is not None:
            warn(str(why))
        return 0
    if data is None:
        return 0
    try:
        return solver.import_cache(data)
    except (ValueError, TypeError):
        # another version or a damaged entry: entries before it were fine,
        # and the next save rewrites the file whole
        if warn is not None:
            warn(f"{path} is damaged or of another version: ignored (the next save rewrites it)")
        return 0


def save(solver: Solver, path: Path | None = None, limit: int | None = None, afford: Afford | None = None) -> int:
    """Merge the solver's shapes into the cache file; the number of shapes written.

    Never raises for a file system that refuses (read-only, full disk): the
    cache is an optimisation, and the old file stays as it was.  With
    ``afford`` (the memory budget), nothing is written when writing would
    not fit, and a file that does not fit is not read again: the solver's
    own shapes (it took the file in when it started) are written.
    """
    path = path if path is not None else default_path()
    if path is None:
        return 0
    limit = MAX_SHAPES if limit is None else limit
    if afford is not None:
        try:
            afford(EXPORT_COST * min(limit, solver.cache_size), "writing the solver's cache")
        except SolveStopped:
            return 0  # the old file stays; a stopped solve's resume file holds everything anyway
    try:
        old = _read(path, afford)
    except (UnusableFile, SolveStopped):
        old = None  # rewritten whole below
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
        write_atomically(path, blob, private=True)
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
        write_atomically(path, produce, private=True)
    except OSError:
        return 0
    return written


def load_resume(
    solver: Solver, tag: str, path: Path | None = None, warn: Warn | None = None, afford: Afford | None = None
) -> int:
    """Take the resume file into ``solver`` if it is the position ``tag``'s; the shapes read (0 if none).

    A damaged file is read up to its damage (every entry is checked) and
    otherwise ignored, with one line through ``warn``: like the cache, it
    never stops anyone.  One that does not fit the memory budget (``afford``,
    then the solver's :attr:`~Solver.memory_limit` as its tables make room)
    stops with :class:`SolveStopped` ("memory"), before its entries are
    reserved where it can be told from the file's length.
    """
    path = path if path is not None else resume_path()
    if path is None:
        return 0
    try:
        handle = _open(path)
    except UnusableFile as why:
        if warn is not None:
            warn(str(why))
        return 0
    if handle is None:
        return 0
    with handle:
        try:
            if solver.dump_tag(handle.read) != tag:
                return 0
            left = os.fstat(handle.fileno()).st_size - handle.tell()
            if afford is not None:
                # the tables hold at least what the file does (a raw entry is no larger in a table)
                afford(left, f"the resume file {path.name}")
            return solver.load_dump(handle.read, size=left)
        except (OSError, ValueError, RecursionError):
            if warn is not None:
                warn(f"{path} is damaged: ignored (what was read before the damage was checked and stays)")
            return 0
        except MemoryError:
            raise SolveStopped("memory", f"the machine has no memory for the resume file {path.name}") from None


def discard_resume(tag: str, path: Path | None = None) -> None:
    """Delete the resume file if it is the position ``tag``'s (its solve has finished)."""
    path = path if path is not None else resume_path()
    if path is None:
        return
    try:
        handle = _open(path)
        if handle is None:
            return
        with handle:
            mine = Solver.dump_tag(handle.read) == tag
        if mine:
            path.unlink()
    except (OSError, UnusableFile):
        pass
