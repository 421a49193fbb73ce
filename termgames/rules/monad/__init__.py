"""Monad (Dartmouth 18w-si32): bots command units on a hex map to mine, build hives and fight.

Turns are simultaneous: every seat submits its commands for the turn
(one move per seat, in any order) and the turn resolves when the last one
arrives.  A seat's view never shows another seat's commands of a turn not yet
resolved.  The fast core is four modules: the hex map's geometry
(:mod:`.geometry`), the commands' notation (:mod:`.notation`), the position
and its maps (:mod:`.board`) and one turn's resolution (:mod:`.turn`); this
module wraps it in the contract every game follows (:mod:`termgames.rules.base`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ...untrusted import printable
from ..base import ALL, Game, OptionSpec, RuleError, State, View, Viewer, possessive
from ..numbers import short_number, short_numbers
from ..options import FLOAT, INT
from .board import (
    DEFAULT_LIMIT,
    DEFAULT_SIZE,
    MAX_OBSTACLE_DENSITY,
    Board,
    board_from_json,
    board_json,
    empty_board,
    make_map,
    observation,
    outcome,
)
from .geometry import ACTIONS, DIRECTIONS, neighbour, neighbour_table
from .notation import Command, coerce_command, format_commands, parse_commands
from .rules_text import RULES
from .turn import COLLISION, FIGHT, HIVE_BUILT, HIVE_DESTROYED, HIVE_HELD, NO_EFFECT, PRODUCED, TurnReport, resolve_turn

#: A move that stands for "this seat's commands were lost" (a bot that was late, crashed or sent garbage).
FAULT = "fault"
HIDDEN = "(commands hidden until the turn resolves)"
MAX_FAULT_REASON = 300
#: Longest move a move log shows whole.
LOG_TEXT_LIMIT = 60


def short_move(move: str) -> str:
    """A move as logs and confirmations show it: short moves whole, long ones cut after their first commands;
    a count of more than a dozen digits written short (``1.234e309``), never as a run of 300 digits."""
    move = short_numbers(move)
    if len(move) <= LOG_TEXT_LIMIT:
        return move
    count = move.count(";") + 1
    return move[: LOG_TEXT_LIMIT - 20].rsplit(";", 1)[0] + f"; ... ({count} commands)"


#: Letters that name the seats on the text map (a hive shows the capital).
SEAT_LETTERS = "abcd"


def _is_fault(stripped: str) -> bool:
    return stripped[:5].lower() == FAULT and (len(stripped) == 5 or stripped[5].isspace())


def _one_line(reason: str) -> str:
    """A reason on one line (runs of spaces, tabs and line breaks become one space), at most 300 characters:
    a runaway bot's message does not fill the record."""
    reason = " ".join(reason.split()) or "no reason given"
    return reason if len(reason) <= MAX_FAULT_REASON else reason[: MAX_FAULT_REASON - 3] + "..."


def parse_fault(text: str) -> str | None:
    """The reason of a ``fault REASON`` move, or None when the text is commands.

    The reason reaches every screen at the table and every replay: RuleError unless it is printable text
    (no escape sequence, control character, bidi override or NUL).
    """
    stripped = text.strip()
    if not _is_fault(stripped):
        return None
    reason = _one_line(stripped[5:])
    bad = next((character for character in reason if not character.isprintable()), None)
    if bad is not None:
        raise RuleError(f"a fault's reason is printable text on one line, and this one holds {printable(bad)}")
    return reason


def fault_text(reason: str) -> str:
    """The ``fault REASON`` move for any text (a bot's error, its stderr): made one printable line first."""
    return f"{FAULT} {_one_line(printable(' '.join(reason.split())))}"


@lru_cache(maxsize=256)
def _normalise(move: str) -> str:
    """The canonical text of a move (records store it); a record's moves are canonical already."""
    reason = parse_fault(move)
    if reason is not None:
        return f"{FAULT} {reason}"
    return format_commands(parse_commands(move))


def cell_name(board: Board, cell: int) -> str:
    return f"{cell % board.width},{cell // board.width}"


