"""The SSH front door: asyncssh server, identities, and one Textual app per SSH channel.

Everything runs on one asyncio loop in one process: each interactive channel gets a fresh
:class:`~termgames.server.app.ServeApp` whose Textual driver is the channel
itself (:class:`ChannelDriver`).  The pitfalls of hosting several Textual apps
on one loop are handled here: Textual's eager task factory is refused (it
hangs asyncssh's authentication on Python 3.12+), the lone Escape key is
flushed by ticking the key parser, writes after a disconnect are swallowed,
and ``print`` capturing (process-wide) is switched off.

Identity is trust on first use: the first public key seen for a name claims
it; later logins under that name need the same key.  Keyboard-interactive
with no prompt lets anyone in as a guest (``guest-...``).  The server offers
the game screens (a PTY is required) and the correspondence commands, nothing
else: no shell, no other exec, no forwarding, no SFTP.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import re
import secrets
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import asyncssh
from textual import events
from textual._xterm_parser import XTermParser  # private: textual is pinned to a minor range
from textual.driver import Driver
from textual.geometry import Size

from .collector import CollectorPolicy, divide_without_cycles
from .commands import run_command
from .hub import Hub, valid_player_name
from .store import Store

log = logging.getLogger("termgames.server")

HOST_KEY_NAME = "ssh_host_ed25519_key"
DATABASE_NAME = "termgames.db"
RECORDS_NAME = "records"

#: A client may claim any terminal size; the app is never laid out bigger (or smaller) than this.
MAX_SIZE = (240, 80)
MIN_SIZE = (20, 8)
DEFAULT_SIZE = (80, 24)
#: Parser timeout tick: a lone Escape is delivered after this long.
ESCAPE_TICK = 0.12


def clamp_size(width: int, height: int) -> tuple[int, int]:
    if width <= 0 or height <= 0:
        return DEFAULT_SIZE
    return (max(MIN_SIZE[0], min(width, MAX_SIZE[0])), max(MIN_SIZE[1], min(height, MAX_SIZE[1])))


# --------------------------------------------------------------------------
# Textual driver over one SSH channel
# --------------------------------------------------------------------------


class ChannelDriver(Driver):
    """Textual's terminal is one SSH channel: frames go out with ``chan.write``, keys come in through ``feed``."""

    def __init__(
        self,
        app: Any,
        *,
        debug: bool = False,
        mouse: bool = False,
        size: tuple[int, int] | None = None,
        session: GameSession,
    ) -> None:
        super().__init__(app, debug=debug, mouse=False, size=size)
        self._session = session
        session.driver = self  # keys and resizes from the channel come here
        self._parser = XTermParser(debug=False)
        self._input = True
        self._tick_handle: asyncio.TimerHandle | None = None

    @property
    def can_suspend(self) -> bool:
        return False

    def write(self, data: str) -> None:
        self._session.write(data)

    def flush(self) -> None:
        """Writes go straight to the channel."""

    def start_application_mode(self) -> None:
        self.write("\x1b[?1049h\x1b[?25l\x1b[2J")  # alternate screen, hide cursor, clear
        self.resize(*self._session.size)

    def stop_application_mode(self) -> None:
        self.disable_input()
        self.write("\x1b[?1049l\x1b[?25h")

    def disable_input(self) -> None:
        self._input = False
        if self._tick_handle is not None:
            self._tick_handle.cancel()

    def feed(self, text: str) -> None:
        if not self._input:
            return
        for event in self._parser.feed(text):
            self.process_message(event)
        if self._tick_handle is not None:
            self._tick_handle.cancel()
        self._tick_handle = self._loop.call_later(ESCAPE_TICK, self._tick)

    def _tick(self) -> None:
        # XTermParser gives a lone Escape only on a timeout, and only a tick notices the timeout.
        self._tick_handle = None
        if self._input:
            for event in self._parser.tick():
                self.process_message(event)

    def resize(self, width: int, height: int) -> None:
        size = Size(width, height)
        self.process_message(events.Resize(size, size))


