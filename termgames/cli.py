"""The ``termgames`` command.

Start-up must stay fast (``termgames --help`` answers without importing
Textual), so every heavy import happens inside the command that needs it.
Errors a player or a script can cause (an unknown game, a wrong option, an
illegal move, a corrupt record) end with one line on stderr and exit status 2.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
import typer.core

from .cli_base import fail, load_record, say
from .games import GAMES
from .games import load as load_part
from .terminal import wants_ascii

if TYPE_CHECKING:
    from .launch import Launch

GAME_OPTIONS = {"allow_extra_args": True, "ignore_unknown_options": True}

class GameOptionsCommand(typer.core.TyperCommand):
    """A command whose game options follow the game's name: ``play GAME --help`` lists that game's options.

    Click answers ``--help`` while it parses, before the command runs; the
    game's name is picked from the words first so the help can add the
    game's own options, their ranges and defaults (from its option specs).
    ``ctx`` and ``formatter`` are typer's vendored click Context and
    HelpFormatter, private to typer: typed Any.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        named = [word.strip().lower() for word in args if not word.startswith("-")]
        ctx.meta["termgames.help_game"] = next((name for name in named if name in GAMES), None)
        return super().parse_args(ctx, args)

    def format_epilog(self, ctx: Any, formatter: Any) -> None:
        super().format_epilog(ctx, formatter)
        game = ctx.meta.get("termgames.help_game")
        if game is None:
            formatter.write_paragraph()
            formatter.write_text("Game options follow the game's name; termgames play GAME --help lists them.")
            return
        from .rules import get_game

        rules = get_game(game)
        rows = game_option_rows(rules)
        with formatter.section(f"{rules.title} options"):
            if rows:
                formatter.write_dl(rows)
            else:
                formatter.write_text("none")


def game_option_rows(rules: Any) -> list[tuple[str, str]]:
    """(usage, help) for each option flag of the game ``rules``, with ranges and defaults, for ``--help``."""
    rows: list[tuple[str, str]] = []
    for compound in rules.compound_flags:
        rows.append((compound.usage, compound.help))
    for preset in rules.presets:
        rows.append((preset.flag, preset.help))
    for spec in rules.option_specs:
        rows.append((spec.usage, spec.help_line()))
    return rows


