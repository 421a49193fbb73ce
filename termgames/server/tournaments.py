"""Tournaments for people, the server's side: entries, rounds on the server's timer, tables, results, forfeits.

The pairing and the standings are pure (:mod:`termgames.tournaments`); this module keeps each tournament in the
store as one JSON document with a version (:class:`~.stores.interface.StoredTournament`) and changes it only
over the version it read (:meth:`~.stores.interface.TableStore.update_tournament`): a join, a result, a round
paired.  Of several servers sharing a database the first to store a round's pairing is the one that makes its
tables; the others find the round paired and leave it.  A round's tables are made by :meth:`Hub.create_table`
(rated when the tournament is, the clock it names; the players hear of them as of any new table), their
results are read from the tables once they end, and the ratings of a rated tournament's games are what the
rated tables do to them.

The timer (:meth:`Tournaments.tick`, every :data:`TICK_SECONDS` and as soon as a table ends) starts a
tournament at its time or once it is full, learns results, forfeits the absent (after the grace period, on a
live clock), pairs the next round and finishes the tournament.  A player *absent* at a round's start is one
whose move it is at her table and who has made no move there when the grace period ends: she forfeits that
game (the table is closed; the others score as if she had finished last).  On an ``N/move`` clock the clock
itself flags an absent player, and no grace applies.

Who may: a registered player creates at most ``max_tournaments_per_player`` open tournaments and enters at most
``max_tournament_entries_per_player`` (one SSH key; the guests of one address together); guests join casual
tournaments only and create none.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from ..clock import ClockSpec
from ..match import Seat, now_iso
from ..rules import RuleError, get_game
from ..tournaments.pairing import Entrant, Game, arena_pairs, place_points, round_robin, swiss_round, tables_round
from ..tournaments.standings import Standing, arena_standings, crosstable, round_standings
from ..untrusted import fold_name, printable
from .config import ServerConfig
from .limits import MAX_TOURNAMENT_PLAYERS, MAX_TOURNAMENT_TITLE
from .logs import error_line
from .notices import TOURNAMENT_OWNER, Notices
from .people import is_guest
from .stores.interface import PlayerRating, StoredTournament, StoreError, TableStore
from .tables import LiveTable

log = logging.getLogger("termgames.server")

FORMATS = ("swiss", "round-robin", "arena")
WAITING, RUNNING, FINISHED = "waiting", "running", "finished"
#: Seconds between two looks of the timer at every unfinished tournament.
TICK_SECONDS = 2.0
#: A game paired but without its table this long after (its server stopped between): made again by any server.
UNMADE_TABLE_SECONDS = 60.0
#: Attempts at storing one change over another server's changes before giving up (it is tried again at the
#: next tick; a player's command says to try again).
CHANGE_ATTEMPTS = 8
#: Rounds a Swiss tournament takes at most.
MAX_ROUNDS = 50
#: The longest arena, in minutes (a week).
MAX_ARENA_MINUTES = 7 * 24 * 60


class TournamentHost(Protocol):
    """What the tournaments need of the hub (:class:`~termgames.server.hub.Hub` is one)."""

    store: TableStore
    config: ServerConfig
    closed: bool
    tables: dict[int, LiveTable]
    notices: Notices

    def now(self) -> float: ...

    def create_table(
        self, game_name: str, options: dict[str, Any], seats: list[Seat], creator: str, seed: int | None = None,
        rated: bool | None = None, owner: str | None = None, clock: ClockSpec | None = None, counted: bool = True,
    ) -> LiveTable: ...

    def table(self, table_id: int | str) -> LiveTable: ...

    def rating(self, player: str, game: str) -> PlayerRating | None: ...

    def lobby_changed(self) -> None: ...

    def keep_record(self, table: LiveTable) -> None: ...


@dataclass
class Tournament:
    """One tournament as stored (a copy: change it through :meth:`Tournaments.change`)."""

    id: int
    version: int
    status: str
    data: dict[str, Any]

    @classmethod
    def of(cls, stored: StoredTournament) -> Tournament:
        return cls(stored.id, stored.version, stored.status, stored.data)

    @property
    def game(self) -> str:
        return str(self.data["game"])

    @property
    def format(self) -> str:
        return str(self.data["format"])

    @property
    def title(self) -> str:
        return str(self.data.get("title") or f"{get_game(self.game).title} {self.format}")

    @property
    def players(self) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = self.data["players"]
        return entries

    def active(self) -> list[dict[str, Any]]:
        return [entry for entry in self.players if not entry.get("withdrawn")]

    def entry(self, player: str) -> dict[str, Any] | None:
        folded = fold_name(player)
        return next((entry for entry in self.players if fold_name(entry["name"]) == folded), None)

    @property
    def rounds(self) -> list[list[dict[str, Any]]]:
        rounds: list[list[dict[str, Any]]] = self.data["rounds"]
        return rounds

    def games(self) -> list[list[Game]]:
        """The rounds as pairing and standings read them."""
        return [[_game(entry) for entry in games] for games in self.rounds]

    def standings(self) -> list[Standing]:
        names = [entry["name"] for entry in self.players]
        if self.format == "arena":
            ended = sorted((g for games in self.rounds for g in games if g.get("points") is not None),
                           key=lambda g: g.get("ended", 0))
            return arena_standings(names, [_game(g) for g in ended])
        return round_standings(names, self.games())

    def next_game(self, player: str) -> int | None:
        """The table of ``player``'s unfinished game in this tournament, if she has one."""
        folded = fold_name(player)
        for games in reversed(self.rounds):
            for game in games:
                if game.get("points") is None and game.get("table") and folded in map(fold_name, game["seats"]):
                    return int(game["table"])
        return None

    def json(self) -> dict[str, Any]:
        """``tournament show ID --json``: the contract for scripts (docs/server.md)."""
        return {
            "id": self.id,
            "title": self.title,
            "game": self.game,
            "format": self.format,
            "status": self.status,
            "rated": bool(self.data.get("rated")),
            "clock": self.data.get("clock", ""),
            "players": [entry["name"] for entry in self.players],
            "withdrawn": [entry["name"] for entry in self.players if entry.get("withdrawn")],
            "standings": [line.json() for line in self.standings()],
            "crosstable": self.crosstable(),
            "rounds": [[_game_json(game) for game in games] for games in self.rounds],
        }

    def crosstable(self) -> dict[str, dict[str, list[float]]]:
        """For each player (in standings order), the points she took from each opponent, a number a meeting."""
        return crosstable([line.player for line in self.standings()], self.games())


