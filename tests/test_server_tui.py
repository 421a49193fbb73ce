"""The server's screens with two apps on one hub (no SSH): lobby, new table, joining, live moves, undo by consent."""

from __future__ import annotations

import random

from tui import footer_descriptions, panel_text

from termgames.match import Seat
from termgames.screens.dialogs import ConfirmScreen
from termgames.server.hub import Hub
from termgames.server.ui.app import ServeApp
from termgames.server.ui.lobby import CreateTableScreen, LobbyScreen, table_of
from termgames.server.ui.shared_game import SharedGameMixin

SIZE = (100, 32)


def make_hub(new_store, folder) -> Hub:
    """A hub on the test's store (SQLite or PostgreSQL: see ``new_store`` in conftest)."""
    return Hub(new_store(), folder / "records")


async def settle(*pilots) -> None:
    for _ in range(3):
        for pilot in pilots:
            await pilot.pause()


async def test_new_table_open_seat_join_live_moves_and_undo_by_consent(tmp_path, new_store, monkeypatch):
    monkeypatch.setattr("termgames.server.hub.LOBBY_NEWS_DELAY", 0)  # bob's lobby hears of the table at once
    hub = make_hub(new_store, tmp_path)
    alice, bob = ServeApp(hub=hub, player="alice"), ServeApp(hub=hub, player="bob")
    async with alice.run_test(size=SIZE) as pa, bob.run_test(size=SIZE) as pb:
        assert isinstance(alice.screen, LobbyScreen)
        await pa.press("n")
        await settle(pa)
        await pa.press("enter")  # the first game: Copolymer
        await settle(pa)
        assert isinstance(alice.screen, CreateTableScreen)
        alice.screen.query_one("#option-size").value = "5"
        await settle(pa)
        await pa.press("ctrl+s")
        await settle(pa, pb)
        assert isinstance(alice.screen, SharedGameMixin)
        table = hub.table(1)
        assert table.names == ("alice", "seat-2") and table.open_seats() == [1]

        # bob's lobby lists the open table first; Enter takes the seat.
        assert isinstance(bob.screen, LobbyScreen)
        assert bob.screen.query_one("#tables").highlighted_option.id == "open:1"
        await pb.press("enter")
        await settle(pa, pb)
        assert table.names == ("alice", "bob")
        assert "bob" in str(alice.screen.query_one("#game-title").render())
        assert "● bob" in str(alice.screen.query_one("#presence").render())

        # alice moves: bob's screen redraws from the news.
        await pa.press("enter")
        await settle(pa, pb)
        assert len(bob.screen.view.moves) == 1 and bob.screen.view.to_move == (1,)

        # Undo is a request; bob refuses, then accepts.
        await pa.press("u")
        await settle(pa, pb)
        assert isinstance(bob.screen, ConfirmScreen)
        await pb.press("n")
        await settle(pa, pb)
        assert len(table.match.moves) == 1
        await pa.press("u")
        await settle(pa, pb)
        await pb.press("y")
        await settle(pa, pb)
        assert table.match.moves == [] and alice.screen.view.moves == ()

        # bob leaves the table: alice sees him away; his lobby lists the game as his.
        await pb.press("q")
        await settle(pb)
        await pb.press("y")
        await settle(pa, pb)
        assert isinstance(bob.screen, LobbyScreen)
        assert "○ bob away" in str(alice.screen.query_one("#presence").render())
        assert bob.screen.query_one("#tables").highlighted_option.id == "mine:1"