def report_lines(report: TurnReport, board: Board, names: Sequence[str], turn: int) -> list[str]:
    """The turn's log in words: what each seat did, what was dropped and why, and the fights."""
    lines = []
    for seat, name in enumerate(names):
        carried = report.carried[seat] if seat < len(report.carried) else ()
        dropped = report.dropped[seat] if seat < len(report.dropped) else ()
        did = short_numbers(format_commands(carried)) if carried else "nothing"
        lines.append(f"turn {turn}: {name}: {did}")
        for reason in dropped:
            lines.append(f"turn {turn}: {name} dropped {short_numbers(reason)}")
    for event in report.events:
        kind = event[0]
        if kind == COLLISION:
            _, a, sa, na, b, sb, nb = event
            lines.append(
                f"turn {turn}: collision between {cell_name(board, a)} and {cell_name(board, b)}: "
                f"{names[sa]} {short_number(na)} against {names[sb]} {short_number(nb)}"
            )
        elif kind == FIGHT:
            _, cell, before, seat, left = event
            sides = ", ".join(f"{names[s]} {short_number(n)}" for s, n in before)
            result = f"{names[seat]} keeps {short_number(left)}" if seat >= 0 else "nobody survives"
            lines.append(f"turn {turn}: fight at {cell_name(board, cell)} ({sides}): {result}")
        elif kind == HIVE_BUILT:
            _, cell, seat = event
            lines.append(f"turn {turn}: {names[seat]} built a hive at {cell_name(board, cell)}")
        elif kind == HIVE_DESTROYED:
            _, cell, hive_owner, seat, _attackers, _defenders, left = event
            lines.append(
                f"turn {turn}: {names[seat]} destroyed {possessive(names[hive_owner])} hive at {cell_name(board, cell)}"
                f" ({short_number(left)} attackers left)"
            )
        elif kind == HIVE_HELD:
            _, cell, hive_owner, seat, attackers, lost = event
            lines.append(
                f"turn {turn}: {possessive(names[hive_owner])} hive at {cell_name(board, cell)} held against "
                f"{short_number(attackers)} of {possessive(names[seat])} units (defenders lost {short_number(lost)})"
            )
        elif kind == NO_EFFECT:
            _, seat, what = event
            lines.append(f"turn {turn}: {possessive(names[seat])} {what} (no effect)")
        elif kind == PRODUCED:
            _, cell, seat, made = event
            units = f"{short_number(made)} unit{'s' if made != 1 else ''}"
            lines.append(f"turn {turn}: {possessive(names[seat])} hive at {cell_name(board, cell)} made {units}")
    return lines


