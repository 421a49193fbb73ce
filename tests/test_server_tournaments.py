"""The server's tournaments: entries, rounds on the timer, tables, results, forfeits, restarts, two servers."""

from __future__ import annotations

import json
import random
from pathlib import Path

from test_server_notices import confirmed

from termgames.server.commands import run_command
from termgames.server.hub import Hub

NAMES = ["ann", "ben", "cat", "dan", "eve", "fay", "gus"]
DAY = 86400.0


class Now:
    """The hub's clock, moved by the test."""

    def __init__(self) -> None:
        self.at = 1_800_000_000.0

    def __call__(self) -> float:
        return self.at


def make_hub(store, folder: Path, now: Now, **settings) -> Hub:
    hub = Hub(store, folder / "records", now=now, **settings)
    for name in NAMES:
        hub.store.claim(name, f"SHA256:{name}")
    return hub


def ok(hub: Hub, player: str, line: str) -> str:
    result = run_command(hub, player, line)
    assert result.status == 0, result.stderr
    return result.stdout.strip()


def fail(hub: Hub, player: str, line: str, owner: str | None = None) -> str:
    result = run_command(hub, player, line, owner=owner)
    assert result.status != 0, result.stdout
    return result.stderr.strip()


def shown(hub: Hub, number: int) -> dict:
    return json.loads(ok(hub, "ann", f"tournament show {number} --json"))


def lose_on_time(hub: Hub, now: Now, table_id: int, loser: str) -> None:
    """``loser`` runs out of time at ``table_id`` (a 3d/move clock): a random move first if she is not to move."""
    table = hub.table(table_id)
    if table.names[table.match.to_move()[0]] != loser:
        seat = table.match.to_move()[0]
        table.play(seat, table.match.state.random_move(seat, random.Random(table_id)))
    assert table.names[table.match.to_move()[0]] == loser


def play_round(hub: Hub, now: Now, number: int, beats) -> None:
    """Every game of the current round: ``beats(a, b)`` says whether a beats b; the loser's time runs out."""
    current = shown(hub, number)["rounds"][-1]
    for game in current:
        if len(game["seats"]) == 1:
            continue
        one, other = game["seats"]
        lose_on_time(hub, now, game["table"], other if beats(one, other) else one)
    now.at += 3 * DAY + 60
    for game in current:
        if game["table"]:
            hub.table(game["table"]).check_clocks(now.at)
    hub.tournaments.tick()


def test_a_seven_player_three_round_swiss_of_copolymer(tmp_path, new_store):
    now = Now()
    hub = make_hub(new_store(), tmp_path, now)
    number = int(ok(hub, "ann", "tournament new copolymer --swiss 3 --clock 3d/move --when-full 7 --rated"))
    for name in NAMES[1:]:
        ok(hub, name, f"tournament join {number}")
    assert shown(hub, number)["status"] == "waiting"
    hub.tournaments.tick()
    data = shown(hub, number)
    assert data["status"] == "running" and data["format"] == "swiss" and data["game"] == "copolymer"
    # Ranked by name (nobody rated yet): the lowest, gus, rests; the top half meets the bottom half.
    assert [game["seats"] for game in data["rounds"][0]] == [
        ["ann", "dan"], ["ben", "eve"], ["cat", "fay"], ["gus"],
    ]
    order = {name: index for index, name in enumerate(NAMES)}

    def beats(one: str, other: str) -> bool:  # the one earlier in the alphabet wins
        return order[one] < order[other]

    play_round(hub, now, number, beats)
    rounds = shown(hub, number)["rounds"]
    assert len(rounds) == 2
    pairs = [sorted(game["seats"]) for game in rounds[1]]
    played = [sorted(game["seats"]) for game in rounds[0]]
    assert not any(pair in played for pair in pairs if len(pair) == 2)  # never the same pair twice
    play_round(hub, now, number, beats)
    play_round(hub, now, number, beats)
    data = shown(hub, number)
    assert data["status"] == "finished"
    byes = [game["seats"][0] for games in data["rounds"] for game in games if len(game["seats"]) == 1]
    assert len(byes) == len(set(byes)) == 3  # one bye a round, once a player
    # Every result checked against the points the rounds say, and the tiebreaks worked out here by hand.
    final = {line["player"]: line["points"] for line in data["standings"]}
    for line in data["standings"]:
        buchholz = sonneborn = 0.0
        for games in data["rounds"]:
            for game in games:
                if line["player"] in game["seats"] and len(game["seats"]) == 2:
                    other = next(name for name in game["seats"] if name != line["player"])
                    buchholz += final[other]
                    if game["winners"] == [line["player"]]:
                        sonneborn += final[other]
        assert line["tiebreaks"] == {"buchholz": buchholz, "sonneborn_berger": sonneborn}
    assert [line["player"] for line in data["standings"]][:1] == ["ann"]
    assert final["ann"] == 3.0
    # The ratings moved: the tournament's games were rated.
    assert hub.rating("ann", "copolymer") is not None
    text = ok(hub, "ann", f"tournament show {number}")
    assert "buchholz" in text and "round 3:" in text


