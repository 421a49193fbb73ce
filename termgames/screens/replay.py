"""Replay: step through a recorded game as one seat, a spectator, or (once over) everyone."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import get_current_worker

from ..clock import Clocks
from ..match import Match
from ..rules import Viewer
from ..rules.base import ALL
from ..widgets.board import Board, BoardArea
from ..widgets.clock import ClockLines, out_note
from ..widgets.footer import Footer
from ..widgets.move_log import MoveLog
from ..widgets.palette import next_palette, use_ascii_scrollbars
from ..widgets.panel import SidePanel
from . import game_screen_class
from .base import AppScreen, GameBody, SizedScreen, fit_side_panel, set_narrow, title_line
from .dialogs import GoToMoveScreen, HelpScreen, leave_screen
from .keys import keys_markdown
from .replay_analysis import REVIEW_BINDINGS, GameReview, ReplayAnalysis, review_graph

SPEEDS = (4.0, 2.0, 1.0, 0.5, 0.25)  # seconds per move


class ReplayScreen(GameReview, SizedScreen[None], AppScreen[None]):
    #: The game screen's layout (see GameScreen.MINIMUM_SIZE) less the cursor's line: 50 x 19.
    MINIMUM_SIZE = (50, 19)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "step(-1)", "Prev", key_display="h", tooltip="the previous move"),
        Binding("right,l", "step(1)", "Next", key_display="l", tooltip="the next move"),
        Binding("home,g", "jump('start')", "Start", show=False, tooltip="the start"),
        Binding("end,G", "jump('end')", "End", show=False, tooltip="the end"),
        Binding("colon,number_sign", "goto", "Go to", key_display=":", tooltip="go to a move by its number"),
        Binding("space,p", "play", "Play", tooltip="play the moves one after another, or pause"),
        # One footer entry for both speed keys: with the hint key the footer ran past 80 columns.
        Binding("plus,equals_sign", "speed(1)", "Speed", key_display="+/-", tooltip="play faster, slower"),
        Binding("minus", "speed(-1)", "Slower", key_display="-", show=False, tooltip="play faster, slower"),
        Binding("v", "next_viewer", "View",
                tooltip="view as the next seat, as a spectator, or (once the game is over) every board; an "
                "unfinished game with hidden boards shows only what its one human player saw"),
        Binding("n", "analysis", "Hint",
                tooltip="analysis on or off, for the position on screen: what the live game's hint or overlay shows"),
        *REVIEW_BINDINGS,
        Binding("c", "palette", "Colours", show=False,
                tooltip="cycle the colours: default, colour-blind safe, monochrome"),
        # As in the live game: Tab goes round the boards when the analysis covers one of several (Mono's overlay
        # at 3-4 players; check_action turns it off otherwise), else to the log.
        Binding("tab", "next_board(1)", "Board", show=False,
                tooltip="analysis of one board among several: the next, previous board it covers"),
        Binding("shift+tab", "next_board(-1)", "Board", show=False,
                tooltip="analysis of one board among several: the next, previous board it covers"),
        Binding("tab,shift+tab,L", "app.focus_next", "Log", show=False,
                tooltip="to the move log and back: there up, down, PageUp, PageDown, Home and End scroll it (Esc back "
                "too)"),
        Binding("question_mark", "help", "Help", key_display="?", show=False, tooltip="the rules and these keys"),
        Binding("q,escape", "leave", "Quit", tooltip="leave the replay"),
    ]

    def __init__(self, match: Match, source: str = "", *, ascii_only: bool = False, palette: str = "default") -> None:
        super().__init__()
        self.match = match
        self.source = source
        self.ascii_only = ascii_only
        self.palette_name = palette
        self.ply = 0
        self.speed_index = 2
        self.timer: Timer | None = None
        #: The game's own screen: what it hides, its board widget and its analysis.
        self.screen_class = screen_class = game_screen_class(match.game.name)
        self.viewers: list[int | None] = self.allowed_viewers(screen_class.hides_information)
        self.viewer_index = 0
        #: The live game's analysis for the position on screen (``n``), if the game offers one.
        self.analysis: ReplayAnalysis | None = screen_class.replay_analysis(dict(match.options))
        self.analysing = False
        #: Which of the boards the analysis may cover it covers (Tab adds one; see ReplayAnalysis.choices).
        self.analysis_choice = 0
        #: Results worked out: (the position, ``View.position_key``; the board chosen) -> what ``analysis.show`` takes.
        self._analysed: dict[tuple[Hashable, int], object | None] = {}
        self.init_review()

    def allowed_viewers(self, hides_information: bool) -> list[int | None]:
        """Every seat, a spectator, and everything once the game is over; but while a game with hidden boards is
        unfinished, no seat its replayer may not be: only the one human's seat against computers, else none."""
        match = self.match
        seats = list(range(len(match.seats)))
        if match.over:
            return [ALL, *seats, None]
        if hides_information:
            humans = [seat for seat in seats if not match.seats[seat].is_ai]
            if len(humans) == 1:
                seats = humans  # a game against the computer: its player may see what they saw
            elif humans:
                seats = []  # hot seat: whoever replays may be any of them
        return [*seats, None]

    @property
    def board(self) -> Board[Any]:
        return self.query_one("#board", Board)

    @property
    def viewer(self) -> Viewer:
        return self.viewers[self.viewer_index]

    def compose(self) -> ComposeResult:
        board_class = self.screen_class.board_class
        title = title_line(f"Replay: {self.match.game.title}", self.match.seats, self.ascii_only)
        yield Static(title, id="game-title", markup=False)
        with GameBody(id="game-body"):
            with BoardArea(id="board-area"):
                yield board_class(ascii_only=self.ascii_only, palette=self.palette_name, interactive=False, id="board")
            yield SidePanel(id="side-panel")
        yield review_graph(self.ascii_only)
        yield Static("", id="message")
        yield Footer()

    def on_mount(self) -> None:
        if self.ascii_only:
            use_ascii_scrollbars(self)
        if self.match.clock is not None:
            self.query_one(SidePanel).mount(ClockLines(self.ascii_only, id="clocks"), before=0)
        self.show()

    def on_resize(self) -> None:
        set_narrow(self)
        self.board.redraw()
        fit_side_panel(self, self.board)

    def on_game_body_resized(self, _message: GameBody.Resized) -> None:
        fit_side_panel(self, self.board)

    def on_board_area_resized(self, _message: BoardArea.Resized) -> None:
        # The lines the board has: boards that draw roomier or tighter by them (MonUnrail's, Copolymer's) choose.
        self.board.set_room(self.query_one("#board-area", BoardArea).size.height)

    def viewer_name(self) -> str:
        viewer = self.viewer
        if viewer == ALL:
            # A game without hidden boards shows every seat the same board: there is no "every board" to see.
            return "every board" if self.match.game.descriptor.hidden_information else "everyone (nothing is hidden)"
        if viewer is None:
            return "a spectator"
        return self.match.names[viewer]

    def show(self) -> None:
        view = self.match.view(self.viewer, self.ply)
        self.board.show(view)
        self.refresh_bindings()  # the analysis key is offered where the position has an analysis
        if self.analysing:
            self.request_analysis(view)  # on the board before its legend is drawn
        total = len(self.match.moves)
        playing = f"playing, {SPEEDS[self.speed_index]:g} s a move" if self.timer else "paused"
        status = Text(f"move {self.ply} of {total}", style="bold")
        status.append(f"  ({playing})\nviewing as {self.viewer_name()}\n")
        status.append(view.status)
        full = self.match.view(self.viewer, total)
        board = self.board
        self.show_review()
        self.query_one(SidePanel).show(
            view, status, Text.assemble(*board.legend()), log_view=full, highlight_ply=self.ply, follow_log=False
        )
        self.show_clocks()
        # Once laid out (the log's width decides how its lines wrap), the current move's line is kept in sight.
        self.call_after_refresh(self.query_one(MoveLog).keep_ply_in_sight, self.ply)

    def show_clocks(self) -> None:
        """Each seat's clock as the record says it stood after the move on screen."""
        match = self.match
        left = match.clocks_at(self.ply)
        if match.clock is None or left is None or not self.query("#clocks"):
            return
        out = tuple(sorted({flag.seat for flag in match.flags if flag.ply <= self.ply}))
        note = out_note(len(match.seats), match.game.timeout_move)
        self.query_one("#clocks", ClockLines).show(Clocks(match.clock, left, out=out), 0.0, match.names, note)

    # -- the game's analysis (a): GameReview's, on the move just played -----

    def review_ply(self) -> int:
        return self.ply

    def go_to_ply(self, ply: int) -> None:
        self.ply = ply

    def review_board_free(self) -> bool:
        return not self.analysing

    # -- analysis ------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "analysis":
            # Offered where the position has something to show (not at the end, nor on every board), or to turn off.
            return self.analysis is not None and (self.analysing or self.analysis_here())
        if action == "next_board":
            return self.analysing and len(self.analysis_choices()) > 1
        return True

    def analysis_here(self) -> bool:
        """Whether the analysis has something to show for the position on screen (its work is not done here)."""
        if self.analysis is None or not self.is_mounted:
            return False
        return self.analysis.prepare(self.match.view(self.viewer, self.ply), self.board) is not None

    def analysis_choices(self) -> list[str]:
        """The boards the analysis may cover in the position on screen (one or none: nothing to choose)."""
        if self.analysis is None or not self.is_mounted:
            return []
        return self.analysis.choices(self.match.view(self.viewer, self.ply))

    def action_next_board(self, step: int) -> None:
        """Tab: the analysis covers the next board (Shift+Tab: the previous), as Tab moves the live game's cursor."""
        choices = self.analysis_choices()
        if choices:
            self.analysis_choice = (self.analysis_choice + step) % len(choices)
            self.show()

    def action_analysis(self) -> None:
        if self.analysis is None or not (self.analysing or self.analysis_here()):
            return
        self.analysing = not self.analysing
        self.refresh_bindings()  # Tab: the next board while the analysis is on, else the log
        if self.analysing:
            self.show()
            return
        self.analysis.show(self.board, None)
        self.query_one("#message", Static).update("")
        self.show()

    def request_analysis(self, view: Any) -> None:
        """The analysis of the position on screen: at once if worked out before, else from a thread."""
        assert self.analysis is not None
        choices = self.analysis.choices(view)
        choice = self.analysis_choice % len(choices) if choices else 0
        # Which board it covers, and the key that changes it: the live game draws its cursor there instead.
        covers = f"Analysis of {choices[choice]} (Tab: the next board)" if len(choices) > 1 else ""
        self.query_one("#message", Static).update(covers)
        self.refresh_bindings()
        key = (view.position_key(), choice)
        if key in self._analysed:
            self.analysis.show(self.board, self._analysed[key])
            return
        task = self.analysis.prepare(view, self.board, choice)
        self.analysis.show(self.board, None)  # the last position's analysis is not this one's
        if task is None:
            self._analysed[key] = None
            return
        self.query_one("#message", Static).update("Working out the analysis ...")
        self.analyse(key, task)

    @work(thread=True, exclusive=True, group="analysis")
    def analyse(self, key: tuple[Hashable, int], task: Callable[[], object]) -> None:
        try:
            result = task()
        except Exception as error:  # the analysis is a help: its failure must not end the replay
            self._tell(self._analysis_failed, str(error))
            return
        if not get_current_worker().is_cancelled:
            self._tell(self._analysed_one, key, result)

    def _analysed_one(self, key: tuple[Hashable, int], result: object) -> None:
        self._analysed[key] = result
        here = self.match.view(self.viewer, self.ply).position_key()
        if self.analysing and self.analysis is not None and key[0] == here:
            self.show()  # the board and its legend again, with the analysis now at hand (and its message)

    def _analysis_failed(self, error: str) -> None:
        self.analysing = False
        self.query_one("#message", Static).update(Text(f"The analysis failed: {error}", style="bold red"))

    # -- actions -------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        self.ply = max(0, min(len(self.match.moves), self.ply + delta))
        self.show()

    def action_jump(self, where: str) -> None:
        self.ply = 0 if where == "start" else len(self.match.moves)
        self.show()

    def action_goto(self) -> None:
        def chosen(number: int | None) -> None:
            if number is not None:
                self.ply = number
                self.show()

        self.app.push_screen(GoToMoveScreen(len(self.match.moves)), chosen)

    def action_play(self) -> None:
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        else:
            if self.ply >= len(self.match.moves):
                self.ply = 0
            self.timer = self.set_interval(SPEEDS[self.speed_index], self._advance)
        self.show()

    def _advance(self) -> None:
        if self.ply >= len(self.match.moves):
            self.action_play()  # reached the end: pause
            return
        self.action_step(1)

    def action_speed(self, delta: int) -> None:
        self.speed_index = max(0, min(len(SPEEDS) - 1, self.speed_index + delta))
        if self.timer is not None:
            self.timer.stop()
            self.timer = self.set_interval(SPEEDS[self.speed_index], self._advance)
        self.show()

    def action_next_viewer(self) -> None:
        if len(self.viewers) == 1:
            self.notify("The game is unfinished and its boards are secret: it replays as a spectator sees it",
                        timeout=4, markup=False)
            return
        self.viewer_index = (self.viewer_index + 1) % len(self.viewers)
        self.show()

    def action_palette(self) -> None:
        self.palette_name = next_palette(self.palette_name)
        self.board.set_palette(self.palette_name)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.match.game.rules_text(), keys_markdown(type(self))))

    def action_leave(self) -> None:
        # A replay changes nothing: leaving it loses nothing, opened from the command line as from the start screen.
        leave_screen(self, None)
