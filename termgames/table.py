"""A table: the game a screen plays at, with its seats, its AI players, saves and undo.

A game screen talks only to a :class:`Table`, never to rules, records or the
mid-end (:class:`~termgames.match.Match`) directly.  Two kinds implement it:
:class:`LocalTable`, a game on this machine (hot-seat and AI seats, saved
after every move), and the server's
:class:`~termgames.server.shared.SharedTable`, one player's (or spectator's)
place at a table on the server.  Both play their AI seats with the one
:class:`~termgames.turns.TurnRunner`.  Every method is called on the event loop.

Tables tell their watchers of changes with ``listener(kind, text)``, called on
the loop (:data:`TABLE_EVENTS` lists the kinds); a screen turns them into
messages to itself.

A new game's screen needs nothing of this beyond ``self.table``: it plays the
keyboard's seat with :meth:`Table.play` (or :meth:`Table.play_slow` for a
move whose checking takes long), draws :meth:`Table.view`, and leaves AI seats
to the table.  Simultaneous turns (several seats in ``to_move()``) need
nothing either: every AI seat to move decides at once and the human seat is
asked meanwhile.  What a game may tune is on its ``Game`` class:
``ai_move_seconds`` (how long an AI move stays "thinking") and ``fault_move``
(what a failed AI seat plays, so a simultaneous turn goes on).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .clock import Clocks
from .match import Match, PreparedMove, Seat
from .preferences import DEFAULT_PACE, PACE_FACTORS, check_pace
from .records import RecordError, claim_name, dumps, load, locked, new_save_path, read_bytes, save
from .rules import Game, RuleError, View, Viewer
from .turns import TurnRunner, undo_ply

#: ``listener(kind, text)``: news of a table, on the loop.
TableListener = Callable[[str, str], None]

#: What a table tells its watchers.  ``moved``: the position changed (a move, an undo); ``thinking``:
#: the set of thinking AI seats changed; ``error``: an AI failed (``text`` says how); ``notice``: a line
#: for everyone.  Shared tables add ``seats``, ``presence``, ``chat`` and ``undo-request``.
TABLE_EVENTS = ("moved", "thinking", "error", "notice", "seats", "presence", "chat", "undo-request")


class Table(Protocol):
    """What a game screen may ask of the table it plays at."""

    @property
    def game(self) -> Game: ...

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def seats(self) -> tuple[Seat, ...]:
        """Who sits where (an open seat of a shared table is named ``seat-N``)."""
        ...

    @property
    def options(self) -> dict[str, Any]: ...

    @property
    def over(self) -> bool: ...

    @property
    def save_path(self) -> Path | None:
        """Where the game is saved after every move (None: not saved here)."""
        ...

    @property
    def generation(self) -> int:
        """Bumped by every change of position: a screen compares it with the one it drew."""
        ...

    @property
    def thinking(self) -> frozenset[int]:
        """The AI seats working out a move now."""
        ...

    @property
    def match_here(self) -> Match | None:
        """The match itself when this keyboard keeps it (a game here: it offers a rematch, a new game filled in
        as it, the computer players' pace and quitting where it stands); None where a server keeps it."""
        ...

    @property
    def can_hurry(self) -> bool:
        """Whether :meth:`hurry` cuts the computer seats' thinking short here (at a shared table they think
        for everyone, at the server's pace)."""
        ...

    def time_left(self, seat: int) -> float | None:
        """Seconds the AI seat ``seat`` may still think (None when it is not thinking, or nobody here can
        hurry it)."""
        ...

    def hurry(self) -> None:
        """The AI seats thinking play their best move so far, now (nothing where :attr:`can_hurry` is False)."""
        ...

    def local_humans(self) -> list[int]:
        """The human seats played at this keyboard."""
        ...

    def viewing_seat(self) -> Viewer:
        """Whose view the screen shows now (None: a spectator's)."""
        ...

    def view(self, viewer: Viewer) -> View:
        """What ``viewer`` may see (``ALL``: every board, once the game is over)."""
        ...

    def read_clocks(self) -> tuple[Clocks, float] | None:
        """The seats' clocks and the time now to read them at (``Clocks.left_at``); None when untimed."""
        ...

    def play(self, seat: int, move: str) -> None:
        """Play ``move`` for ``seat``; RuleError (one line for the player) and nothing changes if refused."""
        ...

    async def play_slow(self, seat: int, move: str) -> None:
        """:meth:`play` for a move whose checking takes long (MonUnrail's Impossible): checked in a worker
        thread, recorded on the loop; RuleError if refused or if the position changed meanwhile."""
        ...

    def can_undo(self) -> bool:
        """Whether :meth:`undo` may do something now (not after a flag that stands; a spectator never)."""
        ...

    def undo(self) -> str:
        """Undo as this table allows (at a shared table: ask the others); what happened, for the player.

        RuleError when there is nothing to undo or the undo cannot be asked for."""
        ...

    def watch(self, listener: TableListener) -> None: ...

    def unwatch(self, listener: TableListener) -> None: ...

    def take_notice(self) -> str:
        """What the table has to say about saving (a record changed on disk, a failed save), once; often ""."""
        ...

    def start(self) -> None:
        """The screen shows the table: AI seats may play."""
        ...

    def close(self) -> None:
        """The screen leaves the table."""
        ...


class Listeners:
    """The watchers of a table; one that raises is dropped, the others still hear."""

    def __init__(self) -> None:
        self._listeners: list[TableListener] = []

    def add(self, listener: TableListener) -> None:
        self._listeners.append(listener)

    def remove(self, listener: TableListener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def tell(self, kind: str, text: str = "") -> None:
        for listener in list(self._listeners):
            try:
                listener(kind, text)
            except Exception:  # a watcher that cannot take news is gone
                self.remove(listener)


class LocalTable:
    """A match played at one keyboard, saved atomically after every change."""

    def __init__(self, match: Match, save_path: Path | None = None, pace: str = DEFAULT_PACE) -> None:
        self.match = match
        self.save_path = save_path
        self.runner = TurnRunner(self)
        self.pace = DEFAULT_PACE
        self.set_pace(pace)
        self._listeners = Listeners()
        #: What this table last read or wrote at ``save_path``: a save replaces only that.
        self._on_disk: bytes | None = None
        #: What the player must hear about saving (a record changed on disk, a folder not writable).
        self.notice = ""
        #: The time now, in seconds since the epoch: what the clocks count with (a test's own clock replaces it).
        self.now: Callable[[], float] = time.time
        self._clock_timer: asyncio.TimerHandle | None = None
        #: ``save_path`` names no file yet: a new game's name, taken (``claim_name``) when its record is first
        #: written; another game that took it first leaves this one the next free name, and no notice.
        self._name_unclaimed = save_path is not None and not save_path.exists()
        if save_path is not None:
            self._on_disk = self._disk_copy_of_this_game(save_path)
            self.save()

    # -- who sits where ----------------------------------------------------

    @property
    def game(self) -> Game:
        return self.match.game

    @property
    def names(self) -> tuple[str, ...]:
        return self.match.names

    @property
    def seats(self) -> tuple[Seat, ...]:
        return self.match.seats

    @property
    def options(self) -> dict[str, Any]:
        return self.match.options

    @property
    def over(self) -> bool:
        return self.match.over

    @property
    def generation(self) -> int:
        return self.runner.generation

    @property
    def thinking(self) -> frozenset[int]:
        return self.runner.thinking

    @property
    def match_here(self) -> Match:
        return self.match

    @property
    def can_hurry(self) -> bool:
        return True

    def time_left(self, seat: int) -> float | None:
        """Seconds the AI seat ``seat`` may still think (None when it is not thinking)."""
        return self.runner.time_left(seat)

    def hurry(self) -> None:
        """The AI seats thinking play their best move now (a key at one keyboard)."""
        self.runner.hurry()

    def set_pace(self, pace: str) -> None:
        """The computer players' pace (``termgames.preferences.PACES``); ValueError for another word."""
        self.pace = check_pace(pace)
        self.runner.set_pace(PACE_FACTORS[self.pace])

    def local_humans(self) -> list[int]:
        return self.match.human_seats()

    def viewing_seat(self) -> Viewer:
        """Whose view the screen shows: the human to move, else the last human who moved."""
        humans = self.local_humans()
        if not humans:
            return None  # AI against AI: watch as a spectator
        for seat in self.match.to_move():
            if seat in humans and not self.match.computer_plays(seat):
                return seat
        for record in reversed(self.match.moves):
            if record.seat in humans:
                return record.seat
        return humans[0]

    # -- play --------------------------------------------------------------

    def view(self, viewer: Viewer) -> View:
        return self.match.view(viewer)

    def read_clocks(self) -> tuple[Clocks, float] | None:
        clocks = self.match.clocks
        return None if clocks is None else (clocks, self.now())

    def play(self, seat: int, move: str) -> None:
        """Apply a move (RuleError says what is wrong, and nothing changes) and save."""
        self._refuse_out_of_time(seat)
        self.match.play(seat, move, at=self.now())
        self._moved()

    async def play_slow(self, seat: int, move: str) -> None:
        self._refuse_out_of_time(seat)
        self.play_prepared(await self.runner.prepare_in_thread(seat, move))

    def play_prepared(self, prepared: PreparedMove) -> None:
        self.match.record(prepared, at=self.now())
        self._moved()

    def _refuse_out_of_time(self, seat: int) -> None:
        """A human's move for a seat whose time is up (its flag may be due this very moment) is refused."""
        self.check_clocks()
        if seat in self.match.out_of_time:
            raise RuleError(f"{self.match.names[seat]} ran out of time")

    # -- clocks ------------------------------------------------------------

    def check_clocks(self) -> None:
        """Flag every seat whose time ran out (saved, and told), then wait for the next clock to run out."""
        match = self.match
        clocks = match.clocks
        if clocks is None:
            return
        now = self.now()
        notices = []
        for seat in clocks.due(now):
            if match.over or seat in match.out_of_time:
                continue
            notices.append(match.flag_notice(match.flag(seat, at=now)))
        if notices:
            self.save()
            self.runner.moved()
            self._listeners.tell("moved")
            for notice in notices:  # after the new position: a redraw clears what was said before it
                self._listeners.tell("notice", notice)
        self._wait_for_clock()

    def _wait_for_clock(self) -> None:
        """One timer, at the moment the first running clock runs out (none while no clock runs)."""
        if self._clock_timer is not None:
            self._clock_timer.cancel()
            self._clock_timer = None
        clocks = self.match.clocks
        deadline = None if clocks is None or self.match.over else clocks.deadline()
        if deadline is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: the clocks are checked at the next move
        self._clock_timer = loop.call_later(max(0.0, deadline - self.now()), self.check_clocks)

    def can_undo(self) -> bool:
        """Whether :meth:`undo` would take a move back (not when a flag since the last move stands)."""
        try:
            return undo_ply(self.match, self.local_humans()) is not None
        except RuleError:
            return False

    def undo(self) -> str:
        """Undo (``termgames.turns.undo_ply``): against AIs, back to before the last human move; hot-seat, one move."""
        ply = undo_ply(self.match, self.local_humans())
        if ply is None:
            raise RuleError("Nothing to undo")
        self.match.truncate(ply, at=self.now())
        self.save()
        self.runner.rewound()
        self._wait_for_clock()
        self._listeners.tell("moved")
        return "Undone"

    def _moved(self) -> None:
        self.save()
        self.runner.moved()
        self._wait_for_clock()
        self._listeners.tell("moved")

    def save(self) -> None:
        """Save under the record's lock, never over a record that changed on disk since it was read.

        A correspondence move may have come in (``termgames move``): then both are kept, this game under a
        new name beside it, and :attr:`notice` says so.  A save that fails is a notice too, not a crash.
        """
        path = self.save_path
        if path is None:
            return
        if not self.match.moves and self._on_disk is None and not path.exists():
            # A game with no move yet is no saved game: it joins the saves list with its first move
            # (otherwise every game started and left at once would leave an empty record behind).
            return
        try:
            if self._name_unclaimed:
                path = self.save_path = claim_name(path)
                self._name_unclaimed = False
                self._on_disk = b""  # the empty file claimed: this table's own
            with locked(path):
                current = _bytes_or_none(path)
                if current is not None and current != self._on_disk:
                    path = self._keep_both(path)
                save(path, self.match, now=self.now())
                self._on_disk = read_bytes(path)
        except (RecordError, OSError) as error:
            self.notice = f"Not saved: {error}"

    def take_notice(self) -> str:
        """The notice about saving, once."""
        notice, self.notice = self.notice, ""
        return notice

    def _keep_both(self, path: Path) -> Path:
        fresh = claim_name(new_save_path(path.parent, self.match))
        self.notice = (
            f"{path.name} changed on disk since this game read it (a move came in?). Both are kept: "
            f"this game goes on in {fresh.name}"
        )
        self.save_path = fresh
        self._on_disk = b""  # the empty file claimed: this table's own
        return fresh

    def _disk_copy_of_this_game(self, path: Path) -> bytes | None:
        """The record at ``path`` if it holds this very game (what the screen resumed), else None."""
        current = _bytes_or_none(path)
        if current is None:
            return None
        if current == dumps(self.match).encode("utf-8"):
            return current
        try:
            there = load(path)
        except RecordError:
            return None
        same = (
            there.game.name == self.match.game.name
            and there.seed == self.match.seed
            and there.seats == self.match.seats
            and there.options == self.match.options
            and [(m.seat, m.move) for m in there.moves] == [(m.seat, m.move) for m in self.match.moves]
        )
        return current if same else None

    # -- watchers and the runner ---------------------------------------------

    def watch(self, listener: TableListener) -> None:
        self._listeners.add(listener)

    def unwatch(self, listener: TableListener) -> None:
        self._listeners.remove(listener)

    def start(self) -> None:
        """The screen shows the game: the clocks count (from where they were), the AI seats play."""
        if self.match.clocks is not None and not self.match.clocks.counting and not self.match.over:
            self.match.start_clocks(self.now())
            self.check_clocks()
        self.runner.start()

    def close(self) -> None:
        """The screen leaves: no AI move after this, and the clocks stop where they are (saved so)."""
        self.runner.stop()
        if self._clock_timer is not None:
            self._clock_timer.cancel()
            self._clock_timer = None
        if self.match.clocks is not None and self.match.clocks.counting:
            self.match.pause_clocks(self.now())
            if self.match.moves:
                self.save()

    def ai_may_move(self) -> bool:
        return True

    def ai_news(self, kind: str, text: str) -> None:
        self._listeners.tell(kind, text)


if TYPE_CHECKING:  # mypy checks here that LocalTable keeps to the protocol

    def _a_local_table_is_a_table(table: LocalTable) -> Table:
        return table


def _bytes_or_none(path: Path) -> bytes | None:
    try:
        return read_bytes(path)
    except RecordError:
        return None