def test_hand_computed_standings_of_the_swiss(tmp_path, new_store):
    """The same event's final standings, computed by hand from its pairings (printed by the test above)."""
    now = Now()
    hub = make_hub(new_store(), tmp_path, now)
    number = int(ok(hub, "ann", "tournament new copolymer --swiss 3 --clock 3d/move --when-full 7"))
    for name in NAMES[1:]:
        ok(hub, name, f"tournament join {number}")
    hub.tournaments.tick()
    order = {name: index for index, name in enumerate(NAMES)}
    for _round in range(3):
        play_round(hub, now, number, lambda one, other: order[one] < order[other])
    data = shown(hub, number)
    got = [(line["player"], line["points"], line["tiebreaks"]["buchholz"], line["tiebreaks"]["sonneborn_berger"])
           for line in data["standings"]]
    assert got == EXPECTED_SWISS, (got, [[g["seats"] for g in r] for r in data["rounds"]])


#: By hand.  Round 1: ann-dan 1-0, ben-eve 1-0, cat-fay 1-0, gus a bye.  Round 2: ann-cat 1-0, gus-ben 0-1,
#: dan-eve 1-0, fay a bye.  Round 3: ben-ann 0-1, cat-dan 1-0, fay-gus 1-0, eve a bye.  Final points: ann 3;
#: ben, cat, fay 2; dan, gus, eve 1.  Buchholz (opponents' final points, a bye none): ann 1+2+2, cat 2+3+1,
#: ben 1+1+3, fay 2+1, dan 3+1+2, gus 2+2, eve 2+1.  Sonneborn-Berger (the beaten ones' points): ann 5, cat
#: fay+dan 3, ben eve+gus 2, fay gus 1, dan eve 1, gus 0, eve 0.
EXPECTED_SWISS = [
    ("ann", 3.0, 5.0, 5.0), ("cat", 2.0, 6.0, 3.0), ("ben", 2.0, 5.0, 2.0), ("fay", 2.0, 3.0, 1.0),
    ("dan", 1.0, 6.0, 1.0), ("gus", 1.0, 4.0, 0.0), ("eve", 1.0, 3.0, 0.0),
]


def finish_game(hub: Hub, now: Now, table_id: int, loser: str) -> None:
    """``loser`` runs out of time at ``table_id`` now (the hub's clock moves on by the clock's N)."""
    lose_on_time(hub, now, table_id, loser)
    table = hub.table(table_id)
    clocks = table.match.clocks
    assert clocks is not None
    table.check_clocks(clocks.deadline() + 1)


