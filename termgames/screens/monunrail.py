"""MonUnrail's screen: assemble a placement tile by tile, see it checked as it grows, then unrail.

Building: ``t`` picks the kind of tile (straight, turn, crossroads) and ``r``
turns it, the types that fit the cell under the cursor first; Space puts the
tile into the move being assembled (on a tile of the move it takes it back,
and ``t``/``r`` there change it); Enter places the move (with nothing
assembled, the tile at the cursor alone).  The move is drawn before it is
placed and checked by the rules at every step: the line under the board says
what is wrong.  ``i`` calls Impossible, ``s`` swaps when the pie rule offers
it.  Unrailing: Space picks tiles, Enter removes them.  ``n`` shows the
nimber hint, computed in a thread as the AI players are.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.binding import Binding, BindingType
from textual.widgets import Static
from textual.worker import get_current_worker

from ..ai.monunrail import Hint, HintGiver
from ..rules.base import possessive
from ..rules.monunrail import Cell, MonUnrailView, cell_name
from ..widgets.monunrail_board import KINDS, MonUnrailBoard, kind_of
from ..widgets.panel import PanelTexts, update_if_changed
from .dialogs import ConfirmScreen
from .game import LEAVING, GameScreen

BUILD_ACTIONS = {"tile_kind", "rotate", "impossible"}


class HintAnalysis:
    """The hint (``n``) for a replay's position: the nimber of a removal position and its winning moves, or the
    moves that complete the track, as the live game shows them for the player to move."""

    def __init__(self) -> None:
        self.giver = HintGiver()

    def choices(self, view: MonUnrailView) -> list[str]:
        return []  # one board: nothing to choose

    def prepare(self, view: MonUnrailView, board: MonUnrailBoard, choice: int = 0) -> Callable[[], object] | None:
        if view.over or not view.to_move:
            return None
        return lambda: self.giver.hint(view)

    def show(self, board: MonUnrailBoard, result: object | None) -> None:
        if isinstance(result, Hint):
            board.set_hint(result.cells, list(result.lines))
        else:
            board.set_hint(frozenset(), [])


class MonUnrailScreen(GameScreen[MonUnrailView]):
    board_class = MonUnrailBoard

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "pick_tile('add')", "Add", key_display="Space",
                tooltip="building: put the tile into your move, or take it back out (t and r on it change it)"),
        Binding("space", "pick_tile('pick')", "Pick", key_display="Space",
                tooltip="unrailing: pick a tile to remove, or unpick it"),
        Binding("enter", "confirm('place')", "Place", key_display="Enter",
                tooltip="place (or remove) the move you assembled; with none, the tile at the cursor alone"),
        Binding("enter", "confirm('remove')", "Remove", key_display="Enter",
                tooltip="place (or remove) the move you assembled; with none, the tile at the cursor alone"),
        Binding("t", "tile_kind", "Tile", key_display="t/r",
                tooltip="building: the next kind of tile (straight, turn, crossroads), kinds that fit the cursor's "
                "cell first"),
        Binding("r", "rotate", "Rotate", show=False, tooltip="building: turn the tile (the ways round that fit first)"),
        Binding("escape", "clear", "Clear", show=False, tooltip="clear the move being assembled"),
        *LEAVING,  # Esc with no move being assembled
        Binding("s", "swap", "Swap", tooltip="swap: the pie rule, when offered (asks first)"),
        Binding("i", "impossible", "Impossible", tooltip="call Impossible (asks first)"),
        Binding("n", "hint", "Hint",
                tooltip="hint on or off: the nimber of the removal position and its winning moves; while building, "
                "the moves that complete the track and the value they leave, or the few ways left to complete it"),
        Binding("u", "undo", "Undo", show=False, tooltip="undo (against the AI: your last move and its replies)"),
        Binding("question_mark", "help", "Help", key_display="?", tooltip="the rules and these keys"),
    ]
    HELP_NOTES = """\
