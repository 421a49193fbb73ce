"""Game records: versioned JSON files that hold seed + options + seats + moves.

Loading replays every move through the rules, so a corrupt, truncated or
tampered file is refused with :class:`RecordError`, a one-line message that
names the problem.  Writing is atomic: a temporary file in the same folder,
flushed and renamed over the target, so a crash never leaves half a file.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from .clock import Clocks, ClockSpec
from .match import AI, HUMAN, Flag, Match, MoveRecord, Seat
from .paths import FileRefused, bundled_saves, read_regular, write_atomically
from .rules import RuleError, get_game
from .rules.numbers import exact_number
from .untrusted import printable, quoted, shorten_quotes

FORMAT = "termgames-record"
#: Version 2 writes the seed as a string of digits (128-bit seeds round-trip in every JSON reader) and
#: what each random move drew (``drawn``); version 1 (integer seeds, nothing drawn) still loads.
VERSION = 2
#: Version 3 adds clocks: the ``clock`` (its spec, each seat's time left, whose clocks ran), each move's
#: ``clock`` (what its mover had left) and the ``flags`` (seats out of time).  Only a timed game is written
#: as version 3, so that a termgames before clocks refuses it in one line rather than misreading it.
TIMED_VERSION = 3
VERSIONS = (1, 2, 3)
#: The largest record read or written (1 GiB).  A board game's record is tens of kilobytes, but a long Monad
#: match on a large map writes far more (4,500 turns of two random bots on 60 x 60 wrote 256 MB), and what
#: termgames writes it must read back: a record that would be larger is not written (one line says so), a
#: file that is larger is refused in one line before anything is read.  Reading one takes memory several
#: times its size (docs/security.md).
MAX_RECORD_BYTES = 1 << 30


class RecordError(Exception):
    """A record that cannot be loaded; ``str()`` is one line naming the problem."""


class SaveError(RecordError, OSError):
    """A record that cannot be written (a read-only file or folder, a full disk): one line, and an OSError."""


# --------------------------------------------------------------------------
# dict <-> Match
# --------------------------------------------------------------------------


def to_dict(match: Match, now: float | None = None) -> dict[str, Any]:
    """The record of ``match``; a running clock is written as it stands at ``now`` (default: the time now)."""
    record: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION if match.clock is None else TIMED_VERSION,
        "game": match.game.name,
        "options": match.options,
        "seats": [
            {"name": seat.name, "kind": seat.kind, **({"level": seat.level} if seat.level else {})}
            for seat in match.seats
        ],
        "seed": str(match.seed),
        "moves": [
            {
                "seat": match.seats[record.seat].name,
                "move": record.move,
                "time": record.time,
                **({"drawn": record.drawn} if record.drawn is not None else {}),
                **({"clock": round(record.clock, 3)} if record.clock is not None else {}),
            }
            for record in match.moves
        ],
    }
    clocks = match.clocks
    if match.clock is not None and clocks is not None:
        import time

        moment = time.time() if now is None else now
        record["clock"] = {
            "spec": str(match.clock),
            "left": {name: round(clocks.left_at(seat, moment), 3) for seat, name in enumerate(match.names)},
            "running": [match.names[seat] for seat in clocks.running],
        }
        record["flags"] = [
            {"seat": match.names[flag.seat], "ply": flag.ply, "time": flag.time} for flag in match.flags
        ]
    setup = match.setup_drawn()
    if setup is not None:
        record["drawn"] = setup
    result = match.result()
    if result is not None:
        record["result"] = result
    if match.analysis is not None:
        # Kept as it came: termgames.analysis_run checks it against the moves before it is used.
        record["analysis"] = match.analysis
    return record


def _need(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str = "the record") -> Any:
    if key not in data:
        raise RecordError(f"{where} has no {key!r}")
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RecordError(f"{key!r} in {where} has the wrong type")
    return value


def from_dict(data: Any) -> Match:
    """Rebuild and check a match from a parsed record."""
    if not isinstance(data, dict):
        raise RecordError("not a termgames record (the file is not a JSON object)")
    if data.get("format") != FORMAT:
        raise RecordError("not a termgames record (no 'format': 'termgames-record')")
    version = data.get("version")
    if type(version) is not int or version not in VERSIONS:
        shown = quoted(version) if isinstance(version, str) else shorten_quotes(repr(version)[:80])
        raise RecordError(
            f"record version {shown} is not supported (this termgames reads versions 1 to {TIMED_VERSION})"
        )
    game_name = _need(data, "game", str)
    try:
        game = get_game(game_name)
    except RuleError as error:
        raise RecordError(str(error)) from None
    options = _need(data, "options", dict)
    seed = _seed(data, version)
    seats: list[Seat] = []
    for number, seat in enumerate(_need(data, "seats", list), start=1):
        if not isinstance(seat, dict):
            raise RecordError(f"seat {number} is not an object")
        where = f"seat {number}"
        name = _need(seat, "name", str, where)
        kind = seat.get("kind", HUMAN)
        if kind not in (HUMAN, AI):
            raise RecordError(f"seat {number} has an unknown kind {kind!r}")
        level = seat.get("level")
        if kind == AI:
            if level is not None and not isinstance(level, str):
                raise RecordError(f"'level' in seat {number} has the wrong type")
            try:
                level = game.check_level(level)
            except RuleError as error:
                raise RecordError(f"seat {number}: {error}") from None
        seats.append(Seat(name, kind, level if kind == AI else None))
    names = [seat.name or "" for seat in seats]
    moves: list[MoveRecord] = []
    for number, entry in enumerate(_need(data, "moves", list), start=1):
        where = f"move {number}"
        move, seat, time = _seat_entry(entry, where, names, "by")
        text = _need(move, "move", str, where)
        drawn = move.get("drawn")
        if drawn is not None and not isinstance(drawn, str):
            raise RecordError(f"'drawn' in move {number} has the wrong type")
        left = move.get("clock")
        if left is not None and not _seconds(left):
            raise RecordError(f"'clock' in move {number} is not a number of seconds")
        moves.append(MoveRecord(seat, text, time, drawn, None if left is None else float(left)))
    setup = data.get("drawn")
    if setup is not None and not isinstance(setup, str):
        raise RecordError("'drawn' in the record has the wrong type")
    clock, flags, saved = _clock(data, names)
    try:
        match = Match.replay(game, options, seats, seed, moves, clock=clock, flags=flags)
    except RuleError as error:
        raise RecordError(str(error)) from None
    if saved is not None and match.clocks is not None:
        left, running = saved
        if not set(running) <= set(match.clock_seats()):
            raise RecordError("the record's clock runs for a seat that is not to move")
        match.clocks = Clocks(match.clocks.spec, left, running, None, match.clocks.out)
    if version >= 2:
        # Version 2 writes down every random outcome: one that is missing was taken out.
        for number, (kept, played) in enumerate(zip(moves, match.moves), start=1):
            if played.drawn is not None and kept.drawn is None:
                raise RecordError(f"move {number} ({quoted(played.move)}) drew at random; the record does not say what")
        if setup != match.setup_drawn():
            raise RecordError("what the game's setup drew does not match the record's 'drawn' (was the seed changed?)")
    stored = data.get("result")
    actual = match.result()
    if stored is not None and not _same_result(stored, actual):
        if actual is None:
            raise RecordError("the record claims a result but its moves do not finish the game")
        raise RecordError("the record's result does not match its moves (tampered?)")
    # The optional analysis section, as written (an analysis that does not fit is analysed again, never trusted).
    match.analysis = data.get("analysis")
    return match


def _seat_entry(entry: Any, where: str, names: list[str], verb: str) -> tuple[dict[str, Any], int, str]:
    """An entry of a record's list that names a seat and a time (a move, a flag): the entry, its seat, its time."""
    if not isinstance(entry, dict):
        raise RecordError(f"{where} is not an object")
    name = _need(entry, "seat", str, where)
    if name not in names:
        raise RecordError(f"{where} is {verb} {name!r}, who has no seat")
    time = entry.get("time", "")
    if not isinstance(time, str):
        raise RecordError(f"'time' in {where} has the wrong type")
    return entry, names.index(name), time


