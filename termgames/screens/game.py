"""The game screen every game uses: a board, a side panel, the common keys, AI turns.

A game's screen subclass names its board widget and turns the cursor into a
move (``move_at_cursor``); everything else (status, move log, undo, help,
quit, palettes, privacy between hot-seat players of hidden-information
games) lives here once.  The screen talks only to its
:class:`~termgames.table.Table`: it plays the keyboard's moves there and
redraws on the table's news (a move, an undo, an AI thinking), which arrive
as :class:`TableNews` messages whoever caused them (an AI seat, another
player over SSH).  AI seats are the table's business, not the screen's.
"""

from __future__ import annotations

import contextlib
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Generic, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.geometry import Spacing
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from ..clock import next_change
from ..messages import CursorMoved, MoveChosen, PanelChanged
from ..rules import RuleError, Viewer
from ..rules.base import possessive
from ..table import Table
from ..untrusted import printable
from ..widgets.board import Board, BoardArea, BoardColumn, BoardWidget, ViewT
from ..widgets.clock import ClockLines, out_note
from ..widgets.footer import Footer
from ..widgets.palette import next_palette, use_ascii_scrollbars
from ..widgets.panel import PanelTexts, SidePanel, update_if_changed
from .base import PANEL_LINES_LEAST, AppScreen, GameBody, SizedScreen, fit_side_panel, set_narrow, title_line
from .dialogs import ConfirmScreen, HelpScreen, PrivacyScreen
from .keys import key_name, keys_markdown

if typing.TYPE_CHECKING:  # only their types: the replay module defines and uses ReplayAnalysis
    from ..match import Match
    from .replay_analysis import ReplayAnalysis

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ASCII_SPINNER = "|/-\\"

def home_short(path: Path) -> str:
    """``path`` with the home folder written ``~`` (what a shell takes back): a record's path fits 80 columns."""
    try:
        return str(Path("~") / path.relative_to(Path.home()))
    except (ValueError, RuntimeError):  # not under the home folder, or no home folder known
        return str(path)


WidgetT = typing.TypeVar("WidgetT", bound=Widget)


#: The ways out: back to the start screen for a game opened there (q or Esc), else out of termgames (q; Esc too
#: at this keyboard, not at a shared table, where Esc closes the chat line).  A screen that binds Esc to a key of
#: its own lists ``LEAVING`` after it (a subclass's binding of a key replaces its base's): Esc leaves when its
#: own action has nothing to do (``check_action``).
LEAVE_FOR_START = Binding("q,escape", "back", "Back", key_display="q",
                          tooltip="back to the start screen, for a game opened there (asks first while the game "
                          "goes on: it is saved after every move)")
LEAVE_FOR_GOOD = Binding("q", "quit_game", "Quit", tooltip="quit (asks first; the game is saved after every move)")
ESCAPE_QUITS = Binding("escape", "quit_here", "Quit", show=False,
                       tooltip="quit as q does, for a game opened from the command line")
LEAVING = (LEAVE_FOR_START, LEAVE_FOR_GOOD, ESCAPE_QUITS)
#: What the arrow keys do, in the help.
CURSOR_KEYS = "move the cursor (where there is none, as at the end of a game, scroll the board)"


class TableNews(Message):
    """News of the screen's table (see ``termgames.table.TABLE_EVENTS``), posted to the screen.

    A table tells its watchers on the loop, maybe from another app's context
    (over SSH, whoever moved); a message is the one safe way into this screen.
    """

    def __init__(self, kind: str, text: str) -> None:
        super().__init__()
        self.kind = kind
        self.text = text


