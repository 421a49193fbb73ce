"""What the TUI should open first, and what the CLI says once it has closed: plain values, no Textual."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .match import Match


@dataclass(frozen=True)
class Launch:
    """``start``: the start screen; ``setup``: the setup screen of ``game`` with ``options``;
    ``play``: the game screen for ``match`` saved to ``save_path``; ``replay``: the replay screen.  ``clock``:
    the setup's clock, filled in (``--clock``; empty: untimed)."""

    kind: Literal["start", "setup", "play", "replay"]
    game: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    match: Match | None = None
    save_path: Path | None = None
    source: str = ""
    clock: str = ""


@dataclass(frozen=True)
class PlayedRecord:
    """A game played in this session that has a record on disk, as it was when the app closed."""

    path: Path
    finished: bool
    title: str = "Game"


def exit_lines(records: list[PlayedRecord]) -> list[str]:
    """What the terminal shows once the app has closed: each record of the session and how to go on with it
    (two lines each: a path and a command both fit in 80 columns more often than together)."""
    lines = []
    for record in records:
        quoted = shlex.quote(str(record.path))  # a command to paste: a folder with a space must stay one word
        lines.append(f"{record.title} saved in {record.path}")
        if record.finished:
            lines.append(f"  replay it: termgames replay {quoted}")
        else:
            lines.append(f"  resume it: termgames play --load {quoted}")
    return lines
