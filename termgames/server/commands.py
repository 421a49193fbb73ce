"""Correspondence play over SSH, pbmserv's command model: ``ssh -p 2222 alice@host COMMAND``.

``challenge GAME [options] [--rated|--casual] NAME...``, ``tables``,
``show TABLE [--json]``, ``move TABLE MOVE``, ``ratings [GAME]``, ``profile NAME [--json]`` and ``notify``
(:mod:`.notify`).  ``ssh -t HOST watch TABLE`` opens a table's screen (the SSH session's, with a terminal:
:meth:`~termgames.server.ssh.GameSession.watch_from_sign_in`); here, without one, it says how to ask for one.
The player is the SSH identity; the output and the errors are the CLI's (``termgames show``/``move``):
an error is one line on stderr and exit status 2.  ``web [TABLE]`` prints a link that signs a browser
in (``termgames serve --web``), ``web --sign-out-all`` signs every browser out.
"""

from __future__ import annotations

import json
import logging
import math
import shlex
from dataclasses import dataclass
from typing import Protocol

from ..analysis import analysis_text
from ..clock import clock_text, parse_clock
from ..games import GAMES
from ..match import HUMAN, Seat, parse_player
from ..report import move_report, to_move_text, view_json, view_text
from ..rules import RuleError, get_game
from ..rules.base import ALL
from ..untrusted import fold_name, printable, safe_json
from .hub import Hub
from .limits import WEB_LINK_SECONDS
from .logs import error_line
from .notify import notify_command
from .people import is_guest, name_owner
from .profile import player_profile, profile_text
from .seeks import SeekResult, describe_seek, parse_rating_range, seek_json
from .stores.interface import StoreError
from .table_facts import FinishedTable
from .tables import LiveTable
from .tournaments import Tournament, parse_when

#: A tournament's clock when ``tournament new`` names none: correspondence, three days a move.
DEFAULT_TOURNAMENT_CLOCK = "3d/move"

log = logging.getLogger("termgames.server")

EXIT_USAGE = 2

_LINK_MINUTES = WEB_LINK_SECONDS // 60
USAGE = f"""\
termgames over SSH: commands (or no command for the game screens)
  challenge GAME [options] NAME...   a new table: you, then NAME... in that order (NAME:ai[:LEVEL] for an AI);
                                     rated unless --casual (a table with an AI or a guest is always casual);
                                     --clock BASE+INC (10m+5s), BASE (5m) or N/move (3d/move): untimed without
  seek GAME [options] [--seats N] [--clock SPEC] [--rated|--casual] [--rating-range LO-HI]
                                     a game with whoever fits: a table at once with seeks that fit (same game,
                                     options, seats, clock, rated or casual; each rating within the other's
                                     range), else it waits (a live clock while you have a screen open here)
  seek --take ID                     take a seek from the list: its table at once
  seeks [--json]                     the seeks waiting; * marks yours
  unseek [ID]                        take back your seek ID (every seek of yours without one)
  tables                             your tables; * marks those where it is your move (least time left first)
  show TABLE [--json]                the board as your seat sees it
  move TABLE MOVE                    play one move
  record TABLE                       a finished game's record (save it; termgames replay FILE plays it)
  analyse TABLE [--level L] [--json] a finished game analysed move by move (queued: ask again for it)
  ratings [GAME]                     the rated accounts of GAME (of every game without one)
  profile NAME [--json]              a player's page: ratings and their history, results, streaks, recent games
  notify [off|bell|desktop]          how you hear of your move at other tables (--email ADDR, --confirm CODE,
                                     --no-email: mail while you are away, where the server sends it)
  tournament new GAME (--swiss ROUNDS | --round-robin [--double] | --arena MINUTES) [options]
      [--clock SPEC] [--rated] [--starts WHEN | --when-full N] [--max-players N] [--seats N] [--title TEXT]
                                     a new tournament (you are entered); prints its number
  tournament join|leave ID           enter it, or leave it (once under way: withdraw)
  tournament show ID [--json]        standings, tiebreaks and rounds
  tournaments                        the open tournaments
  web [TABLE]                        a link that signs a browser in as you (once, within {_LINK_MINUTES} minutes)
  web --sign-out-all                 sign every browser out
  watch TABLE                        (with ssh -t) the table's screen at once, as a spectator (your seat if you
                                     have one there); q leaves it for the lobby
  help                               this text"""

