"""Mono's screen: lay out a board, then probe opponents' boards one position at a time.

Every probe is played as ``CELL,hold`` so the player sees each value come up
and decides what to probe next; ``e`` ends the turn and ``r`` lets random
probes finish it.  The deduction overlay (``d``) asks the AI's inference what
each hidden cell of the board under the cursor probably holds; it runs in a
thread and is recomputed whenever the view changes while it is on.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, ClassVar, cast

from rich.text import Text
from textual import work
from textual.binding import Binding, BindingType
from textual.widgets import Static
from textual.worker import get_current_worker

from ..messages import CursorMoved
from ..rules.base import ALL, possessive
from ..rules.mono import MonoView, label, random_layout
from ..widgets.mono_board import Candidates, MonoBoards, check_draft
from ..widgets.panel import PanelTexts, update_if_changed
from .game import LEAVING, GameScreen

#: Samples of the deduction overlay's inference: enough for steady odds, quick on a small machine.
BELIEF_SAMPLES = 200

BeliefKey = tuple[Any, int, tuple[int | None, ...]]

#: Keys of the layout editor, and of probing; each set is hidden from the footer in the other phase.
LAYOUT_ACTIONS = {"put", "step_value", "clear_value", "random_layout", "confirm_layout", "layout_back"}
PROBE_ACTIONS = {"act", "end_turn", "random", "deduce", "next_board"}


def cell_beliefs(view: Any, board_seat: int, samples: int, seed: int) -> list:
    """The AI's inference: per cell of ``board_seat``'s board (most likely value, probability), None where shown."""
    from ..ai.mono import cell_beliefs as infer

    return infer(view, board_seat, samples=samples, seed=seed)


def cell_candidates(view: MonoView, board_seat: int, samples: int, seed: int) -> list[Candidates]:
    """Every value each hidden cell of ``board_seat``'s board may hold, with its chance, likeliest first.

    The chances are shares of the layouts the AI's inference draws consistent
    with what ``view`` shows (its ``LayoutSampler``, under the time a decision
    gets); when it draws none, the inference's own guess (``cell_beliefs``)
    is the one candidate.
    """
    from ..ai import mono as mono_ai
    from ..ai.budget import SEARCH_SHARE, TIME_CAP, Deadline
    from ..ai.mono_inference import candidates_from

    grid = view.grid
    if grid is None or board_seat == view.viewer:
        raise ValueError("a player's own board hides nothing from that player")
    board = view.boards[board_seat] or (None,) * grid.cells
    known = {cell: value for cell, value in enumerate(board) if value is not None}
    deadline = Deadline(TIME_CAP * SEARCH_SHARE)
    layouts = mono_ai.sample_layouts(grid.regions, known, samples, f"candidates:{seed}", deadline)
    if not layouts:
        return [None if top is None else (tuple(top),) for top in cell_beliefs(view, board_seat, samples, seed)]
    return candidates_from(layouts, board)


class OverlayAnalysis:
    """The deduction overlay (``n`` in a replay) of one board: at first the board a replay shows first among the
    viewer's opponents (a spectator's: the next player's after the one to move, the one probed at two players);
    Tab and Shift+Tab, as in the live game, go round the others."""

    @staticmethod
    def seats(view: MonoView) -> list[int]:
        """The boards the overlay may cover, the first one first: none before probing or with every board shown."""
        if view.phase != "probe" or view.viewer == ALL:
            return []
        players = len(view.players)
        # A seat's opponents in the order its boards are drawn; a spectator's from the next player's on.
        first = (view.to_move[0] + 1) % players if view.viewer is None and view.to_move else 0
        return [seat for step in range(players) if (seat := (first + step) % players) != view.viewer]

    def choices(self, view: MonoView) -> list[str]:
        return [f"{possessive(view.players[seat])} board" for seat in self.seats(view)]

    def prepare(self, view: MonoView, board: MonoBoards, choice: int = 0) -> Callable[[], object] | None:
        seats = self.seats(view)
        if not seats:
            return None
        seat = seats[choice % len(seats)]
        return lambda: (seat, cell_candidates(view, seat, samples=BELIEF_SAMPLES, seed=0))

    def show(self, board: MonoBoards, result: object | None) -> None:
        board.set_beliefs(cast(tuple[int, list[Candidates]], result) if result is not None else None)


class MonoScreen(GameScreen[MonoView]):
    board_class = MonoBoards
    hides_information = True
    #: The last action lists a turn's probes and their values: two to four lines in the panel.
    PANEL_RESERVED: ClassVar[dict[str, int]] = {"last-action": PanelTexts.MAX_LINES["last-action"]}
    DERIVED_DISPLAYS = ("deduce",)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "hide_boards", "Hide the boards", key_display="Enter",
                tooltip="hot seat, after your turn: hide the boards for the next player"),
        Binding("enter,space", "act", "Probe", key_display="Enter",
                tooltip="probe the position (your turn goes on until a decrease)"),
        Binding("enter,space", "confirm_layout", "Confirm", key_display="Enter",
                tooltip="layout: confirm the layout once it is valid"),
        *[
            Binding(keys, f"cursor('{direction}')", direction.capitalize(), show=False,
                    tooltip="move on the board under the cursor, and off its edge onto the next opponent's (at "
                    "the end of the game, with every board shown and no cursor: scroll the boards)")
            for keys, direction in (("left,h", "left"), ("right,l", "right"), ("up,k", "up"), ("down,j", "down"))
        ],
        Binding("e", "end_turn", "End turn", tooltip="end the turn (pbmserv's `end`)"),
        Binding("r", "random", "Random", tooltip="let random probes finish the turn"),
        Binding("d", "deduce", "Deduce",
                tooltip="deduction overlay: each hidden cell's likeliest value, marked `?`; the panel lists every "
                "value the cursor's cell may hold, with its chance"),
        Binding("tab", "next_board(1)", "Board", key_display="Tab",
                tooltip="next, previous opponent's board (3-4 players)"),
        Binding("shift+tab", "next_board(-1)", "Board", show=False,
                tooltip="next, previous opponent's board (3-4 players)"),
        # With one opponent there is no board to switch to (check_action turns next_board off): Tab moves the focus.
        Binding("tab", "app.focus_next", "Log", show=False,
                tooltip="one opponent: to the move log (its arrow keys scroll it) and back to the boards"),
        Binding("shift+tab", "app.focus_previous", "Log", show=False,
                tooltip="one opponent: to the move log (its arrow keys scroll it) and back to the boards"),
        *[
            Binding(str(n), f"put({n})", "Region", key_display="0-9", show=n == 1,
                    tooltip="layout: type the cell's region number and move on (reading order); on boards of 10+ "
                    "regions a first digit that can start a longer number waits for a second (1 7: region 17, "
                    "label h), Enter or Space keeps it as it is")
            for n in range(10)
        ],
        Binding("plus,equals_sign", "step_value(1)", "Label +/-", key_display="+/-",
                tooltip="layout: step the cell's label up or down (boards of 10+ regions)"),
        Binding("minus", "step_value(-1)", "Label -", show=False,
                tooltip="layout: step the cell's label up or down (boards of 10+ regions)"),
        Binding("backspace", "clear_value(True)", "Clear", show=False,
                tooltip="layout: clear the cell (Backspace on an empty cell: the one before)"),
        Binding("delete", "clear_value(False)", "Clear", show=False,
                tooltip="layout: clear the cell (Backspace on an empty cell: the one before)"),
        Binding("R", "random_layout", "Random", key_display="R",
                tooltip="layout: preview a random layout (R again: another one; Enter confirms it)"),
        Binding("escape", "layout_back", "Back", key_display="Esc",
                tooltip="layout: leave the random preview for the layout you were typing"),
        *LEAVING,  # Esc with no preview to leave
        Binding("u", "undo", "Undo", show=False, tooltip="undo: not in Mono (a probe's value has been seen)"),
        Binding("question_mark", "help", "Help", key_display="?", tooltip="the rules and these keys"),
    ]
    HELP_NOTES = """\
