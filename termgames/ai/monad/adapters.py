"""Bot adapters: every kind of Monad bot behind one small interface.

The match runner drives a :class:`BotAdapter` per seat::

    adapter.start(seat, names, board)   # once, before the first turn
    adapter.send(board)                 # each turn, to every seat first ...
    answer = adapter.receive()          # ... then collect: list[Command] or Fault
    adapter.close()                     # always (kills a bot's processes)

``send`` then ``receive`` lets the programs of all seats think at the same
time; :meth:`BotAdapter.turn` does both for one seat.  A :class:`Fault` is a
turn lost (late, crashed, garbage, an error raised, too much output, not
reading its input, out after a crash): the runner records it as the move
``fault REASON`` and the match goes on.

Kinds (:func:`make_adapter` turns a BOT argument of ``termgames monad match``
into one):

* a built-in name (``random``, ``greedy``, ``swarm``): in-process, on the board;
* a ``.py`` file defining ``turn(observation)`` (or a class with that method):
  run by :mod:`.pyrunner` in a process of its own, given the observation dict
  (:func:`termgames.rules.monad.observation`), with the limits of any program;
* ``monad1:DIR``: a bot of the original platform, ``DIR/bot.py`` run with this
  Python, speaking the original devkit's msgpack protocol;
* anything else is a command line: a program of any language reading one JSON
  observation a line on stdin and answering one JSON line of commands.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]  # msgpack ships no type information

from ...rules.monad.board import Board, board_json
from ...rules.monad.notation import Command, coerce_command, parse_commands
from .process import (
    MAX_MESSAGE,
    BotBacklog,
    BotExited,
    BotIOError,
    BotOversize,
    BotProcess,
    BotTimeout,
)

#: Per-turn time limit and start-up limit (seconds), as the issue sets them.
TURN_LIMIT = 1.0
START_LIMIT = 10.0
#: A program that has not answered for this many turns in a row is stopped (it would cost a limit a turn).
MAX_OWED = 3
#: Longest fault reason kept in a record.
_REASON_LENGTH = 160
#: How long a program whose output ended is given to be reaped, so that its exit status can be told.
_EXIT_WAIT = 1.0
#: The runner of ``.py`` bots (run by path with the standard library only: no termgames import to pay for).
PYRUNNER = Path(__file__).resolve().with_name("pyrunner.py")

#: The original devkit's direction numbers (game/params.py), 7 being "none".
MONAD1_DIRECTIONS = {1: "E", 2: "W", 3: "NE", 4: "NW", 5: "SE", 6: "SW"}
MONAD1_NONE = 7


@dataclass(frozen=True)
class Fault:
    """A turn lost by a bot; ``reason`` is one short line (it ends up in the record)."""

    reason: str

    @staticmethod
    def of(reason: str) -> Fault:
        # One line, no ';' (the move notation's separator), bounded.
        text = " ".join(reason.replace(";", ",").split())
        if len(text) > _REASON_LENGTH:
            text = text[: _REASON_LENGTH - 3] + "..."
        return Fault(text or "fault")


Answer = list[Command] | Fault


class BotAdapter(ABC):
    """One seat's bot, whatever its kind (see the module's notes)."""

    #: A name for the seat (no spaces, commas or colons).
    name: str = "bot"
    #: What the bot is, for summaries ("built-in greedy", "monad1:sample/random").
    description: str = ""

    def __init__(self) -> None:
        self.seat = 0
        self.names: tuple[str, ...] = ()
        #: Seconds spent waiting for (or computing) this bot's answers, start-up included.
        self.seconds = 0.0
        #: Turns lost, by reason kind ("late", "crashed", ...).
        self.faults = 0

    def start(self, seat: int, names: Sequence[str], board: Board) -> None:
        self.seat = seat
        self.names = tuple(names)

    def launch(self, seat: int, names: Sequence[str], board: Board) -> None:
        """:meth:`start` without waiting for the bot: the runner launches every seat, then waits for each
        (:meth:`ready`), so that bots load at the same time."""
        self.start(seat, names, board)

    def ready(self) -> None:  # noqa: B027 -- a hook: most bots are ready once started
        """Wait until a launched bot can play (BotLoadError when it cannot)."""

    @abstractmethod
    def send(self, board: Board) -> None:
        """Give the bot the position at the start of a turn."""

    @abstractmethod
    def receive(self) -> Answer:
        """The bot's commands for the turn last sent, or the fault that lost it."""

    def turn(self, board: Board) -> Answer:
        self.send(board)
        return self.receive()

    def close(self) -> None:  # noqa: B027 -- a hook: most adapters hold nothing to release
        """Release the bot (kill its processes); safe to call twice."""