def test_a_four_player_round_robin_meets_each_pair_once(tmp_path, new_store):
    now = Now()
    hub = make_hub(new_store(), tmp_path, now)
    number = int(ok(hub, "ann", "tournament new copolymer --round-robin --clock 3d/move --when-full 4"))
    for name in NAMES[1:4]:
        ok(hub, name, f"tournament join {number}")
    heard: list[str] = []
    hub.notices.attach("ann", lambda notice: heard.append(notice.text))
    hub.tournaments.tick()
    first = shown(hub, number)["rounds"][0]
    mine = next(game for game in first if "ann" in game["seats"])
    assert heard and heard[0].startswith(f"Your next game of tournament {number} is ready: table #{mine['table']}")
    # A round robin under way takes nobody more.
    assert "takes no more players" in fail(hub, "eve", f"tournament join {number}")
    for _round in range(3):
        current = shown(hub, number)["rounds"][-1]
        assert len(current) == 2 and all(game["table"] for game in current)
        for game in current:
            lose_on_time(hub, now, game["table"], max(game["seats"]))
        now.at += 3 * DAY + 60
        for game in current:
            hub.table(game["table"]).check_clocks(now.at)
        hub.tournaments.tick()
    data = shown(hub, number)
    assert data["status"] == "finished" and len(data["rounds"]) == 3
    pairs = [frozenset(game["seats"]) for games in data["rounds"] for game in games]
    assert len(pairs) == len(set(pairs)) == 6
    firsts = [game["seats"][0] for games in data["rounds"] for game in games]
    assert sorted(firsts.count(name) for name in NAMES[:4]) == [1, 1, 2, 2]  # who moves first, balanced
    assert [(line["player"], line["points"]) for line in data["standings"]] == [
        ("ann", 3.0), ("ben", 2.0), ("cat", 1.0), ("dan", 0.0),
    ]


def test_an_arena_of_six_pairs_again_as_soon_as_a_game_ends(tmp_path, new_store):
    now = Now()
    hub = make_hub(new_store(), tmp_path, now)
    number = int(ok(hub, "ann", "tournament new copolymer --arena 60 --clock 3d/move --when-full 6"))
    for name in NAMES[1:6]:
        ok(hub, name, f"tournament join {number}")
    hub.tournaments.tick()
    first = shown(hub, number)["rounds"]
    assert len(first) == 1 and len(first[0]) == 3
    # The games end at different times: each ending pairs its players again at once, the others play on.
    game = first[0][0]
    winner, loser = game["seats"]
    finish_game(hub, now, game["table"], loser)
    hub.tournaments.tick()
    rounds = shown(hub, number)["rounds"]
    assert len(rounds) == 2 and sorted(rounds[1][0]["seats"]) == sorted(game["seats"])
    assert all(g.get("points") is None for g in rounds[0][1:])
    # The winner wins twice more: the third win is on a streak and counts double (2 + 2 + 4).
    for _game in range(2):
        current = shown(hub, number)["rounds"][-1][0]
        assert winner in current["seats"]
        other = next(name for name in current["seats"] if name != winner)
        finish_game(hub, now, current["table"], other)
        hub.tournaments.tick()
    standings = {line["player"]: line for line in shown(hub, number)["standings"]}
    assert standings[winner]["points"] == 8 and standings[winner]["games"] == 3
    # The arena's time is up: no more pairings; it finishes once the games under way end.
    now.at += 3600
    for games in shown(hub, number)["rounds"]:
        for g in games:
            if g.get("points") is None:
                finish_game(hub, now, g["table"], g["seats"][1])
    hub.tournaments.tick()
    data = shown(hub, number)
    assert data["status"] == "finished"
    assert data["standings"][0]["player"] == winner


