"""The server's lobby: your games, open tables, games to watch, finished games; and new tables.

The lobby reads the hub through ``app.hub`` and acts through the app
(``open_table``, ``create_table``, ``replay_table``), so it never holds a
match: listings show only what everyone may see (names, options, whose turn).
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option, OptionDoesNotExist

from ...clock import clock_text
from ...games import GAMES
from ...match import AI, HUMAN, Seat
from ...rules import RuleError
from ...screens.dialogs import HelpScreen
from ...screens.start import SetupScreen
from ...widgets.footer import Footer
from ..commands import ratings_text, time_left_for, tournament_line
from ..logs import error_line
from ..stores.interface import StoreError
from .profile import ProfileScreen
from .seek_lines import QuickPairingScreen, seek_chosen, seek_options
from .tournament import TournamentScreen

if TYPE_CHECKING:
    from textual import getters

    from .host import ServeHost


def describe_seat(table: Any, seat: Any) -> str:
    """A seat in a lobby line: a player with her rating at this game (``alice 27?``), or what a finished
    rated game did to it (``alice +2.6``); an AI or an open seat as it describes itself."""
    if seat.kind != HUMAN or seat.name is None:
        return str(seat.describe())
    note = table.rating_note(seat.name)
    return f"{seat.name} {note}" if note else str(seat.name)


def describe_table(table: Any, player: str, ascii_only: bool = False) -> Text:
    """One line about a table: number, game, options, rated or casual, seats with ratings (open ones too),
    watchers, whose turn."""
    seats = []
    to_move = set(table.to_move())
    to_move_mark = "> " if ascii_only else "▸ "
    for index, seat in enumerate(table.seats):
        text = describe_seat(table, seat)
        # The mark of the seat to move stands before the name: after it, it ran into a rating ("22?*").
        seats.append(to_move_mark + text if index in to_move else text)
    dot = " - " if ascii_only else " · "
    options = table.describe_options()
    parts: list[Any] = [(f"#{table.id} ", "bold"), (table.game.title, "bold")]
    if options != "standard":
        parts.append(f" ({options})")
    parts.append(dot + ("rated" if table.rated else "casual"))
    parts.append(dot + ", ".join(seats))
    watching = table.spectators()
    if watching:
        parts.append(f"{dot}{len(watching)} watching")
    if table.over:
        parts.append((dot + table.final_status(), "dim"))
    elif table.to_move_for(player):
        left = time_left_for(table, player)
        parts.append((dot + "your move" + (f", {clock_text(left)} left" if left is not None else ""), "bold reverse"))
    return Text.assemble(*parts)


log = logging.getLogger("termgames.server")

#: Seconds between redraws of the time left on her lobby lines (clock_text shows seconds under an hour).
CLOCK_TICK = 1.0

GUEST_HINT = (
    "Guest names last one visit. To keep a name (and your seats) across visits, connect with an SSH key: "
    "ssh -i ~/.ssh/id_ed25519 -p PORT NAME@HOST (ssh-keygen -t ed25519 makes one); the first key claims NAME."
)


class LobbyList(OptionList):
    """The lobby's list: the cursor stops at either end (wrapping round took a player from the last line to a
    table of hers at the top, where Enter claimed a cell)."""

    def action_cursor_up(self) -> None:
        self._step(-1)

    def action_cursor_down(self) -> None:
        self._step(1)

    def _step(self, direction: int) -> None:
        """To the next line that is a table, ``direction`` 1 (down) or -1 (up); none there: stay."""
        options = self.options
        start = self.highlighted if self.highlighted is not None else (-1 if direction > 0 else len(options))
        index = start + direction
        while 0 <= index < len(options):
            if not options[index].disabled:
                self.highlighted = index
                return
            index += direction

    def table_index(self, table_id: int) -> int | None:
        """The line of table ``table_id`` (whichever section lists it now), if listed."""
        return next((index for index, option in enumerate(self.options) if table_of(option) == table_id), None)


def table_of(option: Option | None) -> int | None:
    """The table number of a lobby line (None: a heading, or nothing)."""
    if option is None or option.id is None or option.id.startswith(("seek:", TOURNAMENT_LINE)):  # (not a table)
        return None
    return int(option.id.partition(":")[2])


#: The kind of a lobby line that is a tournament (its id: ``tournament:ID``).
TOURNAMENT_LINE = "tournament:"


def tournament_options(hub: Any, player: str) -> list[Option]:
    """The lobby's "Tournaments" section: every open one, hers marked; Enter shows it."""
    options = [Option(Text("Tournaments: Enter shows standings and your game", style="bold underline"), disabled=True)]
    try:
        listed = hub.tournaments.listing()
    except StoreError as error:
        log.warning("tournaments not listed: %s", error)
        listed = []
    if not listed:
        options.append(Option(Text("  none (tournament new GAME --swiss ROUNDS over SSH)", style="dim"), disabled=True))
    for tournament in listed[:30]:
        mark = "* " if tournament.entry(player) is not None else "  "
        line = Text(f"{mark}T{tournament.id} {tournament_line(tournament)}")
        options.append(Option(line, id=f"{TOURNAMENT_LINE}{tournament.id}"))
    return options


