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
(:class:`~termgames.server.input_budget.InputBudget`): every message costs its bytes,
keys past the key budget are dropped, and a connection that stays over its
budget for ``FLOOD_SECONDS`` is closed.  Nothing here knows aiohttp: a
connection is a :class:`Link`.

A session belongs to a :class:`Visitor` (who the gate signed the browser in
as).  At a server (``termgames serve --web``) a session is one more member of
the server's spectator groups (:mod:`termgames.server.drawing`), as an SSH
channel is: while it watches a table it may draw for other spectators' pages,
or follow another's drawing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, runtime_checkable

from textual.app import App

from ..server.drawing import Member, SpectatorGroups
from ..server.input_budget import INPUT_CHUNK, PersonBudgets, SizeGate, clamp_size
from ..server.limits import WEB_MAX_SESSIONS, WEB_MAX_SESSIONS_PER_PLAYER
from ..server.ui.driver import ChannelDriver
from .driver import BrowserDriver
from .screen_info import ScreenInfo

log = logging.getLogger("termgames.web")

#: How long an app waits, drawing nothing, for its browser to come back after the connection dropped.
GRACE_SECONDS = 60.0
#: Sessions one server holds at once (attached or waiting for their browser), and per person signed in.
MAX_SESSIONS = WEB_MAX_SESSIONS
MAX_SESSIONS_PER_OWNER = WEB_MAX_SESSIONS_PER_PLAYER
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


@dataclass(frozen=True)
class Visitor:
    """Who a browser is signed in as: a session is hers alone, and counts against her ``owner``."""

    #: The player (an account's name, a guest's) or, for ``termgames web``, the one person of the machine.
    name: str
    #: Whom her sessions count against: one SSH key, every guest of one address, the local person.
    owner: str
    guest: bool = False
    #: The sign-in the browser came in by (its cookie's digest; empty: none to end): signing out ends it.
    sign_in: str = ""

    def same_person(self, other: Visitor) -> bool:
        """Whether ``other`` may take over this visitor's session (the same name, counted against the same)."""
        return self.name == other.name and self.owner == other.owner


@runtime_checkable
class Spectating(Protocol):
    """An app whose screen may be drawn by another spectator's (the server's app: ``ServeApp``)."""

    ascii: bool
    palette: str
    theme: str

    def follow(self, following: bool) -> None: ...

    def draw_whole_screen_for(self, send: Callable[[bytes], None]) -> None: ...


