"""The termgames Textual application: screens for starting, playing and replaying games."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events

from .launch import Launch, PlayedRecord
from .match import Match
from .preferences import Preferences, check_pace, load_preferences, next_pace, save_preferences
from .screens.base import ScreenHost
from .table import LocalTable


class TermgamesApp(ScreenHost):
    """The termgames app: the start screen, setup, play and replays at this keyboard (the screens call it as
    their :class:`~termgames.screens.base.ScreenHost`)."""

    CSS_PATH = "app.tcss"
    TITLE = "termgames"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        *,
        saves_dir: Path,
        launch: Launch | None = None,
        ascii: bool = False,
        palette: str = "default",
        preferences_path: Path | None = None,
        pace: str | None = None,
    ) -> None:
        """``preferences_path``: the player's preferences file (None: defaults, and nothing is kept);
        ``pace``: the computer players' pace for this session (None: the preferences' pace)."""
        super().__init__()
        self.saves_dir = Path(saves_dir)
        self.launch = launch or Launch("start")
        self.ascii = ascii
        self.palette = palette
        self.preferences_path = preferences_path
        self.preferences, self._preferences_warning = (
            load_preferences(preferences_path) if preferences_path is not None else (Preferences(), "")
        )
        self.pace = check_pace(pace) if pace else self.preferences.pace
        #: Every game opened at this keyboard in this session, in order: their records are told at exit.
        self.local_tables: list[LocalTable] = []

    def on_mount(self, _event: events.Mount) -> None:
        if self.ascii:
            self.add_class("ascii")
        if self._preferences_warning:
            self.notify(self._preferences_warning, severity="warning", timeout=10, markup=False)
        launch = self.launch
        if launch.kind == "play" and launch.match is not None:
            self.open_game(launch.match, launch.save_path)
        elif launch.kind == "replay" and launch.match is not None:
            self.open_replay(launch.match, launch.source)
        elif launch.kind == "setup" and launch.game:
            self.open_setup(launch.game, launch.options, launch.clock)
        else:
            self.open_start()

    # -- what the screens ask for ------------------------------------------

    def open_game(self, match: Match, save_path: Path | None, replace: bool = False) -> None:
        """Play ``match`` at this keyboard, saved at ``save_path``; ``replace``: instead of the screen on top."""
        from .screens import game_screen_class

        try:
            screen_class = game_screen_class(match.game.name)
        except LookupError as error:
            self.notify(str(error), severity="error")
            return
        if save_path is not None:
            save_path = self._own_record(save_path, match)
        table = LocalTable(match, save_path, pace=self.pace)
        self.local_tables.append(table)
        screen = screen_class(table, ascii_only=self.ascii, palette=self.palette)
        if replace:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def _own_record(self, path: Path, match: Match) -> Path | None:
        """Where the game loaded from ``path`` is saved: there, or in a copy in this player's saves when it is not
        theirs to write (a sample, a read-only record, another user's: ``records.played_from``)."""
        from .records import RecordError, played_from
        from .screens.game import home_short
        from .untrusted import printable

        try:
            own, why = played_from(path, self.saves_dir, match)
        except RecordError as error:
            self.notify(f"Not saved: {error}", severity="error", markup=False)
            return None
        if why:
            self.notify(f"Playing a copy, saved as {printable(home_short(own))}: the record opened is {why}",
                        timeout=8, markup=False)
        return own

    def rematch(self, match: Match) -> None:
        """A rematch of the finished ``match`` (``Match.rematch``) in place of its screen, saved beside it."""
        from .records import new_save_path

        again = match.rematch()
        self.open_game(again, new_save_path(self.saves_dir, again), replace=True)

    def open_new_game(self, match: Match) -> None:
        """The setup of ``match``'s game filled in with its options and players, in place of the screens above
        the start screen (under it, the start screen: Escape goes back there)."""
        from .screens.start import SetupScreen, StartScreen

        setup = SetupScreen(match.game.name, match.options, seats=match.seats, clock=str(match.clock or ""))
        while len(self.screen_stack) > 2 and not isinstance(self.screen, StartScreen):
            self.pop_screen()
        if isinstance(self.screen, StartScreen):
            self.push_screen(setup)
        else:
            self.switch_screen(setup)

    def start_screen_under(self) -> bool:
        from .screens.start import StartScreen

        return any(isinstance(screen, StartScreen) for screen in self.screen_stack[:-1])

    def back_to_start(self) -> None:
        from .screens.start import StartScreen

        if not self.start_screen_under():
            return
        while not isinstance(self.screen, StartScreen):
            self.pop_screen()

    # -- the player's pace and what is told at exit --------------------------------

    def set_pace(self, pace: str) -> None:
        """The computer players' pace, for every game of this session and kept in the preferences."""
        self.pace = check_pace(pace)
        for table in self.local_tables:
            table.set_pace(self.pace)
        if self.preferences_path is None:
            return
        self.preferences = self.preferences.with_pace(self.pace)
        try:
            save_preferences(self.preferences_path, self.preferences)
        except OSError as error:
            self.notify(f"The pace is not kept for next time: {error}", severity="warning", markup=False)

    def cycle_pace(self) -> str:
        """The next pace (instant, normal, slow, round again); the pace now."""
        self.set_pace(next_pace(self.pace))
        return self.pace

    def played_records(self) -> list[PlayedRecord]:
        """The records of the games played in this session, each once, as they are now (a game that never had a
        move has none)."""
        found: dict[Path, PlayedRecord] = {}
        for table in self.local_tables:
            path = table.save_path  # where it is now: a save may have moved it beside a record changed on disk
            if path is not None and path.exists():
                found.pop(path, None)
                found[path] = PlayedRecord(path, table.over, table.game.title)
        return list(found.values())

    def open_replay(self, match: Match, source: str = "") -> None:
        from .screens import replay_screen_factory

        try:
            replay_screen = replay_screen_factory(match.game.name)
        except LookupError as error:
            self.notify(str(error), severity="error")
            return
        self.push_screen(replay_screen(match, source, ascii_only=self.ascii, palette=self.palette))

    def open_setup(self, game: str, options: dict[str, Any] | None = None, clock: str = "") -> None:
        from .screens.start import SetupScreen

        self.push_screen(SetupScreen(game, options, clock=clock))

    def open_start(self) -> None:
        from .screens.start import StartScreen

        self.push_screen(StartScreen())
