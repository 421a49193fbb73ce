"""What replays show of analysis: the live game's (``n``, :class:`ReplayAnalysis`) and the game's own move by move
(``a``, :class:`GameReview`), the latter shared by the generic replay and Monad's turn-by-turn one."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderableType, RenderResult
from rich.text import Text
from textual import work
from textual.app import RenderResult as TextualRender
from textual.binding import Binding, BindingType
from textual.geometry import Spacing
from textual.screen import Screen
from textual.widgets import Sparkline, Static
from textual.worker import get_current_worker

from ..analysis import Analysis, MoveAnalysis
from ..analysis_run import AnalysisCancelled, analyse_match, check_analysable, stored_analysis
from ..errors import RuleError
from ..match import Match
from ..untrusted import printable
from ..widgets.board import Board, BoardArea
from ..widgets.move_log import MoveLog


class ReplayAnalysis(Protocol):
    """What ``n`` shows in a replay: a game screen's ``replay_analysis`` gives one, or None.

    ``prepare`` runs on the loop: it reads what it needs of the view and the
    board, and gives back the work to do in a thread (None: nothing to show
    for this position).  ``show`` puts the work's result on the board, or
    takes the analysis off with None.

    An analysis of one board among several (Mono's overlay of one opponent's
    board) names the boards it may cover in ``choices``; the replay's Tab and
    Shift+Tab, the live game's keys for the next board, pick ``choice``, an
    index into them (taken modulo their number).  Others give no choices.
    """

    def choices(self, view: Any) -> list[str]: ...

    def prepare(self, view: Any, board: Any, choice: int = 0) -> Callable[[], object] | None: ...

    def show(self, board: Any, result: object | None) -> None: ...


#: The game's analysis keys, the same in every replay (in each screen's BINDINGS where its key table wants them).
REVIEW_BINDINGS: list[BindingType] = [
    # In the footer (a player would not find the analysis in the help alone); its mistake keys once it is on.
    Binding("a", "review", "Review",
            tooltip="the game's move-by-move analysis on or off (worked out first if the record has none): a graph "
            "of each move's loss, the moves marked ?! ? ?? in the log, the engine's better move on the board"),
    Binding("m", "next_mistake(1)", "Mistake", key_display="m/M", show=False,
            tooltip="with the analysis on: the next, previous move marked as an inaccuracy, mistake or blunder"),
    Binding("M", "next_mistake(-1)", "Mistake", key_display="M", show=False,
            tooltip="with the analysis on: the next, previous move marked as an inaccuracy, mistake or blunder"),
]

#: Characters of a move the review line quotes (a Monad turn's commands run long): the rest is cut to "...".
QUOTED_MOVE = 48


def quoted_move(move: str) -> str:
    """A move of the analysis (read from a record: untrusted) safe to print, and short enough for the line."""
    text = printable(move, keep_newlines=False)
    return text if len(text) <= QUOTED_MOVE else text[: QUOTED_MOVE - 3] + "..."


#: The graph's bars in ASCII (--ascii, a terminal that is not UTF-8): as low to high as Textual's eighth blocks.
ASCII_BARS = str.maketrans("▁▂▃▄▅▆▇█", "_.,:-=+#")


class AsciiBars:
    """A renderable drawn as ``renderable`` is, its block characters swapped for ASCII ones (:data:`ASCII_BARS`)."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for segment in console.render(self.renderable, options):
            yield segment._replace(text=segment.text.translate(ASCII_BARS))


class ReviewGraph(Sparkline):
    """Textual's Sparkline of each move's loss, in ASCII where the screen draws ASCII only."""

    def __init__(self, ascii_only: bool, **kwargs: Any) -> None:
        super().__init__([], **kwargs)
        self.ascii_only = ascii_only

    def render(self) -> TextualRender:
        drawn = super().render()
        return AsciiBars(drawn) if self.ascii_only and isinstance(drawn, ConsoleRenderable) else drawn


