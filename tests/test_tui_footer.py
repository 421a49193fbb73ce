"""The footer is composed again only when the keys it shows change (a server redraws every screen at each move)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static
from textual.widgets._footer import FooterKey  # the footer's key widgets: what a composition replaces

from termgames.widgets.footer import Footer


class KeysApp(App[None]):
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "act", "Act"),
        Binding("x", "other", "Other", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.act_enabled = True
        self.other_enabled = True

    def compose(self) -> ComposeResult:
        yield Static("board")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "act":
            return self.act_enabled
        if action == "other":
            return self.other_enabled
        return True

    def action_act(self) -> None:
        pass

    def action_other(self) -> None:
        pass


def footer_keys(app: App[None]) -> list[FooterKey]:
    return list(app.query_one(Footer).query(FooterKey))


async def test_the_same_keys_are_not_composed_again_and_changed_ones_are() -> None:
    app = KeysApp()
    async with app.run_test(size=(60, 8)) as pilot:
        await pilot.pause()
        keys = footer_keys(app)
        assert [key.description for key in keys] == ["Act"]
        assert not keys[0].compact and not keys[0].has_class("-compact")  # drawn as Textual's footer draws it

        app.screen.refresh_bindings()  # nothing the footer shows changed
        app.other_enabled = False  # a key the footer does not show
        app.screen.refresh_bindings()
        await pilot.pause()
        assert footer_keys(app) == keys  # the very same widgets: no composition

        app.act_enabled = False  # the act key leaves the footer
        app.screen.refresh_bindings()
        await pilot.pause()
        assert footer_keys(app) == []

        app.act_enabled = True
        app.screen.refresh_bindings()
        await pilot.pause()
        again = footer_keys(app)
        assert [key.description for key in again] == ["Act"]
        assert again[0] is not keys[0]
