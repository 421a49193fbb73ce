"""``termgames monad ...``: Monad's own commands (trace, and the bot matches and tournaments).

Monad's descriptor names :func:`add_commands`, which the CLI calls at its start.  Each command
lives in its own module of this package and registers itself on :data:`monad_app` with
``@monad_app.command(...)``; every module here is imported when the CLI starts, so adding a
command is adding a file.  Modules import only typer at their top (``termgames --help`` must stay
fast); the work happens in imports inside the command.
"""

from __future__ import annotations

import importlib
import pkgutil

import typer

monad_app = typer.Typer(
    name="monad",
    help="Monad's tools: trace a record as JSON lines, bot matches and tournaments.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def load_commands() -> None:
    """Import every command module of this package (each registers itself on monad_app)."""
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not module.name.startswith("_"):
            importlib.import_module(f"{__name__}.{module.name}")


load_commands()


def add_commands(app: typer.Typer) -> None:
    """Monad's commands on ``termgames``: the group ``termgames monad``."""
    app.add_typer(monad_app, name="monad")
