"""Watching Monad turn by turn: the replay of a record and the live spectator of a match.

Both read a :class:`TurnFeed`, the resolved turns in order (turn 0 is the
starting map): a replay fills it from a record's states at once, a live match
(``termgames monad match --watch``) appends each turn as the runner resolves
it, from a thread.  The screen shows one turn at a time with its totals, a
small chart of units and hives over the turns so far, and the commands each
seat had dropped that turn (bot faults included); it plays at 1 to 50 turns a
second, steps, and goes to any turn.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Input, Static

from ..rules.numbers import short_count, short_numbers
from ..untrusted import printable
from ..widgets.board import BoardArea
from ..widgets.footer import Footer
from ..widgets.monad_board import MonadBoard, seat_letter
from ..widgets.palette import Palette, next_palette, use_ascii_scrollbars
from ..widgets.panel import update_if_changed
from .base import NARROW_WIDTH, SizedScreen
from .dialogs import GoToMoveScreen, HelpScreen, leave_screen

#: Turns a second at each speed step (``+``/``-``).
SPEEDS = (1, 2, 5, 10, 20, 50)
SPARKS = "▁▂▃▄▅▆▇█"
ASCII_SPARKS = "_.,:-=+*#"
#: A compact totals line fits the panel beside the map (19 columns less its border, padding and scroll bar).
COMPACT_WIDTH = 14
#: Chart columns when the panel's width is not known yet.
CHART_WIDTH = 13

WATCH_KEYS = """\
Watching or replaying: left/right (`h`/`l`) step a turn, Home/End (`g`/`G`) jump to the first/last turn,
`:` goes to turn N, Space (`p`) plays and pauses, `+`/`-` change the speed (1, 2, 5, 10, 20 or 50 turns a
second), `1` `2` `3` (or `U` `R` `H`) turn the units, resources and hives layers on and off, `c` cycles the
colours, `q` leaves.  Live, End follows the newest turn.

The map: `a12` is 12 units of the first player (`b` `c` `d` the others, `++` for 100 or more), a capital
(`A`) its hive, `###` an obstacle, ` . : *` a cell's resources (none, some, more, most); with the units layer
off, each free cell shows its resources as a number.  Even rows are shifted right (ruling 1).
"""

#: A seat's totals on one turn: (resources, units, hives).
Totals = tuple[int, int, int]


@dataclass(frozen=True)
class TurnFrame:
    """One resolved turn: the board after it, and per seat the commands carried out and the reasons of those dropped."""

    turn: int
    board: Any
    commands: tuple[tuple[str, ...], ...]
    dropped: tuple[tuple[str, ...], ...]
    totals: tuple[Totals, ...]


def json_totals(board: dict[str, Any], names: Sequence[str]) -> tuple[Totals, ...]:
    return tuple(
        (
            int(board.get("resources", {}).get(name, 0)),
            int(board.get("units", {}).get(name, 0)),
            int(board.get("hives", {}).get(name, 0)),
        )
        for name in names
    )


def seat_style(palette: Palette, seat: int) -> str:
    colour = palette.seat(seat)
    return f"bold {colour}" if colour else "bold"


def totals_text(names: Sequence[str], totals: Sequence[Totals], palette: Palette) -> Text:
    """Each seat's resources, units and hives: two lines a seat for two players, one for more."""
    text = Text()
    compact = len(names) > 2
    for seat, name in enumerate(names):
        resources, units, hives = totals[seat]
        if seat:
            text.append("\n")
        look = seat_style(palette, seat)
        if compact:
            label = f"{seat_letter(seat)} {name[:4]}"
            figures = f" {short_count(units)}u {short_count(hives)}h"
            with_resources = f"{figures} {short_count(resources)}r"
            text.append(label, style=look)
            text.append(with_resources if len(label + with_resources) <= COMPACT_WIDTH else figures)
        else:
            text.append(f"{seat_letter(seat)} {name[:16]}", style=look)
            text.append(f"\n {short_count(resources)}r {short_count(units)}u {short_count(hives)}h")
    return text


