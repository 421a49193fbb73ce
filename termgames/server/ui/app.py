"""The app one SSH player sees: the lobby, shared game screens, replays of finished tables.

One :class:`ServeApp` per SSH channel, all on the server's loop.  The hub
talks to an app only by posting messages (``LobbyChanged`` here, and the game
screens' table news): a hub callback runs in whatever app's context caused
the change, and must never touch another app's widgets.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.control import Control
from textual import events
from textual._compositor import LayoutUpdate  # private, as whole_frame says
from textual.app import SYNC_END, SYNC_START
from textual.constants import DEFAULT_THEME
from textual.message import Message
from textual.screen import Screen

from ...analysis import analysis_json
from ...rules import RuleError
from ...screens import game_screen_class
from ..hub import Hub
from ..notices import Notice, desktop_sequence
from ..shared import SharedTable
from .driver import ChannelDriver
from .host import ServeHost
from .lobby import LobbyScreen
from .shared_game import SharedGameMixin, shared_screen_class
from .strips import make_strip_caches_lazy
from .stylesheet import SharedStylesheet

log = logging.getLogger("termgames.server")

class LobbyChanged(Message):
    pass


class FollowingChanged(Message):
    """This spectator's screen starts following another's drawing, or draws itself again (drawing.py)."""

    def __init__(self, following: bool) -> None:
        super().__init__()
        self.following = following


class WholeScreenFor(Message):
    """A spectator joined the ones this app draws for: a whole frame of its screen for her alone."""

    def __init__(self, send: Callable[[bytes], None]) -> None:
        super().__init__()
        self.send = send


class PlayerNotice(Message):
    """News of one of this player's tables (her move, a challenge, an undo to answer): see :mod:`..notices`."""

    def __init__(self, notice: Notice) -> None:
        super().__init__()
        self.notice = notice


#: Seconds a notice stays on the screen.
NOTICE_SECONDS = 12.0
#: Tables whose notices' toasts are kept (to take away when she opens one) before those gone are forgotten.
KEPT_TOAST_TABLES = 20
TITLES = {
    "move": "Your move", "challenge": "Challenged", "ready": "Game ready", "undo": "Undo asked",
    "clock": "Time runs low",
}


def _send_nowhere(_data: bytes) -> None:
    """A frame's receiver once it had it."""


def open_place(
    hub: Hub,
    table_id: int,
    player: str,
    *,
    watch: bool,
    owner: str = "",
    received: Callable[[], float | None] | None = None,
) -> SharedTable:
    """``player``'s place at table ``table_id``, open: her seat (the one she has, or the first open one), or with
    ``watch`` a spectator's; it is the table she is at from now (she comes back to it after a dropped connection).
    RuleError or LookupError (one line) says why not: no such table, a game this server cannot show, no seat.

    What the lobby opens (Enter, ``w``), and ``ssh -t HOST watch TABLE`` before any app (the SSH session's)."""
    live = hub.table(table_id)
    shared_screen_class(game_screen_class(live.game.name))  # a game this server cannot show: said here
    seat = None if watch else live.join(player)
    shared = SharedTable(live, player, seat, owner=owner or None, received=received)
    shared.open()
    hub.seated_at(player, live.id)
    return shared


def first_look(ascii: bool) -> tuple[bool, str, str]:
    """A new app's ASCII mode, palette and theme: a session's look before any app of hers was built."""
    return ascii, "default", DEFAULT_THEME