class BrowserSession:
    """One app in this process and the browser connection attached to it now (None: waiting for it to return)."""

    def __init__(
        self,
        registry: SessionRegistry,
        session_id: str,
        visitor: Visitor,
        size: tuple[int, int],
        opening: str = "",
    ) -> None:
        self.registry = registry
        self.id = session_id
        #: Who signed in: only a connection of the same person may attach.
        self.visitor = visitor
        self.size = size
        #: What the page asked the new app to open (``?table=N``: a table), if anything.
        self.opening = opening
        #: Her person's budget, shared with her other pages and SSH channels (given back when the session ends).
        self.input_budget = registry.budgets.join(visitor.owner)
        #: Resizes, coalesced and paid for from that budget: each size applied lays the whole screen out again.
        self.sizes = SizeGate(self.input_budget, self._apply_size, size)
        self.driver: ChannelDriver | None = None  # set by the driver itself
        self.app: App[Any] | None = None
        self.app_task: asyncio.Task[None] | None = None
        self.link: Link | None = None
        self.ended = False
        #: Why the session was closed, when not by its player (the page says it): signed out, the server stops.
        self.why = ""
        #: What the page was last told (sent again to a browser that comes back).
        self.info: ScreenInfo | None = None
        self._expiry: asyncio.TimerHandle | None = None

    @property
    def owner(self) -> str:
        return self.visitor.owner

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
        try:  # a goodbye that fails must not keep the session
            lines = self.registry.on_end(self)
        except Exception:
            log.exception("a browser session did not end cleanly")
        finally:
            self.leave_spectators()
        self.registry.forget(self)
        self.registry.budgets.leave(self.input_budget)
        if self.link is not None:
            ended: dict[str, Any] = {"lines": lines}
            why = "The server has stopped." if self.registry.stopping else self.why
            if self.registry.stopping and self.registry.restarting is not None:
                # The page says so and comes back by itself once the server is there again (termgames.js).
                why, *more = self.registry.restarting(self)
                ended.update(lines=[*lines, *more], retry=True)
            if why:
                ended["why"] = why
            self.link.close(CLOSE_ENDED, ["ended", ended])
            self.link = None

    def close(self, why: str = "") -> None:
        """Close the app (the grace period is over, the server stops; ``why``: what the page says of it)."""
        if self.app is not None and not self.ended:
            self.why = self.why or why
            with contextlib.suppress(Exception):
                self.app.exit()

    # -- the app's terminal (the driver's calls) -------------------------------------

    def write(self, text: str) -> None:
        # While another spectator's app draws this page, nobody; while this one draws for others, they too.
        groups = self.registry.groups
        receivers = groups.receivers(self) if groups is not None else [self]
        if receivers:
            data = text.encode("utf-8", "replace")
            for receiver in receivers:
                receiver.send(data)

    def send(self, data: bytes) -> None:
        # Nobody attached: nothing to draw on; a browser that comes back gets the whole screen.
        if self.link is not None:
            self.link.send_bytes(data)

    # -- one of a table's spectators drawn alike (server/drawing.py) ----------------------

    def watching(self, table_id: int | None) -> None:
        """The app shows a table to this spectator (None: no longer, or not as it was opened)."""
        groups, app = self.registry.groups, self.app
        if groups is None:
            return
        if table_id is None or not isinstance(app, Spectating):
            groups.leave(self)
            return
        # Pages form groups of their own: an SSH terminal must never get a page's modes (its mouse, its paste).
        look: Hashable = ("browser", table_id, self.size, app.ascii, app.palette, app.theme)
        groups.join(self, look)

    def following_changed(self, following: bool) -> None:
        if isinstance(self.app, Spectating):
            self.app.follow(following)

    def draw_whole_screen_for(self, newcomer: Member) -> None:
        if isinstance(self.app, Spectating):
            self.app.draw_whole_screen_for(newcomer.send)

    def leave_spectators(self) -> None:
        """Go its own way: a key, a resize, a page that comes back, the end (the group goes on without it)."""
        if self.registry.groups is not None:
            self.registry.groups.leave(self)

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
        # Its page is empty: its own app draws it whole (a group's leader would draw only what changes).
        self.leave_spectators()
        link.send_json(["session", self.id])
        if self.info is not None:
            link.send_json(self.info.message())
        if isinstance(self.driver, BrowserDriver):  # the app runs already: this browser comes back to it
            self.resize(*size)
            self.driver.redraw()
        else:
            self.size = self.sizes.applied = clamp_size(*size)

    def detach(self, link: Link) -> None:
        """``link`` has gone: the app waits for its browser for the grace period, then closes."""
        if self.link is not link:
            return  # taken over already
        self.link = None
        if not self.ended:
            self._expiry = asyncio.get_running_loop().call_later(self.registry.grace, self.close)

    def resize(self, width: int, height: int) -> None:
        """The page's terminal has this size now: applied once its person's budget allows (the last size wins)."""
        size = clamp_size(width, height)
        if self.driver is None:  # no app yet: it starts at this size
            self.size = self.sizes.applied = size
            return
        if size != self.size:
            self.leave_spectators()  # drawn for another size soon
        self.sizes.request(size)

    def _apply_size(self, size: tuple[int, int]) -> None:
        self.size = size
        self.leave_spectators()  # drawn for another size now
        if self.driver is not None:
            self.driver.resize(*size)

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
        # A key is this player's own: from here her app draws her page (and no longer anyone else's).
        self.leave_spectators()
        if self.driver is not None:
            self.driver.note_input()  # the time a move it makes was received (see LiveTable.play)
        for start in range(0, len(text), INPUT_CHUNK):
            if self.driver is None or self.ended:
                return
            try:
                self.driver.feed(text[start : start + INPUT_CHUNK])
            except Exception:  # garbage from one client must never reach the loop
                log.warning("a browser sent input the key parser refused")
            await asyncio.sleep(0)

    def _cancel_timers(self) -> None:
        if self._expiry is not None:
            self._expiry.cancel()
        self._expiry = None
        self.sizes.cancel()


