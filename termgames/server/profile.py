"""Player pages: ``ssh HOST profile NAME [--json]`` and the lobby's profile screen read one :func:`player_profile`.

Per game: the account's rating and its history (one point per rated game, at the time that table's last move
was made; her newest :data:`HISTORY_POINTS` rated games of every game together), then the results of her
newest :data:`PROFILE_TABLES` finished tables (rated or casual) counted by game and by opponent kind
(:mod:`termgames.player_stats`), her winning streaks, and the newest :data:`RECENT_SHOWN` of those tables.
A table's result is read from its kept record (the winners it names); a table closed for inactivity counts in
no result.  Pure Python on the server's loop: no Textual.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from ..games import GAMES
from ..match import AI, HUMAN, Seat
from ..player_stats import (
    DRAWN,
    LOST,
    WON,
    Played,
    by_game,
    chart_rows,
    computer_kind,
    result_of,
    summary,
    summary_lines,
)
from ..rules import RuleError, get_game
from .hub import Hub
from .people import is_guest, is_player_name
from .stores.interface import PlayedTable, StoreError

log = logging.getLogger("termgames.server")

#: The finished tables a player page reads (newest first): what its counts and streaks are of.  A bound on
#: the work one page asks of the server (each table's record is read).
PROFILE_TABLES = 100
#: The rated games (every game together, the newest) a page's rating histories show: a bound on its work too.
HISTORY_POINTS = 500
#: The recent games a page lists.
RECENT_SHOWN = 20
#: The rated games the command's chart shows (the newest).
TEXT_CHART_WIDTH = 60
#: A result that cannot be told (the table was closed for inactivity; its record is lost).
CLOSED, UNKNOWN = "closed", "unknown"


def opponent_kind(seats: list[Seat], mine: int) -> str:
    """Whom the player at seat ``mine`` played: ``computer LEVEL`` when any computer sat, else ``guest`` when any
    guest did, else ``person``."""
    others = [seat for index, seat in enumerate(seats) if index != mine]
    levels = [seat.level or "?" for seat in others if seat.kind == AI]
    if levels:
        return computer_kind(levels)
    if any(seat.kind == HUMAN and seat.name and is_guest(seat.name) for seat in others):
        return "guest"
    return "person"


def _kept_winners(hub: Hub, game: str, table_id: int) -> list[str] | None:
    """The winners' names the table's kept record gives (the server's ``records/`` file, else the database's
    copy); None when there is none to read."""
    text: str | None = None
    if hub.records_dir is not None:
        try:
            text = (hub.records_dir / f"{game}-table{table_id}.json").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = None  # finished at another server: the database keeps it
    if text is None:
        text = hub.store.record(table_id)
    if not text:
        return None
    try:
        result = json.loads(text).get("result")
        winners = result.get("winners") if isinstance(result, dict) else None
    except (ValueError, AttributeError):
        return None
    return [name for name in winners if isinstance(name, str)] if isinstance(winners, list) else None


def _result(hub: Hub, played: PlayedTable, seats: list[Seat], mine: int) -> str:
    stored = played.stored
    if stored.closed:
        return CLOSED
    winners = _kept_winners(hub, stored.game, stored.id)
    if winners is None:
        return UNKNOWN
    names = [seat.name for seat in seats]
    indexes = [names.index(name) for name in winners if name in names]
    return result_of(indexes, mine, len(seats))


def player_profile(hub: Hub, name: str) -> dict[str, Any]:
    """The player page of ``name`` (``profile NAME --json``'s object); RuleError for a name no seat can have."""
    if not is_player_name(name):
        raise RuleError(f"no player can be called {name!r}")
    player = name if is_guest(name) else hub.store.account_name(name)
    history = hub.store.rating_history(player, HISTORY_POINTS)
    tables = hub.store.finished_of(player, PROFILE_TABLES)
    results: list[Played] = []
    recent: list[dict[str, Any]] = []
    changes = {point.table_id: point for point in history}
    for played in tables:
        stored = played.stored
        seats = [Seat.from_dict(seat) for seat in stored.seats]
        mine = next(i for i, seat in enumerate(seats) if seat.kind == HUMAN and seat.name == player)
        result = _result(hub, played, seats, mine)
        if result in (WON, LOST, DRAWN):
            results.append(Played(stored.game, result, opponent_kind(seats, mine), played.ended))
        if len(recent) < RECENT_SHOWN:
            entry: dict[str, Any] = {
                "table": stored.id,
                "game": stored.game,
                "rated": stored.rated,
                "ended": played.ended,
                "players": [seat.name or "?" for seat in seats],
                "result": result,
                "outcome": stored.outcome,
            }
            change = changes.get(stored.id)
            if change is not None:
                entry["change"] = round(change.after.mu - change.before.mu, 2)
            recent.append(entry)
    results.sort(key=lambda p: p.ended)
    counted = by_game(results)
    games: dict[str, dict[str, Any]] = {}
    for game in GAMES:
        rated = hub.rating(player, game)
        points = [[point.time, round(point.after.mu, 2)] for point in history if point.game == game]
        if rated is None and game not in counted and not points:
            continue
        counts = counted.get(game) or summary([])
        games[game] = {
            "rating": round(rated.rating.mu, 2) if rated else None,
            "sigma": round(rated.rating.sigma, 2) if rated else None,
            "rated_games": rated.games if rated else 0,
            "history": points,
            **counts,
        }
    return {"name": player, "games": games, "recent": recent, **summary(results)}


def profile_text(profile: dict[str, Any]) -> str:
    """A player page (:func:`player_profile`) as plain lines."""
    lines = [f"{profile['name']}: the newest {PROFILE_TABLES} finished games at most are counted"]
    if not profile["games"]:
        lines.append("  no finished games yet")
    for game, counts in profile["games"].items():
        title = get_game(game).title
        if counts["rating"] is not None:
            mus = [mu for _, mu in counts["history"]]
            trend = f"; history {len(mus)} rated games, low {min(mus):.1f}, high {max(mus):.1f}" if mus else ""
            lines.append(f"{title}: rating {counts['rating']:.1f} (sigma {counts['sigma']:.2f}){trend}")
            lines.extend("  " + row for row in chart_rows(mus, TEXT_CHART_WIDTH, 4, ascii_only=True))
        else:
            lines.append(f"{title}: not rated")
        lines.extend(summary_lines(counts))
    if profile["recent"]:
        lines.append("Recent games (ssh HOST record TABLE for one's record):")
    for entry in profile["recent"]:
        change = f" {entry['change']:+.1f}" if "change" in entry else ""
        kind = "rated" if entry["rated"] else "casual"
        lines.append(
            f"  {entry['table']:>5}  {entry['game']:<10} {kind:<6} {entry['result']:<7}{change}  "
            f"{' vs '.join(entry['players'])}  ({entry['ended'][:16].replace('T', ' ')})"
        )
    return "\n".join(lines)


def safe_profile(hub: Hub, name: str) -> dict[str, Any] | None:
    """:func:`player_profile`, or None when the database cannot be reached just now (logged)."""
    try:
        return player_profile(hub, name)
    except StoreError as error:
        log.warning("profile of %s not read: %s", name, error)
        return None
