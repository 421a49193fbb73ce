"""A tournament's screen: its standings with their tiebreaks, the rounds, and the player's next game.

Enter goes to her game of the round under way (``app.open_table``); ``j`` enters the tournament, ``x`` leaves
it (once under way: withdraws).  The text is ``tournament show ID``'s (:func:`~..commands.tournament_text`), read
again from the store every :data:`REFRESH_SECONDS` (another server may have paired the next round).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from ...rules import RuleError
from ...widgets.footer import Footer
from ..commands import tournament_text
from ..stores.interface import StoreError

if TYPE_CHECKING:
    from textual import getters

    from .host import ServeHost

#: Seconds between two readings of the tournament while its screen shows.
REFRESH_SECONDS = 2.0


class TournamentScreen(Screen[None]):
    """One tournament, as ``tournament show`` prints it, and a way to its player's next game."""

    if TYPE_CHECKING:
        app = getters.app(ServeHost)  # only ever a server app's

    DEFAULT_CSS = """
    TournamentScreen #tournament-scroll { height: 1fr; border: round $primary-darken-1; margin: 0 1; }
    TournamentScreen #tournament-hint { height: 1; color: $text-muted; padding: 0 1; }
    """

    BINDINGS = [
        Binding("enter", "next_game", "Your game", key_display="Enter"),
        Binding("j", "join", "Join"),
        Binding("x", "leave", "Leave"),
        Binding("escape,q", "back", "Lobby"),
    ]

    def __init__(self, tournament_id: int) -> None:
        super().__init__()
        self.tournament_id = tournament_id
        self._text = ""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="tournament-scroll"):
            yield Static("", id="tournament-text", markup=False)
        yield Static("Enter: your game   j: join   x: leave   Esc: lobby", id="tournament-hint")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_text()
        self.set_interval(REFRESH_SECONDS, self.refresh_text)

    def refresh_text(self) -> None:
        try:
            tournament = self.app.hub.tournaments.get(self.tournament_id)
            text = tournament_text(tournament, self.app.player)
        except (RuleError, StoreError) as error:
            text = f"Tournament {self.tournament_id} cannot be shown: {error}"
        if text != self._text:
            self._text = text
            self.query_one("#tournament-text", Static).update(text)

    def action_next_game(self) -> None:
        try:
            table_id = self.app.hub.tournaments.get(self.tournament_id).next_game(self.app.player)
        except (RuleError, StoreError) as error:
            self.notify(str(error), severity="warning")
            return
        if table_id is None:
            self.notify("No game of yours yet: it opens when the round is paired", severity="warning")
            return
        self.app.open_table(table_id)

    def action_join(self) -> None:
        self._act(lambda: self.app.hub.tournaments.join(
            self.tournament_id, self.app.player, self.app.owner or self.app.hub.owner_of(self.app.player)
        ), "You are in")

    def action_leave(self) -> None:
        self._act(lambda: self.app.hub.tournaments.leave(self.tournament_id, self.app.player), "You left")

    def _act(self, act: Callable[[], object], done: str) -> None:
        try:
            act()
        except (RuleError, StoreError) as error:
            self.notify(str(error), severity="error")
            return
        self.notify(f"{done}: tournament {self.tournament_id}")
        self.refresh_text()

    def action_back(self) -> None:
        self.dismiss()
