"""The front door: choose a game, resume or replay a saved one, and set up a new game.

Both screens talk to the app only through ``open_game``, ``open_replay`` and
``open_setup`` and read ``app.saves_dir``.  The network lobby's form for a new
table (``CreateTableScreen`` in :mod:`.lobby`) is the setup screen with its
seats read as a table's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import (
    Button,
    Checkbox,
    Input,
    Label,
    OptionList,
    Select,
    Static,
)
from textual.widgets.option_list import Option

from ..clock import GRAMMAR, ClockSpec, parse_clock
from ..games import GAMES
from ..match import AI, HUMAN, Match, Seat, random_seed
from ..paths import bundled_saves
from ..records import RecordError, clear_stale_locks, load, new_save_path
from ..rules import RuleError, get_game
from ..rules.base import OptionSpec, default_seat_names
from ..widgets.footer import Footer
from ..widgets.form import OrderedInput, TickBox
from ..widgets.palette import use_ascii_scrollbars
from .base import NARROW_WIDTH, AppScreen

# --------------------------------------------------------------------------
# Saved games
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class SavedGame:
    """One record file, read once: its match, or the one-line reason it cannot be read."""

    path: Path
    modified: float
    sample: bool
    match: Match | None = None
    error: str = ""

    @property
    def unfinished(self) -> bool:
        return self.match is not None and not self.match.over

    def summary(self) -> str:
        match = self.match
        if match is None:
            return self.error
        state = match.state
        if match.over:
            winners = match.winners()
            if match.ended_by == "time":
                return f"finished: {match.names[winners[0]]} won on time"
            scores = state.scores()
            best = int(scores[winners[0]])
            others = sorted((int(s) for i, s in enumerate(scores) if i not in winners), reverse=True)
            score = "-".join(str(x) for x in [best, *others]) if others else str(best)
            if len(winners) > 1:
                return f"finished: tie {score}"
            return f"finished: {match.names[winners[0]]} won {score}"
        movers = " and ".join(match.names[s] for s in state.to_move())
        return f"in progress: {state.progress()}, {movers} to move"

    def title(self) -> str:
        if self.match is None:
            return self.path.name
        players = " vs ".join(seat.name or "(open)" for seat in self.match.seats)
        return f"{self.match.game.title}: {players}"


def read_saved_games(folder: Path, samples: Path | None) -> list[SavedGame]:
    """Every record in ``folder`` (newest first), then the bundled samples."""
    found: list[SavedGame] = []
    if folder.is_dir():
        clear_stale_locks(folder)
    for directory, sample in ((folder, False), (samples, True)):
        if directory is None or not directory.is_dir():
            continue
        games = []
        for path in directory.glob("*.json"):
            try:
                modified = path.stat().st_mtime
            except OSError:
                continue
            try:
                games.append(SavedGame(path, modified, sample, match=load(path)))
            except RecordError as error:
                games.append(SavedGame(path, modified, sample, error=str(error).removeprefix(f"{path}: ")))
        games.sort(key=lambda game: (-game.modified, game.path.name))
        found += games
    return found


# --------------------------------------------------------------------------
# Start screen
# --------------------------------------------------------------------------


class StartScreen(AppScreen[None]):
    """Pick a game to set up, or a saved game to resume or replay."""

    DEFAULT_CSS = """
    StartScreen { layout: vertical; }
    StartScreen #start-title { height: 3; content-align: center middle; text-style: bold; color: $accent; }
    StartScreen #start-body { height: 1fr; }
    StartScreen .start-column { width: 1fr; height: 1fr; padding: 0 1; }
    StartScreen .start-heading { text-style: bold; color: $text-muted; padding: 0 1; }
    /* The scroll bar's room kept from the start: entries are measured at the width they are drawn at (a bar
       that came later narrowed them, and a wrapped title took its entry's last line). */
    StartScreen OptionList { height: 1fr; border: round $primary-darken-1; scrollbar-gutter: stable; }
    StartScreen OptionList:focus { border: round $accent; }
    StartScreen #start-hint { height: 1; color: $text-muted; padding: 0 2; }
    """

    BINDINGS = [
        Binding("enter", "open", "Open", show=True, priority=False),
        Binding("r", "replay", "Replay"),
        Binding("tab", "app.focus_next", "Switch list", show=True),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("p", "pace", "Pace", tooltip="the computer players' pace: instant, normal or slow (kept)"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.saved: list[SavedGame] = []

    def hint(self) -> str:
        pace = getattr(self.app, "pace", "normal")
        return f"Enter: set up / resume   r: replay   Tab: other list   p: pace ({pace})"

    def compose(self) -> ComposeResult:
        yield Static("termgames", id="start-title")
        with Horizontal(id="start-body"):
            with Vertical(classes="start-column"):
                yield Label("New game", classes="start-heading")
                yield OptionList(
                    *(
                        Option(Text.assemble((entry.title, "bold"), "\n", (entry.blurb, "dim")), id=name)
                        for name, entry in GAMES.items()
                        if entry.playable
                    ),
                    id="games",
                )
            with Vertical(classes="start-column"):
                yield Label("Saved games", classes="start-heading")
                yield OptionList(Option("reading saved games...", disabled=True), id="saved")
        yield Static(self.hint(), id="start-hint")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#games", OptionList).focus()
        self.load_saved_games()
        if getattr(self.app, "ascii", False):
            use_ascii_scrollbars(self)

    @work(thread=True, exclusive=True, group="saved-games")
    def load_saved_games(self) -> None:
        games = read_saved_games(Path(self.app.saves_dir), bundled_saves())
        self.app.call_from_thread(self.show_saved_games, games)

    def show_saved_games(self, games: list[SavedGame]) -> None:
        self.saved = games
        listing = self.query_one("#saved", OptionList)
        listing.clear_options()
        if not games:
            listing.add_option(Option("no saved games yet", disabled=True))
            return
        for index, game in enumerate(games):
            when = datetime.fromtimestamp(game.modified).strftime("%d %b %H:%M")
            tag = "sample" if game.sample else when
            style = "dim" if game.match is None else ""
            prompt = Text.assemble((game.title(), "bold " + style), f"  {tag}\n", (game.summary(), "dim"))
            listing.add_option(Option(prompt, id=str(index)))
        listing.highlighted = 0

    # -- actions -------------------------------------------------------------

    def _focused_list(self) -> OptionList | None:
        focused = self.focused
        return focused if isinstance(focused, OptionList) else None

    def _highlighted_saved(self) -> SavedGame | None:
        listing = self.query_one("#saved", OptionList)
        if listing.highlighted is None:
            return None
        option = listing.get_option_at_index(listing.highlighted)
        if option.id is None:
            return None
        return self.saved[int(option.id)]

    def action_cursor_down(self) -> None:
        if (listing := self._focused_list()) is not None:
            listing.action_cursor_down()

    def action_cursor_up(self) -> None:
        if (listing := self._focused_list()) is not None:
            listing.action_cursor_up()

    def action_open(self) -> None:
        listing = self._focused_list()
        if listing is not None and listing.highlighted is not None:
            listing.action_select()

    @on(OptionList.OptionSelected, "#games")
    def game_chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:  # every game's option has its name as its id
            self.app.open_setup(event.option.id)

    @on(OptionList.OptionSelected, "#saved")
    def saved_chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is None:
            return
        game = self.saved[int(event.option.id)]
        if game.match is None:
            self.notify(game.error, title="Cannot open this record", severity="error")
        elif game.unfinished:
            self.resume(game)
        else:
            self.app.open_replay(game.match, str(game.path))

    def resume(self, game: SavedGame) -> None:
        assert game.match is not None
        # A sample ships with termgames and stays pristine: open_game plays a copy (records.played_from).
        self.app.open_game(game.match, game.path)

    def action_pace(self) -> None:
        pace = self.app.cycle_pace()
        self.query_one("#start-hint", Static).update(self.hint())
        self.notify(f"Computer players' pace: {pace}", timeout=2)

    def action_replay(self) -> None:
        game = self._highlighted_saved()
        if game is None or self.focused is not self.query_one("#saved", OptionList):
            self.notify("Choose a saved game on the right to replay it", severity="warning")
            return
        if game.match is None:
            self.notify(game.error, title="Cannot open this record", severity="error")
            return
        self.app.open_replay(game.match, str(game.path))

    def on_screen_resume(self) -> None:
        # Coming back from a game: its record has changed.
        self.load_saved_games()


# --------------------------------------------------------------------------
# Setup screen
# --------------------------------------------------------------------------


class SetupScreen(AppScreen[None]):
    """Options and seats for a new game of one kind."""

    DEFAULT_CSS = """
    SetupScreen { layout: vertical; }
    SetupScreen #setup-title { height: 1; text-style: bold; color: $accent; padding: 0 2; margin-top: 1; }
    SetupScreen #setup-summary { height: 1; color: $text-muted; padding: 0 2; }
    SetupScreen #setup-body { height: 1fr; padding: 0 1; }
    SetupScreen .setup-section { border: round $primary-darken-1; height: auto; padding: 0 1; margin-bottom: 0; }
    SetupScreen .setup-row { height: auto; margin: 0 0 1 0; }
    SetupScreen .setup-label { width: 14; }
    SetupScreen .setup-help { color: $text-muted; padding: 0 0 0 2; width: 1fr; }
    /* Narrow: a field's help under it, its whole width, not squeezed beside it two letters a line. */
    SetupScreen.narrow .with-help { layout: grid; grid-size: 2; grid-columns: 14 1fr; grid-rows: auto; }
    SetupScreen.narrow .setup-help { column-span: 2; padding: 0; height: auto; }
    SetupScreen Input { width: 18; margin-right: 2; }
    SetupScreen Select { width: 22; }
    SetupScreen Checkbox { width: 18; margin-right: 2; }
    SetupScreen .preset { min-width: 10; margin-right: 1; }
    SetupScreen #setup-error { height: auto; color: $error; padding: 0 2; }
    SetupScreen #setup-start { margin: 0 2; }
    SetupScreen .seat-hidden { display: none; }
    """

    BINDINGS = [
        Binding("ctrl+s", "start", "Start"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(
        self, game: str, options: dict[str, Any] | None = None, seats: Sequence[Seat] = (), clock: str = ""
    ) -> None:
        """``options``, ``seats`` and ``clock`` fill the form in (a new game after one just played, ``--clock``);
        none: the defaults (untimed)."""
        super().__init__()
        self.game = get_game(game)
        self.initial_options = self.game.check_options(dict(options or {}))
        self.initial_seats = tuple(seats)[: self.game.max_seats]
        self.initial_clock = clock

    # -- layout --------------------------------------------------------------

    def compose(self) -> ComposeResult:
        game = self.game
        yield Static(f"New game of {game.title}", id="setup-title")
        yield Static("", id="setup-summary")
        # Not a stop of its own on the way round the fields (it shows no focus): the mouse wheel scrolls it, and
        # it scrolls to the focused field.
        with VerticalScroll(id="setup-body", can_focus=False):
            if game.option_specs:
                with Vertical(classes="setup-section") as options:
                    options.border_title = "Options"
                    if game.presets:
                        with Horizontal(classes="setup-row"):
                            yield Label("Presets", classes="setup-label")
                            for preset in game.presets:
                                label = preset.flag.removeprefix("--").capitalize()
                                yield Button(label, classes="preset", id=f"preset-{preset.flag[2:]}", compact=True)
                    for spec in game.option_specs:
                        yield from self._option_row(spec)
            with Vertical(classes="setup-section") as seats:
                seats.border_title = "Players"
                given = self.initial_seats
                count = len(given) if game.min_seats <= len(given) <= game.max_seats else game.min_seats
                if game.min_seats != game.max_seats:
                    with Horizontal(classes="setup-row"):
                        yield Label("Players", classes="setup-label")
                        yield Select(
                            [(str(n), n) for n in range(game.min_seats, game.max_seats + 1)],
                            value=count,
                            allow_blank=False,
                            id="seat-count",
                            compact=True,
                        )
                kinds = [("Human", HUMAN)] + [
                    (game.descriptor.level_label(level), f"ai:{level}") for level in game.ai_levels
                ]
                names = list(default_seat_names(game.max_seats))
                for seat in range(game.max_seats):
                    default_kind = f"ai:{game.default_level}" if seat == 1 and game.ai_levels else HUMAN
                    if seat < len(given):
                        names[seat] = given[seat].name or names[seat]
                        level = given[seat].level or game.default_level
                        default_kind = f"ai:{level}" if given[seat].is_ai and level in game.ai_levels else HUMAN
                    hidden = "" if seat < count else " seat-hidden"
                    with Horizontal(classes="setup-row seat-row" + hidden, id=f"seat-row-{seat}"):
                        yield Label(f"Seat {seat + 1}", classes="setup-label")
                        yield OrderedInput(names[seat], id=f"seat-name-{seat}", max_length=24, compact=True)
                        yield Select(kinds, value=default_kind, allow_blank=False, id=f"seat-kind-{seat}", compact=True)
            with Vertical(classes="setup-section") as timing:
                timing.border_title = "Clock"
                with Horizontal(classes="setup-row with-help"):
                    yield Label("Clock", classes="setup-label")
                    yield OrderedInput(self.initial_clock, placeholder="untimed", id="setup-clock", max_length=40,
                                       compact=True)
                    yield Static(f"{GRAMMAR}; empty: untimed", classes="setup-help")
        yield Static("", id="setup-error")
        yield Button("Start game", variant="primary", id="setup-start")
        yield Footer()

    def _option_row(self, spec: OptionSpec) -> ComposeResult:
        value = spec.form_value(self.initial_options[spec.name])
        with Horizontal(classes="setup-row with-help"):
            yield Label(spec.name.replace("_", " ").capitalize(), classes="setup-label")
            widget_id = f"option-{spec.name}"
            yield self._option_input(spec, value, widget_id)
            help_text = spec.kind.form_help(spec)
            yield Static(help_text, classes="setup-help")

    @staticmethod
    def _option_input(spec: OptionSpec, value: Any, widget_id: str) -> Widget:
        """The input the option's kind names (``OptionKind.widget``) holding ``value``."""
        widget = spec.kind.widget
        if widget == "select":
            return Select([(choice, choice) for choice in spec.choices], value=value, allow_blank=False,
                          id=widget_id, compact=True)
        if widget == "switch":
            return TickBox(bool(value), id=widget_id, compact=True)
        if widget in ("integer", "number"):
            number: Literal["integer", "number"] = "integer" if widget == "integer" else "number"
            return OrderedInput(value, type=number, id=widget_id, compact=True)
        return OrderedInput(value, id=widget_id, compact=True)

    def on_mount(self) -> None:
        self.set_class(self.app.size.width < NARROW_WIDTH, "narrow")
        self.refresh_summary()
        self.query_one("#setup-start", Button).focus()

    def on_resize(self) -> None:
        self.set_class(self.app.size.width < NARROW_WIDTH, "narrow")
        if getattr(self.app, "ascii", False):
            use_ascii_scrollbars(self)
            for arrow in self.query("SelectCurrent .down-arrow").results(Static):
                arrow.update("v")  # Textual draws a triangle
            for arrow in self.query("SelectCurrent .up-arrow").results(Static):
                arrow.update("^")
            for checkbox in self.query(Checkbox):
                checkbox.BUTTON_LEFT, checkbox.BUTTON_RIGHT = "[", "]"  # half blocks by default
                checkbox.refresh()

    # -- reading the form ----------------------------------------------------

    def seat_count(self) -> int:
        if self.game.min_seats == self.game.max_seats:
            return self.game.min_seats
        return int(str(self.query_one("#seat-count", Select).value))  # the Select offers counts, never blank

    def _option_widget(self, name: str) -> Input | Select[Any] | Checkbox:
        widget = self.query_one(f"#option-{name}")
        assert isinstance(widget, (Input, Select, Checkbox))
        return widget

    def read_options(self) -> dict[str, Any]:
        """The options as typed; raises RuleError with the reason when they make no game."""
        raw = {spec.name: self._option_widget(spec.name).value for spec in self.game.option_specs}
        return self.game.options_from_form(raw)

    def read_clock(self) -> ClockSpec | None:
        """The clock as typed (None: untimed); RuleError when it is no clock."""
        return parse_clock(self.query_one("#setup-clock", Input).value)

    def read_seats(self) -> list[Seat]:
        seats = []
        for seat in range(self.seat_count()):
            name = self.query_one(f"#seat-name-{seat}", Input).value.strip()
            kind = str(self.query_one(f"#seat-kind-{seat}", Select).value)
            if kind.startswith("ai:"):
                seats.append(Seat(name, AI, kind.removeprefix("ai:")))
            else:
                seats.append(Seat(name))
        self.game.check_seats([seat.name or "" for seat in seats])  # names read from the form: never None
        return seats

    def refresh_summary(self) -> bool:
        """Show what the form describes, or what is wrong with it; True when it is a game."""
        summary = self.query_one("#setup-summary", Static)
        error = self.query_one("#setup-error", Static)
        try:
            options = self.read_options()
            seats = self.read_seats()
            clock = self.read_clock()
        except RuleError as problem:
            error.update(f"! {problem}")
            # The summary says what the form makes now: no game, not the last one it made.
            summary.update(f"not a game yet: {problem}")
            self.query_one("#setup-start", Button).disabled = True
            return False
        error.update("")
        self.query_one("#setup-start", Button).disabled = False
        players = " vs ".join(seat.describe() for seat in seats)
        separator = "  -  " if getattr(self.app, "ascii", False) else "  ·  "
        timing = f"{separator}clock {clock}" if clock is not None else ""
        summary.update(f"{self.game.describe_options(options)}{separator}{players}{timing}")
        return True

    # -- events --------------------------------------------------------------

    @on(Input.Changed)
    @on(Select.Changed)
    @on(Checkbox.Changed)
    def form_changed(self, event: Select.Changed | Checkbox.Changed) -> None:
        if getattr(event, "control", None) is not None and event.control.id == "seat-count":
            count = self.seat_count()
            for seat in range(self.game.max_seats):
                self.query_one(f"#seat-row-{seat}").set_class(seat >= count, "seat-hidden")
        self.refresh_summary()

    @on(Button.Pressed, ".preset")
    def preset_pressed(self, event: Button.Pressed) -> None:
        flag = "--" + (event.button.id or "").removeprefix("preset-")
        preset = next(p for p in self.game.presets if p.flag == flag)
        specs = {spec.name: spec for spec in self.game.option_specs}
        for name, value in preset.values.items():
            self._option_widget(name).value = specs[name].form_value(value)
        self.refresh_summary()

    @on(Button.Pressed, "#setup-start")
    def start_pressed(self) -> None:
        self.action_start()

    @on(Input.Submitted)
    def input_submitted(self) -> None:
        self.action_start()

    def action_start(self) -> None:
        if not self.refresh_summary():
            return
        options = self.read_options()
        seats = self.read_seats()
        match = Match(self.game, options, seats, random_seed(), clock=self.read_clock())
        path = new_save_path(Path(self.app.saves_dir), match)
        self.app.open_game(match, path)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            # Opened straight from ``termgames play GAME``: back is the start screen.
            self.app.switch_screen(StartScreen())
