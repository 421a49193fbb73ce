"""The screens' common bases: what a screen needs of its app, a minimum terminal size, the narrow layout
and the title line."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual.app import App
from textual.containers import Horizontal
from textual.css.scalar import Scalar
from textual.events import Key, Resize
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from ..match import Match, Seat
from ..untrusted import printable
from ..widgets.board import Board
from ..widgets.panel import PanelTexts

if TYPE_CHECKING:
    from textual import getters

ResultT = TypeVar("ResultT")

#: Below this many columns the side panel moves under the board.
NARROW_WIDTH = 72
#: Under the board (narrow layout) the side panel takes at most this many lines (its border line included) ...
PANEL_LINES_UNDER = 10
#: ... and gives the board lines down to this many before the board scrolls (the status, a text or two, the log).
PANEL_LINES_LEAST = 5
#: A panel shorter than this is no use: the board has its least lines, and the panel what is left, this at least.
PANEL_LINES_MIN = 3


def panel_lines_under(body: int, whole: int, least: int, wanted: int = PANEL_LINES_LEAST) -> int:
    """The side panel's lines under a board, out of the ``body`` lines they share: the board whole if the panel
    keeps ``wanted`` lines, else the board its ``least`` lines (the cursor's row, two either side, its labels)
    and the panel what is left up to ``wanted``; a board is never cut for the panel's sake."""
    if body - whole >= wanted:
        return min(PANEL_LINES_UNDER, body - whole)
    return max(PANEL_LINES_MIN, min(wanted, body - least))


def set_narrow(screen: Screen[Any]) -> None:
    """The narrow layout (the panel under the board) below ``NARROW_WIDTH`` columns, its texts compact there."""
    narrow = screen.app.size.width < NARROW_WIDTH
    screen.set_class(narrow, "narrow")
    for texts in screen.query("#panel-info").results(PanelTexts):
        texts.set_compact(narrow)


def fit_side_panel(screen: Screen[Any], board: Board[Any], under: int = 0, wanted: int = PANEL_LINES_LEAST) -> None:
    """Under the board (the narrow layout), give the side panel the lines the board can spare (with the ``under``
    lines below it): the board keeps its cursor's row and two either side in sight at any size the screen takes.
    Beside the board, the stylesheet's height."""
    panels = screen.query("#side-panel")
    bodies = screen.query("#game-body")
    if not panels or not bodies:
        return
    panel = panels.first()
    if not screen.has_class("narrow"):
        if panel.styles.inline.has_rule("height"):
            panel.styles.height = None
        return
    body = bodies.first().size.height
    if body <= 0:
        return
    lines = panel_lines_under(body, board.whole_lines() + under, board.least_lines() + under, wanted)
    if panel.styles.inline.height != Scalar.from_number(lines):
        panel.styles.height = lines


class GameBody(Horizontal):
    """The board and the side panel, beside each other (under each other in the narrow layout).

    When its size changes (the terminal's, or a game's end taking lines under it) it says so: the screen
    shares its lines out between the board and the panel again (``panel_lines_under``).
    """

    class Resized(Message):
        """The body's size changed."""

    def on_resize(self, _event: Resize) -> None:
        self.post_message(self.Resized())


def title_line(title: str, seats: Sequence[Seat], ascii_only: bool = False) -> str:
    """The header: the game's title and who plays it."""
    players = "  vs  ".join(seat.describe() for seat in seats)
    separator = "  -  " if ascii_only else "  ·  "
    return printable(f"{title}{separator}{players}")  # names from a record or another player


class ScreenHost(App[Any]):
    """What the screens need of the app they run in, beyond Textual's ``App``: an interface.

    :class:`termgames.app.TermgamesApp` implements it (and the server's app, which extends that); the
    screens name this class, never the app, so the app stands above the screens and imports them.
    """

    #: Where new games are saved.
    saves_dir: Path
    #: ASCII characters only (``--ascii``, or a terminal that is not UTF-8).
    ascii: bool
    #: The colour palette's name; a screen that changes it sets it here for the next screen.
    palette: str
    #: The computer players' pace (instant, normal, slow).
    pace: str

    @abstractmethod
    def open_game(self, match: Match, save_path: Path | None, replace: bool = False) -> None:
        """Play ``match`` at this keyboard, saved at ``save_path``; ``replace``: instead of the screen on top."""

    @abstractmethod
    def open_replay(self, match: Match, source: str = "") -> None:
        """Replay ``match`` (read from ``source``) in its game's replay screen."""

    @abstractmethod
    def open_setup(self, game: str, options: dict[str, Any] | None = None) -> None:
        """The setup form of ``game``, filled in with ``options``."""

    @abstractmethod
    def rematch(self, match: Match) -> None:
        """A rematch of the finished ``match`` in place of its screen."""

    @abstractmethod
    def open_new_game(self, match: Match) -> None:
        """The setup of ``match``'s game filled in with its options and players."""

    @abstractmethod
    def cycle_pace(self) -> str:
        """The next pace (instant, normal, slow, round again); the pace now."""

    def start_screen_under(self) -> bool:
        """Whether the start screen lies under the screen on top (a game opened from it, maybe through a setup)."""
        return False

    def back_to_start(self) -> None:
        """Close the screens above the start screen (``start_screen_under``): back to it."""


class AppScreen(Screen[ResultT]):
    """A screen of the termgames app: ``self.app`` is a :class:`ScreenHost`.

    Only a declaration for the type checker (Textual declares its own ``app``
    the same way): at run time ``app`` stays Textual's property, which checks
    nothing, so a test's stand-in App may show the screen too.
    """

    if TYPE_CHECKING:
        app = getters.app(ScreenHost)


class AppModalScreen(ModalScreen[ResultT]):
    """A modal screen of the termgames app (see :class:`AppScreen`)."""

    if TYPE_CHECKING:
        app = getters.app(ScreenHost)


def too_small_text(need: tuple[int, int], size: tuple[int, int]) -> str:
    """"terminal too small: needs W x H, is w x h", on as many lines as the width asks, broken between its
    phrases (never inside "40 x 15")."""
    phrases = ["terminal too small:", f"needs {need[0]} x {need[1]},", f"is {size[0]} x {size[1]}"]
    lines = [phrases[0]]
    for phrase in phrases[1:]:
        if len(lines[-1]) + 1 + len(phrase) <= size[0]:
            lines[-1] += " " + phrase
        else:
            lines.append(phrase)
    return "\n".join(lines)


class TooSmallNotice(Static):
    """Stands in for a whole screen while the terminal is smaller than the screen needs (see :class:`SizedScreen`)."""

    # Not scoped: these rules hide the notice's siblings, the rest of its screen.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    TooSmallNotice {
        display: none; width: 100%; height: 100%; content-align: center middle; text-align: center;
        text-style: bold;
    }
    Screen.-too-small > * { display: none !important; }
    Screen.-too-small > TooSmallNotice { display: block !important; }
    """


class SizedScreen(Screen[ResultT]):
    """A screen with a minimum terminal size: below it the screen says so instead of showing a clipped layout.

    Put before the screen's other base (``class GameScreen(SizedScreen[None], AppScreen[None])``);
    Textual calls this class's ``on_mount`` and ``on_resize`` besides the screen's own (handlers run
    for every class of the MRO).  The screen states its need in ``MINIMUM_SIZE`` (or ``minimum_size()``
    where it depends on more than the class); the notice reads exactly "terminal too small: needs
    W x H, is w x h" (plain ASCII in every mode) and the screen comes back whole once the terminal is
    big enough again.  Behind the notice only the leaving keys work.
    """

    #: (columns, lines) below which the screen shows only the too-small notice.
    MINIMUM_SIZE: ClassVar[tuple[int, int]] = (50, 20)
    #: The keys that still work behind the notice: leaving.  No move is made on a board nobody sees.
    KEYS_WHILE_TOO_SMALL: ClassVar[frozenset[str]] = frozenset({"q", "escape"})

    def minimum_size(self) -> tuple[int, int]:
        """The smallest terminal (columns, lines) this screen is usable in."""
        return self.MINIMUM_SIZE

    def too_small(self) -> bool:
        """Whether the screen shows the too-small notice now."""
        return self.has_class("-too-small")

    def on_mount(self) -> None:
        self.mount(TooSmallNotice("", id="too-small", markup=False))
        self.check_size()

    def on_resize(self) -> None:
        self.check_size()

    def on_screen_resume(self) -> None:
        # Back from under another screen: the terminal may have changed size meanwhile.
        self.check_size()

    def on_key(self, event: Key) -> None:
        # Keys reach the screen's bindings only by bubbling on to the app: stopped here, they do nothing.
        if self.too_small() and event.key not in self.KEYS_WHILE_TOO_SMALL:
            event.stop()
            event.prevent_default()

    def check_size(self) -> None:
        """Show the notice instead of the screen, or the screen again, for the terminal's size now."""
        width, height = self.app.size
        need_width, need_height = self.minimum_size()
        small = width < need_width or height < need_height
        for notice in self.query("#too-small"):
            if isinstance(notice, Static):
                notice.update(too_small_text((need_width, need_height), (width, height)))
        if small != self.too_small():
            self.set_class(small, "-too-small")
            if not small:
                self.size_restored()

    def size_restored(self) -> None:
        """The terminal grew back to the screen's minimum: screens keep their cursor in sight here."""
