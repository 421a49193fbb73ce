"""Issue 33, item 11: the screens' points at 80x24, 60x20 and 50x20 (one wording for the help key, undo at a
game's end alike in every game, a finished replay leaves without asking, Monad's map and panel, the logs, the
``?`` dialog)."""

from __future__ import annotations

import functools

import pytest
from tui import QUICK, finished_match, footer_descriptions, settle

from termgames.app import TermgamesApp
from termgames.games import GAMES
from termgames.launch import Launch
from termgames.match import Match, SeatInfo


@pytest.fixture(autouse=True)
def quick_ai(monkeypatch):
    monkeypatch.setattr("termgames.rules.mono.Mono.ai_move_seconds", 0.0)


def screen_lines(app) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


@pytest.mark.parametrize("game", list(GAMES))
async def test_the_help_key_has_one_wording_in_every_game(tmp_path, game):
    match = Match(game, QUICK[game], [SeatInfo("me"), SeatInfo("cpu", "ai", "random")], 1)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 3)
        assert "Help" in footer_descriptions(app)
        assert " ? Help " in screen_lines(app)[-1]


@pytest.mark.parametrize("game", list(QUICK))
async def test_undo_at_a_games_end_is_offered_alike_where_it_works(tmp_path, game):
    """Every game's end at this keyboard offers u Undo in its footer, but Mono's (whose moves are never taken back)."""
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=finished_match(game), save_path=None))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        offered = "Undo" in footer_descriptions(app)
        assert offered == (game != "mono")
        app.screen.action_act()  # (a click on the board: Enter leaves the footer at the end)
        await pilot.pause()
        said = str(app.screen.query_one("#message").render())
        assert ("u undoes" in said) == offered, said
        if offered:
            await pilot.press("u")
            await settle(pilot, 3)
            assert not app.screen.view.over


@pytest.mark.parametrize("size", [(50, 20), (60, 20)])
async def test_the_help_dialog_gives_a_small_terminal_to_the_rules(tmp_path, size):
    """The ? dialog at 50x20 showed seven lines of rules: the terminal's margins, the box's padding, the title's
    margin and a hint on two lines took the rest.  Now the box fills the terminal and the rules its lines."""
    match = Match("copolymer", {}, [SeatInfo("ann"), SeatInfo("bob")], 4)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))
    async with app.run_test(size=size) as pilot:
        await settle(pilot, 3)
        await pilot.press("question_mark")
        await settle(pilot, 3)
        lines = screen_lines(app)
        assert lines[0].startswith("╭") and lines[-1].startswith("╰")  # the whole terminal
        assert "Copolymer" in lines[1]
        inside = [line[1:-1].strip() for line in lines[1:-1]]
        assert inside[-1].startswith("Esc, q or ? close") and inside[-1].endswith("scroll")  # one line
        assert sum(1 for line in inside[:-1] if line) >= 13
        await pilot.press("escape")
        await pilot.resize_terminal(100, 30)
        await pilot.press("question_mark")
        await settle(pilot, 3)
        lines = screen_lines(app)
        assert not lines[0].strip()  # at a roomy size, the dialog as before


@functools.cache
def mono_of_four_moves() -> tuple[tuple[int, str], ...]:
    """The moves of a Mono of four players on eight regions, played to its end by bots (once: they take seconds)."""
    from termgames.ai import make_bot

    match = Match("mono", {"size": 8}, [SeatInfo(name) for name in ("me", "you", "cat", "dan")], 1)
    bots = [make_bot("mono", "easy", seed=seat) for seat in range(4)]
    while not match.over and len(match.moves) < 3000:
        seat = match.view(None).to_move[0]
        match.play(seat, bots[seat].choose(match.view(seat)))
    return tuple((move.seat, move.move) for move in match.moves)


def mono_of_four() -> Match:
    """That Mono, finished: its end's texts fill the panel beside the boards at 80x24."""
    match = Match("mono", {"size": 8}, [SeatInfo(name) for name in ("me", "you", "cat", "dan")], 1)
    for seat, move in mono_of_four_moves():
        match.play(seat, move)
    assert match.over
    return match


@pytest.mark.parametrize("mode", ["play", "replay"])
async def test_monos_log_keeps_its_lines_at_the_end_and_in_the_replay(tmp_path, mode):
    """At 80x24 the end of a four-player Mono (and its replay) filled the panel with texts: the log got no line."""
    from termgames.widgets.panel import SidePanel

    app = TermgamesApp(saves_dir=tmp_path, launch=Launch(mode, match=mono_of_four(), save_path=None))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, 5)
        if mode == "replay":
            await pilot.press("end")
            await settle(pilot, 3)
        log = app.screen.query_one("#move-log")
        assert log.region.height >= SidePanel.LOG_LINES_LEAST
        assert log.region.bottom <= app.screen.query_one("#side-panel").region.bottom
        lines = screen_lines(app)
        last = log.text_lines()[-1].split()
        shown = " ".join(line[log.region.x:log.region.right] for line in lines[log.region.y:log.region.bottom])
        assert last[-1] in shown.split()  # the last move's end in sight


async def test_monunrails_log_breaks_a_move_between_its_tiles_at_50x20(tmp_path):
    """A move of three tiles is longer than the log's line at 50x20: it broke wherever the line ended (``C4:T-n``
    then ``w``); now after a comma, each tile whole."""
    match = Match("monunrail", {}, [SeatInfo("ann"), SeatInfo("bob")], 7)
    move = "C2:T-ne,C3:T-se,C4:T-nw"
    match.play(0, move)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=None))
    async with app.run_test(size=(50, 20)) as pilot:
        await settle(pilot, 3)
        log = app.screen.query_one("#move-log")
        assert log.scrollable_content_region.width < len(move)
        lines = screen_lines(app)
        shown = [line[log.region.x:log.region.right].strip(" ▏") for line in lines[log.region.y:log.region.bottom]]
        words = " ".join(shown).split()
        assert words[:3] == ["1.", "ann", "C2:T-ne,C3:T-se,"] and words[3] == "C4:T-nw", shown
