"""The screens' common bases: ``self.app`` typed as the termgames app, and a minimum terminal size."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual.events import Key
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

if TYPE_CHECKING:
    from textual import getters

    from ..app import TermgamesApp

ResultT = TypeVar("ResultT")


class AppScreen(Screen[ResultT]):
    """A screen of the termgames app: ``self.app`` is a :class:`~termgames.app.TermgamesApp`.

    Only a declaration for the type checker (Textual declares its own ``app``
    the same way): at run time ``app`` stays Textual's property, which checks
    nothing, so a test's stand-in App may show the screen too.
    """

    if TYPE_CHECKING:
        app = getters.app(TermgamesApp)


class AppModalScreen(ModalScreen[ResultT]):
    """A modal screen of the termgames app (see :class:`AppScreen`)."""

    if TYPE_CHECKING:
        app = getters.app(TermgamesApp)


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
                notice.update(f"terminal too small: needs {need_width} x {need_height}, is {width} x {height}")
        if small != self.too_small():
            self.set_class(small, "-too-small")
            if not small:
                self.size_restored()

    def size_restored(self) -> None:
        """The terminal grew back to the screen's minimum: screens keep their cursor in sight here."""
