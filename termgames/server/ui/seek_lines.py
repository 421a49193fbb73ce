"""The lobby's seeks: the seeks waiting, a section of its list (Enter takes one; on one of yours, takes it
back), and the quick-pairing screen (``s``), each game's common clocks as its descriptor declares them (Enter
seeks that game; again, cancels).

The lobby (:mod:`.lobby`) lists the seek lines among its sections and hands Enter on them here; the seeks
themselves are the hub's (:mod:`termgames.server.seeks`).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
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
    """The lobby's seek section: the seeks waiting."""
    heading = Text("Seeks: Enter takes one (yours, marked *: takes it back)", style="bold underline")
    options = [Option(heading, disabled=True)]
    waiting = hub.seeks.current()
    if not waiting:
        options.append(Option(Text("  none: s seeks a quick pairing", style="dim"), disabled=True))
    for seek in waiting:
        mine = fold_name(seek.player) == fold_name(player)
        rating = hub.seeks.rating_of(seek.player, seek.game) if seek.rated else None
        line = ("* " if mine else "  ") + describe_seek(seek, rating)
        options.append(Option(Text(line, style="bold" if mine else ""), id=f"seek:{seek.id}"))
    return options


def quick_options(hub: Hub, player: str) -> list[Option]:
    """The quick-pairing screen's lines: each game's common clocks, hers marked ``seeking``."""
    options = []
    for index, (game_name, spec) in enumerate(QUICK):
        seeking = _quick_seek(hub, player, game_name, spec)
        line = f"  {GAMES[game_name].title} {spec}" + (f"  seeking (#{seeking.id})" if seeking else "")
        options.append(Option(Text(line, style="bold reverse" if seeking else ""), id=f"quick:{index}"))
    return options


class QuickPairingScreen(ModalScreen[None]):
    """Each game's common settings: Enter seeks one (for two, the game's usual options), Enter again cancels it;
    a seek that meets one opens its table."""

    BINDINGS = [Binding("escape,q,s", "close", "Close")]

    def __init__(self, app: ServeHost) -> None:
        super().__init__()
        self.host = app

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small-dialog"):
            yield Static("Quick pairing: Enter seeks (again: cancels)", classes="dialog-title")
            yield OptionList(*quick_options(self.host.hub, self.host.player), id="quick-pairing")
            yield Static("Esc, q or s to close", classes="dialog-hint")

    @on(OptionList.OptionSelected, "#quick-pairing")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is None:
            return
        number = int(event.option.id.partition(":")[2])
        listing = self.query_one("#quick-pairing", OptionList)
        if seek_chosen(self.host, self.host.owner, "quick", number):
            return  # (it closed this screen to open the table)
        listing.clear_options()
        listing.add_options(quick_options(self.host.hub, self.host.player))
        listing.highlighted = number

    def action_close(self) -> None:
        self.dismiss(None)


def seek_chosen(app: ServeHost, owner: str, kind: str, number: int) -> bool:
    """Enter on a seek line (``seek``: take it, or take back her own) or a quick-pairing line (``quick``); True
    when it made a table (opened)."""
    hub, player = app.hub, app.player
    owner = owner or name_owner(player)
    try:
        if kind == "seek":
            if any(seek.id == number for seek in hub.seeks.of(player)):
                hub.seeks.unseek(player, number)
                app.notify(f"Seek #{number} taken back")
                return False
            result = hub.seeks.take(player, owner, number)
        else:
            game_name, spec = QUICK[number]
            kept = _quick_seek(hub, player, game_name, spec)
            if kept is not None:
                hub.seeks.unseek(player, kept.id)
                app.notify(f"Seek #{kept.id} taken back")
                return False
            options: dict[str, Any] = {}
            result = hub.seeks.seek(player, owner, game_name, options, clock=ClockSpec.parse(spec))
    except RuleError as error:
        app.notify(str(error), severity="error", markup=False)
        return False
    if result.table is not None:
        if isinstance(app.screen, QuickPairingScreen):
            app.pop_screen()
        app.open_table(result.table.id)
        return True
    if result.seek is not None:
        app.notify(f"Seek #{result.seek.id} waits: {describe_seek(result.seek)}", markup=False)
    return False
