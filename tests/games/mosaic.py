"""Mosaic's test data (what each name is: ``tests/games/copolymer.py``)."""

PLAY_OUT = {"max_routines": 1}
QUICK = ({"max_routines": 1}, (), "random")
LARGEST = ({}, ("ann", "bob"), (), None, (6, 6))
SMALL_BOARD = "its board draws no row labels, which this check reads the rows by"