# --------------------------------------------------------------------------
# In-process bots
# --------------------------------------------------------------------------


def commands_from(value: Any) -> list[Command]:
    """Read a bot's answer: a list of commands (Command, list, dict or text), notation text, or None.

    Raises ValueError with a short reason when the answer cannot be read.
    """
    if value is None:
        return []
    if isinstance(value, str):
        return parse_commands(value)
    if isinstance(value, dict) and "commands" in value:
        value = value["commands"]
    if not isinstance(value, (list, tuple)):
        # ValueError, not TypeError: one error kind for every unreadable answer
        raise ValueError(f"expected a list of commands, got {type(value).__name__}")
    return [coerce_command(item) for item in value]


class StrategyBot(BotAdapter):
    """A built-in strategy, called on the board itself (no observation dict: fast)."""

    def __init__(self, name: str, decide: Callable[[Board, int], list[Command]]) -> None:
        super().__init__()
        self.name = name
        self.description = f"built-in {name}"
        self._decide = decide
        self._board: Board | None = None

    def send(self, board: Board) -> None:
        self._board = board

    def receive(self) -> Answer:
        assert self._board is not None
        began = time.perf_counter()
        try:
            return self._decide(self._board, self.seat)
        finally:
            self.seconds += time.perf_counter() - began


class BotLoadError(Exception):
    """A bot that cannot be set up (missing file, no turn function, unknown name); one line."""


# --------------------------------------------------------------------------
# Programs (subprocesses)
# --------------------------------------------------------------------------


