"""Write again the sections of the docs that are generated from the code, so that they cannot drift.

    python docs/generate.py            # rewrite them in place
    python docs/generate.py --check    # exit 1 and name the files whose sections are out of date

A generated section sits between two comments in a Markdown file of ``docs/`` or the README::

    <!-- generated: keys mono -->
    ...
    <!-- end generated -->

What stands after ``generated:`` says what goes there:

``keys GAME``
    The keys of the game's screen, from its ``BINDINGS`` and its notes (what ``termgames rules GAME`` and
    the ``?`` help print).
``keys module:Class``
    The keys of any other screen (the shared ones of every game screen, replays, the lobby...).
``options GAME``
    The game's options with their ranges and defaults, from its option specs (what ``termgames play GAME
    --help`` prints).

``tests/test_docs.py`` runs the check.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SECTION = re.compile(r"(<!-- generated: (?P<what>[^>]*?) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.DOTALL)


def documents() -> Iterator[Path]:
    yield ROOT / "README.md"
    yield from sorted((ROOT / "docs").glob("*.md"))


def keys_of(target: str) -> str:
    from termgames.games import load
    from termgames.screens.keys import keys_markdown

    if ":" not in target:
        from termgames.cli import screen_keys

        return screen_keys(target)
    screen = load(target)
    return keys_markdown(screen, getattr(screen, "HELP_NOTES", ""))


def options_of(game: str) -> str:
    from termgames.cli import game_option_rows
    from termgames.rules import get_game

    rows = game_option_rows(get_game(game))
    if not rows:
        return "No options.\n"
    lines = ["| option | what it sets |", "|---|---|"]
    lines += [f"| `{usage}` | {text.replace('|', '/')} |" for usage, text in rows]
    return "\n".join(lines) + "\n"


def generated(what: str) -> str:
    kind, _, target = what.partition(" ")
    if kind == "keys":
        return keys_of(target)
    if kind == "options":
        return options_of(target)
    raise ValueError(f"unknown generated section {what!r}")


def refreshed(text: str) -> str:
    return SECTION.sub(lambda m: m.group(1) + generated(m.group("what")) + m.group(4), text)


def main() -> int:
    check = "--check" in sys.argv[1:]
    stale = []
    for path in documents():
        text = path.read_text(encoding="utf-8")
        new = refreshed(text)
        if new != text:
            stale.append(path.relative_to(ROOT))
            if not check:
                path.write_text(new, encoding="utf-8")
    if check and stale:
        print("out of date (python docs/generate.py writes them again): " + ", ".join(map(str, stale)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