app = typer.Typer(
    name="termgames",
    help="Abstract strategy games in the terminal. Try: termgames play mono",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _game_and_options(game_name: str, extra: list[str]) -> tuple[Any, dict[str, Any]]:
    from .rules import RuleError, get_game

    try:
        game = get_game(game_name)
        options = game.parse_cli_options(extra)
    except RuleError as error:
        fail(str(error))
    return game, options


def _seats(game: Any, players: list[str] | None) -> list[Any]:
    from .match import default_seats, parse_player
    from .rules import RuleError

    try:
        if not players:
            return default_seats(game)
        seats = [parse_player(text, game) for text in players]
        game.check_seats([seat.name for seat in seats])
    except RuleError as error:
        fail(str(error))
    return seats


def _check_playable(game: str) -> None:
    from .games import describe

    if not describe(game).playable:
        fail(f"{game} has no terminal screen yet; play it with termgames new/move/show")


def _check_look(palette: str, pace: str | None) -> str | None:
    """``--palette`` and ``--pace`` checked (one line and exit 2 when wrong); the pace as the app takes it."""
    from .preferences import check_pace

    if palette not in ("default", "colourblind", "mono"):
        fail(f"--palette must be default, colourblind or mono, not {palette!r}")
    if pace is None:
        return None
    try:
        return check_pace(pace)
    except ValueError as error:
        fail(f"--pace: {error}")


def _run_tui(launch: Launch, saves: Path | None, ascii_mode: bool, palette: str, pace: str | None = None) -> None:
    """Run the app; once it has closed, say on the terminal where each game it played is saved."""
    from .app import TermgamesApp
    from .launch import exit_lines
    from .paths import preferences_path, saves_dir

    folder = saves_dir(saves)
    app = TermgamesApp(
        saves_dir=folder,
        launch=launch,
        ascii=wants_ascii(ascii_mode),
        palette=palette,
        preferences_path=preferences_path(),
        pace=pace,
    )
    app.run()
    for line in exit_lines(app.played_records()):
        print(line)


# --------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------

PlayerOption = typer.Option(
    None,
    "--player",
    "-p",
    help="A seat: NAME, NAME:ai, NAME:ai:LEVEL or NAME:LEVEL (cpu:greedy). Repeat once per seat, in seat order.",
)
SavesOption = typer.Option(
    None, "--saves", help="Folder for saved games (default: $TERMGAMES_SAVES or your data folder)."
)
AsciiOption = typer.Option(
    False, "--ascii", help="Plain ASCII drawing (automatic when the locale or the terminal is not UTF-8)."
)
PaletteOption = typer.Option("default", "--palette", help="Colours: default, colourblind or mono.")
ClockOption = typer.Option(
    None,
    "--clock",
    metavar="SPEC",
    help="A clock for every seat: BASE+INC (10m+5s), BASE (5m) or N/move (3d/move); units s m h d. "
    "Default: untimed.",
)
PaceOption = typer.Option(
    None,
    "--pace",
    help="Computer players' pace: instant, normal or slow (default: your last choice, p in a game; normal at first).",
)


@app.command("list")
def list_games() -> None:
    """The games, one line each."""
    width = max(len(name) for name in GAMES)
    for descriptor in GAMES.values():
        print(f"{descriptor.name:<{width}}  {descriptor.blurb}")


@app.command(cls=GameOptionsCommand, context_settings=GAME_OPTIONS)
def play(
    ctx: typer.Context,
    game: str | None = typer.Argument(None, help="The game (see termgames list); omit it for the start screen."),
    player: list[str] | None = PlayerOption,
    load: Path | None = typer.Option(None, "--load", help="Resume a saved game from this record."),
    seed: int | None = typer.Option(None, "--seed", help="Random seed (default: a fresh one)."),
    saves: Path | None = SavesOption,
    ascii_mode: bool = AsciiOption,
    palette: str = PaletteOption,
    pace: str | None = PaceOption,
    clock: str | None = ClockOption,
) -> None:
    """Play a game in the terminal. Game options follow the game's name, e.g. termgames play copolymer --small."""
    from .clock import parse_clock
    from .launch import Launch
    from .rules import RuleError

    pace = _check_look(palette, pace)
    try:
        spec = parse_clock(clock) if clock is not None else None
    except RuleError as error:
        fail(str(error))
    if clock is not None and spec is None:
        fail("--clock needs a value: BASE+INC (10m+5s), BASE (5m) or N/move (3d/move)")
    if load is not None:
        if game is not None or ctx.args or player or clock is not None:
            fail("--load resumes a saved game as it was; give no game, options, players or clock with it")
        match = load_record(load)
        _check_playable(match.game.name)
        _run_tui(Launch("play", match=match, save_path=load), saves, ascii_mode, palette, pace)
        return
    if game is None:
        if ctx.args or player or clock is not None:
            fail("name the game first, e.g. termgames play copolymer --small")
        _run_tui(Launch("start"), saves, ascii_mode, palette, pace)
        return
    rules, options = _game_and_options(game, list(ctx.args))
    _check_playable(rules.name)
    if not player:
        launch = Launch("setup", game=rules.name, options=options, clock=str(spec) if spec else "")
        _run_tui(launch, saves, ascii_mode, palette, pace)
        return
    from .match import Match, random_seed
    from .paths import saves_dir
    from .records import new_save_path

    seats = _seats(rules, player)
    try:
        match = Match(rules, options, seats, seed if seed is not None else random_seed(), clock=spec)
    except RuleError as error:
        fail(str(error))
    path = new_save_path(saves_dir(saves), match)
    _run_tui(Launch("play", match=match, save_path=path), saves, ascii_mode, palette, pace)


@app.command()
def replay(
    file: Path = typer.Argument(..., help="A game record."),
    ascii_mode: bool = AsciiOption,
    palette: str = PaletteOption,
) -> None:
    """Replay a saved game: step, jump, play and pause."""
    from .launch import Launch

    match = load_record(file)
    _check_playable(match.game.name)
    _run_tui(Launch("replay", match=match, source=str(file)), None, ascii_mode, palette)


@app.command()
def rules(game: str = typer.Argument(..., help="The game (see termgames list).")) -> None:
    """Print a game's rules and keys."""
    from rich.console import Console
    from rich.markdown import Markdown

    from .rules import RuleError, get_game

    try:
        back_end = get_game(game)
    except RuleError as error:
        fail(str(error))
    text = back_end.rules_text()
    keys = screen_keys(game)
    if keys:
        text += "\n\n## Keys\n\n" + keys
    Console().print(Markdown(text))


def screen_keys(game: str) -> str:
    """The keys of ``game``'s screen, from its bindings (imports Textual: only for the commands that show them)."""
    from .screens import game_screen_class
    from .screens.keys import keys_markdown

    try:
        screen_class = game_screen_class(game)
    except LookupError:
        return ""  # a game without a screen of its own yet
    return keys_markdown(screen_class, screen_class.HELP_NOTES)


@app.command(cls=GameOptionsCommand, context_settings=GAME_OPTIONS)
def new(
    ctx: typer.Context,
    game: str = typer.Argument(..., help="The game (see termgames list)."),
    player: list[str] | None = PlayerOption,
    seed: int | None = typer.Option(None, "--seed", help="Random seed (default: a fresh one)."),
    out: Path = typer.Option(..., "--out", "-o", help="Where to write the new game record."),
    force: bool = typer.Option(False, "--force", help="Overwrite --out if it exists."),
) -> None:
    """Start a game record for correspondence play or scripts (pbmserv style)."""
    from .match import Match, random_seed
    from .records import RecordError, save
    from .rules import RuleError

    rules_, options = _game_and_options(game, list(ctx.args))
    seats = _seats(rules_, player)
    if out.exists() and not force:
        fail(f"{out} exists already (use --force to overwrite it)")
    try:
        match = Match(rules_, options, seats, seed if seed is not None else random_seed())
    except RuleError as error:
        fail(str(error))
    from .report import to_move_text

    try:
        save(out, match)
    except RecordError as error:
        fail(str(error))
    say(f"{out}: {match.describe()}; {to_move_text(match)}")


#: ``move FILE -A1``: a word that looks like an unknown option is the move (Click would refuse it).
MOVE_OPTIONS = {"ignore_unknown_options": True}


@app.command(context_settings=MOVE_OPTIONS)
def move(
    file: Path = typer.Argument(..., help="The game record to play in."),
    move_text: str = typer.Argument(..., metavar="MOVE", help="The move in the game's notation."),
    as_name: str | None = typer.Option(None, "--as", help="The player making the move (default: the one to move)."),
) -> None:
    """Apply one move to a game record. An illegal move leaves the file untouched (exit status 2)."""
    from .records import RecordError, load, locked, save
    from .rules import RuleError

    # Read, apply and write under the record's lock: a second move at the same moment waits, then is
    # judged against the position this one left (never both accepted and one lost).
    try:
        with locked(file):
            try:
                match = load(file)
            except RecordError as error:
                fail(str(error))
            try:
                if as_name is None:
                    to_move = match.to_move()
                    if len(to_move) != 1:
                        fail("the game is over" if not to_move else "several players are to move; say who: --as NAME")
                    seat = to_move[0]
                else:
                    seat = match.seat_of(as_name)
                match.play(seat, move_text)
            except RuleError as error:
                fail(str(error))
            save(file, match)
    except RecordError as error:
        fail(str(error))
    from .report import move_report

    say(move_report(match, seat))


@app.command()
def show(
    file: Path = typer.Argument(..., help="A game record."),
    as_name: str | None = typer.Option(None, "--as", help="Show what this player may see (default: a spectator)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object instead of text."),
    ascii_mode: bool = AsciiOption,
) -> None:
    """Show a game as one player (or a spectator) sees it."""
    from .rules import RuleError
    from .rules.base import ALL

    match = load_record(file)
    try:
        viewer = match.seat_of(as_name) if as_name is not None else (ALL if match.over else None)
    except RuleError as error:
        fail(str(error))
    from .report import view_json, view_text

    if as_json:
        from .untrusted import safe_json

        print(safe_json(view_json(match, viewer)))
        return
    say(view_text(match, viewer, ascii=wants_ascii(ascii_mode)))


@app.command()
def analyse(
    file: Path = typer.Argument(..., help="A game record."),
    level: str | None = typer.Option(None, "--level", help="The engine's level: one of the game's AI levels."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object instead of text."),
) -> None:
    """Value every move of a game against the engine's best (kept in the record); analyze too."""
    from .analysis_cli import analyse_command

    analyse_command(file, level, as_json)


app.command("analyze", hidden=True)(analyse)


@app.command()
def profile(
    saves: Path | None = SavesOption,
    as_json: bool = typer.Option(False, "--json", help="One JSON object instead of text."),
) -> None:
    """Your saved games against the computer: results per game and level, streaks."""
    from .paths import saves_dir
    from .player_stats import local_profile
    from .untrusted import safe_json

    folder = saves_dir(saves)
    found = local_profile(folder)
    if as_json:
        print(safe_json(found.as_json()))
        return
    say(found.text(folder))


def serve(ctx: typer.Context, config_file: Path | None = None, **flags: Any) -> None:
    """Host shared tables over SSH: players connect with ssh -p PORT NAME@HOST (and browsers, with --web)."""
    from .server.config import ConfigError, build

    # Only what the command line says overrides the config file and the environment, not typer's defaults.
    given = {name: value for name, value in flags.items() if _from_command_line(ctx, name)}
    try:
        config = build(given, config_file, os.environ)
    except ConfigError as error:
        fail(str(error))
    mail = None
    if config.smtp is not None and config.mail_from is not None:
        from .rules import RuleError
        from .server.mail import mail_config

        try:
            mail = mail_config(config.smtp, config.mail_from, dict(os.environ))
        except RuleError as error:
            fail(str(error))
    if config.public_address is not None:
        from .rules import RuleError
        from .server.address import parse_public_address

        try:
            parse_public_address(config.public_address)
        except RuleError as error:
            fail(str(error))
    if config.web_port is not None:
        _check_web_files(config)
    # One colour depth for the whole process: Rich caches each style's codes, so players cannot differ.
    os.environ["TEXTUAL_COLOR_SYSTEM"] = config.colors
    if config.workers > 1 and config.db is not None:
        _serve_with_workers(config)
        return
    from .server.run import serve_forever

    web = None
    if config.web_port is not None:
        from functools import partial

        from .web.guard import ConnectionLimits
        from .web.serve import WebSettings, start_web

        connections = ConnectionLimits(
            config.web_max_connections_per_address, config.web_max_connections, config.web_request_seconds
        )
        web = partial(start_web, settings=WebSettings(
            config.web_port, config.web_host or config.host, config.web_cert, config.web_key, config.web_url,
            config.proxies, config.web_max_sessions, config.web_max_sessions_per_player, config.reuse_port,
            connections,
        ))
    serve_forever(config, mail=mail, web=web)


def _from_command_line(ctx: typer.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def _serve_options() -> None:
    """Give ``serve`` one option per :class:`~.server.config.ServerConfig` field (its flag, help, default), and
    ``--config``: the settings are declared once, as data."""
    import inspect

    from .server.config import settings

    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)]
    annotations: dict[str, Any] = {"ctx": typer.Context, "return": None}
    for item, setting, kind in settings():
        option = typer.Option(
            item.default, setting.flag, help=setting.help, metavar=setting.metavar, hidden=setting.hidden,
            show_default=item.default is not None and not isinstance(item.default, bool),
        )
        parameters.append(inspect.Parameter(item.name, keyword, default=option, annotation=kind))
        annotations[item.name] = kind
    config_file = typer.Option(
        None, "--config", metavar="FILE.toml",
        help="Settings from a TOML file (keys: these options' names without their dashes; TERMGAMES_* environment "
        "variables and the options given here win over it).",
    )
    parameters.append(inspect.Parameter("config_file", keyword, default=config_file, annotation=Path | None))
    annotations["config_file"] = Path | None
    serve.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]  # typer reads the signature
    serve.__annotations__ = annotations