def _seconds(value: Any) -> bool:
    from .clock import MAX_SECONDS

    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 2 * MAX_SECONDS


def _clock(
    data: dict[str, Any], names: list[str]
) -> tuple[ClockSpec | None, list[Flag], tuple[tuple[float, ...], tuple[int, ...]] | None]:
    """A record's clock: its spec, its flags, and each seat's time left with the seats whose clocks ran."""
    found = data.get("clock")
    if found is None:
        if data.get("flags"):
            raise RecordError("the record has seats out of time but no clock")
        return None, [], None
    if not isinstance(found, dict) or not isinstance(found.get("spec"), str):
        raise RecordError("'clock' in the record is not an object with a 'spec'")
    try:
        spec = ClockSpec.parse(found["spec"])
    except RuleError as error:
        raise RecordError(f"the record's clock: {error}") from None
    flags: list[Flag] = []
    listed = data.get("flags", [])
    if not isinstance(listed, list):
        raise RecordError("'flags' in the record is not a list")
    for number, entry in enumerate(listed, start=1):
        where = f"flag {number}"
        flag, seat, stamp = _seat_entry(entry, where, names, "for")
        flags.append(Flag(seat, _need(flag, "ply", int, where), stamp))
    left_by_name, running_names = found.get("left", {}), found.get("running", [])
    if not isinstance(left_by_name, dict) or not isinstance(running_names, list):
        raise RecordError("the record's clock has no time left per seat")
    if set(left_by_name) != set(names) or not all(_seconds(value) for value in left_by_name.values()):
        raise RecordError("the record's clock does not give each seat's time left in seconds")
    if not all(isinstance(name, str) and name in names for name in running_names):
        raise RecordError("the record's clock runs for a seat that is not there")
    left = tuple(float(left_by_name[name]) for name in names)
    return spec, flags, (left, tuple(sorted(names.index(name) for name in set(running_names))))


