"""``ssh HOST analyse TABLE``: a finished table analysed off the loop, one at a time a person, kept in its record."""

from __future__ import annotations

import asyncio
import functools
import json
import random
import threading

from termgames.ai.judgement import Judgement
from termgames.analysis_run import MatchAnalysis
from termgames.match import Seat
from termgames.server import analyses
from termgames.server.commands import run_command
from termgames.server.hub import Hub
from termgames.timesource import ManualTime

WAIT = 30  # seconds: a bound on waiting for a pool thread, never a wait for time to pass


def finished_table(hub: Hub, seed: int):
    table = hub.create_table("copolymer", {"size": 3}, [Seat(name="alice"), Seat(name="bob")], "alice", seed=seed)
    rng = random.Random(seed)
    while not table.over:
        seat = table.match.view(None).to_move[0]
        table.play(seat, table.match.state.random_move(seat, rng))
    return table


async def analysed(hub: Hub, timeout: float = 120.0) -> None:
    """Until the queue of analyses is through (bounded: a stuck analysis fails the test)."""
    assert hub.analyses.driving is not None
    async with asyncio.timeout(timeout):
        await hub.analyses.driving
    assert not hub.analyses.jobs


async def until_set(event: threading.Event) -> None:
    """Until a pool thread sets ``event`` (the loop goes on meanwhile)."""
    assert await asyncio.to_thread(event.wait, WAIT)


class Gated:
    """An analyst whose judgements wait for ``release``: an analysis running for as long as a test wants."""

    unit = "cells"

    def __init__(self) -> None:
        self.judging = threading.Event()
        self.release = threading.Event()
        self.threads: set[str] = set()

    def judge(self, before, move, deadline):
        self.threads.add(threading.current_thread().name)
        self.judging.set()
        assert self.release.wait(WAIT)
        return Judgement(played=0.0, best_value=0.0, best=None)


def analysed_by(monkeypatch, analyst) -> None:
    """The server's analyses judge with ``analyst`` instead of the game's own."""
    monkeypatch.setattr(analyses, "MatchAnalysis", functools.partial(MatchAnalysis, analyst=analyst))


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


async def test_analyses_run_in_the_computer_players_pool_one_at_a_time_and_the_limits_refuse_in_one_line(
    tmp_path, new_store, monkeypatch
):
    time = ManualTime()
    hub = Hub(new_store(), tmp_path / "records", analyses_per_day=1, max_analyses_waiting=1, time_source=time)
    gated = Gated()
    analysed_by(monkeypatch, gated)
    for name in ("alice", "bob", "carol"):
        assert hub.store.claim(name, f"SHA256:{name}")
    try:
        one, two, three = (finished_table(hub, seed) for seed in (7, 8, 9))
        assert run_command(hub, "alice", f"analyse {one.id}").status == 3
        await until_set(gated.judging)
        assert run_command(hub, "bob", f"analyse {two.id}").status == 3
        # One analysis runs on the server: bob's waits behind alice's, however many workers the pool has.
        running = {job.table_id: job.running for job in hub.analyses.jobs.values()}
        assert running == {one.id: True, two.id: False}
        alice = run_command(hub, "alice", f"analyse {one.id}")
        assert alice.status == 3
        assert f"being analysed at level normal: 0 of {len(one.match.moves)} moves" in alice.stderr
        assert "is queued for analysis" in run_command(hub, "bob", f"analyse {two.id}").stderr
        full = run_command(hub, "carol", f"analyse {three.id}")
        assert full.status == 2 and full.stderr == (
            "termgames: 1 analyses wait already, the most this server queues (--max-analyses-waiting): "
            "try again later\n"
        )
        gated.release.set()
        await analysed(hub)
        assert gated.threads and all(name.startswith("termgames-ai-") for name in gated.threads)
        assert one.match.analysis is not None and two.match.analysis is not None
        tomorrow = run_command(hub, "alice", f"analyse {three.id}")
        assert tomorrow.status == 2 and tomorrow.stderr.count("\n") == 1 and "(--analyses-per-day)" in tomorrow.stderr
        time.advance(analyses.DAY)  # the hub's time: a day later, alice has her analysis of the day again
        assert run_command(hub, "alice", f"analyse {three.id}").status == 3
        await analysed(hub)
        assert three.match.analysis is not None
    finally:
        gated.release.set()
        hub.close()


class Thinking:
    """An analyst that thinks until its deadline says stop, as the games' own do; says how it stopped."""

    unit = "cells"

    def __init__(self) -> None:
        self.judging = threading.Event()
        self.left = threading.Event()
        self.stopped_early = False

    def judge(self, before, move, deadline):
        self.judging.set()
        while not deadline.expired():
            threading.Event().wait(0.001)  # a search's step
        self.stopped_early = deadline.stopped
        self.left.set()
        return Judgement(played=0.0, best_value=0.0, best=None)


async def test_a_stopping_server_stops_the_move_being_judged_and_keeps_nothing(tmp_path, new_store, monkeypatch):
    hub = Hub(new_store(), tmp_path / "records")
    thinking = Thinking()
    analysed_by(monkeypatch, thinking)
    assert hub.store.claim("alice", "SHA256:alice")
    table = finished_table(hub, 10)
    try:
        assert run_command(hub, "alice", f"analyse {table.id}").status == 3
        await until_set(thinking.judging)
        driving = hub.analyses.driving
    finally:
        hub.close()
    await until_set(thinking.left)
    assert thinking.stopped_early  # stopped by the closing server, not by its 2 s deadline
    assert driving is not None and driving.done()
    assert table.match.analysis is None and not hub.analyses.jobs
