"""Mono's screen: lay out a board, then probe opponents' boards one position at a time."""

from __future__ import annotations

from textual import events
from textual.binding import Binding

from ..rules import RuleError, View
from ..rules.mono import check_layout
from ..widgets.mono_board import MonoBoard
from .game import GameScreen


class MonoScreen(GameScreen):
    board_class = MonoBoard
    hides_information = True

    BINDINGS = [
        Binding("tab", "next_board", "Next board"),
        Binding("e", "end_turn", "End turn"),
        Binding("r", "random", "Random"),
        Binding("R", "random_layout", "Random layout", show=False),
        Binding("plus,equals_sign", "step_value(1)", "Value +", show=False),
        Binding("minus", "step_value(-1)", "Value -", show=False),
        Binding("backspace,delete", "clear_value", "Clear", show=False),
    ]

    @property
    def mono_board(self) -> MonoBoard:
        return self.query_one("#board", MonoBoard)

    def on_resize(self) -> None:
        self.mono_board.room = max(30, self.app.size.width - 34)
        super().on_resize()

    def laying_out(self) -> bool:
        return self.mono_board.draft is not None

    def move_at_cursor(self, view: View) -> str | None:
        board = self.mono_board
        if self.laying_out():
            text = board.draft_text()
            if text is None:
                missing = board.draft.count(None) if board.draft else 0
                self.say(f"{missing} cells are still empty: type a region label into each (or R for a random layout)")
                return None
            return text
        if board.board_seat == view.viewer:
            self.say("Move to an opponent's board (Tab) to probe it")
            return None
        return f"{board.cursor_name()},hold"

    def update_panel(self) -> None:
        super().update_panel()
        if self.laying_out() and not self.message:
            self.query_one("#message").update(self.draft_problem())

    def draft_problem(self) -> str:
        board = self.mono_board
        draft = board.draft or []
        missing = draft.count(None)
        if missing:
            return f"Layout: {missing} cells to fill. Digits or +/- set a cell; R lays out at random."
        try:
            check_layout(tuple(draft), self.view.grid.regions)  # type: ignore[union-attr]
        except RuleError as problem:
            return f"Layout: {problem}"
        return "Layout is valid: Enter to confirm it"

    # -- keys ----------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        if self.laying_out() and event.character and event.character in "123456789":
            value = int(event.character)
            if value <= self.view.grid.regions:  # type: ignore[union-attr]
                self.mono_board.set_draft_value(value)
                self.message = ""
                self.update_panel()
                event.stop()

    def action_step_value(self, delta: int) -> None:
        self.mono_board.step_draft_value(delta)
        self.message = ""
        self.update_panel()

    def action_clear_value(self) -> None:
        self.mono_board.set_draft_value(None, advance=False)
        self.update_panel()

    def action_undo(self) -> None:
        # A probe's value has been seen: taking it back would let a player peek.
        self.say("Probes and layouts cannot be undone in Mono: their values are already seen")

    def action_next_board(self) -> None:
        self.mono_board.next_board()

    def action_end_turn(self) -> None:
        self.submit("end")

    def action_random(self) -> None:
        self.submit("random")

    def action_random_layout(self) -> None:
        if self.laying_out():
            self.submit("random")
