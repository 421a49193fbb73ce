"""The base of every board widget: one widget per board, drawn line by line.

A board widget is given a view (attributes down) and draws it with Textual's
Line API: the game's subclass lays the whole board out as lines of
(text, style) pieces whenever the view, cursor or palette changes, and
``render_line`` hands Textual one cached line at a time.  It never holds game
state of its own beyond the cursor.

Redraws are cheap because a server redraws every screen at a table for each
move, all on one event loop: a redraw that keeps the board's size repaints
only the lines whose pieces changed (no layout), and each line's Strip is
built once and kept until that line, the widget's style or its width changes.
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from .line_style import StylePerPass
from .palette import PALETTES, Glyphs, Palette, glyphs

Piece = tuple[str, Style]


class BoardWidget(StylePerPass, Widget):
    """A board drawn as a character grid with an optional cursor."""

    DEFAULT_CSS = """
    BoardWidget { width: auto; height: auto; padding: 0 1; }
    """

    def __init__(self, *, ascii_only: bool = False, palette: str = "default", interactive: bool = True, **kwargs: Any):
        super().__init__(**kwargs)
        self.view: Any = None
        self.cursor: int | None = None
        self.interactive = interactive
        self.ascii_only = ascii_only
        self.palette_name = palette
        self._lines: list[list[Piece]] = []
        self._width = 0
        #: Finished Strips by line, valid for ``_strips_key`` (the widget's own style and width).
        self._strips: dict[int, Strip] = {}
        self._strips_key: tuple[Style, int] | None = None
        #: Where ``build_lines`` drew the cursor: (line, column, width), for scrolling it into view.
        self._cursor_box: tuple[int, int, int] | None = None
        #: The widget's style while Textual draws a batch of its lines (``rich_style`` walks every ancestor).

    # -- attributes down ---------------------------------------------------

    @property
    def palette(self) -> Palette:
        return PALETTES[self.palette_name]

    @property
    def glyphs(self) -> Glyphs:
        return glyphs(self.ascii_only)

    def show(self, view: Any) -> None:
        """Draw ``view``; keeps the cursor where it is if it is still on the board."""
        self.view = view
        if self.cursor is None or not self.cursor_valid(self.cursor):
            self.cursor = self.initial_cursor()
        self.redraw()

    def set_palette(self, name: str) -> None:
        self.palette_name = name
        self.redraw()

    def redraw(self) -> None:
        self.set_lines(self.build_lines() if self.view is not None else [])

    def set_lines(self, lines: list[list[Piece]]) -> None:
        """Draw ``lines``: a new size lays the screen out again, else only the lines that changed are repainted."""
        old = self._lines
        self._lines = lines
        width = max((sum(len(text) for text, _ in line) for line in lines), default=0)
        resized = (width, len(lines)) != (self._width, len(old))
        self._width = width
        if resized:
            self._strips.clear()
            self.refresh(layout=True)
            return
        changed = [y for y, (before, after) in enumerate(zip(old, lines)) if before != after]
        if not changed:
            return
        for y in changed:
            self._strips.pop(y, None)
        span = max(1, self.size.width)
        self.refresh(*(Region(0, y, span, 1) for y in changed))

    # -- for subclasses ----------------------------------------------------

    def build_lines(self) -> list[list[Piece]]:
        raise NotImplementedError

    def initial_cursor(self) -> int | None:
        return None

    def cursor_valid(self, cursor: int) -> bool:
        return True

    def move_cursor(self, direction: str) -> None:
        """Move the cursor one step: left, right, up, down, or hex up-left/up-right/down-left/down-right."""

    def cursor_name(self) -> str:
        return ""

    def cursor_detail(self) -> str:
        """A line about the cell under the cursor (its name, what is on it) for the screen to show."""
        name = self.cursor_name()
        return f"cursor: {name}" if name else ""

    def cursor_region(self) -> Region | None:
        """The cursor's cells in this widget's content coordinates, if the subclass recorded them."""
        if self._cursor_box is None or not self.interactive:
            return None
        line, x, width = self._cursor_box
        return Region(x, line, width, 1)

    def legend(self) -> list[Piece]:
        """What the glyphs mean, drawn in their own colours, for the side panel."""
        return []

    # -- Line API ----------------------------------------------------------

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self._width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines)

    def render_line(self, y: int) -> Strip:
        # The widget's own colours (the theme's background) lie under every piece:
        # a bare Segment would show the terminal's default background instead.
        base = self.line_style
        width = self.size.width
        if (base, width) != self._strips_key:
            self._strips.clear()
            self._strips_key = (base, width)
        strip = self._strips.get(y)
        if strip is not None:
            return strip
        if y >= len(self._lines):
            strip = Strip.blank(width, base)
        else:
            segments = [Segment(text, style) for text, style in self._lines[y]]
            strip = Strip(segments).extend_cell_length(width).crop(0, width).apply_style(base)
        self._strips[y] = strip
        return strip

    def text_lines(self) -> list[str]:
        """The board as plain text (what tests and screen readers look at)."""
        return ["".join(text for text, _ in line) for line in self._lines]
