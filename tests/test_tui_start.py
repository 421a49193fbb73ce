"""Start and setup screens, driven by the keyboard against a recording app."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.widgets import Input, OptionList, Select, Static

from termgames.app import TermgamesApp
from termgames.match import Match, Seat
from termgames.records import save
from termgames.screens.start import SetupScreen, StartScreen


class RecordingApp(App):
    """Stands in for TermgamesApp: records what the screens ask it to open."""

    def __init__(self, saves_dir: Path, first_screen) -> None:
        super().__init__()
        self.saves_dir = saves_dir
        self.ascii = False
        self.first_screen = first_screen
        self.calls: list[tuple] = []

    def on_mount(self) -> None:
        self.push_screen(self.first_screen())

    def open_game(self, match, save_path):
        self.calls.append(("game", match, save_path))

    def open_replay(self, match, source=""):
        self.calls.append(("replay", match, source))

    def open_setup(self, game, options=None):
        self.calls.append(("setup", game, options))


def finished_match(names=("ann", "bob")) -> Match:
    match = Match("copolymer", {"size": 3}, [Seat(n) for n in names], 5)
    while not match.over:
        view = match.view(match.state.to_move()[0])
        cell = min(view.legal_cells())
        match.play(view.to_move[0], view.board.names[cell])
    return match


async def test_start_screen_opens_setup_for_a_game(tmp_path):
    app = RecordingApp(tmp_path, StartScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
    assert app.calls == [("setup", "copolymer", None)]


async def test_setup_starts_a_default_game(tmp_path):
    app = RecordingApp(tmp_path, lambda: SetupScreen("copolymer"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
    (kind, match, path), = app.calls
    assert kind == "game"
    assert match.game.name == "copolymer" and match.options == {"shape": "hexagon", "size": 11}
    assert [seat.name for seat in match.seats] == ["p1", "p2"]
    assert not match.seats[0].is_ai and match.seats[1].is_ai and match.seats[1].level == "normal"
    assert path.parent == tmp_path and path.suffix == ".json"


async def test_presets_and_size_and_an_even_size_refused(tmp_path):
    app = RecordingApp(tmp_path, lambda: SetupScreen("copolymer"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await pilot.pause()
        await pilot.click("#preset-small")
        await pilot.pause()
        assert screen.query_one("#option-size", Input).value == "9"
        assert "61 cells" in str(screen.query_one("#setup-summary", Static).render())
        screen.query_one("#option-size", Input).value = "8"
        await pilot.pause()
        assert "odd number of rows" in str(screen.query_one("#setup-error", Static).render())
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.calls == []
        screen.query_one("#option-size", Input).value = "7"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.calls[0][1].options["size"] == 7


async def test_rename_seats_and_duplicates_refused(tmp_path):
    app = RecordingApp(tmp_path, lambda: SetupScreen("copolymer"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await pilot.pause()
        screen.query_one("#seat-name-0", Input).value = "ann"
        screen.query_one("#seat-name-1", Input).value = "ann"
        await pilot.pause()
        assert "two seats are named 'ann'" in str(screen.query_one("#setup-error", Static).render())
        await pilot.press("ctrl+s")
        assert app.calls == []
        screen.query_one("#seat-name-1", Input).value = "bea"
        screen.query_one("#seat-kind-1", Select).value = "human"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
    match = app.calls[0][1]
    assert match.names == ("ann", "bea") and not match.seats[1].is_ai


async def saved_listing(app, pilot) -> OptionList:
    for _ in range(50):
        await pilot.pause(0.05)
        if app.screen.saved:
            break
    return app.screen.query_one("#saved", OptionList)


async def test_saved_games_resume_replay_and_corrupt(tmp_path, monkeypatch):
    monkeypatch.setattr("termgames.screens.start.bundled_saves", lambda: None)
    unfinished = Match("copolymer", {"size": 3}, [Seat("cat"), Seat("dan")], 1)
    unfinished.play(0, "B2")
    save(tmp_path / "a-unfinished.json", unfinished)
    save(tmp_path / "b-finished.json", finished_match())
    (tmp_path / "c-corrupt.json").write_text("{ nope")
    app = RecordingApp(tmp_path, StartScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        listing = await saved_listing(app, pilot)
        texts = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert len(texts) == 3
        assert any("not valid JSON" in t for t in texts)
        assert any("in progress: move 2, dan to move" in t for t in texts)
        assert any("finished:" in t for t in texts)
        await pilot.press("tab")
        by_name = {game.path.name: i for i, game in enumerate(app.screen.saved)}
        listing.highlighted = by_name["a-unfinished.json"]
        await pilot.press("enter")
        listing.highlighted = by_name["b-finished.json"]
        await pilot.press("r")
        listing.highlighted = by_name["c-corrupt.json"]
        await pilot.press("enter")  # a notification, no crash
        await pilot.pause()
    assert [call[0] for call in app.calls] == ["game", "replay"]
    assert app.calls[0][2] == tmp_path / "a-unfinished.json"
    assert app.calls[0][1].names == ("cat", "dan")
    assert app.calls[1][1].over


async def test_resuming_a_sample_copies_it(tmp_path, monkeypatch):
    samples = tmp_path / "samples"
    saves = tmp_path / "saves"
    samples.mkdir()
    unfinished = Match("copolymer", {"size": 3}, [Seat("cat"), Seat("dan")], 1)
    unfinished.play(0, "B2")
    save(samples / "sample.json", unfinished)
    before = (samples / "sample.json").read_bytes()
    monkeypatch.setattr("termgames.screens.start.bundled_saves", lambda: samples)
    monkeypatch.setattr("termgames.records.bundled_saves", lambda: samples)
    app = TermgamesApp(saves_dir=saves)
    async with app.run_test(size=(80, 24)) as pilot:
        await saved_listing(app, pilot)
        await pilot.press("tab", "enter")
        await pilot.pause()
        path = app.screen.table.save_path
    assert path.parent == saves and path.exists()
    assert (samples / "sample.json").read_bytes() == before
    assert sorted(p.name for p in samples.iterdir()) == ["sample.json"]  # no lock file either


async def test_flag_options_and_seat_count(tmp_path):
    from textual.widgets import Checkbox

    app = RecordingApp(tmp_path, lambda: SetupScreen("mono"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await pilot.pause()
        no_auto = screen.query_one("#option-no_auto", Checkbox)
        assert str(no_auto.label) == "off"  # the state in words, not only the box's colour
        no_auto.value = True
        await pilot.pause()
        assert str(no_auto.label) == "on"
        screen.query_one("#seat-count", Select).value = 3
        await pilot.pause()
        assert "--no-auto" in str(screen.query_one("#setup-summary", Static).render())
        screen.query_one("#option-take_min", Checkbox).value = True
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
    match = app.calls[0][1]
    assert match.options["no_auto"] and match.options["take_min"]
    assert match.names == ("p1", "p2", "p3")


async def test_every_saved_game_shows_whole_at_80_columns(tmp_path, monkeypatch):
    """With enough saves for a scroll bar, an entry whose title wraps lost its last line: a finished game its result,
    another "in progress: move 50, erin to"; and Monad's entries counted moves where its screen counts turns
    (issue 25, 7)."""
    from termgames.ai import make_bot

    # The samples (more than the list shows at 80x24: a scroll bar), and one of Monad's in progress.
    monad = Match("monad", {"turns": 30}, [Seat("me"), Seat("cpu", "ai", "greedy")], 3)
    bots = [make_bot("monad", "random", seed=seat) for seat in range(2)]
    for _ in range(50):  # 25 turns: two seats' commands each
        seat = monad.view(None).to_move[0]
        monad.play(seat, bots[seat].choose(monad.view(seat)))
    save(tmp_path / "monad.json", monad)
    app = RecordingApp(tmp_path, StartScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        listing = await saved_listing(app, pilot)
        await pilot.pause()
        summaries = [game.summary() for game in app.screen.saved]
        assert "in progress: turn 26, me and cpu to move" in summaries
        seen = ""
        for index in range(listing.option_count):
            listing.highlighted = index  # scrolls it into sight
            await pilot.pause()
            region = listing.content_region
            lines = [strip.text[region.x : region.right] for strip in app.screen._compositor.render_strips()]
            seen += " ".join(" ".join(lines[region.y : region.bottom]).split()) + "\n"
        for game, summary in zip(app.screen.saved, summaries):
            assert summary in seen, summary
            assert game.title() in seen, game.title()


async def test_keys_typed_quickly_into_a_field_land_in_order_and_the_summary_agrees(tmp_path):
    """Backspace then 3 arriving together (a quick typist, a paste, SSH) left the field empty while the summary said
    --max-routines 3: Backspace went round the app after the 3 was typed (issue 25, 9)."""
    from textual import events

    app = RecordingApp(tmp_path, lambda: SetupScreen("mosaic"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        field = app.screen.query_one("#option-max_routines", Input)
        field.focus()
        await pilot.pause()
        assert field.value == "0"
        field.action_end()
        for key, character in (("backspace", None), ("3", "3")):  # in one read from the terminal
            app.post_message(events.Key(key, character))
        await pilot.pause()
        await pilot.pause()
        assert field.value == "3"
        summary = str(app.screen.query_one("#setup-summary", Static).render())
        assert "--max-routines 3" in summary
        # And a field that makes no game: the summary says so, not what the field said before.
        field.value = ""
        await pilot.pause()
        summary = str(app.screen.query_one("#setup-summary", Static).render())
        assert "--max-routines" not in summary and "needs a number" in summary


async def test_setup_labels_stand_apart_from_their_fields_and_the_first_tab_lands_on_one(tmp_path):
    """"Max routines0": the label ran into the field; the first Tab went to the scrolling body, which shows no
    focus (issue 25, 9 and 10)."""
    app = RecordingApp(tmp_path, lambda: SetupScreen("mosaic"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lines = [strip.text for strip in app.screen._compositor.render_strips()]
        assert any("Max routines 0" in " ".join(line.split("  ")) or "Max routines  " in line for line in lines)
        assert not any("Max routines0" in line for line in lines)
        await pilot.press("tab")
        assert app.screen.focused is app.screen.query_one("#option-max_routines", Input)


async def test_a_checkbox_that_is_off_shows_an_empty_box(tmp_path):
    """"▐X▌ off" read as ticked: the X told on from off by its colour alone (issue 25, 10)."""
    from textual.widgets import Checkbox

    app = RecordingApp(tmp_path, lambda: SetupScreen("mono"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        box = app.screen.query_one("#option-no_auto", Checkbox)

        def drawn() -> str:
            region = box.region
            line = [strip.text for strip in app.screen._compositor.render_strips()][region.y]
            return line[region.x : region.right].strip()

        assert "X" not in drawn() and drawn().endswith("off")
        box.value = True
        await pilot.pause()
        assert "X" in drawn() and drawn().endswith("on")


async def test_at_50_columns_a_fields_help_stands_under_it_whole(tmp_path):
    """At 50 columns the help beside each field was squeezed two letters a line ("st", "ra", "ig", ...)."""
    app = RecordingApp(tmp_path, lambda: SetupScreen("monunrail"))
    async with app.run_test(size=(50, 20)) as pilot:
        await pilot.pause()
        lines = [strip.text for strip in app.screen._compositor.render_strips()]
        assert any("straights in the supply (0-99)" in line for line in lines)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        lines = [strip.text for strip in app.screen._compositor.render_strips()]
        assert any("Straights" in line and "straights in the supply" in line for line in lines)  # beside it


async def test_the_clock_field_takes_keys_in_order_too(tmp_path):
    from textual import events

    app = RecordingApp(tmp_path, lambda: SetupScreen("copolymer"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        field = app.screen.query_one("#setup-clock", Input)
        field.value = "5m"
        field.focus()
        await pilot.pause()
        field.action_end()
        for key, character in (("backspace", None), ("s", "s")):  # in one read from the terminal
            app.post_message(events.Key(key, character))
        await pilot.pause()
        await pilot.pause()
        assert field.value == "5s"
