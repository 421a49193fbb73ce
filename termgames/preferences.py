"""The player's preferences: a small JSON file kept between sessions (today: the computer players' pace).

Read once when the app starts, written whole (atomically) when the player
changes a setting.  The file comes from disk, so it is checked when read: a
file that is not what termgames writes gives one line of warning and the
defaults, never a crash (and is replaced on the next change of setting).
Imports nothing heavy: the CLI reads it before Textual starts.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from .paths import write_atomically

#: The computer players' paces, slowest last, with how long each keeps an AI move "thinking" as a multiple
#: of the game's own ``Game.ai_move_seconds`` (instant: no artificial delay at all; the bot still thinks).
PACE_FACTORS: dict[str, float] = {"instant": 0.0, "normal": 1.0, "slow": 2.5}
PACES: tuple[str, ...] = tuple(PACE_FACTORS)
DEFAULT_PACE = "normal"
#: Bigger than this is no preferences file termgames wrote.
MAX_BYTES = 64 * 1024
FORMAT_VERSION = 1


def next_pace(pace: str) -> str:
    """The pace after ``pace`` in :data:`PACES`, round again after the last (an unknown one gives the first)."""
    index = PACES.index(pace) if pace in PACES else -1
    return PACES[(index + 1) % len(PACES)]


def check_pace(text: str) -> str:
    """``text`` as a pace name; ValueError naming the paces otherwise."""
    pace = text.strip().lower()
    if pace not in PACE_FACTORS:
        raise ValueError(f"the pace must be {', '.join(PACES[:-1])} or {PACES[-1]}, not {text!r}")
    return pace


@dataclass(frozen=True)
class Preferences:
    pace: str = DEFAULT_PACE

    def with_pace(self, pace: str) -> Preferences:
        return replace(self, pace=check_pace(pace))


def load_preferences(path: Path) -> tuple[Preferences, str]:
    """The preferences at ``path`` and a warning ("" when none): no file gives the defaults, silently; a file
    that cannot be read or is not what termgames writes gives the defaults and a one-line warning."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return Preferences(), ""
    except OSError as error:
        return Preferences(), _warning(path, error.strerror or str(error))
    if len(data) > MAX_BYTES:
        return Preferences(), _warning(path, f"larger than {MAX_BYTES // 1024} kB")
    try:
        stored = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return Preferences(), _warning(path, "not JSON")
    if not isinstance(stored, dict):
        return Preferences(), _warning(path, "not a JSON object")
    if stored.get("version", FORMAT_VERSION) != FORMAT_VERSION:
        return Preferences(), _warning(path, f"version {stored.get('version')!r}, not {FORMAT_VERSION}")
    pace = stored.get("pace", DEFAULT_PACE)
    if not isinstance(pace, str) or pace not in PACE_FACTORS:
        return Preferences(), _warning(path, f"pace {str(pace)[:20]!r} is not one of {', '.join(PACES)}")
    return Preferences(pace=pace), ""


def save_preferences(path: Path, preferences: Preferences) -> None:
    """Write ``preferences`` to ``path`` whole (the old file stays intact until the new one is complete)."""
    text = json.dumps({"version": FORMAT_VERSION, **asdict(preferences)}, indent=2) + "\n"
    write_atomically(path, text.encode("utf-8"), mode=0o644)


def _warning(path: Path, reason: str) -> str:
    return f"Preferences in {path} ignored ({reason}): using the defaults"
