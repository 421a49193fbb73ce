"""``ssh HOST analyse TABLE``: a finished table analysed off the loop, one at a time a person, kept in its record."""

from __future__ import annotations

import asyncio
import json
import random

from termgames.match import Seat
from termgames.server.commands import run_command
from termgames.server.hub import Hub


def finished_table(hub: Hub, seed: int):
    table = hub.create_table("copolymer", {"size": 3}, [Seat(name="alice"), Seat(name="bob")], "alice", seed=seed)
    rng = random.Random(seed)
    while not table.over:
        seat = table.match.view(None).to_move[0]
        table.play(seat, table.match.state.random_move(seat, rng))
    return table


async def analysed(hub: Hub, timeout: float = 120.0) -> None:
    async with asyncio.timeout(timeout):  # bounded: the analyses run in their own thread meanwhile
        while hub.analyses.jobs:
            await asyncio.sleep(0.05)


async def test_an_analysis_is_queued_then_kept_with_the_record(tmp_path, new_store):
    hub = Hub(new_store(), tmp_path / "records", analyses_per_day=2)
    for name in ("alice", "bob"):
        assert hub.store.claim(name, f"SHA256:{name}")
    try:
        table = finished_table(hub, 3)
        first = run_command(hub, "alice", f"analyse {table.id} --level easy")
        assert first.status == 3 and f"table {table.id} is" in first.stderr and "ask again" in first.stderr
        other = finished_table(hub, 4)
        busy = run_command(hub, "alice", f"analyse {other.id} --level easy")
        assert busy.status == 2
        assert busy.stderr.strip() == (
            f"termgames: your analysis of table {table.id} comes first: one analysis at a time for each person"
        )
        await analysed(hub)
        done = run_command(hub, "alice", f"analyse {table.id} --level easy --json")
        assert done.status == 0, done.stderr
        result = json.loads(done.stdout)
        assert result["game"] == "copolymer" and result["level"] == "easy"
        assert [m["ply"] for m in result["moves"]] == list(range(1, len(table.match.moves) + 1))
        assert all(m["class"] in ("good", "inaccuracy", "mistake", "blunder") for m in result["moves"])
        # Kept: the record carries it, anyone reads it without a new analysis, and the replay gets it.
        record = json.loads(run_command(hub, "bob", f"record {table.id}").stdout)
        assert record["analysis"]["moves"] == result["moves"]
        again = run_command(hub, "bob", f"analyse {table.id}")
        assert again.status == 0 and "analysed at level easy" in again.stdout and not hub.analyses.jobs
        assert table.match.analysis is not None
    finally:
        hub.close()


async def test_a_person_has_a_few_analyses_a_day_and_games_in_play_none(tmp_path, new_store):
    hub = Hub(new_store(), tmp_path / "records", analyses_per_day=1)
    for name in ("alice", "bob"):
        assert hub.store.claim(name, f"SHA256:{name}")
    try:
        playing = hub.create_table("copolymer", {"size": 3}, [Seat(name="alice"), Seat(name="bob")], "alice")
        refused = run_command(hub, "alice", f"analyse {playing.id}")
        assert refused.status == 2 and "is not finished" in refused.stderr
        one, two = finished_table(hub, 5), finished_table(hub, 6)
        assert run_command(hub, "alice", f"analyse {one.id} --level easy").status == 3
        await analysed(hub)
        over = run_command(hub, "alice", f"analyse {two.id} --level easy")
        assert over.status == 2 and "(--analyses-per-day)" in over.stderr and over.stderr.count("\n") == 1
        # Another person has her own.
        assert run_command(hub, "bob", f"analyse {two.id} --level easy").status == 3
        await analysed(hub)
        assert run_command(hub, "alice", "analyse 99").status == 2
    finally:
        hub.close()
