"""The hub: every table of one server, loaded from its store and served to every player, on one loop.

Pure Python on the server's asyncio loop (no Textual, no asyncssh).  The
tables themselves are :mod:`.tables` (a :class:`~.tables.LiveTable` is played,
a :class:`~.table_facts.FinishedTable` only listed); the hub loads them, makes new
ones within the limits, finishes them (ratings, records), tells the lobbies of
every change, and remembers where each player sits; what other servers
sharing its store change reaches it through :mod:`.news`.  The store, the
broadcasts and the lobby news are only ever reached from the loop's thread
(:func:`~termgames.server.stores.interface.require_thread` fails loudly otherwise).

Ratings: a table is rated or casual, chosen by its creator (rated by
default when every seat is a human's; a computer seat or a guest makes it
casual).  At a rated table one person takes one seat and guests take none: an
account is its SSH key, so two names one key signs in as never face each
other there.  When a rated game ends its players' accounts are rated in the
transaction that marks it finished (:meth:`~.stores.interface.TableStore.finish_table`); a seat whose
name no key has claimed (an account nobody signed in as) leaves the table
unrated.

People, not visits (:mod:`.people`): every table counts against its *owner* (``key:...``, one
SSH key whatever names it uses; ``guest:ADDRESS``, every guest of one address),
whose unfinished tables are limited; a table where only computers play needs
a registered owner, counts against a smaller limit, and its computers think
only while someone watches.  A table without a move for ``idle_days`` (a
guest's or the computers': ``guest_idle_days``) is closed, unrated, by exactly one server
(:mod:`.idle`); the server starts without replaying finished or
idle tables (a finished one is read when asked for).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Collection, Iterable
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..clock import Clocks, ClockSpec
from ..match import AI, HUMAN, Seat, now_iso, random_seed
from ..paths import write_atomically
from ..records import dumps, save
from ..rules import RuleError, get_game
from ..timesource import SYSTEM, CallableTime, TimeSource, utc_now
from ..untrusted import fold_name, quoted
from .address import SshAddress
from .analyses import Analyses
from .clocks import ClockedTable, Timekeeper, clock_text, stored_clock
from .config import ServerConfig
from .idle import IdleTables, closed_record_text
from .limits import (
    CHAT_BURST,
    NEW_NAMES_DAYS,
    RateLimit,
)
from .logs import error_line
from .mail import MailConfig
from .news import OtherServers
from .notices import Notices, iso
from .people import (
    GUEST_PREFIX,
    KEY_PREFIX,
    address_group,
    check_rated_seat,
    is_guest,
    is_loopback,
    is_player_name,
    key_owner,
    name_owner,
    person_of,
)
from .pool import FairPool
from .seeks import Seeks
from .stores.interface import (
    PlayerRating,
    Quota,
    RatingChange,
    StoredTable,
    StoreError,
    TableStore,
    require_thread,
)
from .table_facts import FinishedTable
from .tables import LiveTable
from .tournaments import Tournaments

log = logging.getLogger("termgames.server")

#: Lobbies hear of changes at most this often (seconds): a move need not wait for 30 lobby redraws.
LOBBY_NEWS_DELAY = 0.25
#: The most digits a table number has (below 2**63, a store's row id).
TABLE_NUMBER_DIGITS = 18
#: Finished tables the lobby lists, the newest (read at start-up without their moves).
FINISHED_LISTED = 100

def describe_change(change: RatingChange) -> str:
    """``alice 25.0 -> 27.6 (+2.6)``: one rating change, in plain ASCII."""
    before, after = change.before.mu, change.after.mu
    return f"{change.player} {before:.1f} -> {after:.1f} ({after - before:+.1f})"


class Hub:
    """Every table of one server, loaded from and written to its :class:`~.stores.interface.TableStore`."""

    def __init__(
        self,
        store: TableStore,
        records_dir: Path | None = None,
        *,
        config: ServerConfig | None = None,
        mail: MailConfig | None = None,
        address: SshAddress | None = None,
        now: Callable[[], float] | None = None,
        time_source: TimeSource = SYSTEM,
        **settings: Any,
    ) -> None:
        """``config``: the server's settings (``settings`` change some of them by name, as tests do);
        ``time_source``: where everything of this server reads the time (a test passes a ``ManualTime``; ``now``,
        a function of the epoch time, makes one)."""
        #: The server's one time source: clocks, notices, mail, idle tables, links, budgets and limits read it.
        self.time_source: TimeSource = CallableTime(now) if now is not None else time_source
        self.store = store
        store.time_source = self.time_source
        #: The server's settings: its limits among them (unfinished tables per person and in all, a newcomer's
        #: tables, new names an address a day, chat lines a minute...).
        self.config = (config or ServerConfig()).with_settings(**settings)
        #: How players reach this server (the ``ssh`` command mails and screens name).
        self.address = address or SshAddress("localhost", 2222)
        self.chat_limit = RateLimit(self.config.chat_per_minute, CHAT_BURST, clock=self.time_source.monotonic)
        #: Finished tables not read whole, for the lobby's list (the newest FINISHED_LISTED at start-up).
        self.finished_listed: dict[int, FinishedTable] = {}
        self.records_dir = records_dir
        # Computer turns: a bounded pool, one lane per table served in turn (one slow table cannot starve the rest);
        # the analyses in its background lane, when no computer turn waits.
        self.executor = FairPool(self.config.ai_threads)
        self.closed = False
        self.tables: dict[int, LiveTable] = {}
        self.lobby_watchers: list[Callable[[], None]] = []
        self._lobby_news_due = False
        #: Ratings by game, then by folded account name: read from the store once, renewed when a game is rated.
        self._ratings: dict[str, dict[str, PlayerRating]] = {}
        #: Tables that could not be loaded, by id: why (one line).  Set aside: the server serves the others.
        self.set_aside: dict[int, str] = {}
        #: The other servers sharing the store: their news, and what a lost database leaves to read again.
        self.others = OtherServers(self)
        #: Who is connected here and what each hears of her tables; mail for those who are not (``mail``).
        self.notices = Notices(self, mail, self.config.mail_every)
        #: Closes the tables without a move for idle_days (a guest's table: guest_idle_days).
        self.idle = IdleTables(self, self.config.idle_days, self.config.guest_idle_days)
        #: ``ssh HOST analyse TABLE``: finished tables analysed one at a time in the computer players' pool, after
        #: their turns, a few a day a person.
        self.analyses = Analyses(self, clock=self.time_source.monotonic)
        #: Seeks and quick pairing (:mod:`.seeks`): kept by the store, paired by every server sharing it.
        self.seeks = Seeks(self)
        if not store.shared:  # a server with a database of its own starts with nobody connected
            self.seeks.drop_live()
        #: The one timer of every running clock, and the heartbeat.
        self.timekeeper = Timekeeper(self)
        #: The tournaments: their rounds paired and started from their own timer (:mod:`.tournaments`).
        self.tournaments = Tournaments(self)
        # The time no server ran is not charged to any clock: credited before a table is read.
        self.timekeeper.credit_downtime()
        # Start-up replays the unfinished tables only, once the idle ones are closed (without replaying them).
        self.close_idle()
        for stored in store.load_open_tables():
            table = self._live(stored)
            if table is None:
                continue
            table.clock.changed()
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
        self.store.listen(self.others.heard)
        for table in self.tables.values():
            table.runner.start()
            if self.store.shared and not table.over:  # who is at it through the servers already running
                table.refresh_presence()
        loop = asyncio.get_running_loop()
        if self.store.shared:
            self._watch_task = loop.create_task(self.others.take_over_forever())
        self._idle_task = loop.create_task(self.idle.close_forever())
        self.notices.start()
        self.timekeeper.start()
        self.tournaments.start()

    def close_idle(self, now: datetime | None = None) -> list[int]:
        """Close the tables idle for too long (see :meth:`~.idle.IdleTables.close`); the ids of those closed."""
        return self.idle.close(now)

    def close(self) -> None:
        self.closed = True
        # Every computer player thinking stops now: a search left to run to its 2 s deadline kept the stopping
        # server's process from exiting (its thread holds the interpreter) long after everything was closed.
        for table in self.tables.values():
            table.runner.stop()
        self.timekeeper.stop()
        self.tournaments.stop()
        for name in ("_watch_task", "_idle_task"):
            task = getattr(self, name, None)
            if task is not None:
                task.cancel()
        self.analyses.close()  # before the pool: the move it is judging stops, not only those queued
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.notices.close()

    # -- tables --------------------------------------------------------------------

    def table(self, table_id: int | str) -> LiveTable:
        text = str(table_id).lstrip("#")
        # A table's number is a store's row id (a 64-bit integer): digits, at most 18 of them.
        if not (text.isascii() and text.isdigit() and len(text) <= TABLE_NUMBER_DIGITS):
            raise RuleError(f"{quoted(str(table_id))} is not a table number")
        number = int(text)
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

    def take_in(self, table_id: int) -> None:
        """A table this server does not hold yet (made, or finished, at another server): served, or listed."""
        stored = self.store.load_table(table_id)
        if stored is not None and not stored.finished:
            self._install(stored)
        elif stored is not None:  # finished: listed, and read whole when asked for
            self.finished_listed[stored.id] = FinishedTable(self, stored)
            self.lobby_changed()

    def _install(self, stored: StoredTable) -> LiveTable | None:
        """A table read from the store after start-up, replayed and kept; None when it cannot be (set aside)."""
        table = self._live(stored)
        if table is None:
            return None
        self.finished_listed.pop(stored.id, None)
        if stored.finished and table.rated:
            table.rating_changes = self.store.rating_changes(table.id)
        table.runner.start()
        table.clock.changed()
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
        clock: ClockSpec | None = None,
        counted: bool = True,
    ) -> LiveTable:
        """A new table; RuleError if the game, options or seats make no game.

        ``rated`` None: rated when every seat is a human's and no guest's, casual otherwise.  Asked for
        explicitly, a rated table with a computer seat, a guest or one person in two seats is refused.
        ``owner``: whom it counts against (the connection knows: :func:`key_owner`, :func:`guest_owner`);
        None works it out from ``creator``.  ``clock``: the seats' clock (None: untimed); it starts once every
        seat is taken.  ``counted`` False: a tournament's table, bounded by the tournament (only the server's
        limit of open tables applies).
        """
        game = get_game(game_name)
        seats = list(seats)
        computers_only = all(seat.kind == AI for seat in seats)
        if computers_only and (is_guest(creator) or self.store.account(creator) is None):
            raise RuleError("only a registered player makes a table of computers only (sign in with an SSH key)")
        if computers_only and clock is not None:
            raise RuleError("a table of computers only is untimed: its computers play only while someone watches")
        owner = owner or self.owner_of(creator)
        if counted:
            self._check_table_limits(owner, computers_only)
        elif sum(1 for table in self.tables.values() if not table.over) >= self.config.max_tables:
            raise RuleError("the server has as many open tables as its limit: the game waits for one to end")
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
            rated=rated, clock="" if clock is None else stored_clock(Clocks.new(clock, len(seats)), []),
        )
        probe = LiveTable(self, stored)  # checks seat count, names and options before anything is stored
        if clock is not None and not probe.open_seats():
            probe.match.start_clocks(self.now())  # every seat taken: the first to move is on the clock now
            stored.clock = clock_text(probe.match)
        try:
            table_id = self.store.create_table(
                game.name, probe.match.options, seed, stored.seats, creator, rated, owner=owner, clock=stored.clock
            )
        except StoreError as error:
            log.error("a table not stored: %s", error)
            raise RuleError("the table could not be stored; try again") from None
        # What the store wrote (its waiting time in mails counts from it until a move is made).
        stored.id, stored.owner, stored.created = table_id, owner, now_iso()
        table = LiveTable(self, stored)
        self.tables[table_id] = table
        self.lobby_changed()
        table.runner.start()
        table.clock.changed()
        self.notices.challenged(table)
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

    def check_new_table(self, owner: str) -> None:
        """RuleError (a clear refusal) when ``owner`` may not open one more table now (a seek's table)."""
        self._check_table_limits(owner)

    def _check_table_limits(self, owner: str, computers_only: bool = False) -> None:
        """RuleError (a clear refusal) when the owner or the server has as many open tables as allowed."""
        open_tables = [table for table in self.tables.values() if not table.over]
        if len(open_tables) >= self.config.max_tables:
            raise RuleError(f"the server has {len(open_tables)} open tables, its limit: finish or wait for one")
        mine = [table for table in open_tables if person_of(table.owner) == owner]
        who = "the guests of your address have" if owner.startswith("guest:") else "you have"
        if computers_only:
            computers = sum(1 for table in mine if table.computers_only)
            if computers >= self.config.max_bot_tables_per_player:
                raise RuleError(
                    f"{who} {computers} open tables of computers only, the limit per player: wait for one to end"
                )
        if len(mine) >= self.config.max_tables_per_player:
            raise RuleError(
                f"{who} {len(mine)} open tables, the limit per player: finish or resign one before opening another"
            )
        allowed = self.tables_allowed(owner)
        if len(mine) >= allowed:
            grows = "" if owner.startswith("guest:") else ", one more for each rated game you finish"
            raise RuleError(
                f"{who} {len(mine)} open tables, the limit of a newcomer{grows}: finish or resign one first"
            )

    def tables_allowed(self, owner: str) -> int:
        """How many unfinished tables ``owner`` may have: a newcomer a few (:data:`NEW_PLAYER_TABLES`), one
        more for each rated game her key's names finished, up to ``max_tables_per_player``.  A hundred new keys
        cannot fill the server: each gets a few tables, and new names from one address are few a day."""
        finished = 0
        if owner.startswith(KEY_PREFIX):
            try:
                finished = self.store.rated_games(owner.removeprefix(KEY_PREFIX))
            except StoreError as error:  # the database is away: a newcomer's limit meanwhile
                log.warning("%s: rated games not read: %s", owner, error)
        return min(self.config.max_tables_per_player, self.config.new_player_tables + finished)

    def new_name_refusal(self, address: str, spend: bool) -> str:
        """Why a new name (a new account, a new person) may not be claimed from ``address`` now, in one line;
        "" when it may (``spend``: and it counts).  Loopback is not counted (see :mod:`.limits`)."""
        if is_loopback(address):
            return ""
        now = self.utc_now()
        since = iso(now - timedelta(days=NEW_NAMES_DAYS))
        quota = Quota(f"names:{address_group(address)}", self.config.max_new_names_per_address, since)
        if not self.store.take_quota([quota], iso(now), spend):
            return ""
        return (
            f"{self.config.max_new_names_per_address} new names were made from your address within a day, its limit "
            "(--max-new-names-per-address): sign in with a name of yours, or try again tomorrow"
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
        self.tournaments.table_finished(table)
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

    def save_record_text(self, table: LiveTable, text: str) -> None:
        """Keep ``text`` as the finished table's record: with the table in the store, and in ``records/``."""
        self.store.save_record(table.id, text)
        path = self.record_path(table)
        if path is not None:
            write_atomically(path, text.encode("utf-8"), mode=0o600)

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

    # -- clocks and turns ------------------------------------------------------------

    def now(self) -> float:
        """The time now, in seconds since the epoch: what every clock of this server counts with."""
        return self.time_source.time()

    def utc_now(self) -> datetime:
        """The time now as an aware UTC datetime (what stored times are written from)."""
        return utc_now(self.time_source)

    def clocked_table(self, table_id: int) -> LiveTable | None:
        return self.tables.get(table_id)

    def clock_warning(self, clocked: ClockedTable, seat: int) -> None:
        """``seat``'s running clock at ``clocked`` fell below a fifth of its time: her notices (and mail, if she is
        away) hear it.  Every server holding the table tells the players connected to it; the mail is sent once."""
        table = self.tables.get(clocked.id)
        if table is not None and not table.match.computer_plays(seat):
            self.players_news(table, "clock", [seat])

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
        """``player``'s screen is at this table now, in a seat or watching (None: back in the lobby); guests are
        not kept."""
        if not player.startswith(GUEST_PREFIX):
            try:
                self.store.set_at_table(player, table_id)
            except StoreError as error:  # only where a reconnection leads: the game itself is stored
                log.warning("%s: where they sit not stored: %s", player, error)

    def returning_to(self, player: str) -> LiveTable | None:
        """The table ``player`` was at (in a seat or watching) when their connection dropped or the server
        stopped, if it goes on."""
        try:
            table_id = self.store.at_table(player)
        except StoreError as error:
            log.warning("%s: where they sat not read: %s", player, error)
            return None
        if table_id is None:
            return None
        table = self.tables.get(table_id)
        if table is None or table.over:
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

    def players_news(self, table: LiveTable, kind: str, seats: Collection[int]) -> None:
        self.notices.table_news(table, kind, seats)

    def challenged(self, table_id: int) -> None:
        """A table made at another server: its players connected here hear they are challenged."""
        table = self.tables.get(table_id)
        if table is not None and not table.over:
            self.notices.challenged(table)

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
