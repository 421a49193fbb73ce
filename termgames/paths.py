"""Where termgames keeps its files."""

from __future__ import annotations

import os
from pathlib import Path

SAVES_ENV = "TERMGAMES_SAVES"


def data_dir() -> Path:
    """The platform's user data folder for termgames (platformdirs knows each OS's convention)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("termgames", appauthor=False))


def saves_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """``--saves DIR``, else ``$TERMGAMES_SAVES``, else the user data folder's ``saves``."""
    if override:
        return Path(override).expanduser()
    env = os.environ.get(SAVES_ENV)
    if env:
        return Path(env).expanduser()
    return data_dir() / "saves"


def bundled_saves() -> Path:
    """The sample records that ship with termgames (the repo's ``saves/``)."""
    return Path(__file__).resolve().parent.parent / "saves"