def test_a_three_seat_mosaic_event_plays_tables_of_three_and_forfeits_the_absent(tmp_path, new_store):
    now = Now()
    hub = make_hub(new_store(), tmp_path, now, tournament_grace_minutes=5)
    number = int(ok(hub, "ann", "tournament new mosaic --swiss 2 --seats 3 --clock 10m+5s --when-full 6"))
    for name in NAMES[1:6]:
        ok(hub, name, f"tournament join {number}")
    hub.tournaments.tick()
    current = shown(hub, number)["rounds"][0]
    assert [len(game["seats"]) for game in current] == [3, 3]
    tables = [hub.table(game["table"]) for game in current]
    assert all(len(table.names) == 3 for table in tables)
    now.at += 4 * 60
    hub.tournaments.tick()
    assert all(game.get("points") is None for game in shown(hub, number)["rounds"][0])  # within the grace
    now.at += 2 * 60
    hub.tournaments.tick()
    data = shown(hub, number)
    first = data["rounds"][0]
    for game, table in zip(first, tables):
        absent = table.names[0]  # the first to move never came
        assert game["forfeit"] == [absent] and table.closed.endswith("forfeited (no move 5 minutes after the start)")
        # By finishing place: the absent last (0), the two others tied for first and second (0.75 each).
        assert game["points"] == [0.0 if name == absent else 0.75 for name in game["seats"]]
    assert len(data["rounds"]) == 2  # the next round is paired at once


def test_a_tournament_survives_a_restart_mid_round(tmp_path, new_store):
    now = Now()
    hub = make_hub(new_store(), tmp_path, now)
    number = int(ok(hub, "ann", "tournament new copolymer --swiss 2 --clock 3d/move --when-full 4"))
    for name in NAMES[1:4]:
        ok(hub, name, f"tournament join {number}")
    hub.tournaments.tick()
    first = shown(hub, number)["rounds"][0]
    finish_game(hub, now, first[0]["table"], first[0]["seats"][1])
    hub.close()
    hub.store.close()
    again = make_hub(new_store(), tmp_path, now)
    lose_on_time(again, now, first[1]["table"], first[1]["seats"][0])
    table = again.table(first[1]["table"])
    table.check_clocks(table.match.clocks.deadline() + 1)
    again.tournaments.tick()
    data = shown(again, number)
    assert [game["winners"] for game in data["rounds"][0]] == [[first[0]["seats"][0]], [first[1]["seats"][1]]]
    assert len(data["rounds"]) == 2 and all(game["table"] for game in data["rounds"][1])


def test_two_servers_on_one_database_pair_a_round_exactly_once(tmp_path, new_store):
    now = Now()
    one = make_hub(new_store(), tmp_path, now)
    other = Hub(new_store(), tmp_path / "records2", now=now)
    number = int(ok(one, "ann", "tournament new copolymer --swiss 2 --clock 3d/move --when-full 4"))
    for name in NAMES[1:4]:
        ok(other, name, f"tournament join {number}")
    stale = one.tournaments.get(number)  # both servers read it before either paired
    other.tournaments._maybe_start(other.tournaments.get(number), now.at)
    one.tournaments._maybe_start(stale, now.at)
    one.tournaments.tick()
    other.tournaments.tick()
    data = shown(one, number)
    assert len(data["rounds"]) == 1 and len(data["rounds"][0]) == 2
    made = [game["table"] for game in data["rounds"][0]]
    assert len(one.store.load_open_tables()) == 2 == len(set(made))
    # A result learnt at either server; the next round paired once.
    finish_game(other, now, made[0], data["rounds"][0][0]["seats"][1])
    finish_game(other, now, made[1], data["rounds"][0][1]["seats"][1])
    stale = one.tournaments.get(number)
    other.tournaments._learn_results(stale)
    one.tournaments._learn_results(stale)
    fresh = one.tournaments.get(number)
    one.tournaments._next_round(fresh, now.at)
    other.tournaments._next_round(fresh, now.at)
    data = shown(other, number)
    assert len(data["rounds"]) == 2 and len(one.store.load_open_tables()) == 2