# --------------------------------------------------------------------------
# View
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class MonadView(View):
    board: Board | None = None
    #: Which seats have submitted their commands for the turn in progress.
    submitted: tuple[bool, ...] = ()
    #: The viewer's own commands for the turn in progress (None: not submitted, or a spectator).
    own_commands: tuple[Command, ...] | None = None
    #: The last resolved turn's report (None before the first).
    report: TurnReport | None = None
    #: The last resolved turn's log lines (see :func:`report_lines`).
    turn_log: tuple[str, ...] = ()

    def _board(self) -> Board:
        assert self.board is not None
        return self.board

    def board_json(self) -> dict[str, Any]:
        return board_json(self._board(), self.players)

    def log_text(self, move: str, ply: int | None = None) -> str:
        """A move as a log lists it: short moves whole, long ones cut after their first commands.

        Bots send dozens of commands a turn; ``termgames monad trace`` has them all.
        """
        return short_move(move)

    def observation(self) -> dict[str, Any]:
        """What a bot in the viewer's seat gets this turn (the whole map, ruling 10)."""
        seat = self.viewer if self.viewer is not None and self.viewer >= 0 else None
        return observation(self._board(), self.players, seat)

    def board_text(self, ascii: bool = False) -> str:
        """The map, staggered like the hex grid (even rows shifted right), with a legend and totals.

        Each cell is three characters: ``a12`` = 12 units of the first seat,
        ``A12`` the same on its own hive (``A`` alone: a hive without units),
        a bare number the cell's resources, ``###`` an obstacle.
        """
        board = self._board()
        width = board.width
        block = "###" if ascii else "▒▒▒"
        lines = ["     " + " ".join(f"{x:>3}" for x in range(width))]
        for y in range(board.height):
            row = []
            for cell in range(y * width, (y + 1) * width):
                if board.obstacle[cell]:
                    row.append(block)
                    continue
                hive, units = board.hive[cell], board.units[cell]
                if units > 0:
                    letter = SEAT_LETTERS[board.owner[cell]]
                    if hive >= 0:
                        letter = letter.upper()
                    row.append(letter + (f"{units:>2}" if units < 100 else "++"))
                elif hive >= 0:
                    row.append(SEAT_LETTERS[hive].upper() + "  ")
                else:
                    resources = board.resources[cell]
                    row.append(f"{resources:>3}" if resources else "  .")
            shift = "  " if y % 2 == 0 else ""
            lines.append(f"{y:>3}  {shift}" + " ".join(row).rstrip())
        lines.append("")
        for seat, name in enumerate(self.players):
            letter = SEAT_LETTERS[seat]
            lines.append(
                f"{letter}/{letter.upper()} {name}: {short_number(board.unit_totals[seat])} units, "
                f"{board.hive_counts[seat]} hives, {short_number(board.bank[seat])} resources"
            )
        lines.append(f"turn {board.turn} of {board.limit}; a capital marks a hive, a bare number resources")
        if self.own_commands is not None:
            lines.append("your commands this turn: " + short_numbers(format_commands(self.own_commands)))
        lines += list(self.turn_log)
        lines.append(self.status)
        return "\n".join(lines)


# --------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Reports:
    """The resolved turns' reports as a linked list: each state shares its parent's (no copying)."""

    report: TurnReport
    previous: _Reports | None