class ProgramBot(BotAdapter):
    """A bot program: the common part of the JSON-lines and monad1 protocols.

    The first answer may take the start-up limit, the others the turn limit.
    A late answer is skipped when it comes (the program's answers stay in step
    with the turns); a program owing :data:`MAX_OWED` answers is stopped.  A
    program whose output ends is out for good (``crashed``).
    """

    def __init__(
        self,
        argv: Sequence[str],
        folder: Path,
        turn_limit: float = TURN_LIMIT,
        start_limit: float = START_LIMIT,
        max_message: int = MAX_MESSAGE,
    ) -> None:
        super().__init__()
        self.process = BotProcess(argv, folder, max_message)
        self.turn_limit = turn_limit
        self.start_limit = start_limit
        self._sent_at = 0.0
        self._limit = start_limit
        self._owed = 0
        self._out: str | None = None
        #: Why the program is stopped at the next receive (found while sending).
        self._halt: str | None = None

    @property
    def out(self) -> str | None:
        """Why the program no longer plays (None while it does)."""
        return self._out

    def start(self, seat: int, names: Sequence[str], board: Board) -> None:
        super().start(seat, names, board)
        try:
            self.process.start()
        except BotIOError as error:
            self._out = str(error)

    def send(self, board: Board) -> None:
        self._sent_at = time.monotonic()
        if self._out is None and self._halt is None:
            try:
                self.process.send(self.encode(board))
            except BotBacklog as error:
                self._halt = f"stopped: {error}"
                self.process.close()  # what waits for it goes now, not at the next receive

    def receive(self) -> Answer:
        if self._halt is not None:
            reason, self._halt = self._halt, None
            return self._stop(reason)
        if self._out is not None:
            self.faults += 1
            return Fault.of(f"out: {self._out}")
        limit = self._limit
        deadline = self._sent_at + limit
        try:
            while self._owed:
                self.read_message(deadline)  # the answer to a turn already lost
                self._owed -= 1
            message = self.read_message(deadline)
        except BotTimeout:
            self._owed += 1
            if self._owed >= MAX_OWED:
                return self._stop(f"stopped: no answer for {self._owed} turns")
            return self._lost(f"late: no answer within {limit:g} s")
        except BotOversize as error:
            return self._lost(f"too much output: {error}")
        except BotExited:
            return self._stop(self._crash_reason())
        except BotIOError as error:
            return self._stop(f"garbage: {error}")
        finally:
            self.seconds += time.monotonic() - self._sent_at
        self._limit = self.turn_limit
        try:
            return self.decode(message)
        except BotTurnError as error:
            return self._lost(f"error: {error}")
        except Exception as error:
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            return self._lost(f"garbage: {reason}")

    def _lost(self, reason: str) -> Fault:
        self._limit = self.turn_limit
        self.faults += 1
        return Fault.of(reason)

    def _stop(self, reason: str) -> Fault:
        self.faults += 1
        self._out = reason
        self.process.close()
        return Fault.of(reason)

    def _crash_reason(self) -> str:
        # Give the program a moment to be reaped so the exit status is known (its supervisor ends its
        # box first: a busy machine may take a while).
        status = None
        give_up = time.monotonic() + _EXIT_WAIT
        while status is None and time.monotonic() < give_up:
            status = self.process.exit_status()
            if status is None:
                time.sleep(0.005)
        tail = self.process.stderr_tail()
        if status == 0:
            return "ended: the program exited (status 0) before the match was over"
        said = f" ({'exit status ' + str(status) if status is not None else 'output closed'})"
        return f"crashed{said}" + (f": {tail}" if tail else "")

    def close(self) -> None:
        self.process.close()

    @abstractmethod
    def encode(self, board: Board) -> bytes:
        """The bytes that give the program a turn's position."""

    @abstractmethod
    def read_message(self, deadline: float) -> bytes:
        """One answer from the program (raises BotIOError subclasses)."""

    @abstractmethod
    def decode(self, message: bytes) -> list[Command]:
        """The commands in an answer (ValueError/TypeError/RuleError when unreadable)."""


class BotTurnError(Exception):
    """The bot's code raised while it played a turn (the text says what)."""


class JsonLinesBot(ProgramBot):
    """A program reading one JSON observation a line on stdin and answering one JSON line."""

    #: (board, names, the board's JSON) of the last encoding, shared by the seats of a match.
    _encoded: tuple[Board, tuple[str, ...], bytes] | None = None

    def encode(self, board: Board) -> bytes:
        """:func:`observation` as one JSON line; the board's part is encoded once a turn for every seat."""
        names = self.names
        cached = JsonLinesBot._encoded
        if cached is None or cached[0] is not board or cached[1] != names:
            body = json.dumps(board_json(board, names), separators=(",", ":")).encode("utf-8")
            cached = JsonLinesBot._encoded = (board, names, body)
        seat = {"seat": self.seat, "me": names[self.seat], "players": list(names)}
        # observation() is board_json() with these keys after the board's: the same object, key for key
        return cached[2][:-1] + b"," + json.dumps(seat, separators=(",", ":")).encode("utf-8")[1:] + b"\n"

    def read_message(self, deadline: float) -> bytes:
        return self.process.read_line(deadline)

    @staticmethod
    def json_of(message: bytes) -> Any:
        try:
            return json.loads(message)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
            raise ValueError(f"not JSON ({error})") from None


class JsonProgramBot(JsonLinesBot):
    """Any language: one JSON observation a line on stdin, one JSON line of commands back.

    An answer is a JSON list of commands, each ``[x, y, n, "MOVE", "NE"]``,
    ``{"x":..,"y":..,"n":..,"action":..,"direction":..}`` or ``"3,4 2 MOVE NE"``;
    or a JSON string in the move notation; or ``{"commands": [...]}``.
    """

    def __init__(self, command: str | Sequence[str], folder: Path | None = None, **limits: Any) -> None:
        argv, folder_found = program_argv(command)
        super().__init__(argv, folder or folder_found, **limits)
        files = [Path(word) for word in argv[1:] if Path(word).is_file()]
        self.name = _seat_name(files[0].stem if files else Path(argv[0]).name)
        self.description = " ".join(shlex.quote(word) for word in argv)

    def decode(self, message: bytes) -> list[Command]:
        return commands_from(self.json_of(message))


