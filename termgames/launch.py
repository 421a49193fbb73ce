"""What the TUI should open first: a plain value the CLI builds without importing Textual."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .match import Match


@dataclass(frozen=True)
class Launch:
    """``start``: the start screen; ``setup``: the setup screen of ``game`` with ``options``;
    ``play``: the game screen for ``match`` saved to ``save_path``; ``replay``: the replay screen."""

    kind: Literal["start", "setup", "play", "replay"]
    game: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    match: Match | None = None
    save_path: Path | None = None
    source: str = ""