class SessionRegistry:
    """The browser sessions of one server: found again by id, created by ``make_app``, within the limits."""

    def __init__(
        self,
        make_app: Callable[[BrowserSession], App[Any]],
        describe: Callable[[App[Any]], ScreenInfo],
        *,
        on_end: Callable[[BrowserSession], list[str]] = lambda session: [],
        groups: SpectatorGroups | None = None,
        grace: float = GRACE_SECONDS,
        max_sessions: int = MAX_SESSIONS,
        max_per_owner: int = MAX_SESSIONS_PER_OWNER,
        budgets: PersonBudgets | None = None,
        max_guests: int | None = None,
    ) -> None:
        """``make_app(session)``: a new app for the session's visitor; ``describe(app)``: what the page shows of
        it; ``on_end(session)``: once its app has closed, what is left to do, and lines for the page (where its
        games are saved); ``groups``: the server's spectator groups, which the sessions join as SSH channels do;
        ``budgets``: the server's input budgets of people, which her pages share with her SSH channels."""
        self.make_app = make_app
        self.describe = describe
        self.on_end = on_end
        self.groups = groups
        self.grace = grace
        self.max_sessions = max_sessions
        self.max_per_owner = max_per_owner
        self.budgets = budgets if budgets is not None else PersonBudgets()
        #: Sessions every guest together may hold (None: as many as anyone): the others stay for signed-in players.
        self.max_guests = max_guests
        self.sessions: dict[str, BrowserSession] = {}
        #: The server is stopping: the sessions end for that reason, not their players'.
        self.stopping = False
        #: It restarts: what a session's page says (its first line the reason), and the page tries again.
        self.restarting: Callable[[BrowserSession], list[str]] | None = None

    def open(
        self, visitor: Visitor, session_id: str | None, size: tuple[int, int], link: Link, opening: str = ""
    ) -> BrowserSession:
        """The session ``session_id`` of ``visitor`` with ``link`` attached, or a new one (:class:`Refused`: a
        limit); ``opening``: what a new session's app opens first (the page's ``?table=``)."""
        session = self.sessions.get(session_id or "")
        if session is not None and session.visitor.same_person(visitor) and not session.ended:
            session.visitor = visitor  # signed in again meanwhile, maybe: the sign-in it holds now
            session.attach(link, size)
            return session
        if len(self.sessions) >= self.max_sessions:
            raise Refused(f"this server has {self.max_sessions} browser sessions open already: try again later")
        guests = sum(1 for other in self.sessions.values() if other.visitor.guest)
        if visitor.guest and self.max_guests is not None and guests >= self.max_guests:
            raise Refused(
                f"guests have {guests} of this server's {self.max_sessions} browser sessions, their share: try again "
                "later, or sign in with an SSH key"
            )
        if sum(1 for other in self.sessions.values() if other.owner == visitor.owner) >= self.max_per_owner:
            raise Refused(
                f"you have {self.max_per_owner} browser sessions open already: close a tab "
                f"(a closed one ends within {self.grace:g} s)"
            )
        session = BrowserSession(self, secrets.token_urlsafe(18), visitor, clamp_size(*size), opening)
        self.sessions[session.id] = session
        session.attach(link, size)
        try:
            session.start(self.make_app(session))
        except BaseException:
            self.forget(session)
            raise
        return session

    def forget(self, session: BrowserSession) -> None:
        if self.sessions.get(session.id) is session:
            del self.sessions[session.id]

    def close_where(self, ended: Callable[[BrowserSession], bool], why: Callable[[BrowserSession], str]) -> int:
        """Close every session ``ended`` picks (signed out), saying ``why(session)`` on its page; how many."""
        chosen = [session for session in list(self.sessions.values()) if ended(session)]
        for session in chosen:
            session.close(why(session))
        return len(chosen)

    async def close(self, restarting: Callable[[BrowserSession], list[str]] | None = None) -> None:
        """Close every session's app and wait (a little) for them to finish; ``restarting``: the server comes
        back, and this is what a session's page says (see :attr:`restarting`)."""
        self.stopping = True
        self.restarting = restarting
        running = []
        for session in list(self.sessions.values()):
            session.close()
            if session.app_task is not None:
                running.append(session.app_task)
        if running:
            await asyncio.wait(running, timeout=SHUTDOWN_WAIT)
