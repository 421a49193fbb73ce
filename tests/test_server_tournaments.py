"""The server's tournaments: entries, rounds on the timer, tables, results, forfeits, restarts, two servers."""

from __future__ import annotations

import json
import random
from pathlib import Path

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