class TurnFeed:
    """The resolved turns of one match, growing while it is played.

    ``board_json`` turns a stored board into the JSON shape the map draws
    (stored boards may already be dicts: tests and records of traces).
    ``append`` may be called from any thread; readers take ``len`` and
    ``frame(i)``.
    """

    def __init__(self, names: Sequence[str], board_json: Callable[[Any, Sequence[str]], dict] | None = None) -> None:
        self.names = tuple(names)
        self._board_json = board_json
        self._frames: list[TurnFrame] = []
        self._lock = threading.Lock()
        #: The match has ended (or the runner stopped): no more frames will come.
        self.finished = False
        #: What ended it, in words ("ann wins", "the runner failed: ..."), once finished.
        self.result = ""
        self._cache: tuple[int, dict] | None = None

    def __len__(self) -> int:
        return len(self._frames)

    def frame(self, index: int) -> TurnFrame:
        return self._frames[index]

    def board_json(self, index: int) -> dict[str, Any]:
        cached = self._cache
        if cached is not None and cached[0] == index:
            return cached[1]
        board = self._frames[index].board
        data = board if isinstance(board, dict) else self._to_json(board)
        self._cache = (index, data)
        return data

    def _to_json(self, board: Any) -> dict[str, Any]:
        if self._board_json is None:
            raise TypeError("this feed holds engine boards but was given no board_json")
        return self._board_json(board, self.names)

    def append(
        self,
        board: Any,
        commands: Sequence[Sequence[str]] | None = None,
        dropped: Sequence[Sequence[str]] | None = None,
        totals: Sequence[Totals] | None = None,
    ) -> None:
        seats = len(self.names)
        if totals is None and hasattr(board, "unit_totals"):
            totals = [(board.bank[s], board.unit_totals[s], board.hive_counts[s]) for s in range(seats)]
        if totals is None:
            data = board if isinstance(board, dict) else self._to_json(board)
            totals = json_totals(data, self.names)
        turn = int(board["turn"] if isinstance(board, dict) else getattr(board, "turn", len(self._frames)))
        frame = TurnFrame(
            turn,
            board,
            tuple(tuple(c) for c in (commands or [()] * seats)),
            tuple(tuple(d) for d in (dropped or [()] * seats)),
            tuple(totals),
        )
        with self._lock:
            self._frames.append(frame)

    def finish(self, result: str = "") -> None:
        self.result = result
        self.finished = True


def follow(
    feed: TurnFeed,
    turns: Iterable[tuple[Any, Any]],
    stop: threading.Event | None = None,
) -> None:
    """Fill ``feed`` from an iterator of (board, report) pairs (run it in a thread); report None for turn 0.

    A report has ``carried`` (per seat, commands with ``text()``) and
    ``dropped`` (per seat, reasons).  ``stop`` ends it between two turns (the
    iterator is closed in this thread, so a generator's cleanup runs).
    Whatever the iterator raises ends the feed with the error as its result:
    the screen says it, nothing crashes.
    """
    iterator = iter(turns)
    try:
        for board, report in iterator:
            if report is None:
                feed.append(board)
            else:
                carried = [[command.text() for command in seat] for seat in report.carried]
                feed.append(board, carried, [list(reasons) for reasons in report.dropped])
            if stop is not None and stop.is_set():
                feed.finish("stopped")
                break
    except Exception as error:  # a runner's failure is shown, not raised into the UI
        feed.finish(f"the match stopped: {error}")
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()
    if not feed.finished:
        feed.finish("")


