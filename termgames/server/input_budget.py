"""How much a remote terminal may send, and how big it may say it is: bounds shared by every kind of terminal.

Every app of a server shares one event loop, so one player's input must never
stall the others: an SSH channel (:mod:`.ssh`) and a browser session
(:mod:`termgames.web.session`) both feed their keys through an
:class:`InputBudget` and lay their apps out within :func:`clamp_size`.  Imports
nothing of termgames (neither Textual nor asyncssh), so both import it cheaply.
"""

from __future__ import annotations

import time

#: A client may claim any terminal size; the app is never laid out bigger (or smaller) than this.
MAX_SIZE = (240, 80)
MIN_SIZE = (20, 8)
DEFAULT_SIZE = (80, 24)

#: Bytes read from a channel wait at most this much; past it the channel stops reading (SSH flow control
#: then holds the client back).  Also a browser's burst: any one message of the page can be paid for.
MAX_PENDING_INPUT = 16 * 1024
#: Bytes fed to the key parser at once, then the loop serves everyone else.
INPUT_CHUNK = 512
#: Key events a terminal may deliver: a steady rate and a burst (a fast typist makes ~15 a second).
KEYS_PER_SECOND = 60.0
KEY_BURST = 240.0
#: Bytes a terminal may send in a second, sustained (a paste of a few lines is far less).
BYTES_PER_SECOND = 8 * 1024
#: A connection whose input stays over its limits this long is closed.
FLOOD_SECONDS = 5.0


class InputBudget:
    """Token buckets for one terminal's keys and bytes: what runs out is dropped (keys) or waits (bytes)."""

    def __init__(self) -> None:
        now = time.monotonic()
        self.keys = KEY_BURST
        self.bytes = float(MAX_PENDING_INPUT)
        self._keys_at = self._bytes_at = now
        #: Since when the channel's queue has not emptied after it once filled up (None: it is calm).
        self.over_since: float | None = None

    def take_key(self) -> bool:
        now = time.monotonic()
        self.keys = min(KEY_BURST, self.keys + (now - self._keys_at) * KEYS_PER_SECOND)
        self._keys_at = now
        if self.keys < 1:
            return False
        self.keys -= 1
        return True

    def wait_for_bytes(self, count: int) -> float:
        """Seconds to wait before ``count`` more bytes may be fed (0: take them now)."""
        now = time.monotonic()
        self.bytes = min(float(MAX_PENDING_INPUT), self.bytes + (now - self._bytes_at) * BYTES_PER_SECOND)
        self._bytes_at = now
        if self.bytes >= count:
            self.bytes -= count
            return 0.0
        return (count - self.bytes) / BYTES_PER_SECOND

    def flooding(self, pending: int, full: bool) -> bool:
        """True when the queue filled up and has not emptied since, for ``FLOOD_SECONDS``."""
        now = time.monotonic()
        if pending == 0:
            self.over_since = None
        elif full and self.over_since is None:
            self.over_since = now
        return self.over_since is not None and now - self.over_since > FLOOD_SECONDS


def clamp_size(width: int, height: int) -> tuple[int, int]:
    if width <= 0 or height <= 0:
        return DEFAULT_SIZE
    return (max(MIN_SIZE[0], min(width, MAX_SIZE[0])), max(MIN_SIZE[1], min(height, MAX_SIZE[1])))
