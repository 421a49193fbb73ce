"""What the server asks of its database: the store interface, the records it gives back, its errors.

:class:`~termgames.server.stores.sqlite.Store` is the embedded SQLite file of one
server process (the default); :class:`~termgames.server.stores.postgres.PostgresStore`
is a PostgreSQL database shared by many server processes, on one machine or
several.  The hub talks to either through :class:`TableStore` only.

Every method is called on the server's event loop and answers at once (a
move is accepted only once its row is committed, so the hub waits for the
commit).  Changes made by *other* processes sharing the database come back
as :class:`StoreEvent` to the callback given to :meth:`TableStore.listen`,
on the loop; a store of one process (SQLite) never sends any.

Imports no store and nothing of the server but its log line: the stores import it, never the other way.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from ...match import MoveRecord
from ...rating import Rating
from ...timesource import SYSTEM, TimeSource, utc_now
from ..logs import error_line

#: Chat lines a store keeps per table (the oldest go as new ones come): a flood cannot fill the database.
CHAT_KEPT = 100


def require_thread(owner: threading.Thread, what: str) -> None:
    """Fail loudly when ``what`` is reached from a thread other than ``owner`` (the event loop's).

    The store, the hub's broadcasts and the lobby news are written for one
    thread: a worker thread (an AI, a long search) that reached them would race
    the loop.  The check is one comparison, so it stays on outside tests too.
    """
    current = threading.current_thread()
    if current is not owner:
        raise RuntimeError(f"{what} reached from thread {current.name!r}, not the event loop's ({owner.name!r})")


class StoreError(Exception):
    """The database refused or could not be reached: the change was not made."""


class StoreUnavailable(StoreError):
    """The database cannot be reached right now (it restarts, the network dropped): try again in a moment."""


class PlyTaken(StoreError):
    """Another move was stored for that ply first (by this server or another): this one is not accepted."""


class TableClosed(StoreError):
    """The table was closed for inactivity (by this server or another): no move or undo is stored any more."""


class ClockChanged(PlyTaken):
    """The table's clock is not what this server held: a seat ran out of time there first (or the clocks were
    credited a downtime).  The move is not accepted; the table is read again."""


@dataclass
class StoredTable:
    id: int
    game: str
    options: dict[str, Any]
    seed: int
    #: One dict per seat: ``{"kind": "human"|"ai", "name": str|None, "level": str|None}``.
    seats: list[dict[str, Any]]
    creator: str
    created: str
    finished: bool
    moves: list[MoveRecord] = field(default_factory=list)
    #: Rated (the result changes its players' ratings) or casual.
    rated: bool = False
    #: The last chat lines, oldest first (a store that keeps no chat gives none).
    chat: list[tuple[str, str]] = field(default_factory=list)
    #: Whom the table counts against (``key:...`` a registered person, ``guest:ADDRESS`` the guests of one
    #: address); empty for a table made before owners were kept.
    owner: str = ""
    #: Why the table was closed before its game ended (no move for a while); empty when it was not.
    closed: str = ""
    #: A finished table's last status line, as the lobby shows it without replaying its moves.
    outcome: str = ""
    #: Why the row makes no table ("" when it does): the hub sets such a table aside.
    unreadable: str = ""
    #: The table's clock as stored (JSON text: the clocks and the seats out of time); empty when untimed.
    clock: str = ""


@dataclass
class StoredTournament:
    """A tournament as stored: its document (what :mod:`termgames.server.tournaments` keeps: game, format,
    players, rounds...) and its version, bumped by every change, so that a change is stored only over the
    version it was made from (:meth:`TableStore.update_tournament`): of several servers exactly one pairs a round."""

    id: int
    version: int
    status: str
    data: dict[str, Any]


def tournament_from_row(tournament_id: int, version: int, status: str, data: str) -> StoredTournament | None:
    """The row as a tournament; None when its document is not a JSON object (a row edited by hand)."""
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if not isinstance(document, dict):
        return None
    return StoredTournament(int(tournament_id), int(version), str(status), document)


def table_from_row(
    table_id: int, game: str, options: str, seed: str, seats: str, creator: str, created: str, finished: Any,
    rated: Any, owner: str = "", closed: str = "", outcome: str = "", clock: str = "",
) -> StoredTable:
    """A table as a store's row holds it (options and seats as JSON text, the seed as digits).

    A row that makes no table (edited by hand, written by a bug) gives one whose ``unreadable`` says why:
    the store goes on with the other rows, and the hub sets it aside.
    """
    try:
        options_value, seats_value = json.loads(options), json.loads(seats)
        if not isinstance(options_value, dict):
            raise ValueError("its options are not a JSON object")
        if not isinstance(seats_value, list) or not all(isinstance(seat, dict) for seat in seats_value):
            raise ValueError("its seats are not a list of JSON objects")
        return StoredTable(
            table_id, game, options_value, int(seed), seats_value, creator, created, bool(finished),
            rated=bool(rated), owner=owner or "", closed=closed or "", outcome=outcome or "", clock=clock or "",
        )
    except (ValueError, TypeError, RecursionError) as error:
        return StoredTable(
            table_id, game, {}, 0, [], creator, created, bool(finished), owner=owner or "", closed=closed or "",
            outcome=outcome or "", unreadable=error_line(error),
        )


def activity_from_row(table_id: int, creator: str, seats: str, last: str) -> TableActivity:
    """An unfinished table's row as the idle check reads it; seats that do not read as seats are none (such a
    table is set aside at loading, and may still be closed when idle)."""
    try:
        value = json.loads(seats)
    except (ValueError, TypeError, RecursionError):
        value = []
    if not isinstance(value, list) or not all(isinstance(seat, dict) for seat in value):
        value = []
    return TableActivity(int(table_id), creator, value, last)


@dataclass(frozen=True)
class TableActivity:
    """An unfinished table as the idle check sees it: who made it, who sits, when it last saw a move."""

    id: int
    creator: str
    seats: list[dict[str, Any]]
    #: The last move's time, or the table's making when it has none (``now_iso`` text: UTC, seconds).
    last: str


@dataclass(frozen=True)
class PlayerRating:
    """An account's rating at one game, and how many rated games of it the account finished."""

    player: str
    game: str
    rating: Rating
    games: int


