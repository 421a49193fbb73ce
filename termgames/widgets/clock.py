"""Each seat's clock, one line a seat, above the side panel's texts: drawn with the Line API.

The running clock counts down once a second (once a minute, or an hour, where
it shows no seconds); each tick repaints only the lines whose text changed, so
a server with hundreds of timed screens repaints one line each, never a panel.
A clock under its warning (:attr:`~termgames.clock.ClockSpec.warning_seconds`)
is marked with ``!`` and shown reversed, a seat out of time says so: colour is
never the only sign.
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from ..clock import Clocks, clock_text
from ..untrusted import printable
from .line_style import StylePerPass

RUNNING = "▶"
ASCII_RUNNING = ">"


def out_note(seats: int, timeout_move: str | None) -> str:
    """What the clock of a seat out of time says: the game ended (two seats), or who plays it now."""
    if seats == 2:
        return "out of time"
    if timeout_move is None:
        return "out: AI plays"
    return "out: passes" if timeout_move == "pass" else f"out: plays {timeout_move}"


def clock_lines(
    clocks: Clocks, now: float, names: tuple[str, ...], width: int, ascii_only: bool = False,
    out_note: str = "out of time",
) -> list[tuple[str, str]]:
    """(text, look) for each seat's line: ``look`` is ``running``, ``warning``, ``out`` or ``""``."""
    lines = []
    for seat, name in enumerate(names):
        if seat in clocks.out:
            shown, look, mark = out_note, "out", " "
        else:
            left = clocks.left_at(seat, now)
            running = clocks.counting and seat in clocks.running
            warning = running and left < clocks.spec.warning_seconds
            shown = clock_text(left) + (" !" if warning else "")
            look = "warning" if warning else "running" if running else ""
            mark = (ASCII_RUNNING if ascii_only else RUNNING) if running else " "
        room = max(1, width - len(shown) - 3)
        who = printable(name, keep_newlines=False)
        who = who if len(who) <= room else who[: max(1, room - 1)] + "~"
        lines.append((f"{mark} {who:<{room}} {shown}"[:width], look))
    return lines


class ClockLines(StylePerPass, Widget):
    """The seats' clocks; the screen calls :meth:`show` at each change and at each tick."""

    #: Its rule for the narrow layout names the screen's class, outside the widget.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    ClockLines { height: auto; margin-bottom: 1; }
    .narrow ClockLines { width: 22; height: 100%; margin: 0 1 0 0; }
    """

    LOOKS = {
        "running": Style(bold=True),
        "warning": Style(bold=True, reverse=True),
        "out": Style(dim=True, italic=True),
        "": Style(),
    }

    def __init__(self, ascii_only: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ascii_only = ascii_only
        self._lines: list[tuple[str, str]] = []
        self._shown: tuple[Clocks, float, tuple[str, ...], str] | None = None

    def text(self) -> str:
        """The lines as plain text (what tests read)."""
        return "\n".join(line for line, _look in self._lines)

    def show(self, clocks: Clocks, now: float, names: tuple[str, ...], out_note: str = "out of time") -> None:
        self._shown = (clocks, now, names, out_note)
        width = self.size.width
        if not self.is_mounted or width == 0:
            self._lines = clock_lines(clocks, now, names, 40, self.ascii_only, out_note)
            self.refresh(layout=True)
            return
        old = self._lines
        self._lines = clock_lines(clocks, now, names, width, self.ascii_only, out_note)
        if len(old) != len(self._lines):
            self.refresh(layout=True)
            return
        for y, (before, after) in enumerate(zip(old, self._lines)):
            if before == after:
                continue
            if before[1] != after[1]:
                self.refresh(Region(0, y, width, 1))
                continue
            # A tick changes a digit or two at the line's end: only those cells are drawn and sent again.
            same = next((i for i, (a, b) in enumerate(zip(before[0], after[0])) if a != b), len(after[0]))
            self.refresh(Region(same, y, width - same, 1))

    def on_resize(self) -> None:
        if self._shown is not None:
            self.show(*self._shown)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines)

    def render_line(self, y: int) -> Strip:
        width = self.line_size.width
        base = self.line_style
        if y >= len(self._lines):
            return Strip.blank(width, base)
        text, look = self._lines[y]
        return Strip([Segment(text, base + self.LOOKS[look])]).extend_cell_length(width, base).crop(0, width)