def _game(entry: dict[str, Any]) -> Game:
    points = entry.get("points")
    return Game(tuple(entry["seats"]), None if points is None else tuple(points), entry.get("table"))


def _winners(entry: dict[str, Any]) -> list[str]:
    points = entry.get("points")
    if points is None:
        return []
    best = max(points)
    return [name for name, got in zip(entry["seats"], points) if got == best]


def _game_json(entry: dict[str, Any]) -> dict[str, Any]:
    found = {"table": entry.get("table"), "seats": list(entry["seats"]), "winners": _winners(entry)}
    if entry.get("points") is not None:
        found["points"] = list(entry["points"])
    if entry.get("forfeit"):
        found["forfeit"] = list(entry["forfeit"])
    return found


def _new_game(seats: tuple[str, ...], points: tuple[float, ...] | None, now: float) -> dict[str, Any]:
    return {"seats": list(seats), "points": None if points is None else list(points), "table": None, "started": now}


def parse_when(text: str, now: float) -> float:
    """``--starts``: a time from now (``30m``, ``2h``, ``1d``) or an ISO date and time (UTC unless it says)."""
    spec = text.strip().lower()
    match = re.fullmatch(r"(\d{1,6})([smhd])", spec)
    if match:
        seconds = int(match.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[match.group(2)]
        return now + seconds
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        usage = "a time from now (30m, 2h, 1d) or a date and time (2026-12-01T18:00)"
        raise RuleError(f"--starts {text!r}: {usage}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def check_title(title: str) -> str:
    """A tournament's title, refused unless it is one short line of printable text (it reaches every lobby)."""
    title = title.strip()
    if not title or len(title) > MAX_TOURNAMENT_TITLE:
        raise RuleError(f"a tournament's title is 1 to {MAX_TOURNAMENT_TITLE} characters")
    if printable(title, keep_newlines=False) != title:
        raise RuleError("a tournament's title is plain text: no control characters")
    return title


class Tournaments:
    """Every tournament of the store, run from the hub's loop (see the module doc)."""

    def __init__(self, hub: TournamentHost) -> None:
        self.hub = hub
        self._task: asyncio.Task[None] | None = None
        self._tick_due = False
        #: Called with a tournament's number when one of its games is made (the screens' news).
        self.watchers: list[Callable[[int], None]] = []

    # -- reading ------------------------------------------------------------------------------

    def get(self, tournament_id: int | str) -> Tournament:
        try:
            number = int(str(tournament_id).lstrip("#"))
        except ValueError:
            raise RuleError(f"{tournament_id!r} is not a tournament number") from None
        stored = self.hub.store.tournament(number)
        if stored is None:
            raise RuleError(f"there is no tournament {number}")
        return Tournament.of(stored)

    def listing(self, finished_too: bool = False) -> list[Tournament]:
        """The unfinished tournaments (and the finished ones with ``finished_too``), newest first."""
        found = [Tournament.of(stored) for stored in self.hub.store.tournaments(unfinished_only=not finished_too)]
        return sorted(found, key=lambda t: -t.id)

    def of_player(self, player: str) -> list[Tournament]:
        return [t for t in self.listing() if (entry := t.entry(player)) is not None and not entry.get("withdrawn")]

    # -- changing ------------------------------------------------------------------------------

    def change(self, tournament_id: int, edit: Callable[[Tournament], bool]) -> Tournament | None:
        """Read the tournament, ``edit`` it, store it over the version read; again if another change came
        first.  ``edit`` returns False when there is nothing to change (then None is returned)."""
        for _attempt in range(CHANGE_ATTEMPTS):
            stored = self.hub.store.tournament(tournament_id)
            if stored is None:
                raise RuleError(f"there is no tournament {tournament_id}")
            tournament = Tournament.of(copy.deepcopy(stored))
            if not edit(tournament):
                return None
            if self.hub.store.update_tournament(tournament_id, stored.version, tournament.status, tournament.data):
                tournament.version = stored.version + 1
                self.hub.lobby_changed()
                return tournament
        raise RuleError(f"tournament {tournament_id} is busy just now: try again")

    def new(
        self, creator: str, owner: str, game_name: str, format: str, *, rounds: int = 0, double: bool = False,
        minutes: int = 0, seats: int = 0, options: dict[str, Any] | None = None, clock: ClockSpec | None = None,
        rated: bool = False, starts: float | None = None, when_full: int | None = None, max_players: int | None = None,
        title: str = "",
    ) -> Tournament:
        """A new tournament (its creator entered); RuleError, one line, for anything that makes none."""
        config = self.hub.config
        if is_guest(creator) or not owner.startswith("key:"):
            raise RuleError("only a registered player creates a tournament (sign in with an SSH key)")
        game = get_game(game_name)
        if format not in FORMATS:
            raise RuleError(f"a tournament is --swiss ROUNDS, --round-robin or --arena MINUTES, not {format!r}")
        mine = [t for t in self.listing() if t.data.get("owner") == owner]
        if len(mine) >= config.max_tournaments_per_player:
            raise RuleError(
                f"you have {len(mine)} open tournaments, the limit per player (--max-tournaments-per-player): "
                "wait for one to finish"
            )
        seats = seats or game.max_seats
        if not game.min_seats <= seats <= game.max_seats:
            raise RuleError(f"{game.title} is played by {game.min_seats} to {game.max_seats}, not {seats}")
        if seats > 2 and format != "swiss":
            raise RuleError(f"tables of {seats} play Swiss rounds (--swiss ROUNDS), not {format}")
        if format == "swiss" and not 1 <= rounds <= MAX_ROUNDS:
            raise RuleError(f"--swiss takes 1 to {MAX_ROUNDS} rounds")
        if format == "arena" and not 1 <= minutes <= MAX_ARENA_MINUTES:
            raise RuleError(f"--arena takes 1 to {MAX_ARENA_MINUTES} minutes")
        largest = min(max_players or MAX_TOURNAMENT_PLAYERS, MAX_TOURNAMENT_PLAYERS)
        if largest < 2:
            raise RuleError("--max-players: 2 at the least")
        if when_full is not None and not 2 <= when_full <= largest:
            raise RuleError(f"--when-full takes 2 to {largest} players")
        now = self.hub.now()
        if starts is None and when_full is None:
            starts = now + 600  # ten minutes to join
        data: dict[str, Any] = {
            "title": check_title(title) if title else "",
            "game": game.name,
            "format": format,
            "rounds_total": rounds,
            "double": double,
            "minutes": minutes,
            "seats": seats,
            "options": game.check_options(options or {}),
            "clock": "" if clock is None else str(clock),
            "rated": rated,
            "creator": creator,
            "owner": owner,
            "created": now_iso(now),
            "starts": starts,
            "when_full": when_full,
            "max_players": largest,
            "started": None,
            "ends": None,
            "ended_count": 0,
            "players": [],
            "rounds": [],
        }
        number = self.hub.store.create_tournament(WAITING, data)
        self.join(number, creator, owner)
        self.hub.lobby_changed()
        return self.get(number)

    def join(self, tournament_id: int, player: str, owner: str) -> Tournament:
        config = self.hub.config
        tournament = self.get(tournament_id)
        if tournament.data.get("rated") and is_guest(player):
            raise RuleError("guests join casual tournaments only (sign in with an SSH key to play rated)")
        entered = [t for t in self.listing() if any(
            entry.get("owner") == owner and not entry.get("withdrawn") for entry in t.players
        ) and t.id != tournament_id]
        if len(entered) >= config.max_tournament_entries_per_player:
            who = "the guests of your address have" if owner.startswith("guest:") else "you have"
            raise RuleError(
                f"{who} joined {len(entered)} open tournaments, the limit per player "
                "(--max-tournament-entries-per-player): leave one or wait for one to finish"
            )
        rating = self.hub.rating(player, tournament.game)
        seed = 0.0 if rating is None else float(rating.rating.ordinal)

        def enter(t: Tournament) -> bool:
            if t.status == FINISHED:
                raise RuleError(f"tournament {t.id} is finished")
            if t.format == "round-robin" and t.status == RUNNING:
                raise RuleError(f"tournament {t.id} is a round robin under way: it takes no more players")
            entry = t.entry(player)
            if entry is not None:
                if not entry.get("withdrawn"):
                    raise RuleError(f"you are in tournament {t.id} already")
                entry["withdrawn"] = False  # back from the next round
                return True
            if t.data.get("rated"):
                # One person one entry at a rated event: two names of one key are one player.
                key = self.hub.store.key_of(player)
                for other in t.active():
                    if key is not None and self.hub.store.key_of(other["name"]) == key:
                        raise RuleError(f"{player} and {other['name']} sign in with one SSH key: one entry a person")
            if len(t.active()) >= int(t.data["max_players"]):
                raise RuleError(f"tournament {t.id} is full ({t.data['max_players']} players)")
            if any(e.get("owner") == owner and not e.get("withdrawn") for e in t.players) and is_guest(player):
                raise RuleError("a guest of your address is in this tournament already: one entry an address")
            t.players.append({"name": self.hub.store.account_name(player), "owner": owner, "rating": seed})
            return True

        self.change(tournament_id, enter)
        self.tick_soon()
        return self.get(tournament_id)

    def leave(self, tournament_id: int, player: str) -> Tournament:
        """Before the start: out of the list; once under way: withdrawn (her unfinished game forfeited, no more
        pairings).  Her games played so far stay in the standings."""
        forfeits: list[int] = []

        def withdraw(t: Tournament) -> bool:
            entry = t.entry(player)
            if entry is None or entry.get("withdrawn"):
                raise RuleError(f"you are not in tournament {t.id}")
            if t.status == FINISHED:
                raise RuleError(f"tournament {t.id} is finished")
            if t.status == WAITING:
                t.players.remove(entry)
            else:
                entry["withdrawn"] = True
                forfeits[:] = [g["table"] for games in t.rounds for g in games
                               if g.get("points") is None and g.get("table") and entry["name"] in g["seats"]]
            return True

        self.change(tournament_id, withdraw)
        for table_id in forfeits:
            self._forfeit_table(tournament_id, table_id, {fold_name(player)}, "withdrew")
        return self.get(tournament_id)

    # -- the timer ------------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._tick_forever())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _tick_forever(self) -> None:
        while not self.hub.closed:
            self.tick()
            await asyncio.sleep(TICK_SECONDS)

    def tick_soon(self) -> None:
        """Look at every tournament again as soon as the loop is free (a table ended: an arena pairs again)."""
        if self._tick_due:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a test drives tick itself)
        self._tick_due = True

        def run() -> None:
            self._tick_due = False
            self.tick()

        loop.call_soon(run)

    def table_finished(self, table: LiveTable) -> None:
        """A table ended: a tournament's results are read (and an arena pairs again) at once."""
        if table.owner.startswith(TOURNAMENT_OWNER):
            self.tick_soon()

    def tick(self) -> None:
        """Move every unfinished tournament on as far as the time and its tables say (see the module doc)."""
        try:
            tournaments = self.hub.store.tournaments()
        except StoreError as error:
            log.warning("tournaments not read: %s", error)
            return
        for stored in tournaments:
            try:
                self._advance(Tournament.of(stored))
            except (StoreError, RuleError) as error:
                log.warning("tournament %s not moved on: %s", stored.id, error)
            except Exception as error:  # one tournament's trouble stops no other one
                log.error("tournament %s: %s", stored.id, error_line(error), exc_info=True)

    def _advance(self, tournament: Tournament) -> None:
        now = self.hub.now()
        if tournament.status == WAITING:
            self._maybe_start(tournament, now)
            return
        self._learn_results(tournament)
        self._forfeit_absent(tournament, now)
        self._make_unmade(tournament, now)
        tournament = self.get(tournament.id)
        if tournament.format == "arena":
            self._arena(tournament, now)
        else:
            self._next_round(tournament, now)

    def _maybe_start(self, tournament: Tournament, now: float) -> None:
        starts, full = tournament.data.get("starts"), tournament.data.get("when_full")
        due = (starts is not None and now >= starts) or (full is not None and len(tournament.active()) >= full)
        if not due:
            return
        fewest = 2 if tournament.format != "swiss" else get_game(tournament.game).min_seats

        def begin(t: Tournament) -> bool:
            if t.status != WAITING:
                return False
            t.data["started"] = now
            if len(t.active()) < fewest:
                t.status = FINISHED
                t.data["cancelled"] = f"fewer than {fewest} players came"
                return True
            t.status = RUNNING
            if t.format == "arena":
                t.data["ends"] = now + 60 * int(t.data["minutes"])
            if t.format == "round-robin":
                names = [e["name"] for e in sorted(t.active(), key=lambda e: (-e["rating"], fold_name(e["name"])))]
                t.data["schedule"] = [
                    [list(game.seats) for game in games] for games in round_robin(names, bool(t.data["double"]))
                ]
            return True

        if self.change(tournament.id, begin) is not None:
            log.info("tournament %s started", tournament.id)
            self._advance(self.get(tournament.id))

    def _learn_results(self, tournament: Tournament) -> None:
        """The points of every game whose table ended (here or at another server)."""
        results: dict[int, tuple[list[float], list[str]]] = {}
        for games in tournament.rounds:
            for game in games:
                table_id = game.get("table")
                if game.get("points") is not None or not table_id:
                    continue
                table = self.hub.tables.get(table_id)
                if table is None or not table.over:
                    try:
                        table = self.hub.table(table_id)
                    except RuleError:
                        continue
                if not table.over:
                    continue
                if table.closed:  # closed before its end: those it waited for are absent
                    absent = set(table.match.to_move()) or set(range(len(table.names)))
                    points = place_points([0.0 if seat in absent else 1.0 for seat in range(len(table.names))])
                    results[table_id] = (list(points), [table.names[seat] for seat in absent])
                else:
                    points = place_points([-rank for rank in table.match.ranks()])
                    results[table_id] = (list(points), [])
        if results:
            self._store_results(tournament.id, results)

    def _store_results(self, tournament_id: int, results: dict[int, tuple[list[float], list[str]]]) -> None:
        def record(t: Tournament) -> bool:
            changed = False
            for games in t.rounds:
                for game in games:
                    found = results.get(game.get("table") or 0)
                    if found is None or game.get("points") is not None:
                        continue
                    game["points"], forfeit = found
                    if forfeit:
                        game["forfeit"] = forfeit
                    t.data["ended_count"] = int(t.data.get("ended_count", 0)) + 1
                    game["ended"] = t.data["ended_count"]
                    changed = True
                    if t.format == "arena" and forfeit:  # away: not paired again until she joins again
                        for name in forfeit:
                            entry = t.entry(name)
                            if entry is not None:
                                entry["withdrawn"] = True
            return changed

        self.change(tournament_id, record)

    def _grace(self, tournament: Tournament) -> float | None:
        """Seconds a player may be absent at a round's start; None when her clock flags her instead."""
        clock = str(tournament.data.get("clock") or "")
        if clock and ClockSpec.parse(clock).per_move:
            return None
        return 60 * self.hub.config.tournament_grace_minutes

    def _forfeit_absent(self, tournament: Tournament, now: float) -> None:
        grace = self._grace(tournament)
        if grace is None:
            return
        for games in tournament.rounds:
            for game in games:
                table_id = game.get("table")
                if game.get("points") is not None or not table_id or now < float(game.get("started", 0)) + grace:
                    continue
                table = self.hub.tables.get(table_id)
                if table is None or table.over:
                    continue
                moved = {record.seat for record in table.match.moves}
                absent = {fold_name(table.names[seat]) for seat in table.match.to_move() if seat not in moved}
                if absent:
                    minutes = f"{grace / 60:g}"
                    self._forfeit_table(tournament.id, table_id, absent, f"no move {minutes} minutes after the start")

    def _forfeit_table(self, tournament_id: int, table_id: int, absent: set[str], why: str) -> None:
        """Close ``table_id``: the ``absent`` (folded names) forfeit; the others score as if they finished last."""
        try:
            table = self.hub.table(table_id)
        except RuleError:
            return
        if table.over:
            return
        names = [fold_name(name) for name in table.names]
        who = ", ".join(name for name in table.names if fold_name(name) in absent)
        reason = f"tournament {tournament_id}: {who} forfeited ({why})"
        # A close only over a table still unfinished: a move stored meanwhile at another server wins.
        future = datetime.fromtimestamp(self.hub.now() + 86400, UTC).replace(microsecond=0).isoformat()
        if not self.hub.store.close_table(table_id, reason, future):
            return
        table.was_closed(reason)
        self.hub.keep_record(table)
        self.hub.notices.forfeited(table, reason)
        points = place_points([0.0 if name in absent else 1.0 for name in names])
        gone = [name for name in table.names if fold_name(name) in absent]
        self._store_results(tournament_id, {table_id: (list(points), gone)})

    def _make_unmade(self, tournament: Tournament, now: float) -> None:
        """Games paired by a server that stopped before it made their tables: claimed, then made."""
        stale = [
            (r, g) for r, games in enumerate(tournament.rounds) for g, game in enumerate(games)
            if game.get("points") is None and not game.get("table") and len(game["seats"]) > 1
            and now >= float(game.get("started", 0)) + UNMADE_TABLE_SECONDS
        ]
        if not stale:
            return

        def claim(t: Tournament) -> bool:
            for r, g in stale:
                if t.rounds[r][g].get("table"):
                    return False
                t.rounds[r][g]["started"] = now
            return True

        if self.change(tournament.id, claim) is not None:
            self._make_tables(tournament.id, stale)

    def _next_round(self, tournament: Tournament, now: float) -> None:
        if any(game.get("points") is None for games in tournament.rounds for game in games):
            return  # the round goes on
        total = self._rounds_total(tournament)
        played = len(tournament.rounds)
        made: list[tuple[int, int]] = []

        def pair(t: Tournament) -> bool:
            if len(t.rounds) != played or t.status != RUNNING:
                return False  # another server paired it first
            if played >= total or len(t.active()) < 2:
                t.status = FINISHED
                return True
            games = self._pairing(t, now)
            t.rounds.append(games)
            made[:] = [(played, g) for g, game in enumerate(games) if game.get("points") is None]
            return True

        done = self.change(tournament.id, pair)
        if done is None:
            return
        if done.status == FINISHED:
            log.info("tournament %s finished", tournament.id)
            return
        self._make_tables(tournament.id, made)

    def _rounds_total(self, tournament: Tournament) -> int:
        if tournament.format == "round-robin":
            return len(tournament.data.get("schedule", []))
        return int(tournament.data["rounds_total"])

    def _pairing(self, t: Tournament, now: float) -> list[dict[str, Any]]:
        active = t.active()
        if t.format == "round-robin":
            playing = {fold_name(e["name"]) for e in active}
            games = []
            for seats in t.data["schedule"][len(t.rounds)]:
                present = [fold_name(name) in playing for name in seats]
                if len(seats) == 1 or all(present):
                    games.append(_new_game(tuple(seats), (1.0,) if len(seats) == 1 else None, now))
                else:  # a withdrawn player's game: the other scores it, no table
                    game = _new_game(tuple(seats), tuple(1.0 if here else 0.0 for here in present), now)
                    game["forfeit"] = [name for name, here in zip(seats, present) if not here]
                    games.append(game)
            return games
        entrants = [Entrant(e["name"], float(e["rating"])) for e in active]
        seats = int(t.data.get("seats", 2))
        if seats > 2:
            paired = tables_round(entrants, t.games(), seats, get_game(t.game).min_seats)
        else:
            paired = swiss_round(entrants, t.games())
        return [_new_game(game.seats, game.points, now) for game in paired]

    def _arena(self, tournament: Tournament, now: float) -> None:
        ends = float(tournament.data["ends"])
        busy = {fold_name(name) for games in tournament.rounds for game in games if game.get("points") is None
                for name in game["seats"]}
        if now >= ends:
            if not busy:
                self.change(tournament.id, lambda t: _finish(t) if t.status == RUNNING else False)
            return
        waiting = [e for e in tournament.active() if fold_name(e["name"]) not in busy]
        if len(waiting) < 2:
            return
        standings = {line.player: line.points for line in tournament.standings()}
        last: dict[str, str] = {}
        for games in tournament.rounds:
            for game in games:
                if len(game["seats"]) == 2:
                    one, other = game["seats"]
                    last[one], last[other] = other, one
        pairs = arena_pairs([Entrant(e["name"], float(e["rating"])) for e in waiting], standings, last)
        if not pairs:
            return
        made: list[tuple[int, int]] = []
        seen = tournament.version

        def pair(t: Tournament) -> bool:
            if t.version != seen:
                return False  # another server changed it: the next tick looks again
            t.rounds.append([_new_game(game.seats, None, now) for game in pairs])
            made[:] = [(len(t.rounds) - 1, g) for g in range(len(pairs))]
            return True

        if self.change(tournament.id, pair) is not None:
            self._make_tables(tournament.id, made)

    def _make_tables(self, tournament_id: int, games: list[tuple[int, int]]) -> None:
        """The tables of ``games`` (round, index) of a round this server just paired, and their numbers stored."""
        tournament = self.get(tournament_id)
        numbers: dict[tuple[int, int], int] = {}
        failed: dict[tuple[int, int], str] = {}
        clock = ClockSpec.parse(tournament.data["clock"]) if tournament.data.get("clock") else None
        for where in games:
            game = tournament.rounds[where[0]][where[1]]
            try:
                table = self.hub.create_table(
                    tournament.game, dict(tournament.data["options"]), [Seat(name=name) for name in game["seats"]],
                    creator=str(tournament.data["creator"]), rated=bool(tournament.data.get("rated")),
                    owner=f"{TOURNAMENT_OWNER}{tournament_id}", clock=clock, counted=False,
                )
            except RuleError as error:
                log.warning("tournament %s: a table not made: %s", tournament_id, error)
                failed[where] = str(error)
                continue
            numbers[where] = table.id

        def record(t: Tournament) -> bool:
            for (r, g), number in numbers.items():
                t.rounds[r][g]["table"] = number
            for (r, g), why in failed.items():  # no game: nobody scores it
                t.rounds[r][g]["points"] = [0.0] * len(t.rounds[r][g]["seats"])
                t.rounds[r][g]["unplayed"] = why
            return bool(numbers or failed)

        self.change(tournament_id, record)
        for watcher in list(self.watchers):
            watcher(tournament_id)


def _finish(t: Tournament) -> bool:
    t.status = FINISHED
    return True