def test_limits_guests_and_titles(tmp_path, new_store):
    now = Now()
    hub = make_hub(new_store(), tmp_path, now, max_tournaments_per_player=1, max_tournament_entries_per_player=2)
    number = int(ok(hub, "ann", "tournament new copolymer --swiss 3 --rated --title 'Friday night'"))
    assert "--max-tournaments-per-player" in fail(hub, "ann", "tournament new copolymer --swiss 3")
    guest = "guest-1"
    assert "only a registered player" in fail(hub, guest, "tournament new copolymer --swiss 3", owner="guest:1.2.3.4")
    assert "casual tournaments only" in fail(hub, guest, f"tournament join {number}", owner="guest:1.2.3.4")
    casual = int(ok(hub, "ben", "tournament new copolymer --arena 30"))
    assert run_command(hub, guest, f"tournament join {casual}", owner="guest:1.2.3.4").status == 0
    third = int(ok(hub, "cat", "tournament new copolymer --swiss 2"))
    ok(hub, "dan", f"tournament join {number}")
    ok(hub, "dan", f"tournament join {casual}")
    assert "--max-tournament-entries-per-player" in fail(hub, "dan", f"tournament join {third}")
    ok(hub, "dan", f"tournament leave {casual}")
    ok(hub, "dan", f"tournament join {third}")
    assert "plain text" in fail(hub, "eve", "tournament new copolymer --swiss 2 --title 'a\x1b[2Jb'")
    listed = ok(hub, "dan", "tournaments")
    assert "Friday night" in listed and listed.count("\n") == 2
    assert shown(hub, number)["players"] == ["ann", "dan"]
    assert "one of --swiss" in fail(hub, "eve", "tournament new copolymer --swiss 2 --arena 5")


def test_a_change_is_stored_only_over_the_version_it_read(new_store):
    """What makes a round paired once: of two servers changing one version, the second is refused."""
    store, other = new_store(), new_store()
    number = store.create_tournament("waiting", {"rounds": []})
    assert store.update_tournament(number, 1, "running", {"rounds": [["a"]]})
    assert not other.update_tournament(number, 1, "running", {"rounds": [["b"]]})
    found = other.tournament(number)
    assert (found.version, found.status, found.data) == (2, "running", {"rounds": [["a"]]})
    assert [t.id for t in other.tournaments()] == [number]
    assert store.update_tournament(number, 2, "finished", found.data)
    assert other.tournaments() == [] and [t.id for t in other.tournaments(unfinished_only=False)] == [number]


async def test_the_lobby_lists_tournaments_and_their_screen_leads_to_the_next_game(tmp_path, new_store):
    from termgames.server.ui.app import ServeApp
    from termgames.server.ui.lobby import TOURNAMENT_LINE
    from termgames.server.ui.shared_game import SharedGameMixin
    from termgames.server.ui.tournament import TournamentScreen

    now = Now()
    hub = make_hub(new_store(), tmp_path, now)
    number = int(ok(hub, "ann", "tournament new copolymer --swiss 2 --clock 3d/move --when-full 2 --title Cup"))
    ben = ServeApp(hub=hub, player="ben", owner="key:SHA256:ben")
    async with ben.run_test(size=(100, 32)) as pilot:
        listing = ben.screen.query_one("#tables")
        index = next(i for i, option in enumerate(listing.options) if option.id == f"{TOURNAMENT_LINE}{number}")
        assert "Cup" in str(listing.options[index].prompt)
        listing.highlighted = index
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(ben.screen, TournamentScreen)
        await pilot.press("j")  # joins: the tournament is full, and starts at the timer's next look
        await pilot.pause()
        hub.tournaments.tick()
        table = shown(hub, number)["rounds"][0][0]["table"]
        ben.screen.refresh_text()
        await pilot.pause()
        assert f"your game: table {table}" in ben.screen._text
        await pilot.press("enter")
        for _ in range(3):
            await pilot.pause()
        assert isinstance(ben.screen, SharedGameMixin) and ben.screen.table.table_id == table


