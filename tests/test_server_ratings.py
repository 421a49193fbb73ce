"""Ratings for people: the store keeps them, the hub rates finished rated tables, the commands show them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hubkit import Listener

from termgames.games import GAMES
from termgames.match import AI, Seat
from termgames.rating import Rating, ranks_of, rate
from termgames.rules import RuleError
from termgames.server.commands import run_command
from termgames.server.hub import Hub
from termgames.server.stores.interface import RatedResult
from termgames.server.stores.sqlite import Store


def test_ranks_winners_first_then_scores_ties_as_ties():
    assert ranks_of((0,), (3, 1), 2) == [0.0, 1.0]
    assert ranks_of((0, 1), (2, 2), 2) == [0.0, 0.0]
    assert ranks_of((2,), (5, 7, 9, 5), 4) == [2.0, 1.0, 0.0, 2.0]
    assert ranks_of((), (1, 1), 2) == [0.0, 0.0]


def test_rate_moves_the_winner_up_and_a_tie_between_equals_leaves_mu():
    winner, loser = rate([Rating(), Rating()], [0, 1])
    assert winner.mu > 25 > loser.mu and winner.sigma < Rating().sigma
    first, second = rate([Rating(), Rating()], [0, 0])
    assert first.mu == pytest.approx(25) == second.mu


def test_ratings_are_written_with_the_finish_and_survive_a_reopen(tmp_path, new_store):
    store = new_store()
    table_id = store.create_table("copolymer", {}, 1, [], "alice", rated=True)
    changes = store.finish_table(table_id, RatedResult("copolymer", ("alice", "bob"), (0.0, 1.0)))
    assert [c.player for c in changes] == ["alice", "bob"]
    assert changes[0].after.mu > changes[0].before.mu
    # Finished again (an undo and a second end, or a restart's recovery): never rated twice.
    assert store.finish_table(table_id, RatedResult("copolymer", ("alice", "bob"), (1.0, 0.0))) == []
    store.close()

    store = new_store()
    alice = store.rating("alice", "copolymer")
    assert alice is not None and alice.games == 1 and alice.rating == changes[0].after
    assert store.rating("alice", "mono") is None and store.rating("carol", "copolymer") is None
    assert [r.player for r in store.ratings("copolymer")] == ["alice", "bob"]
    assert store.ratings("mono") == []
    assert store.rating_changes(table_id) == changes
    [loaded] = store.load_tables()
    assert loaded.finished and loaded.rated


def test_a_casual_finish_rates_nobody(tmp_path, new_store):
    store = new_store()
    table_id = store.create_table("copolymer", {}, 1, [], "alice")
    assert store.finish_table(table_id) == []
    assert store.ratings() == [] and not store.load_tables()[0].rated


def test_a_failed_rating_leaves_the_table_unfinished(tmp_path, new_store):
    store = new_store()
    table_id = store.create_table("copolymer", {}, 1, [], "alice", rated=True)
    with pytest.raises(ValueError):
        store.finish_table(table_id, RatedResult("copolymer", ("alice", "alice"), (0.0, 1.0)))
    assert not store.load_tables()[0].finished and store.ratings() == []


def test_a_database_from_before_ratings_gets_them_and_its_tables_stay_casual(tmp_path, new_store):
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE tables (id INTEGER PRIMARY KEY AUTOINCREMENT, game TEXT NOT NULL, options TEXT NOT NULL,"
        " seed TEXT NOT NULL, seats TEXT NOT NULL, creator TEXT NOT NULL, created TEXT NOT NULL,"
        " finished INTEGER NOT NULL DEFAULT 0);"
        "INSERT INTO tables (game, options, seed, seats, creator, created) VALUES ('mono', '{}', '7', '[]', 'a', 'x');"
    )
    db.commit()
    db.close()
    store = Store(path)
    [old] = store.load_tables()
    assert not old.rated and old.seed == 7
    assert store.ratings() == []


# -- the hub: rated tables --------------------------------------------------------------------------------


def make_hub(new_store, folder: Path, *accounts: str) -> Hub:
    """A hub on the test's store (SQLite or PostgreSQL: see ``new_store`` in conftest)."""
    hub = Hub(new_store(), folder / "records")
    for name in accounts:
        assert hub.store.claim(name, f"SHA256:{name}")
    return hub


def play_out(table) -> None:
    """Random moves until the game ends (Mono on two regions ends in a few)."""
    while not table.over:
        table.play(table.match.state.to_move()[0], "random")


