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

    An analysis of one board among several (Mono's overlay of one opponent's
    board) names the boards it may cover in ``choices``; the replay's Tab and
    Shift+Tab, the live game's keys for the next board, pick ``choice``, an
    index into them (taken modulo their number).  Others give no choices.
    """

    def choices(self, view: Any) -> list[str]: ...

    def prepare(self, view: Any, board: Any, choice: int = 0) -> Callable[[], object] | None: ...

    def show(self, board: Any, result: object | None) -> None: ...
