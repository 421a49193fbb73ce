"""The move log widget: numbered turns, follows the end unless scrolled up, says what is out of sight, highlights
a ply."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import App, ComposeResult

from termgames.widgets.move_log import MoveLog


@dataclass
class LogView:
    """Just what the log reads of a view."""

    moves: tuple[tuple[int, str], ...]
    players: tuple[str, ...] = ("ann", "bob")

    def log_text(self, move: str, ply: int | None = None) -> str:
        return f"{move}#{ply}"


def moves(count: int) -> tuple[tuple[int, str], ...]:
    return tuple((index % 2, f"m{index}") for index in range(count))


class LogApp(App):
    CSS = "MoveLog { width: 24; height: 6; }"

    def compose(self) -> ComposeResult:
        yield MoveLog(id="move-log")


def shown(log: MoveLog) -> list[str]:
    return [log.render_line(y).text.rstrip() for y in range(log.size.height)]


async def test_turns_numbered_and_the_log_follows_its_end_until_scrolled_up():
    app = LogApp()
    async with app.run_test(size=(40, 10)) as pilot:
        log = app.query_one(MoveLog)
        log.show(LogView(((0, "a"), (0, "b"), (1, "c"))))
        await pilot.pause()
        assert log.text_lines() == ["  1. ann a#0 b#1", "  2. bob c#2"]
        assert shown(log)[:2] == log.text_lines()

        log.show(LogView(moves(20)))
        await pilot.pause()
        lines = shown(log)
        assert lines[-1] == " 20. bob m19#19"  # anchored to the end
        assert lines[0] == "(15 more lines above)"

        log.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        log.show(LogView(moves(21)))
        await pilot.pause()
        lines = shown(log)
        assert lines[0] == "  1. ann m0#0"  # scrolled up: the new turn does not pull the log down
        assert lines[-1] == "(16 more lines below)"

        log.scroll_to(y=log.max_scroll_y, animate=False, immediate=True)
        log.show(LogView(moves(22)))
        await pilot.pause()
        assert shown(log)[-1] == " 22. bob m21#21"  # back at the end: anchored again


async def test_a_highlighted_ply_is_reversed_and_kept_in_sight():
    app = LogApp()
    async with app.run_test(size=(40, 10)) as pilot:
        log = app.query_one(MoveLog)
        log.show(LogView(moves(30)), highlight_ply=3, follow=False)
        await pilot.pause()
        log.keep_ply_in_sight(3)
        await pilot.pause()
        lines = shown(log)
        assert "  3. ann m2#2" in lines
        row = lines.index("  3. ann m2#2")
        reversed_text = "".join(s.text for s in log.render_line(row) if s.style and s.style.reverse)
        assert reversed_text == "m2#2"
        log.keep_ply_in_sight(25)
        await pilot.pause()
        assert " 25. ann m24#24" in shown(log)
