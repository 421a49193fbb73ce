"""The base of every board: what a game screen talks to, one Line-API widget per board, and its canvas.

Three layers, each small:

``Board[ViewT]``
    What a game screen (and the replay) talks to: ``show(view)``, ``redraw``,
    the cursor (``move_cursor``, ``cursor_name``, ``cursor_detail``,
    ``cursor_region``), ``legend`` for the side panel, ``set_palette`` and
    ``text_lines``.  Generic over the game's view type, so ``self.view`` of a
    ``Board[MonoView]`` is a ``MonoView``.  A board never calls up into its
    screen: it posts the messages of :mod:`termgames.messages` (a click moved
    the cursor, a click chose a move) and the screen handles them.

``BoardWidget[ViewT]``
    One board drawn with Textual's Line API: the game's subclass lays the
    whole board out as lines of (text, style) pieces whenever the view,
    cursor or palette changes (``build_lines``, usually with a ``Canvas``),
    and ``render_line`` hands Textual one cached line at a time.  A widget
    grouping several boards (Mono's) is a ``Board`` whose children are
    ``BoardWidget``s.

``Canvas``
    A character grid of (char, style) cells: ``put`` text anywhere (clipped
    to the grid), read a cell back (``char_at``, ``style_at``), and ``lines``
    merges each line's runs of one style into the pieces ``build_lines``
    returns.

Redraws are cheap because a server redraws every screen at a table for each
move, all on one event loop: a redraw that keeps the board's size repaints
only the lines whose pieces changed (no layout), and each line's Strip is
built once and kept until that line, the widget's style or its width changes.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, Literal, TypeVar

from rich.segment import Segment
from rich.style import Style
from textual.containers import Vertical, VerticalScroll
from textual.events import Resize
from textual.geometry import Region, Size, Spacing
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from ..rules.base import View
from .line_style import StylePerPass
from .palette import PALETTES, Glyphs, Palette, glyphs

#: A run of text in one style: what a board's lines and the side panel's legend are made of.
Piece = tuple[str, Style]

#: The view type a board (and its screen) draws: ``Board[CopolymerView]``.
ViewT = TypeVar("ViewT", bound=View)

#: The canvas's empty cell: a space in no style.
BLANK_STYLE = Style()


class Canvas:
    """A ``width`` x ``height`` grid of (char, style) cells, turned into lines of pieces.

    Every cell starts as a space in no style.  ``put`` writes one character a
    cell (a board's glyphs are one column wide) and quietly drops what falls
    off the grid, so callers may draw near the edges without checks.
    """

    __slots__ = ("chars", "height", "styles", "width")

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.chars: list[list[str]] = [[" "] * width for _ in range(height)]
        self.styles: list[list[Style]] = [[BLANK_STYLE] * width for _ in range(height)]

    def put(self, line: int, x: int, text: str, look: Style) -> None:
        """Write ``text`` from column ``x`` of ``line`` in ``look``; what lies outside the grid is dropped."""
        if not 0 <= line < self.height:
            return
        chars, styles, width = self.chars[line], self.styles[line], self.width
        for offset, char in enumerate(text):
            if 0 <= x + offset < width:
                chars[x + offset] = char
                styles[x + offset] = look

    def restyle(self, line: int, x: int, look: Style) -> None:
        """Add ``look`` over what is drawn at column ``x`` of ``line`` (a mark over a glyph, keeping its colours)."""
        if 0 <= line < self.height and 0 <= x < self.width:
            self.styles[line][x] = self.styles[line][x] + look

    def char_at(self, line: int, x: int) -> str:
        return self.chars[line][x]

    def style_at(self, line: int, x: int) -> Style:
        return self.styles[line][x]

    def lines(self, trim: Literal["none", "blank", "spaces"] = "blank") -> list[list[Piece]]:
        """Each line as pieces, a piece a run of cells in one style.

        ``trim`` says what is dropped from the right of each line: nothing
        (``"none"``: every line as wide as the grid, for boards whose width
        is fixed), cells that are still blank (``"blank"``: spaces in no
        style), or any trailing spaces whatever their style (``"spaces"``).
        """
        out: list[list[Piece]] = []
        for chars, styles in zip(self.chars, self.styles):
            end = self.width
            if trim == "spaces":
                end = len("".join(chars).rstrip())
            elif trim == "blank":
                while end > 0 and chars[end - 1] == " " and styles[end - 1] == BLANK_STYLE:
                    end -= 1
            pieces: list[Piece] = []
            start = 0
            for x in range(1, end + 1):
                if x == end or styles[x] != styles[start]:
                    pieces.append(("".join(chars[start:x]), styles[start]))
                    start = x
            out.append(pieces)
        return out


class BoardArea(VerticalScroll, can_focus=False, inherit_bindings=False):
    """Holds a screen's board and scrolls a big one (the screen keeps the cursor in sight; the mouse wheel scrolls).

    It neither takes focus nor has keys: a scrolling container's arrow keys,
    which Textual checks on the way from the focused board up to the screen,
    would scroll it instead of moving the board's cursor.  When its size changes
    it says so (``Resized``): the screen scrolls the cursor back into sight.
    """

    class Resized(Message):
        """The area's size changed (the terminal's, or the room the screen leaves it)."""

    def on_resize(self, _event: Resize) -> None:
        self.post_message(self.Resized())


class BoardColumn(Vertical):
    """The board area with the cursor's line under it, centred in the room the screen leaves them.

    The area is as tall as its board, but never so tall that the line under it falls off the column:
    its ``max-height`` follows the column's height (no CSS unit says "all but one line").
    """

    DEFAULT_CSS = """
    BoardColumn { width: 1fr; height: 1fr; align: center middle; }
    """

    def on_resize(self, event: Resize) -> None:
        room = max(1, event.size.height - 1)
        for area in self.query_children(BoardArea):
            area.styles.max_height = room
            for board in area.query_children(Board):
                board.set_room(room)


class Board(Widget, Generic[ViewT], can_focus=True):
    """What a game screen talks to: a board of ``ViewT`` views with an optional cursor (attributes down).

    Subclasses implement ``redraw`` and what their cursor needs; the rest has
    defaults a board without a cursor can keep.  The board takes focus (first
    on its screen, and again by Tab from the move log) but has no keys of its
    own: they go on to the screen, which moves the cursor.
    """

    def __init__(self, *, ascii_only: bool = False, palette: str = "default", interactive: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.view: ViewT | None = None
        self.cursor: int | None = None
        #: False in replays: no cursor, no clicks.
        self.interactive = interactive
        self.ascii_only = ascii_only
        self.palette_name = palette
        #: The lines its screen leaves it (``set_room``); None until laid out (the terminal's size decides).
        self.room_lines: int | None = None

    @property
    def palette(self) -> Palette:
        return PALETTES[self.palette_name]

    @property
    def glyphs(self) -> Glyphs:
        return glyphs(self.ascii_only)

    #: Rows a board keeps in sight around the cursor's (two either side), whatever the terminal's size.
    ROWS_AROUND_CURSOR: ClassVar[int] = 2

    def show(self, view: ViewT | None) -> None:
        """Draw ``view`` (None: nothing, behind the privacy screen)."""
        self.view = view
        self.redraw()

    def set_room(self, lines: int) -> None:
        """The lines the screen leaves the board (its column, less the line under it): a board that draws
        roomier or tighter by the room it has draws again."""
        if lines != self.room_lines:
            self.room_lines = lines
            if self.view is not None:
                self.redraw()

    def whole_lines(self) -> int:
        """Lines the whole board takes, drawn as tight as it can be: the screen gives it these when it can."""
        return 0

    def least_lines(self) -> int:
        """Lines the board cannot be played in fewer than: its labels kept in sight, and the cursor's row with
        two rows either side (the whole board, when that is less).  A screen shortens its panel before these."""
        return self.whole_lines()

    def redraw(self) -> None:
        """Draw again from the view, cursor and palette (also when the terminal's size changed)."""
        raise NotImplementedError

    def set_palette(self, name: str) -> None:
        self.palette_name = name
        self.redraw()

    def row_lines(self) -> int:
        """Lines one row of the board takes (the screen keeps rows either side of the cursor's in sight)."""
        return 1

    def has_cursor(self) -> bool:
        """Whether the board shows a cursor the keys move (without one, the screen's arrows scroll the board)."""
        return self.interactive and self.view is not None

    def move_cursor(self, direction: str) -> None:
        """Move the cursor one step: left, right, up, down, or hex up-left/up-right/down-left/down-right."""

    def cursor_name(self) -> str:
        """The name of the cell under the cursor in the game's notation, or ""."""
        return ""

    def cursor_detail(self) -> str:
        """A line about the cell under the cursor (its name, what is on it) for the screen to show."""
        name = self.cursor_name()
        return f"cursor: {name}" if name else ""

    def cursor_region(self) -> Region | None:
        """The cursor's cells in this widget's content coordinates, for scrolling it into view."""
        return None

    def pinned_labels(self) -> Spacing:
        """Lines at the top and columns at the left the board keeps in sight while it scrolls (its labels).

        What scrolls under them is hidden, so the screen keeps the cursor that far from those edges.
        """
        return Spacing()

    def legend(self) -> list[Piece]:
        """What the glyphs mean, drawn in their own colours, for the side panel."""
        return []

    def suggest(self, move: str | None) -> bool:
        """Mark ``move`` (the analysis's better move, in the game's notation) on the board, or take the mark off
        with None; False when this board cannot draw it (the replay then only names it)."""
        return False

    def suggestion_region(self) -> Region | None:
        """Where the marks of ``suggest`` are drawn, in this widget's content coordinates (a replay scrolls a big
        board to them); None when there are none or the board fits whole anyway."""
        return None

    def text_lines(self) -> list[str]:
        """The board as plain text (what tests and screen readers look at)."""
        return []


class BoardWidget(StylePerPass, Board[ViewT]):
    """One board drawn as a character grid with an optional cursor, line by line."""

    DEFAULT_CSS = """
    BoardWidget { width: auto; height: auto; padding: 0 1; }
    """

    def __init__(self, *, ascii_only: bool = False, palette: str = "default", interactive: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(ascii_only=ascii_only, palette=palette, interactive=interactive, **kwargs)
        self._lines: list[list[Piece]] = []
        self._width = 0
        #: Finished Strips by line, valid for ``_strips_key`` (the widget's own style and width).
        self._strips: dict[int, Strip] = {}
        self._strips_key: tuple[Style, int] | None = None
        #: Where ``build_lines`` drew the cursor: (line, column, width), for scrolling it into view.
        self._cursor_box: tuple[int, int, int] | None = None
        #: The board's labels, kept in sight when it scrolls: its first ``label_lines`` lines (column
        #: labels) and first ``label_columns`` columns (row labels).  ``build_lines`` sets them.
        self.label_lines = 0
        self.label_columns = 0
        #: Its last ``label_lines_below`` lines are labels too (column letters under the board), kept in sight
        #: at the window's bottom when the board is scrolled above them.
        self.label_lines_below = 0
        #: Row labels in no column of their own (down a hexagon's slanting edge): content line -> (x,
        #: width).  Scrolled off to the left, a row's label is drawn at the window's left edge.
        self.row_labels: dict[int, tuple[int, int]] = {}

    # -- attributes down ---------------------------------------------------

    def show(self, view: ViewT | None) -> None:
        """Draw ``view``; keeps the cursor where it is if it is still on the board."""
        self.view = view
        if self.cursor is None or not self.cursor_valid(self.cursor):
            self.cursor = self.initial_cursor()
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
        if self.label_changed(changed) and self.visible_window() is not None:
            # A label kept in sight is drawn at the window's edge, not where its line lies (off the window):
            # repainting only its own line would leave the copy on screen as it was (a stale score).
            self.refresh()
            return
        span = max(1, self.size.width)
        self.refresh(*(Region(0, y, span, 1) for y in changed))

    def label_changed(self, lines: list[int]) -> bool:
        """Whether any of these lines is one of the label lines kept at the window's top or bottom."""
        below = len(self._lines) - self.label_lines_below
        return any(y < self.label_lines or y >= below for y in lines)

    # -- for subclasses ----------------------------------------------------

    def build_lines(self) -> list[list[Piece]]:
        raise NotImplementedError

    def whole_lines(self) -> int:
        return len(self._lines) + self.styles.padding.top + self.styles.padding.bottom

    def least_lines(self) -> int:
        rows = 2 * self.ROWS_AROUND_CURSOR + 1
        padding = self.styles.padding.top + self.styles.padding.bottom
        return min(self.whole_lines(), self.label_lines + rows + self.label_lines_below + padding)

    def initial_cursor(self) -> int | None:
        return None

    def cursor_valid(self, cursor: int) -> bool:
        return True

    def cursor_region(self) -> Region | None:
        """The cursor's cells in this widget's content coordinates, if the subclass recorded them."""
        if self._cursor_box is None or not self.interactive:
            return None
        line, x, width = self._cursor_box
        return Region(x, line, width, 1)

    def pinned_labels(self) -> Spacing:
        left = self.label_columns + self.styles.padding.left if self.label_columns else 0
        if self.row_labels:
            left = max(left, 1 + max(width for _x, width in self.row_labels.values()))
        return Spacing(self.label_lines, 0, self.label_lines_below, left)

    # -- Line API ----------------------------------------------------------

    def visible_window(self) -> Region | None:
        """The part of this widget its scrolling area shows, in the widget's coordinates; None if all of it."""
        area = next((node for node in self.ancestors if isinstance(node, BoardArea)), None)
        if area is None or not self.is_mounted:
            return None
        region = self.region
        shown = region.intersection(area.scrollable_content_region)
        if shown == region or not shown:
            return None
        return shown.translate(-region.offset)

    def _pins(self, window: Region) -> tuple[int, int, int]:
        """How many lines at the window's top, columns at its left and lines at its bottom show the labels now."""
        top = self.styles.padding.top
        scrolled_down = window.y > top
        pin_lines = self.label_lines if scrolled_down and window.height > self.label_lines + 1 else 0
        left = self.label_columns + self.styles.padding.left
        pin_columns = left if self.label_columns and window.x > 0 and window.width > left + 2 else 0
        below = self.label_lines_below
        scrolled_up = window.bottom < top + len(self._lines)
        pin_below = below if below and scrolled_up and window.height > pin_lines + below + 1 else 0
        return pin_lines, pin_columns, pin_below

    def _floating_label(self, window: Region, line: int) -> tuple[int, int] | None:
        """The content line's row label (x, width) if it is scrolled off the window's left edge."""
        span = self.row_labels.get(line)
        if span is None or self.styles.padding.left + span[0] >= window.x:
            return None
        return span

    def has_labels(self) -> bool:
        return bool(self.label_lines or self.label_columns or self.label_lines_below or self.row_labels)

    def under_labels(self, x: int, y: int) -> bool:
        """Whether the widget's point (x, y) shows a label kept in sight over the cells (a click there is no cell's)."""
        window = self.visible_window() if self.has_labels() else None
        if window is None:
            return False
        pin_lines, pin_columns, pin_below = self._pins(window)
        if y - window.y < pin_lines or x - window.x < pin_columns or window.bottom - y <= pin_below:
            return True
        span = None if pin_columns else self._floating_label(window, y - self.styles.padding.top)
        return span is not None and x - window.x < span[1]

    def render_lines(self, crop: Region) -> list[Strip]:
        """Textual's lines, with the labels drawn over the window's edges when the board is scrolled past them.

        The labels are the board's own first lines and columns (``label_lines``, ``label_columns``), so
        they scroll along with the cells they label and stay in sight: the column letters on the
        window's top line, the row numbers at its left.
        """
        strips = super().render_lines(crop)
        if not self.has_labels():
            return strips
        window = self.visible_window()
        if window is None:
            return strips
        top = self.styles.padding.top
        pin_lines, pin_columns, pin_below = self._pins(window)
        floating = bool(self.row_labels) and not pin_columns and window.x > 0
        if not (pin_lines or pin_columns or pin_below or floating) or crop.x != window.x:
            return strips  # a partial render (a style under the mouse): the plain lines
        # A few rectangles of Textual's own lines (each pass works out the widget's style once), put together.
        render = super().render_lines
        # The label lines' own rows: the top ones, then the bottom ones (``footer_start`` on).
        footer_start = top + len(self._lines) - pin_below
        header = render(Region(crop.x, top, crop.width, pin_lines)) if pin_lines else []
        footer = render(Region(crop.x, footer_start, crop.width, pin_below)) if pin_below else []
        labels: list[Strip] = []
        header_labels: list[Strip] = []
        footer_labels: list[Strip] = []
        if pin_columns:
            labels = render(Region(0, crop.y, pin_columns, crop.height))
            header_labels = render(Region(0, top, pin_columns, pin_lines)) if pin_lines else []
            footer_labels = render(Region(0, footer_start, pin_columns, pin_below)) if pin_below else []
        out = list(strips)
        for index in range(crop.height):
            row = crop.y + index - window.y
            below = row - (window.height - pin_below)  # the row among the bottom labels, if >= 0
            pinned = 0 <= row < pin_lines
            pinned_below = not pinned and 0 <= below < pin_below
            if pinned:
                source, line = top + row, header[row]
            elif pinned_below:
                source, line = footer_start + below, footer[below]
            else:
                source, line = crop.y + index, strips[index]
            if pin_columns:
                corner = header_labels[row] if pinned else footer_labels[below] if pinned_below else labels[index]
                if not pinned_below and source < top + self.label_lines and corner.text.strip():
                    # A caption (a label line with text where the row labels go): from its start, whole.
                    line = render(Region(0, source, crop.width, 1))[0]
                else:
                    line = Strip.join([corner, line.crop(pin_columns, crop.width)])
            elif floating and (span := self._floating_label(window, source - top)) is not None:
                # The row's label, cut from the board's own (cached) line, at the window's left edge.
                x, width = span
                self._pass_style = self.rich_style  # as in a pass of StylePerPass: worked out once
                try:
                    label = self.render_line(source - top).crop(x, x + width)
                finally:
                    self._pass_style = None
                line = Strip.join([label, line.crop(width, crop.width)])
            out[index] = line
        return out

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self._width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines)

    def render_line(self, y: int) -> Strip:
        # The widget's own colours (the theme's background) lie under every piece:
        # a bare Segment would show the terminal's default background instead.
        base = self.line_style
        width = self.line_size.width
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