_serve_options()
app.command()(serve)


def _check_web_files(config: Any) -> None:
    """The page's certificate loads; a warning when the page crosses a network in clear."""
    import ssl

    if config.web_cert is not None and config.web_key is not None:
        try:
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(str(config.web_cert),
                                                                                str(config.web_key))
        except (OSError, ssl.SSLError) as error:
            fail(f"--web-cert {config.web_cert} and --web-key {config.web_key} make no TLS certificate: {error}")
    host = config.web_host or config.host
    if host not in ("127.0.0.1", "::1", "localhost") and config.web_cert is None and not config.proxies:
        print(
            f"termgames: warning: the browser page listens on {host} over plain HTTP: sign-in links and cookies "
            "cross the network in clear (--web-cert and --web-key serve https; or put a TLS proxy in front)",
            file=sys.stderr,
        )


def _serve_with_workers(config: Any) -> None:
    """``serve --workers N``: N copies of this very command line, each one process on the shared port."""
    from .server.run import default_data_dir, supervise
    from .server.ssh import load_host_key, secure_data_folder

    folder = (config.data or default_data_dir()).expanduser()
    secure_data_folder(folder, sqlite=False)
    load_host_key(folder, config.host_key)  # made once here, so that every worker reads the same key
    words = sys.argv[1:]
    worker_args: list[str] = []
    skip = False
    for word in words:  # every option as given, but --workers (and the database, passed by the environment)
        if skip:
            skip = False
        elif word in ("--workers", "--db"):
            skip = True
        elif not word.startswith(("--workers=", "--db=")):
            worker_args.append(word)
    if config.host not in ("127.0.0.1", "::1", "localhost"):  # the workers stay quiet about it: said once, here
        print(
            f"termgames: warning: listening on {config.host}, not loopback: anyone who can reach this port can play, "
            "and guests can sign in without a key (--no-guests refuses them)",
            file=sys.stderr,
        )
    command = [sys.executable, "-m", "termgames", *worker_args, "--reuse-port"]
    # Not on the command line: ps would show a password.  A config file or TERMGAMES_WORKERS would make each
    # worker a supervisor again: one worker each.
    env = {**os.environ, "TERMGAMES_DB": config.db, "TERMGAMES_WORKERS": "1"}
    print(f"termgames serve: {config.workers} workers on port {config.port}, one database", file=sys.stderr,
          flush=True)
    raise typer.Exit(supervise(config.workers, command, env))


