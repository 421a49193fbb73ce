"""Mono's test data (what each name is: ``tests/games/copolymer.py``)."""

from games import SmallBoard

PLAY_OUT = {"size": 3}
QUICK = ({"size": 2}, (), "easy")
# Against the computer, so that no privacy screen comes between the moves.
LARGEST = ({"size": 35}, ("me", "cpu:ai"), (), r"\b[a-z] +[a-z] +[a-z]\b", (18, 35))
SMALL_BOARD = SmallBoard(
    {"size": 14}, (), r"^\s*(\d+) [·\d a-z_\[\]]", 7, ("7", "1"),
    lambda name: name.lstrip("abcdefghijklmnopqrstuvwxyzABCDEFGH"),
)
