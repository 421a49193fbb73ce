"""What the server writes to its log about a failure: one line that says what and why, nothing more.

A table's seed and hidden boards live in the local variables of the code that
serves it: a traceback that shows locals (Rich's, which Textual prints when an
app fails) would write them to the log.  The server logs an exception as one
line (:func:`error_line`), or with Python's plain traceback (``exc_info``),
which names code and lines only.

Imports nothing of the server: the store, the hub and the apps all use it.
"""

from __future__ import annotations

from ..untrusted import printable

#: The longest reason a log line quotes.
REASON_MAX = 300


def error_line(error: BaseException) -> str:
    """``OverflowError: int too large to convert to float``: the error's kind and the first line of its message,
    printable and at most :data:`REASON_MAX` characters."""
    message = str(error).strip().splitlines()
    text = type(error).__name__ + (f": {message[0]}" if message else "")
    text = printable(text, keep_newlines=False)
    return text if len(text) <= REASON_MAX else text[: REASON_MAX - 3] + "..."
