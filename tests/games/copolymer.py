"""Copolymer's test data.  Every game's ``tests/games/NAME.py`` has these names (``tests/games/__init__.py``
finds them by the game's name; a test that needs one fails, saying what to add, when it is missing)."""

from games import SmallBoard

#: Options that make a game short enough to play out with random moves (test_tui_next_game).
PLAY_OUT = {"size": 3}

#: A game computer players finish quickly: (options, the moves played first, the computer level)
#: (test_tui_sizes: the footer of a finished game).
QUICK = ({"size": 3}, (), "easy")

#: The largest board: (options, seat names (``NAME:ai`` a computer seat), the keys that start the phase with a
#: cursor, a pattern of its column labels (None: it has none, or it does not scroll), and how many steps reach
#: any edge of the board from anywhere (rows, columns)) (test_tui_sizes).
LARGEST = ({"size": 25}, ("ann", "bob"), (), r"\b\d+ +\d+ +\d+\b", (25, 25))

#: A board that does not fit 60x20 and 50x20 whole (a :class:`~games.SmallBoard`), or why none is checked
#: (test_tui_sizes: the cursor's row and two either side stay in sight).
SMALL_BOARD = SmallBoard({}, ("down",) * 4, r"^\s*([A-HJ-N])  ", 11, ("A", "L"), lambda name: name[0])