@dataclass(frozen=True)
class RatedResult:
    """A rated table's result: the accounts of its seats (registered names, one each) and their ranks."""

    game: str
    players: tuple[str, ...]
    #: Per player, 0 the best; equal ranks are a tie (see :func:`termgames.rating.ranks_of`).
    ranks: tuple[float, ...]


@dataclass(frozen=True)
class RatingChange:
    """What one rated table did to one account's rating."""

    table_id: int
    player: str
    game: str
    rank: float
    before: Rating
    after: Rating


@dataclass(frozen=True)
class RatingPoint:
    """One step of an account's rating history: what rated table ``table_id`` did to it, and when (the time of
    the table's last move, ``now_iso`` text; the table's making when it has none)."""

    table_id: int
    game: str
    time: str
    rank: float
    before: Rating
    after: Rating


@dataclass(frozen=True)
class PlayedTable:
    """A finished table a player sat at (without its moves), and when it ended (its last move's time, ``now_iso``
    text; the table's making when it has none)."""

    stored: StoredTable
    ended: str


def seats_pattern(player: str) -> str:
    """A ``LIKE ... ESCAPE '\\'`` pattern the seats' JSON text of every table ``player`` sits at matches (and a
    few others: the exact test is the caller's), so that a store reads only those rows."""
    quoted = json.dumps(player)
    escaped = quoted.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def sits_at(stored: StoredTable, player: str) -> bool:
    """Whether ``player`` has a human seat at the stored table."""
    return any(seat.get("kind", "human") == "human" and seat.get("name") == player for seat in stored.seats)


@dataclass(frozen=True)
class StoreEvent:
    """A change another server process made (``kind``: table, move, truncate, seats, chat, presence, news).

    Two kinds come from the store itself, with ``table_id`` 0: ``offline`` (the database was lost: news may be
    missed from now on) and ``online`` (it is back: whatever changed meanwhile must be read again).
    """

    kind: str
    table_id: int
    data: dict[str, Any]