def _same_result(stored: Any, actual: dict[str, Any] | None) -> bool:
    """Whether a record's ``result`` is the one its moves give.

    Versions before scores were kept exact wrote each score through a float: a count past 2**53 (Monad's
    units) lost its last digits.  Such a score is still the same score.
    """
    if stored == actual:
        return True
    if actual is None or not isinstance(stored, dict) or set(stored) != set(actual):
        return False
    if stored.get("winners") != actual["winners"]:
        return False
    kept, scores = stored.get("scores"), actual["scores"]
    if not isinstance(kept, dict) or set(kept) != set(scores):
        return False
    return all(kept[name] == score or kept[name] == _through_float(score) for name, score in scores.items())


def _through_float(score: int | float) -> int | float | None:
    """A score as versions before exact scores wrote it (None: too large, they could not write it at all)."""
    try:
        return exact_number(float(score))
    except OverflowError:
        return None


def _seed(data: dict[str, Any], version: int) -> int:
    """Version 1 seeds are JSON integers; version 2 writes them as strings of ASCII digits."""
    if version == 1:
        return int(_need(data, "seed", int))
    text = _need(data, "seed", str)
    digits = text.removeprefix("-")  # --seed takes any integer
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 4000:  # int() reads at most 4300 digits
        raise RecordError("'seed' in the record is not a string of digits")
    return int(text)


# --------------------------------------------------------------------------
# text and files
# --------------------------------------------------------------------------


def dumps(match: Match, now: float | None = None) -> str:
    return json.dumps(to_dict(match, now), indent=1, ensure_ascii=False) + "\n"


def loads(text: str) -> Match:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
    except (ValueError, RecursionError) as error:
        # json refuses absurd nesting and huge integers with other errors.
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise RecordError(f"not valid JSON ({reason})") from None
    try:
        # A \udc80 escape parses to a lone surrogate, which no terminal or file can take: refuse it here.
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        bad = error.object[error.start : error.end]
        raise RecordError(f"the record holds a lone surrogate ({printable(bad)}), which is not text") from None
    return from_dict(data)


def read_bytes(path: str | os.PathLike[str], limit: int = MAX_RECORD_BYTES) -> bytes:
    """The bytes of the record at ``path``: a regular file (a symlink to one is fine) of at most ``limit``
    bytes (:data:`MAX_RECORD_BYTES`); a FIFO, a device or a folder is refused at once with :class:`RecordError`
    (see :func:`~termgames.paths.read_regular`)."""
    try:
        return read_regular(path, limit, what="record")
    except FileRefused as why:
        raise RecordError(f"{Path(path)}: {why}") from None


