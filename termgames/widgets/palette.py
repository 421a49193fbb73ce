"""Colours and glyphs for boards.

Colour is never the only signal: every seat also has its own glyph, and the
ASCII set keeps them distinct where the terminal cannot draw Unicode.  The
colour-blind-safe palette uses the Okabe-Ito colours; ``mono`` uses none.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rich.style import Style
from textual.scrollbar import ScrollBarRender
from textual.widget import Widget

PALETTE_NAMES = ("default", "colourblind", "mono")


@dataclass(frozen=True)
class Palette:
    name: str
    seats: tuple[str | None, ...]
    empty: str | None
    label: str | None
    warn: str | None
    highlight_bg: str | None
    cursor_bg: str | None

    def seat(self, seat: int) -> str | None:
        return self.seats[seat % len(self.seats)]


PALETTES = {
    "default": Palette(
        "default",
        seats=("#ff6b5f", "#5fb4ff", "#87d75f", "#e08ce0"),
        empty="#6c6c6c",
        label="#8a8a8a",
        warn="#ffd75f",
        highlight_bg="#3a3a3a",
        cursor_bg="#5f5f87",
    ),
    # Okabe-Ito: orange, sky blue, bluish green, reddish purple.
    "colourblind": Palette(
        "colourblind",
        seats=("#e69f00", "#56b4e9", "#009e73", "#cc79a7"),
        empty="#6c6c6c",
        label="#8a8a8a",
        warn="#f0e442",
        highlight_bg="#3a3a3a",
        cursor_bg="#0072b2",
    ),
    "mono": Palette("mono", seats=(None,), empty=None, label=None, warn=None, highlight_bg=None, cursor_bg=None),
}


@dataclass(frozen=True)
class Glyphs:
    seats: tuple[str, ...]
    empty: str
    obliging: str
    cursor_left: str
    cursor_right: str


UNICODE = Glyphs(seats=("●", "○", "▲", "■"), empty="·", obliging="!", cursor_left="[", cursor_right="]")
ASCII = Glyphs(seats=("X", "O", "A", "H"), empty=".", obliging="!", cursor_left="[", cursor_right="]")


def glyphs(ascii_only: bool) -> Glyphs:
    return ASCII if ascii_only else UNICODE


def next_palette(name: str) -> str:
    index = PALETTE_NAMES.index(name) if name in PALETTE_NAMES else 0
    return PALETTE_NAMES[(index + 1) % len(PALETTE_NAMES)]


@lru_cache(maxsize=512)
def style(
    color: str | None = None,
    bgcolor: str | None = None,
    bold: bool = False,
    dim: bool = False,
    reverse: bool = False,
    underline: bool = False,
) -> Style:
    """Styles are cached: boards ask for the same few on every line."""
    return Style(color=color, bgcolor=bgcolor, bold=bold or None, dim=dim or None, reverse=reverse or None,
                 underline=underline or None)


class AsciiScrollBarRender(ScrollBarRender):
    """Scroll bars without the eighth-block glyphs Textual draws their ends with."""

    VERTICAL_BARS = [" "] * 8
    HORIZONTAL_BARS = [" "] * 8


def use_ascii_scrollbars(screen: Widget) -> None:
    """Give every scrolling container of ``screen`` (and the screen) plain scroll bars."""
    from textual.containers import ScrollableContainer

    for widget in [screen, *screen.query(ScrollableContainer)]:
        widget.vertical_scrollbar.renderer = AsciiScrollBarRender
        widget.horizontal_scrollbar.renderer = AsciiScrollBarRender
