"""Browser sessions: one in-process Textual app each, and the websocket attached to it now (if any).

A session outlives its websocket: a closed laptop, a flaky phone or a reload
drops the connection, and for :data:`GRACE_SECONDS` the app runs on, drawing
nothing; a connection that names the session again (the page keeps its id)
attaches to it, the app draws its whole screen for it, and play goes on where
it was.  Past the grace period the app is closed.  A second connection to a
session that has one takes it over (the first page says so).

The session is the app's terminal for :class:`~.driver.BrowserDriver`: it has
the ``write``, ``size``, ``input_budget`` and ``driver`` the SSH server's
channel driver uses (:class:`~termgames.server.ui.driver.Channel`).  Input is bounded as an SSH channel's is
(:class:`~termgames.server.ssh.InputBudget`): every message costs its bytes,
keys past the key budget are dropped, and a connection that stays over its
budget for ``FLOOD_SECONDS`` is closed.  Nothing here knows aiohttp: a
connection is a :class:`Link`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol

from textual.app import App

from ..server.ssh import INPUT_CHUNK, InputBudget, clamp_size
from ..server.ui.driver import ChannelDriver
from .driver import BrowserDriver
from .screen_info import ScreenInfo

log = logging.getLogger("termgames.web")

#: How long an app waits, drawing nothing, for its browser to come back after the connection dropped.
GRACE_SECONDS = 60.0
#: Sessions one server holds at once (attached or waiting for their browser), and per person signed in.
MAX_SESSIONS = 50
MAX_SESSIONS_PER_OWNER = 10
#: Resizes applied at most this often (a window dragged wider sends dozens; each lays the screen out again).
RESIZE_INTERVAL = 0.05
#: How long closing sessions may take at shutdown (their apps leave their screens, a game is already saved).
SHUTDOWN_WAIT = 5.0

#: Close codes the page reads (4000-4999 are the application's own).
CLOSE_ENDED = 4000  # the app closed (the player quit)
CLOSE_REPLACED = 4001  # another connection took the session over
CLOSE_REFUSED = 4002  # no session: a limit
CLOSE_FLOODED = 4003  # too much input


class Link(Protocol):
    """One browser connection as a session sees it (an aiohttp websocket in :mod:`.pages`)."""

    def send_bytes(self, data: bytes) -> None:
        """Terminal output (never blocks: queued, and a connection that cannot keep up is closed)."""

    def send_json(self, message: list[Any]) -> None:
        """A message for the page (``["screen", {...}]``)."""

    def close(self, code: int, message: list[Any] | None = None) -> None:
        """Close, after ``message`` (the page reads why from it)."""


class Refused(Exception):
    """No session for this connection: the one line the page shows says why."""


class BrowserSession:
    """One app in this process and the browser connection attached to it now (None: waiting for it to return)."""

    def __init__(
        self,
        registry: SessionRegistry,
        session_id: str,
        owner: str,
        size: tuple[int, int],
    ) -> None:
        self.registry = registry
        self.id = session_id
        #: Who signed in: only a connection of the same owner may attach.
        self.owner = owner
        self.size = size
        self.input_budget = InputBudget()
        self.driver: ChannelDriver | None = None  # set by the driver itself
        self.app: App[Any] | None = None
        self.app_task: asyncio.Task[None] | None = None
        self.link: Link | None = None
        self.ended = False
        #: What the page was last told (sent again to a browser that comes back).
        self.info: ScreenInfo | None = None
        self._expiry: asyncio.TimerHandle | None = None
        self._resize_at = 0.0
        self._resize_handle: asyncio.TimerHandle | None = None

    # -- the app --------------------------------------------------------------------

    def start(self, app: App[Any]) -> None:
        # Textual only calls driver_class: a partial with the session stands in for the class.
        app.driver_class = partial(BrowserDriver, session=self)  # type: ignore[assignment]  # see the line above
        self.app = app
        self.app_task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        assert self.app is not None
        try:
            await self.app.run_async(size=self.size)
        except Exception:
            log.exception("a browser session's app failed")
        finally:
            self._end()

    def _end(self) -> None:
        self.ended = True
        self._cancel_timers()
        lines: list[str] = []
        if self.app is not None:
            with contextlib.suppress(Exception):  # a goodbye that fails must not keep the session
                lines = self.registry.farewell(self.app)
        self.registry.forget(self)
        if self.link is not None:
            ended: dict[str, Any] = {"lines": lines}
            if self.registry.stopping:
                ended["why"] = "The server has stopped."
            self.link.close(CLOSE_ENDED, ["ended", ended])
            self.link = None

    def close(self) -> None:
        """Close the app (the grace period is over, or the server stops)."""
        if self.app is not None and not self.ended:
            with contextlib.suppress(Exception):
                self.app.exit()

    # -- the app's terminal (the driver's calls) -------------------------------------

    def write(self, text: str) -> None:
        # Nobody attached: nothing to draw on; a browser that comes back gets the whole screen.
        if self.link is not None:
            self.link.send_bytes(text.encode("utf-8", "replace"))

    def screen_changed(self, app: App[Any]) -> None:
        """The app's screen or its keys changed (in the app's own context): tell the page what it shows now."""
        try:
            info = self.registry.describe(app)
        except Exception:  # what the page shows beside the terminal must never take the app down
            log.exception("the page's news could not be read from the app")
            return
        if info != self.info:
            self.info = info
            if self.link is not None:
                self.link.send_json(info.message())

    # -- connections ----------------------------------------------------------------

    def attach(self, link: Link, size: tuple[int, int]) -> None:
        """``link`` is this session's browser from now on (a previous one is told it was taken over)."""
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None
        previous, self.link = self.link, link
        if previous is not None:
            previous.close(CLOSE_REPLACED, ["replaced"])
        link.send_json(["session", self.id])
        if self.info is not None:
            link.send_json(self.info.message())
        if isinstance(self.driver, BrowserDriver):  # the app runs already: this browser comes back to it
            self.resize(*size)
            self.driver.redraw()
        else:
            self.size = clamp_size(*size)

    def detach(self, link: Link) -> None:
        """``link`` has gone: the app waits for its browser for the grace period, then closes."""
        if self.link is not link:
            return  # taken over already
        self.link = None
        if not self.ended:
            self._expiry = asyncio.get_running_loop().call_later(self.registry.grace, self.close)

    def resize(self, width: int, height: int) -> None:
        """The page's terminal has this size now (applied at most every ``RESIZE_INTERVAL``)."""
        self.size = clamp_size(width, height)
        if self._resize_handle is not None:
            return
        wait = self._resize_at + RESIZE_INTERVAL - time.monotonic()
        if wait > 0:
            self._resize_handle = asyncio.get_running_loop().call_later(wait, self._apply_size)
        else:
            self._apply_size()

    def _apply_size(self) -> None:
        self._resize_handle = None
        self._resize_at = time.monotonic()
        if self.driver is not None:
            self.driver.resize(*self.size)

    async def take_input(self, cost: int) -> bool:
        """Wait until ``cost`` more bytes may come in; False: this connection floods (over budget too long)."""
        while True:
            delay = self.input_budget.wait_for_bytes(cost)
            if self.input_budget.flooding(1 if delay else 0, bool(delay)):
                return False
            if not delay:
                return True
            # Not reading meanwhile: the client's socket fills up and TCP holds it back.
            await asyncio.sleep(min(delay, 0.25))

    async def feed(self, text: str) -> None:
        """Keys from the page (already paid for with :meth:`take_input`), in chunks: the loop serves others between."""
        for start in range(0, len(text), INPUT_CHUNK):
            if self.driver is None or self.ended:
                return
            try:
                self.driver.feed(text[start : start + INPUT_CHUNK])
            except Exception:  # garbage from one client must never reach the loop
                log.warning("a browser sent input the key parser refused")
            await asyncio.sleep(0)

    def _cancel_timers(self) -> None:
        for handle in (self._expiry, self._resize_handle):
            if handle is not None:
                handle.cancel()
        self._expiry = self._resize_handle = None


