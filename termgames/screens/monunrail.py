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

import threading
from typing import Any

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.widgets import Static
from textual.worker import get_current_worker

from ..rules import View
from ..rules.monunrail import cell_name, parse_cell
from ..widgets.monunrail_board import KINDS, MonUnrailBoard, kind_of
from .dialogs import ConfirmScreen
from .game import GameScreen

#: Completions listed by the building hint at most (beyond it the hint says there are too many to list).
HINT_COMPLETIONS = 12
#: Lines of moves the hint lists in the side panel.
HINT_SHOWN = 4

BUILD_ACTIONS = {"tile_kind", "rotate", "impossible"}


class MonUnrailScreen(GameScreen):
    board_class = MonUnrailBoard

    BINDINGS = [
        Binding("space", "toggle('add')", "Add", key_display="Space"),
        Binding("space", "toggle('pick')", "Pick", key_display="Space"),
        Binding("enter", "confirm('place')", "Place", key_display="Enter"),
        Binding("enter", "confirm('remove')", "Remove", key_display="Enter"),
        Binding("t", "tile_kind", "Tile", key_display="t/r"),
        Binding("r", "rotate", "Rotate", show=False),
        Binding("escape", "clear", "Clear", show=False),
        Binding("s", "swap", "Swap"),
        Binding("i", "impossible", "Impossible"),
        Binding("n", "hint", "Hint"),
        Binding("u", "undo", "Undo", show=False),
        Binding("question_mark", "help", "Help", key_display="?"),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The hint is wanted (``n``); its result shows once the thread has it.
        self.hinting = False
        #: Hints already worked out: (moves played, phase) -> (marked cells, panel lines).
        self._hints: dict[tuple[int, str], tuple[frozenset, list]] = {}
        self._hint_wanted: tuple[int, str] | None = None
        self._solver: Any = None
        self._solver_saved_size = 0
        self._solver_lock = threading.Lock()
        #: Impossible is being decided in a thread: keys wait.
        self.deciding = False
        self._keys_state: tuple[Any, ...] = ()

    @property
    def rail_board(self) -> MonUnrailBoard:
        return self.query_one("#board", MonUnrailBoard)

    # -- whose keys --------------------------------------------------------

    def my_turn(self, view: View | None = None) -> bool:
        view = view or self.view
        return (
            view is not None
            and not view.over
            and self.thinking is None
            and not self.deciding
            and view.viewer is not None
            and view.viewer in view.to_move
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.is_mounted or self.view is None:
            return True
        phase = self.view.phase
        if action in ("toggle", "confirm"):
            if phase == "over":
                return False
            wanted = "add" if action == "toggle" else "place"
            return (parameters[0] == wanted) == (phase != "unrailing")
        if action in BUILD_ACTIONS:
            return phase == "building"
        if action == "swap":
            return self.view.pie_offer
        if action == "hint":
            return phase != "over"
        return True

    def refresh_footer(self) -> None:
        """The footer offers the keys of the phase at hand: redrawn only when that changes."""
        view = self.view
        state = (view.phase, view.pie_offer) if view is not None else ()
        if state != self._keys_state:
            self._keys_state = state
            self.refresh_bindings()

    def refuse_keys(self) -> bool:
        """Say why the keyboard may not assemble a move now (True), or nothing (False)."""
        view = self.view
        if view is None or self._privacy_open:
            return True
        if self.deciding:
            self.say("Wait: the search for a completion is running")
            return True
        if view.over:
            self.say("The game is over: u undoes, q quits")
            return True
        if not self.my_turn():
            names = " and ".join(view.players[s] for s in view.to_move)
            self.say(f"It is {names}'s turn")
            return True
        return False

    def action_undo(self) -> None:
        if self.deciding:
            self.say("Wait: the search for a completion is running")
            return
        super().action_undo()

    def action_cursor(self, direction: str) -> None:
        # A refusal is about the last key: once the cursor moves on, the line shows the move's check again.
        self.message = ""
        super().action_cursor(direction)

    # -- the move in progress ----------------------------------------------

    def action_toggle(self, _kind: str) -> None:
        if self.refuse_keys():
            return
        view, board = self.view, self.rail_board
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

    def move_at_cursor(self, view: View) -> str | None:
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

    def fitting(self, cell: tuple[int, int]) -> list[str]:
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
        if self.refuse_keys() or self.view.phase != "building":
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
        if self.refuse_keys() or self.view.phase != "building":
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
        view = self.view
        if self.refuse_keys():
            return
        if not view.pie_offer:
            self.say("Swap is only offered once, as the answer to the opening move")
            return
        opener = view.players[1 - view.viewer]
        detail = f"You take {opener}'s opening move ({view.last_move}) as your own, and {opener} moves again."
        self.app.push_screen(ConfirmScreen("Swap (the pie rule)?", detail), self._swap_answer)

    def _swap_answer(self, yes: bool | None) -> None:
        if yes:
            self.submit("swap")

    def action_impossible(self) -> None:
        view = self.view
        if self.refuse_keys():
            return
        if view.phase != "building":
            self.say("Impossible can only be called while the track is being built")
            return
        other = view.players[1 - view.viewer]
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

    @work(thread=True, exclusive=True, group="impossible")
    def decide_impossible(self, seat: int) -> None:
        # The exhaustive search can take a moment on an open board: the screen keeps drawing meanwhile,
        # and every key that could change the game waits (``deciding``).
        try:
            self.table.play(seat, "impossible")
        except Exception as error:  # a refusal or a failed save: one line for the player
            self._report(self._impossible_done, str(error))
            return
        self._report(self._impossible_done, "")

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
        if self.thinking is not None or view is None or view.over or not view.to_move:
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
        self.refresh_footer()
        if self.message:
            return
        board = self.rail_board
        line = self.query_one("#message", Static)
        if board.pending and self.my_turn():
            move = board.pending_text()
            problem = view.move_problem(move)
            if problem:
                line.update(Text(f"Not yet: {problem}", style="bold red"))
            elif view.phase == "unrailing":
                line.update(Text(f"Enter removes {move}", style="bold green"))
            elif view.completes(move):
                line.update(Text(f"Enter places {move} and completes the track", style="bold green"))
            else:
                line.update(Text(f"Enter places {move}", style="bold green"))

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
            self.say("Hint off", error=False)
            return
        self.message = ""
        self.request_hint()

    def hint_key(self) -> tuple[int, str] | None:
        view = self.view
        if view is None or view.over:
            return None
        return (len(view.moves), view.phase)

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
            board.set_hint(*self._hints[key])
            self.update_panel()
            return
        self._hint_wanted = key
        board.set_hint(frozenset(), [("Hint: working it out ...\n", "plain")])
        self.update_panel()
        self.work_out_hint(key, self.view)

    def solver(self) -> Any:
        """The game's one solver, primed from the shapes earlier games solved (called in the hint thread)."""
        if self._solver is None:
            from .. import solver_cache
            from ..rules.monunrail_solver import Solver

            self._solver = Solver()
            solver_cache.load(self._solver)
            self._solver_saved_size = self._solver.cache_size
        return self._solver

    def keep_solved_shapes(self) -> None:
        """Add what this hint solved to the cache file, for the next game (hint thread, under the lock)."""
        from .. import solver_cache

        size = self._solver.cache_size
        if size > self._solver_saved_size:
            solver_cache.save(self._solver)
            self._solver_saved_size = size

    @work(thread=True, exclusive=True, group="hint")
    def work_out_hint(self, key: tuple[int, str], view: Any) -> None:
        try:
            with self._solver_lock:  # one solver, its memory shared by every hint of the game
                result = hint_for(view, self.solver())
                self.keep_solved_shapes()
        except Exception as error:  # the hint is a help: its failure must not end the game
            self._report(self._hint_failed, key, str(error))
            return
        if not get_current_worker().is_cancelled:
            self._report(self._hint_done, key, result)

    def _hint_done(self, key: tuple[int, str], result: tuple[frozenset, list]) -> None:
        self._hints[key] = result
        if self.hinting and key == self.hint_key():
            self._hint_wanted = None
            self.rail_board.set_hint(*result)
            self.update_panel()

    def _hint_failed(self, key: tuple[int, str], error: str) -> None:
        if key == self._hint_wanted:
            self._hint_wanted = None
            self.hinting = False
            self.rail_board.set_hint(frozenset(), [])
            self.say(f"The hint failed: {error}")


def hint_for(view: Any, solver: Any) -> tuple[frozenset, list[tuple[str, str]]]:
    """The hint for the player to move: cells to mark and lines for the side panel.

    Unrailing: the nimber of the position and its winning moves (removals
    that leave 0).  Building: the placements that complete the track now
    with the value they leave (the opponent removes first, so 0 wins for
    the player who completes); with none, the few ways left to complete the
    track, each with the value of the finished track.
    """
    bold, plain, good = "bold", "plain", "good"  # roles: the board draws them in its palette
    who = view.players[view.to_move[0]] if view.to_move else ""
    lines: list = []
    cells: set = set()
    if view.phase == "unrailing":
        value, texts = view.unrail_hint(solver)
        if value == 0:
            lines += [("Nimber 0: ", bold), (f"{who} loses\nagainst best play\n", plain)]
            return frozenset(), lines
        lines += [(f"Nimber {value}: ", bold), (f"{who} wins.\n", plain), ("Winning: ", bold)]
        shown = "  ".join(texts[:HINT_SHOWN])
        more = f" +{len(texts) - HINT_SHOWN}" if len(texts) > HINT_SHOWN else ""
        lines += [(shown, good), (f"{more}\n", plain)]
        for text in texts:
            cells |= {parse_cell(name) for name in text.split(",")}
        return frozenset(cells), lines
    finishing = view.finishing_nimbers(solver)
    if finishing:
        lines.append(("Completing moves, and the\nvalue they leave (0 wins):\n", bold))
        finishing.sort(key=lambda item: (item[1] != 0, item[0]))
        for text, value in finishing[:HINT_SHOWN]:
            lines += [(f" {text} ", good if value == 0 else plain), (f"{value}\n", good if value == 0 else plain)]
            if value == 0:
                cells |= {parse_cell(part.split(":")[0]) for part in text.split(",")}
        if len(finishing) > HINT_SHOWN:
            lines.append((f" and {len(finishing) - HINT_SHOWN} more\n", plain))
        return frozenset(cells), lines
    ways = view.completions(limit=HINT_COMPLETIONS)
    if ways is None:
        lines.append(("Hint: no move completes the\ntrack now; many ways remain\n", plain))
        return frozenset(), lines
    if not ways:
        lines.append(("Hint: the track cannot be\ncompleted any more (i)\n", good))
        return frozenset(), lines
    track = view.unrail_cells()
    valued = []
    for text in ways:
        added = {parse_cell(part.split(":")[0]) for part in text.split(",")}
        valued.append((text, solver.nimber(set(track) | added)))
    valued.sort(key=lambda item: (item[1] != 0, len(item[0]), item[0]))
    noun = "way" if len(ways) == 1 else "ways"
    lines.append((f"{len(ways)} {noun} to complete left\n(value of the track):\n", bold))
    for text, value in valued[:HINT_SHOWN]:
        lines.append((f" {text} {value}\n", good if value == 0 else plain))
    if len(valued) > HINT_SHOWN:
        lines.append((f" and {len(valued) - HINT_SHOWN} more\n", plain))
    return frozenset(), lines

