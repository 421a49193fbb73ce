"""Correspondence play over SSH, pbmserv's command model: ``ssh -p 2222 alice@host COMMAND``.

``challenge GAME [options] NAME...``, ``tables``, ``show TABLE [--json]`` and
``move TABLE MOVE``.  The player is the SSH identity; the output and the
errors are the CLI's (``termgames show``/``move``): an error is one line on
stderr and exit status 2.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from ..match import Seat, parse_player
from ..report import move_report, to_move_text, view_json, view_text
from ..rules import RuleError, get_game
from ..rules.base import ALL
from ..untrusted import printable, safe_json
from .hub import Hub, LiveTable

EXIT_USAGE = 2

USAGE = """\
termgames over SSH: commands (or no command for the game screens)
  challenge GAME [options] NAME...   a new table: you, then NAME... in that order (NAME:ai[:LEVEL] for an AI)
  tables                             your tables; * marks those where it is your move
  show TABLE [--json]                the board as your seat sees it
  move TABLE MOVE                    play one move
  help                               this text"""

COMMANDS = ("challenge", "tables", "show", "move", "help")


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


def run_command(hub: Hub, player: str, line: str) -> Result:
    """Run one command line for ``player``; never raises for anything a player can type."""
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
            return _challenge(hub, player, args)
        if command == "tables":
            if args:
                return _fail("tables takes no arguments")
            return _tables(hub, player)
        if command == "show":
            return _show(hub, player, args)
        if command == "move":
            return _move(hub, player, args)
    except RuleError as error:
        return _fail(str(error))
    return _fail(f"unknown command {command!r} (commands: {', '.join(COMMANDS)})")


def _challenge(hub: Hub, player: str, args: list[str]) -> Result:
    if not args:
        return _fail("challenge GAME [options] NAME...: name the game")
    game = get_game(args[0])
    # The CLI's own reader of option flags; the words left over are the players.
    options, names = game.take_cli_options(args[1:])
    if not names:
        return _fail("challenge whom? Name the other players after the game and its options")
    seats = [Seat(name=player)]
    for text in names:
        info = parse_player(text, game)
        seats.append(info)
    table = hub.create_table(game.name, options, seats, creator=player)
    return _ok(f"{table.id}: {table.match.describe()}; {to_move_text(table.match)}")


def _tables(hub: Hub, player: str) -> Result:
    mine = [t for t in hub.tables.values() if t.seat_of(player) is not None]
    if not mine:
        return _ok("no tables yet: challenge GAME NAME... starts one")
    lines = []
    for table in sorted(mine, key=lambda t: t.id):
        mark = "*" if table.to_move_for(player) else " "
        players = " vs ".join(table.names)
        state = "over: " + table.match.state.view(None).status if table.over else to_move_text(table.match)
        lines.append(f"{mark}{table.id:>4}  {table.game.name:<10} {players}  ({state})")
    return _ok("\n".join(lines))


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
    if as_json:
        return _ok(safe_json(view_json(table.match, viewer)))
    return _ok(view_text(table.match, viewer))


def _move(hub: Hub, player: str, args: list[str]) -> Result:
    table = _table_arg(hub, args, "move TABLE MOVE")
    if len(args) < 2:
        return _fail("move TABLE MOVE: which move?")
    seat = table.seat_of(player)
    if seat is None:
        return _fail(f"you have no seat at table {table.id}")
    table.play(seat, " ".join(args[1:]))
    return _ok(move_report(table.match, seat))