COMMANDS = (
    "challenge", "seek", "seeks", "unseek", "tournament", "tournaments", "tables", "show", "move", "record", "analyse",
    "ratings", "profile", "notify", "web", "watch", "help",
)


class WebSignIn(Protocol):
    """The server's browser front (``termgames serve --web``), as the ``web`` command uses it."""

    def link(self, player: str, owner: str, table_id: int | None) -> str:
        """A new one-time link that signs a browser in as ``player`` (at ``table_id``'s table)."""
        ...

    def sign_out_all(self, player: str) -> int:
        """Sign ``player`` out of every browser (their pages close); how many were signed in."""
        ...


@dataclass
class Result:
    stdout: str = ""
    stderr: str = ""
    status: int = 0


def _fail(message: str) -> Result:
    return Result(stderr=f"termgames: {printable(message, keep_newlines=False)}\n", status=EXIT_USAGE)


def _ok(text: str) -> Result:
    # Names and moves come from players: nothing in them may drive another player's terminal.
    return Result(stdout=printable(text) + "\n")


def is_command(line: str) -> bool:
    """Whether an SSH exec request names one of our commands (anything else is refused)."""
    try:
        words = shlex.split(line)
    except ValueError:
        return False
    return bool(words) and words[0] in COMMANDS


def run_command(
    hub: Hub, player: str, line: str, owner: str | None = None, web: WebSignIn | None = None, address: str = ""
) -> Result:
    """Run one command line for ``player``; never raises for anything a player can type.

    ``owner``: the person the connection signed in as (see :func:`~.people.key_owner`), whom a new table
    counts against; None works it out from ``player``.  ``web``: the server's browser front (None: it serves
    no browsers).  ``address``: where the connection comes from (what its mails count against)."""
    try:
        words = shlex.split(line)
    except ValueError as error:
        return _fail(f"cannot read the command: {error}")
    if not words:
        return _ok(USAGE)
    command, args = words[0], words[1:]
    try:
        if command == "help":
            return _ok(USAGE)
        if command == "challenge":
            return _challenge(hub, player, args, owner)
        if command == "seek":
            return _seek(hub, player, args, owner or hub.owner_of(player))
        if command == "seeks":
            return _seeks(hub, player, args)
        if command == "unseek":
            return _unseek(hub, player, args)
        if command == "tournament":
            return tournament_command(hub, player, args, owner)
        if command == "tournaments":
            if args:
                return _fail("tournaments takes no arguments")
            return _ok(tournaments_text(hub, player))
        if command == "tables":
            if args:
                return _fail("tables takes no arguments")
            return _tables(hub, player)
        if command == "show":
            return _show(hub, player, args)
        if command == "move":
            return _move(hub, player, args)
        if command == "record":
            return _record(hub, args)
        if command in ("analyse", "analyze"):
            return _analyse(hub, player, args, owner)
        if command == "ratings":
            return _ratings(hub, args)
        if command == "profile":
            return _profile(hub, args)
        if command == "notify":
            return _ok(notify_command(hub, player, args, owner, address))
        if command == "web":
            return _web(hub, player, args, owner, web)
        if command == "watch":  # a terminal's (the SSH session's): here, none was asked for
            return _fail(f"watch needs a terminal: {hub.address.command(player, terminal=True)} watch TABLE")
    except RuleError as error:
        return _fail(str(error))
    except StoreError as error:  # the database restarts: nothing was done, the player tries again
        log.warning("%s: %r not run: %s", player, line, error)
        return _fail("the database cannot be reached just now: nothing was done; try again in a moment")
    except Exception as error:  # a bug one table reaches: that command fails, the server goes on
        log.error("%s: %r failed: %s", player, line, error_line(error), exc_info=True)
        return _fail("the server could not do that (its log says why)")
    return _fail(f"unknown command {command!r} (commands: {', '.join(COMMANDS)})")


