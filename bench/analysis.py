"""Analysing the sample games (saves/*.json) at each level: seconds a move, and the longest against the budget.

    python bench/analysis.py [--game copolymer] [--level normal] [--moves N]

For every sample whose game has an analyst (and that may be analysed: an unfinished game with hidden boards is
left out, as ``termgames analyse`` refuses it), at each of the game's levels, the whole game is analysed through
:func:`termgames.analysis_run.analyse_match` and each move's judgement is timed.  It prints the mean seconds a
move, the longest one, and whether every judgement stayed within the move's budget
(:data:`termgames.analysis_run.MOVE_SECONDS`, the computer players' 2 s cap) with a small slack for the answer.
``--moves N`` analyses the first N moves only (a quick look).  Nothing is written: the samples stay as they are.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from termgames import records
from termgames.ai.budget import Deadline
from termgames.analysis import Analyst, Judgement
from termgames.analysis_run import MOVE_SECONDS, analyse_match, analyst_seed, check_analysable, make_analyst
from termgames.errors import RuleError
from termgames.rules import View

SAVES = Path(__file__).resolve().parent.parent / "saves"
#: Seconds past the budget a judgement may take to answer (its last playout, its last solve step).
SLACK = 0.25


class Timed:
    """The game's analyst, each judgement timed."""

    def __init__(self, analyst: Analyst) -> None:
        self.analyst = analyst
        self.unit = analyst.unit
        self.seconds: list[float] = []

    def judge(self, before: View, move: str, deadline: Deadline) -> Judgement:
        start = time.perf_counter()
        judgement = self.analyst.judge(before, move, deadline)
        self.seconds.append(time.perf_counter() - start)
        return judgement


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", help="only this game's samples")
    parser.add_argument("--level", help="only this level")
    parser.add_argument("--moves", type=int, default=0, help="analyse the first N moves of each sample only")
    args = parser.parse_args()
    print(f"budget a move: {MOVE_SECONDS:g} s (+{SLACK:g} s to answer)")
    print(f"{'sample':44} {'level':7} {'moves':>5} {'s/move':>7} {'longest':>8}  within  marked")
    failures = 0
    for path in sorted(SAVES.glob("*.json")):
        match = records.load(path)
        descriptor = match.game.descriptor
        if descriptor.analyst is None or (args.game and descriptor.name != args.game):
            continue
        try:
            check_analysable(match)
        except RuleError as error:
            print(f"{path.name:44} left out: {error}")
            continue
        for level in descriptor.ai_levels:
            if args.level and level != args.level:
                continue
            timed = Timed(make_analyst(descriptor, level, analyst_seed(match)))
            analysis = analyse_match(match, level, analyst=timed, first=args.moves or None)
            seconds = timed.seconds or [0.0]
            longest = max(seconds)
            within = longest <= MOVE_SECONDS + SLACK
            failures += not within
            marked = sum(line.klass != "good" for line in analysis.moves)
            print(f"{path.name:44} {level:7} {len(timed.seconds):5} {sum(seconds) / len(seconds):7.3f} "
                  f"{longest:8.3f}  {'yes' if within else 'NO':6}  {marked}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
