"""Textual over SSH: one app's terminal is one SSH channel, and many apps share the server's loop.

Each interactive channel's :class:`~termgames.server.ui.app.ServeApp` draws
through a :class:`ChannelDriver` (frames go down the channel, keys come up
it).  The pitfalls of hosting several Textual apps on one loop are handled
here: Textual's eager task factory is refused (it hangs asyncssh's
authentication on Python 3.12+), the lone Escape key is flushed by ticking
the key parser, ``print`` capturing (process-wide) is switched off
(:func:`share_the_loop_with_textual`), and drawn lines make no garbage
cycles (:func:`divide_without_cycles`; see :mod:`termgames.server.collector`).
The SSH side, the channel itself, is :mod:`termgames.server.ssh`; it imports
this module once it starts serving.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from textual import events
from textual._styles_cache import StylesCache  # private too (see forget_ended_apps)
from textual._xterm_parser import XTermParser  # private: textual is pinned to a minor range
from textual.driver import Driver
from textual.geometry import Size
from textual.strip import Strip

from ..collector import APPS

#: Parser timeout tick: a lone Escape is delivered after this long.
ESCAPE_TICK = 0.12
#: Identical keys in a row (in one chunk) past this are dropped.
MAX_KEY_REPEAT = 8
#: An app's terminal as it starts: the alternate screen, no cursor, cleared (also a session's that follows
#: another's drawing from sign-in, before the first frame reaches it).
APPLICATION_MODE = "\x1b[?1049h\x1b[?25l\x1b[2J"
#: And as it ends: the screen it had, its cursor.
NORMAL_MODE = "\x1b[?1049l\x1b[?25h"


class KeyBudget(Protocol):
    def take_key(self) -> bool:
        """One more key event now, if the channel's budget holds one."""
        ...


class Channel(Protocol):
    """What the driver needs of the SSH session it draws on (:class:`~termgames.server.ssh.GameSession` is one)."""

    #: Set by the driver: keys and resizes from the channel come to it.
    driver: ChannelDriver | None

    @property
    def size(self) -> tuple[int, int]: ...

    @property
    def input_budget(self) -> KeyBudget: ...

    def write(self, text: str) -> None: ...


class ChannelDriver(Driver):
    """Textual's terminal is one SSH channel: frames go out with ``chan.write``, keys come in through ``feed``."""

    def __init__(
        self,
        app: Any,
        *,
        debug: bool = False,
        mouse: bool = False,
        size: tuple[int, int] | None = None,
        session: Channel,
    ) -> None:
        super().__init__(app, debug=debug, mouse=False, size=size)
        self._session = session
        session.driver = self  # keys and resizes from the channel come here
        self._parser = XTermParser(debug=False)
        self._input = True
        APPS.started()
        self._ended = False
        self._tick_handle: asyncio.TimerHandle | None = None
        # The app's clock if it has one (the server's: the hub's, which a table's clocks count with).
        self._clock: Callable[[], float] = getattr(app, "input_clock", time.time)
        #: When the terminal's latest input reached the server, by that clock (None: none yet): what a move it
        #: makes is charged up to, whatever else the server did before the app could handle it.
        self.received_at: float | None = None

    @property
    def can_suspend(self) -> bool:
        return False

    def write(self, data: str) -> None:
        self._session.write(data)

    def flush(self) -> None:
        """Writes go straight to the channel."""

    def start_application_mode(self) -> None:
        self.write(APPLICATION_MODE)
        self.resize(*self._session.size)

    def stop_application_mode(self) -> None:
        self.disable_input()
        self.write(NORMAL_MODE)

    def disable_input(self) -> None:
        self._input = False
        if self._tick_handle is not None:
            self._tick_handle.cancel()
        if not self._ended:  # (Textual disables input, then stops the application mode, which does it again)
            self._ended = True
            forget_ended_apps()
            APPS.ended_one()

    def note_input(self) -> None:
        """Input has just come in (called where it is read, before it waits for its turn on the loop)."""
        self.received_at = self._clock()

    def feed(self, text: str) -> None:
        if not self._input:
            return
        previous: object = None
        run = 0
        for event in self._parser.feed(text):
            if isinstance(event, events.Key):
                # Coalesce repeats: a held (or flooded) key moves a cursor far enough after a few steps.
                same = previous == (event.key, event.character)
                run = run + 1 if same else 1
                previous = (event.key, event.character)
                if run > MAX_KEY_REPEAT or not self._session.input_budget.take_key():
                    continue
            self.process_message(event)
        if self._tick_handle is not None:
            self._tick_handle.cancel()
        self._tick_handle = self._loop.call_later(ESCAPE_TICK, self._tick)

    def _tick(self) -> None:
        # XTermParser gives a lone Escape only on a timeout, and only a tick notices the timeout.
        self._tick_handle = None
        if self._input:
            for event in self._parser.tick():
                self.process_message(event)

    def resize(self, width: int, height: int) -> None:
        size = Size(width, height)
        self.process_message(events.Resize(size, size))