def _challenge(hub: Hub, player: str, args: list[str], owner: str | None = None) -> Result:
    if not args:
        return _fail("challenge GAME [options] NAME...: name the game")
    game = get_game(args[0])
    words, clock_words = _take_clock(args[1:])
    choices = {word for word in words if word in ("--rated", "--casual")}
    if len(choices) > 1:
        return _fail("challenge: --rated or --casual, not both")
    rated = None if not choices else choices == {"--rated"}
    if len(clock_words) > 1:
        return _fail("challenge: one --clock at most")
    clock = parse_clock(clock_words[0]) if clock_words else None
    if clock_words and clock is None:
        return _fail("--clock needs a value: BASE+INC (10m+5s), BASE (5m) or N/move (3d/move)")
    # The CLI's own reader of option flags; the words left over are the players.
    options, names = game.take_cli_options([word for word in words if word not in choices])
    if not names:
        return _fail("challenge whom? Name the other players after the game and its options")
    seats = [Seat(name=player)]
    for text in names:
        info = parse_player(text, game)
        seats.append(info)
    table = hub.create_table(game.name, options, seats, creator=player, rated=rated, owner=owner, clock=clock)
    kind = "rated" if table.rated else "casual"
    return _ok(f"{table.id}: {table.match.describe()}; {kind}; {to_move_text(table.match)}")


def tournament_command(hub: Hub, player: str, args: list[str], owner: str | None) -> Result:
    owner = owner or hub.owner_of(player)
    if not args or args[0] not in ("new", "join", "leave", "show"):
        return _fail("tournament new|join|leave|show ...: see help")
    action, rest = args[0], args[1:]
    if action == "new":
        return _ok(str(_new_tournament(hub, player, owner, rest)))
    if action == "show":
        as_json = "--json" in rest
        rest = [word for word in rest if word != "--json"]
        if len(rest) != 1:
            return _fail("tournament show ID [--json]")
        tournament = hub.tournaments.get(rest[0])
        if as_json:
            return _ok(safe_json(tournament.json()))
        return _ok(tournament_text(tournament, player))
    if len(rest) != 1:
        return _fail(f"tournament {action} ID")
    number = hub.tournaments.get(rest[0]).id
    if action == "join":
        tournament = hub.tournaments.join(number, player, owner)
        return _ok(f"you are in tournament {number} ({len(tournament.active())} players)")
    hub.tournaments.leave(number, player)
    return _ok(f"you left tournament {number}")


def _new_tournament(hub: Hub, player: str, owner: str, args: list[str]) -> int:
    if not args:
        raise RuleError("tournament new GAME (--swiss ROUNDS | --round-robin | --arena MINUTES) ...: name the game")
    game = get_game(args[0])
    words, clock_words = _take_clock(args[1:])
    if len(clock_words) > 1:
        raise RuleError("tournament new: one --clock at most")
    clock = parse_clock(clock_words[0]) if clock_words else parse_clock(DEFAULT_TOURNAMENT_CLOCK)
    if clock is None:
        raise RuleError("--clock needs a value: BASE+INC (10m+5s), BASE (5m) or N/move (3d/move)")
    valued = {"--swiss", "--arena", "--starts", "--when-full", "--max-players", "--seats", "--title"}
    flags = {"--round-robin", "--double", "--rated", "--casual"}
    given: dict[str, str] = {}
    rest: list[str] = []
    items = list(words)
    while items:
        word = items.pop(0)
        name, equals, value = word.partition("=")
        if name in valued:
            if not equals:
                if not items:
                    raise RuleError(f"{name} needs a value")
                value = items.pop(0)
            if name in given:
                raise RuleError(f"{name} once at most")
            given[name] = value
        elif word in flags:
            given[word] = ""
        else:
            rest.append(word)
    formats = [name for name in ("--swiss", "--round-robin", "--arena") if name in given]
    if len(formats) != 1:
        raise RuleError("a tournament is one of --swiss ROUNDS, --round-robin or --arena MINUTES")
    if "--starts" in given and "--when-full" in given:
        raise RuleError("--starts WHEN or --when-full N, not both")
    if "--rated" in given and "--casual" in given:
        raise RuleError("--rated or --casual, not both")
    options, left = game.take_cli_options(rest)
    if left:
        raise RuleError(f"tournament new: {' '.join(left)!r} is not an option of {game.title}")

    def number(flag: str) -> int:
        try:
            return int(given[flag])
        except ValueError:
            raise RuleError(f"{flag} takes a whole number, not {given[flag]!r}") from None

    tournament = hub.tournaments.new(
        player, owner, game.name, formats[0].removeprefix("--"),
        rounds=number("--swiss") if "--swiss" in given else 0,
        double="--double" in given,
        minutes=number("--arena") if "--arena" in given else 0,
        seats=number("--seats") if "--seats" in given else 0,
        options=options, clock=clock, rated="--rated" in given,
        starts=parse_when(given["--starts"], hub.now()) if "--starts" in given else None,
        when_full=number("--when-full") if "--when-full" in given else None,
        max_players=number("--max-players") if "--max-players" in given else None,
        title=given.get("--title", ""),
    )
    return tournament.id