async def test_a_spectator_sees_no_hidden_board_and_cannot_move(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    live = hub.create_table("mono", {"size": 3}, [Seat(name="alice"), Seat(name="bob")], "alice")
    live.play(0, "random")
    live.play(1, "random")
    carol = ServeApp(hub=hub, player="carol")
    async with carol.run_test(size=SIZE) as pilot:
        assert carol.screen.query_one("#tables").highlighted_option.id == "watch:1"
        await pilot.press("w")
        await settle(pilot)
        screen = carol.screen
        assert isinstance(screen, SharedGameMixin) and screen.table.seat is None
        assert all(value is None for board in screen.view.boards for value in board)
        assert "you are watching" in str(screen.query_one("#presence").render())
        await pilot.press("r")  # Mono's random probe: not for a spectator
        await settle(pilot)
        assert len(live.match.moves) == 2
        assert live.spectators() == ["carol"]


async def test_a_finished_game_is_replayed_from_the_lobby(tmp_path, new_store):
    from termgames.screens.replay import ReplayScreen

    hub = make_hub(new_store, tmp_path)
    live = hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice")
    while not live.over:
        live.play(live.match.state.to_move()[0], "random")
    alice = ServeApp(hub=hub, player="alice")
    async with alice.run_test(size=SIZE) as pilot:
        assert alice.screen.query_one("#tables").highlighted_option.id == "done:1"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(alice.screen, ReplayScreen)


async def test_an_ai_seat_shows_thinking_at_a_shared_table(tmp_path, monkeypatch, new_store):
    from bots import GatedBot

    bot = GatedBot()
    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: bot)
    hub = make_hub(new_store, tmp_path)
    live = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat("cpu", "ai", "easy")], "alice")
    alice = ServeApp(hub=hub, player="alice")
    async with alice.run_test(size=SIZE) as pilot:
        await pilot.press("enter")  # her table, from the lobby
        await settle(pilot)
        assert isinstance(alice.screen, SharedGameMixin)
        await pilot.press("enter")  # she claims; the AI seat thinks
        await settle(pilot)
        assert "cpu is thinking" in panel_text(alice.screen, "status")
        bot.gate.set()
        for _ in range(50):
            await pilot.pause(0.02)
            if len(live.match.moves) == 2:
                break
        await settle(pilot)
        assert len(live.match.moves) == 2
        assert "thinking" not in panel_text(alice.screen, "status")
    hub.close()


