"""The side panel beside every board: status, legend, scores, last action, move log."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, ClassVar

from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.css.scalar import Scalar
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from ..rules import View
from ..rules.numbers import score_text
from ..untrusted import printable
from .line_style import StylePerPass
from .move_log import MoveLog, break_after_commas


def scores_text(view: View) -> str:
    parts = []
    for seat, name in enumerate(view.players):
        shown = score_text(view.scores[seat])  # Monad's units may have hundreds of digits: written short
        marker = ">" if seat in view.to_move else " "
        parts.append(f"{marker} {name}: {shown}")
    return "\n".join(parts)


def update_if_changed(static: Static, content: Text | str) -> None:
    """Update ``static`` only when its content changes, and lay the screen out again only when its size does.

    A server redraws every screen at a table for each move on one event loop: a
    layout there costs as much as the repaint itself, and most updates (a
    message, a line under the board of the same height) keep every widget
    where it was.
    """
    if getattr(static, "_shown_content", None) == content:
        return
    static._shown_content = content  # type: ignore[attr-defined]  # our own mark on Textual's Static
    if not static.is_mounted or static.size.area == 0:
        static.update(content)
        return
    static.update(content, layout=False)
    size = static.content_size
    width = static.styles.width
    if width is not None and width.is_auto:
        # A width that follows the content (a line centred under a board): laid out again only if it changes.
        parent = static.parent
        container = parent.content_size if isinstance(parent, Widget) else size
        if static.get_content_width(container, container) != size.width:
            static.refresh(layout=True)
            return
    height = static.get_content_height(size, size, size.width)
    max_height = static.styles.max_height
    if max_height is not None and max_height.is_cells:
        height = min(height, int(max_height.value))
    if height != size.height:
        static.refresh(layout=True)


def _text_key(text: Text) -> tuple[object, ...]:
    return text.plain, tuple(text.spans), text.style, text.justify


#: Wrapped texts shared by every panel of the process, newest last (see ``wrap_strips``).
_WRAPPED: OrderedDict[tuple[object, ...], list[Strip]] = OrderedDict()
_WRAPPED_MOST = 1024


def wrap_strips(
    text: Text, console: Console, width: int, look: Style, base: Style, max_lines: int | None = None
) -> list[Strip]:
    """``text`` wrapped to ``width`` as finished Strips (``look`` under its own styles, ``base`` under all).

    The screens at a table show many of the same texts (the scores, the last
    action, most of a legend) at the same width and theme, and a server
    redraws them all for each move: a text is wrapped once per process.
    Strips are immutable, so sharing them is safe.
    """
    key = (_text_key(text), width, look, base, max_lines)
    strips = _WRAPPED.get(key)
    if strips is not None:
        _WRAPPED.move_to_end(key)
        return strips
    # ``Text.render`` leaves out the text's own style (a bold status): it goes under its spans' styles.
    own = console.get_style(text.style) if text.style else Style()
    strips = [
        Strip(line.render(console)).apply_style(own).extend_cell_length(width).crop(0, width)
        .apply_style(look).apply_style(base)
        for line in break_after_commas(text, width).wrap(console, width)[:max_lines]
    ]
    _WRAPPED[key] = strips
    if len(_WRAPPED) > _WRAPPED_MOST:
        _WRAPPED.popitem(last=False)
    return strips


class PanelTexts(StylePerPass, Widget):
    """The texts above the move log (status, legend, scores, last action), one widget drawn line by line.

    A server redraws every screen at a table for each move, all on one event
    loop.  As four ``Static`` widgets in a container, each text that changed was
    laid out and styled again line by line, and every line of the container
    under them was painted again too.  This widget keeps its wrapped lines and
    repaints only the lines that differ; it asks for a layout only when it
    grows.  Each text keeps the tallest height it has had (blank lines under a
    shorter one), so the log below stays put as a turn goes on.
    """

    SECTIONS: ClassVar[tuple[str, ...]] = ("status", "legend", "scores", "last-action")
    #: The most lines a text shows: a long last action is cut, the log keeps its room.
    MAX_LINES: ClassVar[dict[str, int]] = {"last-action": 4}

    COMPONENT_CLASSES: ClassVar[set[str]] = {"panel-texts--status", "panel-texts--last-action"}
    DEFAULT_CSS = """
    PanelTexts { height: auto; }
    PanelTexts > .panel-texts--status { color: $accent; }
    PanelTexts > .panel-texts--last-action { color: $text-muted; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._texts: dict[str, Text] = {name: Text() for name in self.SECTIONS}
        #: Each text's height, at the width it is wrapped to: never less than it has been (0: not drawn yet).
        self._tallest: dict[str, int] = dict.fromkeys(self.SECTIONS, 0)
        #: Each text's finished Strips, valid for ``_strips_key`` (the widget's own style and width).
        self._wrapped: dict[str, list[Strip]] = {}
        self._strips_key: tuple[Style, int] | None = None
        #: Lines a text takes from the start, for a game whose text is known to grow to them (Mono's last
        #: action lists a turn's probes): the log below does not jump at the first long one.
        self.reserved: dict[str, int] = {}
        #: The component styles (status, last action) for the widget's style in ``_strips_key``.
        self._looks: dict[str, Style] = {}
        self._lines: list[Strip] = []
        #: Under the board (the narrow layout) the panel is short and the log stands beside the texts: each
        #: text as tall as it is, no blank line after it.
        self.compact = False

    def release_height(self, name: str) -> None:
        """Let text ``name`` shrink to its own height (it keeps its tallest otherwise): what made it tall is gone
        (a hint turned off), and the lines under it come back up."""
        if self._tallest.get(name):
            self._tallest[name] = 0
            self.refresh(layout=True)  # the lines again, at this height

    def set_compact(self, compact: bool) -> None:
        if compact != self.compact:
            self.compact = compact
            self._strips_key = None  # every line again
            self.refresh(layout=True)

    def text(self, name: str) -> str:
        """One text as plain text (what tests and screen readers look at)."""
        return self._texts[name].plain

    def show(self, **texts: Text | str) -> None:
        """Set any of the texts (``last_action`` for ``last-action``); a plain ``str`` is drawn as it is."""
        changed = False
        for key, content in texts.items():
            name = key.replace("_", "-")
            text = Text(content) if isinstance(content, str) else content
            if not text.plain.replace("\n", "").isprintable():
                # What comes from players is made safe where it enters; a Static also dropped control codes
                # on the way out, and rich's Text.render does not: none reaches a terminal from here either.
                text = Text(printable(text.plain), style=text.style)
            if _text_key(text) == _text_key(self._texts[name]):
                continue
            self._texts[name] = text
            self._wrapped.pop(name, None)
            changed = True
        if not changed:
            return
        width = self.size.width
        if not self.is_mounted or width == 0:
            self.refresh(layout=True)
            return
        old = self._lines
        # The style the lines were last built with: ``rich_style`` walks every ancestor, and a new style (a
        # theme) repaints the whole widget anyway, through ``render_line``.
        base = self._strips_key[0] if self._strips_key is not None else self.rich_style
        self._lines = self._build(base, width)
        if len(self._lines) != len(old):
            self.refresh(layout=True)
            return
        rows = [y for y, (before, after) in enumerate(zip(old, self._lines)) if before != after]
        if rows:
            self.refresh(*(Region(0, y, width, 1) for y in rows))

    def _build(self, base: Style, width: int) -> list[Strip]:
        """All lines at ``width``: each text wrapped (once), padded to its tallest height, a blank line after it."""
        if (base, width) != self._strips_key:
            if self._strips_key is None or self._strips_key[1] != width:
                self._tallest = dict.fromkeys(self.SECTIONS, 0)  # other wrapping: the heights start again
            if self._strips_key is None or self._strips_key[0] != base:
                self._looks.clear()
            self._strips_key = (base, width)
            self._wrapped.clear()
        blank = Strip.blank(width, base)
        console = self.app.console if self.is_attached else None
        lines: list[Strip] = []
        for name in self.SECTIONS:
            wrapped = self._wrapped.get(name)
            if wrapped is None:
                wrapped = self._wrapped[name] = self._wrap(name, console, base, width)
            if self.compact:
                lines.extend(wrapped)
                continue
            height = max(self._tallest[name], self.reserved.get(name, 0))
            if len(wrapped) > max(height, 1):
                # Shown before at this width: growing lays the screen out again, so the last action (its
                # length changes at every turn) grows straight to its most lines.
                most = self.MAX_LINES.get(name)
                height = most if height and most is not None else len(wrapped)
            elif height == 0 and self._texts[name].plain:
                height = 1  # shown now: an empty text has not been
            self._tallest[name] = height
            height = max(height, 1)
            lines.extend(wrapped)
            lines.extend([blank] * (height - len(wrapped) + 1))
        return lines

    def _wrap(self, name: str, console: Console | None, base: Style, width: int) -> list[Strip]:
        if console is None or width <= 0:
            return []
        look = self._looks.get(name)
        if look is None:  # once for each style of the widget (``_build`` forgets them when it changes)
            component = f"panel-texts--{name}"
            look = self.get_component_rich_style(component) if component in self.COMPONENT_CLASSES else Style()
            self._looks[name] = look
        return wrap_strips(self._texts[name], console, width, look, base, self.MAX_LINES.get(name))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._lines = self._build(self.rich_style, width)
        return len(self._lines)

    def render_line(self, y: int) -> Strip:
        base = self.line_style
        width = self.line_size.width
        if (base, width) != self._strips_key:
            self._lines = self._build(base, width)  # a new theme or width
        return self._lines[y] if y < len(self._lines) else Strip.blank(width, base)


class SidePanel(Vertical):
    """Attributes down: the screen calls ``show`` with a view and what else to say."""

    #: Beside the board, the lines the log keeps (its border's included) however tall the texts above it grow:
    #: a game's end at 80x24 (Mono's three players: the winner, the legend, three scores, a long last action)
    #: left it none.  The texts' last lines (the last action, which the log repeats) give way first.
    LOG_LINES_LEAST = 4

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.texts = PanelTexts(id="panel-info")
        self.move_log = MoveLog(id="move-log")

    def on_resize(self) -> None:
        self.keep_log_lines()

    def keep_log_lines(self) -> None:
        """Cap the texts' height so that the log keeps its least lines under them (beside the board only: under
        it, in the narrow layout, the log stands beside the texts)."""
        beside = not self.texts.compact and self.move_log.display and self.size.height > 0
        others = sum(child.outer_size.height for child in self.children if child not in (self.texts, self.move_log))
        most = max(1, self.content_size.height - others - self.LOG_LINES_LEAST) if beside else None
        if self.texts.styles.max_height != (None if most is None else Scalar.from_number(most)):
            self.texts.styles.max_height = most

    def compose(self) -> ComposeResult:
        # The texts above the log, one widget: in the narrow layout the log stands beside it, not under it.
        yield self.texts
        yield self.move_log

    def show(
        self,
        view: View,
        status: Text | str,
        legend: Text | None = None,
        log_view: View | None = None,
        highlight_ply: int | None = None,
        follow_log: bool = True,
    ) -> None:
        self.texts.show(
            status=Text(status, style="bold") if isinstance(status, str) else status,
            legend=legend or "",
            scores=scores_text(view),
            last_action=Text(view.last_action, style="italic"),
        )
        self.move_log.show(log_view or view, highlight_ply, follow=follow_log)
