"""The live tables of a server: authoritative matches, who watches them, AI seats, undo requests.

Pure Python on the server's asyncio loop (no Textual, no asyncssh).  A
:class:`LiveTable` owns its :class:`~termgames.match.Match` (hidden boards
included) and never hands it to a client: clients get views.  Every change
(a move, a seat taken, an accepted undo) is stored first and then announced
to the table's subscribers with :meth:`Subscriber.table_event`; a subscriber
that raises is dropped, so one broken client never stops the others.

AI seats are played by the table's :class:`~termgames.turns.TurnRunner`, the
one the local game uses: bots think in the hub's thread pool, so one table's
AI never blocks the loop that every other table and player shares, and their
moves are stored and announced back on the loop.  The store, the broadcasts
and the lobby news are only ever reached from the loop's thread
(:func:`~termgames.server.stores.interface.require_thread` fails loudly otherwise).

Ratings: a table is rated or casual, chosen by its creator (rated by
default when every seat is a human's; a computer seat or a guest makes it
casual).  At a rated table one person takes one seat and guests take none: an
account is its SSH key, so two names one key signs in as never face each
other there.  When a rated game ends its players' accounts are rated in the
transaction that marks it finished (:meth:`Store.finish_table`); a seat whose
name no key has claimed (an account nobody signed in as) leaves the table
unrated.

People, not visits: every table counts against its *owner* (``key:...``, one
SSH key whatever names it uses; ``guest:ADDRESS``, every guest of one address),
whose unfinished tables are limited; a table where only computers play needs
a registered owner, counts against a smaller limit, and its computers think
only while someone watches.  A table without a move for ``idle_days`` (a
guest's or the computers': ``guest_idle_days``) is closed, unrated, by exactly one server
(:meth:`Hub.close_idle`); the server starts without replaying finished or
idle tables (a finished one is read when asked for).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from ..match import AI, HUMAN, Match, PreparedMove, Seat, prepare_move, random_seed
from ..paths import write_atomically
from ..rating import ranks_of
from ..records import dumps, save, to_dict
from ..rules import Game, RuleError, State, View, Viewer, get_game
from ..rules.base import ALL
from ..turns import TurnRunner, undo_ply
from ..untrusted import fold_name
from .limits import (
    AI_THREADS,
    CHAT_BURST,
    CHAT_PER_MINUTE,
    GUEST_IDLE_DAYS,
    IDLE_DAYS,
    MAX_BOT_TABLES_PER_PLAYER,
    MAX_TABLES,
    MAX_TABLES_PER_PLAYER,
)
from .logs import error_line
from .people import (
    GUEST_PREFIX,
    OPEN_PREFIX,
    check_rated_seat,
    is_guest,
    is_player_name,
    key_owner,
    name_owner,
)
from .pool import FairPool
from .stores.interface import (
    PlayerRating,
    PlyTaken,
    RatedResult,
    RatingChange,
    StoredTable,
    StoreError,
    StoreEvent,
    StoreUnavailable,
    TableActivity,
    TableClosed,
    TableStore,
    require_thread,
)

log = logging.getLogger("termgames.server")

#: Chat lines a table remembers for players who arrive later.
CHAT_LINES = 30
#: Seconds between two looks for tables whose computer seats nobody plays (their server died).
AI_TAKEOVER_SECONDS = 5.0
#: Lobbies hear of changes at most this often (seconds): a move need not wait for 30 lobby redraws.
LOBBY_NEWS_DELAY = 0.25
#: What a player sees when the database is lost under the server, and when it is back.
DATABASE_LOST = "The database cannot be reached: moves wait until it is back"
DATABASE_BACK = "The database is back: moves are accepted again"
#: A move refused while the database cannot be reached (nothing was changed: the player tries again).
MOVE_NOT_STORED = "the database cannot be reached: your move was not made; try again in a moment"
#: Longest chat line kept.
CHAT_WIDTH = 200
#: Seconds between two looks for tables idle long enough to be closed.
IDLE_CHECK_SECONDS = 600.0
#: Finished tables the lobby lists, the newest (read at start-up without their moves).
FINISHED_LISTED = 100

class RateLimit:
    """Token buckets by owner: ``per_minute`` a minute, in bursts of up to ``burst``."""

    def __init__(self, per_minute: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, owner: str) -> bool:
        """One more for ``owner`` now, if its bucket holds one."""
        now = self._clock()
        tokens, since = self._buckets.get(owner, (self.burst, now))
        tokens = min(self.burst, tokens + (now - since) * self.rate)
        if tokens < 1:
            self._buckets[owner] = (tokens, now)
            return False
        self._buckets[owner] = (tokens - 1, now)
        if len(self._buckets) > 10_000:  # many owners: forget those whose bucket is full again
            full = [key for key, (left, at) in self._buckets.items() if left + (now - at) * self.rate >= self.burst]
            for key in full:
                del self._buckets[key]
        return True


def idle_text(days: float) -> str:
    """``30 days``, ``a day``, ``6 hours``: how long a table went without a move before it was closed."""
    if days >= 1:
        return "a day" if days == 1 else f"{days:g} days"
    hours = days * 24
    if hours >= 1:
        return "an hour" if hours == 1 else f"{hours:.3g} hours"
    minutes = max(1, round(hours * 60))
    return "a minute" if minutes == 1 else f"{minutes} minutes"


def closed_record_text(match: Match, reason: str) -> str:
    """The record of a table closed before its game ended: the moves played, and why it was closed
    (``termgames replay`` reads it as any record of a game in progress)."""
    record = {**to_dict(match), "closed": f"closed for inactivity: {reason}; not rated"}
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------
# Subscribers
# --------------------------------------------------------------------------


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


# --------------------------------------------------------------------------
# A live table
# --------------------------------------------------------------------------


class TableFacts:
    """What every listing says of a table, loaded or not: its game, seats, rated or casual, whom it counts
    against, whether it was closed, and what it did to ratings."""

    def __init__(self, hub: Hub, stored: StoredTable) -> None:
        self.hub = hub
        self.id = stored.id
        self.game: Game = get_game(stored.game)
        self.options = stored.options
        #: The seats as stored: an open seat has no name yet.
        self.seats = [Seat.from_dict(seat) for seat in stored.seats]
        self.creator = stored.creator
        self.created = stored.created
        #: Rated (the result changes the players' ratings) or casual; fixed when the table is made.
        self.rated = stored.rated
        #: Why the table was closed before its game ended ("no move for 30 days"); empty while it was not.
        self.closed = stored.closed
        self._owner = stored.owner

    @property
    def owner(self) -> str:
        """Whom the table counts against (see :func:`key_owner`); worked out from its creator for a table
        made before owners were kept."""
        if not self._owner:
            self._owner = self.hub.owner_of(self.creator)
        return self._owner

    @property
    def computers_only(self) -> bool:
        """No human seat: computers play each other (they think only while someone watches)."""
        return all(seat.kind == AI for seat in self.seats)

    def match_seats(self) -> list[Seat]:
        """The seats as the match knows them: an open seat is called ``seat-N`` until someone takes it."""
        seats = enumerate(self.seats, start=1)
        return [seat.named(f"{OPEN_PREFIX}{number}") if seat.is_open else seat for number, seat in seats]

    def seat_of(self, player: str) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.kind == HUMAN and seat.name == player:
                return index
        return None

    def open_seats(self) -> list[int]:
        return [index for index, seat in enumerate(self.seats) if seat.is_open]

    def human_seats(self) -> list[int]:
        return [index for index, seat in enumerate(self.seats) if seat.kind == HUMAN]

    def changes_made(self) -> list[RatingChange]:
        """What this table did to its players' ratings (nothing before it finished rated)."""
        return []

    def rating_note(self, name: str) -> str:
        """What listings add to a player's name: ``+2.6`` once this rated game changed her rating, else her
        rating at this game (``27?``), else nothing (no rated game yet, a guest)."""
        change = next((c for c in self.changes_made() if fold_name(c.player) == fold_name(name)), None)
        if change is not None:
            return f"{change.after.mu - change.before.mu:+.1f}"
        found = self.hub.rating(name, self.game.name)
        return found.rating.short() if found else ""