@dataclass(frozen=True)
class MonadState(State):
    # The dataclass base has defaulted fields, so these need defaults too; _new always sets them.
    board: Board = field(default=None, compare=False)  # type: ignore[assignment]  # always set by Monad._new
    #: Per seat, its commands for the turn in progress, None while not yet submitted.
    pending: tuple[tuple[Command, ...] | None, ...] = ()
    #: Per seat, the reason of a ``fault`` move this turn ("" for none).
    faults: tuple[str, ...] = ()
    reports_chain: _Reports | None = field(default=None, compare=False, repr=False)
    #: The seat whose move made this state (-1 at the start).
    last_seat: int = -1
    result: tuple[bool, tuple[int, ...]] = (False, ())

    # -- queries -----------------------------------------------------------

    def to_move(self) -> tuple[int, ...]:
        if self.result[0]:
            return ()
        # Every seat sends a move every turn ("a turn refers to a move by each bot"), even one left with
        # no hive and no unit: its commands can only be dropped, but the turn waits for it like any other.
        return tuple(s for s, commands in enumerate(self.pending) if commands is None)

    def is_over(self) -> bool:
        return self.result[0]

    def scores(self) -> tuple[int, ...]:
        """Units on the map: what decides at the turn limit.

        Exact ints of any size (units fed with BUILD multiply by about 1.2 a turn: past 1.8e308 a float
        cannot hold them); the notation bounds them (see ``notation.COUNT_DIGITS``).
        """
        return tuple(self.board.unit_totals)

    def winners(self) -> tuple[int, ...]:
        return self.result[1] if self.result[0] else ()

    @property
    def turn(self) -> int:
        """Turns resolved so far (the board's turn)."""
        return self.board.turn

    @property
    def last_report(self) -> TurnReport | None:
        return self.reports_chain.report if self.reports_chain is not None else None

    @property
    def reports(self) -> tuple[TurnReport, ...]:
        """The report of every resolved turn, first turn first."""
        items = []
        link = self.reports_chain
        while link is not None:
            items.append(link.report)
            link = link.previous
        return tuple(reversed(items))

    def resolved_now(self) -> bool:
        """Whether the move that made this state resolved a turn."""
        return self.ply > 0 and all(p is None for p in self.pending) and self.reports_chain is not None

    # -- moves -------------------------------------------------------------

    def normalise_move(self, seat: int, move: str) -> str:
        return _normalise(move)

    def apply(self, seat: int, move: str) -> MonadState:
        if 0 <= seat < len(self.seats) and not self.result[0] and self.pending[seat] is not None:
            waiting = " and ".join(self.seats[s] for s in self.to_move())
            raise RuleError(
                f"{self.seats[seat]} has already sent commands for turn {self.board.turn + 1}; waiting for {waiting}"
            )
        # "An empty move (pass) is allowed" (issue 10): nothing at all is a pass too.
        state = super().apply(seat, move if move.strip() else "pass")
        assert isinstance(state, MonadState)
        return state

    def _apply(self, seat: int, move: str) -> MonadState:
        reason = parse_fault(move)
        commands: tuple[Command, ...] = () if reason is not None else tuple(parse_commands(move))
        pending = list(self.pending)
        pending[seat] = commands
        faults = list(self.faults)
        faults[seat] = reason or ""
        board = self.board
        if any(p is None for p in pending):
            return MonadState(
                seats=self.seats,
                seed=self.seed,
                options=self.options,
                ply=self.ply + 1,
                board=board,
                pending=tuple(pending),
                faults=tuple(faults),
                reports_chain=self.reports_chain,
                last_seat=seat,
                result=self.result,
            )
        new_board, report = resolve_turn(board, [p or () for p in pending])
        if any(faults):
            report = TurnReport(
                carried=report.carried,
                dropped=tuple(
                    ((f"{FAULT}: {faults[s]}",) if faults[s] else ()) + report.dropped[s] for s in range(len(faults))
                ),
                events=report.events,
            )
        players = len(self.seats)
        return MonadState(
            seats=self.seats,
            seed=self.seed,
            options=self.options,
            ply=self.ply + 1,
            board=new_board,
            pending=(None,) * players,
            faults=("",) * players,
            reports_chain=_Reports(report, self.reports_chain),
            last_seat=seat,
            result=outcome(new_board),
        )

    def redact_log(self, moves: Sequence[tuple[int, str]], viewer: Viewer) -> tuple[tuple[int, str], ...]:
        waiting = sum(1 for p in self.pending if p is not None)
        log = [(seat, move) for seat, move in moves]
        if viewer != ALL and waiting:
            for index in range(max(0, len(log) - waiting), len(log)):
                seat, _move = log[index]
                if seat != viewer:
                    log[index] = (seat, HIDDEN)
        return tuple(log)

    # -- view --------------------------------------------------------------

    def _status(self, viewer: Viewer) -> str:
        names = self.seats
        board = self.board
        over, winners = self.result
        if over:
            if len(winners) == 1:
                w = winners[0]
                return (
                    f"Game over after {board.turn} turns: {names[w]} wins "
                    f"({board.hive_counts[w]} hives, {short_number(board.unit_totals[w])} units)"
                )
            who = " and ".join(names[s] for s in winners)
            each = board.unit_totals[winners[0]]
            return f"Game over after {board.turn} turns: a draw between {who} ({short_number(each)} units each)"
        waiting = self.to_move()
        who = " and ".join(names[s] for s in waiting)
        if viewer is not None and viewer >= 0 and self.pending[viewer] is not None:
            return f"Turn {board.turn + 1} of {board.limit}: your commands are in; waiting for {who}"
        return f"Turn {board.turn + 1} of {board.limit}: waiting for commands from {who}"

    def _last_action(self, viewer: Viewer, turn_log: Sequence[str]) -> str:
        if self.ply == 0:
            return ""
        if self.resolved_now():
            return "\n".join(turn_log)
        name = self.seats[self.last_seat]
        if viewer == self.last_seat:
            mine = self.pending[self.last_seat]
            fault = self.faults[self.last_seat]
            said = f"{FAULT} ({fault})" if fault else short_move(format_commands(mine or ()))
            return f"{name} sent for turn {self.board.turn + 1}: {said}"
        return f"{name} sent commands for turn {self.board.turn + 1}"

    def progress(self) -> str:
        return f"turn {self.board.turn + 1}"  # each seat's commands are a move of the record

    def view(self, viewer: Viewer) -> MonadView:
        report = self.last_report
        turn_log = tuple(report_lines(report, self.board, self.seats, self.board.turn)) if report else ()
        own = None
        if viewer is not None and 0 <= viewer < len(self.seats):
            own = self.pending[viewer]
        return MonadView(
            game="monad",
            viewer=viewer,
            players=self.seats,
            to_move=self.to_move(),
            over=self.result[0],
            scores=self.scores(),
            winners=self.winners(),
            status=self._status(viewer),
            last_action=self._last_action(viewer, turn_log),
            board=self.board,
            submitted=tuple(p is not None for p in self.pending),
            own_commands=own,
            report=report,
            turn_log=turn_log,
        )


