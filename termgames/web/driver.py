"""Textual's terminal as one browser session: the SSH server's channel driver, with the mouse and the page's news.

The SSH server's :class:`~termgames.server.ui.driver.ChannelDriver` already is what
an in-process app needs of a remote terminal: frames go to its session's
``write``, keys come in through ``feed`` (bounded by the session's
``input_budget``, repeats coalesced, a lone Escape flushed by a tick), and a
resize is an event.  A browser session is one more such terminal, so this
driver is that one with what a page adds:

* the mouse (clicks and the wheel, no motion: xterm.js reports them; a tap on
  a footer key presses it) and bracketed paste (a pasted name arrives whole);
* the page's news (:mod:`.screen_info`): when the screen changes or its keys
  do, the session hears of it and tells the page;
* a whole screen again on request: a browser that comes back after a dropped
  connection (or a reload) has an empty terminal.
"""

from __future__ import annotations

import weakref
from typing import Any, Protocol

from textual.app import App
from textual.screen import Screen

from ..server.ui.driver import Channel, ChannelDriver


class Page(Channel, Protocol):
    """A channel that is a browser page (:class:`~.session.BrowserSession`): it also shows what the screen is."""

    def screen_changed(self, app: App[Any]) -> None:
        """The app's screen or its keys changed (called in the app's own context)."""
        ...


#: Terminal modes a page's terminal needs: the alternate screen, no cursor, mouse clicks (SGR coordinates, so
#: columns past 223 work) and bracketed paste.  Written at start and again to a browser that comes back.
PAGE_MODES = "\x1b[?1049h\x1b[?25l\x1b[?1000h\x1b[?1006h\x1b[?2004h"
#: And cleared: the app has closed.
PAGE_MODES_OFF = "\x1b[?2004l\x1b[?1006l\x1b[?1000l\x1b[?25h\x1b[?1049l"


class BrowserDriver(ChannelDriver):
    """The driver of an app whose terminal is a browser page."""

    def __init__(
        self,
        app: Any,
        *,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
        session: Page,
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size, session=session)
        self.page = session
        self._watched: weakref.WeakSet[Screen[Any]] = weakref.WeakSet()

    def start_application_mode(self) -> None:
        self.write(PAGE_MODES + "\x1b[2J")
        self.resize(*self.page.size)
        self._app.call_later(self._watch_screens)

    def stop_application_mode(self) -> None:
        self.disable_input()
        self.write(PAGE_MODES_OFF)

    def redraw(self) -> None:
        """Draw the whole screen again, modes first (a new page's terminal has none of them)."""
        self.write(PAGE_MODES + "\x1b[2J")
        self._app.call_later(self._repaint)

    def _repaint(self) -> None:
        self._app.screen.refresh()

    # -- the page's news: which screen, which keys ---------------------------------

    def _watch_screens(self) -> None:
        app = self._app
        app.screen_change_signal.subscribe(app, self._screen_changed)
        self._screen_changed(app.screen)

    def _screen_changed(self, screen: Screen[Any]) -> None:
        if screen not in self._watched:
            self._watched.add(screen)
            screen.bindings_updated_signal.subscribe(self._app, self._bindings_changed)
        self._app.call_after_refresh(self.page.screen_changed, self._app)

    def _bindings_changed(self, screen: Screen[Any]) -> None:
        if screen is self._app.screen:
            self.page.screen_changed(self._app)
