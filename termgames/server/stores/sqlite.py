"""The server's memory: an embedded SQLite database in WAL mode.

Seven tables: ``players`` (name -> the SSH key that claimed it, trust on
first use), ``tables`` (game, options, seed, seats, rated-or-casual and clock of
each shared table), ``moves`` (one row per ply), ``alive`` (when the server last
ran: a start-up after a downtime credits it to the clocks), ``at_table`` (the table each
player's screen was at, so a dropped connection or a restarted server brings
them back there), ``ratings`` (an account's rating per game) and
``rating_changes`` (what each rated table did to each rating: also the proof
that a table was rated, so it never is twice).  The ratings of a rated table
are written in the transaction that marks it finished (:meth:`Store.finish_table`).
Browser sign-in (``termgames serve --web``) adds ``web_links`` and
``web_cookies``: one-time links and signed-in browsers, by their token's digest.
Seeks (``ssh HOST seek``) add ``seeks``: taken all or none in one transaction (:meth:`Store.take_seeks`).

A move row is written in the transaction that accepts the move, and
``(table_id, ply)`` is the primary key, so two moves for the same ply can
never both be stored.  Only the event loop's thread uses the store
(:func:`require_thread`).  WAL with
``synchronous=NORMAL`` survives the process being killed at any moment: a
committed move is never lost, an uncommitted one was never accepted.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Collection
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ...match import MoveRecord
from ...rating import Rating, rate
from ...untrusted import fold_name
from .interface import (
    DEFAULT_NOTIFY_MODE,
    ClockChanged,
    NoticeSettings,
    PlayedTable,
    PlayerRating,
    PlyTaken,
    Quota,
    RatedResult,
    RatingChange,
    RatingPoint,
    RemotePresence,
    StoreClock,
    StoredSeek,
    StoredTable,
    StoredTournament,
    StoreError,
    StoreEvent,
    TableActivity,
    TableClosed,
    WebPass,
    activity_from_row,
    quota_forgotten,
    require_thread,
    seats_pattern,
    seek_from_row,
    sits_at,
    table_from_row,
    tournament_from_row,
)

if TYPE_CHECKING:
    from .interface import TableStore

#: Seeds are text: SQLite's INTEGER holds 64 bits and seeds have 128.
_TABLES_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    seed TEXT NOT NULL,
    seats TEXT NOT NULL,
    creator TEXT NOT NULL,
    created TEXT NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    rated INTEGER NOT NULL DEFAULT 0,
    owner TEXT NOT NULL DEFAULT '',
    closed TEXT NOT NULL DEFAULT '',
    outcome TEXT NOT NULL DEFAULT '',
    clock TEXT NOT NULL DEFAULT ''
)"""

SCHEMA = _TABLES_SCHEMA + """;
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS players (
    name TEXT PRIMARY KEY,
    key TEXT NOT NULL,
    since TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
    table_id INTEGER NOT NULL REFERENCES tables(id),
    ply INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    move TEXT NOT NULL,
    time TEXT NOT NULL,
    clock REAL,
    PRIMARY KEY (table_id, ply)
);
CREATE TABLE IF NOT EXISTS alive (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS at_table (
    player TEXT PRIMARY KEY,
    table_id INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ratings (
    player TEXT NOT NULL,
    game TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    updated TEXT NOT NULL,
    PRIMARY KEY (player, game)
);
CREATE TABLE IF NOT EXISTS rating_changes (
    table_id INTEGER NOT NULL REFERENCES tables(id),
    player TEXT NOT NULL,
    game TEXT NOT NULL,
    rank REAL NOT NULL,
    mu_before REAL NOT NULL,
    sigma_before REAL NOT NULL,
    mu_after REAL NOT NULL,
    sigma_after REAL NOT NULL,
    PRIMARY KEY (table_id, player)
);
"""

#: Notices and mail (``notify``): per account (by folded name), the clock warnings sent, and the uses of the quotas
#: (confirmation mails, new names: :class:`~.interface.Quota`; they replace the throttle of one mail per person
#: and per address that ``mail_throttle`` kept), and the code waiting at each mailbox.  New tables only, so a
#: database made before gets them as they are.
NOTICES_SCHEMA = """
CREATE TABLE IF NOT EXISTS notice_settings (
    folded TEXT PRIMARY KEY,
    player TEXT NOT NULL,
    mode TEXT NOT NULL DEFAULT 'bell',
    email TEXT NOT NULL DEFAULT '',
    confirmed INTEGER NOT NULL DEFAULT 0,
    code_hash TEXT NOT NULL DEFAULT '',
    code_expires TEXT NOT NULL DEFAULT '',
    code_tries INTEGER NOT NULL DEFAULT 0,
    mailed TEXT NOT NULL DEFAULT '',
    seen TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS quota_uses (
    key TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS quota_uses_by_key ON quota_uses (key, at);
CREATE TABLE IF NOT EXISTS mailbox_codes (
    mailbox TEXT PRIMARY KEY,
    code_hash TEXT NOT NULL,
    expires TEXT NOT NULL
);
DROP TABLE IF EXISTS mail_throttle;
CREATE TABLE IF NOT EXISTS mail_warnings (
    folded TEXT NOT NULL,
    table_id INTEGER NOT NULL,
    ply INTEGER NOT NULL,
    PRIMARY KEY (folded, table_id, ply)
);
"""

