"""``termgames monad match`` and ``termgames monad tournament``: bots against bots.

Only typer is imported at the top (``termgames --help`` stays fast); the
runner, the bots and rich come in inside the commands.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

import typer

from . import monad_app

BOT_HELP = (
    "A bot: a built-in name (random, greedy, swarm), a .py file defining turn(observation), "
    "monad1:DIR (a bot of the original platform, DIR/bot.py) or a command line of a JSON bot (quote it)."
)


def _options(width: int | None, height: int | None, obstacles: float | None, turns: int | None) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for name, value in (("width", width), ("height", height), ("obstacles", obstacles), ("turns", turns)):
        if value is not None:
            options[name] = value
    return options


WidthOption = typer.Option(None, "--width", help="Columns of the map (default 20).")
HeightOption = typer.Option(None, "--height", help="Rows of the map (default 20).")
ObstaclesOption = typer.Option(None, "--obstacles", help="Share of the cells that are obstacles, 0 to 0.5 (default 0).")
TurnsOption = typer.Option(None, "--turns", help="Turn limit (default 2000).")
TurnLimitOption = typer.Option(1.0, "--turn-time", help="Seconds a program bot has for each turn.")
StartLimitOption = typer.Option(10.0, "--start-time", help="Seconds a program bot has for its first answer.")


@monad_app.command("match")
def match_command(
    bots: list[str] = typer.Argument(..., metavar="BOT", help="2 to 4 bots. " + BOT_HELP),
    seed: int | None = typer.Option(None, "--seed", help="Map seed (default: a fresh one)."),
    width: int | None = WidthOption,
    height: int | None = HeightOption,
    obstacles: float | None = ObstaclesOption,
    turns: int | None = TurnsOption,
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Write the match record here (termgames replay/show/monad trace read it)."
    ),
    watch: bool = typer.Option(False, "--watch", help="Watch the match live in the terminal."),
    ascii_mode: bool = typer.Option(False, "--ascii", help="With --watch: plain ASCII drawing."),
    palette: str = typer.Option("default", "--palette", help="With --watch: colours default, colourblind or mono."),
    turn_time: float = TurnLimitOption,
    start_time: float = StartLimitOption,
) -> None:
    """Play one match between 2 to 4 bots; a progress bar, then the winner, units, hives and time per bot."""
    from ..ai.monad.adapters import BotLoadError
    from ..ai.monad.match import MonadMatch
    from ..cli_base import fail
    from ..match import random_seed
    from ..rules import RuleError

    if not 2 <= len(bots) <= 4:
        fail(f"a Monad match needs 2 to 4 bots, not {len(bots)}")
    if turn_time <= 0 or start_time <= 0:
        fail("--turn-time and --start-time must be positive")
    if palette not in ("default", "colourblind", "mono"):
        fail(f"--palette must be default, colourblind or mono, not {palette!r}")
    _exit_on_termination()
    try:
        match = MonadMatch(
            bots,
            _options(width, height, obstacles, turns),
            seed if seed is not None else random_seed(),
            turn_limit=turn_time,
            start_limit=start_time,
        )
        match.start()  # a .py bot that does not load is one line here, before any screen
    except (BotLoadError, RuleError, ValueError) as error:
        fail(str(error))
    except KeyboardInterrupt:
        print("termgames: interrupted", file=sys.stderr)
        raise typer.Exit(130) from None
    _say_how_bots_are_kept(match)
    try:
        result = _watch(match, ascii_mode, palette) if watch else _run_with_progress(match)
    except KeyboardInterrupt:
        match.close()
        if out is not None and match.moves:
            _write_record(out, match.record())  # the turns played so far: a record of an unfinished match
            print(f"termgames: interrupted after {len(match.moves)} turns; record written to {out}", file=sys.stderr)
        else:
            print("termgames: interrupted", file=sys.stderr)
        raise typer.Exit(130) from None
    from ..untrusted import printable

    print(printable(result.summary()))  # a bot's last fault quotes the bot: its stderr, its exception
    if out is not None:
        _write_record(out, match.record())
        print(f"record written to {out}")


def _say_how_bots_are_kept(match: Any) -> None:
    """Where a bot's processes cannot be kept together (not Linux), say so once, on stderr."""
    from ..ai.monad.adapters import ProgramBot
    from ..ai.monad.process import CONTAINMENT

    if CONTAINMENT == "process group" and any(isinstance(adapter, ProgramBot) for adapter in match.adapters):
        print(
            "termgames: on this system a process that a bot moves out of its process group outlives the match",
            file=sys.stderr,
        )