async def test_impossible_at_a_shared_table_is_decided_off_the_loop_and_stored_on_it(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    live = hub.create_table("monunrail", {}, [Seat(name="alice"), Seat(name="bob")], "alice")
    live.play(0, "D3:T-se,E3:T-sw")
    live.play(1, "D5:T-ne")
    alice = ServeApp(hub=hub, player="alice")
    async with alice.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(alice.screen, ConfirmScreen)
        await pilot.press("y")
        for _ in range(250):
            await pilot.pause(0.02)
            if live.over:
                break
        await settle(pilot)
        assert live.match.moves[-1].move == "impossible" and live.over
        assert make_hub(new_store, tmp_path).table(live.id).match.moves[-1].move == "impossible"  # stored
        assert "Completion found" in panel_text(alice.screen, "legend")


async def test_after_a_restart_a_player_is_back_at_her_table_until_she_leaves_it(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
    alice = ServeApp(hub=hub, player="alice")
    async with alice.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(alice.screen, SharedGameMixin)
    alice.release_tables()  # her session ends at the table (the connection drops, or the server stops)
    hub.store.close()

    hub = make_hub(new_store, tmp_path)  # the server starts again
    alice = ServeApp(hub=hub, player="alice")
    async with alice.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(alice.screen, SharedGameMixin) and alice.screen.table.table_id == 1
        await pilot.press("q")  # she leaves the table for the lobby
        await settle(pilot)
        assert isinstance(alice.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(alice.screen, LobbyScreen)
    alice.release_tables()
    again = ServeApp(hub=hub, player="alice")
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(again.screen, LobbyScreen)


async def test_a_shared_game_ends_with_its_record_a_rematch_and_the_way_back_to_the_lobby(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    live = hub.create_table("copolymer", {"size": 3}, [Seat(name="alice"), Seat(name="bob")], "alice", rated=False)
    alice, carol = ServeApp(hub=hub, player="alice"), ServeApp(hub=hub, player="carol")
    async with alice.run_test(size=SIZE) as pilot, carol.run_test(size=SIZE) as watching:
        await pilot.press("enter")
        await watching.press("w")
        await settle(pilot, watching)
        assert "Undo" not in footer_descriptions(carol)  # a spectator has no undo to ask for
        assert "Undo" in footer_descriptions(alice)
        rng = random.Random(5)
        while not live.over:
            seat = live.match.state.to_move()[0]
            live.play(seat, live.match.state.random_move(seat, rng))
        await settle(pilot, watching)
        ending = str(alice.screen.query_one("#game-over").render())
        assert f"ssh -p 2222 alice@localhost record {live.id} >" in ending and "rematch, seats swapped" in ending
        assert "q: back to the lobby" in ending
        assert "Rematch" in footer_descriptions(alice) and "New game" not in footer_descriptions(alice)
        watched = str(carol.screen.query_one("#game-over").render())
        assert "rematch" not in watched and "q: back to the lobby" in watched
        await watching.press("q")  # over: no question, straight back
        await settle(watching)
        assert isinstance(carol.screen, LobbyScreen)
        await pilot.press("ctrl+r")
        await settle(pilot)
        again = hub.table(live.id + 1)
        assert again.names == ("bob", "alice") and dict(again.match.options) == dict(live.match.options)
        assert isinstance(alice.screen, SharedGameMixin) and alice.screen.table.live is again
        assert alice.screen.table.seat == 1


async def test_the_lobby_marks_the_seat_to_move_before_its_name(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    for name in ("alice", "bob"):
        assert hub.store.claim(name, f"SHA256:{name}")
    table = hub.create_table("copolymer", {"size": 3}, [Seat(name="alice"), Seat(name="bob")], "alice", rated=True)
    app = ServeApp(hub=hub, player="carol")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        line = str(app.screen.query_one("#tables").get_option(f"watch:{table.id}").prompt)
        assert "▸ alice, bob" in line and "*" not in line


def chosen_table(app: ServeApp) -> int | None:
    return table_of(app.screen.query_one("#tables").highlighted_option)


async def test_the_lobby_keeps_the_chosen_table_by_its_number_as_the_list_changes(tmp_path, new_store, monkeypatch):
    monkeypatch.setattr("termgames.server.hub.LOBBY_NEWS_DELAY", 0)  # the lobbies hear at once
    hub = make_hub(new_store, tmp_path)
    first = hub.create_table("copolymer", {"size": 3}, [Seat("alice"), Seat()], "alice", rated=False)
    played = hub.create_table("copolymer", {"size": 3}, [Seat("alice"), Seat("carol")], "alice", rated=False)
    bob = ServeApp(hub=hub, player="bob")
    async with bob.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert chosen_table(bob) == first.id
        await pilot.press("down")
        assert chosen_table(bob) == played.id
        # A new open table is listed above the one bob chose: his cursor stays on his table, not on its line.
        hub.create_table("copolymer", {"size": 3}, [Seat("dave"), Seat()], "dave", rated=False)
        await settle(pilot)
        assert chosen_table(bob) == played.id
        await pilot.press("up", "up")
        assert chosen_table(bob) == first.id
        # Someone takes the open seat: the table moves from "Open tables" to "Being played", the cursor with it.
        first.join("erin")
        await settle(pilot)
        assert "watch:" in bob.screen.query_one("#tables").highlighted_option.id
        assert chosen_table(bob) == first.id


async def test_the_lobby_cursor_stops_at_either_end(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    tables = [
        hub.create_table("copolymer", {"size": 3}, [Seat(name), Seat()], name, rated=False)
        for name in ("alice", "carol", "dave")
    ]
    bob = ServeApp(hub=hub, player="bob")
    async with bob.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert chosen_table(bob) == tables[0].id
        await pilot.press("up")  # the first table: up goes nowhere (it went round to the last)
        assert chosen_table(bob) == tables[0].id
        await pilot.press("down", "down", "down", "j", "down")
        assert chosen_table(bob) == tables[-1].id  # the last: down goes nowhere (it went round to the first)
        await pilot.press("k")
        assert chosen_table(bob) == tables[1].id


async def test_a_spectator_who_comes_back_is_at_the_table_she_watched(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    hub.create_table("copolymer", {"size": 3}, [Seat("alice"), Seat("bob")], "alice", rated=False)
    carol = ServeApp(hub=hub, player="carol")
    async with carol.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        assert isinstance(carol.screen, SharedGameMixin) and carol.screen.table.seat is None
    carol.release_tables()  # her connection dropped
    again = ServeApp(hub=hub, player="carol")
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(again.screen, SharedGameMixin) and again.screen.table.table_id == 1
        assert again.screen.table.seat is None  # still watching: no seat taken
        await pilot.press("q")
        await settle(pilot)
        if isinstance(again.screen, ConfirmScreen):
            await pilot.press("y")
            await settle(pilot)
        assert isinstance(again.screen, LobbyScreen)
    again.release_tables()
    back = ServeApp(hub=hub, player="carol")  # she left the table for the lobby: the lobby it is
    async with back.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(back.screen, LobbyScreen)


def toast_texts(app: ServeApp) -> list[str]:
    """What the toasts on her screen say (Textual keeps them in the app, each drawn on the screen on top)."""
    return [toast.message for toast in app._notifications]


async def test_a_notice_s_toast_goes_once_she_opens_its_table(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    table = hub.create_table("copolymer", {"size": 5}, [Seat("alice"), Seat("bob")], "alice", rated=False)
    other = hub.create_table("copolymer", {"size": 5}, [Seat("alice"), Seat("carol")], "alice", rated=False)
    table.play(0, "A1")
    other.play(0, "A1")
    alice = ServeApp(hub=hub, player="alice")
    async with alice.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table.play(1, "E5")
        other.play(1, "E5")
        await settle(pilot)
        assert any("Your move at table #1" in text for text in toast_texts(alice))
        alice.open_table(table.id)
        await settle(pilot)
        assert isinstance(alice.screen, SharedGameMixin)
        shown = toast_texts(alice)
        assert not any("table #1" in text for text in shown)  # it covered the lines below the board
        assert any("Your move at table #2" in text for text in shown)  # another table's stays
        alice.release_tables()


async def test_the_time_left_on_her_lobby_lines_counts_down(tmp_path, new_store):
    from termgames.clock import ClockSpec

    now = [1_800_000_000.0]
    hub = Hub(new_store(), tmp_path / "records", now=lambda: now[0])
    hub.create_table(
        "copolymer", {"size": 5}, [Seat("alice"), Seat("bob")], "alice", rated=False, clock=ClockSpec.parse("10m")
    )
    alice = ServeApp(hub=hub, player="alice")
    async with alice.run_test(size=SIZE) as pilot:
        await settle(pilot)
        lobby = alice.screen
        assert isinstance(lobby, LobbyScreen)

        def line() -> str:
            return str(lobby.query_one("#tables").get_option("mine:1").prompt)

        assert "your move, 10:00 left" in line()
        now[0] += 24
        lobby.tick_clocks()  # what its timer calls every second
        await settle(pilot)
        assert "your move, 9:36 left" in line()
        alice.release_tables()


async def test_apps_of_one_theme_share_one_parse_of_the_css_and_a_theme_change_parses_its_own(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    alice, bob = ServeApp(hub=hub, player="alice"), ServeApp(hub=hub, player="bob")
    async with alice.run_test(size=SIZE) as pa, bob.run_test(size=SIZE) as pb:
        await settle(pa, pb)
        bobs = {id(rule) for rule in bob.stylesheet.rules}
        assert bobs and {id(rule) for rule in alice.stylesheet.rules} == bobs  # the same parsed rule sets

        bob.theme = "textual-light" if alice.theme != "textual-light" else "textual-dark"
        await settle(pa, pb)
        assert {id(rule) for rule in bob.stylesheet.rules}.isdisjoint({id(rule) for rule in alice.stylesheet.rules})
        assert isinstance(alice.screen, LobbyScreen) and isinstance(bob.screen, LobbyScreen)
        assert bob.screen.styles.background != alice.screen.styles.background  # each drawn in its own theme


def test_textuals_strip_is_the_one_whose_caches_the_server_makes_lazy():
    from termgames.server.ui.strips import strip_is_as_expected

    assert strip_is_as_expected(), "Textual's Strip changed: look at termgames/server/ui/strips.py again"


async def test_a_server_apps_lines_make_their_caches_when_first_used(tmp_path, new_store):
    from textual.cache import FIFOCache
    from textual.strip import Strip

    from termgames.server.ui.strips import CACHE_SIZES

    hub = make_hub(new_store, tmp_path)
    alice = ServeApp(hub=hub, player="alice")
    async with alice.run_test(size=SIZE) as pilot:
        await settle(pilot)
        made = Strip.blank(4)
        assert [name for name in CACHE_SIZES if _slot_filled(made, name)] == []  # none made with the line
        cropped = made.crop(0, 2)
        assert cropped.text == "  " and isinstance(made._crop_cache, FIFOCache) and len(made._crop_cache) == 1
        assert made.crop(0, 2) is cropped  # the cache made on first use serves the next


def _slot_filled(strip, name: str) -> bool:
    """Whether the slot behind a lazy cache property holds a cache yet (read without making one)."""
    prop = type(strip).__dict__[name]
    slot = prop.fget.__closure__[0].cell_contents  # the member descriptor the property wraps
    try:
        slot.__get__(strip, type(strip))
    except AttributeError:
        return False
    return True
