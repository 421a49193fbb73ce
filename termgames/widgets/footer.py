"""The footer of every screen: its keys drawn as one line, redrawn only when the keys it shows change.

Textual's :class:`~textual.widgets.Footer` is a row of widgets, one per key,
thrown away and composed again (a dozen widgets, each mounted, styled and laid
out) whenever its screen publishes ``bindings_updated``.  A game screen does
that when the turn passes (the act key comes and goes), so over SSH every
screen at a table recomposed its footer at every move, spectators too: with
nothing else changed it was the largest part of the server's CPU for a move
(``bench/serve_latency.py --profile``).  This footer is one widget drawing one
line (Textual's Line API): new keys cost a repaint of that line, no layout and
no widgets.  It looks as Textual's does (the same theme variables), says the
same keys in the same order (one per action, the first binding of each), and a
click on a key presses it.

It also keeps each key whole: keys that would run past the right edge are
left out from the end, but never the help and the way out (a replay lists Quit
last): the ``?`` help lists every key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

if TYPE_CHECKING:
    from textual import events
    from textual.binding import Binding
    from textual.screen import Screen

#: What a footer shows: each key's binding, whether it is enabled, its tooltip.
ShownKeys = tuple[tuple[str, "Binding", bool, str], ...]


@dataclass(frozen=True)
class FooterItem:
    """One key as the footer draws it: `` q `` then ``Quit ``."""

    key: str
    display: str
    description: str
    action: str
    enabled: bool
    tooltip: str

    @property
    def key_text(self) -> str:
        return f" {self.display} " if self.description else self.display

    @property
    def description_text(self) -> str:
        return f"{self.description} " if self.description else ""

    @property
    def width(self) -> int:
        return cell_len(self.key_text) + cell_len(self.description_text)  # cells: an arrow key's glyph, say


def shown_keys(screen: Screen[object]) -> ShownKeys:
    """The keys a footer shows on ``screen`` now, as a comparable value: one per action, the first bound."""
    seen: set[str] = set()
    keys = []
    # A key kept out of a busy footer may come back when it has room and matters: undo at a game's end.
    shown_now = getattr(screen, "footer_shows_now", None)
    also_shown: frozenset[str] = shown_now() if callable(shown_now) else frozenset()
    for key, (_node, binding, enabled, tooltip) in screen.active_bindings.items():
        if (binding.show or binding.action in also_shown) and binding.action not in seen:
            seen.add(binding.action)
            keys.append((key, binding, enabled, tooltip))
    return tuple(keys)


class Footer(Widget, can_focus=False):
    """The screen's keys on its last line; each key whole or left out, Help and Quit always kept."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {"footer--key", "footer--description", "footer--hover"}
    DEFAULT_CSS = """
    Footer {
        dock: bottom;
        height: 1;
        width: 1fr;
        color: $footer-foreground;
        background: $footer-background;
        & > .footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .footer--hover {
            background: $block-hover-background;
        }
    }
    """

    #: The keys a footer keeps whatever its width: what explains the others, and leaving.
    KEPT_ACTIONS = frozenset({"help", "quit_game", "back", "leave", "quit", "app.quit"})

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        #: The keys drawn now (None before the screen's bindings were first read).
        self._keys: ShownKeys | None = None
        self._items: tuple[FooterItem, ...] = ()
        #: Where each shown item lies on the line at the last drawing: (start, end, item).
        self._spans: list[tuple[int, int, FooterItem]] = []
        self._hover: FooterItem | None = None

    # -- which keys ------------------------------------------------------------

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self.call_after_refresh(self.bindings_changed, self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen[object]) -> None:
        """The screen's bindings may have changed: repaint the line if the keys it shows did."""
        if not self.is_attached or screen is not self.screen:
            return
        keys = shown_keys(screen)
        if keys == self._keys:
            return  # a screen refreshes its bindings at every move; most moves change no key
        self._keys = keys
        self._items = tuple(
            FooterItem(key, self.app.get_key_display(binding), binding.description, binding.action, enabled,
                       tooltip or binding.tooltip)
            for key, binding, enabled, tooltip in keys
        )
        if self._hover is not None and self._hover not in self._items:
            self._hover = None
        self.refresh()

    @property
    def items(self) -> tuple[FooterItem, ...]:
        """Every key the screen offers now, shown or left out for want of room."""
        return self._items

    def fitting(self, width: int) -> list[FooterItem]:
        """The items drawn in ``width`` cells: from the end, those that do not fit are left out, but not the kept."""
        shown = list(self._items)
        used = sum(item.width for item in shown)
        for item in reversed(self._items):
            if used <= width:
                break
            if item.action not in self.KEPT_ACTIONS:
                shown.remove(item)
                used -= item.width
        return shown

    # -- drawing ---------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        if y != 0 or width == 0:
            return Strip.blank(width, base)
        key_look = self.get_component_rich_style("footer--key")
        description_look = self.get_component_rich_style("footer--description")
        hover = self.get_component_rich_style("footer--hover", partial=True)
        dim = Style(dim=True)
        segments: list[Segment] = []
        spans: list[tuple[int, int, FooterItem]] = []
        x = 0
        for item in self.fitting(width):
            key_style, description_style = key_look, description_look
            if item == self._hover:
                key_style, description_style = key_style + hover, description_style + hover
            if not item.enabled:
                key_style, description_style = key_style + dim, description_style + dim
            segments.append(Segment(item.key_text, key_style))
            if item.description_text:
                segments.append(Segment(item.description_text, description_style))
            spans.append((x, x + item.width, item))
            x += item.width
        self._spans = spans
        return Strip(segments).extend_cell_length(width, base).crop(0, width)

    def text(self) -> str:
        """The line as plain text, as drawn at the widget's width (for tests and screen readers)."""
        return "".join(item.key_text + item.description_text for item in self.fitting(self.size.width))

    # -- the mouse ---------------------------------------------------------------

    def item_at(self, x: int) -> FooterItem | None:
        return next((item for start, end, item in self._spans if start <= x < end), None)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self.item_at(event.x))

    def on_leave(self, _event: events.Leave) -> None:
        self._set_hover(None)

    def _set_hover(self, item: FooterItem | None) -> None:
        if item != self._hover:
            self._hover = item
            self.tooltip = item.tooltip if item is not None and item.tooltip else None
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        item = self.item_at(event.x)
        if item is None:
            return
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()