class ServeApp(ServeHost):
    """The app of one SSH player: the lobby, the shared tables' screens, replays (see the module doc)."""

    CSS_PATH = str(Path(__file__).resolve().parents[2] / "app.tcss")

    def __init__(
        self,
        *,
        hub: Hub,
        player: str,
        guest: bool = False,
        ascii: bool = False,
        palette: str = "default",
        owner: str = "",
        opening: int | None = None,
        term: str = "",
        resume: SharedTable | None = None,
    ) -> None:
        """``opening``: a table to go to at once (a browser's sign-in link to it) instead of the one she was at;
        ``term``: the terminal's ``TERM`` (its SSH client's; a desktop notification inside tmux is wrapped);
        ``resume``: a spectator's place at a table, open already, whose screen this app draws at once (an app
        torn down while another drew its terminal, built again: see :meth:`hand_over_table`)."""
        super().__init__(saves_dir=hub.records_dir or Path("."), ascii=ascii, palette=palette)
        make_strip_caches_lazy()  # once a process: most of the lines' caches are never used (strips.py)
        shared = SharedStylesheet(variables=self.get_css_variables())
        shared.source = self.stylesheet.source.copy()
        self.stylesheet = shared  # parsed once for all the process's apps of a theme (stylesheet.py)
        self.hub = hub
        self.player = player
        self.guest = guest
        #: The person signed in (see :func:`~termgames.server.people.key_owner`): whom her tables and chat lines
        #: count against (empty: the hub works it out from her name).
        self.owner = owner
        self.tables: list[SharedTable] = []
        self.opening = opening
        self.term = term
        self.resume = resume
        #: Notices that came while no app of this session ran: shown once this one starts.
        self.held_notices: list[Notice] = []
        #: The SSH session's hook: this app hears her notices now (the session heard them while it had none).
        self.hearing_notices: Callable[[], None] = lambda: None
        self._released = False
        #: The SSH session's hook: this app shows a table to its spectator (a table id), or no longer (None).
        #: Spectators of one table whose terminals look alike are drawn once (drawing.py).
        self.watching: Callable[[int | None], None] = lambda table_id: None
        #: The SSH session's hook: watch this table by following the spectators of her look drawn there already
        #: (True: she does, and this app is let go before it builds the table's screen; see drawing.py).
        self.follow_at_once: Callable[[int], bool] = lambda table_id: False
        #: Another spectator's app draws this terminal: table news waits until this one draws itself again.
        self.following = False
        #: Players (folded names) whose chat lines this player hid at her screen, at every table of her visit.
        self.muted: set[str] = set()
        #: The texts of her notices' toasts, by table: opening the table takes them away.
        self.toasts: dict[int, set[str]] = {}

    def input_clock(self) -> float:
        """The clock the driver notes the time of input with: the hub's, as the tables' clocks count."""
        return self.hub.now()

    def input_received(self) -> float | None:
        """When this terminal's latest input reached the server (None: not known): what a move is charged to.

        Taken once: a second move with no input since is charged when it is accepted."""
        driver = self._driver
        if not isinstance(driver, ChannelDriver):
            return None
        received, driver.received_at = driver.received_at, None
        return received

    def follow(self, following: bool) -> None:
        """Start or stop following another app's drawing (the session's call, maybe from another app's context)."""
        self.following = following
        self.post_from_outside(FollowingChanged(following))

    def draw_whole_screen_for(self, send: Callable[[bytes], None]) -> None:
        """Send a whole frame of this app's screen with ``send`` (a newcomer's terminal), maybe from another app's
        context: the terminals it draws already have it."""
        self.post_from_outside(WholeScreenFor(send))

    def post_from_outside(self, message: Message) -> None:
        """Post a message that comes from outside this app (the hub's news, the session's call), maybe in
        another app's context.

        Textual takes a message's sender from the context it is made in: made in another app's, it held that
        app, and an idle app keeps the last message it handled (its message loop's local) until the next one
        comes.  So an app that had gone (a spectator's, torn down as she follows) stayed in memory, its
        widgets and their cached lines (~2.6 MB) with it, as long as the others were idle."""
        self.post_message(message.set_sender(self))

    def _fatal_error(self) -> None:
        """A failure nothing caught ends this player's app, as Textual's own does, but says so in the server's
        log in Python's plain traceback: Textual prints one that shows every frame's local variables (a
        table's secret seed among them) on the server's stderr.

        Told to exit while it was being built (her connection dropped as a gone leader woke her, or the server
        stops), its screens mount detached and find none of their widgets: that is no failure of hers."""
        if self._exit:  # (Textual's own flag: exit() was called)
            log.debug("the app of %s ended as it was built", self.player, exc_info=True)
        else:
            log.error("the app of %s failed", self.player, exc_info=True)
        self._close_messages_no_wait()

    def on_following_changed(self, event: FollowingChanged) -> None:
        # The table's screen, also under a screen a key has just put over it.
        for screen in self.screen_stack:
            if isinstance(screen, SharedGameMixin):
                screen.follow_drawing(event.following)

    def on_whole_screen_for(self, event: WholeScreenFor) -> None:
        send, event.send = event.send, _send_nowhere  # an idle app keeps the last message it handled: not her
        frame = self.whole_frame()
        if frame:
            send(frame.encode("utf-8", "replace"))

    def whole_frame(self) -> str:
        """The screen as it stands, whole, in the bytes the driver writes for a frame (empty: nothing drawn yet,
        and its first frame will be whole).

        The compositor's full update, as Textual's ``App._display`` writes it (private: textual is pinned to a
        minor range), but leaving the regions that wait to be drawn for the next update: that one goes to every
        terminal this app draws, and drawn here too they come out the same."""
        if not self._running or self._closed or self._driver is None or not self.screen_stack:
            return ""
        screen = self.screen
        compositor = screen._compositor
        waiting = set(compositor._dirty_regions)
        update = compositor.render_update(full=True, screen_stack=self._background_screens)
        compositor._dirty_regions |= waiting
        if not isinstance(update, LayoutUpdate) or not compositor.size.area:
            return ""
        cursor = screen.outer_size.clamp_offset(self.cursor_position)
        frame = update.render_segments(self.console) + Control.move_to(*cursor).segment.text
        return f"{SYNC_START}{frame}{SYNC_END}" if self._sync_available else frame

    def player_notice(self, notice: Notice) -> None:
        """The hub's notice for this player (on the loop, maybe in another app's context): a message to this app."""
        self.post_from_outside(PlayerNotice(notice))

    def on_player_notice(self, event: PlayerNotice) -> None:
        notice = event.notice
        if self.showing_table(notice.table_id):
            return  # she sees it at the table
        # Watching a table with others who share her drawing: from here her screen is hers alone (a toast for
        # her must not reach them), as after a key of hers.
        self.watching(None)
        self.notify(notice.text, title=TITLES.get(notice.kind, ""), timeout=NOTICE_SECONDS, markup=False)
        # Kept to take the toast away when she opens the table.  Those gone by themselves are forgotten once
        # many tables have some (not at each notice: a toast posted a moment ago is not shown yet).
        if len(self.toasts) >= KEPT_TOAST_TABLES:
            shown = {toast.message for toast in self._notifications}  # (Textual's: App has no public way to ask)
            self.toasts = {table: kept for table, texts in self.toasts.items() if (kept := texts & shown)}
        self.toasts.setdefault(notice.table_id, set()).add(notice.text)
        if notice.mode in ("bell", "desktop"):
            self.bell()
        if notice.mode == "desktop":
            self.write_to_terminal(desktop_sequence(notice.text, self.term))

    def write_to_terminal(self, text: str) -> None:
        """Bytes for this player's terminal outside the frames (a desktop notification)."""
        if not self.is_headless and self._driver is not None:
            self._driver.write(text)

    def showing_table(self, table_id: int) -> bool:
        """Whether this app shows table ``table_id`` (under a dialog, too)."""
        return any(
            isinstance(screen, SharedGameMixin) and screen.table.table_id == table_id for screen in self.screen_stack
        )

    def lobby_news(self) -> None:
        """The hub's news for lobbies (on the loop, maybe in another app's context): a message to this app."""
        self.post_from_outside(LobbyChanged())

    def on_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # not TermgamesApp's start screen: the lobby

        if self.ascii:
            self.add_class("ascii")
        self.hub.watch_lobby(self.lobby_news)
        self.hub.notices.attach(self.player, self.player_notice)
        self.hearing_notices()
        self.push_screen(LobbyScreen())
        for notice in self.held_notices:
            self.post_message(PlayerNotice(notice))
        self.held_notices = []
        if self.resume is not None:
            self._show_table(self.resume)
            return
        if self.opening is not None:
            self.go_to_table(self.opening)
            return
        # Back after a dropped connection or a restarted server: straight to the seat she was at, or to the
        # table she watched.
        table = self.hub.returning_to(self.player)
        if table is not None:
            self.open_table(table.id, watch=table.seat_of(self.player) is None)

    # -- tables --------------------------------------------------------------------

    def open_table(self, table_id: int, watch: bool = False) -> None:
        if watch and not self.tables and self.follow_at_once(table_id):
            return  # the spectators of her look are drawn already: her terminal follows theirs, this app goes
        try:
            shared = open_place(
                self.hub, table_id, self.player, watch=watch, owner=self.owner, received=self.input_received
            )
        except (RuleError, LookupError) as error:
            self.notify(str(error), severity="error")
            return
        self._show_table(shared)

    def _show_table(self, shared: SharedTable) -> None:
        """The screen of a place at a table, opened already: this app's to close when it leaves."""
        # The table's own news is on its screen now: its toasts would only cover the lines below.
        texts = self.toasts.pop(shared.live.id, set())
        for toast in [toast for toast in self._notifications if toast.message in texts]:
            self._unnotify(toast)  # (App has no public way to take one toast away)
        shared.shown(self.input_received)
        self.tables.append(shared)
        screen_class = shared_screen_class(game_screen_class(shared.live.game.name))
        self.push_screen(screen_class(shared, ascii_only=self.ascii, palette=self.palette))

    def hand_over_table(self) -> SharedTable | None:
        """The spectator's place at the table this app shows, if that is all it holds: no longer the app's to
        close (the session keeps it while the app is torn down: its spectator stays one, with no news to draw).

        None (the app keeps everything) unless the screen on top is a spectator's at a table and no other table
        is open: a player's seat, a dialog or a replay stays with its app."""
        screen = self.screen
        if not isinstance(screen, SharedGameMixin) or screen.table.seat is not None:
            return None
        if self.tables != [screen.table]:
            return None
        if any(type(under) is not Screen and not isinstance(under, LobbyScreen) for under in self.screen_stack[:-1]):
            return None  # a replay under it, say: this app's own
        self.tables.clear()
        screen.table.keep()
        return screen.table

    def go_to_table(self, table_id: int) -> None:
        """As the lobby's Enter on that table: her seat, or an open one; a finished game's replay; else watch it."""
        try:
            live = self.hub.table(table_id)
        except (RuleError, LookupError) as error:
            self.notify(str(error), severity="error")
            return
        if live.over:
            self.replay_table(live.id)
        else:
            self.open_table(live.id, watch=live.seat_of(self.player) is None and not live.open_seats())

    def create_table(
        self, game: str, options: dict[str, Any], seats: list[Any], rated: bool | None = None, clock: Any = None
    ) -> None:
        """Create a table (RuleError says why not) and sit down at it; ``rated`` None: the hub's default;
        ``clock``: its :class:`~termgames.clock.ClockSpec` (None: untimed)."""
        table = self.hub.create_table(
            game, options, seats, creator=self.player, rated=rated, owner=self.owner or None, clock=clock
        )
        self.pop_screen()  # the setup form
        if table.seat_of(self.player) is not None or table.open_seats():
            self.open_table(table.id)
        else:
            self.open_table(table.id, watch=True)

    def replay_table(self, table_id: int) -> None:
        try:
            live = self.hub.table(table_id)
        except RuleError as error:
            self.notify(str(error), severity="error")
            return
        if not live.over:
            self.notify("Only finished games are replayed", severity="warning")
            return
        if live.match.analysis is None:  # an analysis kept with its record (ssh HOST analyse TABLE) shows in it
            found = self.hub.analyses.kept(live, None)
            live.match.analysis = None if found is None else analysis_json(found)
        self.open_replay(live.match, f"table {live.id}")

    def rematch_table(self, shared: SharedTable) -> None:
        live = shared.live
        # The whole table again: options, clock, rated or casual (only the seats turn, as a rematch has them).
        table = self.hub.create_table(
            live.game.name, dict(live.match.options), list(live.match.rematch_seats()), creator=self.player,
            rated=live.rated, owner=self.owner or None, clock=live.match.clock,
        )
        self.leave_table(shared)
        self.open_table(table.id)

    def leave_table(self, shared: SharedTable) -> None:
        """The player leaves the table of the screen on top for the lobby (she is no longer expected back at it)."""
        shared.close()
        if shared in self.tables:
            self.tables.remove(shared)
        self.hub.seated_at(self.player, None)
        self.pop_screen()

    def release_tables(self) -> None:
        """The session is over (the connection dropped, or the server stops): leave every table.

        The store still says which table she was at: her next session starts there.
        """
        if self._released:
            return
        self._released = True
        self.hub.unwatch_lobby(self.lobby_news)
        self.hub.notices.detach(self.player, self.player_notice)
        if not self.hub.notices.is_connected(self.player):  # her last screen here: her live seeks end
            self.hub.seeks.owner_left(self.player)
        for shared in self.tables:
            shared.close()
        self.tables.clear()

    # -- news from the hub ---------------------------------------------------------

    def on_lobby_changed(self, _event: LobbyChanged) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, LobbyScreen):
                screen.lobby_changed()