def forget_ended_apps() -> None:
    """Let an ended app go: two of Textual's caches are ``lru_cache``s on methods, so each keeps the objects it
    was called on, and those hold an app's widgets, so every ended app's stayed in memory until 1,024 newer
    entries pushed them out (every app's, on a server of fewer screens than that):

    * the key parser's, per parser: the parser holds its last key event, which holds the app;
    * ``StylesCache.get_inner_outer``, per widget's line cache: the cache keeps the widget's last lines, a
      torn-down follower's ~550 ``Strip``s (~2.6 MB) (issue 37).

    Both only save a little work (re-parsing a key sequence, making two styles): emptied, they fill again with
    the live apps' entries."""
    XTermParser._parse_extended_key.cache_clear()
    StylesCache.get_inner_outer.cache_clear()


_textual_patched = False


def _no_redirect(_target: object) -> contextlib.nullcontext[None]:
    return contextlib.nullcontext()


def share_the_loop_with_textual(loop: asyncio.AbstractEventLoop) -> None:
    """Make one loop safe for many Textual apps next to asyncssh (see the module doc); once per process."""
    global _textual_patched
    # Textual >= 8 makes the running loop's tasks eager on Python 3.12+, which hangs asyncssh's auth.
    loop.set_task_factory = lambda factory: None  # type: ignore[method-assign]  # patching the loop is the point
    if not _textual_patched:
        import textual.app as textual_app

        # Each app swaps sys.stdout/stderr for its lifetime; overlapping apps would restore them out of order.
        # (Patching Textual's module: the type checker rightly says these are classes, not functions.)
        textual_app.redirect_stdout = _no_redirect  # type: ignore[misc, assignment]  # see the line above
        textual_app.redirect_stderr = _no_redirect  # type: ignore[misc, assignment]  # see the line above
        divide_without_cycles()
        _textual_patched = True


_strips_patched = False


def divide_without_cycles() -> None:
    """Textual's ``Strip.divide`` caches ``[self]`` on the strip itself: every line it draws becomes a cycle.

    The compositor divides every line it renders, and a line that is not cut is
    kept in its own cache, so each such Strip (with its segments and seven
    caches) can only be freed by the cyclic collector; those kept in render
    caches across moves reach the oldest generation first and make full
    collections frequent and slow.  Not caching the uncut case (it costs
    nothing to recompute) leaves 250 cyclic objects a move where there were
    7,000 (a Mono table, 5 screens).
    """
    global _strips_patched
    if _strips_patched:
        return
    divide = Strip.divide

    def divide_uncut_alone(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
        length = self.cell_length
        cuts = [cut for cut in cuts if cut <= length]
        if cuts == [length]:
            return [self]
        return divide(self, cuts)

    Strip.divide = divide_uncut_alone  # type: ignore[method-assign]  # patching Textual's method is the point
    _strips_patched = True
