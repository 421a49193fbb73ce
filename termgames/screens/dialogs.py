"""Small modal screens shared by every game: help, quit, privacy, go to move."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Markdown, Static

from ..widgets.palette import use_ascii_scrollbars


def plain_markdown(text: str) -> str:
    """Markdown as plain ASCII text for ``--ascii``: paragraphs joined so they wrap, no emphasis marks.

    Tables stay as they are (pipes read well); headings are underlined;
    bullets become dashes.
    """
    out: list[str] = []
    joinable = False  # whether the next plain line continues the last one
    for raw in text.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped:
            out.append("")
            joinable = False
            continue
        if stripped.startswith("#"):
            title = stripped.lstrip("#").strip()
            if out and out[-1]:
                out.append("")
            out += [title, ("=" if stripped.startswith("# ") else "-") * len(title)]
            joinable = False
            continue
        if stripped.startswith("|"):
            out.append(stripped)
            joinable = False
            continue
        if stripped.startswith(("* ", "- ")):
            out.append("- " + stripped[2:])
            joinable = True
            continue
        if re.match(r"\d+\. ", stripped):
            out.append(stripped)
            joinable = True
            continue
        if joinable:
            out[-1] += " " + stripped
        else:
            out.append(stripped)
            joinable = True
    text = "\n".join(out)
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text, flags=re.S)
    text = re.sub(r"(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])", r"\1", text)
    return text.replace("`", "")


def ascii_only(screen: ModalScreen) -> bool:
    """Whether the app draws in plain ASCII (``termgames --ascii``)."""
    return bool(getattr(screen.app, "ascii", False))


class HelpScreen(ModalScreen[None]):
    """The game's rules, then the keys (``keys``: Markdown written from the screen's bindings, ``screens/keys.py``)."""

    BINDINGS = [
        Binding("escape,q,question_mark", "close", "Close"),
        Binding("j,down", "scroll(1)", "Scroll", show=False),
        Binding("k,up", "scroll(-1)", "Scroll", show=False),
    ]

    #: Below this many columns or lines the help takes the whole terminal, its margins and padding given to the
    #: text: at 50x20 they took five lines of eighteen, and the hint wrapped.
    SMALL = (80, 24)

    SCOPED_CSS = False  # its rules name the screen's own classes (HelpScreen.-small)
    DEFAULT_CSS = """
    /* The title starts the text: the blank lines above it were the header's own margin. */
    HelpScreen Markdown > MarkdownH1 { margin: 0 0 1 0; }
    HelpScreen.-small #help-scroll > Markdown { padding: 0 1 0 0; }
    HelpScreen.-small #help-scroll > Markdown > MarkdownHeader { margin-top: 1; }
    HelpScreen.-small #help-scroll > Markdown > MarkdownH1 { margin: 0 0 1 0; }
    """

    def __init__(self, rules: str, keys: str = "") -> None:
        super().__init__()
        self.text = rules + ("\n\n## Keys\n\n" + keys if keys else "")

    def compose(self) -> ComposeResult:
        plain = ascii_only(self)
        with Vertical(id="help-box", classes="dialog"):
            with VerticalScroll(id="help-scroll"):
                if plain:
                    # Markdown draws tables and bullets with box characters: plain text instead.
                    yield Static(plain_markdown(self.text), markup=False, id="help-text")
                else:
                    yield Markdown(self.text)
            separator = "  -  " if plain else "  ·  "
            yield Static(f"Esc, q or ? close{separator}arrows/j/k scroll", classes="dialog-hint")

    def on_mount(self) -> None:
        if ascii_only(self):
            use_ascii_scrollbars(self)
        self.fit_size()

    def on_resize(self) -> None:
        self.fit_size()

    def fit_size(self) -> None:
        width, height = self.app.size
        small = width < self.SMALL[0] or height < self.SMALL[1]
        self.set_class(small, "-small")
        # Inline: the app's stylesheet sizes every .dialog, and it comes before a widget's own rules.
        box = self.query_one("#help-box").styles
        box.width, box.max_width, box.height = ("100%", "100%", "100%") if small else (None, None, None)
        box.padding = (0, 1) if small else None  # None: the stylesheet's again

    def action_scroll(self, lines: int) -> None:
        self.query_one("#help-scroll", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question; y says yes, n or Esc say no (Enter does nothing: a stray Enter must not quit)."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small-dialog"):
            yield Static(self.question, classes="dialog-title", markup=False)
            if self.detail:
                yield Static(self.detail, classes="dialog-text", markup=False)
            yield Static("y: yes    n: no", classes="dialog-hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def leave_screen(screen: Screen[Any], question: str | None) -> None:
    """Back to the screen below ``screen``; where it is the app's only one, leaving the app, once ``question`` is
    answered yes (a watched match opened from the command line has nothing under it), at once without one."""
    if len(screen.app.screen_stack) > 2:
        screen.app.pop_screen()
        return
    if question is None:
        screen.app.exit()
        return

    def answer(yes: bool | None) -> None:
        if yes:
            screen.app.exit()

    screen.app.push_screen(ConfirmScreen(question), answer)


class PrivacyScreen(ModalScreen[None]):
    """Hides every board while the keyboard passes between players of a hidden-information game.

    Only Enter passes it: Space, the other act key, pressed a moment too late
    by the player who just moved, must not show the next player's board.
    ``q`` and Esc ask to quit (``ask_quit``, the game screen's question), the
    boards staying hidden meanwhile.
    """

    BINDINGS = [
        Binding("enter", "ready", "I am NAME"),
        Binding("q,escape", "quit_game", "Quit"),
    ]

    def __init__(self, name: str, result: str = "", ask_quit: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.player = name
        self.result = result
        self.ask_quit = ask_quit

    def action_quit_game(self) -> None:
        if self.ask_quit is not None:
            self.ask_quit()

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small-dialog privacy"):
            if self.result:
                yield Static(self.result, classes="dialog-text", markup=False)
            yield Static(f"Pass the keyboard to {self.player}", classes="dialog-title", markup=False)
            yield Static(
                f"{self.player}: press Enter when nobody else is looking (q quits)", classes="dialog-hint", markup=False
            )

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
