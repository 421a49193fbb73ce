"""The move log beside every board: one turn a line, numbered, drawn with the Line API.

A server redraws every screen at a table for each move, all on one event
loop.  A log made of a Static inside a scrolling container grew by a line each
move, so every move laid the screen out again and drew the log twice (once for
the new line, once more for its scroll position and scroll bar).  This widget
draws only the lines in sight, from Strips wrapped once to its width, and takes
its new length without a layout: its box is fixed by the panel, and a longer
log only moves where it is scrolled to.  It has no scroll bar; a first line
"(N more lines above)" (and a last line "(N more lines below)" once scrolled
up) says there is more, and the mouse wheel scrolls it as before.

It takes focus (Tab, or a click): the vertical keys then scroll it, and only
those, so left, right, Enter and the game's other keys still reach the
screen; Tab gives the focus back to the board.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size, Spacing
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..rules import View
from ..untrusted import printable
from .line_style import StylePerPass

LONG_WORD = re.compile(r"\S+")


def break_after_commas(text: Text, width: int) -> Text:
    """``text`` with a line break after a comma in each word too long for ``width``, where the word's pieces fit.

    Rich folds such a word wherever the width ends (a move of three tiles became ``F6:S-`` then ``h``): a list
    written without spaces (a move's tiles, ``C4:T-ne,D4:S-h``) breaks between its items instead.
    """
    plain = text.plain
    offsets: list[int] = []
    for word in LONG_WORD.finditer(plain):
        if word.end() - word.start() <= width or "," not in word.group():
            continue
        start = word.start()
        while word.end() - start > width:
            cut = plain.rfind(",", start, start + width)
            if cut < 0:
                break  # a piece with no comma to break after: rich folds it
            offsets.append(cut + 1)
            start = cut + 1
    if not offsets:
        return text
    return Text("\n").join(text.divide(offsets))


def group_turns(moves: tuple[tuple[int, str], ...]) -> list[tuple[int, list[str]]]:
    """Consecutive moves by one seat form one turn (Copolymer's forced claims, Mono's held probes)."""
    turns: list[tuple[int, list[str]]] = []
    for seat, text in moves:
        if turns and turns[-1][0] == seat:
            turns[-1][1].append(text)
        else:
            turns.append((seat, [text]))
    return turns


def log_line(view: View, move: str, ply: int) -> str:
    """A move as the log draws it: the game's log text, made safe (a move came from a player or a file)."""
    return printable(view.log_text(move, ply), keep_newlines=False)


#: What one turn's line shows: its number, the player's name, each move's log text, the highlighted move's index.
TurnKey = tuple[int, str, tuple[str, ...], int | None]


def turn_text(key: TurnKey) -> Text:
    number, name, moves, highlighted = key
    line = Text(f"{number:>3}. ", style="dim")
    line.append(f"{name} ", style="bold")
    for index, move in enumerate(moves):
        if index:
            line.append(" ")
        line.append(move, style="reverse" if index == highlighted else "")
    return line


class MoveLog(StylePerPass, ScrollView, can_focus=True, inherit_bindings=False):
    """The numbered move log; the screen calls ``show`` with a view (attributes down)."""

    #: Only vertical keys: the rest (left/right, Enter, the game's letters) go on to the screen.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "scroll_up", "Scroll up", show=False),
        Binding("down,j", "scroll_down", "Scroll down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "scroll_home", "First move", show=False),
        Binding("end", "scroll_end", "Last move", show=False),
        Binding("escape", "leave", "Back", show=False),
    ]

    DEFAULT_CSS = """
    MoveLog {
        height: 1fr;
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 0;
        scrollbar-visibility: hidden;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._keys: list[TurnKey] = []
        #: Each turn's wrapped Strips, valid for ``_strips_key`` (the widget's style and width).
        self._wrapped: list[list[Strip] | None] = []
        self._strips_key: tuple[Style, int] | None = None
        #: All wrapped lines in order, and the turn each belongs to.
        self._lines: list[Strip] = []
        self._line_turns: list[int] = []
        self._follow = True
        #: A mark after each move by its ply (1-based): an analysed replay's ``?!``, ``?``, ``??``.
        self.marks: dict[int, str] = {}
        #: Whether the last line was in sight at the last scroll (kept across a change of height).
        self._at_end = True
        #: Whether it has been given a size yet.
        self._sized = False
        #: The widget's style while Textual draws a batch of its lines (``rich_style`` walks every ancestor).

    def action_leave(self) -> None:
        """Esc: the keys back to the board (or whatever comes after the log)."""
        screen = self.screen
        boards = [widget for widget in screen.query("#board") if widget.focusable]
        screen.set_focus(boards[0] if boards else None)

    # -- attributes down ---------------------------------------------------

    def show(self, view: View, highlight_ply: int | None = None, follow: bool = True) -> None:
        """Show ``view``'s moves; ``highlight_ply`` (1-based) is drawn reversed.

        With ``follow`` the log stays anchored to its last line unless the player
        has scrolled up (scrolling back to the end anchors it again).
        """
        keys = self.turn_keys(view, highlight_ply)
        self._follow = follow
        if keys == self._keys:
            return
        at_end = self.scroll_y >= self.max_scroll_y
        old_keys = self._keys
        self._keys = keys
        self._wrapped = [
            self._wrapped[index] if index < len(old_keys) and old_keys[index] == key else None
            for index, key in enumerate(keys)
        ]
        self._rebuild(scroll_to_end=follow and at_end)

    def turn_keys(self, view: View, highlight_ply: int | None) -> list[TurnKey]:
        """The log's lines: a turn each (consecutive moves of one seat, see ``group_turns``), numbered."""
        keys: list[TurnKey] = []
        ply = 0
        for number, (seat, moves) in enumerate(group_turns(view.moves), start=1):
            texts = []
            highlighted = None
            for move in moves:
                ply += 1
                texts.append(log_line(view, move, ply - 1) + self.marks.get(ply, ""))
                if ply == highlight_ply:
                    highlighted = len(texts) - 1
            keys.append((number, view.players[seat], tuple(texts), highlighted))
        return keys

    def text_lines(self) -> list[str]:
        """The log as plain text, one turn a line (what tests and screen readers look at)."""
        return [turn_text(key).plain for key in self._keys]

    def keep_ply_in_sight(self, ply: int) -> None:
        """Scroll so that the line of ``ply`` (1-based; 0: the start) is in sight, with a line to spare around it."""
        if ply <= 0 or not self._keys:
            self.scroll_to(y=0, animate=False, immediate=True)
            return
        turn, count = 0, 0
        for turn, key in enumerate(self._keys):  # noqa: B007 -- the turn where the loop stops is the answer
            count += len(key[2])
            if count >= ply:
                break
        lines = [y for y, owner in enumerate(self._line_turns) if owner == turn]
        if lines:
            # A line to spare each side, clear of the "more lines" notes, where the log has the room for it.
            spare = 1 if self.scrollable_content_region.height >= len(lines) + 2 else 0
            self.scroll_to_region(
                Region(0, lines[0], 1, len(lines)), spacing=Spacing(spare, 0, spare, 0), animate=False, immediate=True
            )

    # -- drawing -------------------------------------------------------------

    def _rebuild(self, scroll_to_end: bool, repaint: bool = True, base: Style | None = None) -> None:
        """Wrap what is new, take the new length without a layout, and repaint what changed in sight.

        ``base`` is the widget's style; by default the one it was last drawn with (``rich_style`` walks
        every ancestor, and a new style repaints every line through ``render_line``, which passes it).
        """
        if base is None:
            base = (
                self._strips_key[0] if self._strips_key is not None
                else self.rich_style if self.is_mounted else Style()
            )
        width = self.scrollable_content_region.width
        if (base, width) != self._strips_key:
            self._strips_key = (base, width)
            self._wrapped = [None] * len(self._keys)
        console = self.app.console if self.is_attached else None
        old_lines = self._lines
        lines: list[Strip] = []
        owners: list[int] = []
        for index, key in enumerate(self._keys):
            wrapped = self._wrapped[index]
            if wrapped is None:
                wrapped = self._wrapped[index] = self._wrap(turn_text(key), console, base, width)
            lines.extend(wrapped)
            owners.extend([index] * len(wrapped))
        self._lines = lines
        self._line_turns = owners
        # Setting virtual_size as a reactive lays the whole screen out: this box's size never depends on it.
        self.set_reactive(MoveLog.virtual_size, Size(width, len(lines)))
        if not repaint or not self.is_mounted or self.size.area == 0:
            return
        target = self.max_scroll_y if scroll_to_end else min(self.scroll_y, self.max_scroll_y)
        if target != self.scroll_y:
            self.set_reactive(MoveLog.scroll_target_y, target)
            self.set_scroll(None, target)
            self.refresh()  # its lines moved: all of the log is repainted
            return
        height = self.scrollable_content_region.height
        top = round(self.scroll_y)
        changed = [
            y for y in range(height)
            if (old_lines[top + y] if top + y < len(old_lines) else None)
            is not (lines[top + y] if top + y < len(lines) else None)
        ]
        if changed:
            self.refresh(*(Region(0, y, self.size.width, 1) for y in changed))
        # The "more below" line moves with the length too.
        if self.scroll_y < self.max_scroll_y and height:
            self.refresh(Region(0, height - 1, self.size.width, 1))

    @staticmethod
    def _wrap(text: Text, console: Console | None, base: Style, width: int) -> list[Strip]:
        if console is None or width <= 0:
            return [Strip([])]
        return [
            Strip(line.render(console)).extend_cell_length(width).crop(0, width).apply_style(base)
            for line in break_after_commas(text, width).wrap(console, width)
        ]

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        # Whether it shows its last line, as the player left it: a new height must not lose that.
        self._at_end = new_value >= self.max_scroll_y
        # No scroll bar to move: only the lines in sight change.
        if round(old_value) != round(new_value):
            self.refresh()

    def on_resize(self) -> None:
        # The first size it gets (a resumed game's long log was shown before it had one) starts at the end too;
        # a log that showed its end keeps showing it when it gets shorter (the panel's texts grew above it).
        first = not self._sized
        self._sized = True
        self._rebuild(scroll_to_end=self._follow and (first or self._at_end or self.scroll_y >= self.max_scroll_y))

    def render_line(self, y: int) -> Strip:
        base = self.line_style
        width, height = self.line_size
        if (base, width) != self._strips_key:
            self._rebuild(scroll_to_end=False, repaint=False, base=base)  # a new theme or width: wrap again
        top = round(self.scroll_y)
        # The notes cover a line of the log each: a log too short for them and a line of its own shows lines only.
        if y == 0 and top > 0 and height >= 3:
            return self._note(top + 1, "above", base, width)
        below = len(self._lines) - (top + height)
        if y == height - 1 and below > 0 and height >= 4:
            return self._note(below + 1, "below", base, width)
        index = top + y
        if index < len(self._lines):
            return self._lines[index]
        return Strip.blank(width, base)

    def _note(self, count: int, where: str, base: Style, width: int) -> Strip:
        # In a narrow panel (Monad's) a shorter form: never a note cut mid-word.
        forms = (f"({count} more lines {where})", f"({count} more {where})", f"({count} more)")
        text = next((form for form in forms if len(form) <= width), forms[-1])
        note = Text(text, style="dim italic")
        note.truncate(width)
        return Strip(note.render(self.app.console)).extend_cell_length(width).crop(0, width).apply_style(base)
