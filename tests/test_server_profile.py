"""Player pages: the stores' rating history and a player's finished tables, ``profile NAME [--json]``."""

from __future__ import annotations

import json

import pytest
from test_server_ratings import make_hub, play_out

from termgames.match import AI, MoveRecord, Seat
from termgames.server.commands import run_command
from termgames.server.hub import Hub
from termgames.server.profile import player_profile
from termgames.server.stores.interface import RatedResult


def _seats(*names: str) -> list[dict]:
    return [Seat(name=name).to_dict() for name in names]


def test_a_store_gives_a_players_rating_history_and_finished_tables(new_store):
    store = new_store()
    for name in ("alice", "bob", "a_b"):
        assert store.claim(name, f"SHA256:{name}")
    first = store.create_table("mono", {}, 1, _seats("alice", "bob"), "alice", rated=True)
    store.append_move(first, 0, MoveRecord(0, "a1", "2026-01-02T10:00:00+00:00"))
    store.append_move(first, 1, MoveRecord(1, "b1", "2026-01-02T11:00:00+00:00"))
    store.finish_table(first, RatedResult("mono", ("alice", "bob"), (0, 1)), outcome="alice wins")
    second = store.create_table("mono", {}, 2, _seats("bob", "alice"), "bob", rated=True)
    store.finish_table(second, RatedResult("mono", ("bob", "alice"), (0, 1)), outcome="bob wins")
    # Names a LIKE pattern would mistake: "a_b" is not "axb", "al" is no part of "alice".
    lookalike = store.create_table("mono", {}, 3, _seats("axb", "al"), "axb")
    store.finish_table(lookalike)
    underscore = store.create_table("mono", {}, 4, [*_seats("a_b", "bob"), Seat("cpu", AI, "easy").to_dict()], "a_b")
    store.finish_table(underscore)
    unfinished = store.create_table("mono", {}, 5, _seats("alice", "bob"), "alice")

    history = store.rating_history("alice", 10)
    assert [point.table_id for point in history] == [first, second]
    assert history[0].time == "2026-01-02T11:00:00+00:00"  # its last move's time
    assert history[0].after.mu > history[0].before.mu and history[1].after.mu < history[1].before.mu
    assert history[1].before == history[0].after
    assert store.rating_history("carol", 10) == []
    assert [point.table_id for point in store.rating_history("alice", 1)] == [second]  # the newest

    assert [t.stored.id for t in store.finished_of("alice", 10)] == [second, first]
    assert [t.stored.id for t in store.finished_of("alice", 1)] == [second]
    assert store.finished_of("alice", 10)[1].ended == "2026-01-02T11:00:00+00:00"
    assert [t.stored.id for t in store.finished_of("a_b", 10)] == [underscore]
    assert store.finished_of("al", 10)[0].stored.id == lookalike and len(store.finished_of("al", 10)) == 1
    assert store.finished_of("cpu", 10) == []  # a computer seat is no player's
    assert unfinished not in [t.stored.id for t in store.finished_of("bob", 10)]


def expected(table, seat: int) -> str:
    winners = table.match.winners()
    if seat in winners:
        return "won" if len(winners) == 1 else "drawn"
    return "drawn" if not winners else "lost"


def test_profile_json_gives_ratings_history_results_and_recent_games(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, "alice", "bob")
    rated = [
        hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice") for _ in range(3)
    ]
    for table in rated:
        play_out(table)
    against_ai = hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat("cpu", AI, "easy")], "alice")
    play_out(against_ai)
    open_table = hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice")

    result = run_command(hub, "bob", "profile ALICE --json")
    assert result.status == 0, result.stderr
    page = json.loads(result.stdout)
    assert page["name"] == "alice"  # the account's name as registered
    mono = page["games"]["mono"]
    assert mono["rating"] == pytest.approx(hub.rating("alice", "mono").rating.mu, abs=0.01)
    assert len(mono["history"]) == 3 and all(isinstance(t, str) and isinstance(mu, float) for t, mu in mono["history"])
    assert mono["history"][-1][1] == mono["rating"]
    results = [expected(t, 0) for t in rated] + [expected(against_ai, 0)]
    assert mono["played"] == 4 and mono["won"] == results.count("won") and mono["lost"] == results.count("lost")
    assert mono["by_opponent"]["computer easy"]["played"] == 1
    assert mono["by_opponent"]["person"]["played"] == 3
    assert page["played"] == 4 and page["best_streak"] >= page["streak"] >= 0
    assert [entry["table"] for entry in page["recent"]] == [against_ai.id] + [t.id for t in reversed(rated)]
    assert open_table.id not in [entry["table"] for entry in page["recent"]]
    assert page["recent"][0]["result"] == expected(against_ai, 0) and not page["recent"][0]["rated"]
    assert "change" in page["recent"][1] and "change" not in page["recent"][0]

    text = run_command(hub, "alice", "profile alice")
    assert text.status == 0 and "Mono: rating" in text.stdout and f"{against_ai.id}" in text.stdout


