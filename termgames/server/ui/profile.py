"""A player's page in the lobby (``p``): per game her rating and its history as a chart, her results by opponent,
her streaks, and her recent games (Enter replays one).  The page is :func:`~termgames.server.profile.player_profile`,
what ``ssh HOST profile NAME`` prints."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ...player_stats import chart_rows, summary_lines
from ...rules import RuleError, get_game
from ...untrusted import printable
from ...widgets.footer import Footer
from ..profile import PROFILE_TABLES, safe_profile

if TYPE_CHECKING:
    from textual import getters

    from .host import ServeHost

#: Rows of a game's rating chart.
CHART_HEIGHT = 4
#: What the list's border, its padding and the chart's label take from the screen's width.
CHART_MARGIN = 14


class ProfileScreen(Screen[None]):
    """One player's page; ``/`` asks for another player's."""

    if TYPE_CHECKING:
        app = getters.app(ServeHost)  # only the lobby opens it

    DEFAULT_CSS = """
    ProfileScreen { layout: vertical; }
    ProfileScreen #profile-title { height: 1; text-style: bold; color: $accent; padding: 0 1; }
    ProfileScreen #profile-name { height: 1; border: none; padding: 0 1; margin: 0 1; }
    ProfileScreen #profile-page { height: 1fr; border: round $primary-darken-1; margin: 0 1; }
    ProfileScreen #profile-page:focus { border: round $accent; }
    """

    BINDINGS = [
        Binding("enter", "replay", "Replay", key_display="Enter"),
        Binding("slash", "ask_name", "Other player", key_display="/"),
        Binding("escape,q", "close", "Back"),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    def __init__(self, player: str) -> None:
        super().__init__()
        self.player = player
        self.page: dict[str, Any] | None = None
        self.problem = ""

    def compose(self) -> ComposeResult:
        yield Static("", id="profile-title", markup=False)
        yield Input(placeholder="/ : another player's name, then Enter", id="profile-name", max_length=40)
        yield OptionList(id="profile-page")
        yield Footer()

    def on_mount(self) -> None:
        self.load(self.player)
        self.query_one("#profile-page", OptionList).focus()

    def on_resize(self, event: events.Resize) -> None:
        self.show_page()  # the charts are as wide as the screen

    def load(self, name: str) -> None:
        self.player = name
        try:
            self.page = safe_profile(self.app.hub, name)
            self.problem = "" if self.page is not None else "the database cannot be reached just now: try again"
        except RuleError as error:
            self.page, self.problem = None, str(error)
        self.show_page()

    def show_page(self) -> None:
        if not self.is_mounted:
            return
        dot = " - " if self.app.ascii else " · "
        name = self.page["name"] if self.page else self.player
        self.query_one("#profile-title", Static).update(
            printable(f"Player page: {name}{dot}her last {PROFILE_TABLES} games", keep_newlines=False)
        )
        listing = self.query_one("#profile-page", OptionList)
        chosen = listing.highlighted_option.id if listing.highlighted_option is not None else None
        listing.clear_options()
        listing.add_options(self.options(dot))
        # The recent game chosen stays chosen when the page is drawn again (a resize); else the newest.
        choices = [i for i, option in enumerate(listing.options) if not option.disabled]
        kept = [i for i in choices if listing.options[i].id == chosen]
        listing.highlighted = (kept or choices)[0] if choices else None

    def options(self, dot: str) -> list[Option]:
        """The page as list lines: only a recent game's line can be chosen."""
        def line(text: str, style: str = "") -> Option:
            return Option(Text(printable(text, keep_newlines=False), style=style), disabled=True)

        if self.page is None:
            return [line(f"! {self.problem}", "bold")]
        page = self.page
        lines: list[Option] = []
        if not page["games"]:
            lines.append(line("No finished games yet.", "dim"))
        width = max(8, self.size.width - CHART_MARGIN)
        sigma = "sigma" if self.app.ascii else "σ"
        for game, counts in page["games"].items():
            title = get_game(game).title
            if counts["rating"] is None:
                lines.append(line(f"{title}{dot}not rated", "bold underline"))
            else:
                heading = f"{title}{dot}rating {counts['rating']:.1f} ({sigma} {counts['sigma']:.2f}){dot}"
                lines.append(line(heading + f"{counts['rated_games']} rated games", "bold underline"))
                values = [mu for _, mu in counts["history"]]
                lines.extend(line(row) for row in chart_rows(values, width, CHART_HEIGHT, self.app.ascii))
            lines.extend(line(text) for text in summary_lines(counts))
        lines.append(line("Recent games: Enter replays", "bold underline"))
        if not page["recent"]:
            lines.append(line("  none", "dim"))
        for entry in page["recent"]:
            lines.append(Option(self.recent_line(entry, dot), id=f"recent:{entry['table']}"))
        return lines

    @staticmethod
    def recent_line(entry: dict[str, Any], dot: str) -> Text:
        # The result is a word: bold for a win, dim for a loss, never a colour alone.
        style = {"won": "bold", "lost": "dim"}.get(entry["result"], "")
        change = f" {entry['change']:+.1f}" if "change" in entry else ""
        players = " vs ".join(entry["players"])
        return Text.assemble(
            f"  #{entry['table']} {get_game(entry['game']).title}{dot}",
            (f"{entry['result']}{change}", style),
            printable(f"{dot}{'rated' if entry['rated'] else 'casual'}{dot}{players}", keep_newlines=False),
            (f"{dot}{entry['ended'][:16].replace('T', ' ')}", "dim"),
        )

    # -- actions ---------------------------------------------------------------

    def action_replay(self) -> None:
        option = self.query_one("#profile-page", OptionList).highlighted_option
        if option is None or option.id is None:
            self.notify("Choose a recent game to replay", severity="warning")
            return
        self.app.replay_table(int(option.id.partition(":")[2]))

    @on(OptionList.OptionSelected, "#profile-page")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.app.replay_table(int(event.option.id.partition(":")[2]))

    def action_ask_name(self) -> None:
        self.query_one("#profile-name", Input).focus()

    @on(Input.Submitted, "#profile-name")
    def name_given(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        event.input.value = ""
        self.query_one("#profile-page", OptionList).focus()
        if name:
            self.load(name)

    def action_cursor_down(self) -> None:
        self.query_one("#profile-page", OptionList).action_cursor_down()

    def action_cursor_up(self) -> None:
        self.query_one("#profile-page", OptionList).action_cursor_up()

    def action_close(self) -> None:
        self.app.pop_screen()
