"""Mosaic's engine against an independent referee (``tests/mosaic_referee.py``, written from the guide and rulings).

At every step of random games the engine's ``legal`` must be exactly the referee's set and the position after
each move (tiles, hands, step kind and player, scores, end and winners) the referee's.  Hunting locally, raise
``max_examples`` (``MOSAIC_REFEREE_EXAMPLES=200``); the committed run stays small.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from termgames.cli import app
from termgames.rules import get_game
from termgames.rules.base import State
from tests.mosaic_referee import Referee, hands_from_json

GAME = get_game("mosaic")
EXAMPLES = int(os.environ.get("MOSAIC_REFEREE_EXAMPLES", "3"))


def engine_position(board: dict[str, Any], names: list[str], scores: dict[str, Any], over: bool,
                    winners: list[str]) -> dict[str, Any]:
    """The engine's ``show --json`` reduced to what the referee tracks."""
    def reading_order(key: str) -> list[int]:
        return [int(part) for part in key.split(",")]

    return {
        "tiles": {key: board["tiles"][key] for key in sorted(board["tiles"], key=reading_order)},
        "hands": {name: sorted(board["hands"][name]) for name in names},
        "step": None if over else {"kind": board["step"]["kind"], "player": board["step"]["player"]},
        "scores": {name: int(scores[name]) for name in names},
        "over": over,
        "winners": sorted(winners) if over else [],
    }


def state_position(state: State, names: list[str]) -> tuple[dict[str, Any], set[str], dict[str, Any]]:
    view = state.view(None)
    board = view.board_json()
    scores = dict(zip(names, view.scores))
    winners = [names[seat] for seat in view.winners]
    return engine_position(board, names, scores, view.over, winners), set(board["legal"]), board


def play_against_referee(players: int, seed: int, max_routines: int, chooser: random.Random) -> int:
    """Play one random game in the engine and the referee side by side; return the plies played."""
    names = ["ann", "bob", "cy", "di"][:players]
    state = GAME.new({"max_routines": max_routines}, names, seed)
    position, legal, board = state_position(state, names)
    referee = Referee.from_hands(hands_from_json(board, names), max_routines)
    history: list[str] = []
    for ply in range(5000):
        expected_legal = referee.legal()
        assert position == referee.position(names), (ply, history[-8:])
        assert legal == expected_legal, (
            ply, history[-8:], sorted(legal - expected_legal), sorted(expected_legal - legal), board["step"]
        )
        if not legal:
            return ply
        move = chooser.choice(sorted(legal))
        history.append(move)
        state = state.apply(state.to_move()[0], move)
        referee.play(move, expected_legal)
        position, legal, board = state_position(state, names)
    raise AssertionError("a game with --max-routines did not end")


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**31), choices=st.integers(0, 2**31), max_routines=st.integers(1, 12))
def test_two_player_games_match_the_referee(seed: int, choices: int, max_routines: int) -> None:
    play_against_referee(2, seed, max_routines, random.Random(choices))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**31), choices=st.integers(0, 2**31), max_routines=st.integers(1, 6))
def test_three_player_games_match_the_referee(seed: int, choices: int, max_routines: int) -> None:
    play_against_referee(3, seed, max_routines, random.Random(choices))


@settings(max_examples=max(1, EXAMPLES // 2), deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**31), choices=st.integers(0, 2**31), max_routines=st.integers(1, 4))
def test_four_player_games_match_the_referee(seed: int, choices: int, max_routines: int) -> None:
    play_against_referee(4, seed, max_routines, random.Random(choices))


def test_a_game_through_the_cli_matches_the_referee(tmp_path: Path) -> None:
    """``termgames new / move / show --json``, the contracts the hidden tests use, against the referee."""
    runner = CliRunner()
    record = tmp_path / "mosaic.json"
    names = ["ann", "bob"]
    result = runner.invoke(app, ["new", "mosaic", "-p", "ann", "-p", "bob", "--max-routines", "3",
                                 "--seed", "11", "--out", str(record)], catch_exceptions=False)
    assert result.exit_code == 0, result.output

    def show() -> dict[str, Any]:
        shown = runner.invoke(app, ["show", str(record), "--json"], catch_exceptions=False)
        assert shown.exit_code == 0, shown.output
        return dict(json.loads(shown.stdout))

    shown = show()
    referee = Referee.from_hands(hands_from_json(shown["board"], names), 3)
    chooser = random.Random(5)
    for _ply in range(400):
        position = engine_position(shown["board"], names, shown["scores"], shown["over"], shown["winners"])
        assert position == referee.position(names)
        expected_legal = referee.legal()
        assert set(shown["board"]["legal"]) == expected_legal
        if shown["over"]:
            assert shown["board"]["routines"] == 3 or referee.passes >= len(names) or referee.winners
            return
        move = chooser.choice(sorted(expected_legal))
        mover = shown["board"]["step"]["player"]
        result = runner.invoke(app, ["move", str(record), move, "--as", mover], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        referee.play(move, expected_legal)
        shown = show()
    raise AssertionError("the CLI game did not end")
