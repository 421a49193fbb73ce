"""The scripting API docs/scripting.md documents (issue 16, section 1): its example runs as written, and every game
answers it."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from termgames.ai import make_bot
from termgames.games import GAMES
from termgames.match import Match, Seat

DOC = Path(__file__).resolve().parent.parent / "docs" / "scripting.md"
SECTION = "## The scripting API: make_bot and Match"
#: The names issue 16 fixes; the page's example must use every one of them.
API_NAMES = (
    "make_bot(",
    ".choose(",
    "Match(",
    ".view(",
    ".play(",
    ".over",
    ".state.to_move()",
    ".state.scores()",
    ".state.winners()",
)


def documented_example() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index(SECTION) :]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found is not None, "docs/scripting.md's API section has no Python example"
    return found.group(1)


def test_documented_example_uses_the_whole_api_and_runs_as_written() -> None:
    code = documented_example()
    for name in API_NAMES:
        assert name in code, f"docs/scripting.md's example does not show {name}"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(DOC), "exec"), {"__name__": "documented_example"})
    scores, winners = printed.getvalue().strip().rsplit(") (", 1)
    assert scores.startswith("(") and winners.endswith(")")  # (scores...) (winners...)
    assert winners.rstrip(",)") in ("0", "1")  # somebody won


@pytest.mark.parametrize("game", [name for name, descriptor in GAMES.items() if descriptor.ai_levels])
def test_every_game_plays_through_the_documented_api(game: str) -> None:
    """make_bot(game, level, seed=...).choose(view) moves for Match(game, options, seats, seed)'s seats."""
    descriptor = GAMES[game]
    seats = [Seat(f"p{seat + 1}") for seat in range(descriptor.min_seats)]
    match = Match(game, {}, seats, 7)
    bots = [make_bot(game, descriptor.ai_levels[0], seed=seat) for seat in range(len(seats))]
    for _ply in range(30):
        if match.over:
            break
        # Monad's turns are simultaneous: every seat on turn answers, then the turn resolves.
        for seat in match.state.to_move():
            if not match.over and seat in match.state.to_move():
                match.play(seat, bots[seat].choose(match.view(seat)))
    assert len(match.state.scores()) == len(seats)
    assert set(match.state.winners()) <= set(range(len(seats)))
    assert match.over or match.state.to_move()
