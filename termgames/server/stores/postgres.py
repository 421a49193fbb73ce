"""The server's memory in PostgreSQL: one database shared by many ``termgames serve`` processes.

``termgames serve --db postgresql://USER@HOST/DB`` (or ``$TERMGAMES_DB``).
The driver is asyncpg (``pip install 'termgames[postgres]'``) with its own
connection pool; the schema is created and migrated by the server itself
(:mod:`.postgres_schema`: its migrations, the version in ``schema_version``;
concurrent starts take an advisory lock, so two workers never migrate at once).

**Accepting a move.**  A move is accepted when the transaction that stores
it commits: the table's row is locked (``FOR NO KEY UPDATE``), the row is
inserted only if it is the next ply, and ``(table_id, ply)`` is the primary
key.  Two servers accepting a move for the same ply at the same moment end
with exactly one accepted: the other gets :class:`~.interface.PlyTaken`.

**News between servers.**  Every change is announced with ``pg_notify`` in
its own transaction (so a change and its news are committed together) on
the channel ``termgames``; each server listens on one connection of its own,
ignores its own news and hands the rest to the hub on the event loop.
Presence rows name the server by its listening connection's backend pid: a
server killed with ``kill -9`` loses that connection, PostgreSQL forgets the
pid, and its rows stop counting (and are swept).  The same connection holds
the advisory lock of each table whose computer seats this server plays, so
a dead server's tables are taken over by another.

**Losing the database.**  When PostgreSQL restarts or the listening
connection drops (it is watched: closed, or silent to a ping), the server
goes *offline*: every change is refused at once with
:class:`~.interface.StoreUnavailable` (nothing half made; the player's screen
says so in one line) while the listening connection is made again with
backoff.  The pool makes its own connections again as they are needed.  Once
back, the server's presence rows and computer-seat locks are taken again under
its new connection, and the hub hears ``online``: it reads again every table
that changed meanwhile (news sent while it was away is never relied upon).

**The event loop.**  The hub's store calls answer at once (see
:mod:`.interface`): asyncpg runs on a loop of its own in one thread
(``termgames-db``), and the server's loop waits for each answer, a round trip
to the database (well under a millisecond on a local socket).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Collection
from typing import TYPE_CHECKING, Any, TypeVar

from ...match import MoveRecord
from ...rating import Rating, rate
from ...untrusted import fold_name
from .interface import (
    CHAT_KEPT,
    ClockChanged,
    PlayedTable,
    PlayerRating,
    PlyTaken,
    RatedResult,
    RatingChange,
    RatingPoint,
    RemotePresence,
    StoredSeek,
    StoredTable,
    StoredTournament,
    StoreError,
    StoreEvent,
    StoreUnavailable,
    TableActivity,
    TableClosed,
    activity_from_row,
    require_thread,
    seats_pattern,
    seek_from_row,
    sits_at,
    table_from_row,
    tournament_from_row,
)
from .postgres_people import PeopleQueries
from .postgres_schema import migrate

if TYPE_CHECKING:
    from .interface import TableStore

try:
    import asyncpg
except ImportError:  # the optional extra is not installed
    asyncpg = None

#: What a lost connection or an unreachable database raises (anything else is a refused statement).
LOST: tuple[type[BaseException], ...] = (OSError, TimeoutError)
if asyncpg is not None:
    LOST += (
        asyncpg.InterfaceError,  # "connection is closed", the connection was lost under a statement
        asyncpg.PostgresConnectionError,
        asyncpg.CannotConnectNowError,  # starting up or shutting down
        asyncpg.OperatorInterventionError,  # terminated by an administrator or a shutdown
    )

log = logging.getLogger("termgames.server")

T = TypeVar("T")

CHANNEL = "termgames"
#: Longest wait for one answer of the database before the change is given up (StoreError).
TIMEOUT = 10.0
#: Moves longer than this travel by their ply only (a NOTIFY payload holds 8000 bytes); the others read them.
MAX_MOVE_IN_NEWS = 2000
#: Chat lines a table's history keeps for screens that open later (as a live table's CHAT_LINES).
CHAT_HISTORY = 30
#: Seconds between sweeps of presence rows left by servers that died.
SWEEP_SECONDS = 5.0
#: Seconds before a server asks again for the computer seats of a table another server plays.
AI_ASK_AGAIN = 3.0
#: Seconds to open one connection before the database counts as unreachable.
CONNECT_TIMEOUT = 5.0
#: Seconds between two checks that the listening connection still answers (a dropped network says nothing).
PING_SECONDS = 5.0
#: First and longest wait between two attempts to reach a lost database again (doubling in between).
RECONNECT_FIRST = 0.1
RECONNECT_LONGEST = 2.0
#: Advisory lock namespaces (the first key of PostgreSQL's two-key form; 0x7467 is the migrations').
AI_LOCK = 0x7468
RATING_LOCK = 0x7469
# 0x746A: the mails' (.postgres_people.MAIL_LOCK)
#: Crediting a downtime to the clocks: one server at a time (the first to start does it, the others see it done).
CLOCK_LOCK = 0x746B



#: When table ``t`` ended: its last move's time, else its making.
_ENDED = "coalesce((SELECT m.time FROM moves m WHERE m.table_id = t.id ORDER BY m.ply DESC LIMIT 1), t.created)"
_COLUMNS = "id, game, options, seed, seats, creator, created, finished, rated, owner, closed, outcome, clock"


def _stored(row: Any) -> StoredTable:
    """A table's row (:data:`_COLUMNS`), without its moves (one that makes no table says why: ``unreadable``)."""
    return table_from_row(*row.values())


