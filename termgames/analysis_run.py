"""Analysing a whole game: every move of a match handed, as its mover saw the position, to the game's analyst.

:class:`MatchAnalysis` is the one driver, a move at a time (``ssh HOST analyse TABLE`` steps it so);
:func:`analyse_match` runs it through (``termgames analyse``, the replay screen).  It walks the match's positions,
gives the game's :class:`~termgames.analysis.Analyst` the view **of the seat that moved, before its move**
(``match.view(seat, ply)``: what that player could know then) and one :class:`~termgames.ai.budget.Deadline` of
:data:`MOVE_SECONDS` per move, and turns each :class:`~termgames.analysis.Judgement` into a
:class:`~termgames.analysis.MoveAnalysis` classed by the game's thresholds.  :func:`stored_analysis` reads a
record's ``analysis`` section back, when it fits the record and the level asked for.

An unfinished game is analysed only where its seats' views hold nothing but public information (a game
without hidden information: every seat sees the same board, the spectator's).  An unfinished game whose
seats hide something (Mono's boards, Monad's fog) is refused in one line: its analysis would tell whoever asks
what a seat holds while it is still in play.  Once it is over, each move is still judged from its mover's own
view, and what an analyst works out with hindsight is labelled so (``hindsight``).

Layers: above the computer players (the analysts are theirs) and the match, below tables and screens;
:mod:`termgames.records` keeps the ``analysis`` section as raw JSON and never imports this module.  No
Textual, no rich, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .ai.budget import TIME_CAP, Clock, Deadline
from .ai.judgement import Judgement
from .analysis import Analysis, Analyst, MoveAnalysis, Thresholds, analysis_from_json
from .errors import RuleError
from .games import GameDescriptor, load
from .match import Match

#: Seconds the analyst may take over one move, at every level: the computer players' cap.  A level changes how
#: hard the analyst searches within it (its playouts, its candidates), never the cap.
MOVE_SECONDS = TIME_CAP

#: ``progress(done, total)``: called before the first move and after each move analysed.
Progress = Callable[[int, int], object]


class AnalysisCancelled(Exception):
    """The caller's ``cancelled()`` said stop (a screen closed, a worker cancelled)."""


def thresholds_of(descriptor: GameDescriptor) -> Thresholds:
    """The game's thresholds (its descriptor's ``analysis_thresholds``)."""
    return Thresholds(*descriptor.analysis_thresholds)


def analysis_level(descriptor: GameDescriptor, level: str | None) -> str:
    """The level ``level`` names (the game's default when None); RuleError, one line, when the game has no
    analyst or no such level."""
    if descriptor.analyst is None:
        raise RuleError(f"{descriptor.title} has no analysis yet")
    return descriptor.check_level(level)


def check_analysable(match: Match) -> None:
    """RuleError, one line, when ``match`` may not be analysed (see the module's notes)."""
    descriptor = match.game.descriptor
    if descriptor.analyst is None:
        raise RuleError(f"{descriptor.title} has no analysis yet")
    if not match.over and descriptor.hidden_information:
        raise RuleError(
            f"the game is not over and {descriptor.title} hides what each seat holds: "
            "its moves are analysed once it ends"
        )


def analyst_seed(match: Match) -> int:
    """The analyst's seed: from the match's secret seed through the rules' random source, as a bot's is
    (:meth:`Match.bot_seed`), so that it tells nothing about the table's."""
    return match.states[0].rng("analysis").getrandbits(64)


def make_analyst(descriptor: GameDescriptor, level: str, seed: int) -> Analyst:
    assert descriptor.analyst is not None
    factory: Callable[[str, int], Analyst] = load(descriptor.analyst)
    return factory(level, seed)


def record_moves(match: Match) -> list[tuple[str, str]]:
    """The (player, move) pairs of the match's record, in order: what an ``analysis`` section must fit."""
    names = match.names
    return [(names[record.seat], record.move) for record in match.moves]


