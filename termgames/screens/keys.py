"""The keys a screen offers, written out from its bindings (the ``?`` help and ``termgames rules``).

A screen's ``BINDINGS`` are the one place its keys are written: the footer
shows them, and this module turns them into the help's table, so the help
can never name a key the screen does not have.  A binding's ``tooltip`` is
its longer explanation for the help (the footer shows the short
``description``); bindings with the same explanation share a row.  A
subclass's binding of a key hides the base class's binding of the same key,
as Textual's own merging does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.keys import format_key

#: Key names as the help writes them (plain ASCII: the help is also shown with ``--ascii``).
KEY_NAMES = {
    "enter": "Enter",
    "space": "Space",
    "escape": "Esc",
    "tab": "Tab",
    "shift+tab": "Shift+Tab",
    "backspace": "Backspace",
    "delete": "Delete",
    "left": "left",
    "right": "right",
    "up": "up",
    "down": "down",
    "home": "Home",
    "end": "End",
    "pageup": "PgUp",
    "pagedown": "PgDn",
}


def key_name(key: str) -> str:
    """``question_mark`` -> ``?``, ``pageup`` -> ``PgUp``, ``ctrl+s`` -> ``Ctrl+S``."""
    if key in KEY_NAMES:
        return KEY_NAMES[key]
    if "+" in key and len(key) > 1:
        *modifiers, last = key.split("+")
        return "+".join([*(m.capitalize() for m in modifiers), key_name(last) if len(last) > 1 else last.upper()])
    shown = format_key(key)
    return shown if shown.isascii() else key


@dataclass
class KeyRow:
    """One row of the help: the keys, and what they do."""

    keys: list[str] = field(default_factory=list)
    text: str = ""
    #: The bindings' own ``key_display``, when every binding of the row gives the same one ("1-9").
    display: str | None = None

    @property
    def keys_text(self) -> str:
        if self.display and len(self.keys) > 3:
            return self.display
        return ", ".join(key_name(key) for key in self.keys)


def _bindings(bindings: Iterable[BindingType]) -> Iterable[Binding]:
    for binding in bindings:
        if isinstance(binding, Binding):
            yield binding
        else:  # Textual also takes (key, action[, description]) tuples
            yield Binding(*binding)


def bound_keys(screen_class: type[DOMNode]) -> set[str]:
    """Every key ``screen_class`` and its bases bind (Textual's own classes left out)."""
    return {key for row in key_rows(screen_class) for key in row.keys}


def key_rows(screen_class: type[DOMNode]) -> list[KeyRow]:
    """The rows of the help for ``screen_class``: its own bindings first, then those it inherits, then its board
    widget's (``board_class``: the keys a game adds through its board are the game's keys too)."""
    rows: dict[str, KeyRow] = {}
    taken: set[str] = set()
    board = getattr(screen_class, "board_class", None)
    classes = [*screen_class.__mro__, *(board.__mro__ if isinstance(board, type) else ())]
    for cls in classes:
        own = cls.__dict__.get("BINDINGS")
        if not own or cls.__module__.startswith("textual."):
            continue  # Textual's own (copying text, its focus keys): not the game's
        keys_here: set[str] = set()
        for binding in _bindings(own):
            keys = [key.strip() for key in binding.key.split(",") if key.strip() not in taken]
            keys_here |= {key.strip() for key in binding.key.split(",")}
            if not keys:
                continue  # every key of it is bound by a subclass
            text = binding.tooltip or binding.description
            row = rows.setdefault(text, KeyRow(text=text, display=binding.key_display))
            if row.display != binding.key_display:
                row.display = None
            row.keys += [key for key in keys if key not in row.keys]
        taken |= keys_here
    return list(rows.values())


def keys_markdown(screen_class: type[DOMNode], notes: str = "") -> str:
    """The keys as a Markdown table, then ``notes`` (what the screen's marks mean)."""
    lines = ["| key | action |", "|---|---|"]
    lines += [f"| {row.keys_text} | {row.text} |" for row in key_rows(screen_class)]
    text = "\n".join(lines) + "\n"
    return text + ("\n" + notes.strip() + "\n" if notes.strip() else "")