async def test_the_seven_player_swiss_over_ssh(tmp_path):
    """Scripted SSH clients create, join, play and read the Swiss; the hub's clock runs their time out."""
    import asyncssh
    from sshterm import command

    from termgames.server.ssh import start_server

    keys = {name: asyncssh.generate_private_key("ssh-ed25519") for name in NAMES}
    server = await start_server(tmp_path, "127.0.0.1", 0)
    now = Now()
    server.hub._now = now  # the test moves the server's time (no waiting)
    try:
        for name in NAMES:  # each key claims its name
            assert (await command(server.port, name, keys[name], "tables")).exit_status == 0
        made = await command(
            server.port, "ann", keys["ann"], "tournament new copolymer --swiss 3 --clock 3d/move --when-full 7 --rated"
        )
        assert made.exit_status == 0, made.stderr
        number = int(made.stdout)
        for name in NAMES[1:]:
            joined = await command(server.port, name, keys[name], f"tournament join {number}")
            assert joined.exit_status == 0, joined.stderr
        server.hub.tournaments.tick()
        listed = await command(server.port, "ben", keys["ben"], "tables")
        game = next(g for g in shown(server.hub, number)["rounds"][0] if "ben" in g["seats"])
        assert f"{game['table']:>4}  copolymer  rated" in listed.stdout  # a round's table, listed as any other
        if game["seats"][0] == "ben":  # ben plays his first move over SSH
            seat_move = server.hub.table(game["table"]).match.state.random_move(0, random.Random(1))
            moved = await command(server.port, "ben", keys["ben"], f"move {game['table']} {seat_move}")
            assert moved.exit_status == 0, moved.stderr
        order = {name: index for index, name in enumerate(NAMES)}
        for _round in range(3):
            play_round(server.hub, now, number, lambda one, other: order[one] < order[other])
        out = await command(server.port, "gus", keys["gus"], f"tournament show {number} --json")
        data = json.loads(out.stdout)
        assert data["status"] == "finished"
        got = [(line["player"], line["points"], line["tiebreaks"]["buchholz"],
                line["tiebreaks"]["sonneborn_berger"]) for line in data["standings"]]
        assert got == EXPECTED_SWISS
        listing = await command(server.port, "gus", keys["gus"], "tournaments")
        assert listing.stdout.startswith("no open tournaments")
    finally:
        await server.close()


def test_withdrawing_under_way_forfeits_the_game_and_stops_the_pairings(tmp_path, new_store):
    now = Now()
    hub = make_hub(new_store(), tmp_path, now)
    number = int(ok(hub, "ann", "tournament new copolymer --swiss 3 --clock 3d/move --when-full 4"))
    for name in NAMES[1:4]:
        ok(hub, name, f"tournament join {number}")
    hub.tournaments.tick()
    game = next(g for g in shown(hub, number)["rounds"][0] if "dan" in g["seats"])
    opponent = next(name for name in game["seats"] if name != "dan")
    heard: list[str] = []
    hub.notices.attach(opponent, lambda notice: heard.append(notice.text))
    ok(hub, "dan", f"tournament leave {number}")
    assert heard == [f"tournament {number}: dan forfeited (withdrew)"]
    data = shown(hub, number)
    forfeited = next(g for g in data["rounds"][0] if "dan" in g["seats"])
    assert forfeited["forfeit"] == ["dan"] and forfeited["winners"] == [n for n in game["seats"] if n != "dan"]
    assert hub.table(game["table"]).closed.startswith(f"tournament {number}: dan forfeited")
    assert data["withdrawn"] == ["dan"]
    other = next(g for g in data["rounds"][0] if "dan" not in g["seats"])
    finish_game(hub, now, other["table"], other["seats"][1])
    hub.tournaments.tick()
    second = shown(hub, number)["rounds"][1]
    assert all("dan" not in g["seats"] for g in second) and len(second) == 2  # three left: a pair and a bye
    assert "you are not in tournament" in fail(hub, "dan", f"tournament leave {number}")


