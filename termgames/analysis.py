"""Move-by-move analysis of a game: the contract between the analysis front ends and each game's engine.

A game's descriptor names its analyst (``GameDescriptor.analyst``, ``"module:factory"``; the factory is
``(level, seed) -> Analyst``) and the thresholds that class a move by what it lost
(``GameDescriptor.analysis_thresholds``).  The analyst judges one move at a time from **the view of the
seat that played it, as it was before the move** (:meth:`Analyst.judge`): what that player could know,
nothing more; whatever it computes with hindsight (a hidden board it did not see) it says so
(:attr:`Judgement.hindsight`).  The values are in the game's own units (:attr:`Analyst.unit`): cells for
Copolymer, points for Mosaic, units or hives for Monad, expected score for Mono, and for MonUnrail's
unrailing the exact result (1 a won position, 0 a lost one).

Front ends (``termgames analyse``, the replay screen, ``ssh HOST analyse TABLE``) turn judgements into
:class:`MoveAnalysis` lines, and a whole game's into an :class:`Analysis` kept in the record's optional
``analysis`` section (:func:`analysis_json`, :func:`analysis_from_json`, which refuses a section that does
not fit the record it is in).

The analysts' side of the contract (:class:`Judgement`, :class:`Analyst`) is :mod:`termgames.ai.judgement`, in the
computer players' layer where the analysts are; this module is the front ends' side, above it.

Pure Python: no Textual, no rich, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .ai.judgement import Analyst, Judgement
from .errors import RuleError

__all__ = ["CLASSES", "MARKS", "Analysis", "Analyst", "Judgement", "MoveAnalysis", "Thresholds", "analysis_from_json",
           "analysis_json", "analysis_text"]

#: The classes of a move, best first (``analyse --json``'s ``class``).
CLASSES = ("good", "inaccuracy", "mistake", "blunder")
#: The marks a move log puts after a move of each class.
MARKS = {"good": "", "inaccuracy": "?!", "mistake": "?", "blunder": "??"}


@dataclass(frozen=True)
class Thresholds:
    """The least loss (in the game's unit) that makes a move an inaccuracy, a mistake, a blunder."""

    inaccuracy: float
    mistake: float
    blunder: float

    def __post_init__(self) -> None:
        if not 0 < self.inaccuracy <= self.mistake <= self.blunder:
            raise ValueError(f"thresholds must grow: {self}")

    def classify(self, loss: float) -> str:
        if loss >= self.blunder:
            return "blunder"
        if loss >= self.mistake:
            return "mistake"
        if loss >= self.inaccuracy:
            return "inaccuracy"
        return "good"


@dataclass(frozen=True)
class MoveAnalysis:
    """One move of a game, analysed: ``analyse --json``'s entries."""

    ply: int
    player: str
    move: str
    loss: float
    klass: str
    best: str | None
    #: The value after the move, from the mover's side (the graph's points).
    value: float = 0.0
    hindsight: bool = False
    note: str = ""

    @property
    def mark(self) -> str:
        return MARKS[self.klass]

    def json(self) -> dict[str, Any]:
        return {"ply": self.ply, "player": self.player, "move": self.move, "loss": self.loss, "class": self.klass,
                "best": self.best, "value": self.value, "hindsight": self.hindsight, "note": self.note}


@dataclass(frozen=True)
class Analysis:
    """A whole game's analysis: one line per move of its record, at one level."""

    game: str
    level: str
    unit: str
    moves: tuple[MoveAnalysis, ...]

    def json(self) -> dict[str, Any]:
        return {"game": self.game, "level": self.level, "unit": self.unit, "moves": [m.json() for m in self.moves]}


def analysis_json(analysis: Analysis) -> dict[str, Any]:
    """The record's ``analysis`` section."""
    return analysis.json()


def analysis_from_json(data: Any, game: str, moves: Sequence[tuple[str, str]], thresholds: Thresholds) -> Analysis:
    """The record's ``analysis`` section checked against the record it is in: ``moves`` are its (player, move)
    pairs in order.  RuleError, one line, when it does not fit (another game's, another line of play, a class
    its loss does not make, a number that is none): the caller then analyses again."""
    if not isinstance(data, dict):
        raise RuleError("the record's analysis is not an object")
    if data.get("game") != game:
        raise RuleError("the record's analysis is of another game")
    level, unit, lines = data.get("level"), data.get("unit"), data.get("moves")
    if not isinstance(level, str) or not isinstance(unit, str) or not isinstance(lines, list):
        raise RuleError("the record's analysis lacks its level, unit or moves")
    if len(lines) != len(moves):
        raise RuleError(f"the record's analysis has {len(lines)} moves, the record {len(moves)}")
    checked = []
    for ply, (line, (player, move)) in enumerate(zip(lines, moves), start=1):
        if not isinstance(line, dict):
            raise RuleError(f"the record's analysis of move {ply} is not an object")
        loss: Any = line.get("loss")
        value: Any = line.get("value", 0.0)
        if line.get("ply") != ply or line.get("player") != player or line.get("move") != move:
            raise RuleError(f"the record's analysis of move {ply} is of another move")
        numbers_ok = all(
            isinstance(n, (int, float)) and not isinstance(n, bool) and math.isfinite(n) for n in (loss, value)
        )
        if not numbers_ok or loss < 0:
            raise RuleError(f"the record's analysis of move {ply} has no usable loss")
        klass = line.get("class")
        if klass != thresholds.classify(float(loss)):
            raise RuleError(f"the record's analysis of move {ply} calls a loss of {loss} {klass!r}")
        best, note, hindsight = line.get("best"), line.get("note", ""), line.get("hindsight", False)
        if not (best is None or isinstance(best, str)) or not isinstance(note, str) or not isinstance(hindsight, bool):
            raise RuleError(f"the record's analysis of move {ply} is garbled")
        checked.append(MoveAnalysis(ply, player, move, float(loss), klass, best, float(value), hindsight, note))
    return Analysis(game, level, unit, tuple(checked))


def analysis_text(analysis: Analysis, title: str) -> str:
    """The analysis as lines a person reads: each move with its mark, its loss and the engine's move."""
    lines = [f"{title}, analysed at level {analysis.level} (losses in {analysis.unit})"]
    counts: dict[str, dict[str, int]] = {}
    for line in analysis.moves:
        text = f"{line.ply:4}. {line.player}: {line.move}{line.mark}"
        if line.klass != "good":
            text += f"  {line.klass}, loses {line.loss:.2f}"
        if line.best is not None:
            text += f"; better {line.best}"
        if line.hindsight:
            text += " (with hindsight)"
        lines.append(text)
        if line.note and line.klass != "good":
            lines.append(f"        {line.note}")
        tally = counts.setdefault(line.player, {"inaccuracy": 0, "mistake": 0, "blunder": 0})
        if line.klass != "good":
            tally[line.klass] += 1
    for player, tally in counts.items():
        lines.append(
            f"{player}: {tally['inaccuracy']} inaccuracies, {tally['mistake']} mistakes, {tally['blunder']} blunders"
        )
    return "\n".join(lines)