class LobbyScreen(Screen[None]):
    """Every table the player can resume, join, watch or replay, in one list."""

    if TYPE_CHECKING:
        app = getters.app(ServeHost)  # the lobby is only ever a server app's

    DEFAULT_CSS = """
    LobbyScreen { layout: vertical; }
    LobbyScreen #lobby-title { height: 1; text-style: bold; color: $accent; padding: 0 1; margin-top: 1; }
    LobbyScreen #lobby-hint { height: 1; color: $text-muted; padding: 0 1; }
    LobbyScreen OptionList { height: 1fr; border: round $primary-darken-1; margin: 0 1; }
    LobbyScreen OptionList:focus { border: round $accent; }
    """

    BINDINGS = [
        Binding("enter", "open", "Open", key_display="Enter"),
        Binding("n", "new_table", "New table"),
        Binding("w", "watch", "Watch"),
        Binding("r", "ratings", "Ratings"),
        Binding("s", "quick_pairing", "Seek"),
        Binding("p", "profile", "Player page"),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._stale = False
        #: Her tables whose lines show a running clock of hers: redrawn every tick.
        self._clocked: list[Any] = []

    def compose(self) -> ComposeResult:
        app = self.app
        who = f"{app.player} (guest)" if app.guest else app.player
        yield Static(f"termgames  -  signed in as {who}", id="lobby-title", markup=False)
        yield LobbyList(id="tables")
        yield Static("Enter: resume / join / watch / replay   w: watch   n: new table   r: ratings", id="lobby-hint")
        if app.guest:
            # A guest name is random and lasts one visit; a key makes a name that stays.
            yield Static(GUEST_HINT, id="lobby-guest-hint", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_lists()
        self.query_one("#tables", OptionList).focus()
        self.set_interval(CLOCK_TICK, self.tick_clocks)

    def tick_clocks(self) -> None:
        """Her time left counts down on her lines, as at the table (only those lines, only while it shows)."""
        if not self._clocked or self.app.screen is not self:
            return
        listing = self.query_one("#tables", LobbyList)
        for table in self._clocked:
            with contextlib.suppress(OptionDoesNotExist):
                listing.replace_option_prompt(f"mine:{table.id}", self._line(table))

    def on_screen_resume(self) -> None:
        if self._stale:
            self.refresh_lists()

    def lobby_changed(self) -> None:
        # Redrawing a lobby nobody looks at is wasted work on the shared loop: do it when it shows again.
        # News that comes before the lobby's list is made (a busy server) waits for its on_mount.
        if self.app.screen is self and self.query("#tables"):
            self.refresh_lists()
        else:
            self._stale = True

    def refresh_lists(self) -> None:
        self._stale = False
        app = self.app
        hub, player = app.hub, app.player
        listing = self.query_one("#tables", LobbyList)
        # The line under the cursor is a table, not a place in the list: it stays chosen (by its number) when
        # tables come, go or move from one section to another, or a key meant for it would reach another.
        kept = table_of(listing.highlighted_option)
        kept_id = listing.highlighted_option.id if listing.highlighted_option is not None else None
        options: list[Option] = []
        clocked: list[Any] = []
        sections: list[tuple[str, str, list[Any]]] = [
            ("Your games", "mine", hub.my_tables(player)),
            ("Open tables: Enter takes a seat", "open", hub.open_tables(player)),
            ("Being played: Enter watches", "watch", [t for t in hub.watchable_tables(player) if not t.open_seats()]),
            ("Finished: Enter replays", "done", hub.finished_tables(player)[:30]),
        ]
        for heading, kind, tables in sections:
            options.append(Option(Text(heading, style="bold underline"), disabled=True))
            if not tables:
                options.append(Option(Text("  none", style="dim"), disabled=True))
            for table in tables:
                try:
                    line = self._line(table)
                    if kind == "mine" and time_left_for(table, player) is not None:
                        clocked.append(table)
                except Exception as error:  # one table that cannot be drawn must not take the lobby with it
                    log.error("table %s: its lobby line cannot be drawn: %s", table.id, error_line(error))
                    options.append(Option(Text(f"  #{table.id} cannot be shown", style="dim"), disabled=True))
                    continue
                options.append(Option(line, id=f"{kind}:{table.id}"))
            if kind == "watch":
                options.extend(seek_options(hub, player))
        options += tournament_options(hub, player)
        self._clocked = clocked
        listing.clear_options()
        listing.add_options(options)
        target = listing.table_index(kept) if kept is not None else None
        if kept_id is not None and kept_id.startswith(("seek:", TOURNAMENT_LINE)):  # a seek's or a tournament's line
            target = next((i for i, option in enumerate(options) if option.id == kept_id), None)
        if target is None:  # a table's line, never a seek's by itself: Enter there would seek
            target = next((i for i, option in enumerate(options) if table_of(option) is not None), None)
        listing.highlighted = target

    def _line(self, table: Any) -> Text:
        return Text("  ") + describe_table(table, self.app.player, self.app.ascii)

    # -- actions ---------------------------------------------------------------

    def _chosen(self) -> tuple[str, int] | None:
        option = self.query_one("#tables", OptionList).highlighted_option
        if option is None or option.id is None:
            return None
        kind, _, number = option.id.partition(":")
        return kind, int(number)

    def action_cursor_down(self) -> None:
        self.query_one("#tables", OptionList).action_cursor_down()

    def action_cursor_up(self) -> None:
        self.query_one("#tables", OptionList).action_cursor_up()

    def action_open(self) -> None:
        self.query_one("#tables", OptionList).action_select()

    @on(OptionList.OptionSelected, "#tables")
    def table_chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is None:
            return
        kind, _, number = event.option.id.partition(":")
        table_id = int(number)
        app = self.app
        if kind == "seek":
            seek_chosen(app, app.owner, kind, table_id)
            return
        if event.option.id.startswith(TOURNAMENT_LINE):
            app.push_screen(TournamentScreen(table_id))
        elif kind == "done":
            app.replay_table(table_id)
        else:
            app.open_table(table_id, watch=(kind == "watch"))

    def action_watch(self) -> None:
        chosen = self._chosen()
        app = self.app
        if chosen is None or chosen[0] in ("done", "seek", TOURNAMENT_LINE.rstrip(":")):
            self.notify("Choose a game in progress to watch", severity="warning")
            return
        app.open_table(chosen[1], watch=True)

    def action_ratings(self) -> None:
        self.app.push_screen(RatingsScreen(ratings_text(self.app.hub)))

    def action_quick_pairing(self) -> None:
        self.app.push_screen(QuickPairingScreen(self.app))

    def action_profile(self) -> None:
        self.app.push_screen(ProfileScreen(self.app.player))

    def action_new_table(self) -> None:
        self.app.push_screen(GameChoiceScreen(), self._game_chosen)

    def _game_chosen(self, game: str | None) -> None:
        if game:
            self.app.push_screen(CreateTableScreen(game))

    def action_quit(self) -> None:
        self.app.exit()


class RatingsScreen(HelpScreen):
    """Every game's rated accounts, as the ``ratings`` command prints them (a fixed-width table)."""

    BINDINGS = [
        Binding("escape,q,r", "close", "Close"),
        Binding("j,down", "scroll(1)", "Scroll", show=False),
        Binding("k,up", "scroll(-1)", "Scroll", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box", classes="dialog"):
            with VerticalScroll(id="help-scroll"):
                yield Static(self.text, markup=False, id="ratings-text")
            yield Static("Esc, q or r to close", classes="dialog-hint")


class GameChoiceScreen(ModalScreen[str | None]):
    """Which game the new table plays."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small-dialog"):
            yield Static("A new table: which game?", classes="dialog-title")
            yield OptionList(
                *(Option(entry.title, id=name) for name, entry in GAMES.items() if entry.playable),
                id="game-choice",
            )

    @on(OptionList.OptionSelected, "#game-choice")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


RATED_HELP = "rated: the result changes the players' ratings; a computer seat or a guest makes a table casual"


class CreateTableScreen(SetupScreen):
    """The setup form, read as a table's seats: an empty human name is a seat open to anyone.

    One more choice than a local game's: rated or casual (rated by default, casual for a guest)."""

    if TYPE_CHECKING:
        app = getters.app(ServeHost)  # only the lobby opens it

    def on_mount(self) -> None:
        app = self.app
        self.query_one("#setup-title", Static).update(
            f"New table of {self.game.title}: a human seat with no name is open to anyone"
        )
        for seat in range(self.game.max_seats):
            self.query_one(f"#seat-name-{seat}", Input).value = app.player if seat == 0 else ""
            self.query_one(f"#seat-kind-{seat}", Select).value = HUMAN
        kinds = Select(
            [("Rated", "rated"), ("Casual", "casual")],
            value="casual" if app.guest else "rated",
            allow_blank=False,
            id="table-rated",
            compact=True,
        )
        row = Horizontal(Label("Ratings", classes="setup-label"), kinds, Static(RATED_HELP, classes="setup-help"))
        row.add_class("setup-row")
        section = Vertical(row, classes="setup-section")
        section.border_title = "Table"
        self.query_one("#setup-body").mount(section)
        super().on_mount()
        self.call_after_refresh(self.refresh_summary)  # once the choice is mounted

    def refresh_summary(self) -> bool:
        """The summary line says rated or casual too."""
        good = super().refresh_summary()
        choice = self.query("#table-rated")
        if good and choice:
            summary = self.query_one("#setup-summary", Static)
            separator = "  -  " if self.app.ascii else "  ·  "
            summary.update(f"{summary.content}{separator}{'rated' if self.read_rated() else 'casual'}")
        return good

    def read_rated(self) -> bool:
        """Rated as chosen, unless a computer plays a seat: such a table is always casual, nothing to refuse."""
        if self.query_one("#table-rated", Select).value != "rated":
            return False
        return all(seat.kind == HUMAN for seat in self.read_seats())

    def read_seats(self) -> list[Any]:
        seats = []
        for seat in range(self.seat_count()):
            name = self.query_one(f"#seat-name-{seat}", Input).value.strip()
            kind = str(self.query_one(f"#seat-kind-{seat}", Select).value)
            if kind.startswith("ai:"):
                seats.append(Seat(name or f"cpu{seat + 1}", AI, kind.removeprefix("ai:")))
            else:
                seats.append(Seat(name or None))
        self.game.check_seats([seat.name or f"seat-{i}" for i, seat in enumerate(seats, start=1)])
        return seats

    def action_start(self) -> None:
        if not self.refresh_summary():
            return
        app = self.app
        try:
            app.create_table(
                self.game.name, self.read_options(), self.read_seats(), rated=self.read_rated(), clock=self.read_clock()
            )
        except RuleError as problem:
            self.query_one("#setup-error", Static).update(f"! {problem}")