def test_a_round_paired_by_a_server_that_stopped_before_its_tables_is_made_by_another(tmp_path, new_store):
    now = Now()
    hub = make_hub(new_store(), tmp_path, now)
    number = int(ok(hub, "ann", "tournament new copolymer --swiss 1 --clock 3d/move --when-full 2"))
    ok(hub, "ben", f"tournament join {number}")
    made = []
    hub.tournaments._make_tables = lambda tournament_id, games: made.append(games)  # it stops right here
    hub.tournaments.tick()
    assert made and shown(hub, number)["rounds"][0][0]["table"] is None
    other = Hub(new_store(), tmp_path / "records2", now=now)
    other.tournaments.tick()
    assert shown(hub, number)["rounds"][0][0]["table"] is None  # a minute's grace: maybe it is making them
    now.at += 61
    other.tournaments.tick()
    table = shown(hub, number)["rounds"][0][0]["table"]
    assert table and other.table(table).names == ("ann", "ben")
    assert len(other.store.load_open_tables()) == 1


def test_a_rounds_tables_count_against_the_tournament_not_its_creator(tmp_path, new_store):
    """Twelve players make six tables at once: more than a newcomer may open, none of them hers."""
    now = Now()
    hub = make_hub(new_store(), tmp_path, now, new_player_tables=2)
    players = [f"p{number:02}" for number in range(12)]
    for name in players:
        hub.store.claim(name, f"SHA256:{name}")
    number = int(ok(hub, players[0], "tournament new copolymer --swiss 1 --when-full 12"))
    for name in players[1:]:
        ok(hub, name, f"tournament join {number}")
    hub.tournaments.tick()
    games = shown(hub, number)["rounds"][0]
    assert len(games) == 6 and all(game["table"] and "unplayed" not in game for game in games)
    assert {hub.table(game["table"]).owner for game in games} == {f"tournament:{number}"}
    assert hub.table(games[0]["table"]).match.clock is not None  # 3d/move when the creator names no clock


async def test_a_forfeit_is_mailed_to_a_player_who_is_away(tmp_path, new_store, relay):
    from hubkit import until

    config, kept = relay
    now = Now()
    hub = Hub(new_store(), tmp_path / "records", now=now, mail=config)
    for name in ("ann", "ben"):
        hub.store.claim(name, f"SHA256:{name}")
    await confirmed(hub, kept, "ann", "ann@example.org")
    number = int(ok(hub, "ann", "tournament new copolymer --swiss 1 --clock 3d/move --when-full 2"))
    ok(hub, "ben", f"tournament join {number}")
    hub.tournaments.tick()
    table = shown(hub, number)["rounds"][0][0]["table"]
    mails = len(kept.mails)
    ok(hub, "ben", f"tournament leave {number}")
    await until(lambda: len(kept.mails) > mails)
    mail = kept.mails[-1]
    assert mail["To"] == "ann@example.org" and mail["Subject"] == f"termgames: a forfeit at table {table}"
    assert f"tournament {number}: ben forfeited (withdrew)" in mail.get_content()
    assert len([m for m in kept.mails if m["To"] == "ben@example.org"]) == 0
    hub.close()


async def test_an_arena_pairs_again_as_soon_as_a_table_ends_without_waiting_for_the_timer(tmp_path, new_store):
    import asyncio

    now = Now()
    hub = make_hub(new_store(), tmp_path, now)
    number = int(ok(hub, "ann", "tournament new copolymer --arena 60 --clock 3d/move --when-full 4"))
    for name in NAMES[1:4]:
        ok(hub, name, f"tournament join {number}")
    hub.tournaments.tick()
    for _turn in range(5):
        await asyncio.sleep(0)  # what the joins asked for is done
    game = shown(hub, number)["rounds"][0][0]
    finish_game(hub, now, game["table"], game["seats"][1])  # the table's end is the hub's: no tick by the test
    for _turn in range(5):
        await asyncio.sleep(0)  # the loop's next turns (no time passes)
    rounds = shown(hub, number)["rounds"]
    assert len(rounds) == 2 and sorted(rounds[1][0]["seats"]) == sorted(game["seats"])
