"""Monad's seat at the keyboard: queue commands on the map, Enter ends the turn.

The cursor picks a cell; digits (or ``+``/``-``) set how many units the next
command takes (none typed: every unit there not yet commanded); ``m`` queues
MINE, ``b`` BUILD, and a move is Space then a direction key (left/right for
W/E, ``w`` ``e`` ``z`` ``x`` for NW NE SW SE), or in one key Shift+left/right
and ``W`` ``E`` ``Z`` ``X``.  Queued commands show on the map as arrows and in
the panel; Backspace takes back the last one on the cursor's cell (else the
last one), Escape clears the count.  Enter sends the queue as this turn's move
(``pass`` when empty).  Turns are simultaneous: the computer seats think
while the human builds, and the turn resolves when the last seat has sent.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Static

from ..analysis import MoveAnalysis
from ..match import Match
from ..rules import RuleError, View
from ..rules.monad import HIDDEN, Command, MonadState, board_json, format_commands
from ..rules.numbers import short_count, short_numbers
from ..untrusted import printable
from ..widgets.board import BoardArea, BoardColumn
from ..widgets.footer import Footer
from ..widgets.monad_board import KEY_DIRECTIONS, MonadBoard
from ..widgets.move_log import MoveLog, TurnKey, log_line
from ..widgets.panel import update_if_changed
from .base import PANEL_LINES_UNDER
from .game import LEAVING, GameScreen
from .keys import keys_markdown
from .monad_watch import (
    MONAD_CSS,
    WATCH_KEYS,
    MonadWatchScreen,
    TurnFeed,
    json_totals,
    players_title,
    totals_text,
)
from .replay_analysis import REVIEW_BINDINGS, GameReview, review_graph

MAX_COUNT = 10**12
#: The side panel's least width beside the map (MONAD_CSS's ``.monad #side-panel``).
PANEL_WIDTH_LEAST = 19  # typed counts; "all" (nothing typed) takes any number of units

SEAT_KEYS = """\
At your seat: arrows or `h` `j` `k` `l` move the cursor (left/right are W/E, up/down go straight up and
down the rows), `w` `e` `z` `x` move it NW NE SW SE.  Digits type how many units the next command takes
(`+`/`-` step it; none typed: every unit of yours on the cell not yet commanded), then:

- `m` queues MINE, `b` queues BUILD;
- Space then a direction key (left, right, `w`, `e`, `z`, `x`) queues a MOVE that way, or in one key
  Shift+left/right and `W` `E` `Z` `X`;
- Backspace takes back the last command on the cursor's cell (else the last one), Escape clears the count,
  Tab (Shift+Tab) puts the cursor on the next (previous) cell of your units not yet commanded;
- Enter ends your turn: the queued commands are sent as one move (`pass` with none).

