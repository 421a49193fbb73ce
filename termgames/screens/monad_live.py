"""``termgames monad match ... --watch``: the match runs in a thread, the watch screen follows it live.

The runner (:class:`termgames.ai.monad.match.MonadMatch`) plays as fast as
its bots answer and hands each resolved turn to a :class:`TurnFeed`; the
screen shows the turns at the speed the spectator picks (End jumps to the
newest).  Quitting stops the runner between two turns, which closes its bots.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from textual.app import App

from ..rules.monad import board_json
from ..terminal import wants_ascii
from .monad_watch import (
    WATCH_KEYS,
    MonadWatchScreen,
    TurnFeed,
    players_title,
    watch_turns,
)

#: How long quitting waits for the runner to stop (a program bot may be within its turn time).
STOP_WAIT = 5.0


class _LiveApp(App):
    """The app's look (its stylesheet) around one watch screen."""

    CSS_PATH = str(Path(__file__).resolve().parent.parent / "app.tcss")
    TITLE = "termgames"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, screen: MonadWatchScreen, *, ascii: bool, palette: str) -> None:
        super().__init__()
        self.watch_screen = screen
        self.ascii = ascii
        self.palette = palette

    def on_mount(self) -> None:
        if self.ascii:
            self.add_class("ascii")
        self.push_screen(self.watch_screen)


def _turns(match: Any, feed: TurnFeed) -> Iterator[tuple[Any, Any]]:
    """Turn 0, then each turn the runner resolves; the result line once it is over."""
    yield match.initial, None
    turns = match.turns()
    try:
        for event in turns:
            yield event.board, event.report
    finally:
        turns.close()
    feed.finish(match.result().summary().splitlines()[0])


def watch(match: Any, *, ascii_only: bool | None = None, palette: str = "default") -> Any:
    """Watch ``match`` (a MonadMatch not yet started) in the terminal; its result once the screen closes."""
    ascii_only = wants_ascii(False) if ascii_only is None else ascii_only
    game = match.game
    feed = TurnFeed(match.names, board_json)

    title = players_title(f"{game.title} live", match.names, ascii_only)
    screen = MonadWatchScreen(
        feed, title, live=True, ascii_only=ascii_only, palette=palette, rules=(game.rules_text(), WATCH_KEYS)
    )
    stop = threading.Event()
    thread = watch_turns(feed, _turns(match, feed), stop)
    try:
        _LiveApp(screen, ascii=ascii_only, palette=palette).run()
    finally:
        stop.set()
        thread.join(STOP_WAIT)
        match.close()
    return match.result()