def test_a_rated_table_rates_its_accounts_when_it_ends_and_the_ratings_survive_a_restart(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, "alice", "bob")
    table = hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice")
    assert table.rated  # human-only: rated unless asked otherwise
    watcher = Listener("carol", None)
    table.subscribe(watcher)
    play_out(table)
    winners = table.match.state.winners()
    alice, bob = hub.rating("alice", "mono"), hub.rating("bob", "mono")
    assert alice is not None and bob is not None and alice.games == bob.games == 1
    if winners == (0,):
        assert alice.rating.mu > 25 > bob.rating.mu
    elif winners == (1,):
        assert bob.rating.mu > 25 > alice.rating.mu
    else:
        assert alice.rating.mu == pytest.approx(bob.rating.mu)
    assert any(kind == "notice" and text.startswith("Rated: ") for kind, text in watcher.events)
    hub.store.close()

    again = make_hub(new_store, tmp_path)
    assert again.rating("ALICE", "mono") == alice  # names fold: Alice's account is alice's
    assert again.table(table.id).rating_changes == table.rating_changes
    assert again.rating("alice", "copolymer") is None


def test_a_crash_between_the_last_move_and_the_finish_rates_once_on_restart(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, "alice", "bob")
    table = hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice")
    hub.finished = lambda table: None  # type: ignore[method-assign]  # the server dies before marking it
    play_out(table)
    assert hub.store.ratings() == []
    hub.store.close()
    restarted = make_hub(new_store, tmp_path)
    assert [r.games for r in restarted.store.ratings("mono")] == [1, 1]
    restarted.store.close()
    assert [r.games for r in make_hub(new_store, tmp_path).store.ratings("mono")] == [1, 1]  # and not again


def test_a_rated_table_refuses_two_seats_of_one_account(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, "Alice", "bob")
    with pytest.raises(RuleError, match="one account takes one seat, and Alice has one already"):
        hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="ALICE")], "Alice")
    table = hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat()], "Alice")
    assert table.names[0] == "Alice" and table.rated
    # A name differing only in case is the same account (a seat named before the account was claimed, say).
    table.seats[0] = Seat(name="alice")
    hub.store.update_seats(table.id, [s.to_dict() for s in table.seats])  # stored so, as a store of many servers checks
    with pytest.raises(RuleError, match="table 1 is rated: one account takes one seat"):
        table.join("ALICE")
    with pytest.raises(RuleError, match="guests play at casual tables"):
        table.join("guest-x-0123456789abcdef")
    assert table.join("bob") == 1
    # A casual table lets a player sit twice (against herself): nothing is rated.
    casual = hub.create_table("mono", {"size": 2}, [Seat(name="Alice"), Seat()], "Alice", rated=False)
    casual.seats[0] = Seat(name="alice")
    hub.store.update_seats(casual.id, [s.to_dict() for s in casual.seats])
    assert casual.join("ALICE") == 1


def test_tables_with_a_computer_seat_or_a_guest_are_casual(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, "alice")
    with_ai = hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat("cpu", AI, "easy")], "alice")
    assert not with_ai.rated
    with pytest.raises(RuleError, match="a table with a computer seat is casual"):
        hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat("cpu", AI, "easy")], "alice", rated=True)
    guest = "guest-x-0123456789abcdef"
    assert not hub.create_table("mono", {"size": 2}, [Seat(name=guest), Seat()], guest).rated
    with pytest.raises(RuleError, match="guests play at casual tables"):
        hub.create_table("mono", {"size": 2}, [Seat(name=guest), Seat()], guest, rated=True)


def test_a_casual_table_or_a_seat_without_an_account_rates_nobody(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, "alice")
    casual = hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice", rated=False)
    play_out(casual)
    unclaimed = hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice")
    watcher = Listener("alice", 0)
    unclaimed.subscribe(watcher)
    play_out(unclaimed)
    assert hub.store.ratings() == []
    assert ("notice", "Not rated: bob has no account (the first SSH key to sign in as a name claims it)") in (
        watcher.events
    )


def test_a_finished_rated_game_cannot_be_taken_back(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, "alice", "bob")
    table = hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice")
    play_out(table)
    with pytest.raises(RuleError, match="over and rated"):
        table.request_undo(0)


# -- the commands ---------------------------------------------------------------------------------------


