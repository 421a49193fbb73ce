"""A game screen at a shared (SSH) table: who is here, a chat line, undo by request, leave.

Any game's screen becomes a shared one by mixing :class:`SharedGameMixin`
in front of it (:func:`shared_screen_class`), so every game plays over SSH
with its own screen unchanged.  The table is a
:class:`~termgames.server.shared.SharedTable`; news from the hub arrives as
the game screen's table news (:meth:`table_event`), which this adds to:
seats taken, who is here, chat, undo requests.  AI seats are played by the
hub; their "thinking" news shows here as at one keyboard.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ...rules import RuleError
from ...rules.base import possessive
from ...screens.dialogs import ConfirmScreen
from ...screens.game import GameScreen, TableNews, title_line
from ...screens.keys import bound_keys, key_name
from ...untrusted import fold_name
from ...widgets.footer import Footer

if TYPE_CHECKING:
    from textual import getters

    from ..shared import SharedTable
    from .host import ServeHost


class SharedGameMixin(GameScreen[Any]):
    """Put in front of a :class:`GameScreen` subclass; ``self.table`` is a SharedTable.

    A GameScreen itself, so what it adds may call the game screen's own
    methods; in ``SharedMonoScreen(SharedGameMixin, MonoScreen)`` the game's
    screen comes next in the method order, before GameScreen.
    """

    DEFAULT_CSS = """
    #presence { height: 1; padding: 0 1; background: $boost; }
    #chat-log { height: auto; max-height: 3; padding: 0 1; color: $text-muted; }
    #chat-input { display: none; margin: 0 1; }
    #chat-input.open { display: block; }
    """

    #: The key that opens the chat line: ``t``, unless the game's screen has a use for it
    #: (:func:`shared_screen_class` binds it; a binding here would hide the game's own ``t``).
    CHAT_KEY: ClassVar[str] = "t"
    #: The key that mutes (or unmutes) a player's chat lines at this screen, bound the same way.
    MUTE_KEY: ClassVar[str] = "M"

    table: SharedTable
    if TYPE_CHECKING:
        app = getters.app(ServeHost)  # shared tables are only ever played in a server app

    def minimum_size(self) -> tuple[int, int]:
        """The game's own minimum, and the two lines the table adds: who is here, the chat."""
        width, height = super().minimum_size()
        return width, height + 2

    def on_mount(self) -> None:
        # Textual calls GameScreen.on_mount too (handlers run for every class of the MRO).
        footer = self.query_one(Footer)
        self.mount(
            Static("", id="presence", markup=False),
            Static("", id="chat-log", markup=False),
            Input(placeholder="say something; Enter sends, Esc closes", id="chat-input", max_length=200, compact=True),
            before=footer,
        )
        self.call_after_refresh(self._after_mount)

    def _after_mount(self) -> None:
        self.update_presence()
        self.update_chat()
        if self.table.undo_waiting_for_me():
            self.ask_undo("Another player asks to take back their last move")
        if self.table.seat is None:
            self.call_after_refresh(self._watch_with_others)

    def _watch_with_others(self) -> None:
        # Drawn: other spectators of the table whose terminals look alike may now be drawn with it.  Not if
        # a key was quicker and put another screen over this one (what it shows is this player's own).
        if self.is_current:
            self.app.watching(self.table.table_id)

    def on_screen_suspend(self) -> None:
        self.app.watching(None)  # another screen over this one: not what the others watch

    def on_unmount(self) -> None:
        self.app.watching(None)

    def update_clocks(self) -> None:
        if self.app.following:
            return  # another app draws this terminal, clocks included; this one catches up when it stops
        super().update_clocks()

    def follow_drawing(self, following: bool) -> None:
        """Another spectator's app draws this terminal from now on, or this screen draws itself again."""
        if following:
            self._spinner.pause()
            if self._clock_timer is not None:
                self._clock_timer.stop()
                self._clock_timer = None
            return
        # Its terminal shows another app's frames: catch up with the table and draw every line.
        self._drawn_generation = -1
        if self.table.thinking:
            self._spinner.resume()
        if not self._privacy_open:
            self.refresh_view()
        self.update_presence()
        self.update_chat()
        self.refresh()

    # -- news from the table ---------------------------------------------------

    def _table_news(self, kind: str, text: str) -> None:
        # Told in whoever's context made the news (another app's): not that app's message (see post_from_outside).
        self.post_message(TableNews(kind, text).set_sender(self))

    def table_event(self, kind: str, text: str) -> None:
        if not self.is_attached or self.app.following:
            return  # while following, another app draws the news here; this one catches up when it stops
        if kind == "seats":
            title = title_line(self.table.game.title, self.table.seats, self.ascii_only)
            self.query_one("#game-title", Static).update(title)
            if not self._privacy_open:
                self.refresh_view()
            self.update_presence()
            self.say(text, error=False)
        elif kind == "moved":
            super().table_event(kind, text)
            self.update_presence()
        elif kind == "presence":
            self.update_presence()
        elif kind == "chat":
            self.update_chat()
        elif kind == "undo-request":
            if self.table.undo_waiting_for_me():
                self.ask_undo(text)
        else:
            super().table_event(kind, text)
            if kind == "notice":
                self.update_presence()  # "Rated: ..." comes after the last move: the names show what it did

    def update_presence(self) -> None:
        try:
            line = self.query_one("#presence", Static)
        except Exception:
            return  # not mounted yet
        ascii_only = self.ascii_only
        marks = {
            "here": "*" if ascii_only else "●",
            "away": "-" if ascii_only else "○",
            "open": ".",
            "ai": "+" if ascii_only else "⚙",
        }
        parts = []
        for seat, (name, state) in enumerate(self.table.presence()):
            you = " (you)" if seat == self.table.seat else ""
            label = {"here": "", "away": " away", "open": " open", "ai": " AI"}[state]
            note = self.table.rating_note(name) if state in ("here", "away") else ""
            shown = f"{name} {note}" if note else name
            parts.append((f"{marks[state]} {shown}{you}{label}", "bold" if state == "here" else "dim"))
        watching = self.table.spectators()
        pieces: list[str | tuple[str, str]] = []
        for text, style in parts:
            if pieces:
                pieces.append("   ")
            pieces.append((text, style))
        pieces.append(("   rated" if self.table.rated else "   casual", "dim"))
        if watching:
            pieces.append(f"   {len(watching)} watching")
        if self.table.seat is None:
            pieces.append(("   you are watching", "italic"))
        presence = Text.assemble(*pieces)
        # Every move reaches here: an unchanged line is not redrawn, and the line's height is fixed
        # (one line, in DEFAULT_CSS), so a new one needs no layout of the screen.
        if presence.plain != getattr(self, "_presence_shown", None):
            self._presence_shown = presence.plain
            line.update(presence, layout=False)

    def update_chat(self) -> None:
        try:
            log = self.query_one("#chat-log", Static)
        except Exception:
            return
        muted = self.app.muted
        lines = self.table.chat_lines(muted)[-2:]
        chat, mute = key_name(self.CHAT_KEY), key_name(self.MUTE_KEY)
        text = "\n".join(lines) if lines else f"{chat}: chat with the table   {mute}: mute a player"
        if muted:
            text += f"\n({len(muted)} muted at your screen; {mute} to unmute)"
        if text != getattr(self, "_chat_shown", None):
            self._chat_shown = text
            log.update(text)

    # -- chat ----------------------------------------------------------------------

    def action_chat(self) -> None:
        box = self.query_one("#chat-input", Input)
        box.add_class("open")
        box.focus()

    @on(Input.Submitted, "#chat-input")
    def chat_sent(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            self.table.say(event.value)
        except RuleError as error:  # chatting too fast: the line is kept in the box to send again later
            self.say(str(error))
            return
        self._close_chat()

    def action_mute(self) -> None:
        people = self.table.people()
        if not people:
            self.say("Nobody else is at this table to mute", error=False)
            return
        self.app.push_screen(MuteScreen(people, self.app.muted), self._mute_chosen)

    def _mute_chosen(self, name: str | None) -> None:
        if not name:
            return
        folded = fold_name(name)
        if folded in self.app.muted:
            self.app.muted.discard(folded)
            self.say(f"{possessive(name, addressed=True)} chat lines show again", error=False)
        else:
            self.app.muted.add(folded)
            self.say(f"{possessive(name, addressed=True)} chat lines are hidden at your screen", error=False)
        self.update_chat()

    def key_escape(self) -> None:
        self._close_chat()

    def _close_chat(self) -> None:
        box = self.query_one("#chat-input", Input)
        box.value = ""
        box.remove_class("open")
        self.set_focus(None)

    # -- the footer, and the end of the game ---------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A spectator has no undo to ask for; at the end a seated player may ask for a rematch (a new table at
        the server, not a new game at this keyboard)."""
        if action == "undo" and self.table.seat is None:
            return False
        if action == "rematch":
            return self._game_over_shown and self.table.seat is not None
        if action == "new_game":
            return False
        return super().check_action(action, parameters)

    def game_over_text(self) -> str | None:
        """At a shared table's end: where its record is (``record TABLE`` prints it for ``termgames replay``) and
        the keys that lead on: a rematch for a seated player, back to the lobby for everyone."""
        view = self.view
        if view is None or not view.over or self._privacy_open:
            return None
        number = self.table.live.id
        ssh = self.table.live.hub.address.command(self.table.player)
        lines = [f"Record: {ssh} record {number} > table-{number}.json (termgames replay plays it)"]
        keys = []
        if self.table.seat is not None:
            keys.append(f"{key_name('ctrl+r')}: {self.rematch_words(self.table.live.match)}")
        keys.append("q: back to the lobby")
        return "\n".join(lines) + "\n" + self.keys_lines(keys)

    def action_rematch(self) -> None:
        if not self._game_over_shown or self.table.seat is None:
            return
        try:
            self.app.rematch_table(self.table)
        except RuleError as error:  # a limit, a seat no longer allowed at a rated table
            self.say(str(error))

    # -- undo and leaving --------------------------------------------------------------

    def ask_undo(self, question: str) -> None:
        self.app.push_screen(
            ConfirmScreen(question, "Accept the undo? Every player at the table must accept."),
            self._undo_answered,
        )

    def _undo_answered(self, yes: bool | None) -> None:
        self.table.answer_undo(bool(yes))

    def action_quit_game(self) -> None:
        if self.view is not None and self.view.over:
            self.app.leave_table(self.table)  # nothing left to come back to: no question
            return
        detail = "The game goes on: come back to it from the lobby." if self.table.seat is not None else ""
        self.app.push_screen(ConfirmScreen("Leave the table?", detail), self._leave_answer)

    def _leave_answer(self, yes: bool | None) -> None:
        if yes:
            self.app.leave_table(self.table)


class MuteScreen(ModalScreen[str | None]):
    """Whose chat lines to hide at this screen (or show again): Enter on a name, Esc to leave it."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, people: list[str], muted: set[str]) -> None:
        super().__init__()
        self.people = people
        self.muted = muted

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small-dialog"):
            yield Static("Mute whose chat lines at your screen? (Enter again unmutes)", classes="dialog-title")
            yield OptionList(
                *(
                    Option(f"{name}  (muted)" if fold_name(name) in self.muted else name, id=str(number))
                    for number, name in enumerate(self.people)
                ),
                id="mute-choice",
            )
            yield Static("Enter: mute or unmute    Esc: cancel", classes="dialog-hint")

    @on(OptionList.OptionSelected, "#mute-choice")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.people[int(event.option.id or 0)])

    def action_cancel(self) -> None:
        self.dismiss(None)


#: Keys for the chat line, and for muting a player, the first the game's screen leaves free.
CHAT_KEYS = ("t", "slash")
MUTE_KEYS = ("M", "exclamation_mark")


@cache
def shared_screen_class(screen_class: type[GameScreen[Any]]) -> type[GameScreen[Any]]:
    """``screen_class`` with the shared table's additions in front of it, the chat and the mute on keys the game
    leaves free."""
    taken = bound_keys(screen_class)
    chat_key = next(key for key in CHAT_KEYS if key not in taken)
    mute_key = next(key for key in MUTE_KEYS if key not in taken)
    # Off the footer (the chat line under the board names the keys): the game's keys fill it at 80 columns.
    bindings = [
        Binding(chat_key, "chat", "Chat", key_display=key_name(chat_key), show=False, tooltip="chat with the table"),
        Binding(mute_key, "mute", "Mute", key_display=key_name(mute_key), show=False,
                tooltip="mute a player's chat lines at your screen (again: unmute)"),
    ]
    return type(
        f"Shared{screen_class.__name__}",
        (SharedGameMixin, screen_class),
        {"BINDINGS": bindings, "CHAT_KEY": chat_key, "MUTE_KEY": mute_key, "__module__": __name__},
    )