def load(path: str | os.PathLike[str]) -> Match:
    file = Path(path)
    raw = read_bytes(file)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{file}: not a text file") from None
    del raw  # a long record's bytes need not stay beside its text while it is parsed
    try:
        return loads(text)
    except RecordError as error:
        raise RecordError(f"{file}: {error}") from None


def save(path: str | os.PathLike[str], match: Match, now: float | None = None) -> Path:
    """Write the record atomically: the old file stays whole until the new one is complete (a running clock
    as it stands at ``now``, default the time now).

    A symlink is written through (its target is replaced, the link stays a link); a record the user may
    not write is not replaced, and a folder that cannot be written is one line of :class:`RecordError`.
    """
    file = Path(path)
    target = Path(os.path.realpath(file))
    if target.exists():
        _check_writable(file, target)
    try:
        # mkstemp makes 0600 files; a record gets the mode a plain open() would give.
        text = dumps(match) if now is None else dumps(match, now)
        data = text.encode("utf-8")
        check_size(data)
        write_atomically(target, data, mode=_file_mode(target))
    except OSError as error:
        raise SaveError(f"cannot write {file}: {_why(error, target.parent)}") from None
    return file


def save_analysis(path: str | os.PathLike[str], match: Match, section: Any) -> Path:
    """Write ``section`` (raw JSON: :mod:`termgames.analysis_run` made and checks it) into the record at ``path`` as
    its ``analysis``, atomically and under the record's lock, when the record still holds the moves of ``match``
    (SaveError, one line, when a move was played meanwhile or the file cannot be written)."""
    with locked(path):
        current = load(path)
        if [(m.seat, m.move) for m in current.moves] != [(m.seat, m.move) for m in match.moves]:
            raise SaveError(f"{path}: the game went on while it was analysed; the analysis is not kept")
        current.analysis = section
        return save(path, current)


def check_size(data: bytes) -> None:
    """Refuse (:class:`SaveError`, one line) a record termgames could not read back."""
    if len(data) > MAX_RECORD_BYTES:
        raise SaveError(
            f"the record would be {len(data)} bytes, more than termgames reads back ({MAX_RECORD_BYTES}): not written"
        )


