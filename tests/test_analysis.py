"""Move-by-move analysis (issue 36): the driver, the Copolymer and MonUnrail analysts, the record's section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from termgames import records
from termgames.ai.budget import Deadline
from termgames.analysis import Judgement, analysis_json
from termgames.analysis_run import (
    AnalysisCancelled,
    MatchAnalysis,
    analyse_match,
    check_analysable,
    stored_analysis,
)
from termgames.errors import RuleError
from termgames.match import Match, Seat
from termgames.rules.monunrail.solver import Solver

SAVES = Path(__file__).resolve().parent.parent / "saves"


def frozen_clock() -> float:
    """A clock that never moves: every deadline leaves the analyst its whole effort (deterministic results)."""
    return 0.0


def never() -> Deadline:
    return Deadline(2.0, frozen_clock)


class Flat:
    """An analyst that calls every move as good as any, but the moves named in ``losses``."""

    unit = "points"

    def __init__(self, losses: dict[int, float]) -> None:
        self.losses = losses
        self.seen: list[tuple[int | None, int]] = []

    def judge(self, before, move, deadline):
        ply = len(before.moves)
        self.seen.append((before.viewer, ply))
        loss = self.losses.get(ply + 1, 0.0)
        return Judgement(played=-loss, best_value=0.0, best="Z9" if loss else None)


def monunrail_with_blunder() -> tuple[Match, int, list[str]]:
    """The sample MonUnrail game up to a won removal position, where its mover then removes so as to lose."""
    match = records.load(SAVES / "monunrail-ada-vs-hal.json")
    solver = Solver()
    for ply in range(len(match.moves)):
        view = match.view(match.moves[ply].seat, ply)
        if view.phase != "unrailing":
            continue
        cells = set(view.unrail_cells())
        if solver.nimber(cells) == 0:
            continue
        losing = [m for m in solver.moves(cells) if set(m) != cells and solver.nimber(cells - set(m)) != 0]
        if not losing:
            continue
        winning = [",".join(f"{'ABCDEFGH'[c]}{r + 1}" for c, r in sorted(m, key=lambda c: (c[1], c[0])))
                   for m in solver.winning_moves(cells)]
        seat = match.moves[ply].seat
        match.truncate(ply)
        bad = ",".join(f"{'ABCDEFGH'[c]}{r + 1}" for c, r in sorted(losing[0], key=lambda c: (c[1], c[0])))
        match.play(seat, bad, time="")
        return match, ply + 1, winning
    raise AssertionError("the sample has no won removal position")


def test_a_monunrail_removal_from_won_to_lost_is_a_blunder_with_the_winning_moves_shown() -> None:
    match, ply, winning = monunrail_with_blunder()
    analysis = analyse_match(match, "normal", clock=frozen_clock)
    line = analysis.moves[ply - 1]
    assert (line.klass, line.loss) == ("blunder", 1.0)
    assert line.best in winning
    assert "winning removals" in line.note
    assert analysis.unit == "results"
    # The rest of the sample, as played by the bot, has no blunder before it.
    assert all(other.klass != "blunder" for other in analysis.moves[: ply - 1])


def test_a_copolymer_claim_that_gifts_the_opponent_its_cells_is_a_blunder() -> None:
    from termgames.ai.copolymer_analysis import make_analyst

    match = records.load(SAVES / "copolymer-small-carmen-vs-hal.json")
    ply = 52
    seat = match.moves[ply].seat
    view = match.view(seat, ply)
    analyst = make_analyst("normal", 7)
    thresholds = match.game.descriptor.analysis_thresholds
    gift = analyst.judge(view, "J8", never())
    assert gift.loss >= thresholds[2] and gift.best is not None and gift.best != "J8"
    played = analyst.judge(view, match.moves[ply].move, never())  # the bot's claim there
    assert played.loss < thresholds[0]
    assert analyst.unit == "cells"


def test_the_driver_judges_each_move_from_its_movers_view_before_it_and_classes_it() -> None:
    match = records.load(SAVES / "copolymer-small-carmen-vs-hal.json")
    match.truncate(6)
    progress: list[tuple[int, int]] = []
    flat = Flat({2: 2.5, 5: 9.0})
    analysis = analyse_match(match, "easy", analyst=flat, progress=lambda done, total: progress.append((done, total)))
    assert flat.seen == [(record.seat, ply) for ply, record in enumerate(match.moves)]
    assert [line.klass for line in analysis.moves] == ["good", "inaccuracy", "good", "good", "blunder", "good"]
    assert [line.best for line in analysis.moves][:2] == [None, "Z9"]
    assert progress[0] == (0, 6) and progress[-1] == (6, 6)
    out = analysis.json()
    assert set(out) >= {"game", "level", "moves"} and out["level"] == "easy"
    assert [set(m) >= {"ply", "player", "move", "loss", "class", "best"} for m in out["moves"]] == [True] * 6


def test_the_driver_stops_when_told() -> None:
    match = records.load(SAVES / "copolymer-small-carmen-vs-hal.json")
    calls = iter([False, False, True])
    with pytest.raises(AnalysisCancelled):
        analyse_match(match, analyst=Flat({}), cancelled=lambda: next(calls))


class StoppedWhileJudging(Flat):
    """Flat, but the analysis is stopped while its third move is judged (as a closing server does)."""

    def __init__(self) -> None:
        super().__init__({})
        self.steps: MatchAnalysis | None = None
        self.deadlines: list[bool] = []

    def judge(self, before, move, deadline):
        if len(before.moves) == 2:
            assert self.steps is not None
            self.steps.stop()
        self.deadlines.append(deadline.stopped)
        return super().judge(before, move, deadline)


def test_an_analysis_steps_a_move_at_a_time_as_the_whole_driver_does_and_a_stop_cuts_the_move_short() -> None:
    match = records.load(SAVES / "copolymer-small-carmen-vs-hal.json")
    match.truncate(5)
    steps = MatchAnalysis(match, "easy", analyst=Flat({2: 2.5, 4: 9.0}))
    assert (steps.done, steps.total, steps.finished) == (0, 5, False)
    with pytest.raises(ValueError):
        steps.result()
    lines = [steps.step() for _ in range(5)]
    assert steps.finished and [line.ply for line in lines] == [1, 2, 3, 4, 5]
    assert steps.result() == analyse_match(match, "easy", analyst=Flat({2: 2.5, 4: 9.0}))
    with pytest.raises(ValueError):
        steps.step()
    stopping = StoppedWhileJudging()
    stopped = stopping.steps = MatchAnalysis(match, "easy", analyst=stopping)
    stopped.step(), stopped.step()
    with pytest.raises(AnalysisCancelled):
        stopped.step()  # its deadline was stopped while it judged: the judgement is not kept
    assert stopping.deadlines == [False, False, True] and stopped.done == 2
    with pytest.raises(AnalysisCancelled):
        stopped.step()


def test_an_unfinished_game_that_hides_boards_is_not_analysed_one_that_hides_nothing_is() -> None:
    mono = records.load(SAVES / "mono-ann-bob-cat-unfinished.json")
    if mono.game.descriptor.analyst is not None:
        with pytest.raises(RuleError, match="not over"):
            check_analysable(mono)
    copolymer = records.load(SAVES / "copolymer-erin-vs-felix-unfinished.json")
    assert not copolymer.over
    check_analysable(copolymer)
    copolymer.truncate(3)
    assert len(analyse_match(copolymer, "easy", analyst=Flat({})).moves) == 3


def test_a_game_without_an_analyst_or_a_level_it_lacks_is_one_line() -> None:
    match = records.load(SAVES / "copolymer-small-carmen-vs-hal.json")
    with pytest.raises(RuleError, match="AI levels"):
        analyse_match(match, "grandmaster", analyst=Flat({}))


def test_the_record_round_trips_with_and_without_its_analysis() -> None:
    match = records.load(SAVES / "copolymer-small-carmen-vs-hal.json")
    match.truncate(5)
    plain = records.dumps(match)
    assert "analysis" not in json.loads(plain)
    again = records.loads(plain)
    assert again.analysis is None and stored_analysis(again) == (None, "")
    analysis = analyse_match(match, "hard", analyst=Flat({3: 5.0}))
    match.analysis = analysis_json(analysis)
    kept = records.loads(records.dumps(match))
    assert stored_analysis(kept) == (analysis, "")
    assert stored_analysis(kept, "hard") == (analysis, "")
    other, why = stored_analysis(kept, "easy")
    assert other is None and "level hard" in why
    # A move played after it drops it: it no longer fits.
    seat = kept.to_move()[0]
    view = kept.view(seat)
    kept.play(seat, view.board.names[min(view.legal_cells())])
    assert kept.analysis is None


@pytest.mark.parametrize(
    "tamper",
    [
        lambda a: a["moves"][2].update({"class": "good"}),  # a blunder called good
        lambda a: a["moves"][1].update({"loss": -1}),
        lambda a: a["moves"][0].update({"move": "A1"}),
        lambda a: a["moves"].pop(),
        lambda a: a.update({"game": "mono"}),
        lambda a: a["moves"][0].update({"loss": float("nan")}),
    ],
)
def test_a_tampered_analysis_is_refused_and_analysed_again(tamper) -> None:
    match = records.load(SAVES / "copolymer-small-carmen-vs-hal.json")
    match.truncate(5)
    section = analysis_json(analyse_match(match, "normal", analyst=Flat({3: 5.0})))
    tamper(section)
    match.analysis = section
    kept = records.loads(records.dumps(match))
    analysis, why = stored_analysis(kept)
    assert analysis is None and why.endswith("analysing again")


def test_a_record_whose_analysis_is_garbage_still_loads() -> None:
    match = records.load(SAVES / "copolymer-small-carmen-vs-hal.json")
    data = records.to_dict(match)
    data["analysis"] = ["not", "an", "analysis"]
    kept = records.from_dict(data)
    assert len(kept.moves) == len(match.moves)
    assert stored_analysis(kept)[0] is None


def test_a_seat_list_match_is_analysed_too() -> None:
    match = Match("copolymer", {"size": 5}, [Seat("a"), Seat("b")], 3)
    view = match.view(0)
    match.play(0, view.board.names[0])
    assert [line.ply for line in analyse_match(match, analyst=Flat({})).moves] == [1]


def test_the_first_moves_only_of_a_finished_game_with_hidden_boards() -> None:
    mono = records.load(SAVES / "mono-fred-vs-ned.json")
    assert mono.over
    flat = Flat({})
    analysis = analyse_match(mono, analyst=flat, first=5)
    assert [line.ply for line in analysis.moves] == [1, 2, 3, 4, 5]
    assert flat.seen == [(record.seat, ply) for ply, record in enumerate(mono.moves[:5])]