@app.command()
def web(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (loopback by default)."),
    port: int = typer.Option(8000, "--port", help="TCP port (0: any free one)."),
    saves: Path | None = SavesOption,
    ascii_mode: bool = AsciiOption,
    palette: str = PaletteOption,
    pace: str | None = PaceOption,
) -> None:
    """Play in a browser: prints a link (with a random token) that opens the start screen, one per tab."""
    pace = _check_look(palette, pace)
    if not 0 <= port < 65536:
        fail(f"--port must be between 0 and 65535, not {port}")
    # Every browser's terminal takes 24-bit colour; one depth for the process (see serve).
    os.environ.setdefault("TEXTUAL_COLOR_SYSTEM", "truecolor")
    from .paths import saves_dir
    from .web.local import run

    run(host, port, saves_dir(saves), ascii=ascii_mode, palette=palette, pace=pace)


def _add_game_commands() -> None:
    """Each game's own commands (``termgames monad ...``, ``termgames solve monunrail``), as its descriptor
    names them; after the shared commands, as ``termgames --help`` lists commands in the order they come."""
    for descriptor in GAMES.values():
        if descriptor.commands is not None:
            load_part(descriptor.commands)(app)


_add_game_commands()


def main() -> None:
    # Textual talks to the terminal itself; a broken pipe on plain output
    # (``termgames show | head``) should end quietly.
    try:
        app()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(1)


if __name__ == "__main__":
    main()
