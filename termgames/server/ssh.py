"""The SSH front door: asyncssh server, identities, and one Textual app per SSH channel.

Everything runs on one asyncio loop in one process: each interactive channel gets a fresh
:class:`~termgames.server.ui.app.ServeApp` whose Textual driver is the channel
itself (:class:`~termgames.server.ui.driver.ChannelDriver`, which with the rest of
hosting many Textual apps on one loop lives in :mod:`termgames.server.ui`, imported
once the server starts).  Here: the channel's input, bounded (a flood from one player
never stalls the others), and its output, swallowed after a disconnect.

Identity is trust on first use: the first public key seen for a name claims
it; later logins under that name need the same key.  Keyboard-interactive
with no prompt lets anyone in as a guest (``guest-...``).  The server offers
the game screens (a PTY is required), ``watch TABLE`` with a PTY (a table's
screen straight from sign-in: see :meth:`GameSession.watch_from_sign_in`) and
the correspondence commands, nothing else: no shell, no other exec, no
forwarding, no SFTP.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import asyncssh

from ..rules import RuleError
from ..timesource import SYSTEM, TimeSource
from ..untrusted import printable
from .address import SshAddress, listening_address, parse_public_address
from .collector import CollectorPolicy
from .commands import EXIT_USAGE, WebSignIn, run_command, table_to_watch, watch_arguments
from .config import ServerConfig
from .drawing import Member, SpectatorGroups
from .hub import Hub
from .input_budget import (
    DEFAULT_SIZE,
    INPUT_CHUNK,
    MAX_PENDING_INPUT,
    InputBudget,
    PersonBudgets,
    SizeGate,
    clamp_size,
)
from .limits import (
    AUTH_FAILURE_WINDOW,
    MAX_AUTH_FAILURES,
)
from .mail import MailConfig
from .people import guest_name, guest_owner, key_owner, name_owner, valid_player_name
from .stores import is_postgres, open_store
from .stores.interface import StoreError, TableStore

if TYPE_CHECKING:
    from .notices import Notice
    from .shared import SharedTable
    from .ui.driver import ChannelDriver

log = logging.getLogger("termgames.server")

HOST_KEY_NAME = "ssh_host_ed25519_key"
DATABASE_NAME = "termgames.db"
RECORDS_NAME = "records"
#: What a player signing in reads while the database cannot be reached (before "Permission denied").
DATABASE_AWAY = "termgames: the database cannot be reached just now: try again in a moment\r\n"

#: At shutdown, how long the apps may take to close (leaving their tables) before the store closes.
SHUTDOWN_WAIT = 10.0
#: Then how long their clients, told the server restarts, have to hang up before their connections are closed.
CLIENTS_LEAVE_WAIT = 1.0


# --------------------------------------------------------------------------
# Sessions: the game screens or one command
# --------------------------------------------------------------------------


class GameSession(asyncssh.SSHServerSession):
    def __init__(
        self,
        service: TermgamesServer,
        player: str,
        guest: bool,
        owner: str = "",
        connection: PlayerConnection | None = None,
    ) -> None:
        self.service = service
        #: The SSH connection the channel belongs to (its channels with an app are counted: see _refusal).
        self.connection = connection
        self.player = player
        self.guest = guest
        #: Where the connection comes from (what its confirmation mails count against).
        self.address = connection.address if connection is not None else ""
        #: The person signed in (her key, or the guests of her address): whom her tables and chat count against.
        self.owner = owner
        self.chan: asyncssh.SSHServerChannel | None = None
        #: Its connection (told from the server's others at shutdown): kept, a closed channel forgets it.
        self.conn: object = None
        self.size = DEFAULT_SIZE
        self.pty = False
        self.term = ""  # the client's TERM
        self.command: str | None = None
        #: A table her first app opens at once (``watch TABLE`` at a table she has a seat at: her seat).
        self._opening: int | None = None
        self.closed = False
        self.app: Any = None
        self.app_task: asyncio.Task[None] | None = None
        self._driver: ChannelDriver | None = None
        self._driver_ready = asyncio.Event()
        #: Following another's drawing with no app of its own (drawing.py): its place at the table, its app's
        #: look (ASCII mode, palette, theme, muted players), notices that came meanwhile, and what wakes it.
        self._place: SharedTable | None = None
        self._look: tuple[bool, str, str, set[str]] | None = None
        self._held_notices: list[Notice] = []
        self._wake = asyncio.Event()
        #: Keys wait for the new app while there is none.
        self._asleep = False
        #: Woken by her own doing at this table: its new screen draws for her alone, not for a group.
        self._solo_at: int | None = None
        self._stopping = False
        #: The session hears her notices (while no app of hers does).
        self._hearing_notices = False
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending = bytearray()
        self._paused = False
        self._feeder: asyncio.Task[None] | None = None
        #: The channel's own until its app starts; then its person's, shared with her other terminals.
        self.input_budget = InputBudget()
        self.sizes: SizeGate | None = None

    @property
    def driver(self) -> ChannelDriver | None:
        """The driver of the app running now (set by it); keys wait for it while the app is built again."""
        return self._driver

    @driver.setter
    def driver(self, driver: ChannelDriver | None) -> None:
        self._driver = driver
        if driver is not None:
            self._asleep = False
            self._driver_ready.set()

    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:
        self.chan = chan
        self.conn = chan.get_connection()

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self.pty = True
        self.term = term_type
        self.size = clamp_size(term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        # Only our commands run; anything else gets their one-line "unknown command" answer.
        self.command = command
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        return False  # no SFTP, no anything

    def session_started(self) -> None:
        if self.command is not None:
            watched = watch_arguments(self.command) if self.pty else None
            if watched is not None:
                self.watch_from_sign_in(watched)
            else:
                self._run_command(self.command)  # (``watch`` without a terminal: how to ask for one)
            return
        if not self.pty:
            address = self.service.hub.address
            self.write(
                f"termgames needs a terminal: connect with {address.command(self.player, terminal=True)}, "
                f"or give a command ({address.command(self.player)} help)\r\n"
            )
            self._exit(1)
            return
        if self._refused():
            return
        self._start_screens()

    def _refused(self) -> bool:
        """Refuse this channel a screen past a limit (one line that names it, status 1); whether it was."""
        refusal = self._refusal()
        if refusal:
            connection = self.connection
            if connection is None or not connection.screens_refused:  # once a connection: its hundreds would flood
                log.warning("refused a screen to %s: %s", self.player, refusal)
            if connection is not None:
                connection.screens_refused += 1
            self.write(f"termgames: {refusal}\r\n")
            self._exit(1)
        return bool(refusal)

    def _start_screens(self) -> None:
        """The channel's screens: her input paid from her person's budget, her app (or her sleep: see below)."""
        self.service.sessions.add(self)
        self.input_budget = self.service.budgets.join(self.owner or name_owner(self.player))
        self.sizes = SizeGate(self.input_budget, self._apply_size, self.size)
        self.app_task = asyncio.get_running_loop().create_task(self._run_app())

    def watch_from_sign_in(self, args: list[str]) -> None:
        """``ssh -t HOST watch TABLE``: the table's screen at once, without the lobby's app before it.

        A player with a seat there gets her seat's screen, by an app, as from the lobby (never a group's: hers
        shows what her seat may see).  A spectator takes her place at the table as the lobby's ``w`` does, and
        joins the spectators of her look (drawing.py) as soon as she arrives: one group drawn already, she
        follows it with no app built at all (asleep, as a follower whose app was torn down); else she leads a
        new one, and her app, built at the table, draws for whoever comes next.  Signing a crowd of spectators
        in this way costs an app per group, not one per person."""
        from .ui.app import first_look, open_place
        from .ui.driver import APPLICATION_MODE

        hub = self.service.hub
        try:
            live = table_to_watch(hub, args, self.player)
        except RuleError as error:
            self._fail(str(error))
            return
        if self._refused():
            return
        if live.seat_of(self.player) is not None:
            self._opening = live.id
            self._start_screens()
            return
        try:
            place = open_place(hub, live.id, self.player, watch=True, owner=self.owner)
        except (RuleError, LookupError) as error:  # a game this server cannot show
            self._fail(str(error))
            return
        ascii, palette, theme = first_look(self.service.config.ascii)
        look = self._group_look(live.id, ascii, palette, theme)
        groups = self.service.spectator_groups
        self._place = place
        if groups.drawn(look):
            place.keep()  # no screen shows it yet: the app that wakes her will
            self._look = (ascii, palette, theme, set())
            self._sleep()
            # Her terminal in the state her own app would have put it in, before the leader's frames reach it.
            self.send(APPLICATION_MODE.encode())
        groups.join(self, look)  # followed: the leader sends her its whole screen; else she leads, app to come
        self._start_screens()

    def _fail(self, message: str) -> None:
        """A command's error: one line on stderr, exit status 2 (as the commands' own)."""
        if self.chan is not None:
            with contextlib.suppress(Exception):
                self.chan.write_stderr(f"termgames: {printable(message, keep_newlines=False)}\r\n".encode())
        self._exit(EXIT_USAGE)

    def _refusal(self) -> str:
        """Why this channel gets no app (a limit: one line that names it), or empty."""
        service = self.service
        if len(service.sessions) >= service.config.max_sessions:
            return f"this server has {service.config.max_sessions} SSH screens open already: try again later"
        mine = [session for session in service.sessions if session.owner == self.owner]
        if len(mine) >= service.config.max_sessions_per_player:
            return (f"you have {service.config.max_sessions_per_player} SSH screens open on this server already "
                    "(the most one person may): close one")
        here = sum(1 for session in mine if session.connection is self.connection)
        if here >= service.config.max_sessions_per_connection:
            return (f"this connection has {service.config.max_sessions_per_connection} screens open already "
                    "(the most one connection may): close one")
        return ""

    def _run_command(self, command: str) -> None:
        result = run_command(
            self.service.hub, self.player, command, owner=self.owner or None, web=self.service.web,
            address=self.address,
        )
        newline = "\r\n" if self.pty else "\n"
        if result.stdout:
            self.write(result.stdout.replace("\n", newline))
        if result.stderr and self.chan is not None:
            with contextlib.suppress(Exception):
                self.chan.write_stderr(result.stderr.replace("\n", newline).encode("utf-8"))
        self._exit(result.status)

    async def _run_app(self) -> None:
        from .ui.app import ServeApp
        from .ui.driver import NORMAL_MODE, ChannelDriver

        app: ServeApp | None = None
        try:
            while True:
                if self._asleep:
                    # Another's app draws this terminal: only her place at the table stays (and the session hears
                    # her notices: _sleep) until something wakes her.
                    await self._wake.wait()
                    self._wake.clear()
                    if self.closed or self._stopping:
                        break
                place, self._place = self._place, None
                opening, self._opening = self._opening, None
                ascii, palette, theme, muted = self._look or (self.service.config.ascii, "default", "", set())
                app = ServeApp(
                    hub=self.service.hub, player=self.player, guest=self.guest, ascii=ascii, palette=palette,
                    owner=self.owner, term=self.term, resume=place, opening=opening,
                )
                if theme:
                    app.theme = theme
                app.muted = muted
                app.held_notices, self._held_notices = self._held_notices, []
                app.hearing_notices = self._stop_hearing_notices
                # Textual only calls driver_class: a partial with the session stands in for the class.
                app.driver_class = partial(ChannelDriver, session=self)  # type: ignore[assignment]  # see above
                app.watching = partial(self._app_watching, app)
                app.follow_at_once = partial(self._follow_from_lobby, app)
                self.app = app
                try:
                    await app.run_async(size=self.size)
                except Exception:
                    log.exception("the app of %s failed", self.player)
                if self._place is None or self.closed or self._stopping:
                    break
                # Torn down while another's app draws this terminal (_fall_asleep).
                app.release_tables()
                self.app = app = None
                self._driver = None
        finally:
            self._stop_hearing_notices()  # (if it went before any app heard them)
            if app is None and not self.service.hub.notices.is_connected(self.player):
                self.service.hub.seeks.owner_left(self.player)  # gone asleep: her last screen here, as an app's
            self.service.spectator_groups.leave(self)
            if self._place is not None:
                self._place.let_go()
                self._place = None
            if app is not None:
                app.release_tables()
            self.app = None  # the session may outlive its channel a while: not its app
            self.service.sessions.discard(self)
            if self.sizes is not None:
                self.sizes.cancel()
            self.service.budgets.leave(self.input_budget)
            if self.service.stopping:  # after the app gave the terminal back: the lines stay on her screen
                lines = self.service.hub.address.restart_lines(self.player)
                # Asleep, no app of hers gives it back: the session does, as the app would have.
                given_back = NORMAL_MODE if self._asleep else ""
                self.send((given_back + "".join(f"{line}\r\n" for line in lines)).encode())
            self._exit(0)

    def data_received(self, data: bytes, datatype: Any) -> None:
        # A key is this player's own: from here her app draws her screen (and no longer anyone else's).
        self.service.spectator_groups.leave(self)
        # Input is queued and fed in small chunks at a bounded rate by one task per channel (_feed_input):
        # fed at once, 200 kB of keys kept the shared loop busy for many seconds.
        if self.driver is not None:
            self.driver.note_input()  # the time a move it makes was received (see LiveTable.play)
        self._pending += data
        if len(self._pending) >= MAX_PENDING_INPUT and not self._paused and self.chan is not None:
            self._paused = True
            with contextlib.suppress(Exception):
                self.chan.pause_reading()  # SSH flow control holds the client back from here on
        if self._feeder is None or self._feeder.done():
            self._feeder = asyncio.get_running_loop().create_task(self._feed_input())

    async def _feed_input(self) -> None:
        while self._pending and not self.closed:
            if self._asleep:  # her app is being built again: her keys are for it
                self._driver_ready.clear()
                if self._asleep:
                    await self._driver_ready.wait()
                continue
            if self.input_budget.flooding(len(self._pending), self._paused):
                log.warning("%s kept flooding its input: connection closed", self.player)
                self._pending.clear()
                if self.chan is not None:
                    with contextlib.suppress(Exception):
                        self.chan.write_stderr(b"\r\ntermgames: too much input, connection closed\r\n")
                        self.chan.close()
                return
            delay = self.input_budget.wait_for_bytes(min(INPUT_CHUNK, len(self._pending)))
            if delay:
                await asyncio.sleep(min(delay, 0.25))
                continue
            chunk = bytes(self._pending[:INPUT_CHUNK])
            del self._pending[:INPUT_CHUNK]
            text = self._decoder.decode(chunk)
            if self.driver is not None and text:
                try:
                    self.driver.feed(text)
                except Exception:  # garbage from one client must never reach the loop
                    log.warning("%s sent input the key parser refused", self.player)
            if self._paused and len(self._pending) < MAX_PENDING_INPUT // 2 and self.chan is not None:
                self._paused = False
                with contextlib.suppress(Exception):
                    self.chan.resume_reading()
            await asyncio.sleep(0)  # let every other channel and app have the loop between chunks
        self.input_budget.flooding(0, False)  # all fed: calm again

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        size = clamp_size(width, height)
        if self.sizes is None:  # no app yet: it starts at this size
            self.size = size
            return
        if size != self.size:
            self.service.spectator_groups.leave(self)  # drawn for another size soon
        # Coalesced, and paid for from her budget: each size applied lays her whole screen out again.
        self.sizes.request(size)

    def _apply_size(self, size: tuple[int, int]) -> None:
        self.size = size
        self.service.spectator_groups.leave(self)  # drawn for another size now
        if self.driver is not None:
            self.driver.resize(*size)

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.service.spectator_groups.leave(self)
        self.stop()

    def stop(self) -> None:
        """Close the app (the channel closed, or the server stops), or end the wait of a session without one."""
        self._stopping = True
        self._wake.set()
        self._driver_ready.set()
        if self.app is not None:
            with contextlib.suppress(Exception):
                self.app.exit()

    def write(self, text: str) -> None:
        # While another spectator's app draws this terminal, nobody (see drawing.py).
        receivers = self.service.spectator_groups.receivers(self)
        if receivers:
            data = text.encode("utf-8", "replace")
            for receiver in receivers:
                receiver.send(data)

    def send(self, data: bytes) -> None:
        if self.closed or self.chan is None:
            return
        # The client may have gone away mid-frame: the app learns it from connection_lost.
        with contextlib.suppress(Exception):
            self.chan.write(data)

    # -- one of a table's spectators drawn alike (drawing.py) ---------------------------

    def _app_watching(self, app: Any, table_id: int | None) -> None:
        # An app being torn down (its screens unmount) no longer speaks for this terminal.
        if app is self.app and not self._asleep:
            self.watching(table_id)

    def watching(self, table_id: int | None) -> None:
        """The app shows a table to this spectator (None: no longer, or not as it was opened)."""
        groups = self.service.spectator_groups
        solo_at, self._solo_at = self._solo_at, None
        if table_id is None or self.app is None:
            groups.leave(self)
            return
        if table_id == solo_at:
            return  # her app was built again for her own key (or resize, or notice): her screen is her own
        app = self.app
        look = self._group_look(table_id, app.ascii, app.palette, app.theme)
        if groups.look_of(self) == look:
            return  # built again to draw for the group it is in
        groups.join(self, look)

    def _follow_from_lobby(self, app: Any, table_id: int) -> bool:
        """The lobby's watch of a table whose spectators of her look are drawn already: she follows them at once,
        as ``watch TABLE`` from sign-in does, and her app goes before it builds the table's screen (it would
        draw one frame and be torn down, the cost of a sign-in for nothing).  False: the app opens the table."""
        from .ui.app import open_place

        if app is not self.app or self._asleep or self._stopping:
            return False
        hub = self.service.hub
        live = hub.tables.get(table_id)
        if live is None or live.over or live.seat_of(self.player) is not None:
            return False  # (a seat's screen is hers alone, never a group's)
        look = self._group_look(table_id, app.ascii, app.palette, app.theme)
        groups = self.service.spectator_groups
        if not groups.drawn(look):
            return False
        try:
            place = open_place(hub, table_id, self.player, watch=True, owner=self.owner)
        except (RuleError, LookupError):
            return False  # the app opens it, and says why it cannot
        place.keep()  # no screen shows it yet: the app that wakes her will
        self._place = place
        self._look = (app.ascii, app.palette, app.theme, set(app.muted))
        self._sleep()
        self.service.hub.notices.detach(self.player, app.player_notice)
        groups.join(self, look)  # the leader sends her terminal its whole screen
        app.exit()
        return True

    def _group_look(self, table_id: int, ascii: bool, palette: str, theme: str) -> tuple[object, ...]:
        """Spectators of a table whose screens are drawn alike: the same size, ASCII mode, palette and theme."""
        return (table_id, self.size, ascii, palette, theme)

    def following_changed(self, following: bool) -> None:
        if self._asleep:
            if not following:
                # In the group still: it leads now, its new app draws for everyone; else her screen is her own.
                self._solo_at = None if self.service.spectator_groups.look_of(self) is not None else self._place_id()
                self._wake.set()
            return
        if self.app is not None:
            self.app.follow(following)
            if following:
                self._fall_asleep()

    def _place_id(self) -> int | None:
        return self._place.live.id if self._place is not None else None

    def _fall_asleep(self) -> None:
        """Following: tear the app down, keeping its place at the table and its look (see drawing.py)."""
        app = self.app
        place = app.hand_over_table()
        if place is None:
            return  # not only a spectator's screen: it stays as it is
        self._place = place
        self._look = (app.ascii, app.palette, app.theme, set(app.muted))
        self._sleep()
        self.service.hub.notices.detach(self.player, app.player_notice)
        app.exit()

    def _sleep(self) -> None:
        """No app of hers draws her terminal (she has her place and her look): keys wait for the next one."""
        self._asleep = True
        self._driver_ready.clear()
        # She is still here for her notices (and her seeks) all along: from now until the next app hears them
        # (ServeApp.on_mount), the session does; an app that goes would lose one.
        if not self._hearing_notices:
            self._hearing_notices = True
            self.service.hub.notices.attach(self.player, self._notice_while_asleep)

    def _stop_hearing_notices(self) -> None:
        if self._hearing_notices:
            self._hearing_notices = False
            self.service.hub.notices.detach(self.player, self._notice_while_asleep)

    def _notice_while_asleep(self, notice: Notice) -> None:
        # Her own news: from here her screen is hers alone (a toast for her must not reach the others).
        if self.app is not None and self._place is None:  # built again, not started yet: it shows it at its start
            self.app.held_notices.append(notice)
            if self.app.resume is not None:
                self._solo_at = self.app.resume.live.id
        else:
            self._held_notices.append(notice)
        self.service.spectator_groups.leave(self)

    def draw_whole_screen_for(self, newcomer: Member) -> None:
        # No app yet, or one being built: its first frame is whole, and reaches her too.
        if self.app is not None and not self._asleep:
            self.app.draw_whole_screen_for(newcomer.send)

    def _exit(self, status: int) -> None:
        if self.closed or self.chan is None:
            return
        with contextlib.suppress(Exception):
            self.chan.exit(status)


# --------------------------------------------------------------------------
# Connections: authentication and identity
# --------------------------------------------------------------------------


class AuthThrottle:
    """Failed authentications per source address: past the limit, that address is refused for a while.

    Only failures count, so a benchmark's hundreds of good logins from one address all get in; someone
    trying keys or names against accounts gets ``max_failures`` tries a ``window`` and is then cut off.
    """

    def __init__(
        self,
        max_failures: int = MAX_AUTH_FAILURES,
        window: float = AUTH_FAILURE_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_failures = max_failures
        self.window = window
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, address: str) -> deque[float]:
        times = self._failures.get(address)
        if times is None:
            return deque()
        cutoff = self._clock() - self.window
        while times and times[0] < cutoff:
            times.popleft()
        if not times:
            del self._failures[address]
        return times

    def failed(self, address: str) -> None:
        self._failures.setdefault(address, deque()).append(self._clock())
        if len(self._failures) > 100_000:  # a flood of addresses must not fill memory either: forget the oldest
            del self._failures[next(iter(self._failures))]

    def blocked(self, address: str) -> bool:
        return len(self._recent(address)) >= self.max_failures


class PlayerConnection(asyncssh.SSHServer):
    def __init__(self, service: TermgamesServer) -> None:
        self.service = service
        self.conn: asyncssh.SSHServerConnection | None = None
        self.username = ""
        self.player = ""
        self.guest = False
        self.owner = ""
        self.address = ""
        self.failures = 0
        #: Screens refused on this connection past a limit (the log tells of the first only).
        self.screens_refused = 0
        self._starting = False
        self._method: str | None = None
        self._key: str | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        self.service.connections.add(conn)
        peer = conn.get_extra_info("peername")
        self.address = str(peer[0]) if peer else ""
        starting = self.service.starting
        starting[self.address] = starting.get(self.address, 0) + 1
        self._starting = True
        if self.service.auth_throttle.blocked(self.address):
            log.warning("refused a connection from %s: too many failed logins", self.address)
            asyncio.get_running_loop().call_soon(conn.close)
        elif starting[self.address] > self.service.config.max_startups:
            log.warning("refused a connection from %s: too many connections not signed in", self.address)
            asyncio.get_running_loop().call_soon(conn.close)

    def _started(self) -> None:
        """This connection no longer counts as one not yet signed in."""
        if self._starting:
            self._starting = False
            starting = self.service.starting
            starting[self.address] -= 1
            if not starting[self.address]:
                del starting[self.address]

    def connection_lost(self, exc: Exception | None) -> None:
        self._started()
        if self.conn is not None:
            self.service.connections.discard(self.conn)

    def _failed(self) -> None:
        """One failed authentication: counted for this address; too many on this connection close it."""
        self.failures += 1
        self.service.auth_throttle.failed(self.address)
        if self.failures >= self.service.config.max_auth_tries or self.service.auth_throttle.blocked(self.address):
            assert self.conn is not None
            asyncio.get_running_loop().call_soon(self.conn.close)

    def begin_auth(self, username: str) -> bool:
        self.username = username
        return True

    def password_auth_supported(self) -> bool:
        return False

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        if self.service.auth_throttle.blocked(self.address):
            self._failed()
            return False
        if not valid_player_name(username):
            self._failed()
            return False
        fingerprint = key.get_fingerprint("sha256")
        try:
            known = self.service.store.key_of(username)
        except StoreError as error:  # the database restarts: say so (ssh prints the banner), not a bare drop
            log.warning("%s not signed in: %s", username, error)
            assert self.conn is not None
            self.conn.send_auth_banner(DATABASE_AWAY)
            self._database_away = True  # not let in as a guest instead: she would lose her name for the visit
            return False
        if known is not None and known != fingerprint:
            self._failed()
            return False  # the name belongs to another key
        if known is None and not self._may_claim(username, spend=False):
            return False
        self._method, self._key = "key", fingerprint
        return True

    def _may_claim(self, username: str, spend: bool) -> bool:
        """Whether a new name may be claimed from this address (people are not free: :meth:`.Hub.new_name_refusal`);
        refused, the player reads why (before "Permission denied") and is not let in as a guest instead."""
        try:
            refusal = self.service.hub.new_name_refusal(self.address, spend)
        except StoreError as error:
            log.warning("%s not signed in: %s", username, error)
            refusal = DATABASE_AWAY.removeprefix("termgames: ").strip()
        if refusal and self.conn is not None:
            log.warning("refused a new name %s from %s: %s", username, self.address, refusal)
            with contextlib.suppress(Exception):
                self.conn.send_auth_banner(f"termgames: {refusal}\r\n")
            self._database_away = True  # (as then: not let in as a guest instead)
        return not refusal

    def kbdint_auth_supported(self) -> bool:
        return self.service.config.allow_guests

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        if self.service.auth_throttle.blocked(self.address) or getattr(self, "_database_away", False):
            return False
        # No prompt at all: a guest comes in and gets a guest name.
        self._method = "guest"
        return True

    def auth_completed(self) -> None:
        assert self.conn is not None
        self._started()
        if self._method == "key" and self._key is not None:
            try:
                is_new = self.service.store.key_of(self.username) is None
                if is_new and not self._may_claim(self.username, spend=True):
                    self.conn.close()  # other new names from this address came first
                    return
                if not self.service.store.claim(self.username, self._key):
                    self.conn.close()  # another key claimed the name a moment ago
                    return
                # The account's name as registered: Alice who logs in as alice is still Alice at her tables.
                self.player, self.guest = self.service.store.account_name(self.username), False
                self.owner = key_owner(self._key)
            except StoreError as error:  # lost between the key's check and here: the player tries again
                log.warning("%s not signed in: %s", self.username, error)
                self.conn.close()
                return
        else:
            self.player, self.guest = guest_name(self.username), True
            self.owner = guest_owner(self.address)
        log.info("%s signed in%s", self.player, " as a guest" if self.guest else "")

    def session_requested(self) -> GameSession | bool:
        if not self.player:
            return False
        return GameSession(self.service, self.player, self.guest, self.owner, self)


# --------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------


#: The data folder holds every hidden board: only the server's account may read it.
FOLDER_MODE = 0o700
FILE_MODE = 0o600


def secure_data_folder(folder: Path, sqlite: bool = True) -> None:
    """Create the data folder 0700 and tighten what is already there (an older server left 0755/0644).

    The database is created empty at 0600 before SQLite opens it: SQLite gives its WAL and shared-memory
    files the database's own mode, so they are born 0600 too.
    """
    folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    os.chmod(folder, FOLDER_MODE)
    database = folder / DATABASE_NAME
    if sqlite and not database.exists():
        os.close(os.open(database, os.O_WRONLY | os.O_CREAT, FILE_MODE))
    for name in (DATABASE_NAME, DATABASE_NAME + "-wal", DATABASE_NAME + "-shm", DATABASE_NAME + "-journal",
                 HOST_KEY_NAME):
        with contextlib.suppress(FileNotFoundError):
            os.chmod(folder / name, FILE_MODE)
    records = folder / RECORDS_NAME
    if records.is_dir():
        os.chmod(records, FOLDER_MODE)
        for entry in records.iterdir():
            if entry.is_file() and not entry.is_symlink():
                os.chmod(entry, FILE_MODE)


def load_host_key(folder: Path, path: Path | None = None) -> asyncssh.SSHKey:
    """The server's key: generated on first start, then kept (mode 0600) in the data folder.

    ``path`` (``--host-key FILE``) names the file instead: every server behind one address reads the same key,
    so players never see it change whichever server they reach.
    """
    path = path if path is not None else folder / HOST_KEY_NAME
    if path.exists():
        return asyncssh.read_private_key(str(path))
    key = asyncssh.generate_private_key("ssh-ed25519")
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another server process made it a moment ago: that one is the key
        return asyncssh.read_private_key(str(path))
    with os.fdopen(descriptor, "wb") as out:
        out.write(key.export_private_key())
    os.chmod(path, 0o600)
    return key


class WebFront(WebSignIn, Protocol):
    """The server's browser front (``termgames serve --web``: :mod:`termgames.web.serve`), as the server holds it."""

    #: The page's address, as the links give it.
    url: str

    async def close(self) -> None:
        """Close every browser session (its app leaves its tables) and stop listening."""
        ...