def tournaments_text(hub: Hub, player: str) -> str:
    listed = hub.tournaments.listing()
    if not listed:
        return "no open tournaments: tournament new GAME --swiss ROUNDS starts one"
    lines = []
    for tournament in listed:
        mark = "*" if tournament.entry(player) is not None else " "
        lines.append(f"{mark}{tournament.id:>4}  {tournament_line(tournament)}")
    return "\n".join(lines)


def tournament_line(tournament: Tournament) -> str:
    """One line of a list of tournaments: title, game, format, status, players."""
    kind = "rated" if tournament.data.get("rated") else "casual"
    state = tournament.status
    if tournament.status == "running" and tournament.format != "arena":
        state += f", round {len(tournament.rounds)}"
    return (f"{tournament.title}  ({tournament.game}, {tournament.format}, {kind}, "
            f"{len(tournament.active())} players, {state})")


#: The tiebreaks as the standings' columns name them (Buchholz, Sonneborn-Berger: docs/tournaments.md).
TIEBREAK_HEADS = {"buchholz": "buchholz", "sonneborn_berger": "s-b"}


def tournament_text(tournament: Tournament, player: str) -> str:
    """``tournament show ID``: the standings with their tiebreaks, then every round's tables."""
    lines = [f"Tournament {tournament.id}: {tournament_line(tournament)}"]
    if tournament.data.get("cancelled"):
        lines.append(f"cancelled: {tournament.data['cancelled']}")
    mine = tournament.next_game(player)
    if mine is not None:
        lines.append(f"your game: table {mine} (show {mine}; move {mine} MOVE)")
    standings = tournament.standings()
    if standings:
        names = list(standings[0].tiebreaks)
        # As narrow as the names (a screen of 50 columns shows the table whole): the tiebreaks by short names.
        heads = [TIEBREAK_HEADS.get(name, name) for name in names]
        width = max(6, *(len(line.player) for line in standings))
        lines.append(f"{'#':>3}  {'player':<{width}} {'points':>6} {'games':>5}  " + "  ".join(heads))
        for rank, line in enumerate(standings, start=1):
            breaks = "  ".join(f"{line.tiebreaks[name]:>{len(head)}g}" for name, head in zip(names, heads))
            lines.append(f"{rank:>3}  {line.player:<{width}} {line.points:>6g} {line.games:>5}  {breaks}")
        lines += crosstable_lines([line.player for line in standings], tournament.crosstable())
    for number, games in enumerate(tournament.json()["rounds"], start=1):
        lines.append(f"round {number}:")
        for game in games:
            where = f"table {game['table']}" if game["table"] else ("bye" if len(game["seats"]) == 1 else "no table")
            result = ""
            if "points" in game:
                result = "  " + "-".join(f"{points:g}" for points in game["points"])
                if game.get("forfeit"):
                    result += f" ({', '.join(game['forfeit'])} forfeited)"
            lines.append(f"  {where:<10} {' vs '.join(game['seats'])}{result}")
    return "\n".join(lines)


def crosstable_lines(order: list[str], table: dict[str, dict[str, list[float]]]) -> list[str]:
    """The crosstable under the standings: a row a player, a column an opponent by rank; each cell the points she
    took from that opponent (``1``, ``0.5``, ``0``; ``1/0`` when they met twice), ``.`` not met, ``x`` herself."""
    if not any(table.get(name) for name in order):
        return []

    def cell(name: str, other: str) -> str:
        if name == other:
            return "x"
        met = table.get(name, {}).get(other)
        return "/".join(f"{points:g}" for points in met) if met else "."

    cells = [[cell(name, other) for other in order] for name in order]
    width = max(3, *(len(text) for row in cells for text in row))
    names = max(6, *(len(name) for name in order))
    lines = ["crosstable (points taken from each opponent, by rank):"]
    lines.append(f"{'':>3}  {'':<{names}} " + " ".join(f"{rank:>{width}}" for rank in range(1, len(order) + 1)))
    for rank, (name, row) in enumerate(zip(order, cells), start=1):
        lines.append(f"{rank:>3}  {name:<{names}} " + " ".join(f"{text:>{width}}" for text in row))
    return lines


