"""Game records: versioned JSON files that hold seed + options + seats + moves.

Loading replays every move through the rules, so a corrupt, truncated or
tampered file is refused with :class:`RecordError`, a one-line message that
names the problem.  Writing is atomic: a temporary file in the same folder,
flushed and renamed over the target, so a crash never leaves half a file.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from .match import AI, HUMAN, Match, MoveRecord, SeatInfo
from .paths import write_atomically
from .rules import RuleError, get_game

FORMAT = "termgames-record"
VERSION = 1


class RecordError(Exception):
    """A record that cannot be loaded; ``str()`` is one line naming the problem."""


# --------------------------------------------------------------------------
# dict <-> Match
# --------------------------------------------------------------------------


def to_dict(match: Match) -> dict[str, Any]:
    record: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "game": match.game.name,
        "options": match.options,
        "seats": [
            {"name": seat.name, "kind": seat.kind, **({"level": seat.level} if seat.level else {})}
            for seat in match.seats
        ],
        "seed": match.seed,
        "moves": [
            {"seat": match.seats[record.seat].name, "move": record.move, "time": record.time}
            for record in match.moves
        ],
    }
    result = match.result()
    if result is not None:
        record["result"] = result
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
    if type(version) is not int or version != VERSION:
        raise RecordError(f"record version {version!r} is not supported (this termgames reads version {VERSION})")
    game_name = _need(data, "game", str)
    try:
        game = get_game(game_name)
    except RuleError as error:
        raise RecordError(str(error)) from None
    options = _need(data, "options", dict)
    seed = _need(data, "seed", int)
    seats: list[SeatInfo] = []
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
        seats.append(SeatInfo(name, kind, level if kind == AI else None))
    names = [seat.name for seat in seats]
    moves: list[MoveRecord] = []
    for number, move in enumerate(_need(data, "moves", list), start=1):
        if not isinstance(move, dict):
            raise RecordError(f"move {number} is not an object")
        where = f"move {number}"
        seat_name = _need(move, "seat", str, where)
        if seat_name not in names:
            raise RecordError(f"move {number} is by {seat_name!r}, who has no seat")
        text = _need(move, "move", str, where)
        time = move.get("time", "")
        if not isinstance(time, str):
            raise RecordError(f"'time' in move {number} has the wrong type")
        moves.append(MoveRecord(names.index(seat_name), text, time))
    try:
        match = Match.replay(game, options, seats, seed, moves)
    except RuleError as error:
        raise RecordError(str(error)) from None
    stored = data.get("result")
    actual = match.result()
    if stored is not None and stored != actual:
        if actual is None:
            raise RecordError("the record claims a result but its moves do not finish the game")
        raise RecordError("the record's result does not match its moves (tampered?)")
    return match


# --------------------------------------------------------------------------
# text and files
# --------------------------------------------------------------------------


def dumps(match: Match) -> str:
    return json.dumps(to_dict(match), indent=1, ensure_ascii=False) + "\n"


def loads(text: str) -> Match:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
    except (ValueError, RecursionError) as error:
        # json refuses absurd nesting and huge integers with other errors.
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise RecordError(f"not valid JSON ({reason})") from None
    return from_dict(data)


def load(path: str | os.PathLike[str]) -> Match:
    file = Path(path)
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        raise RecordError(f"{file}: no such file") from None
    except IsADirectoryError:
        raise RecordError(f"{file}: is a folder, not a record") from None
    except OSError as error:
        raise RecordError(f"{file}: {error.strerror or error}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{file}: not a text file") from None
    try:
        return loads(text)
    except RecordError as error:
        raise RecordError(f"{file}: {error}") from None


def save(path: str | os.PathLike[str], match: Match) -> Path:
    """Write the record atomically: the old file stays whole until the new one is complete."""
    file = Path(path)
    # mkstemp makes 0600 files; a record gets the mode a plain open() would give.
    write_atomically(file, dumps(match).encode("utf-8"), mode=_file_mode(file))
    return file


def _file_mode(file: Path) -> int:
    try:
        return file.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def new_save_path(folder: Path, match: Match) -> Path:
    """A fresh file name in ``folder`` for a new game: game, date and players."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    players = "-".join(seat.name for seat in match.seats)
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in players)[:40]
    base = folder / f"{match.game.name}-{stamp}-{safe}.json"
    path, n = base, 2
    while path.exists():
        path = base.with_name(f"{base.stem}-{n}.json")
        n += 1
    return path
