"""What the page shows beside the terminal, read from the app's screens: its title, key buttons and minimum size.

A phone has no arrow keys, no Escape and no Tab, so the page offers buttons
for them, and for the keys the current screen's footer shows (``u Undo``,
``? Help``...).  A button sends what a terminal would send for its
key, so the key goes the way every other key goes (the input budget, the key
parser, the screen's bindings).  The screen's minimum size (its
``minimum_size()``, see :class:`~termgames.screens.base.SizedScreen`) lets a
narrow window keep enough columns and scroll instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from textual.app import App
from textual.keys import REPLACED_KEYS, key_to_character

from ..screens.base import SizedScreen
from ..screens.keys import key_name
from ..widgets.footer import shown_keys

#: The terminal a screen that states no minimum (the start screen, dialogs) gets at least: its lists stay readable.
DEFAULT_MINIMUM = (60, 20)

#: What a terminal sends for the named keys a screen binds (xterm's sequences, which Textual's key parser reads).
KEY_SEQUENCES = {
    "up": "\x1b[A",
    "down": "\x1b[B",
    "right": "\x1b[C",
    "left": "\x1b[D",
    "home": "\x1b[H",
    "end": "\x1b[F",
    "insert": "\x1b[2~",
    "delete": "\x1b[3~",
    "pageup": "\x1b[5~",
    "pagedown": "\x1b[6~",
    "enter": "\r",
    "escape": "\x1b",
    "tab": "\t",
    "shift+tab": "\x1b[Z",
    "shift+up": "\x1b[1;2A",
    "shift+down": "\x1b[1;2B",
    "shift+right": "\x1b[1;2C",
    "shift+left": "\x1b[1;2D",
    "backspace": "\x7f",
    "space": " ",
}


#: The buttons always there on a phone: the keys it has not (its keyboard has letters and digits).
PAD_KEYS = (
    ("←", "left"),
    ("↑", "up"),
    ("↓", "down"),
    ("→", "right"),
    ("Enter", "enter"),
    ("Esc", "escape"),
    ("Tab", "tab"),
    ("⇧Tab", "shift+tab"),
)


def key_sequence(key: str) -> str | None:
    """The characters a terminal sends for Textual's key name ``key`` (None: no terminal sends it alone)."""
    if key in KEY_SEQUENCES:
        return KEY_SEQUENCES[key]
    if key.startswith("ctrl+"):
        letter = key.removeprefix("ctrl+")
        if len(letter) == 1 and "a" <= letter <= "z":
            return chr(ord(letter) - ord("a") + 1)
        return None
    if len(key) == 1:
        return key if key.isprintable() else None
    character = key_to_character(REPLACED_KEYS.get(key, key))  # question_mark -> ?, plus -> +
    return character if character is not None and character.isprintable() else None


@dataclass(frozen=True)
class KeyButton:
    """One of the current screen's keys as a button: its label (``u Undo``) and what it sends."""

    label: str
    data: str
    enabled: bool = True


@dataclass(frozen=True)
class ScreenInfo:
    """What the page shows of the app now: the browser tab's title, the key buttons, the least terminal size."""

    title: str
    keys: tuple[KeyButton, ...] = ()
    minimum: tuple[int, int] = DEFAULT_MINIMUM

    def message(self) -> list[Any]:
        """The websocket message that tells the page (``["screen", {...}]``)."""
        return [
            "screen",
            {
                "title": self.title,
                "keys": [[key.label, key.data, key.enabled] for key in self.keys],
                "minimum": list(self.minimum),
                "pad": [[label, KEY_SEQUENCES[key]] for label, key in PAD_KEYS],
            },
        ]


def game_title(screens: Iterable[Any]) -> str | None:
    """The title of the game the topmost screen that has one is about (its table's, its match's, its own game's)."""
    for screen in reversed(list(screens)):
        for holder in (getattr(screen, "table", None), getattr(screen, "match", None), screen):
            title = getattr(getattr(holder, "game", None), "title", None)
            if isinstance(title, str):
                return title
    return None


def key_buttons(app: App[Any]) -> tuple[KeyButton, ...]:
    """The keys the current screen's footer shows, as buttons (a key no terminal can send is left out)."""
    buttons = []
    for key, binding, enabled, _tooltip in shown_keys(app.screen):
        data = key_sequence(key)
        if data is None:
            continue
        # Named as the help names keys (Esc, Ctrl+R), not as the footer abbreviates them (esc, ^r).
        display = binding.key_display or key_name(key)
        buttons.append(KeyButton(f"{display} {binding.description}".strip(), data, enabled))
    return tuple(buttons)


def minimum_size(screens: Iterable[Any]) -> tuple[int, int]:
    """The least terminal every screen of the stack is usable in (a dialog over a game still shows the game)."""
    sizes = [screen.minimum_size() for screen in screens if isinstance(screen, SizedScreen)]
    if not sizes:
        return DEFAULT_MINIMUM
    return (max(width for width, _ in sizes), max(height for _, height in sizes))


def describe(app: App[Any], prefix: str = "termgames") -> ScreenInfo:
    """The page's news for ``app`` at this keyboard: ``termgames - Copolymer`` (``termgames - start``)."""
    stack = app.screen_stack
    return ScreenInfo(f"{prefix} - {game_title(stack) or 'start'}", key_buttons(app), minimum_size(stack))