def _seek(hub: Hub, player: str, args: list[str], owner: str) -> Result:
    usage = "seek GAME [options] [--seats N] [--clock SPEC] [--rated|--casual] [--rating-range LO-HI]"
    if args and (args[0] == "--take" or args[0].startswith("--take=")):
        words = args[0].removeprefix("--take").removeprefix("=").split() + args[1:]
        if len(words) != 1 or not words[0].lstrip("#").isdigit():
            return _fail("seek --take ID: the number of one seek (seeks lists them)")
        return _seek_result(hub.seeks.take(player, owner, int(words[0].lstrip("#"))))
    if not args:
        return _fail(f"{usage}: name the game")
    game = get_game(args[0])
    words, clock_words = _take_clock(args[1:])
    values: dict[str, list[str]] = {"--seats": [], "--rating-range": []}
    rest: list[str] = []
    while words:
        word = words.pop(0)
        flag, equals, value = word.partition("=")
        if flag in values:
            values[flag].append(value if equals else (words.pop(0) if words else ""))
        else:
            rest.append(word)
    choices = {word for word in rest if word in ("--rated", "--casual")}
    if len(choices) > 1:
        return _fail("seek: --rated or --casual, not both")
    if len(clock_words) > 1 or any(len(given) > 1 for given in values.values()):
        return _fail("seek: --clock, --seats and --rating-range once each at most")
    clock = parse_clock(clock_words[0]) if clock_words else None
    if clock_words and clock is None:
        return _fail("--clock needs a value: BASE+INC (10m+5s), BASE (5m) or N/move (3d/move)")
    seats = None
    if values["--seats"]:
        if not values["--seats"][0].isdigit():
            return _fail(f"--seats takes a number of players, not {values['--seats'][0]!r}")
        seats = int(values["--seats"][0])
    rating_range = parse_rating_range(values["--rating-range"][0]) if values["--rating-range"] else None
    options, extra = game.take_cli_options([word for word in rest if word not in choices])
    if extra:
        return _fail(f"seek: {extra[0]!r} is not an option of {game.title} ({usage})")
    rated = None if not choices else choices == {"--rated"}
    result = hub.seeks.seek(
        player, owner, game.name, options, seats=seats, clock=clock, rated=rated, rating_range=rating_range
    )
    return _seek_result(result)


def _seek_result(result: SeekResult) -> Result:
    if result.table is not None:
        table = result.table
        kind = "rated" if table.rated else "casual"
        return _ok(f"{table.id}: {table.match.describe()}; {kind}; {to_move_text(table.match)}")
    assert result.seek is not None  # (a result is one or the other)
    return _ok(f"seek {result.seek.id} waits: {describe_seek(result.seek)} (unseek {result.seek.id} takes it back)")


def _seeks(hub: Hub, player: str, args: list[str]) -> Result:
    if args not in ([], ["--json"]):
        return _fail("seeks [--json] takes nothing else")
    waiting = hub.seeks.current()
    if args:
        return _ok(safe_json([seek_json(seek) for seek in waiting]))
    if not waiting:
        return _ok("no seeks waiting: seek GAME [--clock SPEC] makes one")
    lines = []
    for seek in waiting:
        mark = "*" if fold_name(seek.player) == fold_name(player) else " "
        rating = hub.seeks.rating_of(seek.player, seek.game) if seek.rated else None
        lines.append(mark + describe_seek(seek, rating))
    return _ok("\n".join(lines))


def _unseek(hub: Hub, player: str, args: list[str]) -> Result:
    if len(args) > 1 or (args and not args[0].lstrip("#").isdigit()):
        return _fail("unseek [ID]: the number of a seek of yours (none: every one)")
    taken = hub.seeks.unseek(player, int(args[0].lstrip("#")) if args else None)
    if not taken:
        return _ok("you have no seeks waiting")
    return _ok("took back seek " + ", ".join(map(str, taken)))


def _take_clock(args: list[str]) -> tuple[list[str], list[str]]:
    """``--clock SPEC`` (or ``--clock=SPEC``) out of ``args``: (the other words, the clock specs given)."""
    rest: list[str] = []
    specs: list[str] = []
    items = list(args)
    while items:
        word = items.pop(0)
        if word == "--clock":
            specs.append(items.pop(0) if items else "")
        elif word.startswith("--clock="):
            specs.append(word.removeprefix("--clock="))
        else:
            rest.append(word)
    return rest, specs


