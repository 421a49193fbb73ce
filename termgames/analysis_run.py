"""Analysing a whole game: every move of a match handed, as its mover saw the position, to the game's analyst.

:func:`analyse_match` is the one driver (``termgames analyse``, the replay screen, ``ssh HOST analyse TABLE``):
it walks the match's positions, gives the game's :class:`~termgames.analysis.Analyst` the view **of the seat
that moved, before its move** (``match.view(seat, ply)``: what that player could know then) and one
:class:`~termgames.ai.budget.Deadline` of :data:`MOVE_SECONDS` per move, and turns each
:class:`~termgames.analysis.Judgement` into a :class:`~termgames.analysis.MoveAnalysis` classed by the game's
thresholds.  :func:`stored_analysis` reads a record's ``analysis`` section back, when it fits the record and the
level asked for.

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
    descriptor = match.game.descriptor
    level = analysis_level(descriptor, level)
    check_analysable(match)
    thresholds = thresholds_of(descriptor)
    judge = analyst if analyst is not None else make_analyst(descriptor, level, analyst_seed(match))
    played = match.moves if first is None else match.moves[: max(0, first)]
    total = len(played)
    names = match.names
    lines: list[MoveAnalysis] = []
    if progress is not None:
        progress(0, total)
    for index, record in enumerate(played):
        if cancelled is not None and cancelled():
            raise AnalysisCancelled("the analysis was stopped")
        before = match.view(record.seat, index)
        deadline = Deadline(MOVE_SECONDS) if clock is None else Deadline(MOVE_SECONDS, clock)
        judgement = judge.judge(before, record.move, deadline)
        loss = judgement.loss
        best = judgement.best if judgement.best != record.move else None
        lines.append(
            MoveAnalysis(
                ply=index + 1, player=names[record.seat], move=record.move, loss=loss,
                klass=thresholds.classify(loss), best=best, value=judgement.played,
                hindsight=judgement.hindsight, note=judgement.note,
            )
        )
        if progress is not None:
            progress(index + 1, total)
    return Analysis(descriptor.name, level, judge.unit, tuple(lines))


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
