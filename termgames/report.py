"""The text and JSON a player reads about a game outside the screens.

``termgames show``/``move`` and the server's correspondence commands
(``ssh host show TABLE``) print exactly the same things, from here.  Text is
made safe for a terminal here (``printable``); JSON keeps the exact text and
is escaped as it is written (``safe_json``).
"""

from __future__ import annotations

import time
from typing import Any

from .clock import clock_text
from .match import Match
from .rules import Viewer
from .rules.numbers import exact_number, score_text
from .untrusted import printable


def to_move_text(match: Match) -> str:
    if match.over:
        return "the game is over"
    names = [match.names[s] for s in match.state.to_move()]
    return printable(" and ".join(names) + " to move")


def clock_left(match: Match, now: float | None = None) -> dict[str, float | None]:
    """Each seat's seconds left at ``now`` (default: the time now), by name; None for each when untimed."""
    clocks = match.clocks
    if clocks is None:
        return dict.fromkeys(match.names)
    moment = time.time() if now is None else now
    return {name: round(clocks.left_at(seat, moment), 1) for seat, name in enumerate(match.names)}


def clock_line(match: Match, now: float | None = None) -> str:
    """``Clock 10m+5s: alice 4:32 (running), bob 5:10``: the clocks in words, empty when untimed."""
    if match.clock is None or match.clocks is None:
        return ""
    moment = time.time() if now is None else now
    parts = []
    for seat, name in enumerate(match.names):
        if seat in match.clocks.out:
            parts.append(f"{name} out of time")
            continue
        running = " (running)" if seat in match.clocks.running and match.clocks.counting else ""
        parts.append(f"{name} {clock_text(match.clocks.left_at(seat, moment))}{running}")
    return printable(f"Clock {match.clock}: " + ", ".join(parts))


def view_json(match: Match, viewer: Viewer, now: float | None = None) -> dict[str, Any]:
    """The object ``termgames show --json`` prints for ``viewer`` (the clocks as they stand at ``now``)."""
    view = match.view(viewer)
    names = match.names
    return {
        "game": match.game.name,
        "options": match.options,
        "players": list(names),
        "viewer": names[viewer] if viewer is not None and viewer >= 0 else None,
        "to_move": [names[s] for s in view.to_move],
        "over": view.over,
        "scores": {name: exact_number(score) for name, score in zip(names, view.scores)},
        "winners": [names[s] for s in view.winners],
        "moves": [text for _seat, text in view.moves],
        "move_seats": [names[seat] for seat, _text in view.moves],
        "status": view.status,
        "board": view.board_json(),
        "clock": clock_left(match, now),
        "ended_by": match.ended_by,
    }


def view_text(match: Match, viewer: Viewer, ascii: bool = False, now: float | None = None) -> str:
    """What ``termgames show`` prints for ``viewer``: description, scores, the clocks, board, moves."""
    view = match.view(viewer)
    names = match.names
    scores = ", ".join(f"{name} {score_text(score)}" for name, score in zip(names, view.scores))
    lines = [match.describe(), f"Scores: {scores}"]
    clocks = clock_line(match, now)
    if clocks:
        lines.append(clocks)
    if match.flags:
        lines.append(view.status)  # who ran out of time, and what came of it
    lines += ["", view.board_text(ascii=ascii)]
    if view.moves:
        log = (f"{ply + 1}.{names[seat]}:{view.log_text(text, ply)}" for ply, (seat, text) in enumerate(view.moves))
        lines += ["", "Moves: " + " ".join(log)]
    return printable("\n".join(lines))


def move_report(match: Match, seat: int) -> str:
    """The two lines ``termgames move`` prints after ``seat``'s move: what it did, and the status."""
    view = match.view(seat)
    return printable("\n".join([view.last_action or f"{match.names[seat]} played {match.moves[-1].move}", view.status]))