def _news(origin: int, kind: str, table_id: int, data: dict[str, Any]) -> str:
    return json.dumps({"o": origin, "k": kind, "t": table_id, "d": data}, separators=(",", ":"))


class _DatabaseThread:
    """asyncpg's loop, in a thread of its own; the server's loop waits for each answer."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.closed = False
        self.thread = threading.Thread(target=self.loop.run_forever, name="termgames-db", daemon=True)
        self.thread.start()

    def run(self, work: Awaitable[T], timeout: float = TIMEOUT) -> T:
        if self.closed:
            if asyncio.iscoroutine(work):
                work.close()  # never awaited: say so to nobody
            raise StoreError("the store is closed")
        future = asyncio.run_coroutine_threadsafe(_awaited(work), self.loop)
        try:
            return future.result(timeout)
        except (TimeoutError, concurrent.futures.TimeoutError):
            future.cancel()
            raise StoreUnavailable("the database did not answer in time") from None

    def close(self) -> None:
        self.closed = True
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        if not self.thread.is_alive():
            self.loop.close()


async def _awaited(work: Awaitable[T]) -> T:
    return await work


class PostgresStore(PeopleQueries):
    """A :class:`~.interface.TableStore` in PostgreSQL, shared by every server process that names it (its players'
    browser sign-ins and notice settings are :class:`~.postgres_people.PeopleQueries`)."""

    shared = True

    def __init__(self, url: str, *, pool_size: int = 4) -> None:
        if asyncpg is None:
            raise StoreError("PostgreSQL needs asyncpg: pip install 'termgames[postgres]'")
        self.url = url
        self.thread = threading.current_thread()
        self._db = _DatabaseThread()
        self._callback: Callable[[StoreEvent], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ai_tables: set[int] = set()
        self._ai_asked: dict[int, float] = {}
        self._sweeper: concurrent.futures.Future[None] | None = None
        self._keeper: concurrent.futures.Future[None] | None = None
        #: Our presence rows (id -> table, player, seated): taken again under a new connection after a loss.
        self._presence: dict[int, tuple[int, str, bool]] = {}
        #: False while the database cannot be reached: changes are refused at once, not after a timeout.
        self.online = True
        self._closed = False
        try:
            self._db.run(self._open(pool_size), timeout=30)
        except BaseException:
            self._db.close()
            raise

    # -- opening and closing ----------------------------------------------------------

    async def _open(self, pool_size: int) -> None:
        try:
            # min_size 0: no floor for the pool to restore (and log tracebacks about) while the database is away.
            self.pool = await asyncpg.create_pool(self.url, min_size=0, max_size=pool_size, timeout=CONNECT_TIMEOUT)
            # One connection of our own: it hears the news, names this server in presence rows, holds AI locks.
            self.listener = await asyncpg.connect(self.url, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError, ValueError) as error:
            raise StoreError(f"cannot reach the database {self.describe()}: {error}") from None
        self.server = self.listener.get_server_pid()
        try:
            async with self.pool.acquire() as conn:
                await migrate(conn)
        except BaseException:
            await self.listener.close()
            await self.pool.close()
            raise
        #: One statement at a time on the listening connection (the ping, the AI locks).
        self._listener_lock = asyncio.Lock()
        self._lost = asyncio.Event()
        await self._hear_on(self.listener)
        self._sweeper = asyncio.run_coroutine_threadsafe(self._sweep_forever(), self._db.loop)
        self._keeper = asyncio.run_coroutine_threadsafe(self._keep_listening(), self._db.loop)

    async def _hear_on(self, listener: Any) -> None:
        await listener.add_listener(CHANNEL, self._heard)
        listener.add_termination_listener(self._listener_closed)

    def _listener_closed(self, connection: Any) -> None:
        """On the database thread: the listening connection closed (the database restarted, or it was cut)."""
        if connection is self.listener and not self._closed:
            self._lost.set()

    async def _on_listener(self, query: str, *args: Any) -> Any:
        async with self._listener_lock:
            return await self.listener.fetchval(query, *args, timeout=TIMEOUT)

    async def _keep_listening(self) -> None:
        """Watch the listening connection; when it is lost, go offline and connect again until it is back."""
        while not self._closed:
            try:
                await asyncio.wait_for(self._lost.wait(), PING_SECONDS)
            except TimeoutError:
                try:
                    await asyncio.wait_for(self._on_listener("SELECT 1"), PING_SECONDS)
                    continue
                except (*LOST, asyncpg.PostgresError) as error:
                    log.warning("the database's listening connection does not answer: %s", error)
            if self._closed:
                return
            try:
                await self._reconnect()
            except Exception:  # never let the watch end: without it the server would stay deaf for good
                log.exception("reconnecting to the database failed; trying again")
                self._lost.set()
                await asyncio.sleep(RECONNECT_LONGEST)

    async def _reconnect(self) -> None:
        lost, wait = self.listener, RECONNECT_FIRST
        self._tell(StoreEvent("offline", 0, {}))
        log.warning("lost the database %s: connecting again", self.describe())
        lost.terminate()
        attempts = 0
        while not self._closed:
            try:
                listener = await asyncpg.connect(self.url, timeout=CONNECT_TIMEOUT)
            except (*LOST, asyncpg.PostgresError) as error:
                self.online = False  # refuse changes at once until it is back
                attempts += 1
                if attempts == 1:
                    log.warning("the database %s cannot be reached: %s", self.describe(), error)
                await asyncio.sleep(wait)
                wait = min(wait * 2, RECONNECT_LONGEST)
                continue
            try:
                async with self._listener_lock:
                    self.listener = listener
                    self.server = listener.get_server_pid()
                    await self._hear_on(listener)
                    await self._take_back(listener)
            except (*LOST, asyncpg.PostgresError) as error:
                log.warning("the database %s was lost again: %s", self.describe(), error)
                listener.terminate()
                await asyncio.sleep(wait)
                continue
            self._lost.clear()
            self.online = True
            log.warning("the database %s is back (server %s)", self.describe(), self.server)
            self._tell(StoreEvent("online", 0, {}))
            return

    async def _take_back(self, listener: Any) -> None:
        """Under a new listening connection: our presence rows name it, and our tables' AI locks are ours again."""
        rows = list(self._presence.items())
        if rows:
            await listener.execute(
                "INSERT INTO presence (id, server, table_id, player, seated) "
                "SELECT * FROM unnest($1::bigint[], $2::int[], $3::bigint[], $4::text[], $5::boolean[]) "
                "ON CONFLICT (id) DO UPDATE SET server = EXCLUDED.server",
                [r[0] for r in rows], [self.server] * len(rows), [r[1][0] for r in rows], [r[1][1] for r in rows],
                [r[1][2] for r in rows],
            )
            # The other servers count these screens again (they had dropped them with our old connection).
            await listener.execute(
                "SELECT pg_notify($1, json_build_object('o', $2::int, 'k', 'presence', 't', t, "
                "'d', json_build_object('text', ''))::text) FROM (SELECT DISTINCT unnest($3::bigint[]) AS t) g",
                CHANNEL, self.server, [r[1][0] for r in rows],
            )
        for table_id in list(self._ai_tables):
            if not await listener.fetchval("SELECT pg_try_advisory_lock($1, $2)", AI_LOCK, table_id):
                self._ai_tables.discard(table_id)  # another server took it over meanwhile
        self._ai_asked.clear()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for task in (self._sweeper, self._keeper):
            if task is not None:
                task.cancel()

        async def shut() -> None:
            await self.listener.close()
            await self.pool.close()

        try:
            self._db.run(shut(), timeout=5)
        except (StoreError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            log.warning("the database connections did not close cleanly: %s", error)
        self._db.close()

    def describe(self) -> str:
        # Never show a password: only where the database is.
        try:
            from urllib.parse import urlsplit

            parts = urlsplit(self.url)
            where = parts.hostname or "local socket"
            user = f"{parts.username}@" if parts.username else ""
            return f"postgresql://{user}{where}{':' + str(parts.port) if parts.port else ''}{parts.path}"
        except ValueError:
            return "postgresql"

    # -- running a query ----------------------------------------------------------------

    def _run(self, work: Callable[[Any], Awaitable[T]]) -> T:
        """``work(connection)`` on a pooled connection, from the server's loop; errors become StoreError."""
        require_thread(self.thread, "the store")
        if not self.online:
            raise StoreUnavailable("the database cannot be reached")

        async def with_connection() -> T:
            async with self.pool.acquire() as conn:
                return await work(conn)

        try:
            return self._db.run(with_connection())
        except StoreError:
            raise
        except asyncpg.UniqueViolationError as error:
            raise PlyTaken(str(error)) from None
        except LOST as error:
            raise StoreUnavailable(f"the database cannot be reached: {error}") from None
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            raise StoreError(f"database error: {error}") from None

    def _notify(self, kind: str, table_id: int, data: dict[str, Any]) -> str:
        return _news(self.server, kind, table_id, data)

    # -- players ---------------------------------------------------------------------

    def account(self, name: str) -> tuple[str, str] | None:
        row = self._run(lambda c: c.fetchrow("SELECT name, key FROM players WHERE folded = $1", fold_name(name)))
        return (row["name"], row["key"]) if row else None

    def account_name(self, name: str) -> str:
        found = self.account(name)
        return found[0] if found else name

    def key_of(self, name: str) -> str | None:
        found = self.account(name)
        return found[1] if found else None

    def claim(self, name: str, key: str) -> bool:
        self._run(
            lambda c: c.execute(
                "INSERT INTO players (name, folded, key, since) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                name, fold_name(name), key, self.now_iso(),
            )
        )
        return self.key_of(name) == key

    def rated_games(self, key: str) -> int:
        found = self._run(
            lambda c: c.fetchval(
                "SELECT coalesce(sum(r.games), 0) FROM ratings r JOIN players p ON r.player = p.name WHERE p.key = $1",
                key,
            )
        )
        return int(found)

    # -- tables --------------------------------------------------------------------

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
        async def create(conn: Any) -> tuple[int, bool]:
            async with conn.transaction():
                table_id: int = await conn.fetchval(
                    "INSERT INTO tables (game, options, seed, seats, creator, created, rated, owner, clock) "
                    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
                    game, json.dumps(options), str(seed), json.dumps(seats), creator, self.now_iso(), rated, owner,
                    clock,
                )
                await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, self._notify("table", table_id, {}))
            # The table's computer seats are played here, where it was made (another server takes over if we die).
            try:
                mine = bool(await self._on_listener("SELECT pg_try_advisory_lock($1, $2)", AI_LOCK, table_id))
            except LOST as error:  # the table is stored: its computer seats are asked for again later
                log.warning("table %s: its computer seats not locked yet: %s", table_id, error)
                mine = False
            return table_id, mine

        table_id, mine = self._run(create)
        if mine:
            self._ai_tables.add(table_id)
        return table_id

    def update_seats(
        self, table_id: int, seats: list[dict[str, Any]], previous: list[dict[str, Any]] | None = None,
        clock: str | None = None,
    ) -> bool:
        data: dict[str, Any] = {"seats": seats}
        if clock is not None:
            data["clock"] = clock
        news = self._notify("seats", table_id, data)
        # The clock (when given) starts with the last seat taken: it is set in the same statement.
        clocked = "" if clock is None else ", clock = $6"
        if previous is None:
            sql = (
                f"WITH u AS (UPDATE tables SET seats = $2{clocked} WHERE id = $1 RETURNING id) "
                "SELECT pg_notify($3, $4) FROM u"
            )
            args: tuple[Any, ...] = (table_id, json.dumps(seats), CHANNEL, news)
            if clock is not None:
                sql = sql.replace("$6", "$5")
                args += (clock,)
        else:
            sql = (
                f"WITH u AS (UPDATE tables SET seats = $2{clocked} WHERE id = $1 AND seats = $5 RETURNING id) "
                "SELECT pg_notify($3, $4) FROM u"
            )
            args = (table_id, json.dumps(seats), CHANNEL, news, json.dumps(previous))
            if clock is not None:
                args += (clock,)
        row = self._run(lambda c: c.fetchrow(sql, *args))
        return row is not None

    def set_finished(self, table_id: int, finished: bool) -> None:
        self._run(lambda c: c.execute("UPDATE tables SET finished = $2 WHERE id = $1", table_id, finished))
        if finished:
            self._release_ai(table_id)

    def _release_ai(self, table_id: int) -> None:
        if table_id in self._ai_tables:
            self._ai_tables.discard(table_id)
            try:
                self._db.run(self._on_listener("SELECT pg_advisory_unlock($1, $2)", AI_LOCK, table_id))
            except StoreError as error:  # a lost connection released it already
                log.warning("table %s: its computer seats not unlocked: %s", table_id, error)
            except LOST as error:
                log.warning("table %s: its computer seats not unlocked: %s", table_id, error)

    def finish_table(
        self, table_id: int, result: RatedResult | None = None, outcome: str = ""
    ) -> list[RatingChange]:
        """Mark the table finished (``outcome``: its last status line) and, for a rated ``result``, rate its
        players: one transaction.

        As the SQLite store's: a table with rating changes is never rated again.  Ratings of every server
        are read and written under one advisory lock, so two tables of one player ending at two servers
        at the same moment both count.
        """

        async def finish(conn: Any) -> list[RatingChange]:
            async with conn.transaction():
                await conn.execute(
                    "UPDATE tables SET finished = TRUE, outcome = $2 WHERE id = $1", table_id, outcome
                )
                await conn.execute("DELETE FROM mail_warnings WHERE table_id = $1", table_id)  # needed while it ran
                if result is None or len(result.players) < 2:
                    return []
                if len(set(result.players)) != len(result.players) or len(result.ranks) != len(result.players):
                    raise ValueError(f"table {table_id}: a rated result needs one rank for each of distinct players")
                await conn.execute("SELECT pg_advisory_xact_lock($1, 0)", RATING_LOCK)
                if await conn.fetchval("SELECT 1 FROM rating_changes WHERE table_id = $1 LIMIT 1", table_id):
                    return []
                before = [await self._rating_row(conn, player, result.game) for player in result.players]
                after = rate([row.rating for row in before], result.ranks)
                now = self.now_iso()
                changes = []
                for row, new, rank in zip(before, after, result.ranks):
                    await conn.execute(
                        "INSERT INTO ratings (player, game, mu, sigma, games, updated) VALUES ($1, $2, $3, $4, $5, $6) "
                        "ON CONFLICT (player, game) DO UPDATE SET mu = EXCLUDED.mu, sigma = EXCLUDED.sigma, "
                        "games = EXCLUDED.games, updated = EXCLUDED.updated",
                        row.player, result.game, new.mu, new.sigma, row.games + 1, now,
                    )
                    await conn.execute(
                        "INSERT INTO rating_changes (table_id, player, game, rank, mu_before, sigma_before, mu_after, "
                        "sigma_after) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                        table_id, row.player, result.game, float(rank), row.rating.mu, row.rating.sigma, new.mu,
                        new.sigma,
                    )
                    changes.append(RatingChange(table_id, row.player, result.game, rank, row.rating, new))
                return sorted(changes, key=lambda change: (change.rank, change.player))  # as rating_changes reads

        changes = self._run(finish)
        self._release_ai(table_id)
        return changes

    async def _rating_row(self, conn: Any, player: str, game: str) -> PlayerRating:
        row = await conn.fetchrow(
            "SELECT player, mu, sigma, games FROM ratings WHERE player = $1 AND game = $2", player, game
        )
        if row is None:
            return PlayerRating(player, game, Rating(), 0)
        return PlayerRating(row["player"], game, Rating(float(row["mu"]), float(row["sigma"])), int(row["games"]))

    # -- ratings -------------------------------------------------------------

    def rating(self, player: str, game: str) -> PlayerRating | None:
        found: PlayerRating = self._run(lambda c: self._rating_row(c, player, game))
        return found if found.games else None

    def ratings(self, game: str | None = None) -> list[PlayerRating]:
        query = "SELECT player, game, mu, sigma, games FROM ratings"
        rows = self._run(lambda c: c.fetch(query + " WHERE game = $1", game) if game else c.fetch(query))
        found = [
            PlayerRating(r["player"], r["game"], Rating(float(r["mu"]), float(r["sigma"])), int(r["games"]))
            for r in rows
        ]
        return sorted(found, key=lambda r: (r.game, -r.rating.ordinal, fold_name(r.player)))

    def rating_history(self, player: str, limit: int) -> list[RatingPoint]:
        rows = self._run(
            lambda c: c.fetch(
                f"SELECT c.table_id, c.game, {_ENDED} AS ended, c.rank, c.mu_before, c.sigma_before, c.mu_after, "
                "c.sigma_after FROM rating_changes c JOIN tables t ON t.id = c.table_id WHERE c.player = $1 "
                "ORDER BY c.table_id DESC LIMIT $2",
                player,
                limit,
            )
        )
        points = [
            RatingPoint(
                r["table_id"], r["game"], r["ended"], r["rank"], Rating(r["mu_before"], r["sigma_before"]),
                Rating(r["mu_after"], r["sigma_after"]),
            )
            for r in rows
        ]
        return sorted(points, key=lambda point: (point.time, point.table_id))

    def finished_of(self, player: str, limit: int) -> list[PlayedTable]:
        found: list[PlayedTable] = []
        before: int | None = None
        pattern = seats_pattern(player)
        query = (
            f"SELECT {_ENDED} AS ended, {_COLUMNS} FROM tables t WHERE finished AND seats LIKE $1 ESCAPE '\\' "
            "AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3"
        )

        def page(start: int | None) -> Callable[[Any], Awaitable[list[Any]]]:
            return lambda c: c.fetch(query, pattern, start, limit)

        # A page at a time: the pattern lets through a few tables she does not sit at.
        while len(found) < limit:
            rows = self._run(page(before))
            for row in rows:
                values = list(row.values())
                stored = table_from_row(*values[1:])
                before = stored.id
                if sits_at(stored, player) and len(found) < limit:
                    found.append(PlayedTable(stored, values[0]))
            if len(rows) < limit:
                break
        return found

    def rating_changes(self, table_id: int) -> list[RatingChange]:
        rows = self._run(
            lambda c: c.fetch(
                "SELECT player, game, rank, mu_before, sigma_before, mu_after, sigma_after FROM rating_changes "
                "WHERE table_id = $1 ORDER BY rank, player",
                table_id,
            )
        )
        return [
            RatingChange(
                table_id, r["player"], r["game"], r["rank"], Rating(r["mu_before"], r["sigma_before"]),
                Rating(r["mu_after"], r["sigma_after"]),
            )
            for r in rows
        ]

    def append_move(
        self, table_id: int, ply: int, record: MoveRecord, clock: str = "", clock_before: str = ""
    ) -> None:
        data: dict[str, Any] = {"ply": ply, "seat": record.seat, "time": record.time}
        if len(record.move) <= MAX_MOVE_IN_NEWS:
            data["move"] = record.move
        if clock:
            data["clock"], data["left"] = clock, record.clock
        news = self._notify("move", table_id, data)

        async def append(conn: Any) -> None:
            # One transaction, one round trip (migrations 4 and 5): the table's row lock orders every change of
            # its moves (a move, an undo, closing it, a flag) between servers, and the move is stored only as the
            # next ply of a table still open whose clock is still the one this server held.
            stored = await conn.fetchval(
                "SELECT termgames_play_timed($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                table_id, ply, record.seat, record.move, record.time, record.clock, clock_before, clock, news,
            )
            if stored == -1:
                raise TableClosed(f"table {table_id} was closed")
            if stored == -2:
                raise ClockChanged(f"the clock of table {table_id} changed")
            if not stored:
                raise PlyTaken(f"move {ply + 1} of table {table_id} is stored already")

        self._run(append)

    def flag(self, table_id: int, ply: int, clock_before: str, clock: str) -> bool:
        news = self._notify("flag", table_id, {"ply": ply, "clock": clock})
        return bool(
            self._run(
                lambda c: c.fetchval(
                    "SELECT termgames_flag($1, $2, $3, $4, $5)", table_id, ply, clock_before, clock, news
                )
            )
        )

    def table_clock(self, table_id: int) -> str:
        found = self._run(lambda c: c.fetchval("SELECT clock FROM tables WHERE id = $1", table_id))
        return str(found or "")

    def heartbeat(self, now: float) -> None:
        self._run(
            lambda c: c.execute(
                "INSERT INTO alive (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at = "
                "greatest(alive.at, EXCLUDED.at)",
                now,
            )
        )

    def credit_downtime(self, now: float, stale_after: float, shift: Callable[[str, float], str]) -> float:
        async def credit(conn: Any) -> float:
            async with conn.transaction():
                # Servers starting at once take turns: the second sees the first one's heartbeat, fresh.
                await conn.execute("SELECT pg_advisory_xact_lock($1, 0)", CLOCK_LOCK)
                last = await conn.fetchval("SELECT at FROM alive WHERE id = 1")
                gap = 0.0 if last is None else now - float(last)
                if gap > stale_after:
                    rows = await conn.fetch(
                        "SELECT id, clock FROM tables WHERE NOT finished AND clock <> '' FOR NO KEY UPDATE"
                    )
                    for row in rows:
                        await conn.execute(
                            "UPDATE tables SET clock = $2 WHERE id = $1", row["id"], shift(row["clock"], gap)
                        )
                else:
                    gap = 0.0
                await conn.execute(
                    "INSERT INTO alive (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at = "
                    "greatest(alive.at, EXCLUDED.at)",
                    now,
                )
                return gap

        found: float = self._run(credit)
        return found

    def truncate(self, table_id: int, ply: int, notice: str = "", clock: str | None = None) -> None:
        data: dict[str, Any] = {"ply": ply, "notice": notice}
        if clock is not None:
            data["clock"] = clock
        news = self._notify("truncate", table_id, data)

        async def truncate(conn: Any) -> None:
            async with conn.transaction():
                closed = await conn.fetchval("SELECT closed FROM tables WHERE id = $1 FOR NO KEY UPDATE", table_id)
                if closed:
                    raise TableClosed(f"table {table_id} was closed: {closed}")
                await conn.execute("DELETE FROM moves WHERE table_id = $1 AND ply >= $2", table_id, ply)
                await conn.execute(
                    "UPDATE tables SET finished = FALSE, record = NULL, outcome = '' WHERE id = $1", table_id
                )
                if clock is not None:
                    await conn.execute("UPDATE tables SET clock = $2 WHERE id = $1", table_id, clock)
                await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, news)

        self._run(truncate)

    # -- seeks -------------------------------------------------------------------------

    def add_seek(self, seek: StoredSeek) -> int:
        found = self._run(
            lambda c: c.fetchval(
                "INSERT INTO seeks (game, options, seats, clock, rated, player, owner, low, high, live, created, "
                "expires) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id",
                seek.game, json.dumps(seek.options), seek.seats, seek.clock, seek.rated, seek.player, seek.owner,
                seek.low, seek.high, seek.live, seek.created, seek.expires,
            )
        )
        return int(found)

    def seeks(self) -> list[StoredSeek]:
        rows = self._run(
            lambda c: c.fetch(
                "SELECT id, game, options, seats, clock, rated, player, owner, low, high, live, created, expires "
                "FROM seeks ORDER BY id"
            )
        )
        return [seek for seek in (seek_from_row(*row.values()) for row in rows) if seek is not None]

    def take_seeks(self, ids: Collection[int]) -> bool:
        wanted = sorted(set(ids))

        async def take(conn: Any) -> bool:
            async with conn.transaction():
                # Locked in one order (by id), so two servers taking overlapping seeks wait for each other rather
                # than deadlock; the second finds a row gone once the first commits, and takes none.
                rows = await conn.fetch(
                    "SELECT id FROM seeks WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE", wanted
                )
                if len(rows) != len(wanted):
                    return False
                await conn.execute("DELETE FROM seeks WHERE id = ANY($1::bigint[])", wanted)
            return True

        return self._run(take)

    def drop_seeks(self, ids: Collection[int]) -> int:
        status = self._run(lambda c: c.execute("DELETE FROM seeks WHERE id = ANY($1::bigint[])", sorted(set(ids))))
        return int(str(status).rsplit(" ", 1)[-1])

    # -- idle tables -------------------------------------------------------------------

    def open_activity(self) -> list[TableActivity]:
        rows = self._run(
            lambda c: c.fetch(
                "SELECT id, creator, seats, coalesce((SELECT m.time FROM moves m WHERE m.table_id = t.id "
                "ORDER BY m.ply DESC LIMIT 1), created) AS last FROM tables t WHERE NOT finished ORDER BY id"
            )
        )
        return [activity_from_row(r["id"], r["creator"], r["seats"], r["last"]) for r in rows]

    # -- tournaments ----------------------------------------------------------------------

    def create_tournament(self, status: str, data: dict[str, Any]) -> int:
        found = self._run(
            lambda c: c.fetchval(
                "INSERT INTO tournaments (version, status, data, created) VALUES (1, $1, $2, $3) RETURNING id",
                status, json.dumps(data), self.now_iso(),
            )
        )
        return int(found)

    def tournaments(self, unfinished_only: bool = True) -> list[StoredTournament]:
        where = "WHERE status <> 'finished' " if unfinished_only else ""
        rows = self._run(lambda c: c.fetch(f"SELECT id, version, status, data FROM tournaments {where}ORDER BY id"))
        return [found for row in rows if (found := tournament_from_row(*row)) is not None]

    def tournament(self, tournament_id: int) -> StoredTournament | None:
        row = self._run(
            lambda c: c.fetchrow("SELECT id, version, status, data FROM tournaments WHERE id = $1", tournament_id)
        )
        return tournament_from_row(*row) if row else None

    def update_tournament(self, tournament_id: int, version: int, status: str, data: dict[str, Any]) -> bool:
        # One statement: the row's lock orders two servers' changes, and only the first finds its version.
        found = self._run(
            lambda c: c.fetchval(
                "UPDATE tournaments SET version = version + 1, status = $1, data = $2 "
                "WHERE id = $3 AND version = $4 RETURNING id",
                status, json.dumps(data), tournament_id, version,
            )
        )
        return found is not None

    def close_table(self, table_id: int, reason: str, idle_before: str) -> bool:
        news = self._notify("closed", table_id, {"reason": reason})
        closed = self._run(
            lambda c: c.fetchval("SELECT termgames_close_idle($1, $2, $3, $4)", table_id, idle_before, reason, news)
        )
        if closed:
            self._run(lambda c: c.execute("DELETE FROM mail_warnings WHERE table_id = $1", table_id))
            self._release_ai(table_id)
        return bool(closed)

    def set_at_table(self, player: str, table_id: int | None) -> None:
        if table_id is None:
            self._run(lambda c: c.execute("DELETE FROM at_table WHERE player = $1", player))
        else:
            self._run(
                lambda c: c.execute(
                    "INSERT INTO at_table (player, table_id) VALUES ($1, $2) "
                    "ON CONFLICT (player) DO UPDATE SET table_id = EXCLUDED.table_id",
                    player, table_id,
                )
            )

    def at_table(self, player: str) -> int | None:
        found = self._run(lambda c: c.fetchval("SELECT table_id FROM at_table WHERE player = $1", player))
        return int(found) if found is not None else None

    def load_tables(self) -> list[StoredTable]:
        return self._run(lambda c: self._load(c, None))

    def load_open_tables(self) -> list[StoredTable]:
        return self._run(lambda c: self._load(c, None, open_only=True))

    def load_table(self, table_id: int) -> StoredTable | None:
        found = self._run(lambda c: self._load(c, table_id))
        return found[0] if found else None

    def recent_finished(self, limit: int) -> list[StoredTable]:
        rows = self._run(
            lambda c: c.fetch(f"SELECT {_COLUMNS} FROM tables WHERE finished ORDER BY id DESC LIMIT $1", limit)
        )
        return [_stored(row) for row in rows]

    async def _load(self, conn: Any, table_id: int | None, open_only: bool = False) -> list[StoredTable]:
        args: tuple[Any, ...] = ()
        if table_id is not None:
            where, move_where, args = "WHERE id = $1", "WHERE table_id = $1", (table_id,)
        elif open_only:
            # Only the unfinished tables' moves and chat: start-up never reads every finished game's.
            where, move_where = "WHERE NOT finished", "WHERE table_id IN (SELECT id FROM tables WHERE NOT finished)"
        else:
            where = move_where = ""
        tables: dict[int, StoredTable] = {}
        async with conn.transaction(isolation="repeatable_read", readonly=True):  # one snapshot of it all
            for row in await conn.fetch(f"SELECT {_COLUMNS} FROM tables {where} ORDER BY id", *args):
                tables[row["id"]] = _stored(row)
            for row in await conn.fetch(
                f"SELECT table_id, seat, move, time, clock FROM moves {move_where} ORDER BY table_id, ply", *args
            ):
                if row["table_id"] in tables:
                    tables[row["table_id"]].moves.append(
                        MoveRecord(row["seat"], row["move"], row["time"], clock=row["clock"])
                    )
            for row in await conn.fetch(
                "SELECT table_id, player, text FROM (SELECT table_id, player, text, id, row_number() OVER "
                f"(PARTITION BY table_id ORDER BY id DESC) AS age FROM chat {move_where}) recent "
                f"WHERE age <= {CHAT_HISTORY} ORDER BY table_id, id",
                *args,
            ):
                if row["table_id"] in tables:
                    tables[row["table_id"]].chat.append((row["player"], row["text"]))
        return list(tables.values())

    def moves_from(self, table_id: int, ply: int) -> list[MoveRecord]:
        rows = self._run(
            lambda c: c.fetch(
                "SELECT seat, move, time, clock FROM moves WHERE table_id = $1 AND ply >= $2 ORDER BY ply",
                table_id, ply,
            )
        )
        return [MoveRecord(row["seat"], row["move"], row["time"], clock=row["clock"]) for row in rows]

    def add_chat(self, table_id: int, player: str, text: str) -> None:
        news = self._notify("chat", table_id, {"player": player, "text": text})
        # The line, its news and the table's oldest lines gone past CHAT_KEPT, in one statement (whose parts
        # share one snapshot: the DELETE does not see the new line, so it keeps CHAT_KEPT - 1 of the others).
        self._run(
            lambda c: c.execute(
                "WITH l AS (INSERT INTO chat (table_id, player, text, time) VALUES ($1, $2, $3, $4) RETURNING id), "
                "gone AS (DELETE FROM chat WHERE table_id = $1 AND id <= (SELECT id FROM chat WHERE table_id = $1 "
                "ORDER BY id DESC OFFSET $7 LIMIT 1)) "
                "SELECT pg_notify($5, $6) FROM l",
                table_id, player, text, self.now_iso(), CHANNEL, news, CHAT_KEPT - 1,
            )
        )

    def save_record(self, table_id: int, record_json: str) -> None:
        self._run(lambda c: c.execute("UPDATE tables SET record = $2 WHERE id = $1", table_id, record_json))

    def record(self, table_id: int) -> str | None:
        """The finished game's record (the JSON ``termgames replay`` reads), None while it goes on."""
        found: str | None = self._run(lambda c: c.fetchval("SELECT record FROM tables WHERE id = $1", table_id))
        return found

    def changes(self, held: Collection[int] = ()) -> dict[int, tuple[str, bool, int, str]]:
        rows = self._run(
            lambda c: c.fetch(
                "SELECT t.id, t.seats, t.finished, (SELECT count(*) FROM moves m WHERE m.table_id = t.id) AS moves, "
                "coalesce((SELECT m.move || ' ' || m.time FROM moves m WHERE m.table_id = t.id "
                "ORDER BY m.ply DESC LIMIT 1), '') || t.clock AS last FROM tables t "
                "WHERE NOT t.finished OR t.id = ANY($1)",
                list(held),
            )
        )
        return {int(r["id"]): (r["seats"], bool(r["finished"]), int(r["moves"]), r["last"]) for r in rows}

    # -- live news --------------------------------------------------------------------

    def listen(self, callback: Callable[[StoreEvent], None]) -> None:
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop to hand news to (a script): nothing is heard
        self._callback = callback

    def _heard(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        """On the database thread: hand another server's news to the server's loop."""
        try:
            news = json.loads(payload)
            if news["o"] == self.server:
                return  # our own change: the hub made it already
            event = StoreEvent(str(news["k"]), int(news["t"]), dict(news["d"]))
        except (ValueError, KeyError, TypeError):
            log.warning("unreadable news on the %s channel", CHANNEL)
            return
        self._tell(event)

    def _tell(self, event: StoreEvent) -> None:
        """From the database thread: hand ``event`` to the hub on the server's loop."""
        loop, callback = self._loop, self._callback
        if loop is not None and callback is not None and not loop.is_closed():
            loop.call_soon_threadsafe(callback, event)

    def announce(self, table_id: int, kind: str, data: dict[str, Any]) -> None:
        news = self._notify(kind, table_id, data)
        self._run(lambda c: c.execute("SELECT pg_notify($1, $2)", CHANNEL, news))

    def enter(self, table_id: int, player: str, seated: bool) -> int:
        news = self._notify("presence", table_id, {"text": f"{player} is here"})
        found: int = self._run(
            lambda c: c.fetchval(
                "WITH p AS (INSERT INTO presence (server, table_id, player, seated) VALUES ($1, $2, $3, $4) "
                "RETURNING id) SELECT id, pg_notify($5, $6) FROM p",
                self.server, table_id, player, seated, CHANNEL, news,
            )
        )
        self._presence[found] = (table_id, player, seated)
        return found

    def leave(self, presence_id: int) -> None:
        self._presence.pop(presence_id, None)  # gone here even if the database cannot hear it now
        self._run(
            lambda c: c.execute(
                "WITH p AS (DELETE FROM presence WHERE id = $1 RETURNING table_id, player) "
                "SELECT pg_notify($2, json_build_object('o', $3::int, 'k', 'presence', 't', table_id, "
                "'d', json_build_object('text', player || ' left'))::text) FROM p",
                presence_id, CHANNEL, self.server,
            )
        )

    def presence(self, table_id: int) -> RemotePresence:
        rows = self._run(
            lambda c: c.fetch(
                "SELECT player, seated FROM presence WHERE table_id = $1 AND server <> $2 "
                "AND server IN (SELECT pid FROM pg_stat_activity) ORDER BY id",
                table_id, self.server,
            )
        )
        return [(row["player"], bool(row["seated"])) for row in rows]

    async def _sweep_forever(self) -> None:
        """Forget the presence of servers that died (their connection is gone) and tell the tables."""
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            if not self.online:
                continue
            try:
                async with self.pool.acquire() as conn:
                    await conn.execute(
                        "WITH gone AS (DELETE FROM presence WHERE server NOT IN (SELECT pid FROM pg_stat_activity) "
                        "RETURNING table_id) SELECT pg_notify($1, json_build_object('o', 0, 'k', 'presence', "
                        "'t', table_id, 'd', json_build_object())::text) FROM (SELECT DISTINCT table_id FROM gone) g",
                        CHANNEL,
                    )
            except (*LOST, asyncpg.PostgresError) as error:
                log.warning("presence sweep failed: %s", error)

    def may_play_ai(self, table_id: int) -> bool:
        if not self.online:
            return False  # its move could not be stored: the hub starts the computer seats again once it is back
        if table_id in self._ai_tables:
            return True
        now = time.monotonic()
        if now - self._ai_asked.get(table_id, -AI_ASK_AGAIN) < AI_ASK_AGAIN:
            return False
        self._ai_asked[table_id] = now
        try:
            mine = bool(self._db.run(self._on_listener("SELECT pg_try_advisory_lock($1, $2)", AI_LOCK, table_id)))
        except (*LOST, StoreError, asyncpg.PostgresError) as error:
            log.warning("table %s: cannot ask for its computer seats: %s", table_id, error)
            return False
        if mine:
            self._ai_tables.add(table_id)
            self._ai_asked.pop(table_id, None)
        return mine


if TYPE_CHECKING:  # mypy checks here that the PostgreSQL store keeps to the interface

    def _a_postgres_store_is_a_table_store(store: PostgresStore) -> TableStore:
        return store