#: Browser sign-in (``termgames serve --web``): one-time links and signed-in browsers, by their token's digest.
WEB_SCHEMA = """
CREATE TABLE IF NOT EXISTS web_links (
    digest TEXT PRIMARY KEY,
    player TEXT NOT NULL,
    owner TEXT NOT NULL,
    guest INTEGER NOT NULL,
    expires TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS web_cookies (
    digest TEXT PRIMARY KEY,
    player TEXT NOT NULL,
    owner TEXT NOT NULL,
    guest INTEGER NOT NULL,
    expires TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS web_cookies_by_player ON web_cookies (player);
"""

#: Seeks (``ssh HOST seek``): kept until they make a table, are taken back or expire.
SEEKS_SCHEMA = """
CREATE TABLE IF NOT EXISTS seeks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    seats INTEGER NOT NULL,
    clock TEXT NOT NULL,
    rated INTEGER NOT NULL,
    player TEXT NOT NULL,
    owner TEXT NOT NULL,
    low REAL,
    high REAL,
    live INTEGER NOT NULL,
    created TEXT NOT NULL,
    expires TEXT NOT NULL
);
"""
_SEEK_COLUMNS = "id, game, options, seats, clock, rated, player, owner, low, high, live, created, expires"


class Store(StoreClock):
    """One SQLite file; every method is one transaction.  A :class:`~.interface.TableStore` of one process:
    it hears of no other server, keeps chat and presence in the hub's memory, and plays every AI seat."""

    shared = False

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        #: The thread of the server's event loop: the only one that may use the store (``require_thread``).
        self.thread = threading.current_thread()
        # require_thread does sqlite3's same-thread check, with a message that names the thread at fault.
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(SCHEMA)
        self.db.executescript(WEB_SCHEMA)  # idempotent: a database made before browser sign-in gets its tables
        _seeds_as_text(self.db)
        _add_rated_column(self.db)
        _add_closing_columns(self.db)
        _add_clock_columns(self.db)
        self.db.executescript(NOTICES_SCHEMA)
        self.db.executescript(SEEKS_SCHEMA)
        # Start-up reads the unfinished tables only: without this it would read past every finished one.
        self.db.execute("CREATE INDEX IF NOT EXISTS tables_by_finished ON tables (finished, id)")
        # A player page reads one account's rating history: without this it would read every rated game's.
        self.db.execute("CREATE INDEX IF NOT EXISTS rating_changes_by_player ON rating_changes (player)")
        self.db.create_function("fold_name", 1, fold_name, deterministic=True)

    def close(self) -> None:
        self.db.close()  # closing twice is harmless

    def describe(self) -> str:
        return str(self.path)

    def _transaction(self) -> _Transaction:
        require_thread(self.thread, "the store")
        return _Transaction(self.db)

    # -- players -------------------------------------------------------------

    def account(self, name: str) -> tuple[str, str] | None:
        """The account ``name`` is, as ``(name as registered, key)``: names are one account per folded form."""
        require_thread(self.thread, "the store")
        row = self.db.execute(
            "SELECT name, key FROM players WHERE fold_name(name) = ? ORDER BY since LIMIT 1", (fold_name(name),)
        ).fetchone()
        return (row[0], row[1]) if row else None

    def account_name(self, name: str) -> str:
        """``name`` as its account was registered (``alice`` -> ``Alice``); ``name`` itself when unknown."""
        found = self.account(name)
        return found[0] if found else name

    def key_of(self, name: str) -> str | None:
        """The key of the account ``name`` is (``Alice`` is ``alice``), None when nobody has it."""
        require_thread(self.thread, "the store")
        found = self.account(name)
        return found[1] if found else None

    def claim(self, name: str, key: str) -> bool:
        """Give ``name`` to ``key`` unless another key has it (in any case); True when ``key`` owns it now."""
        with self._transaction():
            if self.account(name) is None:
                self.db.execute(
                    "INSERT OR IGNORE INTO players (name, key, since) VALUES (?, ?, ?)", (name, key, self.now_iso())
                )
        return self.key_of(name) == key

    def rated_games(self, key: str) -> int:
        require_thread(self.thread, "the store")
        row = self.db.execute(
            "SELECT coalesce(sum(r.games), 0) FROM ratings r JOIN players p ON r.player = p.name WHERE p.key = ?",
            (key,),
        ).fetchone()
        return int(row[0])

    def take_quota(self, quotas: Collection[Quota], now: str, spend: bool = True) -> str:
        with self._transaction():
            return self._take_quota(quotas, now, spend)

    def _take_quota(self, quotas: Collection[Quota], now: str, spend: bool) -> str:
        self.db.execute("DELETE FROM quota_uses WHERE at <= ?", (quota_forgotten(now),))
        for quota in quotas:
            (used,) = self.db.execute(
                "SELECT count(*) FROM quota_uses WHERE key = ? AND at > ?", (quota.key, quota.since)
            ).fetchone()
            if used >= quota.most:
                return quota.key
        if spend:
            self.db.executemany("INSERT INTO quota_uses (key, at) VALUES (?, ?)", [(q.key, now) for q in quotas])
        return ""

    # -- seeks ---------------------------------------------------------------

    def add_seek(self, seek: StoredSeek) -> int:
        with self._transaction():
            cursor = self.db.execute(
                f"INSERT INTO seeks ({_SEEK_COLUMNS.removeprefix('id, ')}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (seek.game, json.dumps(seek.options), seek.seats, seek.clock, int(seek.rated), seek.player, seek.owner,
                 seek.low, seek.high, int(seek.live), seek.created, seek.expires),
            )
            return int(cursor.lastrowid or 0)

    def seeks(self) -> list[StoredSeek]:
        require_thread(self.thread, "the store")
        rows = self.db.execute(f"SELECT {_SEEK_COLUMNS} FROM seeks ORDER BY id").fetchall()
        return [seek for seek in (seek_from_row(*row) for row in rows) if seek is not None]

    def take_seeks(self, ids: Collection[int]) -> bool:
        wanted = sorted(set(ids))
        marks = ", ".join("?" * len(wanted))
        with self._transaction():
            (kept,) = self.db.execute(f"SELECT count(*) FROM seeks WHERE id IN ({marks})", wanted).fetchone()
            if kept != len(wanted):
                return False
            self.db.execute(f"DELETE FROM seeks WHERE id IN ({marks})", wanted)
        return True

    def drop_seeks(self, ids: Collection[int]) -> int:
        wanted = sorted(set(ids))
        with self._transaction():
            cursor = self.db.execute(f"DELETE FROM seeks WHERE id IN ({', '.join('?' * len(wanted))})", wanted)
        return cursor.rowcount

    # -- tables --------------------------------------------------------------

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
        with self._transaction():
            cursor = self.db.execute(
                "INSERT INTO tables (game, options, seed, seats, creator, created, rated, owner, clock) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game, json.dumps(options), str(seed), json.dumps(seats), creator, self.now_iso(), int(rated), owner,
                 clock),
            )
        assert cursor.lastrowid is not None  # an INSERT sets it
        return cursor.lastrowid

    # -- tournaments ----------------------------------------------------------------------

    def create_tournament(self, status: str, data: dict[str, Any]) -> int:
        with self._transaction():
            cursor = self.db.execute(
                "INSERT INTO tournaments (version, status, data, created) VALUES (1, ?, ?, ?)",
                (status, json.dumps(data), self.now_iso()),
            )
        assert cursor.lastrowid is not None  # an INSERT sets it
        return cursor.lastrowid

    def tournaments(self, unfinished_only: bool = True) -> list[StoredTournament]:
        require_thread(self.thread, "the store")
        where = "WHERE status <> 'finished' " if unfinished_only else ""
        rows = self.db.execute(f"SELECT id, version, status, data FROM tournaments {where}ORDER BY id").fetchall()
        return [found for row in rows if (found := tournament_from_row(*row)) is not None]

    def tournament(self, tournament_id: int) -> StoredTournament | None:
        require_thread(self.thread, "the store")
        row = self.db.execute(
            "SELECT id, version, status, data FROM tournaments WHERE id = ?", (tournament_id,)
        ).fetchone()
        return tournament_from_row(*row) if row else None

    def update_tournament(self, tournament_id: int, version: int, status: str, data: dict[str, Any]) -> bool:
        with self._transaction():
            changed = self.db.execute(
                "UPDATE tournaments SET version = version + 1, status = ?, data = ? WHERE id = ? AND version = ?",
                (status, json.dumps(data), tournament_id, version),
            ).rowcount
        return bool(changed)

    def update_seats(
        self, table_id: int, seats: list[dict[str, Any]], previous: list[dict[str, Any]] | None = None,
        clock: str | None = None,
    ) -> bool:
        with self._transaction():
            # One process changes its seats on its loop only: nobody can have changed them meanwhile.
            self.db.execute("UPDATE tables SET seats = ? WHERE id = ?", (json.dumps(seats), table_id))
            if clock is not None:
                self.db.execute("UPDATE tables SET clock = ? WHERE id = ?", (clock, table_id))
        return True

    def set_finished(self, table_id: int, finished: bool) -> None:
        with self._transaction():
            self.db.execute("UPDATE tables SET finished = ? WHERE id = ?", (int(finished), table_id))

    def finish_table(
        self, table_id: int, result: RatedResult | None = None, outcome: str = ""
    ) -> list[RatingChange]:
        """Mark the table finished (``outcome``: its last status line) and, for a rated ``result``, rate its
        players: one transaction.

        The ratings are read, changed (:func:`termgames.rating.rate`) and
        written inside the transaction that marks the table finished: a crash
        leaves either both or neither, and a table rated once (it has
        ``rating_changes`` rows) is never rated again, even if it is finished
        twice.  Returns the changes made, best rank first (none for a casual or already rated table).
        """
        with self._transaction():
            self.db.execute("UPDATE tables SET finished = 1, outcome = ? WHERE id = ?", (outcome, table_id))
            self.db.execute("DELETE FROM mail_warnings WHERE table_id = ?", (table_id,))  # needed while it ran
            if result is None or len(result.players) < 2:
                return []
            if len(set(result.players)) != len(result.players) or len(result.ranks) != len(result.players):
                raise ValueError(f"table {table_id}: a rated result needs one rank for each of distinct players")
            done = self.db.execute("SELECT 1 FROM rating_changes WHERE table_id = ? LIMIT 1", (table_id,)).fetchone()
            if done:
                return []
            before = [self._rating_row(player, result.game) for player in result.players]
            after = rate([row.rating for row in before], result.ranks)
            now = self.now_iso()
            changes = []
            for row, new, rank in zip(before, after, result.ranks):
                self.db.execute(
                    "INSERT OR REPLACE INTO ratings (player, game, mu, sigma, games, updated) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (row.player, result.game, new.mu, new.sigma, row.games + 1, now),
                )
                self.db.execute(
                    "INSERT INTO rating_changes (table_id, player, game, rank, mu_before, sigma_before, mu_after, "
                    "sigma_after) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (table_id, row.player, result.game, rank, row.rating.mu, row.rating.sigma, new.mu, new.sigma),
                )
                changes.append(RatingChange(table_id, row.player, result.game, rank, row.rating, new))
            return sorted(changes, key=lambda change: (change.rank, change.player))  # as rating_changes reads them

    def _rating_row(self, player: str, game: str) -> PlayerRating:
        row = self.db.execute(
            "SELECT player, mu, sigma, games FROM ratings WHERE player = ? AND game = ?", (player, game)
        ).fetchone()
        if row is None:
            return PlayerRating(player, game, Rating(), 0)
        return PlayerRating(row[0], game, Rating(float(row[1]), float(row[2])), int(row[3]))

    # -- ratings -------------------------------------------------------------

    def rating(self, player: str, game: str) -> PlayerRating | None:
        """``player``'s rating at ``game`` (the account's registered name); None before a rated game of it."""
        require_thread(self.thread, "the store")
        found = self._rating_row(player, game)
        return found if found.games else None

    def ratings(self, game: str | None = None) -> list[PlayerRating]:
        """Every rated account at ``game`` (every game when None), best ordinal first within a game."""
        require_thread(self.thread, "the store")
        query = "SELECT player, game, mu, sigma, games FROM ratings"
        rows = self.db.execute(query + " WHERE game = ?", (game,)) if game else self.db.execute(query)
        found = [PlayerRating(p, g, Rating(float(mu), float(sigma)), int(n)) for p, g, mu, sigma, n in rows]
        return sorted(found, key=lambda r: (r.game, -r.rating.ordinal, fold_name(r.player)))

    def rating_changes(self, table_id: int) -> list[RatingChange]:
        """What rated table ``table_id`` did to its players' ratings (nothing if it was not rated)."""
        require_thread(self.thread, "the store")
        rows = self.db.execute(
            "SELECT player, game, rank, mu_before, sigma_before, mu_after, sigma_after FROM rating_changes "
            "WHERE table_id = ? ORDER BY rank, player",
            (table_id,),
        )
        return [
            RatingChange(table_id, p, g, rank, Rating(mu0, sigma0), Rating(mu1, sigma1))
            for p, g, rank, mu0, sigma0, mu1, sigma1 in rows
        ]

    def rating_history(self, player: str, limit: int) -> list[RatingPoint]:
        require_thread(self.thread, "the store")
        rows = self.db.execute(
            f"SELECT c.table_id, c.game, {_ENDED}, c.rank, c.mu_before, c.sigma_before, c.mu_after, c.sigma_after "
            "FROM rating_changes c JOIN tables t ON t.id = c.table_id WHERE c.player = ? "
            "ORDER BY c.table_id DESC LIMIT ?",
            (player, limit),
        )
        points = [
            RatingPoint(table_id, game, ended, rank, Rating(mu0, sigma0), Rating(mu1, sigma1))
            for table_id, game, ended, rank, mu0, sigma0, mu1, sigma1 in rows
        ]
        return sorted(points, key=lambda point: (point.time, point.table_id))

    def finished_of(self, player: str, limit: int) -> list[PlayedTable]:
        require_thread(self.thread, "the store")
        found: list[PlayedTable] = []
        rows = self.db.execute(
            f"SELECT {_ENDED}, {_COLUMNS} FROM tables t WHERE finished = 1 AND seats LIKE ? ESCAPE '\\' "
            "ORDER BY id DESC",
            (seats_pattern(player),),
        )
        for ended, *row in rows:  # read row by row: the pattern lets through a few tables she does not sit at
            stored = _stored(row)
            if sits_at(stored, player):
                found.append(PlayedTable(stored, ended))
                if len(found) >= limit:
                    break
        return found

    def append_move(
        self, table_id: int, ply: int, record: MoveRecord, clock: str = "", clock_before: str = ""
    ) -> None:
        """Store move number ``ply`` (0-based) and the table's clock after it; :class:`PlyTaken` if that ply is
        taken, :class:`ClockChanged` if the clock is not ``clock_before``."""
        try:
            with self._transaction():
                self._refuse_closed(table_id)
                if self._clock(table_id) != clock_before:
                    raise ClockChanged(f"the clock of table {table_id} changed")
                self.db.execute(
                    "INSERT INTO moves (table_id, ply, seat, move, time, clock) VALUES (?, ?, ?, ?, ?, ?)",
                    (table_id, ply, record.seat, record.move, record.time, record.clock),
                )
                if clock != clock_before:
                    self.db.execute("UPDATE tables SET clock = ? WHERE id = ?", (clock, table_id))
        except sqlite3.IntegrityError as error:
            raise PlyTaken(f"move {ply + 1} of table {table_id} is stored already") from error
        except sqlite3.Error as error:
            raise StoreError(str(error)) from error

    def _clock(self, table_id: int) -> str:
        row = self.db.execute("SELECT clock FROM tables WHERE id = ?", (table_id,)).fetchone()
        return str(row[0]) if row else ""

    def flag(self, table_id: int, ply: int, clock_before: str, clock: str) -> bool:
        with self._transaction():
            changed = self.db.execute(
                "UPDATE tables SET clock = ? WHERE id = ? AND finished = 0 AND closed = '' AND clock = ? "
                "AND (SELECT count(*) FROM moves WHERE table_id = ?) = ?",
                (clock, table_id, clock_before, table_id, ply),
            ).rowcount
        return bool(changed)

    def table_clock(self, table_id: int) -> str:
        require_thread(self.thread, "the store")
        return self._clock(table_id)

    def heartbeat(self, now: float) -> None:
        with self._transaction():
            self.db.execute(
                "INSERT INTO alive (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = max(at, excluded.at)",
                (now,),
            )

    def credit_downtime(self, now: float, stale_after: float, shift: Callable[[str, float], str]) -> float:
        with self._transaction():
            row = self.db.execute("SELECT at FROM alive WHERE id = 1").fetchone()
            gap = 0.0 if row is None else now - float(row[0])
            if gap > stale_after:
                timed = self.db.execute("SELECT id, clock FROM tables WHERE finished = 0 AND clock <> ''").fetchall()
                for table_id, clock in timed:
                    self.db.execute("UPDATE tables SET clock = ? WHERE id = ?", (shift(clock, gap), table_id))
            else:
                gap = 0.0
            self.db.execute("INSERT OR REPLACE INTO alive (id, at) VALUES (1, ?)", (now,))
        return gap

    def truncate(self, table_id: int, ply: int, notice: str = "", clock: str | None = None) -> None:
        """Forget moves from ``ply`` on (an accepted undo); :class:`TableClosed` at a closed table."""
        with self._transaction():
            self._refuse_closed(table_id)
            self.db.execute("DELETE FROM moves WHERE table_id = ? AND ply >= ?", (table_id, ply))
            self.db.execute("UPDATE tables SET finished = 0, outcome = '' WHERE id = ?", (table_id,))
            if clock is not None:
                self.db.execute("UPDATE tables SET clock = ? WHERE id = ?", (clock, table_id))

    def _refuse_closed(self, table_id: int) -> None:
        row = self.db.execute("SELECT closed FROM tables WHERE id = ?", (table_id,)).fetchone()
        if row is not None and row[0]:
            raise TableClosed(f"table {table_id} was closed: {row[0]}")

    # -- idle tables -----------------------------------------------------------

    def open_activity(self) -> list[TableActivity]:
        require_thread(self.thread, "the store")
        # The last move by the moves' primary key (table_id, ply): one index step per table, no move read.
        rows = self.db.execute(
            "SELECT id, creator, seats, coalesce((SELECT m.time FROM moves m WHERE m.table_id = t.id "
            "ORDER BY m.ply DESC LIMIT 1), created) FROM tables t WHERE finished = 0 ORDER BY id"
        )
        return [activity_from_row(*row) for row in rows]

    def close_table(self, table_id: int, reason: str, idle_before: str) -> bool:
        with self._transaction():
            closed = self.db.execute(
                "UPDATE tables SET finished = 1, closed = ?, outcome = ? WHERE id = ? AND finished = 0 AND "
                "coalesce((SELECT m.time FROM moves m WHERE m.table_id = tables.id ORDER BY m.ply DESC LIMIT 1), "
                "created) < ?",
                (reason, f"closed: {reason}", table_id, idle_before),
            ).rowcount
            if closed:
                self.db.execute("DELETE FROM mail_warnings WHERE table_id = ?", (table_id,))
        return bool(closed)

    def set_at_table(self, player: str, table_id: int | None) -> None:
        """Remember the table ``player``'s screen is at (None: the lobby)."""
        with self._transaction():
            if table_id is None:
                self.db.execute("DELETE FROM at_table WHERE player = ?", (player,))
            else:
                self.db.execute("INSERT OR REPLACE INTO at_table (player, table_id) VALUES (?, ?)", (player, table_id))

    def at_table(self, player: str) -> int | None:
        require_thread(self.thread, "the store")
        row = self.db.execute("SELECT table_id FROM at_table WHERE player = ?", (player,)).fetchone()
        return int(row[0]) if row else None

    def load_tables(self) -> list[StoredTable]:
        return self._load("")

    def load_open_tables(self) -> list[StoredTable]:
        return self._load(" WHERE finished = 0")

    def recent_finished(self, limit: int) -> list[StoredTable]:
        require_thread(self.thread, "the store")
        rows = self.db.execute(
            f"SELECT {_COLUMNS} FROM tables WHERE finished = 1 ORDER BY id DESC LIMIT ?", (limit,)
        )
        return [_stored(row) for row in rows]

    def load_table(self, table_id: int) -> StoredTable | None:
        found = self._load(" WHERE id = ?", table_id)
        return found[0] if found else None

    def moves_from(self, table_id: int, ply: int) -> list[MoveRecord]:
        require_thread(self.thread, "the store")
        return [
            MoveRecord(seat, move, time, clock=clock)
            for seat, move, time, clock in self.db.execute(
                "SELECT seat, move, time, clock FROM moves WHERE table_id = ? AND ply >= ? ORDER BY ply",
                (table_id, ply),
            )
        ]

    # -- browser sign-in --------------------------------------------------------------

    def add_web_link(self, digest: str, sign_in: WebPass) -> None:
        self._add_web_pass("web_links", digest, sign_in)

    def take_web_link(self, digest: str) -> WebPass | None:
        with self._transaction():
            found = self._web_pass("web_links", digest)
            self.db.execute("DELETE FROM web_links WHERE digest = ?", (digest,))
        return found

    def add_web_cookie(self, digest: str, sign_in: WebPass) -> None:
        self._add_web_pass("web_cookies", digest, sign_in)

    def web_cookie(self, digest: str) -> WebPass | None:
        require_thread(self.thread, "the store")
        return self._web_pass("web_cookies", digest)

    def drop_web_sign_ins(self, player: str) -> int:
        with self._transaction():
            self.db.execute("DELETE FROM web_links WHERE player = ?", (player,))
            return self.db.execute("DELETE FROM web_cookies WHERE player = ?", (player,)).rowcount

    def web_cookies_kept(self, digests: Collection[str]) -> set[str]:
        require_thread(self.thread, "the store")
        wanted = list(digests)
        kept: set[str] = set()
        for start in range(0, len(wanted), 500):  # SQLite's limit on a statement's parameters
            chunk = wanted[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            kept.update(row[0] for row in self.db.execute(
                f"SELECT digest FROM web_cookies WHERE digest IN ({marks})", chunk
            ))
        return kept

    def _add_web_pass(self, table: str, digest: str, sign_in: WebPass) -> None:
        with self._transaction():
            self.db.execute(f"DELETE FROM {table} WHERE expires < ?", (self.now_iso(),))
            self.db.execute(
                f"INSERT INTO {table} (digest, player, owner, guest, expires) VALUES (?, ?, ?, ?, ?)",
                (digest, sign_in.player, sign_in.owner, int(sign_in.guest), sign_in.expires),
            )

    def _web_pass(self, table: str, digest: str) -> WebPass | None:
        row = self.db.execute(
            f"SELECT player, owner, guest, expires FROM {table} WHERE digest = ?", (digest,)
        ).fetchone()
        return WebPass(row[0], row[1], bool(row[2]), row[3]) if row else None

    # -- what only a store shared by several processes keeps ------------------------

    def add_chat(self, table_id: int, player: str, text: str) -> None:
        """Chat lives in the hub's memory (the last lines of each table) while the server runs."""

    def save_record(self, table_id: int, record_json: str) -> None:
        """The record is the file the hub writes into the data folder."""

    def record(self, table_id: int) -> str | None:
        return None  # one process: the file in the data folder is the record

    def changes(self, held: Collection[int] = ()) -> dict[int, tuple[str, bool, int, str]]:
        return {}  # the file never goes away under the server: nothing to read again

    def listen(self, callback: Callable[[StoreEvent], None]) -> None:
        """No other process shares the file: there is never news from elsewhere."""

    def announce(self, table_id: int, kind: str, data: dict[str, Any]) -> None:
        """Nobody else to tell."""

    def enter(self, table_id: int, player: str, seated: bool) -> int:
        return 0

    def leave(self, presence_id: int) -> None:
        """Presence is the hub's list of subscribers."""

    def presence(self, table_id: int) -> RemotePresence:
        return []

    def may_play_ai(self, table_id: int) -> bool:
        return True

    # -- notices and mail ---------------------------------------------------------------

    def notice_settings(self, player: str) -> NoticeSettings:
        require_thread(self.thread, "the store")
        row = self.db.execute(
            "SELECT mode, email, confirmed, code_hash, code_expires, code_tries, mailed FROM notice_settings "
            "WHERE folded = ?", (fold_name(player),),
        ).fetchone()
        if row is None:
            return NoticeSettings()
        return NoticeSettings(row[0], row[1], bool(row[2]), row[3], row[4], int(row[5]), row[6])

    def _settings_row(self, player: str) -> str:
        """Her row, made with the defaults if she has none; her folded name."""
        folded = fold_name(player)
        self.db.execute(
            "INSERT OR IGNORE INTO notice_settings (folded, player, mode) VALUES (?, ?, ?)",
            (folded, player, DEFAULT_NOTIFY_MODE),
        )
        return folded

    def set_notify_mode(self, player: str, mode: str) -> None:
        with self._transaction():
            folded = self._settings_row(player)
            self.db.execute("UPDATE notice_settings SET mode = ? WHERE folded = ?", (mode, folded))

    def begin_confirmation(
        self, player: str, email: str, mailbox: str, code_hash: str, expires: str, now: str, quotas: Collection[Quota]
    ) -> str:
        with self._transaction():
            self.db.execute("DELETE FROM mailbox_codes WHERE expires <= ?", (now,))
            waiting = self.db.execute(
                "SELECT code_hash, expires FROM mailbox_codes WHERE mailbox = ?", (mailbox,)
            ).fetchone()
            if waiting is None:
                refused = self._take_quota(quotas, now, spend=True)
                if refused:
                    return refused
                self.db.execute(
                    "INSERT INTO mailbox_codes (mailbox, code_hash, expires) VALUES (?, ?, ?)",
                    (mailbox, code_hash, expires),
                )
            else:
                code_hash, expires = waiting
            folded = self._settings_row(player)
            self.db.execute(
                "UPDATE notice_settings SET email = ?, confirmed = 0, code_hash = ?, code_expires = ?, code_tries = 0 "
                "WHERE folded = ?",
                (email, code_hash, expires, folded),
            )
        return "" if waiting is None else f"waiting:{expires}"

    def settle_code(self, player: str, right: bool) -> None:
        folded = fold_name(player)
        with self._transaction():
            if right:
                # The code is spent: at its mailbox, and for every account it was given to (see begin_confirmation).
                (spent,) = self.db.execute(
                    "SELECT code_hash FROM notice_settings WHERE folded = ?", (folded,)
                ).fetchone()
                self.db.execute("DELETE FROM mailbox_codes WHERE code_hash = ?", (spent,))
                self.db.execute(
                    "UPDATE notice_settings SET code_hash = '', code_expires = '', code_tries = 0 "
                    "WHERE code_hash = ? AND folded <> ?", (spent, folded),
                )
                self.db.execute(
                    "UPDATE notice_settings SET confirmed = 1, code_hash = '', code_expires = '', code_tries = 0 "
                    "WHERE folded = ?", (folded,),
                )
            else:
                self.db.execute("UPDATE notice_settings SET code_tries = code_tries + 1 WHERE folded = ?", (folded,))

    def clear_email(self, player: str) -> None:
        with self._transaction():
            self.db.execute(
                "UPDATE notice_settings SET email = '', confirmed = 0, code_hash = '', code_expires = '', "
                "code_tries = 0 WHERE folded = ?", (fold_name(player),),
            )

    def mark_seen(self, players: Collection[str], now: str) -> None:
        if not players:
            return
        with self._transaction():
            self.db.executemany(
                "UPDATE notice_settings SET seen = ? WHERE folded = ?", [(now, fold_name(p)) for p in players]
            )

    def digest_due(self, mailed_before: str, seen_before: str) -> list[str]:
        require_thread(self.thread, "the store")
        rows = self.db.execute(
            "SELECT player FROM notice_settings WHERE confirmed = 1 AND email <> '' AND mailed < ? AND seen < ? "
            "ORDER BY folded", (mailed_before, seen_before),
        )
        return [row[0] for row in rows]

    def claim_digest(self, player: str, now: str, mailed_before: str, seen_before: str) -> str | None:
        with self._transaction():
            row = self.db.execute(
                "UPDATE notice_settings SET mailed = ? WHERE folded = ? AND confirmed = 1 AND email <> '' "
                "AND mailed < ? AND seen < ? RETURNING email",
                (now, fold_name(player), mailed_before, seen_before),
            ).fetchone()
        return row[0] if row else None

    def set_mailed(self, player: str, when: str) -> None:
        with self._transaction():
            self.db.execute("UPDATE notice_settings SET mailed = ? WHERE folded = ?", (when, fold_name(player)))

    def claim_warning(self, player: str, table_id: int, ply: int, seen_before: str) -> str | None:
        folded = fold_name(player)
        with self._transaction():
            row = self.db.execute(
                "SELECT email FROM notice_settings WHERE folded = ? AND confirmed = 1 AND email <> '' AND seen < ?",
                (folded, seen_before),
            ).fetchone()
            if row is None:
                return None
            added = self.db.execute(
                "INSERT OR IGNORE INTO mail_warnings (folded, table_id, ply) VALUES (?, ?, ?)", (folded, table_id, ply)
            ).rowcount
        return row[0] if added else None

    def _load(self, where: str, *args: Any) -> list[StoredTable]:
        """The tables ``where`` picks (SQL after FROM tables), with their moves."""
        require_thread(self.thread, "the store")
        tables: dict[int, StoredTable] = {}
        for row in self.db.execute(f"SELECT {_COLUMNS} FROM tables{where} ORDER BY id", args):
            tables[row[0]] = _stored(row)
        # Only the chosen tables' moves, each table's found by the primary key (table_id, ply).
        for table_id, seat, move, time, clock in self.db.execute(
            f"SELECT table_id, seat, move, time, clock FROM moves WHERE table_id IN (SELECT id FROM tables{where}) "
            "ORDER BY table_id, ply",
            args,
        ):
            if table_id in tables:
                tables[table_id].moves.append(MoveRecord(seat, move, time, clock=clock))
        return list(tables.values())


#: When table ``t`` ended: its last move's time, else its making.
_ENDED = "coalesce((SELECT m.time FROM moves m WHERE m.table_id = t.id ORDER BY m.ply DESC LIMIT 1), t.created)"
_COLUMNS = "id, game, options, seed, seats, creator, created, finished, rated, owner, closed, outcome, clock"


def _stored(row: Any) -> StoredTable:
    """A table's row (:data:`_COLUMNS`), without its moves (one that makes no table says why: ``unreadable``)."""
    return table_from_row(*row)


def _seeds_as_text(db: sqlite3.Connection) -> None:
    """Move a database made before seeds were text (``seed INTEGER``) to ``seed TEXT``, keeping every row.

    An INTEGER column turns a 128-bit seed written as text into a REAL (15 digits kept): the column's type
    must change, and SQLite changes a column's type only by copying the table.
    """
    columns = {row[1]: str(row[2]).upper() for row in db.execute("PRAGMA table_info(tables)")}
    if columns.get("seed") == "TEXT":
        return
    db.execute("PRAGMA foreign_keys=OFF")  # the moves rows point at tables(id) while the table is copied
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            # SQLite's own recipe: a new table, the rows copied, the old one dropped, the new one renamed
            # (renaming the old one instead would make the moves' REFERENCES follow it).
            db.execute(_TABLES_SCHEMA.replace("IF NOT EXISTS tables", "tables_new", 1))
            db.execute(
                "INSERT INTO tables_new (id, game, options, seed, seats, creator, created, finished) "
                "SELECT id, game, options, CAST(seed AS TEXT), seats, creator, created, finished FROM tables"
            )
            db.execute("DROP TABLE tables")
            db.execute("ALTER TABLE tables_new RENAME TO tables")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    finally:
        db.execute("PRAGMA foreign_keys=ON")


def _add_rated_column(db: sqlite3.Connection) -> None:
    """A database made before tables were rated or casual gets the column; its tables stay casual."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(tables)")}
    if "rated" not in columns:
        db.execute("ALTER TABLE tables ADD COLUMN rated INTEGER NOT NULL DEFAULT 0")


def _add_closing_columns(db: sqlite3.Connection) -> None:
    """A database made before idle tables were closed gets their columns: no owner kept, nothing closed, and
    finished tables without an outcome (the lobby says "finished")."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(tables)")}
    for column in ("owner", "closed", "outcome"):
        if column not in columns:
            db.execute(f"ALTER TABLE tables ADD COLUMN {column} TEXT NOT NULL DEFAULT ''")


def _add_clock_columns(db: sqlite3.Connection) -> None:
    """A database made before clocks gets their columns: every table untimed, no move with a clock."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(tables)")}
    if "clock" not in columns:
        db.execute("ALTER TABLE tables ADD COLUMN clock TEXT NOT NULL DEFAULT ''")
    if "clock" not in {row[1] for row in db.execute("PRAGMA table_info(moves)")}:
        db.execute("ALTER TABLE moves ADD COLUMN clock REAL")


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any error (autocommit connection)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


if TYPE_CHECKING:  # mypy checks here that the SQLite store keeps to the interface

    def _a_store_is_a_table_store(store: Store) -> TableStore:
        return store