#: How a player hears of her move at another table, a challenge or an undo request (``notify``).
NOTIFY_MODES = ("off", "bell", "desktop")
DEFAULT_NOTIFY_MODE = "bell"


@dataclass(frozen=True)
class NoticeSettings:
    """One account's notices and mail (``ssh HOST notify``); an account that never chose has the defaults."""

    mode: str = DEFAULT_NOTIFY_MODE
    #: The address mail goes to once confirmed ("" none); a new address is unconfirmed until its code comes back.
    email: str = ""
    confirmed: bool = False
    #: The confirmation waiting for its code: the code's salted hash, when it expires (``now_iso`` text) and
    #: the wrong codes tried against it.
    code_hash: str = ""
    code_expires: str = ""
    code_tries: int = 0
    #: When her last digest went (``now_iso`` text; "" never).
    mailed: str = ""


@dataclass(frozen=True)
class WebPass:
    """A browser's way in (``termgames serve --web``): a one-time link's or a signed-in browser's cookie.

    The store keeps it under its token's digest only (whoever reads the database cannot sign in with it)."""

    #: The account (its name as registered), or a guest's name for one visit.
    player: str
    #: Whom the browser's sessions count against (``key:...``: the key that asked for the link; ``guest:...``).
    owner: str
    guest: bool
    #: Until when it signs a browser in (``now_iso`` text: UTC, seconds).
    expires: str


@dataclass(frozen=True)
class Quota:
    """At most ``most`` uses of ``key`` after ``since`` (``now_iso`` text): one of the limits on new names and on
    confirmation mails (``key``: what is counted, such as ``names:ADDRESS`` or ``mail:server``)."""

    key: str
    most: int
    since: str


#: How long a store remembers the uses of a quota: longer than the longest window any quota counts (a day).
QUOTA_KEPT_DAYS = 2


def quota_forgotten(now: str) -> str:
    """Uses of quotas at or before this time (``now_iso`` text) count for none: a store forgets them."""
    moment = datetime.fromisoformat(now)
    return (moment - timedelta(days=QUOTA_KEPT_DAYS)).isoformat()


@dataclass(frozen=True)
class StoredSeek:
    """A player's wish for a game with whoever fits (``ssh HOST seek``): kept until it makes a table, its owner
    takes it back, or it expires (a live one also ends when its owner leaves)."""

    id: int
    game: str
    options: dict[str, Any]
    #: The seats of the table it makes (every seeker takes one).
    seats: int
    #: The clock spec as typed back by :class:`~termgames.clock.ClockSpec` (``5m+3s``, ``3d/move``); "" untimed.
    clock: str
    rated: bool
    player: str
    #: Whom it counts against (``key:...``, ``guest:ADDRESS``): the limit on seeks counts people.
    owner: str
    #: The ratings the seeker will play (inclusive); None: any.
    low: float | None
    high: float | None
    #: A live clock (not ``/move``): the seek ends when its owner's last screen closes.
    live: bool
    #: ``now_iso`` texts: when it was made, and when it ends at the latest.
    created: str
    expires: str


