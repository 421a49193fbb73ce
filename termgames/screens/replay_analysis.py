"""The analysis a live game offers (a hint, an overlay), as a replay shows it for the position on screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class ReplayAnalysis(Protocol):
    """What ``n`` shows in a replay: a game screen's ``replay_analysis`` gives one, or None.

    ``prepare`` runs on the loop: it reads what it needs of the view and the
    board, and gives back the work to do in a thread (None: nothing to show
    for this position).  ``show`` puts the work's result on the board, or
    takes the analysis off with None.
    """

    def prepare(self, view: Any, board: Any) -> Callable[[], object] | None: ...

    def show(self, board: Any, result: object | None) -> None: ...
