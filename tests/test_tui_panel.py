"""The side panel's texts: one Line-API widget that repaints what changed and lays out only when it grows."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Static

from termgames.widgets.panel import PanelTexts


class PanelApp(App[None]):
    def compose(self) -> ComposeResult:
        yield PanelTexts(id="panel-info")
        yield Static("under", id="under")


def shown(app: PanelApp) -> list[str]:
    panel = app.query_one(PanelTexts)
    strips = app.screen._compositor.render_strips()
    return [strips[y].text[: panel.size.width].rstrip() for y in range(panel.region.y, panel.region.bottom)]


async def showing(app: PanelApp, pilot, **texts) -> PanelTexts:
    """The app's panel, once it has shown ``texts`` and the screen has caught up."""
    panel = app.query_one(PanelTexts)
    panel.show(**texts)
    await pilot.pause()
    return panel


def tracking_refreshes(panel: PanelTexts) -> list[tuple[int, bool]]:
    """Every refresh the panel asks for: (how many rows, whether it lays the screen out)."""
    calls: list[tuple[int, bool]] = []
    original = panel.refresh

    def refresh(*regions, layout=False, **kwargs):
        calls.append((len(regions), layout))
        return original(*regions, layout=layout, **kwargs)

    panel.refresh = refresh  # type: ignore[method-assign]  # a spy on this one widget
    return calls


async def test_texts_in_order_with_a_blank_line_after_each():
    app = PanelApp()
    async with app.run_test(size=(30, 20)) as pilot:
        panel = await showing(app, pilot, status=Text("ann to move", style="bold"), legend="a legend",
                              scores="> ann: 1\n  bob: 2", last_action="bob claimed a1")
        assert shown(app) == ["ann to move", "", "a legend", "", "> ann: 1", "  bob: 2", "", "bob claimed a1", ""]
        assert panel.text("scores") == "> ann: 1\n  bob: 2"
        assert app.query_one("#under").region.y == panel.region.bottom


async def test_a_changed_text_of_the_same_height_repaints_its_rows_only():
    app = PanelApp()
    async with app.run_test(size=(30, 20)) as pilot:
        panel = await showing(app, pilot, status="ann to move", legend="x", scores="> ann: 1\n  bob: 2", last_action="")
        calls = tracking_refreshes(panel)
        panel.show(status="bob to move", legend="x", scores="  ann: 1\n> bob: 2", last_action="")
        assert calls == [(3, False)]  # the status line and both score lines; no layout
        panel.show(status="bob to move", legend="x", scores="  ann: 1\n> bob: 2", last_action="")
        assert calls == [(3, False)]  # nothing changed: nothing asked
        await pilot.pause()
        assert shown(app)[:6] == ["bob to move", "", "x", "", "  ann: 1", "> bob: 2"]


async def test_a_text_that_grows_lays_out_once_and_never_shrinks():
    app = PanelApp()
    async with app.run_test(size=(20, 30)) as pilot:
        panel = await showing(app, pilot, status="s", legend="one", scores="", last_action="a")
        calls = tracking_refreshes(panel)
        panel.show(legend="one\ntwo")
        assert calls[-1][1]  # taller: laid out again
        await pilot.pause()
        assert shown(app)[2:5] == ["one", "two", ""]
        calls.clear()
        panel.show(legend="one")
        assert calls == [(1, False)]  # shorter: a blank line, the box stays
        await pilot.pause()
        assert shown(app)[2:5] == ["one", "", ""]
        panel.show(last_action="a long last action that wraps over two lines")
        assert calls[-1][1]
        await pilot.pause()
        assert len(panel._lines) == 1 + 1 + 2 + 1 + 1 + 1 + 4 + 1  # the last action straight to its most, 4


async def test_a_new_theme_redraws_the_texts_in_its_colours():
    app = PanelApp()
    async with app.run_test(size=(30, 20)) as pilot:
        panel = await showing(app, pilot, status="ann to move", legend="x", scores="> ann: 1", last_action="")

        def status_background():
            strip = app.screen._compositor.render_strips()[panel.region.y]
            return next(iter(strip)).style.bgcolor

        before = status_background()
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        panel.show(scores="> ann: 2")  # a move after the change: drawn in the new colours too
        await pilot.pause()
        after = status_background()
        assert after != before
        assert after == panel.rich_style.bgcolor


async def test_a_reserved_text_takes_its_lines_from_the_start():
    app = PanelApp()
    async with app.run_test(size=(30, 20)) as pilot:
        panel = app.query_one(PanelTexts)
        panel.reserved = {"last-action": 3}
        panel.show(status="s", legend="l", scores="", last_action="")
        await pilot.pause()
        assert len(panel._lines) == 2 + 2 + 2 + 4
        calls = tracking_refreshes(panel)
        panel.show(last_action="ann probed a1, b2, c3, d4 and scored 4")  # two lines: within the reserve
        assert calls == [(2, False)]
        assert len(panel._lines) == 2 + 2 + 2 + 4


async def test_a_texts_own_style_is_drawn_under_its_spans():
    app = PanelApp()
    async with app.run_test(size=(30, 20)) as pilot:
        panel = app.query_one(PanelTexts)
        legend = Text("bob to wait", style="bold")
        legend.stylize("italic", 0, 3)
        panel.show(status=Text("ann to move", style="bold"), legend=legend, scores="", last_action="")
        await pilot.pause()
        strips = app.screen._compositor.render_strips()

        def looks(row):
            return {segment.text: segment.style for segment in strips[panel.region.y + row] if segment.text.strip()}

        assert looks(0)["ann to move"].bold  # a text without spans: rich's Text.render leaves its style out
        assert looks(2)["bob"].bold and looks(2)["bob"].italic
        assert looks(2)[" to wait"].bold and not looks(2)[" to wait"].italic


async def test_a_control_character_is_shown_as_its_escape_never_sent():
    app = PanelApp()
    async with app.run_test(size=(40, 20)) as pilot:
        panel = await showing(app, pilot, status="s", legend="", scores="", last_action="ann\x1b[2J played")
        assert panel.text("last-action") == "ann\\x1b[2J played"
        assert all("\x1b" not in strip.text for strip in panel._lines)