def test_challenge_chooses_rated_or_casual_and_tables_shows_it_with_ratings(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, "alice", "bob")
    made = run_command(hub, "alice", "challenge mono --size 2 bob")
    assert made.status == 0 and "; rated; " in made.stdout
    play_out(hub.table(1))
    assert "; casual; " in run_command(hub, "alice", "challenge mono --casual --size 2 bob").stdout
    assert "; casual; " in run_command(hub, "alice", "challenge mono --size 2 cpu:ai:easy").stdout
    refused = run_command(hub, "alice", "challenge mono --rated --size 2 cpu:ai:easy")
    assert refused.status == 2 and refused.stderr.count("\n") == 1 and "computer seat is casual" in refused.stderr
    both = run_command(hub, "alice", "challenge mono --rated --casual --size 2 bob")
    assert both.status == 2 and "not both" in both.stderr
    listing = run_command(hub, "alice", "tables").stdout.splitlines()
    alice, bob = hub.rating("alice", "mono"), hub.rating("bob", "mono")
    assert listing[0].startswith("    1  mono       rated   ")
    change = {c.player: c.after.mu - c.before.mu for c in hub.table(1).rating_changes}
    assert f"alice {change['alice']:+.1f} vs bob {change['bob']:+.1f}  (over: " in listing[0]  # what it did
    assert listing[1].startswith("*   2  mono       casual  ")
    assert f"alice {alice.rating.short()} vs bob {bob.rating.short()}  (alice to move)" in listing[1]  # as now
    assert "cpu vs" not in listing[2] and " vs cpu  (" in listing[2]  # a computer seat has no rating


def test_the_ratings_command(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path, "alice", "bob")
    assert run_command(hub, "alice", "ratings").stdout.startswith("no rated games yet")
    assert run_command(hub, "alice", "ratings mono").stdout.startswith("no rated games of Mono yet")
    unknown = run_command(hub, "alice", "ratings chess")
    assert unknown.status == 2 and unknown.stdout == ""
    assert unknown.stderr == f"termgames: there is no game 'chess' (games: {', '.join(GAMES)})\n"
    assert run_command(hub, "alice", "ratings mono copolymer").status == 2

    table = hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice")
    play_out(table)
    out = run_command(hub, "alice", "ratings mono")
    assert out.status == 0
    lines = out.stdout.splitlines()
    assert lines[0] == "Mono: rated games between accounts, best first (by mu - 3 sigma)"
    assert lines[1].split() == ["#", "player", "mu", "sigma", "mu-3sigma", "games"]
    ranked = [hub.rating(name, "mono") for name in ("alice", "bob")]
    ranked.sort(key=lambda r: -r.rating.ordinal)
    first = ranked[0]
    assert lines[2].split() == [
        "1", first.player, f"{first.rating.mu:.1f}", f"{first.rating.sigma:.2f}", f"{first.rating.ordinal:.1f}", "1"
    ]
    assert len(lines) == 4
    assert run_command(hub, "bob", "ratings").stdout == out.stdout  # every game: only Mono has ratings
    assert run_command(hub, "bob", "ratings copolymer").stdout.startswith("no rated games of Copolymer yet")


# -- the lobby ------------------------------------------------------------------------------------------

SIZE = (110, 32)


async def settle(*pilots) -> None:
    for _ in range(3):
        for pilot in pilots:
            await pilot.pause()


def lobby_line(app, option_id: str) -> str:
    return str(app.screen.query_one("#tables").get_option(option_id).prompt)


async def test_the_lobby_shows_ratings_and_the_new_table_form_chooses_rated_or_casual(tmp_path, new_store):
    from textual.widgets import Select

    from termgames.server.ui.app import ServeApp
    from termgames.server.ui.lobby import CreateTableScreen, LobbyScreen, RatingsScreen

    hub = make_hub(new_store, tmp_path, "alice", "bob")
    finished = hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice")
    play_out(finished)
    waiting = hub.create_table("mono", {"size": 2}, [Seat(name="bob"), Seat()], "bob")
    alice_change = next(c for c in finished.rating_changes if c.player == "alice")
    bob_now = hub.rating("bob", "mono")

    app = ServeApp(hub=hub, player="alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        done = lobby_line(app, f"done:{finished.id}")
        assert " · rated · " in done and f"alice {alice_change.after.mu - alice_change.before.mu:+.1f}" in done
        assert f"bob {bob_now.rating.short()}" in lobby_line(app, f"open:{waiting.id}")

        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, RatingsScreen)
        text = str(app.screen.query_one("#ratings-text").render())
        assert text.startswith("Mono: rated games") and "alice" in text and "bob" in text
        await pilot.press("escape")
        await settle(pilot)

        await pilot.press("n")
        await settle(pilot)
        await pilot.press("enter")  # the first game: Copolymer
        await settle(pilot)
        assert isinstance(app.screen, CreateTableScreen)
        choice = app.screen.query_one("#table-rated", Select)
        assert choice.value == "rated"
        assert str(app.screen.query_one("#setup-summary").content).endswith("  ·  rated")
        choice.value = "casual"
        app.screen.query_one("#option-size").value = "5"
        await settle(pilot)
        assert str(app.screen.query_one("#setup-summary").content).endswith("  ·  casual")
        await pilot.press("ctrl+s")
        await settle(pilot)
        made = max(hub.tables.values(), key=lambda t: t.id)
        assert made.game.name == "copolymer" and not made.rated


