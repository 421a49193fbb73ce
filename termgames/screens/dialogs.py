"""Small modal screens shared by every game: help, quit, privacy, go to move."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Markdown, Static

COMMON_KEYS = """\
| key | action |
|---|---|
| arrows, h j k l | move the cursor |
| Enter, Space | act (claim, probe, place, confirm) |
| u | undo (against the AI: your last move and its replies) |
| c | cycle colours: default, colour-blind safe, monochrome |
| ? | this help |
| q | quit (asks first; the game is saved after every move) |
"""


class HelpScreen(ModalScreen[None]):
    """The game's rules, then the keys."""

    BINDINGS = [
        Binding("escape,q,question_mark", "close", "Close"),
        Binding("j,down", "scroll(1)", "Scroll", show=False),
        Binding("k,up", "scroll(-1)", "Scroll", show=False),
    ]

    def __init__(self, rules: str, keys: str = "") -> None:
        super().__init__()
        text = rules + "\n\n## Keys\n\n" + COMMON_KEYS
        if keys:
            text += "\n### This game\n\n" + keys
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box", classes="dialog"):
            with VerticalScroll(id="help-scroll"):
                yield Markdown(self.text)
            yield Static("Esc, q or ? to close  ·  arrows/j/k scroll", classes="dialog-hint")

    def action_scroll(self, lines: int) -> None:
        self.query_one("#help-scroll", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question; y/Enter say yes, n/Esc say no."""

    BINDINGS = [
        Binding("y,enter", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small-dialog"):
            yield Static(self.question, classes="dialog-title")
            if self.detail:
                yield Static(self.detail, classes="dialog-text")
            yield Static("y: yes    n: no", classes="dialog-hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class PrivacyScreen(ModalScreen[None]):
    """Hides every board while the keyboard passes between players of a hidden-information game."""

    BINDINGS = [Binding("enter,space", "ready", "I am NAME")]

    def __init__(self, name: str, result: str = "") -> None:
        super().__init__()
        self.player = name
        self.result = result

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small-dialog privacy"):
            if self.result:
                yield Static(self.result, classes="dialog-text")
            yield Static(f"Pass the keyboard to {self.player}", classes="dialog-title")
            yield Static(f"{self.player}: press Enter when nobody else is looking", classes="dialog-hint")

    def action_ready(self) -> None:
        self.dismiss(None)


class GoToMoveScreen(ModalScreen[int | None]):
    """Asks for a move number."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, last: int) -> None:
        super().__init__()
        self.last = last

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small-dialog"):
            yield Static(f"Go to move (0-{self.last})", classes="dialog-title")
            yield Input(placeholder="move number", type="integer", id="goto-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        try:
            number = int(event.value)
        except ValueError:
            self.dismiss(None)
            return
        self.dismiss(max(0, min(number, self.last)))

    def action_cancel(self) -> None:
        self.dismiss(None)