class MatchAnalysis:
    """One match's analysis made a move at a time: :meth:`step` judges the next move (within its own deadline of
    :data:`MOVE_SECONDS`), :meth:`result` is the whole :class:`Analysis` once every move is judged.

    :func:`analyse_match` steps it through at once; the server (``ssh HOST analyse TABLE``) hands one step at a
    time to its computer players' pool, so that a computer turn waits at most one move's judgement.  The same
    arguments as :func:`analyse_match`, and its refusals (RuleError, one line), at construction.
    """

    def __init__(
        self,
        match: Match,
        level: str | None = None,
        *,
        clock: Clock | None = None,
        analyst: Analyst | None = None,
        first: int | None = None,
    ) -> None:
        descriptor = match.game.descriptor
        self.level = analysis_level(descriptor, level)
        check_analysable(match)
        self._match = match
        self._thresholds = thresholds_of(descriptor)
        self._judge = analyst if analyst is not None else make_analyst(descriptor, self.level, analyst_seed(match))
        self._played = match.moves if first is None else match.moves[: max(0, first)]
        self._clock = clock
        self._lines: list[MoveAnalysis] = []
        self._stopped = False
        self._deadline: Deadline | None = None

    @property
    def total(self) -> int:
        """The moves to analyse."""
        return len(self._played)

    @property
    def done(self) -> int:
        """The moves analysed so far."""
        return len(self._lines)

    @property
    def finished(self) -> bool:
        return self.done >= self.total

    def step(self) -> MoveAnalysis:
        """The next move judged from its mover's view before it; :class:`AnalysisCancelled` once :meth:`stop` was
        called (a judgement it cut short is not kept).  Not to be called once :attr:`finished`."""
        if self.finished:
            raise ValueError("every move is analysed already")
        return self.add(self.judge(self.done))

    def judge(self, index: int) -> Judgement:
        """The analyst's judgement of move ``index`` (from 0) from its mover's view before it, within its own
        deadline, kept nowhere: :meth:`step` keeps it, the server's judging process sends it back to be kept by
        :meth:`add` (``termgames.server.judging``).  :class:`AnalysisCancelled` once :meth:`stop` was called."""
        if self._stopped:
            raise AnalysisCancelled("the analysis was stopped")
        if not 0 <= index < self.total:
            raise ValueError(f"no move {index + 1} to analyse: {self.total} moves")
        record = self._played[index]
        before = self._match.view(record.seat, index)
        deadline = Deadline(MOVE_SECONDS) if self._clock is None else Deadline(MOVE_SECONDS, self._clock)
        self._deadline = deadline
        if self._stopped:  # stop() came between the look above and the deadline it could reach
            deadline.stop()
        try:
            judgement = self._judge.judge(before, record.move, deadline)
        finally:
            self._deadline = None
        if deadline.stopped:
            raise AnalysisCancelled("the analysis was stopped")
        return judgement

    def add(self, judgement: Judgement) -> MoveAnalysis:
        """The next move's ``judgement``, made by :meth:`judge` here or elsewhere, classed and kept;
        :class:`AnalysisCancelled` once :meth:`stop` was called.  Not to be called once :attr:`finished`."""
        if self._stopped:
            raise AnalysisCancelled("the analysis was stopped")
        if self.finished:
            raise ValueError("every move is analysed already")
        index = self.done
        record = self._played[index]
        loss = judgement.loss
        line = MoveAnalysis(
            ply=index + 1, player=self._match.names[record.seat], move=record.move, loss=loss,
            klass=self._thresholds.classify(loss), best=judgement.best if judgement.best != record.move else None,
            value=judgement.played, hindsight=judgement.hindsight, note=judgement.note,
        )
        self._lines.append(line)
        return line

    def stop(self) -> None:
        """From any thread: the move being judged stops at its analyst's next look at its deadline, and every
        :meth:`step` from now raises :class:`AnalysisCancelled`."""
        self._stopped = True
        deadline = self._deadline
        if deadline is not None:
            deadline.stop()

    def result(self) -> Analysis:
        """The analysis of every move (ValueError before :attr:`finished`)."""
        if not self.finished:
            raise ValueError(f"{self.done} of {self.total} moves analysed so far")
        return Analysis(self._match.game.descriptor.name, self.level, self._judge.unit, tuple(self._lines))


def analyse_match(
    match: Match,
    level: str | None = None,
    *,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
    clock: Clock | None = None,
    analyst: Analyst | None = None,
    first: int | None = None,
) -> Analysis:
    """Every move of ``match`` analysed at ``level`` (the game's default level when None).

    RuleError (one line) when the game has no analyst, no such level, or may not be analysed yet
    (:func:`check_analysable`); :class:`AnalysisCancelled` once ``cancelled()`` answers True (looked at
    between moves).  ``clock`` drives the deadlines (tests); ``analyst`` replaces the game's own (tests);
    ``first`` analyses the first moves only (a benchmark's quick look: such an analysis does not fit the
    record, and is never kept).  Each move's deadline is :data:`MOVE_SECONDS`.
    """
    steps = MatchAnalysis(match, level, clock=clock, analyst=analyst, first=first)
    if progress is not None:
        progress(0, steps.total)
    while not steps.finished:
        if cancelled is not None and cancelled():
            raise AnalysisCancelled("the analysis was stopped")
        steps.step()
        if progress is not None:
            progress(steps.done, steps.total)
    return steps.result()


def stored_analysis(match: Match, level: str | None = None) -> tuple[Analysis | None, str]:
    """The analysis the match's record holds (``match.analysis``), checked against the record, and "" ; or None
    and one line saying why it cannot be used (none kept, another level, not this record's).  ``level`` None
    takes a kept analysis of any level."""
    raw: Any = match.analysis
    if raw is None:
        return None, ""
    descriptor = match.game.descriptor
    try:
        kept = analysis_from_json(raw, descriptor.name, record_moves(match), thresholds_of(descriptor))
    except RuleError as error:
        return None, f"{error}: analysing again"
    if level is not None and kept.level != analysis_level(descriptor, level):
        return None, f"the record's analysis is at level {kept.level}: analysing again at {level}"
    return kept, ""