async def test_a_guests_new_table_is_casual_by_default(tmp_path, new_store):
    from textual.widgets import Select

    from termgames.server.ui.app import ServeApp
    from termgames.server.ui.lobby import CreateTableScreen

    hub = make_hub(new_store, tmp_path)
    app = ServeApp(hub=hub, player="guest-x-0123456789abcdef", guest=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, CreateTableScreen)
        assert app.screen.query_one("#table-rated", Select).value == "casual"


async def test_at_the_table_the_players_see_rated_and_each_others_rating(tmp_path, new_store):
    from termgames.server.ui.app import ServeApp
    from termgames.server.ui.shared_game import SharedGameMixin

    hub = make_hub(new_store, tmp_path, "alice", "bob")
    play_out(hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice"))
    table = hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice")
    bob_now = hub.rating("bob", "mono").rating.short()
    app = ServeApp(hub=hub, player="alice")
    async with app.run_test(size=SIZE) as pilot:
        app.open_table(table.id)
        await settle(pilot)
        assert isinstance(app.screen, SharedGameMixin)
        presence = str(app.screen.query_one("#presence").render())
        assert f"bob {bob_now} away" in presence and presence.rstrip().endswith("rated")
        play_out(table)
        await settle(pilot)
        change = {c.player: c.after.mu - c.before.mu for c in table.rating_changes}
        assert f"bob {change['bob']:+.1f} away" in str(app.screen.query_one("#presence").render())


# -- over real SSH ---------------------------------------------------------------------------------------


async def test_two_players_finish_a_rated_game_by_correspondence_over_ssh(tmp_path):
    import asyncssh
    from sshterm import command

    from termgames.server.ssh import start_server

    keys = {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("alice", "bob")}
    server = await start_server(tmp_path, "127.0.0.1", 0)
    try:
        assert (await command(server.port, "bob", keys["bob"], "tables")).exit_status == 0  # bob's key claims bob
        made = await command(server.port, "alice", keys["alice"], "challenge mono --size 2 bob")
        assert made.exit_status == 0 and "; rated; " in made.stdout
        for _ply in range(12):
            shown = await command(server.port, "alice", keys["alice"], "tables")
            if "(over: " in shown.stdout:
                break
            for name in ("alice", "bob"):
                await command(server.port, name, keys[name], "move 1 random")
        out = await command(server.port, "bob", keys["bob"], "ratings mono")
        assert out.exit_status == 0
        assert [line.split()[1] for line in out.stdout.splitlines()[2:]] in (["alice", "bob"], ["bob", "alice"])
        assert all(line.split()[-1] == "1" for line in out.stdout.splitlines()[2:])
        unknown = await command(server.port, "bob", keys["bob"], "ratings chess")
        assert unknown.exit_status == 2 and unknown.stderr.startswith("termgames: there is no game 'chess'")
    finally:
        await server.close()


def test_a_newcomers_rating_is_openskills():
    from openskill.models import PlackettLuce

    newcomer = PlackettLuce().rating()
    assert (Rating().mu, Rating().sigma) == (newcomer.mu, newcomer.sigma) and Rating().ordinal == 0
    assert Rating().short() == "25?" and Rating(30.04, 4.9).short() == "30"


def test_ratings_of_a_100_kb_game_name_quotes_only_the_start_of_it(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    result = run_command(hub, "alice", "ratings " + "x" * 100_000)
    assert result.status == 2 and "there is no game 'xxxx" in result.stderr
    assert len(result.stderr) < 300 and "(100000 characters)" in result.stderr
