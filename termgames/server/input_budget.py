"""How much a remote terminal may send, and how big it may say it is: bounds shared by every kind of terminal.

Every app of a server shares one event loop, so one player's input must never
stall the others: an SSH channel (:mod:`.ssh`) and a browser session
(:mod:`termgames.web.session`) both feed their keys through an
:class:`InputBudget`, resize through a :class:`SizeGate` and lay their apps out
within :func:`clamp_size`.  The budgets are a person's (:class:`PersonBudgets`,
by owner: one SSH key, every guest of one address): ten pages and ten SSH
screens of one person draw on what one terminal would.  Imports nothing of
termgames (neither Textual nor asyncssh), so both import it cheaply.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

#: A client may claim any terminal size; the app is never laid out bigger (or smaller) than this.
MAX_SIZE = (240, 80)
MIN_SIZE = (20, 8)
DEFAULT_SIZE = (80, 24)

#: Bytes read from a channel wait at most this much; past it the channel stops reading (SSH flow control
#: then holds the client back).  Also a browser's burst: any one message of the page can be paid for.
MAX_PENDING_INPUT = 16 * 1024
#: Bytes fed to the key parser at once, then the loop serves everyone else.
INPUT_CHUNK = 512
#: Key events one person's terminals may deliver together: a steady rate and a burst (a fast typist makes ~15
#: a second).
KEYS_PER_SECOND = 60.0
KEY_BURST = 240.0
#: Bytes one person's terminals may send in a second together, sustained (a paste of a few lines is far less).
BYTES_PER_SECOND = 8 * 1024
#: A connection whose input stays over its limits this long is closed.
FLOOD_SECONDS = 5.0


#: Resizes one person's terminals may apply, together: a steady rate and a burst.  Each lays a whole screen out
#: again (at 240x80, tens of milliseconds of the loop every player shares); a window dragged wider sends dozens,
#: and only its last size matters (see :class:`SizeGate`).
RESIZES_PER_SECOND = 2.0
RESIZE_BURST = 4.0
#: How long a resize that waits for its person's budget sleeps at most before it looks again.
RESIZE_RECHECK = 0.25


class TokenBucket:
    """``rate`` tokens a second, up to ``burst``; time read from ``clock``."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self._clock = clock
        self._at = clock()

    def wait(self, cost: float) -> float:
        """Take ``cost`` tokens now and return 0, or the seconds until they will be there (nothing taken)."""
        now = self._clock()
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self._at) * self.rate)
        self._at = now
        if self.tokens >= cost:
            self.tokens -= cost
            return 0.0
        return (cost - self.tokens) / self.rate


class PersonBudget:
    """One person's input: every terminal of hers (SSH channels and browser pages together) draws on it."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.keys = TokenBucket(KEYS_PER_SECOND, KEY_BURST, clock)
        self.bytes = TokenBucket(BYTES_PER_SECOND, float(MAX_PENDING_INPUT), clock)
        self.resizes = TokenBucket(RESIZES_PER_SECOND, RESIZE_BURST, clock)
        #: Her terminals open now: the budget is forgotten with the last.
        self.terminals = 0


class PersonBudgets:
    """The budgets of the people with a terminal open on this server, by owner (see :mod:`.people`)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.people: dict[str, PersonBudget] = {}

    def join(self, owner: str) -> InputBudget:
        """The budget of one more terminal of ``owner``'s (:meth:`leave` it when it closes)."""
        person = self.people.get(owner)
        if person is None:
            person = self.people[owner] = PersonBudget(self.clock)
        person.terminals += 1
        return InputBudget(person, self.clock, owner)

    def leave(self, budget: InputBudget) -> None:
        person = self.people.get(budget.owner)
        if person is budget.person and not budget.left:
            budget.left = True
            person.terminals -= 1
            if person.terminals <= 0:
                del self.people[budget.owner]


class InputBudget:
    """One terminal's input: its person's keys and bytes (what runs out is dropped, keys, or waits, bytes) and
    resizes, and whether this terminal floods."""

    def __init__(
        self, person: PersonBudget | None = None, clock: Callable[[], float] = time.monotonic, owner: str = ""
    ) -> None:
        #: Shared by every terminal of one person (a terminal of nobody known has one of its own).
        self.person = person if person is not None else PersonBudget(clock)
        self.owner = owner
        self.left = False
        self._clock = clock
        #: Since when the channel's queue has not emptied after it once filled up (None: it is calm).
        self.over_since: float | None = None

    def take_key(self) -> bool:
        return self.person.keys.wait(1) == 0.0

    def wait_for_bytes(self, count: int) -> float:
        """Seconds to wait before ``count`` more bytes may be fed (0: take them now)."""
        return self.person.bytes.wait(min(count, MAX_PENDING_INPUT))

    def wait_for_resize(self) -> float:
        """Seconds to wait before one more resize may be applied (0: apply it now)."""
        return self.person.resizes.wait(1)

    def flooding(self, pending: int, full: bool) -> bool:
        """True when the queue filled up and has not emptied since, for ``FLOOD_SECONDS``."""
        now = self._clock()
        if pending == 0:
            self.over_since = None
        elif full and self.over_since is None:
            self.over_since = now
        return self.over_since is not None and now - self.over_since > FLOOD_SECONDS


class SizeGate:
    """A terminal's resizes, coalesced: the last size asked for wins, applied when its person's budget allows.

    A flood of resizes (a page that sends sizes 20 times a second from each of ten tabs) thus costs one
    layout per ``1 / RESIZES_PER_SECOND`` seconds for that person, however many her terminals send; a size
    asked for and then taken back before it was applied costs none.
    """

    def __init__(self, budget: InputBudget, apply: Callable[[tuple[int, int]], None], size: tuple[int, int]) -> None:
        self.budget = budget
        self._apply = apply
        #: The size the app was last laid out at.
        self.applied = size
        self._wanted: tuple[int, int] | None = None
        self._handle: asyncio.TimerHandle | None = None

    def request(self, size: tuple[int, int]) -> None:
        self._wanted = size
        if self._handle is None:
            self._try()

    def _try(self) -> None:
        self._handle = None
        wanted = self._wanted
        if wanted is None:
            return
        if wanted == self.applied:
            self._wanted = None
            return
        wait = self.budget.wait_for_resize()
        if wait:
            self._handle = asyncio.get_running_loop().call_later(min(wait, RESIZE_RECHECK), self._try)
            return
        self._wanted = None
        self.applied = wanted
        self._apply(wanted)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._wanted = None


def clamp_size(width: int, height: int) -> tuple[int, int]:
    if width <= 0 or height <= 0:
        return DEFAULT_SIZE
    return (max(MIN_SIZE[0], min(width, MAX_SIZE[0])), max(MIN_SIZE[1], min(height, MAX_SIZE[1])))