def _exit_on_termination() -> None:
    """SIGTERM and SIGHUP end the command through Python's exit, so the bots' processes are killed too.

    (They run in sessions of their own: a signal to our process group does not reach them.)
    """
    import signal

    def stop(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            # ValueError: not the main thread (an embedding program), whose handlers are left alone
            with contextlib.suppress(ValueError):
                signal.signal(getattr(signal, name), stop)


def _run_with_progress(match: Any) -> Any:
    """Run the match with a progress bar on stderr (none when stderr is not a terminal)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from ..rules.numbers import short_count

    console = Console(stderr=True)
    limit = match.options["turns"]
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[totals]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as progress:
        task = progress.add_task(" vs ".join(match.names), total=limit, totals="")
        for event in match.turns():
            if event.turn % 10 == 0 or event.over:
                board = event.board
                totals = "  ".join(
                    f"{name} {short_count(board.unit_totals[seat])}u/{board.hive_counts[seat]}h"
                    for seat, name in enumerate(match.names)
                )
                progress.update(task, completed=event.turn, totals=totals)
    return match.result()


def _watch(match: Any, ascii_mode: bool, palette: str) -> Any:
    """The live spectator screen (``termgames.screens.monad_live.watch``)."""
    from ..screens.monad_live import watch

    return watch(match, ascii_only=True if ascii_mode else None, palette=palette)


def _write_record(path: Path, record: dict[str, Any]) -> None:
    import json

    from ..cli_base import fail
    from ..paths import write_atomically
    from ..records import SaveError, check_size

    data = (json.dumps(record, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    try:
        check_size(data)  # what termgames writes, show, replay and monad trace read back
        write_atomically(path, data, mode=0o644)
    except SaveError as error:
        fail(f"cannot write {path}: {error}")
    except OSError as error:
        fail(f"cannot write {path}: {error.strerror or error}")


@monad_app.command("tournament")
def tournament_command(
    bots: list[str] = typer.Argument(..., metavar="BOT", help="2 bots or more. " + BOT_HELP),
    rounds: int = typer.Option(2, "--rounds", help="Map seeds per pairing (each played on both seats)."),
    jobs: int | None = typer.Option(None, "--jobs", "-j", help="Matches played at once (default: one per CPU)."),
    seed: int = typer.Option(1, "--seed", help="Seed of the tournament's maps."),
    width: int | None = WidthOption,
    height: int | None = HeightOption,
    obstacles: float | None = ObstaclesOption,
    turns: int | None = TurnsOption,
    out: Path = typer.Option(Path("monad-tournament"), "--out", "-o", help="Write the table to OUT.txt and OUT.csv."),
    turn_time: float = TurnLimitOption,
    start_time: float = StartLimitOption,
) -> None:
    """Every pairing of the bots on mirrored seats over seeded maps; wins, draws, losses and ratings."""
    from ..ai.monad.adapters import BotLoadError, make_adapter, seat_names
    from ..ai.monad.tournament import schedule, table_csv, table_text, tournament
    from ..cli_base import fail
    from ..rules import RuleError, get_game

    if len(bots) < 2:
        fail("a tournament needs at least two bots")
    if rounds < 1:
        fail("--rounds must be at least 1")
    if jobs is not None and jobs < 1:
        fail("--jobs must be at least 1")
    options = _options(width, height, obstacles, turns)
    try:
        get_game("monad").check_options(options)
        adapters = [make_adapter(spec) for spec in bots]
    except (BotLoadError, RuleError, ValueError) as error:
        fail(str(error))
    names = seat_names(adapters)
    for adapter in adapters:
        adapter.close()

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    console = Console(stderr=True)
    total = len(schedule(len(bots), rounds, seed))
    limits = {"turn_limit": turn_time, "start_limit": start_time}
    columns = (TextColumn("matches"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    _exit_on_termination()
    try:
        with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as progress:
            task = progress.add_task("matches", total=total)
            standings, _results = tournament(
                bots, rounds, jobs, options, seed, limits, names, on_result=lambda _r: progress.advance(task)
            )
    except KeyboardInterrupt:
        print("termgames: interrupted", file=sys.stderr)
        raise typer.Exit(130) from None
    text = table_text(standings)
    print(text, end="")  # table_text made the bots' errors printable
    from ..paths import write_atomically

    txt, csv = out.with_name(out.name + ".txt"), out.with_name(out.name + ".csv")
    try:
        write_atomically(txt, text.encode("utf-8"), mode=0o644)
        write_atomically(csv, table_csv(standings).encode("utf-8"), mode=0o644)
    except OSError as error:
        fail(f"cannot write {out}: {error.strerror or error}")
    print(f"{total} matches; table written to {txt} and {csv}")
