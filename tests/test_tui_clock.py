"""The clocks on screen: every game screen shows them counting down, marks a clock under its warning and rings
once, ends a game on time; the setup form takes a clock; replays show the clocks at each ply; a spectator at
a shared table sees them too.  Time is made up: each test moves the table's clock by hand.
"""

from __future__ import annotations

from tui import footer_descriptions

from termgames.app import TermgamesApp
from termgames.clock import Clocks, ClockSpec
from termgames.launch import Launch
from termgames.match import Match, Seat
from termgames.screens.game import GameScreen
from termgames.screens.replay import ReplayScreen
from termgames.screens.start import SetupScreen
from termgames.server.hub import Hub
from termgames.server.ui.app import ServeApp
from termgames.table import LocalTable
from termgames.widgets.clock import ClockLines

T0 = 1_800_000_000.0


class FakeTime:
    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> float:
        return self.at


def clock_lines(app) -> list[str]:
    return app.screen.query_one("#clocks", ClockLines).text().splitlines()


async def open_timed(app, pilot, fake: FakeTime) -> LocalTable:
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, GameScreen)
    table = screen.table
    assert isinstance(table, LocalTable)
    table.now = fake
    match = table.match
    assert match.clock is not None
    match.clocks = Clocks.new(match.clock, len(match.seats)).run(match.clock_seats(), fake.at)  # from the fake start
    screen.update_clocks()
    return table


async def test_a_hot_seat_game_counts_down_marks_and_rings_once_then_ends_on_time(tmp_path):
    fake = FakeTime()
    match = Match("copolymer", {"size": 5}, [Seat("ann"), Seat("bob")], 3, clock=ClockSpec.parse("2m+5s"))
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=tmp_path / "g.json"))
    rings = []
    app.bell = lambda: rings.append(fake.at)  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        table = await open_timed(app, pilot, fake)
        assert clock_lines(app) == ["▶ ann                  2:00", "  bob                  2:00"]
        fake.at += 30
        app.screen.update_clocks()
        assert clock_lines(app)[0].endswith("1:30")
        await pilot.press("enter")  # ann claims: 95 s left, bob's clock runs
        await pilot.pause()
        assert clock_lines(app) == ["  ann                  1:35", "▶ bob                  2:00"]
        fake.at += 101  # bob has 19 s: marked, and the bell rings once
        app.screen.update_clocks()
        assert clock_lines(app)[1].endswith("0:19 !")
        fake.at += 1
        app.screen.update_clocks()
        assert len(rings) == 1
        fake.at += 19
        table.check_clocks()  # the timer's work, at the made-up deadline
        await pilot.pause()
        assert clock_lines(app)[1].endswith("out of time")
        assert app.screen.view is not None and app.screen.view.status == "bob ran out of time: ann wins on time"
        assert table.over and app.screen.query("#game-over")
        assert "Undo" not in footer_descriptions(app)  # the flag stands: no undo offered at the end


async def test_the_clocks_show_at_60x20_and_not_on_an_untimed_game(tmp_path):
    untimed = Match("copolymer", {"size": 5}, [Seat("ann"), Seat("bob")], 3)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=untimed, save_path=tmp_path / "u.json"))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        assert not app.screen.query("#clocks")
    fake = FakeTime()
    timed = Match("mono", {"size": 3}, [Seat("ann"), Seat("bob"), Seat("cat")], 3, clock=ClockSpec.parse("3d/move"))
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=timed, save_path=tmp_path / "t.json"))
    async with app.run_test(size=(60, 20)) as pilot:
        await open_timed(app, pilot, fake)
        lines = clock_lines(app)
        assert len(lines) == 3 and all(line.endswith("3d 0h") for line in lines)
        assert app.screen.query_one("#clocks").region.width > 0


async def test_the_setup_form_takes_a_clock_and_refuses_a_bad_one(tmp_path):
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("setup", game="copolymer", clock="30s+2s"))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        assert "clock 30s+2s" in str(screen.query_one("#setup-summary").render())
        screen.query_one("#setup-clock").value = "0s"
        await pilot.pause()
        assert "--clock '0s'" in str(screen.query_one("#setup-error").render())
        assert screen.query_one("#setup-start").disabled
        screen.query_one("#setup-clock").value = "10m+5s"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        assert app.screen.table.match.clock == ClockSpec.parse("10m+5s")


async def test_a_replay_shows_the_clocks_at_each_ply(tmp_path):
    match = Match("copolymer", {"size": 5}, [Seat("ann"), Seat("bob")], 3, clock=ClockSpec.parse("1m+2s"))
    match.start_clocks(T0)
    match.play(0, "A1", at=T0 + 10)
    match.play(1, "B2", at=T0 + 40)
    match.flag(0, at=T0 + 40 + 52)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=match, source="x.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)
        assert [line[-4:] for line in clock_lines(app)] == ["1:00", "1:00"]
        await pilot.press("right")
        assert [line[-4:] for line in clock_lines(app)] == ["0:52", "1:00"]
        await pilot.press("right")
        lines = clock_lines(app)
        assert lines[0].endswith("out of time") and lines[1].endswith("0:32")


async def test_a_spectator_at_a_shared_table_sees_the_clocks(tmp_path, new_store):
    fake = FakeTime()
    hub = Hub(new_store(), tmp_path / "records", now=fake)
    table = hub.create_table("copolymer", {"size": 5}, [Seat("alice"), Seat("bob")], "alice",
                             clock=ClockSpec.parse("5m+0s"))
    fake.at += 65
    carol = ServeApp(hub=hub, player="carol")
    async with carol.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        carol.open_table(table.id, watch=True)
        for _ in range(3):
            await pilot.pause()
        assert clock_lines(carol) == ["▶ alice                3:55", "  bob                  5:00"]
        table.play(0, "A1")
        for _ in range(3):
            await pilot.pause()
        assert clock_lines(carol)[1].startswith("▶ bob")
    hub.close()


async def test_the_lobbys_new_table_form_makes_a_timed_table(tmp_path, new_store):
    from termgames.server.ui.lobby import CreateTableScreen

    hub = Hub(new_store(), tmp_path / "records", now=FakeTime())  # a stopped clock: the full 3 days show
    alice = ServeApp(hub=hub, player="alice")
    async with alice.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("enter")  # the first game: Copolymer
        for _ in range(3):
            await pilot.pause()
        assert isinstance(alice.screen, CreateTableScreen)
        alice.screen.query_one("#seat-name-1").value = "bob"
        alice.screen.query_one("#setup-clock").value = "3d/move"
        await pilot.pause()
        await pilot.press("ctrl+s")
        for _ in range(3):
            await pilot.pause()
        table = hub.table(1)
        assert table.match.clock == ClockSpec.parse("3d/move") and clock_lines(alice)[0].endswith("3d 0h")
    hub.close()


def test_the_start_screen_lists_a_game_won_on_time(tmp_path):
    from termgames.records import save
    from termgames.screens.start import read_saved_games

    match = Match("copolymer", {"size": 5}, [Seat("ann"), Seat("bob")], 3, clock=ClockSpec.parse("1m"))
    match.start_clocks(T0)
    match.play(0, "A1", at=T0 + 5)
    match.flag(1, at=T0 + 70)
    save(tmp_path / "g.json", match)
    [listed] = read_saved_games(tmp_path, None)
    assert listed.summary() == "finished: ann won on time"
