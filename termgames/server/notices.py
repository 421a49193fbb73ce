"""Knowing it is your move: a notice wherever a player is connected, e-mail when she is not.

**Live notices.**  Every app of a player connected to this server attaches here (:meth:`Notices.attach`).
When a move makes it her move at one of her tables (not her own move), when she is challenged, when an
undo waits for her answer or when her clock runs low, each of her apps gets a :class:`Notice`: one line
naming the table and the game, with how her account chose to hear it (``notify off|bell|desktop``, kept by
the store).  The app leaves it out at the table it shows (she sees it there).  Every server holds every
table and hears every move (PostgreSQL's news), so a move made at another server, or by the ``move``
command, notifies her where she is connected, at once.

**Mail** (only with ``--smtp``): a player with a confirmed address who is not connected anywhere gets at
most one digest every ``mail_every`` hours listing every table where it is her move, least time first
(:func:`time_left`; waited longest first where there is no clock), and one warning when a clock of hers
falls below a fifth of its time (:meth:`Notices.clock_low`).  Servers sharing a database each mark the
players connected to them as seen every minute; the server whose transaction marks a player mailed is the
one that sends her mail (:meth:`~.stores.interface.TableStore.claim_digest`), so she gets one.

Pure Python on the server's loop (no Textual): the apps render notices (:mod:`.ui.app`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol

from ..match import HUMAN
from ..untrusted import fold_name, printable
from .address import SshAddress
from .limits import MAIL_EVERY_HOURS
from .mail import MailConfig, Mailer, Waiting, digest_mail, forfeit_mail, warning_mail
from .people import SEEK_OWNER, is_guest
from .stores.interface import DEFAULT_NOTIFY_MODE, StoreError, TableStore
from .tables import LiveTable

log = logging.getLogger("termgames.server")

#: Seconds between two marks of the players connected here as seen (their digests wait while they are).
SEEN_SECONDS = 60.0
#: A player counts as away (mail may go to her) when no server has seen her connected for this long.
AWAY_SECONDS = 300.0
#: Seconds between two looks for digests that are due.
MAIL_ROUND_SECONDS = 60.0
#: A digest that could not be sent is tried again after this long.
MAIL_RETRY = timedelta(hours=1)
#: The notice's longest text: one line.
NOTICE_WIDTH = 160

#: The kinds of notice: her move, a challenge, an undo waiting for her answer, her clock running low.
MOVE, CHALLENGE, UNDO, CLOCK = "move", "challenge", "undo", "clock"
#: A table made for her by seeks or a tournament: her game is ready (no one challenged her).
READY = "ready"


@dataclass(frozen=True)
class Notice:
    """One line for one player about one of her tables, and how she hears it (``bell``, ``desktop``)."""

    player: str
    table_id: int
    kind: str
    text: str
    mode: str


def time_left(table: LiveTable, seat: int) -> float | None:
    """Seconds left on ``seat``'s clock at ``table``; None while the table has no clock.

    The digest sorts by it (least time first) and says it.
    """
    reading = table.read_clocks()
    if reading is None:
        return None
    clocks, now = reading
    return clocks.left_at(seat, now)


def iso(moment: datetime) -> str:
    """A time as the stores keep it (``match.now_iso``'s form: UTC, seconds), so that texts compare as times."""
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


def _parse(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def one_line(text: str) -> str:
    """A notice's text: nothing that can drive a terminal, one line, not too long."""
    clean = printable(text, keep_newlines=False)
    return clean if len(clean) <= NOTICE_WIDTH else clean[: NOTICE_WIDTH - 3] + "..."


def desktop_sequence(text: str, term: str = "") -> str:
    r"""OSC 9, a desktop notification in many terminals (it passes SSH): ``ESC ] 9 ; text BEL``.

    The text is :func:`one_line`'s, so it holds no ESC, BEL or C1 control (any of them would end the sequence
    early and let the rest drive the terminal), and it starts with a letter: ``9;4;...`` is another command to
    some terminals (a progress bar).

    ``term``: the client's ``TERM``.  tmux and GNU screen swallow an OSC they do not know: inside tmux
    (``tmux*``) the sequence goes in tmux's passthrough (``ESC P tmux; ... ESC \``, its ESCs doubled), which
    tmux lets out only with ``set -g allow-passthrough on`` (3.3 and later); inside screen (``screen*``) in
    screen's (``ESC P ... ESC \``), which tmux, should it be the one whose TERM says screen, drops unseen.
    """
    clean = "".join(c for c in one_line(text) if c.isprintable())  # (one_line's are; kept for what follows)
    sequence = f"\x1b]9;termgames: {clean}\x07"
    if term.startswith("tmux"):
        return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"
    if term.startswith("screen"):
        return f"\x1bP{sequence}\x1b\\"
    return sequence


#: The owner of a tournament's tables: ``tournament:ID`` (see :mod:`.tournaments`).
TOURNAMENT_OWNER = "tournament:"


class NoticesHost(Protocol):
    """What the notices need of the hub (:class:`~.hub.Hub` is one): the store and every table it holds."""

    store: TableStore
    tables: dict[int, LiveTable]
    closed: bool
    #: How players reach the server (what mails tell them to type).
    address: SshAddress

    def utc_now(self) -> datetime:
        """The time now, from the server's one time source."""
        ...


class Notices:
    """Who is connected to this server, what each hears (see the module doc), and the mail for the others."""

    def __init__(self, hub: NoticesHost, mail: MailConfig | None = None, mail_every: float = MAIL_EVERY_HOURS) -> None:
        self.hub = hub
        self.mailer = Mailer(mail) if mail is not None else None
        self.mail_every = mail_every
        #: Each connected player's apps (by folded name): what a notice is handed to.
        self._apps: dict[str, list[Callable[[Notice], None]]] = {}
        self._names: dict[str, str] = {}
        self._tasks: list[asyncio.Task[None]] = []

    # -- who is connected here --------------------------------------------------------------

    def attach(self, player: str, callback: Callable[[Notice], None]) -> None:
        """One of ``player``'s apps is open at this server: her notices go to it until :meth:`detach`."""
        folded = fold_name(player)
        self._apps.setdefault(folded, []).append(callback)
        self._names[folded] = player
        self._seen([player])

    def detach(self, player: str, callback: Callable[[Notice], None]) -> None:
        folded = fold_name(player)
        apps = self._apps.get(folded, [])
        if callback in apps:
            apps.remove(callback)
        if not apps:
            self._apps.pop(folded, None)
            self._names.pop(folded, None)
        self._seen([player])  # the last time she was here: her away time counts from now

    def connected(self) -> list[str]:
        """The players with an app open at this server."""
        return sorted(self._names.values())

    def is_connected(self, player: str) -> bool:
        return fold_name(player) in self._apps

    def _seen(self, players: Collection[str]) -> None:
        accounts = [player for player in players if not is_guest(player)]
        if not accounts:
            return
        try:
            self.hub.store.mark_seen(accounts, iso(self.hub.utc_now()))
        except StoreError as error:  # marked again within a minute
            log.warning("players not marked as seen: %s", error)

    # -- notices ----------------------------------------------------------------------------

    def tell(self, player: str, table: LiveTable, kind: str, text: str) -> None:
        """Hand ``player``'s apps at this server a notice (none if she chose ``off``, or is not here)."""
        apps = list(self._apps.get(fold_name(player), ()))
        if not apps:
            return
        mode = DEFAULT_NOTIFY_MODE
        if not is_guest(player):
            try:
                mode = self.hub.store.notice_settings(player).mode
            except StoreError as error:  # the database is away: she hears it the usual way
                log.warning("%s: notice settings not read: %s", player, error)
        if mode == "off":
            return
        notice = Notice(player, table.id, kind, one_line(text), mode)
        for app in apps:
            try:
                app(notice)
            except Exception:  # an app that cannot take it is going away: the others still hear
                log.exception("%s: a notice not delivered", player)

    def _where(self, table: LiveTable) -> str:
        return f"table #{table.id}, {table.game.title}"

    def table_news(self, table: LiveTable, kind: str, seats: Collection[int]) -> None:
        """``seats`` of ``table`` have news: it became their move (``move``), an undo waits for them (``undo``),
        their clock fell below a fifth of its time (``clock``: see :meth:`clock_low`)."""
        for seat in seats:
            if kind == CLOCK:
                self.clock_low(table, seat)
                continue
            player = table.seats[seat].name
            if table.seats[seat].kind != HUMAN or not player:
                continue
            if kind == MOVE:
                moves = table.match.moves
                last = table.names[moves[-1].seat] if moves else ""
                text = f"Your move at {self._where(table)}" + (f" ({last} moved)" if last else "")
            elif kind == UNDO and table.undo_request is not None:
                asker = table.names[table.undo_request.seat]
                text = f"{asker} asks to take back a move at {self._where(table)}: your answer is awaited there"
            else:
                continue
            self.tell(player, table, kind, text)

    def challenged(self, table: LiveTable) -> None:
        """A new table: every player seated at it but its creator is challenged (a tournament's table: every
        player hears her next game is ready)."""
        kind = "rated" if table.rated else "casual"
        tournament = table.owner.removeprefix(TOURNAMENT_OWNER) if table.owner.startswith(TOURNAMENT_OWNER) else ""
        for seat_number, seat in enumerate(table.seats):
            if seat.kind != HUMAN or not seat.name:
                continue
            if not tournament and fold_name(seat.name) == fold_name(table.creator):
                continue
            turn = "; your move" if seat_number in table.to_move() else ""
            text, news = f"{table.creator} challenges you: {self._where(table)} ({kind}){turn}", CHALLENGE
            if table.owner.startswith(SEEK_OWNER):
                text, news = f"Your game is ready: {self._where(table)} ({kind}){turn}", READY
            if tournament:
                text = f"Your next game of tournament {tournament} is ready: {self._where(table)} ({kind}){turn}"
                news = READY
            self.tell(seat.name, table, news, text)

    def clock_low(self, table: LiveTable, seat: int) -> None:
        """``seat``'s clock at ``table`` just fell below a fifth of its time (the clocks call this once per move).

        A notice where she is connected; mail (once per move) if she is connected nowhere and has a confirmed
        address."""
        player = table.seats[seat].name
        if table.seats[seat].kind != HUMAN or not player or table.over:
            return
        self.tell(player, table, CLOCK, f"Under a fifth of your time is left at {self._where(table)}")
        if self.mailer is None or is_guest(player) or self.is_connected(player):
            return
        now = self.hub.utc_now()
        try:
            address = self.hub.store.claim_warning(
                player, table.id, len(table.match.moves), iso(now - timedelta(seconds=AWAY_SECONDS))
            )
        except StoreError as error:
            log.warning("%s: clock warning not mailed: %s", player, error)
            return
        if address is not None:
            entry = self.waiting_entry(table, seat, now)
            self.mailer.send(warning_mail(self.mailer.config, address, entry, self.hub.address.command(player)))

    def forfeited(self, table: LiveTable, reason: str) -> None:
        """A tournament's table closed by a forfeit: its players here hear ``reason``; those away get a mail
        (once, whichever server closed it: the store claims it as a clock warning of the table)."""
        now = self.hub.utc_now()
        for seat in table.seats:
            player = seat.name
            if seat.kind != HUMAN or not player:
                continue
            self.tell(player, table, MOVE, reason)
            if self.mailer is None or is_guest(player) or self.is_connected(player):
                continue
            try:
                address = self.hub.store.claim_warning(player, table.id, -1, iso(now - timedelta(seconds=AWAY_SECONDS)))
            except StoreError as error:
                log.warning("%s: forfeit not mailed: %s", player, error)
                continue
            if address is not None:
                self.mailer.send(
                    forfeit_mail(self.mailer.config, address, table.id, reason, self.hub.address.command(player))
                )

    # -- mail -------------------------------------------------------------------------------

    def waiting_entry(self, table: LiveTable, seat: int, now: datetime) -> Waiting:
        moves = table.match.moves
        since = _parse(moves[-1].time if moves else table.created) or now
        others = tuple(name for index, name in enumerate(table.names) if index != seat)
        return Waiting(table.id, table.game.title, others, time_left(table, seat), (now - since).total_seconds())

    def waiting_tables(self, player: str, now: datetime | None = None) -> list[Waiting]:
        """Every table where it is ``player``'s move, least time left first, then those waiting longest."""
        now = now or self.hub.utc_now()
        found = []
        for table in self.hub.tables.values():
            seat = table.seat_of(player)
            if seat is not None and not table.over and seat in table.to_move():
                found.append(self.waiting_entry(table, seat, now))
        return sorted(
            found, key=lambda w: (w.time_left is None, w.time_left or 0.0, -w.waited, w.table_id)
        )

    def mail_round(self, now: datetime | None = None) -> list[concurrent.futures.Future[None]]:
        """Send the digests that are due (see the module doc); the mails handed to the mail thread."""
        if self.mailer is None:
            return []
        now = now or self.hub.utc_now()
        mailed_before = iso(now - timedelta(hours=self.mail_every))
        seen_before = iso(now - timedelta(seconds=AWAY_SECONDS))
        sent = []
        try:
            due = self.hub.store.digest_due(mailed_before, seen_before)
        except StoreError as error:
            log.warning("digests not looked for: %s", error)
            return []
        for player in due:
            if self.is_connected(player):
                continue
            waiting = self.waiting_tables(player, now)
            if not waiting:
                continue
            try:
                address = self.hub.store.claim_digest(player, iso(now), mailed_before, seen_before)
            except StoreError as error:
                log.warning("%s: digest not sent: %s", player, error)
                continue
            if address is None:
                continue  # another server sends it (or she came back meanwhile)
            mail = digest_mail(self.mailer.config, address, waiting, self.mail_every, self.hub.address.command(player))
            future = self.mailer.send(mail)
            future.add_done_callback(self._retry_when_failed(player, now))
            sent.append(future)
        return sent

    def _retry_when_failed(self, player: str, now: datetime) -> Callable[[concurrent.futures.Future[None]], None]:
        """A digest that could not be sent is due again after :data:`MAIL_RETRY`, not after a whole day."""
        loop = asyncio.get_running_loop()
        again = iso(now - timedelta(hours=self.mail_every) + MAIL_RETRY)

        def failed(done: concurrent.futures.Future[None]) -> None:
            if done.cancelled() or done.exception() is not None:
                loop.call_soon_threadsafe(self._set_mailed, player, again)

        return failed

    def _set_mailed(self, player: str, when: str) -> None:
        try:
            self.hub.store.set_mailed(player, when)
        except StoreError as error:
            log.warning("%s: digest not set to be tried again: %s", player, error)

    # -- running ----------------------------------------------------------------------------

    def start(self) -> None:
        """On the loop: mark who is connected here every minute; look for digests due every minute."""
        loop = asyncio.get_running_loop()
        self._tasks.append(loop.create_task(self._every(SEEN_SECONDS, lambda: self._seen(self.connected()))))
        if self.mailer is not None:
            self._tasks.append(loop.create_task(self._every(MAIL_ROUND_SECONDS, self.mail_round)))

    async def _every(self, seconds: float, work: Callable[[], object]) -> None:
        while not self.hub.closed:
            await asyncio.sleep(seconds)
            try:
                work()
            except Exception:  # never let it end: the next round tries again
                log.exception("notices: a round failed")

    def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self.mailer is not None:
            self.mailer.close()
