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
(:func:`~termgames.server.store.require_thread` fails loudly otherwise).
"""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from ..match import AI, HUMAN, Match, PreparedMove, Seat, prepare_move, random_seed
from ..records import save
from ..rules import RuleError, View, Viewer, get_game
from ..rules.base import ALL
from ..turns import TurnRunner, undo_ply
from ..untrusted import is_usable_name
from .store import Store, StoredTable, require_thread

log = logging.getLogger("termgames.server")

#: Chat lines a table remembers for players who arrive later.
CHAT_LINES = 30
#: Lobbies hear of changes at most this often (seconds): a move need not wait for 30 lobby redraws.
LOBBY_NEWS_DELAY = 0.25
#: Longest chat line kept.
CHAT_WIDTH = 200

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,23}")
GUEST_PREFIX = "guest-"
OPEN_PREFIX = "seat-"


def valid_player_name(name: str) -> bool:
    """A name a player may register: letters, digits, ``_.-``; not a guest's or an open seat's."""
    if not _NAME.fullmatch(name) or not is_usable_name(name):
        return False
    lowered = name.lower()
    return not lowered.startswith(GUEST_PREFIX) and not re.fullmatch(r"seat-\d+", lowered)


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


class LiveTable:
    """One shared table: its authoritative match, seats, subscribers, chat, undo request and turn runner.

    The runner's host (:class:`~termgames.turns.RunnerHost`): it records the AI
    seats' moves as it records the players' (stored, then announced).
    """

    def __init__(self, hub: Hub, stored: StoredTable) -> None:
        self.hub = hub
        self.id = stored.id
        self.game = get_game(stored.game)
        self.options = stored.options
        self.seed = stored.seed
        #: The seats as stored: an open seat has no name yet.
        self.seats = [Seat.from_dict(seat) for seat in stored.seats]
        self.creator = stored.creator
        self.created = stored.created
        self.match = Match.replay(self.game, self.options, self.match_seats(), self.seed, stored.moves)
        self.subscribers: list[Subscriber] = []
        self.chat: deque[tuple[str, str]] = deque(maxlen=CHAT_LINES)
        self.undo_request: UndoRequest | None = None
        self.runner = TurnRunner(self, hub.executor)

    # -- who sits where --------------------------------------------------------

    def match_seats(self) -> list[Seat]:
        """The seats as the match knows them: an open seat is called ``seat-N`` until someone takes it."""
        seats = enumerate(self.seats, start=1)
        return [seat.named(f"{OPEN_PREFIX}{number}") if seat.is_open else seat for number, seat in seats]

    @property
    def names(self) -> tuple[str, ...]:
        return self.match.names

    @property
    def generation(self) -> int:
        """Bumped by every change of position: a stale undo answer is dropped."""
        return self.runner.generation

    @property
    def thinking(self) -> frozenset[int]:
        return self.runner.thinking

    def seat_of(self, player: str) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.kind == HUMAN and seat.name == player:
                return index
        return None

    def open_seats(self) -> list[int]:
        return [index for index, seat in enumerate(self.seats) if seat.is_open]

    def human_seats(self) -> list[int]:
        return [index for index, seat in enumerate(self.seats) if seat.kind == HUMAN]

    def to_move(self) -> tuple[int, ...]:
        return self.match.state.to_move()

    def to_move_for(self, player: str) -> bool:
        seat = self.seat_of(player)
        return seat is not None and seat in self.to_move()

    @property
    def over(self) -> bool:
        return self.match.over

    def connected(self) -> set[str]:
        """Players with a seat here whose screen is open."""
        return {sub.player for sub in self.subscribers if sub.seat is not None}

    def spectators(self) -> list[str]:
        return sorted({sub.player for sub in self.subscribers if sub.seat is None})

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
        """What ``viewer`` may see; a spectator sees every board once the game is over."""
        if viewer is None and self.match.over:
            return self.match.view(ALL)
        return self.match.view(viewer)

    # -- changes -----------------------------------------------------------------

    def play(self, seat: int, move: str) -> None:
        """Apply and store one move, then tell everyone; RuleError (nothing changes) if illegal."""
        if self.seats[seat].is_open:
            raise RuleError(f"seat {seat + 1} has no player yet")
        self.play_prepared(prepare_move(self.match.state, seat, move))

    async def play_slow(self, seat: int, move: str) -> None:
        """:meth:`play` for a move whose checking takes long: checked in the pool, stored on the loop."""
        if self.seats[seat].is_open:
            raise RuleError(f"seat {seat + 1} has no player yet")
        self.play_prepared(await self.runner.prepare_in_thread(seat, move))

    def play_prepared(self, prepared: PreparedMove) -> None:
        """Record, store and announce a checked move (on the loop); RuleError if refused."""
        require_thread(self.hub.store.thread, "a move at a shared table")
        ply = len(self.match.moves)
        self.match.record(prepared)
        try:
            self.hub.store.append_move(self.id, ply, self.match.moves[-1])
        except sqlite3.Error as error:
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
        if self.match.over:
            raise RuleError("the game is over")
        free = self.open_seats()
        if not free:
            raise RuleError(f"table {self.id} has no free seat")
        if player in self.names:
            raise RuleError(f"a seat at table {self.id} is already called {player}")
        seat = free[0]
        self.seats[seat] = self.seats[seat].named(player)
        try:
            self.match = Match.replay(self.game, self.options, self.match_seats(), self.seed, self.match.moves)
        except RuleError:
            self.seats[seat] = replace(self.seats[seat], name=None)
            raise
        self.hub.store.update_seats(self.id, [s.to_dict() for s in self.seats])
        self.runner.start()  # the position is the same: an AI deciding goes on, its move is checked again
        self.broadcast("seats", f"{player} takes seat {seat + 1}")
        self.hub.lobby_changed()
        return seat

    def request_undo(self, seat: int) -> str:
        """Ask to take back ``seat``'s last move; the other human players accept or refuse.

        RuleError when there is nothing to undo or an undo is waiting already."""
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
        return f"Asked {waiting} to accept the undo"

    def answer_undo(self, seat: int, accept: bool) -> None:
        request = self.undo_request
        if request is None or request.generation != self.generation or seat not in request.waiting:
            return
        if not accept:
            self.undo_request = None
            self.broadcast("notice", f"{self.names[seat]} refused the undo")
            return
        request.waiting.discard(seat)
        if not request.waiting:
            self.undo_request = None
            self._undo_to(request.ply, f"Undo accepted: {self.names[request.seat]} takes back a move")

    def _undo_to(self, ply: int, notice: str) -> None:
        self.hub.store.truncate(self.id, ply)
        self.match.truncate(ply)
        self.undo_request = None
        self.runner.rewound()
        self.broadcast("moved", "")
        self.broadcast("notice", notice)
        self.hub.lobby_changed()

    def say(self, player: str, text: str) -> None:
        """One chat line from ``player`` (control characters removed, length capped)."""
        clean = "".join(c for c in text if c.isprintable()).strip()[:CHAT_WIDTH]
        if not clean:
            return
        self.chat.append((player, clean))
        self.broadcast("chat", f"{player}: {clean}")

    # -- subscribers -----------------------------------------------------------------

    def subscribe(self, subscriber: Subscriber) -> None:
        self.subscribers.append(subscriber)
        self.broadcast("presence", f"{subscriber.player} is here")
        self.hub.lobby_changed()

    def unsubscribe(self, subscriber: Subscriber) -> None:
        if subscriber in self.subscribers:
            self.subscribers.remove(subscriber)
            self.broadcast("presence", f"{subscriber.player} left")
            self.hub.lobby_changed()

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
        return not self.hub.closed

    def ai_news(self, kind: str, text: str) -> None:
        if kind == "error":
            log.warning("table %s: %s", self.id, text)
        self.broadcast(kind, text)


# --------------------------------------------------------------------------
# The hub
# --------------------------------------------------------------------------


class Hub:
    """Every table of one server, loaded from and written to its :class:`Store`."""

    def __init__(self, store: Store, records_dir: Path | None = None, ai_threads: int = 2) -> None:
        self.store = store
        self.records_dir = records_dir
        self.executor = ThreadPoolExecutor(max_workers=ai_threads, thread_name_prefix="termgames-ai")
        self.closed = False
        self.tables: dict[int, LiveTable] = {}
        self.lobby_watchers: list[Callable[[], None]] = []
        self._lobby_news_due = False
        for stored in store.load_tables():
            try:
                self.tables[stored.id] = LiveTable(self, stored)
            except RuleError as error:
                log.error("table %s cannot be loaded: %s", stored.id, error)

    def start(self) -> None:
        """On the loop: let AI seats that were to move when the server stopped think again."""
        for table in self.tables.values():
            table.runner.start()

    def close(self) -> None:
        self.closed = True
        self.executor.shutdown(wait=False, cancel_futures=True)

    # -- tables --------------------------------------------------------------------

    def table(self, table_id: int | str) -> LiveTable:
        try:
            number = int(str(table_id).lstrip("#"))
        except ValueError:
            raise RuleError(f"{table_id!r} is not a table number") from None
        table = self.tables.get(number)
        if table is None:
            raise RuleError(f"there is no table {number}")
        return table

    def create_table(
        self,
        game_name: str,
        options: dict[str, Any],
        seats: Iterable[Seat],
        creator: str,
        seed: int | None = None,
    ) -> LiveTable:
        """A new table; RuleError if the game, options or seats make no game."""
        game = get_game(game_name)
        seats = list(seats)
        for index, seat in enumerate(seats):
            if seat.kind == HUMAN and seat.name is not None and not _is_player_name(seat.name):
                raise RuleError(f"{seat.name!r} is not a player name (letters, digits, _ . - only)")
            if seat.kind == HUMAN and seat.name is not None:
                # bob's seat is Bob's when Bob registered it (seats are frozen: the seat is replaced)
                seat = seats[index] = replace(seat, name=self.store.account_name(seat.name))
            if seat.kind == AI:
                if seat.level != game.check_level(seat.level):
                    raise RuleError(f"{game.title}'s AI levels are {', '.join(game.ai_levels)}, not {seat.level!r}")
                if not seat.name:
                    raise RuleError("an AI seat needs a name")
        seed = random_seed() if seed is None else seed
        stored = StoredTable(
            0, game.name, game.check_options(options), seed, [s.to_dict() for s in seats], creator, "", False
        )
        probe = LiveTable(self, stored)  # checks seat count, names and options before anything is stored
        table_id = self.store.create_table(game.name, probe.match.options, seed, stored.seats, creator)
        stored.id = table_id
        table = LiveTable(self, stored)
        self.tables[table_id] = table
        self.lobby_changed()
        table.runner.start()
        return table

    def finished(self, table: LiveTable) -> None:
        """A game just ended: mark it and export an ordinary record that ``termgames replay`` plays."""
        self.store.set_finished(table.id, True)
        path = self.record_path(table)
        if path is not None:
            try:
                save(path, table.match)
            except OSError as error:
                log.error("table %s: record not written: %s", table.id, error)

    def record_path(self, table: LiveTable) -> Path | None:
        if self.records_dir is None:
            return None
        return self.records_dir / f"{table.game.name}-table{table.id}.json"

    # -- where each player is ------------------------------------------------------

    def seated_at(self, player: str, table_id: int | None) -> None:
        """``player``'s screen is at this seated table now (None: back in the lobby); guests are not kept."""
        if not player.startswith(GUEST_PREFIX):
            self.store.set_at_table(player, table_id)

    def returning_to(self, player: str) -> LiveTable | None:
        """The table ``player`` was at when their connection dropped or the server stopped, if it goes on."""
        table_id = self.store.at_table(player)
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

    def finished_tables(self, player: str) -> list[LiveTable]:
        done = [t for t in self.tables.values() if t.over]
        return sorted(done, key=lambda t: (t.seat_of(player) is None, -t.id))

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


def _is_player_name(name: str) -> bool:
    return valid_player_name(name) or (name.startswith(GUEST_PREFIX) and bool(_NAME.fullmatch(name)))