def review_graph(ascii_only: bool = False) -> Sparkline:
    """The graph of each move's loss: one line over the message, hidden until the analysis is on."""
    graph = ReviewGraph(ascii_only, id="analysis-graph")
    graph.styles.height = 1
    graph.styles.margin = (0, 1)
    graph.display = False
    return graph


class GameReview(Screen[None]):
    """The game's move-by-move analysis in a replay (``a``): the graph of each move's loss (``#analysis-graph``,
    from :func:`review_graph`), the marks ``?!`` ``?`` ``??`` in the move log, ``m``/``M`` to the next, previous
    marked move, the line on the move in question in ``#message`` and the engine's better move on the board
    (``Board.suggest``).  Read from the record's ``analysis`` section when it holds one that fits, else worked
    out in a thread on ``a`` (its progress in the message).

    Put before the screen's other bases.  The screen says which move is in question and how to go to one
    (``review_ply``, ``go_to_ply``), where the board and the log are, and shows itself again (``show``, which
    calls ``show_review``).  It calls ``init_review`` in its ``__init__``, composes the graph and ``#message``
    and lists :data:`REVIEW_BINDINGS` among its keys.
    """

    match: Match

    def init_review(self) -> None:
        #: The game's move-by-move analysis (``a``): the record's own when it holds one that fits, else worked out;
        #: never one of a game still hiding what its seats hold (no front end writes one; a file may hold one).
        self.review: Analysis | None = None
        with contextlib.suppress(RuleError):
            check_analysable(self.match)
            self.review = stored_analysis(self.match)[0]
        self.reviewing = self.review is not None
        #: "" or the line the analysis being worked out shows (its progress), or why it cannot be.
        self.review_note = ""

    def footer_shows_now(self) -> frozenset[str]:
        """The mistake keys join the footer while the analysis is on."""
        return frozenset({"next_mistake(1)"}) if self.review is not None and self.reviewing else frozenset()

    # -- what the screen says ------------------------------------------------

    def review_ply(self) -> int:
        """The move (1-based ply) whose line the review shows; 0 for none (the start)."""
        raise NotImplementedError

    def go_to_ply(self, ply: int) -> None:
        """Show the position of move ``ply`` with that move in question (``m``, ``M``)."""
        raise NotImplementedError

    def review_board(self) -> Board[Any]:
        return self.query_one("#board", Board)

    def review_log(self) -> MoveLog:
        return self.query_one(MoveLog)

    def review_board_free(self) -> bool:
        """Whether the board may show the better move (the generic replay's hint, ``n``, has it while on)."""
        return True

    if TYPE_CHECKING:  # the screen's own (declared here only: defined, it would come before a base's in the MRO)

        def show(self) -> None: ...

    # -- drawing ---------------------------------------------------------------

    def reviewed_move(self) -> MoveAnalysis | None:
        """The analysis of the move in question, when the analysis is on."""
        review = self.review if self.reviewing else None
        ply = self.review_ply()
        return review.moves[ply - 1] if review is not None and 0 < ply <= len(review.moves) else None

    def show_review(self) -> None:
        """The analysis, when on: the graph of losses, the marks in the log, the line on the move in question and
        the engine's better move on the board."""
        review = self.review if self.reviewing else None
        graph = self.query_one("#analysis-graph", Sparkline)
        graph.display = review is not None
        self.review_log().marks = {} if review is None else {m.ply: m.mark for m in review.moves if m.mark}
        line = self.reviewed_move()
        if review is not None:
            graph.data = [m.loss for m in review.moves] or [0.0]
        board = self.review_board()
        if not self.review_board_free():
            board.suggest(None)  # the hint's marks and message have the board (a MonUnrail hint's cells)
            return
        drawn = board.suggest(None if line is None or line.best is None else line.best)
        self.query_one("#message", Static).update(self.review_line(review, line, drawn) or self.review_note)
        if drawn and line is not None and line.best is not None:
            self.call_after_refresh(self.scroll_to_suggestion)

    def scroll_to_suggestion(self) -> None:
        """A board bigger than its area scrolls to the better move's marks, clear of the labels kept at its edges."""
        board = self.review_board()
        region = board.suggestion_region()
        area = next((node for node in board.ancestors if isinstance(node, BoardArea)), None)
        if region is None or area is None or not board.is_mounted:
            return
        labels = board.pinned_labels()
        area.scroll_to_region(
            region.translate(board.virtual_region.offset + board.content_offset),
            spacing=Spacing(1 + labels.top, 2, 1 + labels.bottom, 2 + labels.left),
            animate=False,
            immediate=True,
        )

    def review_move_label(self, line: MoveAnalysis) -> str:
        """What the review line calls the move in question before its player's name: its number."""
        return f"{line.ply}."

    def review_move_text(self, line: MoveAnalysis) -> str:
        """The move in question as the review line quotes it ("": not at all, the log shows it)."""
        return quoted_move(line.move)

    def review_line(self, review: Analysis | None, line: MoveAnalysis | None, drawn: bool) -> Text | None:
        if review is None:
            return None
        if line is None:
            return Text(f"Analysis at level {review.level}: m, M go to the next, previous mistake")
        label, played = self.review_move_label(line), self.review_move_text(line)
        text = Text(f"{label} {printable(line.player)} {played}{line.mark} ".replace("  ", " "), style="bold")
        if line.klass == "good":
            text.append("good")
        else:
            text.append(f"{line.klass}: loses {line.loss:.2f} {review.unit}")
        if line.best is not None:
            where = " (marked)" if drawn else ""
            text.append(f"; better {quoted_move(line.best)}{where}")
        if line.hindsight:
            text.append(" (with hindsight)")
        return text

    # -- actions ---------------------------------------------------------------

    def action_review(self) -> None:
        if self.review is not None:
            self.reviewing = not self.reviewing
            self.refresh_bindings()  # the footer's mistake keys
            self.show()
            return
        try:
            check_analysable(self.match)
        except RuleError as error:
            self.review_note = str(error)
            self.show()
            return
        self.review_note = "Analysing the game ..."
        self.show()
        self.work_out_review()

    @work(thread=True, exclusive=True, group="review")
    def work_out_review(self) -> None:
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            self._tell(self._review_progress, done, total)

        try:
            review = analyse_match(self.match, progress=progress, cancelled=lambda: worker.is_cancelled)
        except AnalysisCancelled:
            return
        except Exception as error:  # the analysis is a help: its failure must not end the replay
            self._tell(self._review_failed, str(error))
            return
        self._tell(self._reviewed, review)

    def _tell(self, callback: Callable[..., None], *args: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the app closed while the worker ran: nothing to tell
            self.app.call_from_thread(callback, *args)

    def _review_progress(self, done: int, total: int) -> None:
        self.review_note = f"Analysing the game: {done} of {total} moves"
        if self.review_board_free():
            self.query_one("#message", Static).update(self.review_note)

    def _review_failed(self, error: str) -> None:
        self.review_note = f"The game's analysis failed: {error}"
        self.show()

    def _reviewed(self, review: Analysis) -> None:
        self.review, self.reviewing, self.review_note = review, True, ""
        self.refresh_bindings()
        self.show()

    def action_next_mistake(self, step: int) -> None:
        if self.review is None or not self.reviewing:
            self.review_note = "No analysis on: a works it out"
            self.show()
            return
        here = self.review_ply()
        marked = [m.ply for m in self.review.moves if m.klass != "good"]
        ahead = [ply for ply in marked if ply > here] if step > 0 else [ply for ply in marked if ply < here][::-1]
        if not ahead:
            self.notify(f"No move marked {'after' if step > 0 else 'before'} this one", timeout=3, markup=False)
            return
        self.go_to_ply(ahead[0])
        self.show()