def _check_writable(file: Path, target: Path) -> None:
    """Refuse to replace a record its owner made read-only (replacing it needs only the folder's permission)."""
    try:
        # Opening for writing asks the kernel itself (os.access would answer for the real user, and root).
        handle = os.open(target, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise SaveError(f"cannot write {file}: {_why(error, None)}") from None
    os.close(handle)
    if not stat.S_ISREG(os.stat(target).st_mode):
        raise SaveError(f"cannot write {file}: not a regular file")


def _why(error: OSError, folder: Path | None) -> str:
    if isinstance(error, PermissionError) or error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        if folder is not None:
            return f"the folder {folder} is read-only ({error.strerror})"
        return f"the file is read-only ({error.strerror})"
    return error.strerror or str(error)


def clear_stale_locks(folder: Path) -> int:
    """Remove the lock files left beside the records of ``folder`` by a termgames that kept them (before issue 33,
    one per record); how many went.  Each is taken as a writer takes it (:func:`locked`), so one in use is waited
    for, never removed from under its holder."""
    removed = 0
    for lock_path in sorted(folder.glob(".*.json.lock")):
        record = folder / lock_path.name[1 : -len(".lock")]
        with contextlib.suppress(RecordError), locked(record):
            removed += 1
    return removed


#: How often a writer may find, once it holds a lock, that the holder before it removed that lock file: each time
#: another writer came first, so a handful of writers racing for one record stays far below it.
LOCK_ATTEMPTS = 1000


@contextlib.contextmanager
def locked(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the record's lock: read, apply and write under it, so two writers never lose a move.

    The lock is ``fcntl.flock`` on a sidecar file (``.NAME.lock`` beside the record's target): the record
    itself is replaced by every atomic write, so a lock on it would lock a file that is gone.  A second
    writer waits here and then reads the record the first one wrote.  The holder removes the sidecar as it
    lets go (none stays beside the record); a writer that was waiting on the file removed then holds a lock
    nobody else sees, so it checks, once it holds it, that the file is still the one at that name, and else
    locks again.
    """
    import fcntl

    file = Path(path)
    target = Path(os.path.realpath(file))
    lock_path = target.with_name(f".{target.name}.lock")
    for _attempt in range(LOCK_ATTEMPTS):
        try:
            # A new game's first save may be the first file of its folder (--saves DIR): the write would make
            # the folder, so the lock beside it must too.
            lock_path.parent.mkdir(parents=True, exist_ok=True)
            handle = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
        except OSError as error:
            raise SaveError(f"cannot lock {file}: {_why(error, lock_path.parent)}") from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
            held = os.fstat(handle)
            current = os.stat(lock_path)
        except FileNotFoundError:
            os.close(handle)  # removed by the writer before: its lock is no longer the record's
            continue
        except OSError as error:
            os.close(handle)
            raise SaveError(f"cannot lock {file}: {_why(error, None)}") from None
        if os.path.samestat(held, current):
            break
        os.close(handle)
    else:
        raise SaveError(f"cannot lock {file}: its lock file was replaced {LOCK_ATTEMPTS} times in a row")
    try:
        yield
    finally:
        # Removed before it is let go: whoever locks the name next makes a new one, checked as above.
        with contextlib.suppress(OSError):
            os.unlink(lock_path)
        os.close(handle)  # closing the descriptor releases the lock


def _file_mode(file: Path) -> int:
    try:
        return file.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def new_save_path(folder: Path, match: Match) -> Path:
    """A file name in ``folder`` for a new game (game, date and players) free now: a suggestion, taken only when
    the record is first written (:func:`claim_name`), so two games started in one second never share it."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    players = "-".join(match.names)
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in players)[:40]
    base = folder / f"{match.game.name}-{stamp}-{safe}.json"
    path, n = base, 2
    while path.exists():
        path = base.with_name(f"{base.stem}-{n}.json")
        n += 1
    return path


#: Names tried for one new record before giving up: NAME, NAME-2, ... (a folder with this many games of one
#: second and one set of players is no saves folder).
CLAIM_ATTEMPTS = 1000


def claim_name(path: Path) -> Path:
    """Take ``path`` for a new record, or the first of ``NAME-2``, ``NAME-3`` ... beside it that is free: an empty
    file made with ``O_EXCL``, so no two writers ever take one name.  The record is then written over it."""
    folder, stem, suffix = path.parent, path.stem, path.suffix
    if _among_samples(folder):
        raise SaveError(f"cannot write {path}: that folder holds the samples that ship with termgames (--saves DIR)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SaveError(f"cannot write {path}: {_why(error, folder)}") from None
    for number in range(1, CLAIM_ATTEMPTS + 1):
        candidate = path if number == 1 else folder / f"{stem}-{number}{suffix}"
        try:
            handle = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        except FileExistsError:
            continue
        except OSError as error:
            raise SaveError(f"cannot write {candidate}: {_why(error, folder)}") from None
        os.close(handle)
        return candidate
    raise SaveError(f"cannot write {path}: {CLAIM_ATTEMPTS} records of that name are there already")


def not_yours_to_write(path: Path) -> str:
    """Why the record at ``path`` must not be written in place (a sample that ships with termgames, a read-only
    file, another user's, in a folder that may not be written), or "" when it is the player's own to write."""
    target = Path(os.path.realpath(path))
    if _among_samples(target):
        return "a sample that ships with termgames"
    try:
        info = target.stat()
    except FileNotFoundError:
        return ""
    except OSError as error:
        return error.strerror or str(error)
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return "another user's"
    if not info.st_mode & stat.S_IWUSR:
        return "read-only"
    if not os.access(target.parent, os.W_OK | os.X_OK):
        return "in a folder you may not write"
    return ""


def played_from(path: Path, folder: Path, match: Match) -> tuple[Path, str]:
    """Where a game loaded from ``path`` is saved as it is played, and why when that is not ``path``: a record that
    is not the player's own to write (:func:`not_yours_to_write`) is copied to a new name in ``folder``, the
    player's saves, before anything is written, and the copy is played."""
    why = not_yours_to_write(path)
    if not why:
        return path, ""
    copy = claim_name(new_save_path(folder, match))
    try:
        save(copy, match)
    except RecordError:
        with contextlib.suppress(OSError):
            copy.unlink()
        raise
    return copy, why


def _among_samples(path: Path) -> bool:
    """Whether ``path`` is in the repository's ``saves/`` (or is it), where nothing is ever written."""
    return Path(os.path.realpath(path)).is_relative_to(Path(os.path.realpath(bundled_saves())))