class PythonFileBot(JsonLinesBot):
    """A ``.py`` file with ``turn(observation)``, or a class with a ``turn`` method, in a process of its own.

    :mod:`.pyrunner` loads the file in a Python of termgames' (the bot imports
    what termgames could) and speaks JSON lines for it, so the file gets the
    limits of any program: an answer later than the limit is skipped, an
    endless loop is stopped after three turns, and whatever ``turn`` raises
    (``SystemExit`` and ``KeyboardInterrupt`` included) loses that turn only
    (``error: ...``).  :meth:`start` waits for the file to load: a file that
    cannot load, or takes longer than the start-up limit, is a
    :class:`BotLoadError`; the load's time counts toward the first turn's
    limit.
    """

    def __init__(
        self,
        path: Path,
        turn_limit: float = TURN_LIMIT,
        start_limit: float = START_LIMIT,
        max_message: int = MAX_MESSAGE,
    ) -> None:
        self.path = Path(path)
        script = self.path.expanduser().absolute()
        search = os.pathsep.join(entry for entry in sys.path if entry)
        # -P: the runner's own imports are not looked up among termgames' modules next to it (match.py...)
        argv = [sys.executable, "-P", str(PYRUNNER), str(script), search]
        super().__init__(argv, script.parent, turn_limit, start_limit, max_message)
        self.name = _seat_name(self.path.stem)
        self.description = str(path)
        self._launched = 0.0
        self._loaded = False

    def start(self, seat: int, names: Sequence[str], board: Board) -> None:
        self.launch(seat, names, board)
        self.ready()

    def launch(self, seat: int, names: Sequence[str], board: Board) -> None:
        super().start(seat, names, board)
        self._launched = time.monotonic()
        self._loaded = False

    def ready(self) -> None:
        if self._loaded:
            return
        began = self._launched
        problem = self._out
        if problem is None:
            try:
                hello = self.json_of(self.process.read_line(began + self.start_limit))
            except BotTimeout:
                problem = f"not loaded within {self.start_limit:g} s (the start-up limit)"
            except BotExited:
                problem = self._crash_reason()
            except (BotIOError, ValueError) as error:
                problem = f"garbage while loading: {error}"
            else:
                if not (isinstance(hello, dict) and hello.get("ready") is True):
                    said = hello.get("load_error") if isinstance(hello, dict) else None
                    problem = str(said) if said else "garbage while loading"
            finally:
                self.seconds += time.monotonic() - began
        if problem is not None:
            self.close()
            raise BotLoadError(f"{self.path}: {' '.join(problem.split())}")
        self._loaded = True
        self._limit = max(self.start_limit - (time.monotonic() - began), self.turn_limit)

    def decode(self, message: bytes) -> list[Command]:
        answer = self.json_of(message)
        if not isinstance(answer, dict):
            raise ValueError("not an answer of the runner")
        if "error" in answer:
            raise BotTurnError(str(answer["error"]))
        if "garbage" in answer:
            raise ValueError(str(answer["garbage"]))
        return commands_from(answer.get("commands"))


def program_argv(command: str | Sequence[str]) -> tuple[list[str], Path]:
    """A command line as argv, with its files made absolute, and the folder to run it in.

    The folder is that of the bot's own file: the first argument naming an
    existing file (``python3 bots/mine.py``: ``bots``), else the program itself
    when it is named by a path (``./mybot``), else the current folder.  The
    interpreter's folder is never taken for the bot's.
    """
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    if not argv:
        raise BotLoadError("an empty bot command")
    result = [argv[0]]
    folder: Path | None = None
    for word in argv[1:]:
        path = Path(word).expanduser()
        if path.is_file():
            resolved = path.absolute()
            folder = folder or resolved.parent
            result.append(str(resolved))
        else:
            result.append(word)
    program = Path(argv[0]).expanduser()
    if "/" in argv[0]:
        if not program.is_file():
            raise BotLoadError(f"{argv[0]}: no such program")
        result[0] = str(program.absolute())
        folder = folder or program.absolute().parent
    elif shutil.which(argv[0]) is None:
        raise BotLoadError(f"no bot named {argv[0]!r}: not a built-in bot, a .py file, monad1:DIR or a program")
    return result, folder or Path.cwd()