def chart(values: Sequence[int], width: int, top: int, ascii_only: bool) -> str:
    """A sparkline of ``values`` squeezed into ``width`` characters (each the largest of its span).

    Past a thousand the scale is logarithmic (by bit length: exact enough for a sparkline, and cheap for
    the huge counts units reach when hives are fed with BUILD).
    """
    if not values:
        return ""
    marks = ASCII_SPARKS if ascii_only else SPARKS
    if len(values) > width:
        spans = [values[len(values) * i // width : len(values) * (i + 1) // width] for i in range(width)]
        values = [max(span) for span in spans if span]
    top = max(1, top)
    steps = len(marks) - 1
    if top > 1000:
        scale = top.bit_length()
        return "".join(marks[min(steps, value.bit_length() * steps // scale)] if value else " " for value in values)
    return "".join(marks[min(steps, value * steps // top)] if value else " " for value in values)


def players_title(title: str, seats: Sequence[Any], ascii_only: bool = False) -> str:
    """The header as the game screens write it: the title and who plays (names, or seats that ``describe()``)."""
    separator = "  -  " if ascii_only else "  ·  "
    return f"{title}{separator}" + "  vs  ".join(s if isinstance(s, str) else s.describe() for s in seats)


class GoToTurnScreen(GoToMoveScreen):
    """Asks for a turn number."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small-dialog"):
            yield Static(f"Go to turn (0-{self.last})", classes="dialog-title")
            yield Input(placeholder="turn number", type="integer", id="goto-input")


#: Monad's look, for the seat screen (and its shared version) and the watch screen alike.  Screen CSS,
#: which Textual adds to the app's stylesheet when the screen is shown, and selectors on the ``monad``
#: class rather than the screens' type names: the shared (SSH) screen's class puts a mixin first, and
#: Textual follows only the first bases for type selectors and for a widget's DEFAULT_CSS.
MONAD_CSS = """
/* A narrow panel, so the 20x20 map (61 columns) fits beside it at 80 columns. */
.monad #side-panel {
    width: 19;
}

.monad.narrow #side-panel {
    width: 100%;
    layout: grid;
    grid-size: 2;
    grid-rows: auto;
    grid-gutter: 0 2;
}

/* Under the map its turn log is a cell of the grid: rows are as tall as their texts, so it gets a height. */
.monad.narrow #move-log {
    height: 4;
}

/* The panel's texts, one widget each (the other games draw theirs in one, PanelTexts). */
.monad #status {
    height: auto;
    margin-bottom: 1;
    color: $accent;
}

.monad #last-action {
    height: auto;
    max-height: 4;
    color: $text-muted;
    margin-bottom: 1;
}
"""


class MonadWatchScreen(SizedScreen[None]):
    """Shows a TurnFeed: a record's replay, or a live match as its turns arrive."""

    CSS = MONAD_CSS
    SCOPED_CSS = False  # the selectors name the screen's class (monad) themselves

    #: The map scrolls: the title, the footer and the narrow layout's panel (10 lines under the map)
    #: leave it 6 lines at 18.
    MINIMUM_SIZE = (50, 18)

    BINDINGS = [
        Binding("left,h", "step(-1)", "Prev", key_display="h", tooltip="one turn back"),
        Binding("right,l", "step(1)", "Next", key_display="l", tooltip="one turn on"),
        Binding("home,g", "jump('start')", "Start", show=False, tooltip="the first turn"),
        Binding("end,G", "jump('end')", "End", show=False, tooltip="the last turn (live: follow the newest)"),
        Binding("colon,number_sign", "goto", "Turn", key_display=":", tooltip="go to turn N"),
        Binding("space,p", "play", "Play", tooltip="play or pause"),
        Binding("plus,equals_sign", "speed(1)", "Faster", key_display="+", tooltip="faster: 1 to 50 turns a second"),
        Binding("minus", "speed(-1)", "Slower", key_display="-", tooltip="slower"),
        Binding("1,U", "layer('units')", "Layers", key_display="1/2/3", tooltip="units layer on/off"),
        Binding("2,R", "layer('resources')", "Resources", show=False, tooltip="resources layer on/off"),
        Binding("3,H", "layer('hives')", "Hives", show=False, tooltip="hives layer on/off"),
        Binding("c", "palette", "Colours", show=False, tooltip="cycle the colours"),
        Binding("question_mark", "help", "Help", key_display="?", show=False, tooltip="the rules and these keys"),
        Binding("q,escape", "leave", "Quit", tooltip="leave"),
    ]

    def __init__(
        self,
        feed: TurnFeed,
        title: str,
        *,
        live: bool = False,
        ascii_only: bool = False,
        palette: str = "default",
        rules: tuple[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.add_class("monad")
        self.feed = feed
        self.title_text = title
        self.live = live
        self.ascii_only = ascii_only
        self.palette_name = palette
        self.rules = rules
        self.index = 0
        self.speed_index = SPEEDS.index(5)
        self.timer: Timer | None = None
        #: Live: the screen shows each new turn as it arrives (until the player steps back).
        self.following = live
        self._seen: tuple[int, bool] = (0, False)

    def compose(self) -> ComposeResult:
        yield Static(self.title_text, id="game-title", markup=False)
        with Horizontal(id="game-body"):
            with BoardArea(id="board-area"):
                yield MonadBoard(ascii_only=self.ascii_only, palette=self.palette_name, interactive=False, id="board")
            with BoardArea(id="side-panel"):
                yield Static("", id="status")
                yield Static("", id="totals")
                yield Static("", id="chart")
                yield Static("", id="dropped")
                yield from self.compose_panel_end()
        yield from self.compose_under_body()
        yield Footer()

    def compose_panel_end(self) -> ComposeResult:
        """What a subclass adds at the panel's end (a replay: its turn log)."""
        yield from ()

    def compose_under_body(self) -> ComposeResult:
        """What a subclass adds between the map and the footer (a replay: the analysis's graph and line)."""
        yield from ()

    @property
    def board(self) -> MonadBoard:
        return self.query_one("#board", MonadBoard)

    def on_mount(self) -> None:
        if self.ascii_only:
            use_ascii_scrollbars(self)
        self.board.set_players(self.feed.names)
        if self.live:
            self._seen = (-1, False)
            self.set_interval(0.1, self._poll)
            self.action_play()
        self.show()

    def _poll(self) -> None:
        seen = (len(self.feed), self.feed.finished)
        if seen != self._seen:
            self._seen = seen
            self.turn_arrived()

    def on_resize(self) -> None:
        self.set_class(self.app.size.width < NARROW_WIDTH, "narrow")
        self.board.redraw()

    # -- drawing -------------------------------------------------------------

    @property
    def last(self) -> int:
        return max(0, len(self.feed) - 1)

    def show(self) -> None:
        if not len(self.feed):
            update_if_changed(self.query_one("#status", Static), Text("waiting for the first turn", style="bold"))
            return
        self.index = max(0, min(self.index, self.last))
        frame = self.feed.frame(self.index)
        board = self.feed.board_json(self.index)
        self.board.show(board)
        update_if_changed(self.query_one("#status", Static), self.status_text(frame, board))
        update_if_changed(self.query_one("#totals", Static), self.totals_text(frame))
        update_if_changed(self.query_one("#chart", Static), self.chart_text())
        update_if_changed(self.query_one("#dropped", Static), self.dropped_text(frame))

    def status_text(self, frame: TurnFrame, board: dict[str, Any]) -> Text:
        text = Text(f"turn {frame.turn}/{board.get('limit', '?')}", style="bold")
        state = f"playing {SPEEDS[self.speed_index]}x" if self.timer else "paused"
        text.append(f"\n{state}")
        if self.live and not self.feed.finished:
            text.append(f", {self.last} in", style="dim")
        if self.feed.finished and self.index == self.last:
            text.append(f"\n{printable(self.feed.result) or 'the match is over'}", style="bold")
        return text

    def totals_text(self, frame: TurnFrame) -> Text:
        return totals_text(self.feed.names, frame.totals, self.board.palette)

    def seat_style(self, seat: int) -> str:
        return seat_style(self.board.palette, seat)

    def chart_text(self) -> Text:
        frames = [self.feed.frame(i) for i in range(self.index + 1)]
        seats = range(len(self.feed.names))
        units = [[f.totals[s][1] for f in frames] for s in seats]
        hives = [[f.totals[s][2] for f in frames] for s in seats]
        top_units = max((max(series) for series in units), default=1)
        top_hives = max((max(series) for series in hives), default=1)
        room = self.query_one("#chart", Static).content_size.width - 2
        width = room if room > 4 else CHART_WIDTH
        text = Text(f"units, max {short_count(top_units)}", style="dim")
        for seat in seats:
            text.append(f"\n{seat_letter(seat)} ", style=self.seat_style(seat))
            text.append(chart(units[seat], width, top_units, self.ascii_only), style=self.seat_style(seat))
        text.append(f"\nhives, max {short_count(top_hives)}", style="dim")
        for seat in seats:
            text.append(f"\n{seat_letter(seat)} ", style=self.seat_style(seat))
            text.append(chart(hives[seat], width, top_hives, self.ascii_only), style=self.seat_style(seat))
        return text

    def dropped_text(self, frame: TurnFrame) -> Text:
        lines = [(seat, reason) for seat, reasons in enumerate(frame.dropped) for reason in reasons]
        if not lines:
            return Text("nothing dropped", style="dim")
        text = Text("dropped:", style="bold")
        for seat, reason in lines[:12]:
            text.append(f"\n{seat_letter(seat)} ", style=self.seat_style(seat))
            # A bot's fault quotes the bot (its stderr, its exception): drawn safe and with its counts short.
            text.append(printable(short_numbers(reason), keep_newlines=False))
        if len(lines) > 12:
            text.append(f"\n({len(lines) - 12} more)", style="dim")
        return text

    # -- live ----------------------------------------------------------------

    def turn_arrived(self) -> None:
        """The runner appended a frame (or finished): follow it if the player has not stepped away."""
        if self.following and self.timer is None:
            self.index = self.last
        self.show()

    # -- actions -------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        self.index = max(0, min(self.last, self.index + delta))
        self.following = self.live and self.index == self.last
        self.show()

    def action_jump(self, where: str) -> None:
        self.index = 0 if where == "start" else self.last
        self.following = self.live and where == "end"
        self.show()

    def action_goto(self) -> None:
        def chosen(number: int | None) -> None:
            if number is not None:
                turns = [self.feed.frame(i).turn for i in range(len(self.feed))]
                # Turn numbers are the frames' own (a record may start after turn 0).
                self.index = min(range(len(turns)), key=lambda i: abs(turns[i] - number)) if turns else 0
                self.following = False
                self.show()

        self.app.push_screen(GoToTurnScreen(self.feed.frame(self.last).turn if len(self.feed) else 0), chosen)

    def action_play(self) -> None:
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        else:
            if self.index >= self.last and (self.feed.finished or not self.live):
                self.index = 0
            self.timer = self.set_interval(1 / SPEEDS[self.speed_index], self._advance)
        self.show()

    def _advance(self) -> None:
        if self.index >= self.last:
            if self.feed.finished or not self.live:
                self.action_play()  # the end: pause
            return  # live: wait for the next turn
        self.index += 1
        self.following = self.live
        self.show()

    def action_speed(self, delta: int) -> None:
        self.speed_index = max(0, min(len(SPEEDS) - 1, self.speed_index + delta))
        if self.timer is not None:
            self.timer.stop()
            self.timer = self.set_interval(1 / SPEEDS[self.speed_index], self._advance)
        self.show()

    def action_layer(self, layer: str) -> None:
        shown = self.board.toggle_layer(layer)
        self.notify(f"{layer}: {'on' if shown else 'off'}", timeout=1.5)

    def action_palette(self) -> None:
        self.palette_name = next_palette(self.palette_name)
        self.board.set_palette(self.palette_name)
        self.show()

    def action_help(self) -> None:
        if self.rules is not None:
            self.app.push_screen(HelpScreen(*self.rules))

    def action_leave(self) -> None:
        running = self.live and not self.feed.finished
        leave_screen(self, "Stop watching? (the match stops too)" if running else None)


def watch_turns(
    feed: TurnFeed, turns: Iterable[tuple[Any, Any]], stop: threading.Event | None = None
) -> threading.Thread:
    """Run ``follow`` in a daemon thread; a live screen polls the feed (the runner never waits for the UI)."""
    thread = threading.Thread(target=follow, args=(feed, turns, stop), daemon=True, name="monad-watch")
    thread.start()
    return thread
