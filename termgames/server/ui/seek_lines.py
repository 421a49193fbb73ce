"""The lobby's seeks: the seeks waiting (Enter takes one; on one of yours, takes it back) and the quick-pairing
lines, each game's common clocks as its descriptor declares them (Enter seeks that game; again, cancels).

The lobby (:mod:`.lobby`) lists these lines among its sections and hands Enter on them here; the seeks
themselves are the hub's (:mod:`termgames.server.seeks`).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets.option_list import Option

from ...clock import ClockSpec
from ...games import GAMES
from ...rules import RuleError, get_game
from ...untrusted import fold_name
from ..hub import Hub
from ..people import name_owner
from ..seeks import describe_seek
from ..stores.interface import StoredSeek
from .host import ServeHost

#: Every quick pairing, in the lobby's order: (game, clock spec); a line's id is its index here.
QUICK: list[tuple[str, str]] = [
    (name, spec) for name, game in GAMES.items() if game.playable for spec in game.quick_pairings
]


def _quick_seek(hub: Hub, player: str, game_name: str, spec: str) -> StoredSeek | None:
    """Her seek that a quick-pairing line made (its game and clock, the game's usual options, the fewest seats)."""
    game = get_game(game_name)
    usual = game.check_options({})
    return next(
        (
            seek for seek in hub.seeks.of(player)
            if (seek.game, seek.clock, seek.seats, seek.options) == (game_name, spec, game.min_seats, usual)
        ),
        None,
    )


def seek_options(hub: Hub, player: str) -> list[Option]:
    """The lobby's two seek sections: the seeks waiting, then the quick-pairing lines."""
    options = [Option(Text("Seeks: Enter takes one (yours: takes it back)", style="bold underline"), disabled=True)]
    waiting = hub.seeks.current()
    if not waiting:
        options.append(Option(Text("  none: pick a quick pairing below, or ssh HOST seek", style="dim"), disabled=True))
    for seek in waiting:
        mine = fold_name(seek.player) == fold_name(player)
        line = "  " + describe_seek(seek, hub.seeks.rating_of(seek.player, seek.game)) + ("  (yours)" if mine else "")
        options.append(Option(Text(line, style="bold" if mine else ""), id=f"seek:{seek.id}"))
    options.append(Option(Text("Quick pairing: Enter seeks (again: cancels)", style="bold underline"), disabled=True))
    for index, (game_name, spec) in enumerate(QUICK):
        seeking = _quick_seek(hub, player, game_name, spec)
        line = f"  {GAMES[game_name].title} {spec}" + (f"  seeking (#{seeking.id})" if seeking else "")
        options.append(Option(Text(line, style="bold reverse" if seeking else ""), id=f"quick:{index}"))
    return options


def seek_chosen(app: ServeHost, owner: str, kind: str, number: int) -> None:
    """Enter on a seek line (``seek``: take it, or take back her own) or a quick-pairing line (``quick``)."""
    hub, player = app.hub, app.player
    owner = owner or name_owner(player)
    try:
        if kind == "seek":
            if any(seek.id == number for seek in hub.seeks.of(player)):
                hub.seeks.unseek(player, number)
                app.notify(f"Seek #{number} taken back")
                return
            result = hub.seeks.take(player, owner, number)
        else:
            game_name, spec = QUICK[number]
            kept = _quick_seek(hub, player, game_name, spec)
            if kept is not None:
                hub.seeks.unseek(player, kept.id)
                app.notify(f"Seek #{kept.id} taken back")
                return
            options: dict[str, Any] = {}
            result = hub.seeks.seek(player, owner, game_name, options, clock=ClockSpec.parse(spec))
    except RuleError as error:
        app.notify(str(error), severity="error", markup=False)
        return
    if result.table is not None:
        app.open_table(result.table.id)
    elif result.seek is not None:
        app.notify(f"Seek #{result.seek.id} waits: {describe_seek(result.seek)}", markup=False)