class Monad1Bot(ProgramBot):
    """A bot of the original platform: ``DIR/bot.py`` speaking the original devkit's protocol.

    Each message is a 4-byte little-endian length then msgpack (``game/Bot.py``
    packs the length with ``struct`` in native order, little-endian on the
    machines it ran on).  At start the bot gets its player id (0-based, the
    seat), the number of players and its parameter list (empty).  Each turn:
    ``{"m": rows (top row first) of cells, "r": [resources per player], "w":
    W, "h": H}``, a cell ``{"o": true}`` for an obstacle, else optional ``"b"``
    (hive owner), ``"r"`` (resources, sent only when it changed since the last
    turn sent, as the original logger does), ``"u"`` and ``"p"`` (units and
    their owner).  The answer is a list of ``{"l": [x, y], "c": "MOVE"|"MINE"|
    "BUILD", "d": 1-7, "n": units}``.

    Read-but-void commands of the original are skipped as the original
    engine skips them: a MOVE in direction 7 (none) and a command for fewer
    than one unit.  Unit counts beyond msgpack's 64 bits are sent as the
    largest 64-bit number.
    """

    def __init__(self, folder: Path, **limits: Any) -> None:
        folder = Path(folder).expanduser().resolve()
        if not (folder / "bot.py").is_file():
            raise BotLoadError(f"monad1:{folder}: no bot.py in that folder")
        super().__init__([sys.executable, "bot.py"], folder, **limits)
        self.name = _seat_name(folder.name)
        self.description = f"monad1:{folder}"
        self._resources: tuple[int, ...] | None = None
        self._blank: list[dict[str, Any]] | None = None

    def start(self, seat: int, names: Sequence[str], board: Board) -> None:
        super().start(seat, names, board)
        if self._out is None:
            self.process.send(_frame(seat) + _frame(len(names)) + _frame([]))

    def encode(self, board: Board) -> bytes:
        # Every seat usually gets the same bytes (same board, same resources sent before): encode once a turn.
        cached = Monad1Bot._encoded
        if cached is not None and cached[0] is board and cached[1] is self._resources:
            self._resources = board.resources
            return cached[2]
        previous = self._resources
        data = _frame(self.state(board))
        Monad1Bot._encoded = (board, previous, data)
        return data

    #: (board, resources last sent, frame) of the last encoding, shared by the seats of a match.
    _encoded: tuple[Board, tuple[int, ...] | None, bytes] | None = None

    def state(self, board: Board) -> dict[str, Any]:
        """The turn's message; ``"r"`` only for cells whose resources changed since the last one sent."""
        width, height = board.width, board.height
        hive, owner, units, resources = board.hive, board.owner, board.units, board.resources
        last = self._resources
        if self._blank is None or len(self._blank) != width * height:
            self._blank = [_OBSTACLE if blocked else _EMPTY for blocked in board.obstacle]
        cells: list[dict[str, Any]] = list(self._blank)
        if last is None:
            changed: Iterable[int] = (i for i, blocked in enumerate(board.obstacle) if not blocked)
        elif last is resources:
            changed = ()
        else:
            changed = [i for i, (before, now) in enumerate(zip(last, resources)) if before != now]
        special = set(changed)
        special.update(board.occupied)
        special.update(board.hive_cells)
        for index in special:
            if board.obstacle[index]:
                continue
            cell: dict[str, Any] = {}
            if hive[index] >= 0:
                cell["b"] = hive[index]
            if last is None or last[index] != resources[index]:
                cell["r"] = resources[index]
            if owner[index] >= 0 and units[index] > 0:
                cell["u"] = min(units[index], _INT64)
                cell["p"] = owner[index]
            cells[index] = cell
        self._resources = resources
        rows = [cells[y * width : (y + 1) * width] for y in range(height)]
        return {"m": rows, "r": [min(bank, _INT64) for bank in board.bank], "w": width, "h": height}

    def read_message(self, deadline: float) -> bytes:
        return self.process.read_frame(deadline)

    def decode(self, message: bytes) -> list[Command]:
        value = msgpack.unpackb(message, raw=False, strict_map_key=False)
        return monad1_commands(value)


