"""Stand-in computer players for the tests of tables, screens and the server."""

from __future__ import annotations

import threading


class GatedBot:
    """A Copolymer bot that thinks until the test lets it answer (``gate``); ``asked`` is set once it is."""

    level = "normal"

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.asked = threading.Event()

    def choose(self, view):
        self.asked.set()
        assert self.gate.wait(5)
        return view.board.names[min(view.legal_cells())]