def test_profile_refuses_a_bad_name_in_one_line_and_shows_a_stranger_empty(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, "alice")
    bad = run_command(hub, "alice", "profile '\x1b[2Jevil'")
    assert bad.status == 2 and "\x1b" not in bad.stderr and bad.stderr.count("\n") == 1
    assert run_command(hub, "alice", "profile").status == 2
    page = player_profile(hub, "nobody")
    assert page == {
        "name": "nobody", "games": {}, "recent": [], "played": 0, "won": 0, "lost": 0, "drawn": 0,
        "streak": 0, "best_streak": 0, "by_opponent": {},
    }
    assert "no finished games yet" in run_command(hub, "alice", "profile nobody").stdout


# -- the lobby's player page -----------------------------------------------------------------------------------


def page_text(screen) -> str:
    listing = screen.query_one("#profile-page")
    return "\n".join(str(option.prompt) for option in listing.options)


@pytest.mark.parametrize(("size", "ascii_mode"), [((80, 24), False), ((50, 20), True)])
async def test_the_lobby_opens_a_player_page_with_a_chart_and_enter_replays_a_recent_game(
    tmp_path, new_store, size, ascii_mode
):
    from termgames.screens.replay import ReplayScreen
    from termgames.server.ui.app import ServeApp
    from termgames.server.ui.lobby import LobbyScreen
    from termgames.server.ui.profile import ProfileScreen

    hub = make_hub(new_store, tmp_path, "alice", "bob")
    rated = [
        hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice") for _ in range(3)
    ]
    for table in rated:
        play_out(table)
    seed = rated[-1].match.seed
    hub.close()
    hub = Hub(new_store(), tmp_path / "records")  # a restart: the finished tables are read when asked for
    alice = ServeApp(hub=hub, player="alice", ascii=ascii_mode)
    async with alice.run_test(size=size) as pilot:
        await pilot.press("p")
        await pilot.pause()
        screen = alice.screen
        assert isinstance(screen, ProfileScreen)
        text = page_text(screen)
        assert "Mono" in text and "rating" in text and "played 3" in text
        chart = [row for row in text.splitlines() if ("|" if ascii_mode else "│") in row]
        # The chart fits inside the list's border (longer lines wrap, a chart's row must not).
        assert len(chart) == 4 and all(len(row) <= size[0] - 4 for row in chart)
        if ascii_mode:
            assert all(ord(char) < 128 for char in text) and "#" in chart[-1]
        else:
            assert any(block in "".join(chart) for block in "▁▂▃▄▅▆▇█")
        # The cursor starts on the newest recent game, and stays on the one chosen through a resize.
        listing = screen.query_one("#profile-page")
        assert listing.highlighted_option.id == f"recent:{rated[-1].id}"
        await pilot.press("down")
        await pilot.resize_terminal(size[0] + 10, size[1] + 2)
        await pilot.pause()
        assert listing.highlighted_option.id == f"recent:{rated[-2].id}"
        await pilot.press("up")
        await pilot.resize_terminal(*size)
        await pilot.pause()
        # Enter replays it.
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(alice.screen, ReplayScreen)
        assert alice.screen.match.seed == seed
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(alice.screen, ProfileScreen)
        # Another player's page: / then the name.
        await pilot.press("slash", *"bob", "enter")
        await pilot.pause()
        assert screen.page is not None and screen.page["name"] == "bob"
        await pilot.press("slash", *"no such!", "enter")
        await pilot.pause()
        assert "! no player can be called" in page_text(screen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(alice.screen, LobbyScreen)


def test_a_store_reads_a_rating_history_by_its_index(new_store, store_kind):
    store = new_store()
    if store_kind == "sqlite":
        plan = " ".join(
            str(row) for row in store.db.execute(
                "EXPLAIN QUERY PLAN SELECT table_id FROM rating_changes WHERE player = ?", ("alice",)
            )
        )
    else:
        plan = str(store._run(lambda c: c.fetch(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'rating_changes'"
        )))
    assert "rating_changes_by_player" in plan