_INT64 = (1 << 63) - 1
#: Shared cell messages (msgpack packs an object as often as it appears).
_EMPTY: dict[str, Any] = {}
_OBSTACLE: dict[str, Any] = {"o": True}


def _frame(value: Any) -> bytes:
    body: bytes = msgpack.packb(value, use_bin_type=True)
    return len(body).to_bytes(4, "little", signed=True) + body


def monad1_commands(value: Any) -> list[Command]:
    """The commands of an original-protocol answer (ValueError naming the first unreadable one)."""
    if not isinstance(value, (list, tuple)):
        # ValueError, not TypeError: one error kind for every unreadable answer
        raise ValueError(f"expected a list of commands, got {type(value).__name__}")
    commands = []
    for number, item in enumerate(value, start=1):
        if not isinstance(item, dict):
            raise ValueError(f"command {number} is not a map")  # ValueError here too, as above
        try:
            location, action, direction, count = item["l"], item["c"], item.get("d", MONAD1_NONE), item["n"]
        except KeyError as error:
            raise ValueError(f"command {number} has no {error.args[0]!r}") from None
        if not isinstance(location, (list, tuple)) or len(location) != 2 or not all(_is_int(v) for v in location):
            raise ValueError(f"command {number}: 'l' is not [x, y]")
        if action not in ("MOVE", "MINE", "BUILD"):
            raise ValueError(f"command {number}: unknown command {action!r}")
        if not _is_int(count) or (direction is not None and not _is_int(direction)):
            raise ValueError(f"command {number}: 'n' and 'd' must be whole numbers")
        if direction is not None and direction not in MONAD1_DIRECTIONS and direction != MONAD1_NONE:
            raise ValueError(f"command {number}: direction {direction} is not 1-7")
        if count < 1:
            continue  # the original engine ignores commands for no units
        x, y = int(location[0]), int(location[1])
        if action == "MOVE":
            if direction is None or direction == MONAD1_NONE:
                continue  # a move to where the units are: nothing happens in the original either
            commands.append(Command(x, y, int(count), "MOVE", MONAD1_DIRECTIONS[direction]))
        else:
            commands.append(Command(x, y, int(count), action))
    return commands


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# --------------------------------------------------------------------------
# BOT arguments
# --------------------------------------------------------------------------


def _seat_name(text: str) -> str:
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in text).strip("_") or "bot"
    return name[:24]


def make_adapter(
    spec: str, seed: int = 0, turn_limit: float = TURN_LIMIT, start_limit: float = START_LIMIT
) -> BotAdapter:
    """The adapter for a BOT argument (see the module's notes); BotLoadError when it names nothing usable."""
    from . import STRATEGIES, make_strategy

    text = spec.strip()
    if text.lower() in STRATEGIES:
        return StrategyBot(text.lower(), make_strategy(text.lower(), seed).decide)
    if text.startswith("monad1:"):
        return Monad1Bot(Path(text[len("monad1:") :]), turn_limit=turn_limit, start_limit=start_limit)
    if text.endswith(".py") and " " not in text:
        path = Path(text).expanduser()
        if not path.is_file():
            raise BotLoadError(f"{text}: no such file")
        return PythonFileBot(path, turn_limit, start_limit)
    return JsonProgramBot(text, turn_limit=turn_limit, start_limit=start_limit)


def seat_names(adapters: Sequence[BotAdapter]) -> list[str]:
    """Distinct seat names from the bots' names (``greedy``, ``greedy-2``)."""
    names: list[str] = []
    for adapter in adapters:
        name, n = adapter.name, 2
        while name in names:
            name = f"{adapter.name}-{n}"
            n += 1
        names.append(name)
    return names
