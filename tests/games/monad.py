"""Monad's test data (what each name is: ``tests/games/copolymer.py``)."""

PLAY_OUT = {"turns": 3, "width": 10, "height": 10}
QUICK = ({"turns": 1}, (), "random")
LARGEST = ({"width": 60, "height": 60}, ("me", "you"), (), None, (60, 60))
SMALL_BOARD = "its board draws no row labels, which this check reads the rows by"