def time_left_for(table: LiveTable | FinishedTable, player: str) -> float | None:
    """Seconds ``player`` has left to move at ``table`` when it is her move there on a clock, else None."""
    seat = table.seat_of(player)
    if not isinstance(table, LiveTable) or seat is None or not table.to_move_for(player):
        return None
    reading = table.read_clocks()
    if reading is None or seat not in reading[0].running:
        return None
    clocks, now = reading
    return clocks.left_at(seat, now)


def _tables(hub: Hub, player: str) -> Result:
    mine = hub.tables_of(player)
    if not mine:
        return _ok("no tables yet: challenge GAME NAME... starts one")
    left = {table.id: time_left_for(table, player) for table in mine}

    def order(table: LiveTable | FinishedTable) -> tuple[bool, float, int]:
        # Where it is her move on a clock, least time left first; then every other table by number.
        seconds = left[table.id]
        return (seconds is None, seconds if seconds is not None else math.inf, table.id)

    lines = []
    for table in sorted(mine, key=order):
        mark = "*" if table.to_move_for(player) else " "
        players = " vs ".join(_seat_name(table, seat) for seat in range(len(table.names)))
        if isinstance(table, LiveTable) and not table.over:
            state = to_move_text(table.match)
            seconds = left[table.id]
            if seconds is not None:
                state += f", {clock_text(seconds)} left"
        else:
            state = table.final_status() if table.closed else "over: " + table.final_status()
        kind = "rated" if table.rated else "casual"
        lines.append(f"{mark}{table.id:>4}  {table.game.name:<10} {kind:<6}  {players}  ({state})")
    return _ok("\n".join(lines))


def _seat_name(table: LiveTable | FinishedTable, seat: int) -> str:
    """A seat's name, with its player's rating at this game (``alice 27?``) or what this game did to it."""
    name = table.names[seat]
    if table.seats[seat].kind != HUMAN or table.seats[seat].name is None:
        return name
    note = table.rating_note(name)
    return f"{name} {note}" if note else name


def _web(hub: Hub, player: str, args: list[str], owner: str | None, web: WebSignIn | None) -> Result:
    if web is None:
        return _fail("this server serves no browsers (its host starts them with termgames serve --web PORT)")
    if is_guest(player):
        return _fail(
            "a link signs a browser in to an account: connect with an SSH key (a guest comes in as a guest from "
            "the server's page)"
        )
    if args == ["--sign-out-all"]:
        count = web.sign_out_all(player)
        return _ok(f"signed {player} out of every browser ({count} signed in); their pages close")
    if len(args) > 1 or (args and args[0].startswith("-")):
        return _fail("web [TABLE] prints a sign-in link; web --sign-out-all signs every browser out")
    table_id = _table_arg(hub, args, "web [TABLE]").id if args else None
    address = web.link(player, owner or name_owner(player), table_id)
    where = f", at table {table_id}" if table_id is not None else ""
    return _ok(
        f"Open this link in your browser within {WEB_LINK_SECONDS // 60} minutes: it works once, and signs that "
        f"browser in as {player}{where} (keep it to yourself):\n    {address}"
    )


def _ratings(hub: Hub, args: list[str]) -> Result:
    if len(args) > 1:
        return _fail("ratings [GAME]: one game at most")
    return _ok(ratings_text(hub, args[0] if args else None))


def ratings_text(hub: Hub, game_name: str | None = None) -> str:
    """The rated accounts of one game (of every game when None), a table per game; RuleError for no such game."""
    games = [get_game(game_name).name] if game_name else list(GAMES)
    blocks = []
    for game in games:
        rated = sorted(hub.ratings(game).values(), key=lambda r: (-r.rating.ordinal, r.player.casefold()))
        if not rated:
            continue
        lines = [
            f"{get_game(game).title}: rated games between accounts, best first (by mu - 3 sigma)",
            f"{'#':>4}  {'player':<24} {'mu':>6} {'sigma':>6} {'mu-3sigma':>9} {'games':>6}",
        ]
        for rank, entry in enumerate(rated, start=1):
            r, played = entry.rating, entry.games
            lines.append(f"{rank:>4}  {entry.player:<24} {r.mu:>6.1f} {r.sigma:>6.2f} {r.ordinal:>9.1f} {played:>6}")
        blocks.append("\n".join(lines))
    if not blocks:
        where = f"of {get_game(game_name).title} " if game_name else ""
        return f"no rated games {where}yet: finish a rated table (challenge GAME NAME...) to be rated"
    return "\n\n".join(blocks)