class SessionRegistry:
    """The browser sessions of one server: found again by id, created by ``make_app``, within the limits."""

    def __init__(
        self,
        make_app: Callable[[str], App[Any]],
        describe: Callable[[App[Any]], ScreenInfo],
        *,
        farewell: Callable[[App[Any]], list[str]] = lambda app: [],
        grace: float = GRACE_SECONDS,
        max_sessions: int = MAX_SESSIONS,
        max_per_owner: int = MAX_SESSIONS_PER_OWNER,
    ) -> None:
        """``make_app(owner)``: a new app for that person; ``describe(app)``: what the page shows of it;
        ``farewell(app)``: lines for the page once the app has closed (where its games are saved)."""
        self.make_app = make_app
        self.describe = describe
        self.farewell = farewell
        self.grace = grace
        self.max_sessions = max_sessions
        self.max_per_owner = max_per_owner
        self.sessions: dict[str, BrowserSession] = {}
        #: The server is stopping: the sessions end for that reason, not their players'.
        self.stopping = False

    def open(self, owner: str, session_id: str | None, size: tuple[int, int], link: Link) -> BrowserSession:
        """The session ``session_id`` of ``owner`` with ``link`` attached, or a new one (:class:`Refused`: a limit)."""
        session = self.sessions.get(session_id or "")
        if session is not None and session.owner == owner and not session.ended:
            session.attach(link, size)
            return session
        if len(self.sessions) >= self.max_sessions:
            raise Refused(f"this server has {self.max_sessions} browser sessions open already: try again later")
        if sum(1 for other in self.sessions.values() if other.owner == owner) >= self.max_per_owner:
            raise Refused(
                f"you have {self.max_per_owner} browser sessions open already: close a tab "
                f"(a closed one ends within {self.grace:g} s)"
            )
        session = BrowserSession(self, secrets.token_urlsafe(18), owner, clamp_size(*size))
        self.sessions[session.id] = session
        session.attach(link, size)
        try:
            session.start(self.make_app(owner))
        except BaseException:
            self.forget(session)
            raise
        return session

    def forget(self, session: BrowserSession) -> None:
        if self.sessions.get(session.id) is session:
            del self.sessions[session.id]

    async def close(self) -> None:
        """Close every session's app and wait (a little) for them to finish."""
        self.stopping = True
        running = []
        for session in list(self.sessions.values()):
            session.close()
            if session.app_task is not None:
                running.append(session.app_task)
        if running:
            await asyncio.wait(running, timeout=SHUTDOWN_WAIT)