def seek_from_row(
    seek_id: int, game: str, options: str, seats: int, clock: str, rated: Any, player: str, owner: str,
    low: float | None, high: float | None, live: Any, created: str, expires: str,
) -> StoredSeek | None:
    """A seek as a store's row holds it (options as JSON text); None for a row that makes none."""
    try:
        value = json.loads(options)
    except (ValueError, TypeError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    return StoredSeek(
        int(seek_id), game, value, int(seats), clock, bool(rated), player, owner,
        None if low is None else float(low), None if high is None else float(high), bool(live), created, expires,
    )


#: Who is at a table on the other servers: (player, True for a seated player's screen, False for a spectator).
RemotePresence = list[tuple[str, bool]]


class StoreClock:
    """The times a store writes (a table's making, a move's, a chat line's): read from the hub's time source,
    which the hub sets, so that a test's time is the store's too."""

    time_source: TimeSource = SYSTEM

    def now_iso(self) -> str:
        """The time now as the store writes times (UTC, seconds: ``match.now_iso``'s form)."""
        return utc_now(self.time_source).replace(microsecond=0).isoformat()


class TableStore(Protocol):
    """The server's memory (see the module doc).  Methods raise :class:`StoreError` when a change fails."""

    #: The thread of the server's event loop: the only one that may use the store.
    thread: threading.Thread
    #: True when other server processes may share this store (their changes arrive through ``listen``).
    shared: bool
    #: Where the times it writes (a table's making, a move's, a chat line's) are read: the hub's, set by the hub.
    time_source: TimeSource

    def close(self) -> None: ...

    def describe(self) -> str:
        """Where the data is, for the server's first line (never a password)."""
        ...

    # -- players
    def account(self, name: str) -> tuple[str, str] | None: ...

    def account_name(self, name: str) -> str: ...

    def key_of(self, name: str) -> str | None: ...

    def claim(self, name: str, key: str) -> bool: ...

    def rated_games(self, key: str) -> int:
        """Rated games finished by the accounts of ``key`` (every name it claimed): how far a person has come."""
        ...

    def take_quota(self, quotas: Collection[Quota], now: str, spend: bool = True) -> str:
        """The key of the first of ``quotas`` used up (its ``most`` uses after its ``since``), nothing spent; ""
        when none is, and then (``spend``) one use of each is counted at ``now``: one transaction, so servers
        sharing the store share the quotas."""
        ...

    # -- tables and moves
    def create_table(
        self,
        game: str,
        options: dict[str, Any],
        seed: int,
        seats: list[dict[str, Any]],
        creator: str,
        rated: bool = False,
        owner: str = "",
        clock: str = "",
    ) -> int:
        """A new table (``clock``: its clock as JSON text, empty when untimed); its number."""
        ...

    def create_tournament(self, status: str, data: dict[str, Any]) -> int:
        """Store a new tournament (version 1); its number."""
        ...

    def tournaments(self, unfinished_only: bool = True) -> list[StoredTournament]:
        """The tournaments, the unfinished ones only by default, oldest first."""
        ...

    def tournament(self, tournament_id: int) -> StoredTournament | None: ...

    def update_tournament(self, tournament_id: int, version: int, status: str, data: dict[str, Any]) -> bool:
        """Store the tournament's new document if it is still at ``version`` (then at ``version + 1``); False
        when another change came first (nothing stored: read it again and redo the change)."""
        ...

    def update_seats(
        self, table_id: int, seats: list[dict[str, Any]], previous: list[dict[str, Any]] | None = None,
        clock: str | None = None,
    ) -> bool:
        """Store the seats (and ``clock``, when given: the clocks start once every seat is taken); with
        ``previous``, only if they are still those (False: someone changed them first)."""
        ...

    def set_finished(self, table_id: int, finished: bool) -> None: ...

    def finish_table(
        self, table_id: int, result: RatedResult | None = None, outcome: str = ""
    ) -> list[RatingChange]:
        """Mark the table finished (``outcome``: its last status line) and rate a rated ``result`` in the same
        transaction (never twice)."""
        ...

    def open_activity(self) -> list[TableActivity]:
        """Every unfinished table, when it last saw a move (or was made), without reading its moves."""
        ...

    def close_table(self, table_id: int, reason: str, idle_before: str) -> bool:
        """Close an unfinished table whose last move (or making) is older than ``idle_before`` (``now_iso``
        text), with ``reason``; False when it is finished already or a move came meanwhile.  Whoever gets
        True closed it: one server of many, exactly once."""
        ...

    # -- seeks (``ssh HOST seek``): the database holds them, so that every server pairs the same ones
    def add_seek(self, seek: StoredSeek) -> int:
        """Keep a new seek (its ``id`` is ignored); its number."""
        ...

    def seeks(self) -> list[StoredSeek]:
        """Every seek kept, oldest first."""
        ...

    def take_seeks(self, ids: Collection[int]) -> bool:
        """Take every one of the seeks ``ids`` away, all or none, in one transaction: True when this call took
        them (it makes their table), False when one of them is gone already (taken by another server, taken
        back, expired).  Of several servers taking one seek, exactly one gets True."""
        ...

    def drop_seeks(self, ids: Collection[int]) -> int:
        """Forget those of the seeks ``ids`` still kept (taken back, expired, owner gone); how many."""
        ...

    # -- ratings
    def rating(self, player: str, game: str) -> PlayerRating | None: ...

    def ratings(self, game: str | None = None) -> list[PlayerRating]: ...

    def rating_changes(self, table_id: int) -> list[RatingChange]: ...

    def rating_history(self, player: str, limit: int) -> list[RatingPoint]:
        """The changes the ``limit`` rated tables made last did to ``player``'s ratings (the account's registered
        name), every game, oldest first: one row per rated game she finished."""
        ...

    def finished_of(self, player: str, limit: int) -> list[PlayedTable]:
        """The ``limit`` finished tables ``player`` sat at that were made last, newest first, without their
        moves (her player page)."""
        ...

    def append_move(
        self, table_id: int, ply: int, record: MoveRecord, clock: str = "", clock_before: str = ""
    ) -> None:
        """Store move number ``ply`` (0-based) in the transaction that accepts it, and the table's ``clock`` after
        it; :class:`PlyTaken` if the ply is taken, :class:`ClockChanged` if the table's clock is no longer
        ``clock_before`` (a seat ran out of time meanwhile)."""
        ...

    def flag(self, table_id: int, ply: int, clock_before: str, clock: str) -> bool:
        """A seat ran out of time after ``ply`` moves: store the table's ``clock`` (which says so) if the table
        still has ``ply`` moves, is open and its clock is still ``clock_before``, and tell the other servers.
        Whoever gets True flagged: one server of many, exactly once."""
        ...

    def table_clock(self, table_id: int) -> str:
        """The table's clock as stored (empty when untimed)."""
        ...

    def heartbeat(self, now: float) -> None:
        """A server is running at ``now`` (seconds since the epoch): what the next start-up measures a downtime from."""
        ...

    def credit_downtime(self, now: float, stale_after: float, shift: Callable[[str, float], str]) -> float:
        """At start-up: if no server ran for more than ``stale_after`` seconds before ``now``, every unfinished
        table's clock is given ``shift(clock, seconds)`` (the time nobody could move is not charged), once
        whatever the number of servers starting; the seconds credited (0: a server was running)."""
        ...

    def truncate(self, table_id: int, ply: int, notice: str = "", clock: str | None = None) -> None: ...

    def set_at_table(self, player: str, table_id: int | None) -> None: ...

    def at_table(self, player: str) -> int | None: ...

    def load_tables(self) -> list[StoredTable]: ...

    def load_open_tables(self) -> list[StoredTable]:
        """The unfinished tables, with their moves: what a server plays (finished ones are read when asked)."""
        ...

    def recent_finished(self, limit: int) -> list[StoredTable]:
        """The ``limit`` finished tables made last, newest first, without their moves (the lobby's list)."""
        ...

    def load_table(self, table_id: int) -> StoredTable | None: ...

    def moves_from(self, table_id: int, ply: int) -> list[MoveRecord]: ...

    def add_chat(self, table_id: int, player: str, text: str) -> None:
        """Keep a chat line (a store keeps at most the last :data:`CHAT_KEPT` lines of a table)."""
        ...

    def save_record(self, table_id: int, record_json: str) -> None:
        """Keep a finished game's record (the JSON ``termgames replay`` reads) with the table."""
        ...

    def record(self, table_id: int) -> str | None:
        """The finished game's record kept by :meth:`save_record` (None: none kept in the database)."""
        ...

    def changes(self, held: Collection[int] = ()) -> dict[int, tuple[str, bool, int, str]]:
        """Per unfinished table and per table in ``held``: (seats as stored, finished, number of moves, the last
        move's ``move time`` followed by the table's clock).

        What a server compares with its tables after it lost the database for a while (see ``online``)."""
        ...

    # -- browser sign-in (``termgames serve --web``): tokens kept as their digests only
    def add_web_link(self, digest: str, sign_in: WebPass) -> None:
        """Keep a one-time sign-in link (and forget the links past their time)."""
        ...

    def take_web_link(self, digest: str) -> WebPass | None:
        """The link's sign-in, taken away at once, past its time or not (a link works once; None: no such link,
        or used already, at any server)."""
        ...

    def add_web_cookie(self, digest: str, sign_in: WebPass) -> None:
        """Keep a browser's sign-in (and forget those past their time)."""
        ...

    def web_cookie(self, digest: str) -> WebPass | None:
        """The sign-in of the browser whose cookie has this digest (None: signed out, or never signed in)."""
        ...

    def drop_web_sign_ins(self, player: str) -> int:
        """Sign ``player`` out of every browser (her links not yet used go too); how many browsers."""
        ...

    def web_cookies_kept(self, digests: Collection[str]) -> set[str]:
        """Which of ``digests`` still sign a browser in (the others were signed out, maybe at another server)."""
        ...

    # -- live news between server processes
    def listen(self, callback: Callable[[StoreEvent], None]) -> None:
        """Hear other processes' changes (on the running loop) from now on; a one-process store ignores it."""
        ...

    def announce(self, table_id: int, kind: str, data: dict[str, Any]) -> None:
        """Tell the other processes news that is not stored (an undo request, its answer)."""
        ...

    def enter(self, table_id: int, player: str, seated: bool) -> int:
        """A screen opened at a table (presence); the number given back is for :meth:`leave`."""
        ...

    def leave(self, presence_id: int) -> None: ...

    def presence(self, table_id: int) -> RemotePresence:
        """Who is at the table through the other server processes (those still alive)."""
        ...

    def may_play_ai(self, table_id: int) -> bool:
        """Whether this process plays the table's computer seats (one process per table does)."""
        ...

    # -- notices and mail (every method by the account's name, folded: ``Alice`` is ``alice``)
    def notice_settings(self, player: str) -> NoticeSettings: ...

    def set_notify_mode(self, player: str, mode: str) -> None: ...

    def begin_confirmation(
        self, player: str, email: str, mailbox: str, code_hash: str, expires: str, now: str, quotas: Collection[Quota]
    ) -> str:
        """Give ``player`` the unconfirmed address ``email`` (``mailbox``: the mailbox it reaches,
        :func:`~termgames.server.mail.mailbox_of`) and its code, within ``quotas``; one transaction, so one server
        of many decides.

        "" when done (a mail is to go).  ``waiting:EXPIRES`` when a code mailed to that mailbox (at anyone's
        request) is still good until EXPIRES: it is not renewed, and ``player`` is given it (whoever reads the
        mailbox confirms with it; no mail goes).  A quota's key when that quota is used up (nothing changed)."""
        ...

    def settle_code(self, player: str, right: bool) -> None:
        """A code came back: right, the address is confirmed and the code is spent (for every account it was
        given to); wrong, one more wrong try of hers."""
        ...

    def clear_email(self, player: str) -> None: ...

    def mark_seen(self, players: Collection[str], now: str) -> None:
        """These players are connected (to this server) at ``now``: no digest is due to them meanwhile."""
        ...

    def digest_due(self, mailed_before: str, seen_before: str) -> list[str]:
        """Accounts with a confirmed address, last mailed before ``mailed_before`` and last seen connected
        before ``seen_before`` (their names)."""
        ...

    def claim_digest(self, player: str, now: str, mailed_before: str, seen_before: str) -> str | None:
        """Mark ``player`` mailed at ``now`` if a digest is still due to her (see :meth:`digest_due`), in the
        transaction that decides it: the server given her address sends it, and no other."""
        ...

    def set_mailed(self, player: str, when: str) -> None:
        """When ``player`` counts as last mailed (a digest that could not be sent is tried again sooner)."""
        ...

    def claim_warning(self, player: str, table_id: int, ply: int, seen_before: str) -> str | None:
        """The address to warn ``player`` at that her clock at ``table_id`` runs low (at move ``ply``), if she
        has a confirmed one, was not seen since ``seen_before`` and was not warned of it yet; exactly one
        server gets it."""
        ...