Your move is drawn before you place it and checked at every step: the line
under the board says what is wrong with it. Starting tiles have heavy
lines; tiles not placed yet (your move, a completion found by Impossible)
double lines. The corners of a cell mark the cursor `[ ]`, a tile of your
move `+`, a tile picked for removal `x`, the last move `*` and the cells
of winning moves `!`. The panel shows the supply left, the pie offer and
whose opening move it is after a swap.
"""

    DERIVED_DISPLAYS = ("hint",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The hint is wanted (``n``); its result shows once the thread has it.
        self.hinting = False
        #: Hints already worked out, by the position they are for (``View.position_key``) -> the hint.
        self._hints: dict[Hashable, Hint] = {}
        self._hint_wanted: Hashable | None = None
        self._hint_giver = HintGiver()
        #: Impossible is being decided in a thread: keys wait.
        self.deciding = False

    @classmethod
    def replay_analysis(cls, options: dict[str, Any]) -> HintAnalysis:
        return HintAnalysis()

    @property
    def rail_board(self) -> MonUnrailBoard:
        return self.query_one("#board", MonUnrailBoard)

    # -- whose keys --------------------------------------------------------

    def my_turn(self, view: MonUnrailView | None = None) -> bool:
        view = view or self.view
        return (
            view is not None
            and not view.over
            and not self.table.thinking
            and not self.deciding
            and view.viewer is not None
            and view.viewer in view.to_move
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.is_mounted or self.view is None:
            return True
        phase = self.view.phase
        # Building and removing keys only for the seat at the keyboard whose turn it is (not while the
        # computer thinks, nor during the search of Impossible): they would only say "wait".
        if action in ("pick_tile", "confirm"):
            if phase == "over" or not self.my_turn():
                return False
            wanted = "add" if action == "pick_tile" else "place"
            return (parameters[0] == wanted) == (phase != "unrailing")
        if action in BUILD_ACTIONS:
            return phase == "building" and self.my_turn()
        if action == "swap":  # not while the computer is still thinking: the swap is the keyboard's own move
            return self.view.pie_offer and self.my_turn()
        if action == "hint":
            return phase != "over"
        if action == "clear":
            return bool(self.rail_board.pending)  # else Esc is the way out
        return super().check_action(action, parameters)

    def footer_state(self) -> tuple[object, ...]:
        # The footer offers the keys of the phase at hand.
        view = self.view
        return (*super().footer_state(), *((view.phase, view.pie_offer, self.my_turn()) if view is not None else ()))

    def keys_view(self) -> tuple[MonUnrailView, int] | None:
        """The view and the seat at the keyboard when it may assemble a move now, else None (saying why)."""
        view = self.view
        if view is None or self._privacy_open:
            return None
        if self.deciding:
            self.say("Wait: the search for a completion is running")
            return None
        if view.over:
            self.say("The game is over: u undoes, q leaves")
            return None
        if not self.my_turn() or view.viewer is None:
            names = " and ".join(view.players[s] for s in view.to_move)
            self.say(f"It is {possessive(names, addressed=True)} turn")
            return None
        return view, view.viewer

    def action_undo(self) -> None:
        if self.deciding:
            self.say("Wait: the search for a completion is running")
            return
        super().action_undo()

    # -- the move in progress ----------------------------------------------

    def action_pick_tile(self, _kind: str) -> None:
        """Space: a tile into the move being assembled, or back out of it (building); a tile to remove (unrailing)."""
        found = self.keys_view()
        if found is None:
            return
        view, board = found[0], self.rail_board
        cell = board.cursor_cell
        name = cell_name(cell)
        removing = view.phase == "unrailing"
        if cell in board.pending:
            del board.pending[cell]
        elif not removing and view.tile_at(cell) is not None:
            what = "a starting tile" if view.is_start(cell) else f"a tile ({view.tile_at(cell)})"
            self.say(f"{name} already holds {what}: tiles go on empty cells")
            return
        elif removing and view.tile_at(cell) is None:
            self.say(f"There is no tile on {name} to remove")
            return
        elif len(board.pending) >= 3:
            verb = "removes" if removing else "places"
            self.say(f"A move {verb} at most 3 tiles: Enter plays these, Space on one takes it back")
            return
        else:
            board.pending[cell] = None if removing else board.chosen
        self.message = ""
        board.redraw()
        self.update_panel()

    def action_confirm(self, _kind: str) -> None:
        if self.deciding:
            self.say("Wait: the search for a completion is running")
            return
        self.submit(None)

    def move_at_cursor(self, view: MonUnrailView) -> str | None:
        board = self.rail_board
        if board.pending:
            return board.pending_text()
        cell = board.cursor_cell
        name = cell_name(cell)
        if view.phase == "unrailing":
            if view.tile_at(cell) is None:
                self.say(f"There is no tile on {name}: Space picks tiles to remove, Enter removes them")
                return None
            return name
        if view.tile_at(cell) is not None:
            self.say(f"{name} holds a tile: choose an empty cell, Space adds the tile to your move")
            return None
        return f"{name}:{board.chosen}"

    def action_clear(self) -> None:
        board = self.rail_board
        if board.pending:
            board.clear_pending()
            self.say("Move cleared", error=False)

    def fitting(self, cell: Cell) -> list[str]:
        """Tile types that fit ``cell`` beside the rest of the move; none for a cell holding a tile."""
        view, board = self.view, self.rail_board
        if view is None or (view.tile_at(cell) is not None and cell not in board.pending):
            return []
        rest = {c: t for c, t in board.pending.items() if c != cell}
        text = ",".join(f"{cell_name(c)}:{t}" for c, t in sorted(rest.items(), key=lambda x: (x[0][1], x[0][0])))
        return view.tile_options(cell, text)

    def choose(self, code: str) -> None:
        board = self.rail_board
        board.chosen = code
        cell = board.cursor_cell
        if cell in board.pending:
            board.pending[cell] = code  # t and r on a tile of the move change it
        self.message = ""
        board.redraw()
        self.update_panel()

    def action_tile_kind(self) -> None:
        found = self.keys_view()
        if found is None or found[0].phase != "building":
            return
        board = self.rail_board
        fits = self.fitting(board.cursor_cell)
        current = kind_of(board.chosen)
        order = [(current + step) % len(KINDS) for step in range(1, len(KINDS) + 1)]
        # Kinds that fit here come first; with none fitting, every kind in turn.
        fitting_kinds = [k for k in order if any(code in fits for code in KINDS[k])]
        kind = (fitting_kinds or order)[0]
        codes = [code for code in KINDS[kind] if code in fits] or list(KINDS[kind])
        self.choose(codes[0])

    def action_rotate(self) -> None:
        found = self.keys_view()
        if found is None or found[0].phase != "building":
            return
        board = self.rail_board
        codes = KINDS[kind_of(board.chosen)]
        if len(codes) == 1:
            self.say("A crossroads looks the same every way round", error=False)
            return
        fits = self.fitting(board.cursor_cell)
        index = codes.index(board.chosen)
        order = [codes[(index + step) % len(codes)] for step in range(1, len(codes) + 1)]
        # The ways round that fit here come first; with none fitting, every one in turn.
        self.choose(([code for code in order if code in fits] or order)[0])

    # -- pie rule and Impossible -------------------------------------------

    def action_swap(self) -> None:
        found = self.keys_view()
        if found is None:
            return
        view, seat = found
        if not view.pie_offer:
            self.say("Swap is only offered once, as the answer to the opening move")
            return
        opener = view.players[1 - seat]
        detail = (
            f"You take {possessive(opener, addressed=True)} opening move ({view.last_move}) as your own, "
            f"and {opener} moves again."
        )
        self.app.push_screen(ConfirmScreen("Swap (the pie rule)?", detail), self._swap_answer)

    def _swap_answer(self, yes: bool | None) -> None:
        if yes:
            self.submit("swap")

    def action_impossible(self) -> None:
        found = self.keys_view()
        if found is None:
            return
        view, seat = found
        if view.phase != "building":
            self.say("Impossible can only be called while the track is being built")
            return
        other = view.players[1 - seat]
        detail = (
            f"A full search decides whether {other} could complete the track with the supply left. "
            f"If not, you win; if so, {other} wins. The game ends either way."
        )
        self.app.push_screen(ConfirmScreen("Call Impossible?", detail), self._impossible_answer)

    def _impossible_answer(self, yes: bool | None) -> None:
        if not yes or self.view is None or not self.my_turn():
            return
        self.deciding = True
        self.rail_board.clear_pending()
        self.say("Searching every way to complete the track ...", error=False)
        self.decide_impossible(self.view.viewer)

    @work(exclusive=True, group="impossible")
    async def decide_impossible(self, seat: int) -> None:
        # The exhaustive search can take a moment on an open board: the table runs it in a worker thread and
        # records the move back on the loop (a store and the hub are never reached from a thread); the screen
        # keeps drawing meanwhile, and every key that could change the game waits (``deciding``).
        try:
            await self.table.play_slow(seat, "impossible")
        except Exception as error:  # a refusal or a failed save: one line for the player
            self._impossible_done(str(error))
            return
        self._impossible_done("")

    def _impossible_done(self, error: str) -> None:
        self.deciding = False
        if error:
            self.say(error)
            return
        self.message = ""
        self.refresh_view()

    def status_line(self) -> str:
        if self.deciding:
            return "Searching for a completion ..."
        view = self.view
        if self.table.thinking or view is None or view.over or not view.to_move:
            return super().status_line()
        name = view.players[view.to_move[0]]
        if view.phase == "unrailing":
            return f"Unrailing: {name} to remove"
        if view.pie_offer:
            return f"Building: {name} to place\nor to swap (pie rule)"
        return f"Building: {name} to place"

    # -- the panel -----------------------------------------------------------

    def refresh_view(self) -> None:
        super().refresh_view()
        self.request_hint()

    def update_panel(self) -> None:
        super().update_panel()
        view = self.view
        if view is None:
            return
        if self.message:
            return
        board = self.rail_board
        if board.pending and self.my_turn():
            # Through update_if_changed as the base's line is: a line written around it was never cleared (its
            # record of what it shows said blank), and "Enter places ..." outlived the move it described.
            move = board.pending_text()
            problem = view.move_problem(move)
            if problem:
                check = Text(f"Not yet: {problem}", style="bold red")
            elif view.phase == "unrailing":
                check = Text(f"Enter removes {move}", style="bold green")
            elif view.completes(move):
                check = Text(f"Enter places {move} and completes the track", style="bold green")
            else:
                check = Text(f"Enter places {move}", style="bold green")
            update_if_changed(self.query_one("#message", Static), check)

    # -- the hint ------------------------------------------------------------

    def action_hint(self) -> None:
        view = self.view
        if view is None or self._privacy_open:
            return
        if view.over:
            self.say("The game is over: no hint")
            return
        self.hinting = not self.hinting
        if not self.hinting:
            self._hint_wanted = None
            self.rail_board.set_hint(frozenset(), [])
            self.found("#panel-info", PanelTexts).release_height("legend")  # its lines go with the hint
            self.say("Hint off", error=False)
            return
        self.message = ""
        self.request_hint()

    def hint_key(self) -> Hashable | None:
        view = self.view
        if view is None or view.over:
            return None
        return view.position_key()

    def request_hint(self) -> None:
        """Show the hint for the position on the board, working it out in a thread if it is new."""
        if not self.hinting:
            return
        key = self.hint_key()
        board = self.rail_board
        if key is None:
            self.hinting = False
            board.set_hint(frozenset(), [])
            return
        if key in self._hints:
            self._hint_wanted = None
            hint = self._hints[key]
            board.set_hint(hint.cells, list(hint.lines))
            self.update_panel()
            return
        self._hint_wanted = key
        board.set_hint(frozenset(), [("Hint: working it out ...\n", "plain")])
        self.update_panel()
        self.work_out_hint(key, self.view)

    @work(thread=True, exclusive=True, group="hint")
    def work_out_hint(self, key: Hashable, view: MonUnrailView) -> None:
        try:
            result = self._hint_giver.hint(view)
        except Exception as error:  # the hint is a help: its failure must not end the game
            self._report(self._hint_failed, key, str(error))
            return
        if not get_current_worker().is_cancelled:
            self._report(self._hint_done, key, result)

    def _hint_done(self, key: Hashable, result: Hint) -> None:
        self._hints[key] = result
        if self.hinting and key == self.hint_key():
            self._hint_wanted = None
            self.rail_board.set_hint(result.cells, list(result.lines))
            self.update_panel()

    def _hint_failed(self, key: Hashable, error: str) -> None:
        if key == self._hint_wanted:
            self._hint_wanted = None
            self.hinting = False
            self.rail_board.set_hint(frozenset(), [])
            self.say(f"The hint failed: {error}")