class GameScreen(SizedScreen[None], AppScreen[None], Generic[ViewT]):
    """Plays one table of a game whose views are ``ViewT``: ``class MonoScreen(GameScreen[MonoView])``.

    Subclasses set ``board_class`` and implement ``move_at_cursor``.
    ``board_class`` is a ``Board[ViewT]``: one BoardWidget, or a widget
    grouping one BoardWidget per board that answers the same calls (show,
    redraw, cursor, legend).  Its messages (``termgames.messages``) are
    handled here: a cursor moved by the mouse redraws the panel, a move
    chosen on the board is played, a changed legend is drawn again.
    """

    #: The board widget class (a ClassVar cannot name ``ViewT``: ``board`` gives it back typed).
    board_class: ClassVar[type[Board[Any]]] = BoardWidget
    #: Hot-seat games with hidden boards hide everything between human seats.
    hides_information: ClassVar[bool] = False
    #: Boards scroll, so the minimum is the layout's: under 72 columns the panel goes under the board
    #: (10 lines, its status beside the log, each half 24 columns or more: 50), and with the title,
    #: the cursor's line, the message and the footer 14 lines are taken, leaving the board 6 (its
    #: labels and the cursor's row with a neighbour or two).
    MINIMUM_SIZE: ClassVar[tuple[int, int]] = (50, 20)

    #: The keys every game has.  The footer shows the ``description``s; the ``?`` help lists every
    #: binding with its ``tooltip`` (``screens/keys.py``): the keys are written here and nowhere else.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "cursor('left')", "Left", show=False, tooltip=CURSOR_KEYS),
        Binding("right,l", "cursor('right')", "Right", show=False, tooltip=CURSOR_KEYS),
        Binding("up,k", "cursor('up')", "Up", show=False, tooltip=CURSOR_KEYS),
        Binding("down,j", "cursor('down')", "Down", show=False, tooltip=CURSOR_KEYS),
        Binding("enter,space", "act", "Act", key_display="Enter", tooltip="act: play the move at the cursor"),
        Binding("u", "undo", "Undo", tooltip="undo (against the AI: your last move and its replies)"),
        Binding("m", "move_now", "Move now", show=False, tooltip="the computer plays its best move so far, now"),
        Binding("c", "palette", "Colours", show=False,
                tooltip="cycle the colours: default, colour-blind safe, monochrome"),
        Binding("L", "toggle_log", "Log", show=False,
                tooltip="to the move log and back, in every game: there up, down, PageUp, PageDown, Home and End "
                "scroll it (Esc back too)"),
        Binding("tab", "app.focus_next", "Log", show=False,
                tooltip="to the move log (its arrow keys scroll it) and back to the board"),
        Binding("shift+tab", "app.focus_previous", "Log", show=False,
                tooltip="to the move log (its arrow keys scroll it) and back to the board"),
        Binding("question_mark", "help", "Help", key_display="?", tooltip="the rules and these keys"),
        Binding("p", "pace", "Pace", show=False,
                tooltip="the computer players' pace: instant, normal or slow (kept for next time)"),
        # Control keys: every letter a game might want stays free, and these do something only once it is over.
        Binding("ctrl+r", "rematch", "Rematch",
                tooltip="game over: a rematch, same players and options (seats swapped when moving first helps)"),
        Binding("ctrl+n", "new_game", "New game",
                tooltip="game over: set up a new game of this kind, filled in as this one"),
        *LEAVING,
    ]
    #: What the board's marks mean, after the keys in the ``?`` help (Markdown).
    HELP_NOTES: ClassVar[str] = ""

    def __init__(self, table: Table, *, ascii_only: bool = False, palette: str = "default") -> None:
        super().__init__()
        self.table = table
        self.ascii_only = ascii_only
        self.palette_name = palette
        self.view: ViewT | None = None
        self.message = ""
        #: The table's generation when the view was drawn: news of a position already drawn needs no redraw.
        self._drawn_generation = -1
        self._spin = 0
        self._shown_seat: Viewer = None
        self._privacy_open = False
        #: A hidden-information turn just ended: the keyboard passes to this seat on Enter.
        self._handover_to: int | None = None
        self._message_is_error = True
        #: What the footer's keys were last worked out from (``check_action``): refreshed when it changes.
        self._drawn_footer_state: tuple[object, ...] = ()
        self._game_over_shown = False
        #: Widgets looked up once (``found``).
        self._found: dict[str, Widget] = {}
        #: The clocks' next repaint (a timed table only), and the seats at this keyboard under their warning.
        self._clock_timer: Timer | None = None
        self._warned: set[int] = set()

    #: Under the board (narrow layout), the lines the panel keeps before the board scrolls (``panel_lines_under``).
    PANEL_LINES_WANTED: ClassVar[int] = PANEL_LINES_LEAST

    #: Lines a panel text takes from the start (``PanelTexts.reserved``).
    PANEL_RESERVED: ClassVar[dict[str, int]] = {}

    #: The actions that turn on a display worked out from the position (a hint, an overlay): what the test of
    #: every game turns on before it undoes and plays another line as long (each is keyed by the position).
    DERIVED_DISPLAYS: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def replay_analysis(cls, options: dict[str, Any]) -> ReplayAnalysis | None:
        """The analysis a replay of a game made with ``options`` may show; None when the game offers none."""
        return None

    # -- layout --------------------------------------------------------------

    def compose(self) -> ComposeResult:
        title = title_line(self.table.game.title, self.table.seats, self.ascii_only)
        yield Static(title, id="game-title", markup=False)
        with GameBody(id="game-body"):
            # The cursor's line sits under the scrolling area, not in it: it stays in sight with any board.
            with BoardColumn(id="board-column"):
                with BoardArea(id="board-area"):
                    yield self.board_class(ascii_only=self.ascii_only, palette=self.palette_name, id="board")
                yield Static("", id="cursor-line", markup=False)
            panel = SidePanel(id="side-panel")
            panel.texts.reserved = dict(self.PANEL_RESERVED)
            yield panel
        yield Static("", id="message")
        yield Footer()

    @property
    def board(self) -> Board[ViewT]:
        return self.found("#board", Board)

    def found(self, selector: str, expect_type: type[WidgetT]) -> WidgetT:
        """``query_one``, remembered: a server redraws every screen at a table for each move, and each
        query walks the screen's widgets (about 8% of a redraw in the bench's profile)."""
        widget = self._found.get(selector)
        # A removed widget is detached from its parent (``is_attached`` walks up to the app: too slow here).
        if isinstance(widget, expect_type) and widget.parent is not None:
            return widget
        widget = self._found[selector] = self.query_one(selector, expect_type)
        return widget

    def view_of(self, seat: Viewer) -> ViewT:
        """``seat``'s view of the table, as this screen's view type."""
        # The table plays this screen's game (the registry pairs them), so its views are ViewT.
        return cast(ViewT, self.table.view(seat))

    def tell_save_notice(self) -> None:
        """What the table has to say about saving (a record changed on disk, a failed save), as a toast."""
        notice = self.table.take_notice()
        if notice:
            self.notify(printable(notice), severity="warning", timeout=12, markup=False)

    def on_mount(self) -> None:
        self.tell_save_notice()
        if self.ascii_only:
            use_ascii_scrollbars(self)
        # The spinner turns only while a computer seat thinks: a server holds hundreds of these screens, and a
        # timer ticking on each of them for nothing was most of an idle server's CPU.
        self._spinner = self.set_interval(0.12, self._tick, pause=not self.table.thinking)
        if self.table.read_clocks() is not None:
            # Public like the scores: every screen at the table shows them, above the panel's texts.
            self.query_one("#side-panel").mount(ClockLines(self.ascii_only, id="clocks"), before=0)
        self.table.watch(self._table_news)
        self.table.start()
        seat = self.table.viewing_seat()
        if self._private_hot_seat() and seat is not None and not self.table.over and self.table.view(seat).moves:
            # A resumed hot-seat game with hidden boards: whoever sits here may not be that seat.
            self._handover_to = seat
            self.hand_over()
            return
        self.refresh_view()

    def on_unmount(self) -> None:
        self.table.unwatch(self._table_news)
        self.table.close()

    def _table_news(self, kind: str, text: str) -> None:
        self.post_message(TableNews(kind, text))

    def on_table_news(self, news: TableNews) -> None:
        self.table_event(news.kind, news.text)

    def table_event(self, kind: str, text: str) -> None:
        """News of the table: redraw what changed."""
        if kind == "moved":
            if self.table.generation != self._drawn_generation and not self._privacy_open:
                self.message = ""  # what was said before (e.g. "It is its turn") no longer holds
                self.refresh_view()
            else:
                self.update_clocks()  # a flag, or a privacy screen over the board: the clocks are public
        elif kind == "thinking":
            if self.table.thinking:
                self._spinner.resume()
            else:
                self._spinner.pause()
            self.update_panel()
        elif kind == "error":
            self.say(text)
        elif kind == "notice":
            self.say(text, error=False)

    def on_resize(self) -> None:
        # Narrow terminals put the panel under the board; boards pick their spacing from the width.
        set_narrow(self)
        self.show_game_over()  # its lines break at the width
        self.board.redraw()
        self.fit_panel()
        # A smaller board area must still show the cursor.
        self.call_after_refresh(self.scroll_to_cursor)

    def on_game_body_resized(self, _message: GameBody.Resized) -> None:
        self.fit_panel()

    def fit_panel(self) -> None:
        """Under the board (narrow layout), the panel takes the lines the board can spare, never the board's own."""
        fit_side_panel(self, self.board, under=1, wanted=self.PANEL_LINES_WANTED)  # the cursor's line: under it

    def size_restored(self) -> None:
        self.call_after_refresh(self.scroll_to_cursor)

    def on_board_area_resized(self, _message: BoardArea.Resized) -> None:
        # The area is laid out after the screen's resize: only now is its new window known.
        self.call_after_refresh(self.scroll_to_cursor)

    # -- drawing -------------------------------------------------------------

    def refresh_view(self) -> None:
        """Redraw from a fresh view of the seat the keyboard belongs to."""
        self.tell_save_notice()
        self.update_clocks()
        self._drawn_generation = self.table.generation
        seat = self.table.viewing_seat()
        if seat is not None and self._needs_privacy(seat):
            # The seat that just played sees its turn's result first; Enter then hides everything.
            self._handover_to = seat
            self.view = self.view_of(self._shown_seat)
            self.board.show(self.view)
            self.say(f"Your turn is over. Enter hides the boards for {self.table.names[seat]}.", error=False)
            self.show_game_over()
            return
        self._shown_seat = seat
        self.view = self.view_of(seat)
        self.board.show(self.view)
        self.update_panel()
        self.show_game_over()
        # A new position may put the cursor elsewhere (Mono's from the layout to an opponent's board).
        self.call_after_refresh(self.scroll_to_cursor)

    def _private_hot_seat(self) -> bool:
        """Hidden boards and several humans at this keyboard: they must not see each other's."""
        return self.hides_information and len(self.table.local_humans()) > 1

    def _needs_privacy(self, seat: Viewer) -> bool:
        if seat is None or self._privacy_open or not self._private_hot_seat():
            return False
        return self._shown_seat is not None and seat != self._shown_seat

    def hand_over(self) -> None:
        """Hide every board until the next player says they alone are looking."""
        seat, self._handover_to = self._handover_to, None
        assert seat is not None
        result = self.view.last_action if self.view else ""
        self._shown_seat = seat
        self._privacy_open = True
        self.message = ""
        self.board.show(None)
        self.app.push_screen(
            PrivacyScreen(self.table.names[seat], result, ask_quit=self.leave), self._privacy_done
        )

    def _privacy_done(self, _result: None) -> None:
        self._privacy_open = False
        seat = self._shown_seat
        self.view = self.view_of(seat)
        self.board.show(self.view)
        self.update_panel()
        self.show_game_over()

    def thinking_line(self) -> str:
        """Which AI seats are thinking, with a spinner; empty when none is."""
        thinking = sorted(self.table.thinking)
        if not thinking:
            return ""
        spinner = ASCII_SPINNER if self.ascii_only else SPINNER
        who = " and ".join(self.table.names[seat] for seat in thinking)
        verb = "is" if len(thinking) == 1 else "are"
        left = [t for seat in thinking if (t := self.table.time_left(seat)) is not None]
        # How long it may take, and the key that cuts it short (tables shared over SSH have no such key).
        limit = f" (at most {max(left):.1f} s more; m: move now)" if left and self.table.can_hurry else ""
        return f"{who} {verb} thinking {spinner[self._spin % len(spinner)]}{limit}"

    def action_move_now(self) -> None:
        """Have the computer seats that are thinking play their best move so far."""
        if self.table.can_hurry and self.table.thinking:
            self.table.hurry()

    def status_line(self) -> str:
        """The view's status, or which AI is thinking (with a spinner) while the keyboard waits for it."""
        view = self.view
        status = view.status if view is not None else ""
        thinking = self.thinking_line()
        if not thinking:
            return status
        if view is not None and view.viewer is not None and view.viewer in view.to_move:
            return f"{status}\n{thinking}"  # a simultaneous turn: the keyboard's seat moves meanwhile
        return thinking

    # -- the footer: only keys that do something now ---------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide the act key when it can do nothing now: the game is over, or another seat is to move.

        Textual asks this for every binding it shows or runs; False hides the
        binding from the footer and lets its key fall through.  Game screens
        that answer their own actions end with ``super().check_action(...)``.
        """
        if not self.is_mounted or self.view is None:
            return True
        view = self.view
        if action == "act":
            if self._handover_to is not None:
                return True  # Enter hides the boards for the next player
            return not view.over and view.viewer is not None and view.viewer in view.to_move
        if action in ("rematch", "new_game"):
            return self.finished_here() is not None
        if action in ("back", "quit_game", "quit_here"):
            # One way out at a time: the footer says which, and q (or Esc) takes it.
            if action == "quit_here" and self.table.match_here is None:
                return False
            return self.opened_from_start() == (action == "back")
        if action == "pace":
            return self.table.match_here is not None  # a shared table's pace is the server's
        if action == "undo" and view.over:
            # A game a flag ended (its last move before the flag stands) offers no undo at its end.
            return self.undo_offered()
        return True

    def footer_shows_now(self) -> frozenset[str]:
        """Actions the footer shows now though their binding keeps them out of it (``show=False``): at a game's
        end its turn keys are gone, and every game offers its undo there alike, where undo works."""
        if self.is_mounted and self.view is not None and self.view.over and self.undo_offered():
            return frozenset({"undo"})
        return frozenset()

    def undo_offered(self) -> bool:
        """Whether ``u`` would take a move back now (a game whose moves cannot be taken back says False)."""
        return self.table.can_undo()

    # -- game over: the record, a rematch, a new game -----------------------------

    def finished_here(self) -> Match | None:
        """The match when it is a game at this keyboard that is over and shown (a rematch may follow), else None."""
        match = self.table.match_here
        if match is None or self.view is None or not self.view.over:
            return None
        return None if self._privacy_open or self._handover_to is not None else match

    def game_over_text(self) -> str | None:
        """The game-over panel's text while it is shown (where the record is, and the keys that lead on), else
        None.  At this keyboard: once the game here is over (:meth:`finished_here`)."""
        match = self.finished_here()
        if match is None:
            return None
        path = self.table.save_path
        saved = f"Saved: {home_short(path)}" if path is not None and path.exists() else "Not saved: no move was played."
        leave = "q: start screen" if self.opened_from_start() else "q: quit"
        keys = [f"{key_name('ctrl+r')}: {self.rematch_words(match)}", f"{key_name('ctrl+n')}: new game", leave]
        return printable(saved) + "\n" + self.keys_lines(keys)  # the status says the game is over, and who won

    @staticmethod
    def rematch_words(match: Match) -> str:
        """What a rematch of ``match`` does to its seats, as the game-over panel names it."""
        if match.rematch_seats() == match.seats:
            return "rematch"
        return "rematch, seats swapped" if len(match.seats) == 2 else "rematch, seats rotated"

    def keys_lines(self, keys: list[str]) -> str:
        """``keys`` ("Ctrl+N: new game") on as many lines as the terminal's width asks, each whole ("Ctrl+N: new"
        / "game" read badly at 50 columns), for the game-over panel (its padding taken off)."""
        separator = "  -  " if self.ascii_only else "  ·  "
        room = self.app.size.width - 2
        lines = [keys[0]]
        for key in keys[1:]:
            if len(lines[-1]) + len(separator) + len(key) <= room:
                lines[-1] += separator + key
            else:
                lines.append(key)
        return "\n".join(lines)

    def show_game_over(self) -> None:
        """Show or hide the game-over panel (above the footer) as the game is over or not (an undo reopens it)."""
        if not self._game_over_shown and (self.view is None or not self.view.over):
            return  # every move of a game in progress: no panel to look for
        text = self.game_over_text()
        panels = self.query("#game-over").results(Static)
        panel = next(iter(panels), None)
        if text is None:
            if panel is not None:
                panel.remove()
        elif panel is None:
            self.mount(Static(text, id="game-over", markup=False), before=self.query_one(Footer))
        else:
            update_if_changed(panel, text)
        if (text is not None) != self._game_over_shown:
            self._game_over_shown = text is not None
            self.refresh_bindings()

    def action_rematch(self) -> None:
        match = self.finished_here()
        if match is not None:
            self.table.close()
            self.app.rematch(match)

    def action_new_game(self) -> None:
        match = self.finished_here()
        if match is not None:
            self.table.close()
            self.app.open_new_game(match)

    def action_pace(self) -> None:
        if self.table.match_here is not None:
            pace = self.app.cycle_pace()
            self.notify(f"Computer players' pace: {pace}", timeout=2)

    def footer_state(self) -> tuple[object, ...]:
        """What the footer's keys are worked out from: the screen refreshes its bindings when it changes.

        A game adds what its own keys depend on (its phase, say), so that one check decides: working the
        keys out walks every binding through ``check_action``.
        """
        view = self.view
        if view is None:
            return ()
        return (view.over, view.viewer, view.to_move, self._handover_to, self._privacy_open)

    def update_panel(self) -> None:
        view = self.view
        if view is None:
            return
        footer_state = self.footer_state()
        if footer_state != self._drawn_footer_state:
            self._drawn_footer_state = footer_state
            self.refresh_bindings()
        board = self.board
        self.found("#side-panel", SidePanel).show(view, self.status_line(), Text.assemble(*board.legend()))
        update_if_changed(self.found("#cursor-line", Static), board.cursor_detail())
        look = "bold red" if self._message_is_error else "bold"
        update_if_changed(self.found("#message", Static), Text(self.message, style=look) if self.message else "")

    def say(self, message: str, error: bool = True) -> None:
        self.message = message
        self._message_is_error = error
        self.update_panel()

    # -- clocks ----------------------------------------------------------------

    def update_clocks(self) -> None:
        """Draw the clocks as they stand now, ring the bell once for a clock of this keyboard's that falls under its
        warning, and come back when the running clock next reads differently (nothing while none runs)."""
        reading = self.table.read_clocks()
        if reading is None:
            return
        clocks, now = reading
        try:
            lines = self.found("#clocks", ClockLines)
        except NoMatches:  # not mounted yet: its first drawing comes with the screen's
            return
        lines.show(clocks, now, self.table.names, out_note(len(self.table.names), self.table.game.timeout_move))
        mine = {seat for seat in self.table.local_humans() if seat not in clocks.out}
        warning = {
            seat for seat in clocks.running
            if clocks.counting and clocks.left_at(seat, now) < clocks.spec.warning_seconds
        }
        if (warning & mine) - self._warned:
            self.app.bell()
        self._warned = warning & mine
        if self._clock_timer is not None:
            self._clock_timer.stop()
            self._clock_timer = None
        if not clocks.counting or not clocks.running or self.table.over:
            return
        waits = []
        for seat in clocks.running:
            left = clocks.left_at(seat, now)
            waits.append(next_change(left))
            if left >= clocks.spec.warning_seconds:
                waits.append(left - clocks.spec.warning_seconds + 1e-3)
        self._clock_timer = self.set_timer(max(0.01, min(waits)), self.update_clocks)

    def _tick(self) -> None:
        if not self.table.thinking:
            self._spinner.pause()  # the news that the thinking ended may have come first; it is drawn
        elif self.view is not None:
            self._spin += 1
            # Only the status line turns: the log keeps any scrolling the player did meanwhile.
            self.show_status(Text(self.status_line(), style="bold"))

    def show_status(self, status: Text) -> None:
        self.found("#panel-info", PanelTexts).show(status=status)

    # -- moves ---------------------------------------------------------------

    def move_at_cursor(self, view: ViewT) -> str | None:
        """The move the act key makes at the cursor, or None (with ``say``) if there is none."""
        raise NotImplementedError

    def action_cursor(self, direction: str) -> None:
        board = self.board
        if not board.has_cursor():
            # No cursor (every board at a game's end, a spectator's view): the arrows scroll a board too big to show.
            self.scroll_board(direction)
            return
        # What was said was about the last key at the last cell: once the cursor moves on, it no longer holds.
        self.message = ""
        board.move_cursor(direction)
        self.update_panel()
        self.call_after_refresh(self.scroll_to_cursor)

    # -- messages from the board -------------------------------------------

    def on_cursor_moved(self, _message: CursorMoved) -> None:
        self.message = ""  # a click moved the cursor: as an arrow key does
        self.update_panel()
        self.call_after_refresh(self.scroll_to_cursor)

    def on_move_chosen(self, message: MoveChosen) -> None:
        self.submit(message.move)

    def on_panel_changed(self, _message: PanelChanged) -> None:
        self.update_panel()

    def scroll_board(self, direction: str) -> None:
        """Scroll the board area a line (a few columns) the arrow's way."""
        areas = self.query("#board-area").results(BoardArea)
        area = next(iter(areas), None)
        if area is None:
            return
        dx, dy = {"left": (-4, 0), "right": (4, 0), "up": (0, -1), "down": (0, 1)}.get(direction, (0, 0))
        area.scroll_relative(dx, dy, animate=False, immediate=True)

    def scroll_to_cursor(self) -> None:
        """Big boards scroll: keep the cursor in sight, clear of the labels kept at the area's edges."""
        board = self.board
        region = board.cursor_region()
        if region is None or not board.is_mounted:
            return
        area = self.query_one("#board-area", BoardArea)
        labels = board.pinned_labels()
        # The rows either side of the cursor's too, as the screen leaves the board the room for them (the lines
        # beyond the cursor's own block: a row drawn three lines tall has its cursor on its middle line).
        around = board.ROWS_AROUND_CURSOR * board.row_lines() + (board.row_lines() - region.height + 1) // 2
        around = max(1, min(around, (area.scrollable_content_region.height - labels.top - labels.bottom
                                     - region.height) // 2))
        area.scroll_to_region(
            region.translate(board.virtual_region.offset + board.content_offset),
            spacing=Spacing(around + labels.top, 2, around + labels.bottom, 2 + labels.left),
            animate=False,
            immediate=True,
        )

    def action_act(self) -> None:
        self.submit(None)

    def submit(self, move: str | None) -> None:
        """Play ``move`` (default: the move at the cursor) for the seat at the keyboard."""
        view = self.view
        if view is None or self._privacy_open:
            return
        if self._handover_to is not None:
            self.hand_over()
            return
        if view.over:
            self.say("The game is over: u undoes, q leaves" if self.undo_offered() else "The game is over: q leaves")
            return
        seat = view.viewer
        if seat is None or seat not in view.to_move:
            names = " and ".join(view.players[s] for s in view.to_move)
            self.say(f"It is {possessive(names, addressed=True)} turn")
            return
        if move is None:
            move = self.move_at_cursor(view)
            if move is None:
                return
        try:
            self.table.play(seat, move)
        except RuleError as error:
            self.say(str(error))
            return
        self.message = ""
        self.refresh_view()

    def action_undo(self) -> None:
        if self._privacy_open or self._handover_to is not None:
            return
        try:
            said = self.table.undo()
        except RuleError as error:
            self.say(str(error))
            return
        self.say(said, error=False)
        if self.table.generation != self._drawn_generation:
            self.refresh_view()

    # -- common keys ---------------------------------------------------------

    def action_toggle_log(self) -> None:
        """The keyboard to the move log (its vertical keys scroll it), or back to the board."""
        logs = self.query("#move-log")  # the side panel's MoveLog
        if not logs:
            return  # a screen without a log (Monad's map takes the room)
        log = logs.first()
        if self.focused is log:
            self.board.focus()
        else:
            log.focus()

    def action_palette(self) -> None:
        self.palette_name = next_palette(self.palette_name)
        self.board.set_palette(self.palette_name)
        self.update_panel()
        self.app.palette = self.palette_name
        self.notify(f"Colours: {self.palette_name}", timeout=1.5)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.table.game.rules_text(), keys_markdown(type(self), self.HELP_NOTES)))

    def _report(self, callback: Callable[..., None], *args: Any) -> None:
        """From a worker thread: run ``callback`` on the loop (nothing if the app has closed meanwhile)."""
        with contextlib.suppress(RuntimeError):  # the app closed while the worker ran: nothing to tell
            self.app.call_from_thread(callback, *args)

    def opened_from_start(self) -> bool:
        """Whether the start screen lies under this game (q and Esc go back to it)."""
        under = getattr(self.app, "start_screen_under", None)  # a test's stand-in App has no start screen
        return bool(under is not None and under())

    def leave(self) -> None:
        """The way out (q, Esc; the privacy screen's q): back to the start screen, or out of termgames."""
        if self.opened_from_start():
            self.action_back()
        else:
            self.action_quit_game()

    def action_back(self) -> None:
        """Back to the start screen the game was opened from: at once once it is over, else once asked."""
        if self.table.over or not self.table.view(None).moves:
            self._back_answer(True)
            return
        path = self.table.save_path
        detail = (
            "This game is not saved: leaving loses it."
            if path is None
            else f"The game is saved in\n{home_short(path)}\n\nResume it from the start screen's saved games, or "
            f"with\ntermgames play --load {home_short(path)}"
        )
        self.app.push_screen(ConfirmScreen("Back to the start screen?", detail), self._back_answer)

    def _back_answer(self, yes: bool | None) -> None:
        if yes:
            self.table.close()  # no AI move after this
            self.app.back_to_start()

    def action_quit_here(self) -> None:
        self.action_quit_game()

    def action_quit_game(self) -> None:
        path = self.table.save_path
        if path is None:
            detail = "This game is not saved: quitting loses it."
        elif not path.exists() and not self.table.view(None).moves:
            detail = "Nothing has been played yet: no record is kept."
        elif self.table.over:
            detail = f"The game is saved in\n{path}\n\nReplay it with\ntermgames replay {path}"
        else:
            detail = f"The game is saved in\n{path}\n\nResume it with\ntermgames play --load {path}"
        self.app.push_screen(ConfirmScreen("Quit termgames?", detail), self._quit_answer)

    def _quit_answer(self, yes: bool | None) -> None:
        if yes:
            self.table.close()  # no AI move after this
            self.app.exit()
