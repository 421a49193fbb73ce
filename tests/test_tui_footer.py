"""The footer: one line of keys, repainted only when the keys it shows change (a server redraws every screen at
each move), each key whole or left out, Help and Quit kept, a click presses a key."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from termgames.widgets.footer import Footer


class KeysApp(App[None]):
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "act", "Act"),
        Binding("enter", "act", "Act again"),  # a second key of one action: the footer shows the first
        Binding("x", "other", "Other", show=False),
        Binding("d", "dim", "Dimmed"),
        Binding("r", "random", "Random layout"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit_game", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.act_enabled = True
        self.other_enabled = True
        self.acted = 0

    def compose(self) -> ComposeResult:
        yield Static("board")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "act":
            return self.act_enabled
        if action == "other":
            return self.other_enabled
        if action == "dim":
            return None  # shown, disabled
        return True

    def action_act(self) -> None:
        self.acted += 1

    def action_other(self) -> None:
        pass

    def action_dim(self) -> None:
        pass

    def action_random(self) -> None:
        pass

    def action_help(self) -> None:
        pass

    def action_quit_game(self) -> None:
        pass


def bottom_line(app: App[None]) -> str:
    return app.screen._compositor.render_strips()[-1].text


async def test_the_same_keys_are_not_drawn_again_and_changed_ones_are() -> None:
    app = KeysApp()
    async with app.run_test(size=(80, 8)) as pilot:
        await pilot.pause()
        footer = app.query_one(Footer)
        assert [item.description for item in footer.items] == ["Act", "Dimmed", "Random layout", "Help", "Quit"]
        assert bottom_line(app).rstrip() == " a Act  d Dimmed  r Random layout  ? Help  q Quit"
        drawn = footer.items

        app.screen.refresh_bindings()  # nothing the footer shows changed
        app.other_enabled = False  # a key the footer does not show
        app.screen.refresh_bindings()
        await pilot.pause()
        assert footer.items is drawn  # not even worked out again

        app.act_enabled = False  # the act key leaves the footer
        app.screen.refresh_bindings()
        await pilot.pause()
        assert "Act" not in bottom_line(app) and bottom_line(app).startswith(" d Dimmed")

        app.act_enabled = True
        app.screen.refresh_bindings()
        await pilot.pause()
        assert bottom_line(app).startswith(" a Act ")


async def test_a_disabled_key_is_dimmed_and_an_enabled_one_bold() -> None:
    app = KeysApp()
    async with app.run_test(size=(80, 8)) as pilot:
        await pilot.pause()
        strip = app.screen._compositor.render_strips()[-1]
        looks = {segment.text.strip(): segment.style for segment in strip if segment.text.strip()}
        assert looks["a"].bold
        # Textual draws dim text as colours blended toward the background.
        assert looks["d"].color != looks["a"].color and looks["Dimmed"].color != looks["Act"].color


async def test_keys_that_do_not_fit_are_left_out_whole_but_help_and_quit_stay() -> None:
    app = KeysApp()
    async with app.run_test(size=(30, 8)) as pilot:
        await pilot.pause()
        footer = app.query_one(Footer)
        line = bottom_line(app).rstrip()
        assert line == " a Act  ? Help  q Quit", line  # "Dimmed" and "Random layout" left out, not cut
        await pilot.resize_terminal(80, 8)
        await pilot.pause()
        assert bottom_line(app).rstrip().endswith("r Random layout  ? Help  q Quit")
        assert len(footer.fitting(80)) == len(footer.items)


async def test_a_click_on_a_key_presses_it_and_a_disabled_one_does_nothing() -> None:
    app = KeysApp()
    async with app.run_test(size=(80, 8)) as pilot:
        await pilot.pause()
        await pilot.click(Footer, offset=(2, 0))  # " a Act "
        await pilot.pause()
        assert app.acted == 1
        await pilot.click(Footer, offset=(9, 0))  # " d Dimmed ": disabled
        await pilot.pause()
        assert app.acted == 1
        await pilot.hover(Footer, offset=(2, 0))
        await pilot.pause()
        looks = [segment.style for segment in app.screen._compositor.render_strips()[-1] if "Act" in segment.text]
        hovered = looks[0]
        await pilot.hover(Footer, offset=(60, 0))  # past the keys
        await pilot.pause()
        looks = [segment.style for segment in app.screen._compositor.render_strips()[-1] if "Act" in segment.text]
        assert looks[0].bgcolor != hovered.bgcolor  # the key under the pointer is marked
