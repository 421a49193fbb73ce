"""What the terminal can show: whether the locale and the streams take UTF-8, or glyphs must be ASCII.

The standard library only: the CLI asks before it starts the app, and screens started by other
commands (``termgames monad match --watch``) ask the same question the same way.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

#: What Python writes into LC_CTYPE when it coerces a C locale (PEP 538).
COERCED_CTYPES = ("C.UTF-8", "C.utf8", "UTF-8")


def locale_is_utf8(environ: Mapping[str, str], coerced: bool = False) -> bool | None:
    """Whether the locale ``environ`` names (LC_ALL, then LC_CTYPE, then LANG, as POSIX reads them) is UTF-8.

    None when none of them is set (the C locale, for POSIX).  ``C`` and
    ``POSIX`` are ASCII; a locale without a charset (``en_US``) has its
    language's old 8-bit one.  ``coerced``: Python wrote LC_CTYPE itself at
    start-up (see :func:`python_coerced_locale`), so the user's is not there.
    """
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = environ.get(name, "")
        if name == "LC_CTYPE" and coerced and value in COERCED_CTYPES:
            continue
        if value:
            charset = value.partition(".")[2].partition("@")[0]
            return charset.lower().replace("-", "") == "utf8"
    return None


def python_coerced_locale() -> bool:
    """Whether Python found the C locale at start-up and hid it (PEP 538 and 540).

    Python then switches on its UTF-8 mode by itself and may write
    ``LC_CTYPE=C.UTF-8`` into its own environment: neither the streams'
    encoding nor LC_CTYPE tell what the user set any more.  UTF-8 mode that
    nobody asked for (``PYTHONUTF8``, ``-X utf8``) gives it away.
    """
    asked = "PYTHONUTF8" in os.environ or "utf8" in getattr(sys, "_xoptions", {})
    return bool(sys.flags.utf8_mode) and not asked


def wants_ascii(flag: bool) -> bool:
    """ASCII glyphs when asked (``--ascii``), or when the locale (``LANG=C``...) or the terminal cannot take UTF-8."""
    if flag or not locale_is_utf8(os.environ, python_coerced_locale()):
        return True
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if encoding and encoding != "utf8":
            return True
    return False
