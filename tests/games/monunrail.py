"""MonUnrail's test data (what each name is: ``tests/games/copolymer.py``)."""

from games import SmallBoard

PLAY_OUT = {"straights": 0, "turns": 4, "crossroads": 0}
QUICK = ({}, ("impossible",), "easy")  # the first player calls Impossible at once
LARGEST = ({}, ("ann", "bob"), (), r"\b[A-H] +[A-H] +[A-H]\b", (7, 8))
SMALL_BOARD = SmallBoard({}, ("down",) * 3, r"^\s*(\d) ", 7, ("1", "7"), lambda name: name[1:])
