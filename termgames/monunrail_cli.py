"""``termgames solve monunrail``: MonUnrail's own command, the unrailing solver on a position from a file.

MonUnrail's descriptor names :func:`add_commands`, which the CLI calls at its start.  Only typer is
imported at the top (``termgames --help`` stays fast); the solver, its cache and its progress line
come in inside the command.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import typer

from .cli_base import fail

if TYPE_CHECKING:
    from .rules.monunrail.solver import Analysis


def add_commands(app: typer.Typer) -> None:
    """MonUnrail's command on ``termgames``: ``termgames solve monunrail [FILE]``."""
    app.command()(solve)


def solve(
    game: str = typer.Argument(..., help="The game whose position to solve: monunrail."),
    file: str = typer.Argument("-", metavar="[FILE|-]", help="The position; - or nothing reads standard input."),
    as_json: bool = typer.Option(
        False, "--json", help='One JSON object: {"nimber": N, "winning_moves": [[cells], ...]}.'
    ),
    no_cache: bool = typer.Option(
        False, "--no-cache", help="Neither read nor update the solver's cache of solved shapes."
    ),
    explain: bool = typer.Option(
        False, "--explain", help="Also say how each component's value was found (with --json: an \"explain\" key)."
    ),
    time_limit: str | None = typer.Option(
        None, "--time-limit", metavar="TIME", help="Stop after this long (90, 90s, 2m, 1h); no limit by default."
    ),
    max_memory: str | None = typer.Option(
        None,
        "--max-memory",
        metavar="SIZE",
        help="Stop before holding more memory than this (500M, 2G); by default half the machine's, "
        "and never more than it has free.",
    ),
) -> None:
    """Solve a MonUnrail unrailing position: its nimber and every winning move.

    The position is rows of # (tile) and . (empty), top row first; A1 is the
    top-left character, columns are letters and rows numbers.  A solve that
    reaches --time-limit or --max-memory stops with one line saying how far it
    got and exit status 3; what it solved stays in the cache, so the next run
    goes further.
    """
    if game.lower() != "monunrail":
        fail(f"only monunrail positions can be solved, not {game!r}")
    from .solver_run import parse_seconds, parse_size

    try:
        seconds = None if time_limit is None else parse_seconds(time_limit)
        memory = None if max_memory is None else parse_size(max_memory)
    except ValueError as error:
        fail(str(error))
    from .records import RecordError, read_bytes

    position_limit = 8 << 20  # a position is a few hundred bytes: no need for a record's bound
    from .rules.monunrail.solver import Solver, SolveStopped, cell_name, parse_shape

    try:
        # A regular file of at most 8 MB: a FIFO must not hang, /dev/zero not fill memory.
        text = sys.stdin.read() if file == "-" else read_bytes(file, position_limit).decode("utf-8")
    except RecordError as error:
        fail(str(error))
    except (OSError, UnicodeDecodeError) as error:
        fail(f"cannot read {file}: {getattr(error, 'strerror', None) or error}")
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
    try:
        cells = parse_shape(text)
    except ValueError as error:
        fail(f"{'standard input' if file == '-' else file}: {error}")
    from . import solver_cache
    from .solver_run import EXIT_BUDGET, Budget, ProgressLine, human_bytes, stop_report

    budget = Budget(seconds, memory)  # the time limit counts from here, reading the caches included
    solver = Solver()
    tag = solver_cache.position_tag(cells)

    def warn(line: str) -> None:
        print(f"termgames: {line}", file=sys.stderr)

    def afford(need: int, what: str) -> None:
        # the memory budget covers reading the files: what they need is weighed first, and the solver's
        # tables make room for them within it
        budget.afford(solver, need, what)

    if not no_cache:
        try:
            budget.limit_tables(solver)
            solver_cache.load(solver, warn=warn, afford=afford)
            solver_cache.load_resume(solver, tag, warn=warn, afford=afford)
        except SolveStopped as stop:
            # nothing is written: the files hold more than this run could, and stay as they are
            print(f"termgames: {stop_report(stop, budget, solver, solver.cache_size)}; {stop} "
                  "(the solver's files are left as they are)", file=sys.stderr)
            raise typer.Exit(EXIT_BUDGET) from None
    known = solver.cache_size
    progress = ProgressLine(sys.stderr.isatty() and not as_json, solver, budget)

    def watch(analysis: Analysis) -> None:
        budget.check(solver)
        progress.update(analysis)

    try:
        budget.check(solver)
        analysis = solver.analyse(cells, watch)
    except ValueError as error:  # a component too large for any core
        fail(str(error))
    except SolveStopped as stop:
        progress.close()
        report = stop_report(stop, budget, solver, known)
        if not no_cache:
            solver.memory_limit = None  # what it solved must reach the files, even if the tables are at the budget
            solver_cache.save(solver, afford=afford)
            kept = solver_cache.save_resume(solver, tag)
            if kept:
                report += f" (kept for the next run: {human_bytes(kept)})"
        print(f"termgames: {report}", file=sys.stderr)
        raise typer.Exit(EXIT_BUDGET) from None
    except KeyboardInterrupt:
        progress.close()
        print("termgames: interrupted", file=sys.stderr)
        raise typer.Exit(130) from None
    finally:
        progress.close()
    if not no_cache:
        if solver.cache_size > known:
            solver.memory_limit = None
            solver_cache.save(solver, afford=afford)
        solver_cache.discard_resume(tag)
    assert analysis.nimber is not None and analysis.winning_moves is not None
    nimber = analysis.nimber
    # Cells in board order, column then row number (A9 before A10, which sorting the names would swap);
    # the moves in the order of their sorted cells.
    ordered = sorted(sorted(move) for move in analysis.winning_moves)
    named = [[cell_name(cell) for cell in move] for move in ordered]
    reasons = _solve_explanation(analysis)
    if as_json:
        answer: dict[str, Any] = {"nimber": nimber, "winning_moves": named}
        if explain:
            answer["explain"] = reasons
        print(json.dumps(answer))
        return
    tiles = len(cells)
    print(f"{tiles} tile{'' if tiles == 1 else 's'}, nimber {nimber}.")
    if nimber:
        count = len(named)
        print(f"The player to move wins, with {'this move' if count == 1 else f'any of these {count} moves'}:")
        for move in named:
            print("  " + "+".join(move))
    elif tiles:
        print("The player to move loses against perfect play: no move wins.")
    else:
        print("No tiles: the player who removed the last one has won.")
    if analysis.symmetric:
        print(f"Symmetric: the second player mirrors every move (a half turn about the centre of {reasons['box']}).")
    if explain and reasons["components"]:
        print("Components, smallest first:")
        for part in reasons["components"]:
            print(f"  {part['box']}, {part['tiles']} tile{'' if part['tiles'] == 1 else 's'}: {part['nimber']} "
                  f"({_HOW[part['how']]})")


_HOW = {
    "symmetric": "symmetric: the second player mirrors",
    "line": "a straight row",
    "known": "already known: the cache, or a component alike",
    "solved": "solved",
}


def _solve_explanation(analysis: Analysis) -> dict[str, Any]:
    """How ``termgames solve`` found its answer: the whole position's symmetry and each component's value."""
    from .solver_run import box_name

    return {
        "box": box_name(analysis.cells) if analysis.cells else "",
        "symmetric": analysis.symmetric,
        "components": [
            {"box": box_name(k.cells), "tiles": len(k.cells), "nimber": k.value, "how": k.how}
            for k in analysis.components
        ],
    }
