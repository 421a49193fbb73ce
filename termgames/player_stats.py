"""A player's results counted: games played, won, lost and drawn, by opponent, and her winning streaks.

Shared by the server's player pages (``ssh HOST profile NAME``, :mod:`termgames.server.profile`) and the local
``termgames profile`` (:func:`local_profile`: the saves folder's games against the computer).  Pure Python over
matches and plain results: no Textual, no server.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .match import AI, HUMAN, Match
from .records import RecordError, load

WON, LOST, DRAWN = "won", "lost", "drawn"


@dataclass(frozen=True)
class Played:
    """One finished game from one player's side."""

    game: str
    #: WON, LOST or DRAWN.
    result: str
    #: Whom she played: ``person``, ``guest`` or ``computer LEVEL`` (see :func:`opponent_kind`).
    opponent: str
    #: When it ended (ISO text; "" unknown): the order streaks are counted in.
    ended: str = ""


def result_of(winners: Sequence[int], seat: int, seats: int) -> str:
    """``seat``'s result from the game's winners: a sole winner won; winners sharing it (or none) drew."""
    if seat in winners:
        return WON if len(winners) == 1 else DRAWN
    return DRAWN if not winners or len(winners) == seats else LOST


def result_of_ranks(ranks: Sequence[float], seat: int) -> str:
    """``seat``'s result from every seat's rank (0 the best; equal ranks tie)."""
    best = min(ranks)
    if ranks[seat] != best:
        return LOST
    return WON if list(ranks).count(best) == 1 else DRAWN


def computer_kind(levels: Iterable[str]) -> str:
    """``computer 3`` (``computer 2,3`` against two levels): the opponent kind of a game against computers."""
    return "computer " + ",".join(sorted(set(levels)))


def tally(results: Iterable[Played]) -> dict[str, int]:
    """``{"played", "won", "lost", "drawn"}`` of ``results``."""
    counts = {"played": 0, WON: 0, LOST: 0, DRAWN: 0}
    for played in results:
        counts["played"] += 1
        counts[played.result] += 1
    return counts


def streaks(results: Sequence[Played]) -> tuple[int, int]:
    """(the current winning streak, the best one) of ``results`` in the order they ended."""
    current = best = 0
    for played in results:
        current = current + 1 if played.result == WON else 0
        best = max(best, current)
    return current, best


def summary(results: Sequence[Played]) -> dict[str, Any]:
    """The counts of ``results`` (oldest first), their streaks and their counts by opponent kind."""
    current, best = streaks(results)
    kinds = sorted({played.opponent for played in results})
    return {
        **tally(results),
        "streak": current,
        "best_streak": best,
        "by_opponent": {kind: tally(p for p in results if p.opponent == kind) for kind in kinds},
    }


def by_game(results: Sequence[Played]) -> dict[str, dict[str, Any]]:
    """:func:`summary` per game, games by name."""
    return {game: summary([p for p in results if p.game == game]) for game in sorted({p.game for p in results})}


def summary_lines(counts: dict[str, Any], indent: str = "  ") -> list[str]:
    """A summary (:func:`summary`) as plain lines: the totals, the streaks, then one line per opponent kind."""
    lines = [
        f"{indent}played {counts['played']}: won {counts[WON]}, lost {counts[LOST]}, drawn {counts[DRAWN]}; "
        f"winning streak {counts['streak']} (best {counts['best_streak']})"
    ]
    for kind, kind_counts in counts["by_opponent"].items():
        lines.append(
            f"{indent}  vs {kind}: {kind_counts['played']} played, won {kind_counts[WON]}, lost {kind_counts[LOST]}, "
            f"drawn {kind_counts[DRAWN]}"
        )
    return lines


# -- the local profile: the saves folder's games against the computer ---------------------------------------


def played_against_computer(match: Match) -> Played | None:
    """A saved game as its one human seat played it against computer seats; None when it is not one (no
    computer seat, several people, not over)."""
    humans = [index for index, seat in enumerate(match.seats) if seat.kind == HUMAN]
    levels = [seat.level or match.game.descriptor.default_level or "?" for seat in match.seats if seat.kind == AI]
    if len(humans) != 1 or not levels or not match.over:
        return None
    ended = match.moves[-1].time if match.moves else ""
    result = result_of(match.winners(), humans[0], len(match.seats))
    return Played(match.game.name, result, computer_kind(levels), ended)


@dataclass
class LocalProfile:
    """What ``termgames profile`` found in a saves folder."""

    results: list[Played]
    #: Files that could not be read as records (another program's files, a damaged save).
    unreadable: int = 0
    #: Records that are not a finished game of one person against the computer.
    other: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            **summary(self.results),
            "games": by_game(self.results),
            "unreadable": self.unreadable,
            "other": self.other,
        }

    def text(self, folder: Path) -> str:
        lines = [f"Your games against the computer (saved in {folder}):"]
        if not self.results:
            lines.append("  none finished yet: a game you finish against the computer (termgames play) counts here")
        else:
            lines.extend(summary_lines(summary(self.results)))
            for game, counts in by_game(self.results).items():
                lines.append(f"{game}:")
                lines.extend(summary_lines(counts))
        skipped = []
        if self.other:
            skipped.append(f"{self.other} not a finished game against the computer")
        if self.unreadable:
            skipped.append(f"{self.unreadable} unreadable")
        if skipped:
            lines.append(f"Skipped: {'; '.join(skipped)}.")
        return "\n".join(lines)


def local_profile(folder: Path) -> LocalProfile:
    """Every record (``*.json``) of ``folder`` counted (a missing folder has none); oldest game first."""
    profile = LocalProfile([])
    try:
        files = sorted(entry.path for entry in os.scandir(folder) if entry.name.endswith(".json"))
    except OSError:
        return profile
    for path in files:
        try:
            match = load(path)
        except (RecordError, OSError, ValueError):
            profile.unreadable += 1
            continue
        played = played_against_computer(match)
        if played is None:
            profile.other += 1
        else:
            profile.results.append(played)
    profile.results.sort(key=lambda played: played.ended)
    return profile


# -- a rating history as a chart of text rows ---------------------------------------------------------------

#: A column's height in eighths of a row, drawn with block characters (ASCII mode: ``#`` whole rows).
BLOCKS = " ▁▂▃▄▅▆▇█"


def chart_rows(values: Sequence[float], width: int, height: int, ascii_only: bool = False) -> list[str]:
    """The last ``width`` of ``values`` as ``height`` rows of columns (top row first), the highest value labelled
    on the top row and the lowest on the bottom one: the shape is the signal, no colour needed."""
    shown = list(values)[-max(1, width) :]
    if not shown or height < 1:
        return []
    low, high = min(shown), max(shown)
    span = (high - low) or 1.0
    steps = 1 if ascii_only else 8
    # The lowest value keeps one step: a column is never invisible.
    filled = [1 + round((value - low) / span * (height * steps - 1)) for value in shown]
    bar = "|" if ascii_only else "│"
    rows = []
    for row in range(height - 1, -1, -1):
        label = f"{high:6.1f}" if row == height - 1 else f"{low:6.1f}" if row == 0 else " " * 6
        if ascii_only:
            cells = "".join("#" if level > row else " " for level in filled)
        else:
            cells = "".join(BLOCKS[min(8, max(0, level - row * 8))] for level in filled)
        rows.append(f"{label} {bar}{cells}")
    return rows
