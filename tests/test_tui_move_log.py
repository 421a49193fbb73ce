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


def played_copolymer(tmp_path, claims: int, options=None):
    """A hot-seat Copolymer game ``claims`` claims in, on the screen."""
    from termgames.app import TermgamesApp
    from termgames.launch import Launch
    from termgames.match import Match, SeatInfo

    match = Match("copolymer", options or {}, [SeatInfo("ann"), SeatInfo("bob")], 3)
    for _ in range(claims):
        view = match.view(match.state.to_move()[0])
        match.play(view.to_move[0], view.board.names[min(view.legal_cells())])
    return TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))


async def test_tab_focuses_the_log_whose_arrow_keys_scroll_it_and_tab_gives_the_board_its_keys_back(tmp_path):
    app = played_copolymer(tmp_path, 40, {"size": 11})
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        log = screen.query_one(MoveLog)
        assert app.focused is screen.board  # the board first: its arrows move the cursor
        start = screen.board.cursor_name()
        await pilot.press("down")  # a big board's scrolling area must not take the arrow for itself
        assert screen.board.cursor_name() != start
        assert log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y  # following the end

        await pilot.press("tab")
        assert app.focused is log
        cursor = screen.board.cursor_name()
        await pilot.press("up", "up", "k")
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y - 3  # the log scrolled ...
        assert screen.board.cursor_name() == cursor  # ... and the cursor stayed
        await pilot.press("home")
        assert log.scroll_y == 0
        await pilot.press("right")  # keys the log has no use for still reach the board
        assert screen.board.cursor_name() != cursor

        await pilot.press("tab")
        assert app.focused is screen.board
        cursor = screen.board.cursor_name()
        await pilot.press("up")
        assert screen.board.cursor_name() != cursor and log.scroll_y == 0


async def test_the_narrow_layout_gives_the_log_room_beside_the_panel_texts(tmp_path):
    app = played_copolymer(tmp_path, 14)
    async with app.run_test(size=(60, 24)) as pilot:
        await pilot.pause()
        assert app.screen.has_class("narrow")
        log = app.screen.query_one(MoveLog)
        assert log.size.height >= 5 and log.size.width >= 20
        assert "ann" in "".join(shown(log))


async def test_in_mono_with_one_opponent_tab_reaches_the_log(tmp_path):
    from termgames.app import TermgamesApp
    from termgames.launch import Launch
    from termgames.match import AI, Match, SeatInfo

    match = Match("mono", {}, [SeatInfo("ann"), SeatInfo("bot", AI, "easy")], 3)
    match.play(0, "random")
    match.play(1, "random")
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.focused is app.screen.board
        await pilot.press("tab")  # no other board to switch to: the focus moves on
        assert isinstance(app.focused, MoveLog)
        await pilot.press("tab")
        assert app.focused is app.screen.board


async def test_L_reaches_the_log_in_every_game_even_where_tab_has_another_use(tmp_path):
    """Mono with three players (Tab: the next board): L to the log, its keys scroll it, Esc or L back."""
    from termgames.app import TermgamesApp
    from termgames.launch import Launch
    from termgames.match import Match, SeatInfo
    from termgames.screens.keys import keys_markdown

    match = Match("mono", {}, [SeatInfo("ann"), SeatInfo("bob"), SeatInfo("cat")], 3)
    while len(match.moves) < 24:
        match.play(match.state.to_move()[0], "random")
    assert not match.over
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")  # past the privacy screen
        await pilot.pause()
        screen = app.screen
        log = screen.query_one(MoveLog)
        assert "| L |" in keys_markdown(type(screen)) and "PageUp" in keys_markdown(type(screen))  # in the help
        assert log.max_scroll_y > 2 and log.scroll_y == log.max_scroll_y
        seat = screen.mono_board.board_seat
        await pilot.press("tab")
        assert screen.mono_board.board_seat != seat and app.focused is not log  # Tab: the next board here
        await pilot.press("L")
        assert app.focused is log
        await pilot.press("pageup")
        await pilot.pause()
        assert log.scroll_y < log.max_scroll_y
        await pilot.press("home")
        assert log.scroll_y == 0
        await pilot.press("pagedown", "end")
        assert log.scroll_y == log.max_scroll_y
        await pilot.press("up")
        assert log.scroll_y == log.max_scroll_y - 1
        await pilot.press("escape")
        assert app.focused is screen.board
        cursor = screen.mono_board.cursor
        await pilot.press("up")
        assert screen.mono_board.cursor != cursor and log.scroll_y == log.max_scroll_y - 1  # the board's keys again
        await pilot.press("L", "L")
        assert app.focused is screen.board


async def test_L_reaches_the_log_of_a_replay(tmp_path):
    from termgames.app import TermgamesApp
    from termgames.launch import Launch
    from termgames.match import Match, SeatInfo

    match = Match("copolymer", {"size": 11}, [SeatInfo("ann"), SeatInfo("bob")], 3)
    for _ in range(40):
        view = match.view(match.state.to_move()[0])
        match.play(view.to_move[0], view.board.names[min(view.legal_cells())])
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match, source="x.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        log = app.screen.query_one(MoveLog)
        await pilot.press("L")
        assert app.focused is log
        await pilot.press("end")
        assert log.scroll_y == log.max_scroll_y and app.screen.ply == 0  # the log's End, not the replay's
        await pilot.press("pageup")
        assert log.scroll_y < log.max_scroll_y
        await pilot.press("escape")
        assert app.focused is not log
        await pilot.press("end")
        assert app.screen.ply == len(match.moves)


async def test_the_notes_of_a_short_or_narrow_log_never_cover_all_of_it_nor_break_mid_word():
    """A log two lines tall shows two lines of moves (two notes would have shown none: a 3-player Mono replay at
    80x24); a narrow one (Monad's panel) says "(N more above)" rather than "(N more lines ab"."""
    app = LogApp()
    async with app.run_test(size=(40, 10)) as pilot:
        log = app.query_one(MoveLog)
        log.show(LogView(moves(20)))
        log.styles.height = 2
        await pilot.pause()
        log.scroll_to(y=5, animate=False, immediate=True)
        await pilot.pause()
        assert shown(log) == ["  6. bob m5#5", "  7. ann m6#6"]
        log.styles.height = 6
        log.styles.width = 16
        await pilot.pause()
        log.scroll_to(y=5, animate=False, immediate=True)
        await pilot.pause()
        lines = shown(log)
        assert lines[0] == "(6 more above)" and lines[-1] == "(10 more below)", lines
