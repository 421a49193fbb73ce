"""The server's tables: each one's authoritative match, who is at it, its chat, undo requests and AI seats.

A :class:`LiveTable` owns its :class:`~termgames.match.Match` (hidden boards
included) and never hands it to a client: clients get views.  Every change
(a move, a seat taken, an accepted undo) is stored first and then announced
to the table's subscribers with :meth:`Subscriber.table_event`; a subscriber
that raises is dropped, so one broken client never stops the others.

AI seats are played by the table's :class:`~termgames.turns.TurnRunner`, the
one the local game uses: bots think in the hub's thread pool, so one table's
AI never blocks the loop that every other table and player shares, and their
moves are stored and announced back on the loop.

A :class:`~.table_facts.FinishedTable` is a finished table the server lists without reading it whole; both are
:class:`~.table_facts.TableFacts`, what every listing says of a table; a table's clock is its
:class:`~.table_clock.TableClock`.  A table reaches the server through its
:class:`TableHost` (the hub, :mod:`.hub`, which holds every table and imports this module).
"""

from __future__ import annotations

import json
import logging
from collections import deque
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ..clock import Clocks
from ..match import AI, HUMAN, Flag, Match, MoveRecord, PreparedMove, Seat, prepare_move
from ..rules import RuleError, State, View, Viewer
from ..rules.base import ALL
from ..turns import TurnRunner, undo_ply
from ..untrusted import fold_name
from .address import SshAddress
from .clocks import Timekeeper, clock_text, read_clock
from .config import ServerConfig
from .limits import RateLimit
from .people import OPEN_PREFIX, is_guest, name_owner
from .pool import FairPool
from .stores.interface import (
    ClockChanged,
    PlyTaken,
    RatedResult,
    RatingChange,
    StoredTable,
    StoreError,
    StoreEvent,
    StoreUnavailable,
    TableClosed,
    require_thread,
)
from .table_clock import TableClock
from .table_facts import ListingHost, TableFacts

#: A move is charged up to when it reached the server, however long the server took to get to it, but never
#: more than this before it is processed: the input's time is the latest input of the screen's terminal.
MAX_RECEIPT_CREDIT = 5.0

log = logging.getLogger("termgames.server")

#: Chat lines a table remembers for players who arrive later.
CHAT_LINES = 30
#: Longest chat line kept.
CHAT_WIDTH = 200
#: A move refused while the database cannot be reached (nothing was changed: the player tries again).
MOVE_NOT_STORED = "the database cannot be reached: your move was not made; try again in a moment"


class TableHost(ListingHost, Protocol):
    """What a table needs of the hub that holds it (:class:`~termgames.server.hub.Hub` is one): the store,
    the computers' thread pool, what the hub keeps for every table (the chat limit, ratings, whom a name
    counts against) and whom to tell of a change (the lobbies; the hub when a game ends)."""

    executor: FairPool
    #: How players reach the server (what a table's end tells them to type for its record).
    address: SshAddress
    #: The server stops: no computer seat thinks any more.
    closed: bool
    #: The one timer of every running clock.
    timekeeper: Timekeeper
    #: Chat lines by owner (see :func:`~.people.key_owner`); the settings hold its rate for the refusal's words.
    chat_limit: RateLimit
    config: ServerConfig

    def check_rated_seat(self, table_id: int | None, player: str, seated: Iterable[str]) -> None: ...

    def forget_ratings(self, game: str) -> None: ...

    def finished(self, table: LiveTable) -> None:
        """The game at ``table`` just ended: mark it, rate it, keep its record."""
        ...

    def lobby_changed(self) -> None: ...

    def now(self) -> float:
        """The time now (seconds since the epoch): what the clocks count with."""
        ...

    def players_news(self, table: LiveTable, kind: str, seats: Collection[int]) -> None:
        """News for the players of ``seats`` wherever they are connected: it became their move (``move``), an
        undo waits for their answer (``undo``), their clock fell below a fifth of its time (``clock``: once per
        move; mail too for a player who is away)."""
        ...


class Subscriber(Protocol):
    """Someone at a table: a player's screen (``seat`` an index) or a spectator's (``seat`` None)."""

    player: str
    seat: Viewer

    def table_event(self, kind: str, text: str) -> None:
        """Called on the loop after a change; ``kind`` is one of :data:`~termgames.table.TABLE_EVENTS`.
        Must not block."""