A mouse click puts the cursor on a cell.

On the boards, `*` after a value marks a cell uncovered by a random probe.
The side panel lists the turn's values and what they would score now; after a
turn, the value behind `|` is the one that ended it (it scores nothing).
On your own board the cells your opponents have uncovered are bright, the
others dim. With three or four players, an underlined value on an opponent's
board is one you have not probed yet (you may still probe it). The overlay's
guesses are italic with a `?`: bold when it is sure, dim when it is unsure;
the line under the boards gives the odds for the cell under the cursor, and the
side panel every value it may hold with its chance. A game
made with `--no-hints` has no overlay.

In hot-seat games a privacy screen hides every board while the keyboard
passes to the next player. Probes cannot be undone: their values have been
seen.
"""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The deduction overlay is wanted (``d``); it shows once its beliefs arrive.
        self.overlay = False
        #: Candidates already worked out: (viewer, board seat, what the viewer sees of that board) -> per cell.
        self._beliefs: dict[BeliefKey, list[Candidates]] = {}
        self._deducing: BeliefKey | None = None
        #: The first digit of a region number typed on a board of 10+ regions, and the cell it went into:
        #: a second digit makes the two-digit number (1 then 7: region 17).
        self._first_digit: tuple[int, int] | None = None
        #: While a random layout is previewed (``R``): the layout typed before it, which Escape brings back.
        self._typed_layout: list[int | None] | None = None
        #: Random layouts previewed by R (the rules check the one confirmed as any typed layout).
        self.layout_rng = random.Random()

    @classmethod
    def replay_analysis(cls, options: dict[str, Any]) -> OverlayAnalysis | None:
        return None if options.get("no_hints") else OverlayAnalysis()  # --no-hints: no overlay, live or replayed

    @property
    def mono_board(self) -> MonoBoards:
        return self.found("#board", MonoBoards)

    def laying_out(self) -> bool:
        return self.mono_board.draft is not None

    # -- footer ----------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.is_mounted:
            return True
        laying_out = self.laying_out()
        handing_over = self._handover_to is not None
        if action == "hide_boards":
            return handing_over
        if handing_over and action in LAYOUT_ACTIONS | PROBE_ACTIONS:
            return False
        if action == "layout_back":
            return laying_out and self._typed_layout is not None
        if action in LAYOUT_ACTIONS:
            return laying_out
        if action in PROBE_ACTIONS:
            if action in ("act", "end_turn", "random"):
                # The turn's keys only while it is the keyboard's turn (not while the computer probes).
                view = self.view
                return (
                    not laying_out and view is not None and not view.over and view.phase == "probe"
                    and view.viewer is not None and view.viewer in view.to_move
                )
            if action == "next_board" and self.view is not None and len(self.view.players) < 3:
                return False  # one opponent: nothing to switch to
            if action == "deduce" and self.hints_forbidden():
                return False  # a game made with --no-hints has no overlay
            view = self.view
            return not laying_out and view is not None and view.phase == "probe" and view.viewer is not None
        return super().check_action(action, parameters)

    # -- moves -----------------------------------------------------------------

    def move_at_cursor(self, view: MonoView) -> str | None:
        board = self.mono_board
        if board.board_seat == view.viewer:
            self.say("Move to an opponent's board (Tab) to probe it")
            return None
        if view.phase != "probe":
            self.say("Wait for every board to be laid out")
            return None
        return f"{board.cursor_name()},hold"

    def action_hide_boards(self) -> None:
        if self._handover_to is not None:
            self.hand_over()

    def action_confirm_layout(self) -> None:
        board = self.mono_board
        view = self.view
        if board.draft is None or view is None or view.grid is None:
            return
        if self._first_digit is not None:
            # Enter (or Space) after a first digit: it stays a one-digit region number, and the cursor moves on.
            self._first_digit = None
            board.move_on()
            self.message = ""
            self.update_panel()
            return
        check = check_draft(board.draft, view.grid)
        if not check.complete:
            self.say(check.message.removeprefix("Layout: ") + " (R lays out at random)")
            return
        self._typed_layout = None
        self.submit(board.draft_text())

    def action_put(self, digit: int) -> None:
        """A digit of a region number: boards of 10+ regions take two when the first can start one."""
        view = self.view
        if view is None or view.grid is None or not self.laying_out():
            return
        regions = view.grid.regions
        board = self.mono_board
        first = self._first_digit
        self._first_digit = None
        if first is not None and first[1] == board.cursor:
            number = first[0] * 10 + digit
            if number > regions:
                self.say(f"There is no region {number}: this board has regions 1-{regions} (labels 1-{label(regions)})")
                return
            self.edited()
            board.set_draft_value(number)
            self.message = ""
            self.update_panel()
            return
        if digit == 0 or digit > regions:
            self.say(f"There is no region {digit}: this board has regions 1-{regions} (labels 1-{label(regions)})")
            return
        self.edited()
        if digit * 10 <= regions:
            # 1 may be region 1 or the start of 10-19: it goes in now, and a second digit makes it longer.
            board.set_draft_value(digit, advance=False)
            self._first_digit = (digit, board.cursor or 0)
            last = min(regions, digit * 10 + 9)
            self.say(
                f"{digit}_  a second digit for regions {digit}0-{last} "
                f"(labels {label(digit * 10)}-{label(last)}); Enter or Space keeps {digit}",
                error=False,
            )
            return
        board.set_draft_value(digit)
        self.message = ""
        self.update_panel()

    def edited(self) -> None:
        """The player changes the layout by hand: a previewed random layout becomes theirs to edit."""
        if self._typed_layout is not None:
            self._typed_layout = None
            self.refresh_bindings()

    def action_step_value(self, delta: int) -> None:
        self._first_digit = None
        self.edited()
        self.mono_board.step_draft_value(delta)
        self.message = ""
        self.update_panel()

    def action_clear_value(self, back: bool) -> None:
        self._first_digit = None
        self.edited()
        self.mono_board.erase_draft_value(back)
        self.message = ""
        self.update_panel()

    def action_random_layout(self) -> None:
        """R: a random layout to look at first; R again rolls another, Enter confirms, Escape goes back."""
        board = self.mono_board
        view = self.view
        if board.draft is None or view is None or view.grid is None:
            return
        self._first_digit = None
        if self._typed_layout is None:
            self._typed_layout = list(board.draft)
            self.refresh_bindings()
        board.draft = list(random_layout(view.grid.regions, self.layout_rng))
        board.redraw()
        self.say("A random layout: R another one, Enter confirms it, Esc back to yours", error=False)

    def action_layout_back(self) -> None:
        board = self.mono_board
        if self._typed_layout is None or board.draft is None:
            return
        board.draft = self._typed_layout
        self._typed_layout = None
        self._first_digit = None
        board.redraw()
        self.refresh_bindings()
        self.say("Back to the layout you were typing", error=False)

    def undo_offered(self) -> bool:
        return False  # see action_undo

    def action_undo(self) -> None:
        # A probe's value has been seen: taking it back would let a player peek.
        self.say("Probes and layouts cannot be undone in Mono: their values are already seen")

    def action_next_board(self, step: int) -> None:
        self.message = ""  # what was said was about the board the cursor leaves
        self.mono_board.next_board(step)
        self.update_panel()
        self.request_beliefs()
        self.call_after_refresh(self.scroll_to_cursor)

    def action_cursor(self, direction: str) -> None:
        self._first_digit = None  # the digit typed stays a one-digit number
        super().action_cursor(direction)
        self.request_beliefs()  # the cursor may have gone onto another board

    def on_cursor_moved(self, _message: CursorMoved) -> None:
        # GameScreen's handler runs too (Textual calls every class's): it redraws the panel.
        self.request_beliefs()  # the click may have put the cursor on another board

    def action_end_turn(self) -> None:
        view = self.view
        if view is not None and view.open_turn is None and view.viewer in view.to_move and view.phase == "probe":
            self.say("Probe at least one position first (Enter), or r for random probes")
            return
        self.submit("end")

    def action_random(self) -> None:
        self.submit("random")

    # -- panel -----------------------------------------------------------------

    def status_line(self) -> str:
        view = self.view
        if not self.table.thinking and view is not None and view.open_turn is not None:
            # The turn's values and score are in the legend just below.
            ending = ", the last round" if view.final_round else ""
            return f"round {view.round}{ending}: {view.players[view.open_turn.seat]} probing"
        return super().status_line()

    def footer_state(self) -> tuple[object, ...]:
        # The footer offers the keys of the phase at hand.
        view = self.view
        return (*super().footer_state(), self.laying_out(), view.phase if view is not None else None)

    def update_panel(self) -> None:
        super().update_panel()
        view = self.view
        if view is None:
            return
        board = self.mono_board
        if self.laying_out() and not self.message and view.grid is not None:
            check = check_draft(board.draft or [], view.grid)
            look = "bold red" if check.error else ("bold green" if check.complete else "")
            update_if_changed(self.found("#message", Static), Text(check.message, style=look))
        if self.overlay and self._deducing is not None:
            update_if_changed(self.query_one("#cursor-line", Static), f"{board.cursor_detail()}  (deducing...)")

    # -- privacy ---------------------------------------------------------------

    def refresh_view(self) -> None:
        super().refresh_view()
        if self.table.over and self._handover_to is None and not self._privacy_open:
            # Nothing is secret once the game is over: every board, as the replay shows it.
            self.view = self.view_of(ALL)
            self.board.show(self.view)
            self.update_panel()
        self.request_beliefs()

    def hand_over(self) -> None:
        # The overlay belongs to the player who asked for it.
        self.overlay = False
        self.mono_board.set_beliefs(None)
        self._typed_layout = None  # the board forgets the draft behind the privacy screen, and so does the preview
        self._first_digit = None
        super().hand_over()

    def _privacy_done(self, result: None) -> None:
        super()._privacy_done(result)
        self.refresh_bindings()

    # -- the deduction overlay -------------------------------------------------

    def hints_forbidden(self) -> bool:
        return bool(self.table.options.get("no_hints"))

    def action_deduce(self) -> None:
        view = self.view
        if view is None or self._privacy_open or self._handover_to is not None:
            return
        if self.hints_forbidden():
            self.say("This game was made with --no-hints: no deduction overlay")
            return
        if view.over:
            self.say("The game is over: every board is shown")
            return
        if view.phase == "layout" or view.viewer is None:
            self.say("The deduction overlay is for an opponent's board once probing starts")
            return
        self.overlay = not self.overlay
        if not self.overlay:
            self._deducing = None
            self.mono_board.set_beliefs(None)
            self.found("#panel-info", PanelTexts).release_height("legend")  # the candidates' lines go with it
            self.say("Deduction overlay off", error=False)
            return
        self.say("Deduction overlay on: guesses are marked ?", error=False)
        self.request_beliefs()

    def belief_key(self) -> BeliefKey | None:
        """What the overlay of the board under the cursor depends on: it is computed again only when that changes."""
        view, board = self.view, self.mono_board
        seat = board.board_seat
        if view is None or seat is None or seat == view.viewer or view.viewer is None or not view.boards[seat]:
            return None
        return (view.viewer, seat, view.boards[seat])

    def request_beliefs(self) -> None:
        """Show the overlay for the board under the cursor, computing it in a thread if it is new."""
        if not self.overlay or self._privacy_open or self._handover_to is not None:
            return
        key = self.belief_key()
        if key is None or self.view is None:
            self.mono_board.set_beliefs(None)
            return
        if key in self._beliefs:
            self._deducing = None
            self.mono_board.set_beliefs((key[1], self._beliefs[key]))
            self.update_panel()
            return
        self._deducing = key
        shown = self.mono_board.beliefs
        if shown is not None and shown[0] != key[1]:
            # Another board's guesses: gone.  This board's stay until the new ones come (cells
            # uncovered since show their values, never a guess).
            self.mono_board.set_beliefs(None)
        self.update_panel()
        self.deduce(key, self.view)

    @work(thread=True, exclusive=True, group="deduce")
    def deduce(self, key: BeliefKey, view: MonoView) -> None:
        try:
            beliefs = cell_candidates(view, key[1], samples=BELIEF_SAMPLES, seed=0)
        except Exception as error:  # the overlay is a help: its failure must not end the game
            self._report(self._deduce_failed, key, str(error))
            return
        if not get_current_worker().is_cancelled:
            self._report(self._deduced, key, beliefs)

    def _deduced(self, key: BeliefKey, beliefs: list[Candidates]) -> None:
        self._beliefs[key] = beliefs
        if key == self._deducing:
            self._deducing = None
        if self.overlay and key == self.belief_key() and not self._privacy_open and self._handover_to is None:
            self.mono_board.set_beliefs((key[1], beliefs))
            self.update_panel()

    def _deduce_failed(self, key: BeliefKey, error: str) -> None:
        if key == self._deducing:
            self._deducing = None
            self.overlay = False
            self.say(f"The deduction overlay failed: {error}")