@dataclass
class TermgamesServer:
    """A running ``termgames serve``: its store, hub and listening socket."""

    data_dir: Path
    store: TableStore
    hub: Hub
    #: The server's settings (the hub's): who may come in, and the limits of connections and screens.
    config: ServerConfig = field(default_factory=ServerConfig)
    acceptor: Any = None
    port: int = 0
    auth_throttle: AuthThrottle = field(default_factory=AuthThrottle)
    #: The lobby and tables in browsers too (``--web``), set once it listens; None: SSH only.
    web: WebFront | None = None

    def __post_init__(self) -> None:
        self.sessions: set[GameSession] = set()
        #: Every person's input budget, shared by her SSH channels and browser pages.
        self.budgets = PersonBudgets(clock=self.hub.time_source.monotonic)
        #: Every SSH connection open: stopping closes them (the clients need not hang up first).
        self.connections: set[asyncssh.SSHServerConnection] = set()
        #: Spectators of a table drawn once for all whose terminals look alike.
        self.spectator_groups = SpectatorGroups()
        #: Connections not yet signed in, per source address.
        self.starting: dict[str, int] = {}
        # Full garbage collections of every session's objects would stall every screen (see collector.py).
        self.collector = CollectorPolicy()
        #: The server is closing: every player is told it is restarting, and how to come back.
        self.stopping = False

    async def close(self) -> None:
        self.stopping = True
        self.collector.stopping()
        if self.acceptor is not None:
            self.acceptor.close()  # no one new comes in; waiting for it to be closed comes last (see below)
        running: list[asyncio.Future[Any]] = []
        web_closing = None
        if self.web is not None:
            # Its sessions' screens leave their tables as they close, as the SSH ones do: before the store closes.
            # Closed alongside the SSH screens, not before them: each screen's teardown takes a while.
            web_closing = asyncio.ensure_future(self.web.close())
            running.append(web_closing)
        told = set()
        for session in list(self.sessions):
            session.stop()
            if session.app_task is not None:
                running.append(session.app_task)
            if session.conn is not None:
                told.add(session.conn)
        if running:
            # Their screens leave their tables as they close, and that is stored: before the store closes.
            await asyncio.wait(running, timeout=SHUTDOWN_WAIT)
        failed = web_closing.exception() if web_closing and web_closing.done() and not web_closing.cancelled() else None
        if failed is not None:
            log.error("the browser front did not close cleanly", exc_info=failed)
        # Told that the server restarts (_run_app), their clients hang up by themselves: closed first from here,
        # ssh would drop the lines it had not printed yet and say "Disconnected by application" instead.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CLIENTS_LEAVE_WAIT
        while told & self.connections and loop.time() < deadline:
            await asyncio.sleep(0.02)
        # Since Python 3.12 a listener is closed only once its connections are: waited for while players were
        # still connected, that took its whole timeout (2 s) before anything else began.
        for conn in list(self.connections):
            with contextlib.suppress(Exception):
                conn.close()
        if self.acceptor is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.acceptor.wait_closed(), 2)
        self.hub.close()
        self.store.close()
        self.collector.close()