# --------------------------------------------------------------------------
# Sessions: the game screens or one command
# --------------------------------------------------------------------------


class GameSession(asyncssh.SSHServerSession):
    def __init__(self, service: TermgamesServer, player: str, guest: bool) -> None:
        self.service = service
        self.player = player
        self.guest = guest
        self.chan: asyncssh.SSHServerChannel | None = None
        self.size = DEFAULT_SIZE
        self.pty = False
        self.command: str | None = None
        self.closed = False
        self.app: Any = None
        self.driver: ChannelDriver | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self.pty = True
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
            self._run_command(self.command)
            return
        if not self.pty:
            self.write("termgames needs a terminal: connect with ssh -t, or give a command (ssh HOST help)\r\n")
            self._exit(1)
            return
        self.service.sessions.add(self)
        asyncio.get_running_loop().create_task(self._run_app())

    def _run_command(self, command: str) -> None:
        result = run_command(self.service.hub, self.player, command)
        newline = "\r\n" if self.pty else "\n"
        if result.stdout:
            self.write(result.stdout.replace("\n", newline))
        if result.stderr and self.chan is not None:
            with contextlib.suppress(Exception):
                self.chan.write_stderr(result.stderr.replace("\n", newline).encode("utf-8"))
        self._exit(result.status)

    async def _run_app(self) -> None:
        from .app import ServeApp

        app = ServeApp(hub=self.service.hub, player=self.player, guest=self.guest, ascii=self.service.ascii)
        # Textual only calls driver_class: a partial with the session stands in for the class.
        app.driver_class = partial(ChannelDriver, session=self)  # type: ignore[assignment]  # see the line above
        self.app = app
        try:
            await app.run_async(size=self.size)
        except Exception:
            log.exception("the app of %s failed", self.player)
        finally:
            app.release_tables()
            self.service.sessions.discard(self)
            self._exit(0)

    def data_received(self, data: bytes, datatype: Any) -> None:
        text = self._decoder.decode(data)
        if self.driver is not None and text:
            try:
                self.driver.feed(text)
            except Exception:  # garbage from one client must never reach the loop
                log.warning("%s sent input the key parser refused", self.player)

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self.size = clamp_size(width, height)
        if self.driver is not None:
            self.driver.resize(*self.size)

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.app is not None:
            with contextlib.suppress(Exception):
                self.app.exit()

    def write(self, text: str) -> None:
        if self.closed or self.chan is None:
            return
        # The client may have gone away mid-frame: the app learns it from connection_lost.
        with contextlib.suppress(Exception):
            self.chan.write(text.encode("utf-8", "replace"))

    def _exit(self, status: int) -> None:
        if self.closed or self.chan is None:
            return
        with contextlib.suppress(Exception):
            self.chan.exit(status)


# --------------------------------------------------------------------------
# Connections: authentication and identity
# --------------------------------------------------------------------------


def _guest_name(username: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9]", "", username)[:10]
    return f"guest-{stem + '-' if stem else ''}{secrets.token_hex(2)}"


class PlayerConnection(asyncssh.SSHServer):
    def __init__(self, service: TermgamesServer) -> None:
        self.service = service
        self.conn: asyncssh.SSHServerConnection | None = None
        self.username = ""
        self.player = ""
        self.guest = False
        self._method: str | None = None
        self._key: str | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn

    def begin_auth(self, username: str) -> bool:
        self.username = username
        return True

    def password_auth_supported(self) -> bool:
        return False

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        if not valid_player_name(username):
            return False
        fingerprint = key.get_fingerprint("sha256")
        known = self.service.store.key_of(username)
        if known is not None and known != fingerprint:
            return False  # the name belongs to another key
        self._method, self._key = "key", fingerprint
        return True

    def kbdint_auth_supported(self) -> bool:
        return self.service.allow_guests

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        # No prompt at all: a guest comes in and gets a guest name.
        self._method = "guest"
        return True

    def auth_completed(self) -> None:
        assert self.conn is not None
        if self._method == "key" and self._key is not None:
            if not self.service.store.claim(self.username, self._key):
                self.conn.close()  # another key claimed the name a moment ago
                return
            # The account's name as registered: Alice who logs in as alice is still Alice at her tables.
            self.player, self.guest = self.service.store.account_name(self.username), False
        else:
            self.player, self.guest = _guest_name(self.username), True
        log.info("%s signed in%s", self.player, " as a guest" if self.guest else "")

    def session_requested(self) -> GameSession | bool:
        if not self.player:
            return False
        return GameSession(self.service, self.player, self.guest)