# --------------------------------------------------------------------------
# Game
# --------------------------------------------------------------------------


class Monad(Game):
    name = "monad"
    option_specs = (
        OptionSpec("width", INT, DEFAULT_SIZE, "columns of the map", minimum=6, maximum=60),
        OptionSpec("height", INT, DEFAULT_SIZE, "rows of the map", minimum=6, maximum=60),
        OptionSpec(
            "obstacles",
            FLOAT,
            0.0,
            "share of free cells that are obstacles",
            minimum=0.0,
            maximum=MAX_OBSTACLE_DENSITY,
        ),
        OptionSpec("turns", INT, DEFAULT_LIMIT, "turn limit", minimum=1, maximum=100_000),
    )
    #: A computer seat whose bot fails sends ``fault REASON`` (the turn runner does): the turn goes on without it.
    fault_move = FAULT
    #: A seat out of time sends no more commands: it passes every turn, and the turns stop waiting for it.
    timeout_move = "pass"

    def _new(self, options: dict[str, Any], seats: tuple[str, ...], seed: int) -> MonadState:
        board = make_map(
            options["width"], options["height"], len(seats), options["obstacles"], seed, limit=options["turns"]
        )
        players = len(seats)
        return MonadState(
            seats=seats,
            seed=seed,
            options=options,
            board=board,
            pending=(None,) * players,
            faults=("",) * players,
            result=outcome(board),
        )

    def describe_options(self, options: dict[str, Any]) -> str:
        width = options.get("width", DEFAULT_SIZE)
        height = options.get("height", DEFAULT_SIZE)
        obstacles = options.get("obstacles", 0.0)
        text = f"{width}x{height}"
        if obstacles:
            text += f", obstacles {obstacles:g}"
        return text + f", {options.get('turns', DEFAULT_LIMIT)} turns"

    def stored_move(self, move: str) -> str:
        """A fault stored before its reason had to be printable: escaped (``\\x1b``) rather than refused."""
        if _is_fault(move.strip()):
            try:
                parse_fault(move)
            except RuleError:
                return fault_text(move.strip()[5:])
        return move

    def rules_text(self) -> str:
        return RULES


def new_board(
    seats: Sequence[str], seed: int, width: int = DEFAULT_SIZE, height: int = DEFAULT_SIZE,
    obstacles: float = 0.0, turns: int = DEFAULT_LIMIT,
) -> Board:
    """The initial board of a match with these options (checked like the CLI's)."""
    game = Monad()
    options = game.check_options({"width": width, "height": height, "obstacles": obstacles, "turns": turns})
    if not 2 <= len(seats) <= 4:
        raise RuleError(f"Monad is played by 2 to 4 players, not {len(seats)}")
    return make_map(width, height, len(seats), options["obstacles"], seed, limit=options["turns"])


__all__ = [
    "ACTIONS",
    "DIRECTIONS",
    "FAULT",
    "Board",
    "Command",
    "Monad",
    "MonadState",
    "MonadView",
    "TurnReport",
    "board_from_json",
    "board_json",
    "coerce_command",
    "empty_board",
    "fault_text",
    "format_commands",
    "make_map",
    "neighbour",
    "neighbour_table",
    "new_board",
    "observation",
    "outcome",
    "parse_commands",
    "parse_fault",
    "report_lines",
    "resolve_turn",
]
