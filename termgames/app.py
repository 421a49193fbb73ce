"""The termgames Textual application: screens for starting, playing and replaying games."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events
from textual.app import App

from .launch import Launch
from .match import Match
from .table import LocalTable


class TermgamesApp(App):
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
    ) -> None:
        super().__init__()
        self.saves_dir = Path(saves_dir)
        self.launch = launch or Launch("start")
        self.ascii = ascii
        self.palette = palette

    def on_mount(self, _event: events.Mount) -> None:
        if self.ascii:
            self.add_class("ascii")
        launch = self.launch
        if launch.kind == "play" and launch.match is not None:
            self.open_game(launch.match, launch.save_path)
        elif launch.kind == "replay" and launch.match is not None:
            self.open_replay(launch.match, launch.source)
        elif launch.kind == "setup" and launch.game:
            self.open_setup(launch.game, launch.options)
        else:
            self.open_start()

    # -- what the screens ask for ------------------------------------------

    def open_game(self, match: Match, save_path: Path | None) -> None:
        from .screens import game_screen_class

        try:
            screen_class = game_screen_class(match.game.name)
        except LookupError as error:
            self.notify(str(error), severity="error")
            return
        table = LocalTable(match, save_path)
        self.push_screen(screen_class(table, ascii_only=self.ascii, palette=self.palette))

    def open_replay(self, match: Match, source: str = "") -> None:
        from .screens import game_screen_class
        from .screens.replay import ReplayScreen

        try:
            game_screen_class(match.game.name)
        except LookupError as error:
            self.notify(str(error), severity="error")
            return
        self.push_screen(ReplayScreen(match, source, ascii_only=self.ascii, palette=self.palette))

    def open_setup(self, game: str, options: dict[str, Any] | None = None) -> None:
        from .screens.start import SetupScreen

        self.push_screen(SetupScreen(game, options))

    def open_start(self) -> None:
        from .screens.start import StartScreen

        self.push_screen(StartScreen())