# --------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------


def load_host_key(folder: Path) -> asyncssh.SSHKey:
    """The server's key: generated on first start, then kept (mode 0600) in the data folder."""
    path = folder / HOST_KEY_NAME
    if path.exists():
        return asyncssh.read_private_key(str(path))
    key = asyncssh.generate_private_key("ssh-ed25519")
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(key.export_private_key())
    os.chmod(path, 0o600)
    return key


_textual_patched = False


def _no_redirect(_target: object) -> contextlib.nullcontext[None]:
    return contextlib.nullcontext()


def _share_the_loop_with_textual(loop: asyncio.AbstractEventLoop) -> None:
    """Make one loop safe for many Textual apps next to asyncssh (see the module doc)."""
    global _textual_patched
    # Textual >= 8 makes the running loop's tasks eager on Python 3.12+, which hangs asyncssh's auth.
    loop.set_task_factory = lambda factory: None  # type: ignore[method-assign]  # patching the loop is the point
    if not _textual_patched:
        import textual.app as textual_app

        # Each app swaps sys.stdout/stderr for its lifetime; overlapping apps would restore them out of order.
        # (Patching Textual's module: the type checker rightly says these are classes, not functions.)
        textual_app.redirect_stdout = _no_redirect  # type: ignore[misc, assignment]  # see the line above
        textual_app.redirect_stderr = _no_redirect  # type: ignore[misc, assignment]  # see the line above
        divide_without_cycles()
        _textual_patched = True


@dataclass
class TermgamesServer:
    """A running ``termgames serve``: its store, hub and listening socket."""

    data_dir: Path
    store: Store
    hub: Hub
    allow_guests: bool = True
    ascii: bool = False
    acceptor: Any = None
    port: int = 0

    def __post_init__(self) -> None:
        self.sessions: set[GameSession] = set()
        # Full garbage collections of every session's objects would stall every screen (see collector.py).
        self.collector = CollectorPolicy()

    async def close(self) -> None:
        if self.acceptor is not None:
            self.acceptor.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.acceptor.wait_closed(), 2)
        for session in list(self.sessions):
            if session.app is not None:
                with contextlib.suppress(Exception):
                    session.app.exit()
        self.hub.close()
        self.store.close()
        self.collector.close()


async def start_server(
    data_dir: str | Path,
    host: str = "127.0.0.1",
    port: int = 2222,
    *,
    allow_guests: bool = True,
    ascii: bool = False,
) -> TermgamesServer:
    """Open the store, load every table and listen; ``port=0`` picks a free port."""
    folder = Path(data_dir).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    loop = asyncio.get_running_loop()
    _share_the_loop_with_textual(loop)
    store = Store(folder / DATABASE_NAME)
    hub = Hub(store, folder / RECORDS_NAME)
    service = TermgamesServer(folder, store, hub, allow_guests=allow_guests, ascii=ascii)
    service.acceptor = await asyncssh.create_server(
        lambda: PlayerConnection(service),
        host,
        port,
        server_host_keys=[load_host_key(folder)],
        line_editor=False,
        encoding=None,
        allow_scp=False,
        agent_forwarding=False,
        x11_forwarding=False,
        keepalive_interval=30,
        keepalive_count_max=4,
        login_timeout=60,
    )
    sockets = service.acceptor.sockets
    service.port = sockets[0].getsockname()[1] if sockets else port
    hub.start()
    service.collector.start()
    return service
