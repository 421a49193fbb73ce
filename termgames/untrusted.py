"""Text that comes from players and files: one check on the way in, one sanitiser on the way out.

Names reach termgames from ``--player``, SSH user names, the seats of
``challenge`` and records; each passes :func:`check_name` (through
``Game.check_seats``, which every match's seats go through).  Whatever text
came from a player or a file is passed through :func:`printable` (or
:func:`safe_json` for JSON) before it reaches a terminal, so that even a
name or a move that got past the check (an old record, a server database)
cannot drive the terminal: escape sequences, bidi overrides and lone
surrogates print as ``\\x1b``, ``\\u202e``, ``\\udc80``.

Pure Python (no I/O, no front end): the rules layer imports it.
"""

from __future__ import annotations

import ast
import json
import re
import unicodedata
from typing import Any

#: The longest name a player may take.
NAME_MAX = 32


class BadName(ValueError):
    """A name refused by :func:`check_name`; ``str()`` is one line that shows the name escaped."""


def _unsafe(character: str) -> bool:
    """A character that must not reach a terminal raw: controls (C0, C1, DEL), format characters
    (bidi overrides and isolates among them), lone surrogates, separators other than space, unassigned
    and private-use code points; ``str.isprintable`` is False for exactly these (space stays printable)."""
    return not character.isprintable()


def _escape(character: str) -> str:
    # repr's escapes: \x1b, \u202e, \udc80, \U000e0001.
    return repr(character)[1:-1]


def printable(text: str, keep_newlines: bool = True) -> str:
    """``text`` with every character that could drive a terminal written as an escape (``\\x1b``).

    Newlines are kept when ``keep_newlines`` (multi-line output such as a board); everything else that is
    not printable is escaped, so the result is one line per line of ``text`` and prints in any terminal.
    """
    if text.isprintable():
        return text
    return "".join(
        character if not _unsafe(character) or (keep_newlines and character == "\n") else _escape(character)
        for character in text
    )


def safe_json(data: Any, indent: int | None = None) -> str:
    """``json.dumps(data, ensure_ascii=False)`` with every unsafe character as a JSON ``\\uXXXX`` escape.

    The data a script reads back is exactly the same; only what a terminal would act on is escaped.
    With ``indent``, the layout of ``json.dumps(data, indent=indent)`` (its line breaks stay line breaks).
    """
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    if text.isprintable():
        return text
    out: list[str] = []
    for character in text:
        # Outside its strings JSON holds nothing unsafe but the line breaks of an indented layout.
        if not _unsafe(character) or (indent is not None and character == "\n"):
            out.append(character)
        elif ord(character) > 0xFFFF:
            # JSON escapes code points beyond the BMP as a surrogate pair.
            code = ord(character) - 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{ord(character):04x}")
    return "".join(out)


#: The most characters of a player's text an error message quotes.
QUOTE_MAX = 60


def quoted(text: str, limit: int = QUOTE_MAX) -> str:
    """``text`` quoted for an error message: repr-like, escaped, at most about ``limit`` characters."""
    if len(text) > limit:
        cut = repr(text[:limit])
        return f"{cut[:-1]}...{cut[-1]} ({len(text)} characters)"
    return repr(text)


#: A text quoted the way repr quotes it, longer than QUOTE_MAX characters (an escape counts as one).
_QUOTED = re.compile(
    rf"'(?:[^'\\\n]|\\.){{{QUOTE_MAX + 1},}}'"  # 'single-quoted'
    rf'|"(?:[^"\\\n]|\\.){{{QUOTE_MAX + 1},}}"'  # or "double-quoted", as repr quotes a text holding '
)


def shorten_quotes(message: str) -> str:
    """``message`` with every quoted text longer than :data:`QUOTE_MAX` characters cut short.

    Rules quote a bad move (``'A1x'``) in their refusals; a 100 kB move must not come back whole.
    """
    return _QUOTED.sub(lambda found: quoted(ast.literal_eval(found.group()), QUOTE_MAX), message)


def check_name(name: str) -> str:
    """``name`` if it is a usable name, else :class:`BadName` saying why (with the name escaped).

    A name is 1 to 32 printable characters in Unicode normal form NFC: no control characters (C0, C1),
    no bidi overrides or isolates or other format characters, no lone surrogates, no spaces or other
    separators, no commas or colons (they separate seats and levels in ``--player NAME:ai:LEVEL``).
    """
    if not isinstance(name, str) or not name:
        raise BadName("'' is not a usable player name: it is empty")
    shown = quoted(name, NAME_MAX + 8)
    bad = next((c for c in name if _unsafe(c) or c.isspace()), None)
    if bad is not None:
        what = "a space" if bad.isspace() and bad.isprintable() else f"the character {_escape(bad)}"
        if unicodedata.category(bad) == "Cs":
            what = f"a lone surrogate ({_escape(bad)})"
        raise BadName(f"{shown} is not a usable player name: it holds {what} (printable characters only)")
    if len(name) > NAME_MAX:
        raise BadName(f"{shown} is not a usable player name: longer than {NAME_MAX} characters")
    if "," in name or ":" in name:
        raise BadName(f"{shown} is not a usable player name (no commas or colons)")
    if unicodedata.normalize("NFC", name) != name:
        raise BadName(f"{shown} is not a usable player name: not in Unicode normal form NFC")
    return name


def is_usable_name(name: str) -> bool:
    """Whether :func:`check_name` takes ``name``."""
    try:
        check_name(name)
    except BadName:
        return False
    return True


def normal_name(text: str) -> str:
    """A name as typed, in NFC and without surrounding spaces (what input fields and flags give)."""
    return unicodedata.normalize("NFC", text.strip())


def fold_name(name: str) -> str:
    """The form two account names share when they are the same account: case-folded, then NFKC.

    ``Alice`` and ``alice`` are one account; so are ``STRASSE`` and ``straße``, and full-width ``ａｌｉｃｅ``
    and ``alice`` (NFKC folds compatibility forms).
    """
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
