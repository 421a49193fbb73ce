"""Where termgames keeps its files."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

SAVES_ENV = "TERMGAMES_SAVES"
PREFERENCES_ENV = "TERMGAMES_PREFERENCES"


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


def preferences_path() -> Path:
    """``$TERMGAMES_PREFERENCES``, else ``preferences.json`` in the platform's user config folder."""
    env = os.environ.get(PREFERENCES_ENV)
    if env:
        return Path(env).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("termgames", appauthor=False)) / "preferences.json"


def bundled_saves() -> Path:
    """The sample records that ship with termgames (the repo's ``saves/``)."""
    return Path(__file__).resolve().parent.parent / "saves"


def write_atomically(
    path: Path, data: bytes | Callable[[BinaryIO], object], mode: int | None = None, private: bool = False
) -> None:
    """Replace ``path`` with ``data`` whole: the old file stays intact until the new one is complete.

    ``data`` is the bytes, or a function that writes them to the file it is given (for contents too
    large to hold twice in memory).  ``mode`` None keeps mkstemp's 0600 (private files: caches, keys).
    A symlink is written through: its target is replaced and the link stays a link.

    ``private``: a file of this user's own, in a folder of its own.  A symlink at ``path`` is replaced,
    never followed (in a shared folder another user could plant one to make us overwrite a file of ours),
    and a folder another user owns is refused with :class:`PermissionError` (they could swap the file).
    """
    if private:
        path = Path(os.path.abspath(path))
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        owner = os.stat(path.parent).st_uid
        if hasattr(os, "geteuid") and owner != os.geteuid():
            raise PermissionError(f"{path.parent} is not this user's own folder (its owner is uid {owner})")
    else:
        path = Path(os.path.realpath(path))
        path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # The file object owns the descriptor from here on, so every failure below closes it.
        with os.fdopen(handle, "wb") as out:
            if mode is not None:
                os.chmod(temporary, mode)
            if callable(data):
                data(out)
            else:
                out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


class FileRefused(Exception):
    """A file :func:`read_regular` does not read, and why, in a few words (no such file, a folder, a FIFO, too
    large, what the system said)."""


def read_regular(path: str | os.PathLike[str], limit: int, what: str = "regular file") -> bytes:
    """The bytes of the regular file at ``path`` (a symlink to one is fine), of at most ``limit`` bytes; else
    :class:`FileRefused`.  ``what``: the kind of file a folder is not ("record", ...).

    A FIFO, a device (``/dev/zero``) or a folder is refused at once: the file is opened without blocking and
    checked before anything is read, and never more than the limit is read (a file that grows meanwhile too).
    """
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise FileRefused("no such file") from None
    except IsADirectoryError:
        raise FileRefused(f"is a folder, not a {what}") from None
    except OSError as error:
        raise FileRefused(error.strerror or str(error)) from None
    try:
        info = os.fstat(handle)
        if stat.S_ISDIR(info.st_mode):
            raise FileRefused(f"is a folder, not a {what}")
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused("not a regular file")
        if info.st_size > limit:
            raise FileRefused(f"too large ({info.st_size} bytes; termgames reads at most {limit})")
        os.set_blocking(handle, True)
        with os.fdopen(handle, "rb", closefd=False) as stream:
            raw = stream.read(limit + 1)
    except OSError as error:
        raise FileRefused(error.strerror or str(error)) from None
    finally:
        os.close(handle)
    if len(raw) > limit:  # it grew while it was read
        raise FileRefused(f"too large (termgames reads at most {limit} bytes)")
    return raw