async def start_server(
    data_dir: str | Path,
    host: str | None = None,
    port: int | None = None,
    *,
    config: ServerConfig | None = None,
    mail: MailConfig | None = None,
    public_address: SshAddress | None = None,
    time_source: TimeSource = SYSTEM,
    **settings: Any,
) -> TermgamesServer:
    """Open the store, load every table and listen; ``port=0`` picks a free port.

    ``config``: the server's settings (:class:`~.config.ServerConfig`; ``host``, ``port`` and ``settings``, by
    field name, change some of them, as tests do); ``mail``: the relay for mail to players who are away (None:
    no mail); ``public_address``: how players reach the server, if not as the config's ``--public-address`` or
    ``host`` and the port it listens on; ``time_source``: where the whole server reads the time (a test's own).
    """
    given = {"host": host, "port": port}
    config = (config or ServerConfig()).with_settings(
        **{name: value for name, value in given.items() if value is not None}, **settings
    )
    folder = Path(data_dir).expanduser()
    secure_data_folder(folder, sqlite=not is_postgres(config.db))
    from .ui.driver import share_the_loop_with_textual

    loop = asyncio.get_running_loop()
    share_the_loop_with_textual(loop)
    key = load_host_key(folder, config.host_key)
    store = open_store(config.db, folder / DATABASE_NAME)
    try:
        hub = Hub(store, folder / RECORDS_NAME, config=config, mail=mail, time_source=time_source)
    except BaseException:
        store.close()
        raise
    throttle = AuthThrottle(config.max_auth_failures, clock=hub.time_source.monotonic)
    service = TermgamesServer(folder, store, hub, config=config, auth_throttle=throttle)
    try:
        service.acceptor = await asyncssh.create_server(
            lambda: PlayerConnection(service),
            config.host,
            config.port,
            server_host_keys=[key],
            reuse_port=config.reuse_port or None,
            line_editor=False,
            encoding=None,
            allow_scp=False,
            agent_forwarding=False,
            x11_forwarding=False,
            keepalive_interval=30,
            keepalive_count_max=4,
            login_timeout=60,
        )
    except BaseException:
        hub.close()
        store.close()
        raise
    sockets = service.acceptor.sockets
    service.port = sockets[0].getsockname()[1] if sockets else config.port
    if public_address is None and config.public_address is not None:
        public_address = parse_public_address(config.public_address)
    hub.address = public_address or listening_address(config.host, service.port)
    hub.start()
    service.collector.start()
    return service