Queued commands show on the map in the warning colour: an arrow (ASCII: the direction's letters) for a
move, `$` for MINE, `+` for BUILD, then the units.  Turns are simultaneous: the computer seats think while
you queue, and the turn resolves once every seat has sent.  `U` `R` `H` turn the units, resources and hives
layers on and off, `u` takes back your last turn (the bots answer again), `c` cycles the colours.

The column numbers (every fifth) head the map and the row numbers stand at its left, kept at the edges as a
map bigger than the terminal scrolls.  Besides its colour the cursor has its row's number followed by `>`
and, where the columns either side of its cell are blank, `[ ]` round the cell.

""" + WATCH_KEYS


def resolved_states(match: Match) -> list[MonadState]:
    """The states a Monad record's turns resolved in (its start first): a turn half sent at the end is left out."""
    states = []
    for state in match.states:
        assert isinstance(state, MonadState)
        if not state.ply or state.resolved_now():
            states.append(state)
    return states


def feed_from_match(match: Match) -> TurnFeed:
    """A record's resolved turns (turn 0 first) for the watch screen; a turn half sent at the end is left out."""
    feed = TurnFeed(match.names, board_json)
    seats = range(len(match.names))
    for state in resolved_states(match):
        board, report = state.board, state.last_report if state.ply else None
        totals = [(board.bank[s], board.unit_totals[s], board.hive_counts[s]) for s in seats]
        if report is None:
            feed.append(board, totals=totals)
        else:
            carried = [[command.text() for command in commands] for commands in report.carried]
            feed.append(board, carried, [list(reasons) for reasons in report.dropped], totals)
    if match.over:
        feed.finish(match.state.view(None).status)
    return feed


#: The replay's keys past the watch screen's: the game's analysis (the generic replay's, REVIEW_BINDINGS).
REPLAY_NOTES = """\
With the game's analysis on (`a`), a graph of each move's loss runs under the map, each seat's commands in the
turn log carry their mark (`?!` inaccuracy, `?` mistake, `??` blunder), and the line under the graph judges one
seat's commands of the turn on show (the first marked one): what they lost, in units, and the commands the
analysis found better, drawn on the map as a queue is (an arrow, `$` MINE, `+` BUILD, then the units) in
reverse video.  `m` and `M` go to the next and previous marked commands, turn by turn and seat by seat.
"""


def replay_screen(match: Match, source: str = "", *, ascii_only: bool = False, palette: str = "default") -> Screen:
    """``termgames replay`` of a Monad record: whole turns, not one seat's commands at a time."""
    return MonadReplayScreen(match, ascii_only=ascii_only, palette=palette)


class MonadReplayScreen(GameReview, MonadWatchScreen):
    """A Monad record replayed turn by turn (the watch screen's keys), with its turn log and the game's analysis
    (``a``, ``m``/``M``: :class:`~.replay_analysis.GameReview`, as the generic replay has it).

    A turn is every seat's commands at once: the analysis's line judges one seat's commands of the turn on show,
    the first marked one unless ``m``/``M`` chose another; the log highlights them and the map draws the
    commands the analysis found better.
    """

    BINDINGS = [*REVIEW_BINDINGS]
    #: What the analysis shows, after the key table (docs/monad.md); the ``?`` help adds the watch screen's keys.
    HELP_NOTES = REPLAY_NOTES
    #: The panel's most columns beside a small map (the turn log's commands wrap less).
    PANEL_WIDTH_MOST = 40

    def __init__(self, match: Match, *, ascii_only: bool = False, palette: str = "default") -> None:
        game = match.game
        super().__init__(
            feed_from_match(match),
            players_title(f"Replay: {game.title}", match.seats, ascii_only),
            ascii_only=ascii_only,
            palette=palette,
            rules=(game.rules_text(), keys_markdown(type(self), f"{REPLAY_NOTES}\n{WATCH_KEYS}")),
        )
        self.match = match
        #: The ply after which each frame's turn resolved (the feed's frames, turn 0's 0 first).
        self.frame_plies = [state.ply for state in resolved_states(match)]
        #: The move in question, as (frame, ply), when ``m``/``M`` chose it; else the frame's first marked move.
        self._chosen: tuple[int, int] | None = None
        #: Every seat's commands once sent (a turn half sent at the end of an unfinished record: "(sent)").
        self.log_view = match.view(None, len(match.moves))
        self.init_review()

    def compose_panel_end(self) -> ComposeResult:
        yield MonadTurnLog(id="move-log")

    def compose_under_body(self) -> ComposeResult:
        yield review_graph(self.ascii_only)
        yield Static("", id="message")

    def on_resize(self) -> None:
        # After the watch screen's own handler (narrow or not, the map drawn for the new size).
        self.call_after_refresh(self.fit_panel)

    def fit_panel(self) -> None:
        """Beside the map, the panel takes the columns the map leaves, from the stylesheet's 19 up to
        PANEL_WIDTH_MOST; under it (narrow), the stylesheet's whole width."""
        panel = self.query_one("#side-panel")
        if self.has_class("narrow"):
            panel.styles.width = None
            return
        spare = self.app.size.width - self.board.whole_columns() - 2
        panel.styles.width = max(PANEL_WIDTH_LEAST, min(self.PANEL_WIDTH_MOST, spare))

    # -- which move --------------------------------------------------------------

    def frame_of(self, ply: int) -> int:
        """The frame whose turn the move ``ply`` (1-based) was sent for (the last, for one after it)."""
        return min(bisect_left(self.frame_plies, ply), len(self.frame_plies) - 1)

    def frame_moves(self, index: int) -> range:
        """The plies of the turn frame ``index`` shows resolved (none for the start)."""
        if index <= 0 or index >= len(self.frame_plies):
            return range(0)
        return range(self.frame_plies[index - 1] + 1, self.frame_plies[index] + 1)

    def review_ply(self) -> int:
        if self._chosen is not None and self._chosen[0] == self.index:
            return self._chosen[1]
        plies = self.frame_moves(self.index)
        review = self.review if self.reviewing else None
        if review is not None:
            marked = [ply for ply in plies if ply <= len(review.moves) and review.moves[ply - 1].klass != "good"]
            if marked:
                return marked[0]
        return plies[0] if plies else 0

    def go_to_ply(self, ply: int) -> None:
        self.index = self.frame_of(ply)
        self._chosen = (self.index, ply)
        self.following = False

    def review_move_label(self, line: MoveAnalysis) -> str:
        return f"turn {self.feed.frame(self.frame_of(line.ply)).turn},"

    def review_move_text(self, line: MoveAnalysis) -> str:
        # Narrow, the panel under the map leaves the line two lines: the commands played are in the turn log.
        return "" if self.has_class("narrow") else super().review_move_text(line)

    # -- drawing -------------------------------------------------------------------

    def show(self) -> None:
        super().show()  # the watch screen's: the map, the totals, the chart
        if not len(self.feed):
            return
        self.show_review()
        message = self.query_one("#message", Static)
        message.display = bool(str(message.render()))  # no line at all while there is nothing to say
        ply = self.review_ply()
        log = self.query_one(MonadTurnLog)
        log.show(self.log_view, highlight_ply=ply or None, follow=False)
        self.call_after_refresh(log.keep_ply_in_sight, ply)


class MonadTurnLog(MoveLog):
    """Monad's move log: a line per seat and turn, numbered by the map's turn, what each seat sent (shortened).

    Turns are simultaneous, so the shared log's grouping (consecutive moves of one seat) would number
    sends, not turns.  A seat sends once a turn, and a seat out of the game never comes back, so a seat
    sending again starts the next turn.  The view has already hidden the other seats' commands for the
    turn in progress (``redact_log``): those lines say only that the seat has sent.
    """

    def turn_keys(self, view: View, highlight_ply: int | None) -> list[TurnKey]:
        keys: list[TurnKey] = []
        turn, sent_this_turn = 1, set[int]()
        for ply, (seat, move) in enumerate(view.moves, start=1):
            if seat in sent_this_turn:
                turn, sent_this_turn = turn + 1, set()
            sent_this_turn.add(seat)
            text = "(sent)" if move == HIDDEN else (log_line(view, move, ply - 1) or "pass") + self.marks.get(ply, "")
            keys.append((turn, view.players[seat], (text,), 0 if ply == highlight_ply else None))
        return keys


class MonadScreen(GameScreen):
    board_class = MonadBoard
    CSS = MONAD_CSS
    SCOPED_CSS = False  # the selectors name the screen's class (monad) themselves
    #: What the map's marks mean, after the key table (``termgames rules``, the ``?`` help).
    HELP_NOTES = SEAT_KEYS
    #: Nothing is focused at first, so every key reaches the screen: at a shared table the first focusable
    #: widget is the (hidden) chat line, which would take the digits and Enter.
    AUTO_FOCUS = ""

    BINDINGS = [
        Binding("enter", "act", "End turn", key_display="Enter",
                tooltip="end the turn: send the queued commands as one move (pass with none)"),
        Binding("space", "move_mode", "Move", key_display="Space",
                tooltip="then a direction key (left, right, w, e, z, x) queues a MOVE that way"),
        Binding("m", "queue('MINE')", "Mine", tooltip="queue MINE with the units chosen at the cursor"),
        Binding("b", "queue('BUILD')", "Build", tooltip="queue BUILD with the units chosen at the cursor"),
        Binding("backspace,delete", "unqueue", "Take back", key_display="Bksp",
                tooltip="take back the last queued command on the cursor's cell (else the last one)"),
        Binding("escape", "clear", "Clear", show=False, tooltip="clear the units typed and the move mode"),
        *LEAVING,  # Esc with nothing typed to clear
        *[
            # Off the footer (the ? help lists them): with them the footer ran past 80 columns.
            Binding(str(n), f"digit({n})", "Units", key_display="0-9", show=False,
                    tooltip="type how many units the next command takes (none typed: all not yet commanded)")
            for n in range(10)
        ],
        Binding("plus,equals_sign", "count(1)", "Units +", show=False, tooltip="one unit more or less"),
        Binding("minus", "count(-1)", "Units -", show=False, tooltip="one unit more or less"),
        Binding("a", "cursor('left')", "Left", show=False, tooltip="cursor W"),
        Binding("d", "cursor('right')", "Right", show=False, tooltip="cursor E"),
        Binding("w,home", "cursor('up_left')", "Up-left", show=False, tooltip="cursor NW"),
        Binding("e,pageup", "cursor('up_right')", "Up-right", show=False, tooltip="cursor NE"),
        Binding("z,end", "cursor('down_left')", "Down-left", show=False, tooltip="cursor SW"),
        Binding("x,pagedown", "cursor('down_right')", "Down-right", show=False, tooltip="cursor SE"),
        Binding("shift+left,A", "queue_move('W')", "Move W", show=False, tooltip="queue a MOVE W in one key"),
        Binding("shift+right,D", "queue_move('E')", "Move E", show=False, tooltip="queue a MOVE E in one key"),
        Binding("W", "queue_move('NW')", "Move NW", show=False, tooltip="queue a MOVE NW in one key"),
        Binding("E", "queue_move('NE')", "Move NE", show=False, tooltip="queue a MOVE NE in one key"),
        Binding("Z", "queue_move('SW')", "Move SW", show=False, tooltip="queue a MOVE SW in one key"),
        Binding("X", "queue_move('SE')", "Move SE", show=False, tooltip="queue a MOVE SE in one key"),
        Binding("U", "layer('units')", "Layers", key_display="U/R/H", show=False, tooltip="units layer on/off"),
        Binding("question_mark", "help", "Help", key_display="?", tooltip="the rules and these keys"),
        Binding("R", "layer('resources')", "Resources", show=False, tooltip="resources layer on/off"),
        Binding("H", "layer('hives')", "Hives", show=False, tooltip="hives layer on/off"),
        Binding("tab", "next_units(1)", "Next", show=False,
                tooltip="cursor to the next cell of your units not yet commanded (Shift+Tab: back)"),
        Binding("shift+tab", "next_units(-1)", "Previous", show=False,
                tooltip="cursor to the next cell of your units not yet commanded (Shift+Tab: back)"),
        Binding("u", "undo", "Undo", show=False, tooltip="take back your last turn (the bots answer again)"),
    ]

    #: Under the map the panel keeps its ten lines (the turn, the totals, the units typed, the queue, the log):
    #: the map keeps the cursor's row and two either side at 50x20 all the same.
    PANEL_LINES_WANTED: ClassVar[int] = PANEL_LINES_UNDER

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.add_class("monad")  # the layout (MONAD_CSS) for the seat screen and its shared version alike
        self.queued: list[Command] = []
        #: Units typed for the next command; None means every unit at the cell not yet commanded.
        self.count: int | None = None
        #: Space was pressed: the next direction key queues a move instead of moving the cursor.
        self.moving = False
        #: The map shows this seat's commands already sent (not a queue being built).
        self._sent_shown = False

    # -- layout --------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(
            players_title(self.table.game.title, self.table.seats, self.ascii_only), id="game-title", markup=False
        )
        with Horizontal(id="game-body"):
            with BoardColumn(id="board-column"):  # as GameScreen's: the cursor's line stays under the map
                with BoardArea(id="board-area"):
                    yield MonadBoard(ascii_only=self.ascii_only, palette=self.palette_name, id="board")
                yield Static("", id="cursor-line", markup=False)
            with Vertical(id="side-panel"):
                yield Static("", id="status")
                yield Static("", id="totals")
                yield Static("", id="builder")
                yield Static("", id="queue")
                yield Static("", id="last-action")
                # What each seat sent, turn by turn: ``L`` (the shared key) scrolls it by keyboard.
                yield MonadTurnLog(id="move-log")
        yield Static("", id="message")
        yield Footer()

    @property
    def monad_board(self) -> MonadBoard:
        return self.query_one("#board", MonadBoard)

    def on_resize(self) -> None:
        # The line under the map words the cursor's cell for its width (GameScreen's own handler runs too).
        self.call_after_refresh(self.update_panel)

    #: The panel beside the map: at least its stylesheet's 19 columns (the 20x20 map's 61 fit beside it at 80), and
    #: the columns a smaller map leaves, up to this many (they lay blank between the two, the panel's texts wrapped
    #: two words a line).
    PANEL_WIDTH_MOST = 32

    def fit_panel(self) -> None:
        super().fit_panel()
        panel = self.query_one("#side-panel")
        if self.has_class("narrow"):
            panel.styles.width = None  # the stylesheet's: the whole width, under the map
            return
        spare = self.app.size.width - self.monad_board.whole_columns()
        panel.styles.width = max(PANEL_WIDTH_LEAST, min(self.PANEL_WIDTH_MOST, spare))

    # -- drawing -------------------------------------------------------------

    def my_seat(self) -> int | None:
        view = self.view
        return view.viewer if view is not None and isinstance(view.viewer, int) else None

    def available(self, x: int, y: int) -> int:
        """My units at (x, y) not yet given a queued command."""
        board = self.monad_board
        seat = self.my_seat()
        if board.board is None or seat is None:
            return 0
        cell = board.cell(x, y)
        if cell.get("owner") != board.players[seat]:
            return 0
        taken = sum(c.n for c in self.queued if (c.x, c.y) == (x, y))
        return int(cell.get("units", 0)) - taken

    def show_status(self, status: Text) -> None:
        update_if_changed(self.query_one("#status", Static), status)

    def update_panel(self) -> None:
        view = self.view
        board = self.monad_board
        if view is None or board.board is None:
            return
        data = board.board
        self.show_status(Text(self.status_line(), style="bold"))
        totals = totals_text(board.players, json_totals(data, board.players), board.palette)
        update_if_changed(self.query_one("#totals", Static), totals)
        update_if_changed(self.query_one("#builder", Static), self.builder_text())
        update_if_changed(self.query_one("#queue", Static), self.queue_text())
        # The turn's log quotes the seats' faults: drawn safe as every move log is.
        last_action = Text(printable(view.last_action), style="italic")
        update_if_changed(self.query_one("#last-action", Static), last_action)
        self.query_one(MonadTurnLog).show(view)
        cursor_line = self.query_one("#cursor-line", Static)
        room = cursor_line.content_size.width if cursor_line.size.width else None
        update_if_changed(cursor_line, board.cursor_detail(room))
        look = "bold red" if self._message_is_error else "bold"
        message = self.query_one("#message", Static)
        update_if_changed(message, Text(self.message, style=look) if self.message else "")
        # No blank line for no message: at 80x24 that line is a row of the map (two over SSH, with the chat).
        message.display = bool(self.message)

    def builder_text(self) -> Text:
        if self._sent_shown:
            return Text("sent: u takes them back", style="dim")
        spot = self.monad_board.cursor_xy()
        free = self.available(*spot) if spot else 0
        units = "all" if self.count is None else str(self.count)
        text = Text(f"units: {units} of {short_count(max(0, free))}", style="bold" if self.count is not None else "")
        if self.moving:
            text.append("\nmove: which way?", style="bold reverse")
        return text

    def queue_text(self) -> Text:
        if not self.queued:
            return Text("no commands sent" if self._sent_shown else "no commands queued", style="dim")
        text = Text(f"{len(self.queued)} {'sent' if self._sent_shown else 'queued'}:", style="bold")
        for command in self.queued[-8:]:
            text.append("\n" + short_numbers(command.text()))  # "all" of 1e309 units is written short
        if len(self.queued) > 8:
            text.append(f"\n({len(self.queued) - 8} more)", style="dim")
        return text

    def refresh_view(self) -> None:
        previous_map = self._map_of_view()
        super().refresh_view()
        own = getattr(self.view, "own_commands", None)
        if own is not None:
            self._set_queue(list(own))  # sent: the map shows what this seat ordered, until the turn resolves
        elif self._map_of_view() != previous_map or self._sent_shown:
            # Another map (a new turn, an undo, another line as long): commands queued on the old one no longer apply.
            self._set_queue([])
        self._sent_shown = own is not None
        self.update_panel()

    def _map_of_view(self) -> Any:
        """The map on screen, whole: the position the queued commands were given on (its turn number is not)."""
        return self.monad_board.board if self.is_mounted else None

    # -- commands ------------------------------------------------------------

    def _set_queue(self, queued: list[Command]) -> None:
        self.queued = queued
        self.monad_board.set_queue(queued)
        self.update_panel()

    #: The keys that build a turn's commands: nothing to build once the game is over.
    TURN_ACTIONS = frozenset({"move_mode", "queue", "queue_move", "unqueue", "digit", "count", "next_units", "clear"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Once the game is over the footer keeps the keys that still do something (rematch, new game, undo)."""
        if action in self.TURN_ACTIONS and self.is_mounted and self.view is not None and self.view.over:
            return False
        if action == "clear":
            return self.count is not None or self.moving  # else Esc is the way out
        return super().check_action(action, parameters)

    def _can_command(self) -> bool:
        view = self.view
        if view is None or view.over:
            self.say("The game is over: u undoes, q leaves")
            return False
        if self.my_seat() is None:
            self.say("You are watching this game")
            return False
        if self.my_seat() not in view.to_move:
            if getattr(view, "own_commands", None) is None:
                self.say("You have neither hive nor unit left: the others play on")
            else:
                self.say("Your commands for this turn are sent: waiting for the others")
            return False
        return True

    def action_digit(self, digit: int) -> None:
        self.count = min(MAX_COUNT, (self.count or 0) * 10 + digit)
        self.update_panel()

    def action_count(self, delta: int) -> None:
        spot = self.monad_board.cursor_xy()
        start = self.count if self.count is not None else (self.available(*spot) if spot else 0)
        self.count = max(1, min(MAX_COUNT, start + delta))
        self.update_panel()

    def action_clear(self) -> None:
        self.count = None
        self.moving = False
        self.say("", error=False)

    def action_move_mode(self) -> None:
        if not self._can_command():
            return
        self.moving = not self.moving
        self.update_panel()

    def action_cursor(self, direction: str) -> None:
        if self.moving:
            self.moving = False
            if direction in KEY_DIRECTIONS:
                self.action_queue_move(KEY_DIRECTIONS[direction])
            else:
                self.say("A move goes W E NW NE SW SE: left, right, w, e, z or x")
            return
        super().action_cursor(direction)

    def action_queue_move(self, direction: str) -> None:
        self.action_queue("MOVE", direction)

    def action_queue(self, action: str, direction: str | None = None) -> None:
        self.moving = False
        if not self._can_command():
            return
        spot = self.monad_board.cursor_xy()
        if spot is None:
            return
        x, y = spot
        free = self.available(x, y)
        units = free if self.count is None else self.count
        if free <= 0:
            self.say(f"No units of yours left to command at {x},{y}")
            return
        if units > free:
            self.say(f"Only {free} of your units left to command at {x},{y}")
            return
        self.count = None
        self.message = ""
        self._set_queue([*self.queued, Command(x, y, units, action, direction)])

    def action_unqueue(self) -> None:
        if not self.queued:
            self.say("No commands queued")
            return
        spot = self.monad_board.cursor_xy()
        here = [i for i, c in enumerate(self.queued) if spot is not None and (c.x, c.y) == spot]
        index = here[-1] if here else len(self.queued) - 1
        removed = self.queued[index]
        self._set_queue(self.queued[:index] + self.queued[index + 1 :])
        self.say(f"Took back {removed.text()}", error=False)

    def action_next_units(self, step: int) -> None:
        """Tab: the cursor to the next cell (reading order, wrapping) holding units of mine not yet commanded."""
        board = self.monad_board
        spot = board.cursor_xy()
        if board.board is None or spot is None:
            return
        width, height = board.map_size
        start = spot[1] * width + spot[0]
        for offset in range(1, width * height + 1):
            cell = (start + step * offset) % (width * height)
            if self.available(cell % width, cell // width) > 0:
                board.cursor = cell
                self.message = ""  # as any cursor move: what was said was about the cell it leaves
                board.redraw()
                self.update_panel()
                self.call_after_refresh(self.scroll_to_cursor)
                return
        self.say("No units of yours left to command", error=False)

    def action_layer(self, layer: str) -> None:
        shown = self.monad_board.toggle_layer(layer)
        self.notify(f"{layer}: {'on' if shown else 'off'}", timeout=1.5)

    def move_at_cursor(self, view: Any) -> str | None:
        return format_commands(self.queued)

    def submit(self, move: str | None) -> None:
        """End the turn.  Turns are simultaneous: a computer seat still thinking does not block it."""
        view = self.view
        if view is None or self._privacy_open:
            return
        if not self._can_command():
            return
        seat = self.my_seat()
        assert seat is not None
        text = move if move is not None else format_commands(self.queued)
        try:
            self.table.play(seat, text)
        except RuleError as error:
            self.say(str(error))
            return
        self.message = ""
        self.moving = False
        self.count = None
        self._set_queue([])
        self.refresh_view()
