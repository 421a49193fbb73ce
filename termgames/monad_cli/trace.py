"""``termgames monad trace FILE``: a Monad record as JSON lines, one per turn."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from . import monad_app


def trace_lines(match: Any) -> Iterator[dict[str, Any]]:
    """One object per resolved turn of ``match`` (a Monad Match), turn 0 being the initial board.

    ``commands`` are those carried out, ``dropped`` one reason per command
    refused (ruling 4) or a ``fault: REASON`` for a seat whose commands were lost.
    """
    from ..rules.monad import MonadState, board_json

    names = list(match.names)
    for state in match.states:
        assert isinstance(state, MonadState)
        if state.ply == 0:
            yield {
                "turn": 0,
                "commands": {name: [] for name in names},
                "dropped": {name: [] for name in names},
                "board": board_json(state.board, names),
            }
        elif state.resolved_now():
            report = state.last_report
            assert report is not None
            yield {
                "turn": state.board.turn,
                "commands": {name: [c.as_list() for c in report.carried[s]] for s, name in enumerate(names)},
                "dropped": {name: list(report.dropped[s]) for s, name in enumerate(names)},
                "board": board_json(state.board, names),
            }


RecordArgument = typer.Argument(..., help="A Monad game record.")


@monad_app.command("trace")
def trace(file: Path = RecordArgument) -> None:
    """Print a Monad record as JSON lines, one per turn (turn 0: the initial board, no commands)."""
    from ..cli_base import fail, load_record

    match = load_record(file)
    if match.game.name != "monad":
        fail(f"{file} is a {match.game.title} record, not a Monad one")
    for line in trace_lines(match):
        print(json.dumps(line, separators=(",", ":")))