@dataclass
class UndoRequest:
    seat: int
    ply: int
    waiting: set[int]
    generation: int


class LiveTable(TableFacts):
    """One shared table: its authoritative match, seats, subscribers, chat, undo request and turn runner.

    The runner's host (:class:`~termgames.turns.RunnerHost`): it records the AI
    seats' moves as it records the players' (stored, then announced).
    """

    hub: TableHost

    def __init__(self, hub: TableHost, stored: StoredTable) -> None:
        super().__init__(hub, stored)
        self.hub = hub
        self.seed = stored.seed
        #: What this table did to its players' ratings once it finished rated (empty otherwise).
        self.rating_changes: list[RatingChange] = []
        #: The clock as stored, its flags and its deadline.
        self.clock = TableClock(self, hub, stored.clock)
        self.match = self._stored_match(stored.moves, stored.clock)
        self.subscribers: list[Subscriber] = []
        #: Each local subscriber's presence as the store knows it (shared by every server process).
        self._presence_ids: dict[int, int] = {}
        #: Who is here through the other server processes sharing the store: (player, seated).
        self.remote: list[tuple[str, bool]] = []
        self.chat: deque[tuple[str, str]] = deque(stored.chat, maxlen=CHAT_LINES)
        self._unsent_chat: deque[tuple[str, str]] = deque(maxlen=CHAT_LINES)
        self.undo_request: UndoRequest | None = None
        #: Computer seats thinking at the server that plays them, when that is another server (its news).
        self.remote_thinking: frozenset[int] = frozenset()
        self.runner = TurnRunner(self, hub.executor.lane())
        #: The views of the position ``_views_of`` worked out so far, by viewer (see :meth:`view`).
        self._views_of: State | None = None
        self._views: dict[Viewer, View] = {}

    # -- who sits where --------------------------------------------------------

    @property
    def names(self) -> tuple[str, ...]:
        return self.match.names

    @property
    def generation(self) -> int:
        """Bumped by every change of position: a stale undo answer is dropped."""
        return self.runner.generation

    @property
    def thinking(self) -> frozenset[int]:
        """The computer seats thinking, here or at the server that plays them."""
        return self.runner.thinking | self.remote_thinking

    def changes_made(self) -> list[RatingChange]:
        return self.rating_changes

    def to_move(self) -> tuple[int, ...]:
        return () if self.closed else self.match.to_move()  # a closed table waits for nobody

    def to_move_for(self, player: str) -> bool:
        seat = self.seat_of(player)
        return seat is not None and seat in self.to_move()

    @property
    def over(self) -> bool:
        """The game ended, or the table was closed before it did."""
        return self.match.over or bool(self.closed)

    def final_status(self) -> str:
        """How a table that is over ended, as listings say it."""
        return f"closed: {self.closed}" if self.closed else self.view(None).status

    def watched(self) -> bool:
        """Anyone at the table, here or at another server: computers playing each other play for them."""
        return bool(self.subscribers or self.remote)

    def connected(self) -> set[str]:
        """Players with a seat here whose screen is open (on this server or another sharing the store)."""
        here = {sub.player for sub in self.subscribers if sub.seat is not None}
        return here | {player for player, seated in self.remote if seated}

    def spectators(self) -> list[str]:
        here = {sub.player for sub in self.subscribers if sub.seat is None}
        return sorted(here | {player for player, seated in self.remote if not seated})

    def describe_options(self) -> str:
        return self.game.describe_options(self.match.options)

    def presence(self) -> list[tuple[str, str]]:
        """(name, state) per seat: ``you``-agnostic states ``here``, ``away``, ``open``, ``ai``."""
        here = self.connected()
        out = []
        for number, seat in enumerate(self.seats, start=1):
            # A seat out of time that the computer plays now shows as the computer's.
            if seat.kind == AI or (seat.name is not None and self.match.computer_plays(number - 1)):
                out.append((seat.name or f"ai{number}", "ai"))
            elif seat.name is None:
                out.append((f"{OPEN_PREFIX}{number}", "open"))
            else:
                out.append((seat.name, "here" if seat.name in here else "away"))
        return out

    # -- views -------------------------------------------------------------------

    def view(self, viewer: Viewer) -> View:
        """What ``viewer`` may see; a spectator sees every board once the game is over.

        Worked out once per position and viewer: at each move every screen at the table asks for its view, and
        the screens of one seat (every spectator's, too) share that one frozen view.  Kept by viewer, so a seat
        only ever gets its own; a new position (a move, an undo, a seat taken: a new state) starts afresh.
        """
        state = self.match.state
        if state is not self._views_of:  # (a flag changes the views too: it forgets them, _forget_views)
            self._views_of, self._views = state, {}
        view = self._views.get(viewer)
        if view is None:
            view = self._views[viewer] = self.match.view(ALL if viewer is None and self.over else viewer)
        return view

    def read_clocks(self) -> tuple[Clocks, float] | None:
        """The clocks and the time now to read them at (None: untimed)."""
        clocks = self.match.clocks
        return None if clocks is None else (clocks, self.hub.now())

    def _stored_match(self, moves: list[MoveRecord], stored_clock: str) -> Match:
        """The match of these stored moves and clock (the clocks as stored, counting where they counted)."""
        clocks: Clocks | None = None
        flags: list[Flag] = []
        if stored_clock:
            clocks, flags = read_clock(stored_clock, len(self.seats))
        match = Match.replay(
            self.game, self.options, self.match_seats(), self.seed, moves,
            clock=clocks.spec if clocks else None, flags=flags,
        )
        if clocks is not None:
            match.clocks = clocks
        return match

    def _rebuilt(self, moves: list[MoveRecord]) -> Match:
        """The match again with this table's seats (one was taken): its clock and flags as they are."""
        match = Match.replay(
            self.game, self.options, self.match_seats(), self.seed, moves, clock=self.match.clock,
            flags=self.match.flags,
        )
        match.clocks = self.match.clocks
        return match

    def _forget_views(self) -> None:
        self._views_of = None

    # -- changes -----------------------------------------------------------------

    def play(self, seat: int, move: str, received: float | None = None) -> None:
        """Apply and store one move, then tell everyone; RuleError (nothing changes) if illegal.

        ``received``: when the move reached the server (the hub's clock; None: now), what it is charged up to."""
        self._refuse_closed()
        if self.seats[seat].is_open:
            raise RuleError(f"seat {seat + 1} has no player yet")
        self.clock.refuse_out_of_time(seat)
        try:
            prepared = prepare_move(self.match.state, seat, move)
        except RuleError:
            # Refused here, maybe because another server's move has not reached us yet: refused there too?
            if not self.hub.store.shared or not self.catch_up():
                raise
            prepared = prepare_move(self.match.state, seat, move)
        self.play_prepared(prepared, received)

    async def play_slow(self, seat: int, move: str, received: float | None = None) -> None:
        """:meth:`play` for a move whose checking takes long: checked in the pool, stored on the loop."""
        self._refuse_closed()
        if self.seats[seat].is_open:
            raise RuleError(f"seat {seat + 1} has no player yet")
        self.clock.refuse_out_of_time(seat)
        self.play_prepared(await self.runner.prepare_in_thread(seat, move), received)

    def play_prepared(self, prepared: PreparedMove, received: float | None = None) -> None:
        """Record, store and announce a checked move (on the loop); RuleError if refused.

        At a timed table the move is charged to its seat's clock, and stored only if the table's clock is still
        the one this table holds: a seat that ran out of time at another server meanwhile moves no more.
        The mover's clock stops when the move was ``received`` (at most ``MAX_RECEIPT_CREDIT`` before now), and
        the time since, the server's on other things, is charged to no one: the next clocks start now.
        """
        require_thread(self.hub.store.thread, "a move at a shared table")
        self._refuse_closed()
        now = self.hub.now()
        at = now if received is None else min(now, max(received, now - MAX_RECEIPT_CREDIT))
        self.clock.refuse_late(prepared.seat, at)
        clocks = self.match.clocks
        ply = len(self.match.moves)
        before = self.to_move()
        self.match.record(prepared, at=at)
        after = self.match.clocks
        if after is not None and after.since is not None and after.since < now:
            self.match.clocks = replace(after, since=now)
        after_clock = clock_text(self.match)
        try:
            self.hub.store.append_move(
                self.id, ply, self.match.moves[-1], clock=after_clock, clock_before=self.clock.text
            )
        except TableClosed:
            # Another server closed it a moment ago (its news is on the way): closed here too, now.
            self._take_back(ply, clocks)
            self.reload()
            self._refuse_closed()
            raise RuleError(f"table {self.id} was closed") from None
        except ClockChanged:
            # A seat ran out of time at another server first (its news is on the way): show that now.
            self._take_back(ply, clocks)
            self.catch_up()
            if prepared.seat in self.match.out_of_time:
                raise RuleError(f"{self.names[prepared.seat]} ran out of time: the move was not made") from None
            raise RuleError("the clocks changed meanwhile: the board now shows how; try again") from None
        except PlyTaken:
            # Another server accepted a move here first (its news is on the way): show that position now.
            self._take_back(ply, clocks)
            self.catch_up()
            raise RuleError("another move was accepted first: the board now shows it") from None
        except StoreUnavailable as error:
            self._take_back(ply, clocks)
            log.warning("table %s: move not stored: %s", self.id, error)
            raise RuleError(MOVE_NOT_STORED) from None
        except StoreError as error:
            self._take_back(ply, clocks)
            log.error("table %s: move not stored: %s", self.id, error)
            raise RuleError("the move could not be stored; try again") from None
        self.clock.text = after_clock
        self.undo_request = None
        self.runner.moved()
        self.broadcast("moved", "")
        self.hub.lobby_changed()
        self.clock.changed()
        self.tell_whose_move(before)
        if self.match.over:
            self.hub.finished(self)

    def _take_back(self, ply: int, clocks: Clocks | None) -> None:
        """A move recorded here but not stored: gone again, and the clocks as they were before it."""
        self.match.truncate(ply)
        self.match.clocks = clocks

    def join(self, player: str) -> int:
        """Seat ``player`` in the first open seat (or where they sit already)."""
        seat = self.seat_of(player)
        if seat is not None:
            return seat
        self._refuse_closed()
        if self.match.over:
            raise RuleError("the game is over")
        free = self.open_seats()
        if not free:
            raise RuleError(f"table {self.id} has no free seat")
        if player in self.names:
            raise RuleError(f"a seat at table {self.id} is already called {player}")
        if self.rated:
            self.hub.check_rated_seat(self.id, player, [s.name for s in self.seats if s.kind == HUMAN and s.name])
        seat = free[0]
        previous, previous_match = [s.to_dict() for s in self.seats], self.match
        self.seats[seat] = self.seats[seat].named(player)
        try:
            self.match = self._rebuilt(self.match.moves)
        except RuleError:
            self.seats[seat] = replace(self.seats[seat], name=None)
            raise
        started = None if self.open_seats() else self.clock.start()
        try:
            taken = self.hub.store.update_seats(self.id, [s.to_dict() for s in self.seats], previous, clock=started)
        except StoreError as error:
            taken = False
            log.error("table %s: seats not stored: %s", self.id, error)
        if not taken:  # another server seated someone first (or the store failed): its seats, then say so
            self.seats[seat], self.match = replace(self.seats[seat], name=None), previous_match
            self.reload()
            raise RuleError(f"seat {seat + 1} at table {self.id} was just taken: try again")
        self.runner.start()  # the position is the same: an AI deciding goes on, its move is checked again
        self.broadcast("seats", f"{player} takes seat {seat + 1}")
        self.hub.lobby_changed()
        if started is not None:
            self.clock.text = started
            self.clock.changed()
        return seat

    def request_undo(self, seat: int) -> str:
        """Ask to take back ``seat``'s last move; the other human players accept or refuse.

        RuleError when there is nothing to undo or an undo is waiting already."""
        self._refuse_closed()
        if self.rated and self.over:
            raise RuleError("The game is over and rated: its moves stand")
        ply = undo_ply(self.match, [seat])  # this player's last move, and the AI replies after it
        if ply is None:
            raise RuleError("Nothing to undo")
        if self.undo_request is not None and self.undo_request.generation == self.generation:
            raise RuleError("An undo is already waiting for an answer")
        others = {s for s in self.human_seats() if s != seat and self.seats[s].name is not None}
        if not others:
            self._undo_to(ply, f"{self.names[seat]} took back a move")
            return "Undone"
        self.undo_request = UndoRequest(seat, ply, others, self.generation)
        waiting = " and ".join(self.names[s] for s in sorted(others))
        self.broadcast("undo-request", f"{self.names[seat]} asks to take back their last move")
        # The other players may sit at other servers: theirs hold the same request.
        self._announce("undo-request", {"seat": seat, "ply": ply, "waiting": sorted(others),
                                        "moves": len(self.match.moves)})
        self.hub.players_news(self, "undo", sorted(others))
        return f"Asked {waiting} to accept the undo"

    def answer_undo(self, seat: int, accept: bool, *, remote: bool = False) -> None:
        """``seat``'s answer to the undo request; ``remote``: given at another server (it stores the undo)."""
        request = self.undo_request
        if request is None or request.generation != self.generation or seat not in request.waiting:
            return
        if not remote:
            self._announce("undo-answer", {"seat": seat, "accept": accept})
        if not accept:
            self.undo_request = None
            self.broadcast("notice", f"{self.names[seat]} refused the undo")
            return
        request.waiting.discard(seat)
        if not request.waiting:
            self.undo_request = None
            if not remote:  # the server where the last answer came stores the undo; the others hear of it
                self._undo_to(request.ply, f"Undo accepted: {self.names[request.seat]} takes back a move")

    def _undo_to(self, ply: int, notice: str) -> None:
        clock, clocks = self.clock.after_undo(ply)
        try:
            self.hub.store.truncate(self.id, ply, notice, clock=clock)
        except TableClosed:
            self.reload()
            raise RuleError(f"table {self.id} was closed: its moves stand") from None
        except StoreError as error:
            log.error("table %s: undo not stored: %s", self.id, error)
            raise RuleError("the undo could not be stored; try again") from None
        self.match.truncate(ply)
        self.match.clocks = clocks
        if clock is not None:
            self.clock.text = clock
        self.undo_request = None
        self.runner.rewound()
        self.broadcast("moved", "")
        self.broadcast("notice", notice)
        self.hub.lobby_changed()
        self.clock.changed()

    def rated_result(self) -> RatedResult | str:
        """The finished rated game's result, or why it rates nobody (one line)."""
        if not self.rated:
            return "casual"
        players: list[str] = []
        keys: list[str] = []
        for seat in self.seats:
            if seat.kind != HUMAN or seat.name is None:
                return "a seat is not a player's"
            account = None if is_guest(seat.name) else self.hub.store.account(seat.name)
            if account is None:
                return f"{seat.name} has no account (the first SSH key to sign in as a name claims it)"
            players.append(account[0])
            keys.append(account[1])
        if len({fold_name(name) for name in players}) != len(players):
            return "one account sat in two seats"
        if len(set(keys)) != len(keys):  # two names claimed by one key after they were seated
            return "two seats' names sign in with one SSH key: one person played both"
        # A seat that ran out of time ranks last (two seats: the other won on time).
        return RatedResult(self.game.name, tuple(players), tuple(self.match.ranks()))

    def say(self, player: str, text: str, owner: str | None = None) -> None:
        """One chat line from ``player`` (control characters removed, length capped); RuleError (one line)
        when ``owner`` (the person: see :func:`~.people.key_owner`) sends lines faster than the server's chat limit."""
        clean = "".join(c for c in text if c.isprintable()).strip()[:CHAT_WIDTH]
        if not clean:
            return
        if not self.hub.chat_limit.take(owner or name_owner(player)):
            raise RuleError(
                f"too many chat lines: {self.hub.config.chat_per_minute:g} a minute at most; that line was not sent"
            )
        try:
            self.hub.store.add_chat(self.id, player, clean)
        except StoreError as error:
            log.error("table %s: chat not stored: %s", self.id, error)
            self._unsent_chat.append((player, clean))  # stored when the store is back (read_chat_again)
        self.chat.append((player, clean))
        self.broadcast("chat", f"{player}: {clean}")

    def read_chat_again(self) -> None:
        """The chat as the store has it: lines said at other servers while this one could not hear them.

        Lines said here meanwhile, which the store could not take, are stored first (in the order said).
        """
        try:
            while self._unsent_chat:
                self.hub.store.add_chat(self.id, *self._unsent_chat[0])
                self._unsent_chat.popleft()
            stored = self.hub.store.load_table(self.id)
        except StoreError as error:
            log.error("table %s: chat not read again: %s", self.id, error)
            return
        if stored is None or list(self.chat) == stored.chat[-CHAT_LINES:]:
            return
        self.chat = deque(stored.chat, maxlen=CHAT_LINES)
        self.broadcast("chat", "")

    # -- clocks --------------------------------------------------------------------

    def check_clocks(self, now: float) -> None:
        """Flag every seat whose time ran out by ``now`` (the timekeeper calls this when the first is due)."""
        self.clock.check(now)

    def flagged(self, flags: list[Flag], *, here: bool) -> None:
        """Tell everyone at the table of seats that just ran out of time (``here``: flagged by this server, which
        finishes the game they end; else at another server)."""
        self._forget_views()
        self.undo_request = None
        self.runner.moved()
        self.broadcast("moved", "")
        for flag in flags:
            self.broadcast("notice", self.match.flag_notice(flag))
        self.hub.lobby_changed()
        self.clock.changed()
        if here and self.match.over:
            self.hub.finished(self)

    # -- subscribers -----------------------------------------------------------------

    def subscribe(self, subscriber: Subscriber) -> None:
        self.subscribers.append(subscriber)
        try:
            self._presence_ids[id(subscriber)] = self.hub.store.enter(
                self.id, subscriber.player, subscriber.seat is not None
            )
        except StoreError as error:
            log.error("table %s: presence not stored: %s", self.id, error)
        self.broadcast("presence", f"{subscriber.player} is here")
        self.hub.lobby_changed()
        if self.computers_only:  # someone watches: its computers play on
            self.runner.start()

    def unsubscribe(self, subscriber: Subscriber) -> None:
        if subscriber in self.subscribers:
            self.subscribers.remove(subscriber)
            presence = self._presence_ids.pop(id(subscriber), None)
            if presence is not None:
                try:
                    self.hub.store.leave(presence)
                except StoreError as error:
                    log.error("table %s: presence not stored: %s", self.id, error)
            self.broadcast("presence", f"{subscriber.player} left")
            self.hub.lobby_changed()

    # -- news from the other server processes sharing the store --------------------------

    def _announce(self, kind: str, data: dict[str, Any]) -> None:
        """News for this table's players at the other servers (lost news is logged: the table goes on here)."""
        try:
            self.hub.store.announce(self.id, kind, data)
        except StoreError as error:
            log.error("table %s: %s not announced: %s", self.id, kind, error)

    def catch_up(self) -> bool:
        """Play the moves the store has past ours (stored by other servers); True when there were some."""
        have = len(self.match.moves)
        try:
            records = self.hub.store.moves_from(self.id, have)
        except StoreError as error:
            log.error("table %s: cannot read the moves: %s", self.id, error)
            return False
        stored_clock = None
        if self.match.clock is not None:
            try:
                stored_clock = self.hub.store.table_clock(self.id)
            except StoreError as error:
                log.error("table %s: cannot read the clock: %s", self.id, error)
        if not records:
            return self.clock.adopt(stored_clock)
        before = self.to_move()
        try:
            for record in records:
                self.match.play(
                    record.seat, self.game.stored_move(record.move), time=record.time, at=self.hub.now(),
                    clock=record.clock,
                )
        except RuleError as error:  # cannot happen unless the position here went astray: start again from the store
            log.warning("table %s: the stored moves do not follow ours (%s): reloading", self.id, error)
            self.reload()
            return True
        self.moved_elsewhere(before)
        self.clock.adopt(stored_clock)
        return True

    def moved_elsewhere(self, before: Collection[int] = ()) -> None:
        """Moves made at another server were played here (``before``: the seats that were to move)."""
        self.undo_request = None
        self.runner.moved()
        self.broadcast("moved", "")
        self.hub.lobby_changed()
        self.tell_whose_move(before)

    def tell_whose_move(self, before: Collection[int]) -> None:
        """The players whose move it has just become (it was not theirs in ``before``) hear of it wherever they
        are; not the one who made the last move (it stays hers: Copolymer's extra claim, a correspondence move)."""
        moves = self.match.moves
        if self.over or not moves:
            return
        last = moves[-1].seat
        seats = [
            seat for seat in self.to_move()
            # (a seat out of time is the computer's now)
            if seat not in before and seat != last and not self.match.computer_plays(seat)
        ]
        if seats:
            self.hub.players_news(self, "move", seats)

    def reload(self) -> None:
        """Seats and moves again from the store (another server changed them in a way we cannot follow)."""
        stored = self.hub.store.load_table(self.id)
        if stored is None:
            return
        if stored.closed:
            self.was_closed(stored.closed)
        before = self.seats
        was_to_move, had = self.to_move(), len(self.match.moves)
        self.seats = [Seat.from_dict(seat) for seat in stored.seats]
        try:
            match = self._stored_match(stored.moves, stored.clock)
        except (RuleError, ValueError) as error:
            log.error("table %s cannot be reloaded: %s", self.id, error)
            self.seats = before
            return
        self.match, self.undo_request, self.clock.text = match, None, stored.clock
        self._forget_views()
        self.clock.changed()
        self.runner.rewound()
        self.broadcast("seats", "")
        self.broadcast("moved", "")
        self.hub.lobby_changed()
        if len(self.match.moves) > had:  # moves missed (the database was away): whose move it is now
            self.tell_whose_move(was_to_move)

    def remote_event(self, event: StoreEvent) -> None:
        data = event.data
        if event.kind == "move":
            ply = int(data["ply"])
            have = len(self.match.moves)
            if have > ply:
                return  # we know that move already (we read it when ours came second)
            if have == ply and isinstance(data.get("move"), str) and (self.match.clock is None or "clock" in data):
                left = data.get("left")
                before = self.to_move()
                try:
                    self.match.play(
                        int(data["seat"]), data["move"], time=str(data.get("time", "")), at=self.hub.now(),
                        clock=float(left) if isinstance(left, (int, float)) else None,
                    )
                except RuleError:
                    self.reload()
                    return
                self.moved_elsewhere(before)
                self.clock.adopt(data.get("clock"))
            else:
                self.catch_up()
        elif event.kind == "flag":
            if int(data.get("ply", -1)) != len(self.match.moves):
                self.catch_up()
            else:
                self.clock.adopt(str(data.get("clock", "")))
        elif event.kind == "truncate":
            ply = int(data["ply"])
            self.match.truncate(ply, at=self.hub.now())
            self.undo_request = None
            self.runner.rewound()
            self.broadcast("moved", "")
            if data.get("notice"):
                self.broadcast("notice", str(data["notice"]))
            self.hub.lobby_changed()
            self.clock.adopt(data.get("clock"))
        elif event.kind == "seats":
            self.reload_seats(data)
        elif event.kind == "chat":
            player, text = str(data.get("player", "")), str(data.get("text", ""))
            self.chat.append((player, text))
            self.broadcast("chat", f"{player}: {text}")
        elif event.kind == "presence":
            if not data:  # a server that died was swept: if it played our computer seats, it thinks no more
                self.remote_thinking = frozenset()
                self.broadcast("thinking", "")
            self.refresh_presence(str(data.get("text", "")))
        elif event.kind == "thinking":
            self.remote_thinking = frozenset(int(seat) for seat in data.get("seats", []))
            self.broadcast("thinking", "")
        elif event.kind == "undo-request":
            if int(data.get("moves", -1)) != len(self.match.moves):
                self.catch_up()
            seat = int(data["seat"])
            self.undo_request = UndoRequest(seat, int(data["ply"]), {int(s) for s in data["waiting"]},
                                            self.generation)
            self.broadcast("undo-request", f"{self.names[seat]} asks to take back their last move")
            self.hub.players_news(self, "undo", sorted(self.undo_request.waiting))
        elif event.kind == "finished":  # the server that stored the last move finished (and rated) the table
            if self.rated:
                self.rating_changes = self.hub.store.rating_changes(self.id)
            self.hub.forget_ratings(self.game.name)
            if data.get("notice"):
                self.broadcast("notice", str(data["notice"]))
        elif event.kind == "undo-answer":
            self.answer_undo(int(data["seat"]), bool(data["accept"]), remote=True)
        elif event.kind == "closed":  # another server closed it for inactivity (and kept its record)
            self.was_closed(str(data.get("reason", "no move for a long time")))

    # -- closing -------------------------------------------------------------------------

    def _refuse_closed(self) -> None:
        if self.closed:
            raise RuleError(f"table {self.id} was closed: {self.closed}")

    def was_closed(self, reason: str) -> None:
        """The table was just closed for inactivity (here or at another server): no more moves, not rated."""
        if self.closed:
            return
        self.closed = reason
        self.undo_request = None
        self.runner.stop()
        self._views_of = None  # spectators see what a finished game shows
        self.broadcast("moved", "")
        self.broadcast("notice", f"Table closed: {reason}" + ("; not rated" if self.rated else ""))
        self.hub.lobby_changed()

    def reload_seats(self, data: dict[str, Any]) -> None:
        seats = [Seat.from_dict(seat) for seat in data.get("seats", [])]
        if len(seats) != len(self.seats):
            return
        before = self.seats
        self.seats = seats
        try:
            self.match = self._rebuilt(self.match.moves)
        except RuleError as error:
            log.error("table %s: the seats stored elsewhere make no game: %s", self.id, error)
            self.seats = before
            return
        self.clock.adopt(data.get("clock"))
        self.runner.start()
        taken = [f"{seat.name} takes seat {number}" for number, (seat, old) in enumerate(zip(seats, before), start=1)
                 if seat.name is not None and old.name is None]
        self.broadcast("seats", "; ".join(taken))
        self.hub.lobby_changed()

    def refresh_presence(self, text: str = "") -> None:
        try:
            self.remote = self.hub.store.presence(self.id)
        except StoreError as error:
            log.error("table %s: presence not read: %s", self.id, error)
            return
        self.broadcast("presence", text)
        self.hub.lobby_changed()
        if self.computers_only and self.remote:  # watched at another server: its computers play on
            self.runner.start()

    def broadcast(self, kind: str, text: str) -> None:
        require_thread(self.hub.store.thread, "news of a shared table")
        for subscriber in list(self.subscribers):
            try:
                subscriber.table_event(kind, text)
            except Exception:  # a client that cannot take news is gone: drop it, keep the others
                log.exception("table %s: dropping a subscriber of %s", self.id, subscriber.player)
                if subscriber in self.subscribers:
                    self.subscribers.remove(subscriber)

    # -- the runner's host ---------------------------------------------------------------

    def now(self) -> float:
        return self.hub.now()

    def ai_may_move(self) -> bool:
        if self.hub.closed or self.closed:
            return False
        if self.computers_only and not self.watched():
            return False  # computers playing each other for nobody: they wait until someone watches
        # Sharing the store, one server process plays a table's computer seats (another takes over if it dies).
        return self.hub.store.may_play_ai(self.id)

    def ai_news(self, kind: str, text: str) -> None:
        if kind == "error":
            log.warning("table %s: %s", self.id, text)
        if kind == "thinking":
            self.remote_thinking = frozenset()  # this server plays the table's computer seats (now)
            if self.hub.store.shared:  # the other servers' screens show who thinks too
                self._announce("thinking", {"seats": sorted(self.runner.thinking)})
        self.broadcast(kind, text)

    def enter_again(self) -> None:
        """Store the presence of screens whose arrival the store missed (it could not be reached)."""
        for subscriber in self.subscribers:
            if id(subscriber) not in self._presence_ids:
                try:
                    self._presence_ids[id(subscriber)] = self.hub.store.enter(
                        self.id, subscriber.player, subscriber.seat is not None
                    )
                except StoreError as error:
                    log.error("table %s: presence not stored: %s", self.id, error)
                    return

    def differs_from(self, seats: str, moves: int, last: str) -> bool:
        """Whether the stored table (as :meth:`~.stores.interface.TableStore.changes` gives it) is not what we have."""
        have = self.match.moves
        mine = (f"{have[-1].move} {have[-1].time}" if have else "") + self.clock.text
        return json.loads(seats) != [seat.to_dict() for seat in self.seats] or moves != len(have) or last != mine