class FinishedTable(TableFacts):
    """A finished table the server has not read whole: what the lobby and ``tables`` list of it, from its row.

    :meth:`Hub.table` reads it whole (its moves replayed) when a player asks for it: to replay it, for its
    record.  Start-up reads the newest :data:`FINISHED_LISTED` of these, never a move."""

    over = True

    def __init__(self, hub: Hub, stored: StoredTable) -> None:
        super().__init__(hub, stored)
        self.outcome = stored.outcome
        self._changes: list[RatingChange] | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(seat.name or "" for seat in self.match_seats())

    def changes_made(self) -> list[RatingChange]:
        if self._changes is None:  # read when a listing first shows it
            try:
                self._changes = self.hub.store.rating_changes(self.id) if self.rated else []
            except StoreError as error:
                log.warning("table %s: its rating changes not read: %s", self.id, error)
                return []
        return self._changes

    def to_move(self) -> tuple[int, ...]:
        return ()

    def to_move_for(self, player: str) -> bool:
        return False

    def spectators(self) -> list[str]:
        return []

    def describe_options(self) -> str:
        return self.game.describe_options(self.options)

    def final_status(self) -> str:
        # A table finished before outcomes were kept has none: its replay shows how it ended.
        return self.outcome or "finished"


class LiveTable(TableFacts):
    """One shared table: its authoritative match, seats, subscribers, chat, undo request and turn runner.

    The runner's host (:class:`~termgames.turns.RunnerHost`): it records the AI
    seats' moves as it records the players' (stored, then announced).
    """

    def __init__(self, hub: Hub, stored: StoredTable) -> None:
        super().__init__(hub, stored)
        self.seed = stored.seed
        #: What this table did to its players' ratings once it finished rated (empty otherwise).
        self.rating_changes: list[RatingChange] = []
        self.match = Match.replay(self.game, self.options, self.match_seats(), self.seed, stored.moves)
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
        return () if self.closed else self.match.state.to_move()  # a closed table waits for nobody

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
            if seat.kind == AI:
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
        if state is not self._views_of:
            self._views_of, self._views = state, {}
        view = self._views.get(viewer)
        if view is None:
            view = self._views[viewer] = self.match.view(ALL if viewer is None and self.over else viewer)
        return view

    # -- changes -----------------------------------------------------------------

    def play(self, seat: int, move: str) -> None:
        """Apply and store one move, then tell everyone; RuleError (nothing changes) if illegal."""
        self._refuse_closed()
        if self.seats[seat].is_open:
            raise RuleError(f"seat {seat + 1} has no player yet")
        try:
            prepared = prepare_move(self.match.state, seat, move)
        except RuleError:
            # Refused here, maybe because another server's move has not reached us yet: refused there too?
            if not self.hub.store.shared or not self.catch_up():
                raise
            prepared = prepare_move(self.match.state, seat, move)
        self.play_prepared(prepared)

    async def play_slow(self, seat: int, move: str) -> None:
        """:meth:`play` for a move whose checking takes long: checked in the pool, stored on the loop."""
        self._refuse_closed()
        if self.seats[seat].is_open:
            raise RuleError(f"seat {seat + 1} has no player yet")
        self.play_prepared(await self.runner.prepare_in_thread(seat, move))

    def play_prepared(self, prepared: PreparedMove) -> None:
        """Record, store and announce a checked move (on the loop); RuleError if refused."""
        require_thread(self.hub.store.thread, "a move at a shared table")
        self._refuse_closed()
        ply = len(self.match.moves)
        self.match.record(prepared)
        try:
            self.hub.store.append_move(self.id, ply, self.match.moves[-1])
        except TableClosed:
            # Another server closed it a moment ago (its news is on the way): closed here too, now.
            self.match.truncate(ply)
            self.reload()
            self._refuse_closed()
            raise RuleError(f"table {self.id} was closed") from None
        except PlyTaken:
            # Another server accepted a move here first (its news is on the way): show that position now.
            self.match.truncate(ply)
            self.catch_up()
            raise RuleError("another move was accepted first: the board now shows it") from None
        except StoreUnavailable as error:
            self.match.truncate(ply)
            log.warning("table %s: move not stored: %s", self.id, error)
            raise RuleError(MOVE_NOT_STORED) from None
        except StoreError as error:
            self.match.truncate(ply)
            log.error("table %s: move not stored: %s", self.id, error)
            raise RuleError("the move could not be stored; try again") from None
        self.undo_request = None
        self.runner.moved()
        self.broadcast("moved", "")
        self.hub.lobby_changed()
        if self.match.over:
            self.hub.finished(self)

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
            self.match = Match.replay(self.game, self.options, self.match_seats(), self.seed, self.match.moves)
        except RuleError:
            self.seats[seat] = replace(self.seats[seat], name=None)
            raise
        try:
            taken = self.hub.store.update_seats(self.id, [s.to_dict() for s in self.seats], previous)
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
        try:
            self.hub.store.truncate(self.id, ply, notice)
        except TableClosed:
            self.reload()
            raise RuleError(f"table {self.id} was closed: its moves stand") from None
        except StoreError as error:
            log.error("table %s: undo not stored: %s", self.id, error)
            raise RuleError("the undo could not be stored; try again") from None
        self.match.truncate(ply)
        self.undo_request = None
        self.runner.rewound()
        self.broadcast("moved", "")
        self.broadcast("notice", notice)
        self.hub.lobby_changed()

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
        state = self.match.state
        ranks = ranks_of(state.winners(), state.scores(), len(players))
        return RatedResult(self.game.name, tuple(players), tuple(ranks))

    def say(self, player: str, text: str, owner: str | None = None) -> None:
        """One chat line from ``player`` (control characters removed, length capped); RuleError (one line)
        when ``owner`` (the person: see :func:`key_owner`) sends lines faster than the server's chat limit."""
        clean = "".join(c for c in text if c.isprintable()).strip()[:CHAT_WIDTH]
        if not clean:
            return
        if not self.hub.chat_limit.take(owner or name_owner(player)):
            raise RuleError(
                f"too many chat lines: {self.hub.chat_per_minute:g} a minute at most; that line was not sent"
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
        if not records:
            return False
        try:
            for record in records:
                self.match.play(record.seat, self.game.stored_move(record.move), time=record.time)
        except RuleError as error:  # cannot happen unless the position here went astray: start again from the store
            log.warning("table %s: the stored moves do not follow ours (%s): reloading", self.id, error)
            self.reload()
            return True
        self.moved_elsewhere()
        return True

    def moved_elsewhere(self) -> None:
        self.undo_request = None
        self.runner.moved()
        self.broadcast("moved", "")
        self.hub.lobby_changed()

    def reload(self) -> None:
        """Seats and moves again from the store (another server changed them in a way we cannot follow)."""
        stored = self.hub.store.load_table(self.id)
        if stored is None:
            return
        if stored.closed:
            self.was_closed(stored.closed)
        before = self.seats
        self.seats = [Seat.from_dict(seat) for seat in stored.seats]
        try:
            match = Match.replay(self.game, self.options, self.match_seats(), self.seed, stored.moves)
        except RuleError as error:
            log.error("table %s cannot be reloaded: %s", self.id, error)
            self.seats = before
            return
        self.match, self.undo_request = match, None
        self.runner.rewound()
        self.broadcast("seats", "")
        self.broadcast("moved", "")
        self.hub.lobby_changed()

    def remote_event(self, event: StoreEvent) -> None:
        data = event.data
        if event.kind == "move":
            ply = int(data["ply"])
            have = len(self.match.moves)
            if have > ply:
                return  # we know that move already (we read it when ours came second)
            if have == ply and isinstance(data.get("move"), str):
                try:
                    self.match.play(int(data["seat"]), data["move"], time=str(data.get("time", "")))
                except RuleError:
                    self.reload()
                    return
                self.moved_elsewhere()
            else:
                self.catch_up()
        elif event.kind == "truncate":
            ply = int(data["ply"])
            self.match.truncate(ply)
            self.undo_request = None
            self.runner.rewound()
            self.broadcast("moved", "")
            if data.get("notice"):
                self.broadcast("notice", str(data["notice"]))
            self.hub.lobby_changed()
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
            self.match = Match.replay(self.game, self.options, self.match_seats(), self.seed, self.match.moves)
        except RuleError as error:
            log.error("table %s: the seats stored elsewhere make no game: %s", self.id, error)
            self.seats = before
            return
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
        """Whether the stored table (as :meth:`~.storage.TableStore.changes` gives it) is not what we have."""
        have = self.match.moves
        mine = f"{have[-1].move} {have[-1].time}" if have else ""
        return json.loads(seats) != [seat.to_dict() for seat in self.seats] or moves != len(have) or last != mine


def describe_change(change: RatingChange) -> str:
    """``alice 25.0 -> 27.6 (+2.6)``: one rating change, in plain ASCII."""
    before, after = change.before.mu, change.after.mu
    return f"{change.player} {before:.1f} -> {after:.1f} ({after - before:+.1f})"


# --------------------------------------------------------------------------
# The hub
# --------------------------------------------------------------------------


class Hub:
    """Every table of one server, loaded from and written to its :class:`~.storage.TableStore`."""

    def __init__(
        self,
        store: TableStore,
        records_dir: Path | None = None,
        ai_threads: int = AI_THREADS,
        *,
        max_tables_per_player: int = MAX_TABLES_PER_PLAYER,
        max_tables: int = MAX_TABLES,
        max_bot_tables_per_player: int = MAX_BOT_TABLES_PER_PLAYER,
        idle_days: float = IDLE_DAYS,
        guest_idle_days: float = GUEST_IDLE_DAYS,
        chat_per_minute: float = CHAT_PER_MINUTE,
    ) -> None:
        self.store = store
        #: Limits on unfinished tables, so that one person (or all) cannot fill the server's memory and disk.
        self.max_tables_per_player = max_tables_per_player
        self.max_tables = max_tables
        self.max_bot_tables_per_player = max_bot_tables_per_player
        #: Days without a move before a table is closed (a guest's table: guest_idle_days).
        self.idle_days = idle_days
        self.guest_idle_days = guest_idle_days
        #: Chat lines per person and minute (a flood costs every screen at the table a redraw a line).
        self.chat_per_minute = chat_per_minute
        self.chat_limit = RateLimit(chat_per_minute, CHAT_BURST)
        #: Finished tables not read whole, for the lobby's list (the newest FINISHED_LISTED at start-up).
        self.finished_listed: dict[int, FinishedTable] = {}
        self.records_dir = records_dir
        # Computer turns: a bounded pool, one lane per table served in turn (one slow table cannot starve the rest).
        self.executor = FairPool(ai_threads)
        self.closed = False
        self.tables: dict[int, LiveTable] = {}
        self.lobby_watchers: list[Callable[[], None]] = []
        self._lobby_news_due = False
        #: Ratings by game, then by folded account name: read from the store once, renewed when a game is rated.
        self._ratings: dict[str, dict[str, PlayerRating]] = {}
        #: Tables that could not be loaded, by id: why (one line).  Set aside: the server serves the others.
        self.set_aside: dict[int, str] = {}
        # Start-up replays the unfinished tables only, once the idle ones are closed (without replaying them).
        self.close_idle()
        for stored in store.load_open_tables():
            table = self._live(stored)
            if table is None:
                continue
            try:
                if table.over:
                    # Its last move was stored but the server stopped before the table was marked finished.
                    self.finished(table)
            except Exception as error:  # its end is tried again at the next start; the server starts now
                log.error("table %s: its end not stored: %s", table.id, error_line(error))
        self._list_finished()

    def _live(self, stored: StoredTable) -> LiveTable | None:
        """The stored table made live and served; None when it cannot be (logged and set aside).

        Whatever is wrong with one table (a row edited by hand, a bug one position reaches) must not stop the
        server nor any other table.  The log says which table and why in one line: never its seed, its hidden
        boards or a traceback's local variables.
        """
        try:
            if stored.unreadable:
                raise ValueError(stored.unreadable)
            table = LiveTable(self, stored)
        except Exception as error:
            reason = stored.unreadable or error_line(error)
            log.error("table %s cannot be loaded, set aside: %s", stored.id, reason)
            self.set_aside[stored.id] = reason
            return None
        self.set_aside.pop(stored.id, None)
        self.tables[stored.id] = table
        return table

    def _list_finished(self) -> None:
        try:
            recent = self.store.recent_finished(FINISHED_LISTED)
        except StoreError as error:
            log.error("finished tables not listed: %s", error)
            return
        for stored in recent:
            if stored.unreadable:
                log.warning("finished table %s not listed: %s", stored.id, stored.unreadable)
                continue
            try:
                self.finished_listed[stored.id] = FinishedTable(self, stored)
            except Exception as error:  # a game this version does not know, a row that makes no table
                log.warning("finished table %s not listed: %s", stored.id, error_line(error))

    def start(self) -> None:
        """On the loop: let AI seats that were to move when the server stopped think again; hear other servers."""
        self.store.listen(self.remote_event)
        for table in self.tables.values():
            table.runner.start()
            if self.store.shared and not table.over:  # who is at it through the servers already running
                table.refresh_presence()
        loop = asyncio.get_running_loop()
        if self.store.shared:
            self._watch_task = loop.create_task(self._watch_other_servers())
        self._idle_task = loop.create_task(self._close_idle_forever())

    async def _close_idle_forever(self) -> None:
        while not self.closed:
            await asyncio.sleep(IDLE_CHECK_SECONDS)
            self.close_idle()

    def close_idle(self, now: datetime | None = None) -> list[int]:
        """Close every unfinished table without a move for ``idle_days`` (a guest's: ``guest_idle_days``).

        Tables where a player sits at her screen now are left alone.  The store closes each one only if it is
        still idle and unfinished (the row's lock orders the close and a move), so of several servers sharing
        the database exactly one closes it: that one keeps its record; the others hear of it.  Not replayed
        here: a table closed at start-up is read (and its record made) when someone asks for it.  Returns the
        tables this call closed.
        """
        now = now or datetime.now(UTC)
        try:
            activity = self.store.open_activity()
        except StoreError as error:
            log.error("idle tables not looked for: %s", error)
            return []
        closed = []
        for table in activity:
            live = self.tables.get(table.id)
            if live is not None and live.connected():
                continue  # someone sits at it now, thinking maybe: not idle
            days = self.guest_idle_days if _nobody_comes_back(table) else self.idle_days
            before = now - timedelta(days=days)
            try:
                if _parse_time(table.last) >= before:
                    continue
                reason = f"no move for {idle_text(days)}"
                if not self.store.close_table(table.id, reason, before.replace(microsecond=0).isoformat()):
                    continue  # a move came meanwhile, or another server closed it first
            except StoreError as error:
                log.error("table %s: not closed: %s", table.id, error)
                continue
            log.info("table %s closed: %s", table.id, reason)
            closed.append(table.id)
            if live is not None:
                live.was_closed(reason)
                self.keep_record(live)
        return closed

    async def _watch_other_servers(self) -> None:
        """A server that died leaves its tables' computer seats to the others: one of them takes each over."""
        while not self.closed:
            await asyncio.sleep(AI_TAKEOVER_SECONDS)
            for table in list(self.tables.values()):
                if not table.over and not table.runner.thinking and any(
                    table.match.seats[seat].is_ai for seat in table.to_move()
                ):
                    table.runner.start()

    def close(self) -> None:
        self.closed = True
        # Every computer player thinking stops now: a search left to run to its 2 s deadline kept the stopping
        # server's process from exiting (its thread holds the interpreter) long after everything was closed.
        for table in self.tables.values():
            table.runner.stop()
        for name in ("_watch_task", "_idle_task"):
            task = getattr(self, name, None)
            if task is not None:
                task.cancel()
        self.executor.shutdown(wait=False, cancel_futures=True)

    def remote_event(self, event: StoreEvent) -> None:
        """A change made by another server process sharing the store (on the loop)."""
        if self.closed:
            return
        if event.kind == "offline":
            self.tell_every_table(DATABASE_LOST)
            return
        if event.kind == "online":
            self.read_again()
            self.tell_every_table(DATABASE_BACK)
            return
        try:
            live = self.tables.get(event.table_id)
            if live is None:  # a new table (or one made while we started): load it whole, news included
                stored = self.store.load_table(event.table_id)
                if stored is not None and not stored.finished:
                    self._install(stored)
                elif stored is not None:  # finished: listed, and read whole when asked for
                    self.finished_listed[stored.id] = FinishedTable(self, stored)
                    self.lobby_changed()
                return
            if event.kind != "table":
                live.remote_event(event)
        except (StoreError, RuleError, LookupError, ValueError, TypeError) as error:
            log.error("table %s: news from another server not applied: %s", event.table_id, error)

    def tell_every_table(self, notice: str) -> None:
        for table in list(self.tables.values()):
            if table.subscribers:
                table.broadcast("notice", notice)

    def read_again(self) -> None:
        """The database is back after a loss: read again every table that changed meanwhile.

        News sent while this server could not hear is lost; what the database holds is compared with each
        live table (seats, number of moves, the last move) instead, and a table that differs is read again.
        """
        try:
            stored = self.store.changes(list(self.tables))
        except StoreError as error:  # lost again: the next ``online`` reads again
            log.error("tables not read again: %s", error)
            return
        for table_id, (seats, finished, moves, last) in stored.items():
            live = self.tables.get(table_id)
            try:
                if live is None:
                    self.remote_event(StoreEvent("table", table_id, {}))  # a table made meanwhile
                    continue
                if live.differs_from(seats, moves, last) or (finished and not live.over):
                    live.reload()  # (finished here: closed for inactivity at another server meanwhile)
                if live.over and not finished:  # its last move was stored as the database went: finish it now
                    self.finished(live)
                if finished and live.over and live.rated and not live.rating_changes:
                    live.rating_changes = self.store.rating_changes(table_id)
                    self.forget_ratings(live.game.name)
            except (StoreError, RuleError, LookupError, ValueError, TypeError) as error:
                log.error("table %s not read again: %s", table_id, error)
        for table in list(self.tables.values()):
            table.read_chat_again()
            if table.over:
                continue
            table.enter_again()
            table.refresh_presence()
            if not table.runner.thinking:  # a computer seat whose move could not be stored thinks again
                table.runner.rewound()

    # -- tables --------------------------------------------------------------------

    def table(self, table_id: int | str) -> LiveTable:
        try:
            number = int(str(table_id).lstrip("#"))
        except ValueError:
            raise RuleError(f"{table_id!r} is not a table number") from None
        table = self.tables.get(number)
        if table is None:  # finished (read when asked for), or made at another server, its news not heard (yet)
            try:
                stored = self.store.load_table(number)
            except StoreError as error:
                log.warning("table %s not read: %s", number, error)
                stored = None
            if stored is not None and number not in self.tables:
                table = self._install(stored)
        if table is None:
            if number in self.set_aside:
                raise RuleError(f"table {number} cannot be shown: {self.set_aside[number]}")
            raise RuleError(f"there is no table {number}")
        return table

    def _install(self, stored: StoredTable) -> LiveTable | None:
        """A table read from the store after start-up, replayed and kept; None when it cannot be (set aside)."""
        table = self._live(stored)
        if table is None:
            return None
        self.finished_listed.pop(stored.id, None)
        if stored.finished and table.rated:
            table.rating_changes = self.store.rating_changes(table.id)
        table.runner.start()
        self.lobby_changed()
        return table

    def create_table(
        self,
        game_name: str,
        options: dict[str, Any],
        seats: Iterable[Seat],
        creator: str,
        seed: int | None = None,
        rated: bool | None = None,
        owner: str | None = None,
    ) -> LiveTable:
        """A new table; RuleError if the game, options or seats make no game.

        ``rated`` None: rated when every seat is a human's and no guest's, casual otherwise.  Asked for
        explicitly, a rated table with a computer seat, a guest or one person in two seats is refused.
        ``owner``: whom it counts against (the connection knows: :func:`key_owner`, :func:`guest_owner`);
        None works it out from ``creator``.
        """
        game = get_game(game_name)
        seats = list(seats)
        computers_only = all(seat.kind == AI for seat in seats)
        if computers_only and (is_guest(creator) or self.store.account(creator) is None):
            raise RuleError("only a registered player makes a table of computers only (sign in with an SSH key)")
        owner = owner or self.owner_of(creator)
        self._check_table_limits(owner, computers_only)
        for index, seat in enumerate(seats):
            if seat.kind == HUMAN and seat.name is not None and not is_player_name(seat.name):
                raise RuleError(f"{seat.name!r} is not a player name (letters, digits, _ . - only)")
            if seat.kind == HUMAN and seat.name is not None:
                # bob's seat is Bob's when Bob registered it (seats are frozen: the seat is replaced)
                seat = seats[index] = replace(seat, name=self.store.account_name(seat.name))
            if seat.kind == AI:
                if seat.level != game.check_level(seat.level):
                    raise RuleError(f"{game.title}'s AI levels are {', '.join(game.ai_levels)}, not {seat.level!r}")
                if not seat.name:
                    raise RuleError("an AI seat needs a name")
        rated = self._rated_choice(seats, creator, rated)
        seed = random_seed() if seed is None else seed
        stored = StoredTable(
            0, game.name, game.check_options(options), seed, [s.to_dict() for s in seats], creator, "", False,
            rated=rated,
        )
        probe = LiveTable(self, stored)  # checks seat count, names and options before anything is stored
        try:
            table_id = self.store.create_table(
                game.name, probe.match.options, seed, stored.seats, creator, rated, owner=owner
            )
        except StoreError as error:
            log.error("a table not stored: %s", error)
            raise RuleError("the table could not be stored; try again") from None
        stored.id, stored.owner = table_id, owner
        table = LiveTable(self, stored)
        self.tables[table_id] = table
        self.lobby_changed()
        table.runner.start()
        return table

    def _rated_choice(self, seats: list[Seat], creator: str, rated: bool | None) -> bool:
        """Whether a new table is rated: the creator's choice, checked, or the default (see create_table)."""
        if rated is False:
            return False
        if any(seat.kind == AI for seat in seats):
            if rated:
                raise RuleError("a table with a computer seat is casual: ratings are for games between people")
            return False
        if rated is None and (is_guest(creator) or any(seat.name and is_guest(seat.name) for seat in seats)):
            return False
        seated: list[str] = []
        for seat in seats:
            if seat.name is not None:
                self.check_rated_seat(None, seat.name, seated)
                seated.append(seat.name)
        if is_guest(creator):
            raise RuleError("guests play at casual tables (sign in with an SSH key to be rated)")
        return True

    def check_rated_seat(self, table_id: int | None, player: str, seated: Iterable[str]) -> None:
        """RuleError unless ``player`` may take a seat at a rated table where ``seated`` sit already: not a
        guest, not an account seated already, nor another name of one seated (an account is its key)."""
        seated = list(seated)
        check_rated_seat(table_id, player, seated)
        key = self.store.key_of(player)
        if key is None:
            return  # no account yet: the finish checks again (rated_result)
        for name in seated:
            if self.store.key_of(name) == key:
                where = f"table {table_id} is rated" if table_id is not None else "a rated table"
                raise RuleError(f"{where}: {player} and {name} sign in with one SSH key, so one person plays both")

    def owner_of(self, player: str) -> str:
        """Whom ``player``'s tables count against when no connection says: her account's key (a guest, or a
        name no key has claimed, only herself)."""
        if not is_guest(player):
            try:
                key = self.store.key_of(player)
            except StoreError as error:  # the database is away: her name stands for her meanwhile
                log.warning("%s: key not read: %s", player, error)
                key = None
            if key is not None:
                return key_owner(key)
        return name_owner(player)

    def _check_table_limits(self, owner: str, computers_only: bool = False) -> None:
        """RuleError (a clear refusal) when the owner or the server has as many open tables as allowed."""
        open_tables = [table for table in self.tables.values() if not table.over]
        if len(open_tables) >= self.max_tables:
            raise RuleError(f"the server has {len(open_tables)} open tables, its limit: finish or wait for one")
        mine = [table for table in open_tables if table.owner == owner]
        who = "the guests of your address have" if owner.startswith("guest:") else "you have"
        if computers_only:
            computers = sum(1 for table in mine if table.computers_only)
            if computers >= self.max_bot_tables_per_player:
                raise RuleError(
                    f"{who} {computers} open tables of computers only, the limit per player: wait for one to end"
                )
        if len(mine) >= self.max_tables_per_player:
            raise RuleError(
                f"{who} {len(mine)} open tables, the limit per player: finish or resign one before opening another"
            )

    def finished(self, table: LiveTable) -> None:
        """A game just ended: mark it (rating its players if it is rated) and export a record ``termgames replay``
        plays (kept in the store too)."""
        result = table.rated_result()
        notice = ""
        outcome = table.final_status()
        try:
            if isinstance(result, str):
                self.store.finish_table(table.id, outcome=outcome)
                if table.rated:
                    log.info("table %s finished unrated: %s", table.id, result)
                    notice = f"Not rated: {result}"
            else:
                table.rating_changes = self.store.finish_table(table.id, result, outcome=outcome)
                self.forget_ratings(table.game.name)
                if table.rating_changes:
                    notice = "Rated: " + ", ".join(map(describe_change, table.rating_changes))
            self.store.save_record(table.id, dumps(table.match))
        except StoreError as error:
            log.error("table %s: its end not stored: %s", table.id, error)
        if notice:
            table.broadcast("notice", notice)
        # The other servers saw the last move; the ratings it made are news to them.
        table._announce("finished", {"notice": notice})
        path = self.record_path(table)
        if path is not None:
            try:
                save(path, table.match)
                # Finished records show every hidden board: the server's account only (as the data folder).
                os.chmod(path.parent, 0o700)
                os.chmod(path, 0o600)
            except OSError as error:
                log.error("table %s: record not written: %s", table.id, error)

    def keep_record(self, table: LiveTable) -> None:
        """The record of a table this server just closed for inactivity: with the table, and in ``records/``."""
        text = closed_record_text(table.match, table.closed)
        try:
            self.store.save_record(table.id, text)
        except StoreError as error:
            log.error("table %s: its record not stored: %s", table.id, error)
        path = self.record_path(table)
        if path is not None:
            try:
                write_atomically(path, text.encode("utf-8"), mode=0o600)
                os.chmod(path.parent, 0o700)
            except OSError as error:
                log.error("table %s: record not written: %s", table.id, error)

    def record_path(self, table: LiveTable) -> Path | None:
        if self.records_dir is None:
            return None
        return self.records_dir / f"{table.game.name}-table{table.id}.json"

    def record_json(self, table: LiveTable) -> str:
        """A finished table's record (what ``termgames replay`` reads), whichever server finished it.

        The file of this server's ``records/`` folder when it finished the game here, else the copy kept in
        the database, else the record made again from the moves (every server holds them)."""
        if not table.over:
            raise RuleError(f"table {table.id} is not finished: its record is kept when it ends")
        path = self.record_path(table)
        if path is not None:
            try:
                return path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                pass  # finished at another server: not in our folder
        try:
            kept = self.store.record(table.id)
        except StoreError as error:
            log.warning("table %s: record not read from the database: %s", table.id, error)
            kept = None
        if kept:
            return kept
        return closed_record_text(table.match, table.closed) if table.closed else dumps(table.match)

    # -- ratings --------------------------------------------------------------------

    def ratings(self, game: str) -> dict[str, PlayerRating]:
        """The rated accounts at ``game`` by folded name (kept in memory: every lobby line asks)."""
        known = self._ratings.get(game)
        if known is None:
            known = self._ratings[game] = {fold_name(r.player): r for r in self.store.ratings(game)}
        return known

    def rating(self, player: str, game: str) -> PlayerRating | None:
        """``player``'s rating at ``game``; None for a guest or before their first rated game of it."""
        return self.ratings(game).get(fold_name(player))

    def forget_ratings(self, game: str) -> None:
        """``game``'s ratings changed (here or at another server): read them again when next asked."""
        self._ratings.pop(game, None)

    # -- where each player is ------------------------------------------------------

    def seated_at(self, player: str, table_id: int | None) -> None:
        """``player``'s screen is at this seated table now (None: back in the lobby); guests are not kept."""
        if not player.startswith(GUEST_PREFIX):
            try:
                self.store.set_at_table(player, table_id)
            except StoreError as error:  # only where a reconnection leads: the game itself is stored
                log.warning("%s: where they sit not stored: %s", player, error)

    def returning_to(self, player: str) -> LiveTable | None:
        """The table ``player`` was at when their connection dropped or the server stopped, if it goes on."""
        try:
            table_id = self.store.at_table(player)
        except StoreError as error:
            log.warning("%s: where they sat not read: %s", player, error)
            return None
        if table_id is None:
            return None
        table = self.tables.get(table_id)
        if table is None or table.over or table.seat_of(player) is None:
            self.seated_at(player, None)  # that game is over (or gone): the lobby, and next time too
            return None
        return table

    # -- listings for a player -------------------------------------------------------

    def open_tables(self, player: str) -> list[LiveTable]:
        return [t for t in self.tables.values() if not t.over and t.open_seats() and t.seat_of(player) is None]

    def my_tables(self, player: str) -> list[LiveTable]:
        mine = [t for t in self.tables.values() if t.seat_of(player) is not None and not t.over]
        return sorted(mine, key=lambda t: (not t.to_move_for(player), -t.id))

    def finished_tables(self, player: str) -> list[LiveTable | FinishedTable]:
        """Finished and closed tables, ``player``'s first, newest first: those read whole, and the newest
        others (:attr:`finished_listed`)."""
        done: dict[int, LiveTable | FinishedTable] = dict(self.finished_listed)
        done.update((t.id, t) for t in self.tables.values() if t.over)
        return sorted(done.values(), key=lambda t: (t.seat_of(player) is None, -t.id))

    def tables_of(self, player: str) -> list[LiveTable | FinishedTable]:
        """Every table ``player`` sits at that this server holds (finished ones as :meth:`finished_tables`)."""
        mine: dict[int, LiveTable | FinishedTable] = {
            t.id: t for t in self.finished_listed.values() if t.seat_of(player) is not None
        }
        mine.update((t.id, t) for t in self.tables.values() if t.seat_of(player) is not None)
        return sorted(mine.values(), key=lambda t: t.id)

    def watchable_tables(self, player: str) -> list[LiveTable]:
        return [t for t in self.tables.values() if not t.over and t.seat_of(player) is None]

    # -- lobby news ----------------------------------------------------------------------

    def watch_lobby(self, callback: Callable[[], None]) -> None:
        self.lobby_watchers.append(callback)

    def unwatch_lobby(self, callback: Callable[[], None]) -> None:
        if callback in self.lobby_watchers:
            self.lobby_watchers.remove(callback)

    def lobby_changed(self) -> None:
        """Tell every lobby, once per burst of changes (every move changes some lobby line)."""
        require_thread(self.store.thread, "the lobby news")
        if self._lobby_news_due:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._tell_lobbies()
            return
        self._lobby_news_due = True
        loop.call_later(LOBBY_NEWS_DELAY, self._tell_lobbies)

    def _tell_lobbies(self) -> None:
        self._lobby_news_due = False
        for callback in list(self.lobby_watchers):
            try:
                callback()
            except Exception:
                log.exception("dropping a lobby watcher")
                self.unwatch_lobby(callback)


def _nobody_comes_back(table: TableActivity) -> bool:
    """Closed after ``guest_idle_days``, not ``idle_days``: a guest's table (she made it or sits at it, and
    cannot come back to it after her visit), or one where only computers play (they played only while
    someone watched: nobody waits for it)."""
    names = [seat.get("name") for seat in table.seats]
    if is_guest(table.creator) or any(isinstance(name, str) and is_guest(name) for name in names):
        return True
    return bool(table.seats) and all(seat.get("kind") == AI for seat in table.seats)


def _parse_time(text: str) -> datetime:
    """A stored ``now_iso`` time; anything unreadable counts as long ago (such a table is idle)."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)



