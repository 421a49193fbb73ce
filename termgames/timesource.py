"""Where termgames reads the time: one object a server (or a test) hands to everything that asks.

A server's hub holds one :class:`TimeSource`; its tables' clocks, the notices and mail, idle tables, sign-in
links and cookies, the input budgets, chat and sign-in limits all read the time from it, so a test drives every
one of them by moving a :class:`ManualTime` instead of sleeping and hoping the machine keeps up.  Two readings:
:meth:`~TimeSource.time`, seconds since the epoch (what clocks and stored times count with), and
:meth:`~TimeSource.monotonic`, which never goes back (what rates and deadlines count with).

Pure Python, the standard library only: every layer may import it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Protocol


class TimeSource(Protocol):
    def time(self) -> float:
        """Seconds since the epoch."""
        ...

    def monotonic(self) -> float:
        """Seconds from some fixed moment, never going back."""
        ...


class SystemTime:
    """The machine's clocks."""

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()


#: The machine's clocks: every time source's default.
SYSTEM = SystemTime()


class ManualTime:
    """A time that moves only when told (:meth:`advance`): for tests, which never sleep to wait for time."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = start
        self._monotonic = 1_000.0

    def time(self) -> float:
        return self._now

    def monotonic(self) -> float:
        return self._monotonic

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time does not go back")
        self._now += seconds
        self._monotonic += seconds


class CallableTime:
    """A time source made of one function of the epoch time (``Hub(now=...)``, as older callers pass): its
    monotonic reading is the same function (a test's time moves forward only)."""

    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now

    def time(self) -> float:
        return self._now()

    def monotonic(self) -> float:
        return self.time()


def utc_now(source: TimeSource) -> datetime:
    """The time ``source`` reads, as an aware UTC datetime (what the stores' ISO texts are made of)."""
    return datetime.fromtimestamp(source.time(), UTC)