def _profile(hub: Hub, args: list[str]) -> Result:
    as_json = "--json" in args
    rest = [a for a in args if a != "--json"]
    if len(rest) != 1:
        return _fail("profile NAME [--json]: one player's name")
    found = player_profile(hub, rest[0])
    return _ok(safe_json(found) if as_json else profile_text(found))


def watch_arguments(line: str) -> list[str] | None:
    """The words after ``watch`` when an SSH exec request is ``watch ...`` (None: another command)."""
    try:
        words = shlex.split(line)
    except ValueError:
        return None
    return words[1:] if words and words[0] == "watch" else None


def table_to_watch(hub: Hub, args: list[str], player: str) -> LiveTable:
    """The table ``watch TABLE`` opens (RuleError, one line, says why not): one in play; a finished one has its
    record and the lobby's replay."""
    if len(args) != 1:
        raise RuleError("watch TABLE: name one table (its number, as tables or the lobby shows it)")
    table = hub.table(args[0])
    if table.over:
        record = f"{hub.address.command(player)} record {table.id}"
        raise RuleError(f"table {table.id} is over: its record is {record} (the lobby replays it)")
    return table


def _table_arg(hub: Hub, args: list[str], usage: str) -> LiveTable:
    if not args:
        raise RuleError(f"{usage}: which table?")
    table = hub.table(args[0])
    if hub.store.shared:  # a command answers with the table as stored, news from other servers on its way or not
        table.catch_up()
    return table


def _show(hub: Hub, player: str, args: list[str]) -> Result:
    as_json = "--json" in args
    rest = [a for a in args if a != "--json"]
    table = _table_arg(hub, rest, "show TABLE [--json]")
    if len(rest) > 1:
        return _fail("show TABLE [--json] takes nothing else")
    seat = table.seat_of(player)
    viewer = seat if seat is not None else (ALL if table.over else None)
    table.check_clocks(hub.now())  # a clock that ran out a moment ago is shown out
    if as_json:
        return _ok(safe_json(view_json(table.match, viewer, hub.now())))
    return _ok(view_text(table.match, viewer))


def _record(hub: Hub, args: list[str]) -> Result:
    """Any server gives it, whichever finished the game (see :meth:`Hub.record_json`)."""
    table = _table_arg(hub, args, "record TABLE")
    if len(args) > 1:
        return _fail("record TABLE takes nothing else")
    return _ok(safe_record(hub.record_json(table)))


def _analyse(hub: Hub, player: str, args: list[str], owner: str | None) -> Result:
    """A finished table's analysis when it is kept, else queued (one at a time a person: see analyses.py)."""
    usage = "analyse TABLE [--level LEVEL] [--json]"
    as_json = "--json" in args
    rest = [word for word in args if word != "--json"]
    level = None
    if "--level" in rest:
        at = rest.index("--level")
        if at + 1 >= len(rest):
            return _fail(f"{usage}: --level needs a level")
        level = rest[at + 1]
        del rest[at : at + 2]
    table = _table_arg(hub, rest, usage)
    if len(rest) > 1:
        return _fail(f"{usage} takes nothing else")
    found, line = hub.analyses.request(table, owner or name_owner(player), level)
    if found is None:
        return Result(stderr=f"termgames: {line}\n", status=3)
    if as_json:
        return _ok(safe_json(found.json()))
    return _ok(printable(analysis_text(found, f"{table.game.title}, table {table.id}")))


def safe_record(text: str) -> str:
    """A record's JSON for a terminal: what could drive it written as JSON escapes (``\\u001b``), so that the
    text is still the record, which ``termgames replay`` reads (``printable``'s ``\\x1b`` is no JSON)."""
    try:
        return safe_json(json.loads(text), indent=1)
    except ValueError:  # not JSON (it never is): shown safe all the same
        return printable(text.rstrip("\n"))


def _move(hub: Hub, player: str, args: list[str]) -> Result:
    table = _table_arg(hub, args, "move TABLE MOVE")
    if len(args) < 2:
        return _fail("move TABLE MOVE: which move?")
    seat = table.seat_of(player)
    if seat is None:
        return _fail(f"you have no seat at table {table.id}")
    table.play(seat, " ".join(args[1:]))
    return _ok(move_report(table.match, seat))
