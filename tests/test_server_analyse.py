"""``ssh HOST analyse TABLE``: a finished table analysed off the loop, one at a time a person, kept in its record."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import multiprocessing
import os
import random
import resource
import signal
import threading
from multiprocessing.synchronize import Event as EventType
from multiprocessing.synchronize import Semaphore as SemaphoreType

import pytest

from termgames.ai.judgement import Judgement
from termgames.analysis_run import AnalysisCancelled
from termgames.match import Seat
from termgames.records import dumps
from termgames.server import analyses
from termgames.server.commands import run_command
from termgames.server.hub import Hub
from termgames.server.judging import Judging, JudgingFailed
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


SPAWN = multiprocessing.get_context("spawn")


class GatedAnalyst:
    """An analyst (in the judging process) whose judgements wait for ``release``: an analysis running for as long
    as a test wants.  Its notes say where it judged: the process and its niceness."""

    unit = "cells"

    def __init__(self, judging: EventType, release: SemaphoreType) -> None:
        self.judging, self.release = judging, release

    def judge(self, before, move, deadline):
        self.judging.set()
        # A semaphore, not an event: a process killed waiting for an event would leave its setter waiting for it.
        assert self.release.acquire(timeout=WAIT)
        self.release.release()  # open for every judgement after this one
        return Judgement(played=0.0, best_value=0.0, best=None, note=where())


def where() -> str:
    return f"pid {os.getpid()} nice {os.getpriority(os.PRIO_PROCESS, 0)}"


class MemoryReporter:
    """An analyst whose note is the address space its process may take."""

    unit = "cells"

    def judge(self, before, move, deadline):
        return Judgement(played=0.0, best_value=0.0, best=None, note=str(resource.getrlimit(resource.RLIMIT_AS)[0]))


def memory_reporter(level: str, seed: int) -> MemoryReporter:
    return MemoryReporter()


def gated_analyst(judging: EventType, release: SemaphoreType, level: str, seed: int) -> GatedAnalyst:
    return GatedAnalyst(judging, release)


class Gated:
    """The events a :class:`GatedAnalyst` in another process sets and waits for."""

    def __init__(self) -> None:
        self.judging = SPAWN.Event()
        self.release = SPAWN.Semaphore(0)
        self.released = False

    def open(self) -> None:
        """Every judgement goes on, now and from now on."""
        if not self.released:
            self.released = True
            self.release.release()

    def factory(self):
        return functools.partial(gated_analyst, self.judging, self.release)


class Recording(Judging):
    """The server's judging, saying which threads handed it judgements and how each ended."""

    def __init__(self, analyst) -> None:
        super().__init__(analyst)
        self.threads: set[str] = set()
        self.outcomes: list[str] = []
        self.left = threading.Event()

    def judge(self, record, level, index):
        self.threads.add(threading.current_thread().name)
        try:
            judgement = super().judge(record, level, index)
        except BaseException as error:
            self.outcomes.append(type(error).__name__)
            raise
        else:
            self.outcomes.append("judged")
            return judgement
        finally:
            self.left.set()


def judged_by(hub: Hub, analyst) -> Recording:
    """The hub's analyses judge with ``analyst`` (a factory the judging process calls) instead of the game's own."""
    judging = hub.analyses.judging = Recording(analyst)
    return judging


def notes(table) -> set[str]:
    return {line["note"] for line in table.match.analysis["moves"]}


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
    tmp_path, new_store
):
    time = ManualTime()
    hub = Hub(new_store(), tmp_path / "records", analyses_per_day=1, max_analyses_waiting=1, time_source=time)
    gated = Gated()
    judging = judged_by(hub, gated.factory())
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
        gated.open()
        await analysed(hub)
        # Handed over by the computer players' threads, judged in one niced child process.
        assert judging.threads and all(name.startswith("termgames-ai-") for name in judging.threads)
        assert one.match.analysis is not None and two.match.analysis is not None
        child = judging.pid
        assert child is not None and child != os.getpid()
        assert notes(one) == notes(two) == {f"pid {child} nice 19"}
        tomorrow = run_command(hub, "alice", f"analyse {three.id}")
        assert tomorrow.status == 2 and tomorrow.stderr.count("\n") == 1 and "(--analyses-per-day)" in tomorrow.stderr
        time.advance(analyses.DAY)  # the hub's time: a day later, alice has her analysis of the day again
        assert run_command(hub, "alice", f"analyse {three.id}").status == 3
        await analysed(hub)
        assert three.match.analysis is not None
    finally:
        gated.open()
        hub.close()


class Stuck:
    """An analyst (in the judging process) that never answers: only the stopping server ends its judgement."""

    unit = "cells"

    def __init__(self, judging: EventType) -> None:
        self.judging = judging

    def judge(self, before, move, deadline):
        self.judging.set()
        threading.Event().wait()


def stuck_analyst(judging: EventType, level: str, seed: int) -> Stuck:
    return Stuck(judging)


async def test_a_stopping_server_stops_the_move_being_judged_and_keeps_nothing(tmp_path, new_store):
    hub = Hub(new_store(), tmp_path / "records")
    judging_now = SPAWN.Event()
    judging = judged_by(hub, functools.partial(stuck_analyst, judging_now))
    assert hub.store.claim("alice", "SHA256:alice")
    table = finished_table(hub, 10)
    try:
        assert run_command(hub, "alice", f"analyse {table.id}").status == 3
        assert await asyncio.to_thread(judging_now.wait, WAIT)
        driving, child = hub.analyses.driving, judging._process
    finally:
        hub.close()
    assert child is not None and child.exitcode == -signal.SIGTERM  # terminated, not left running
    await until_set(judging.left)  # the computer players' thread is free again
    assert judging.outcomes == ["AnalysisCancelled"]
    assert driving is not None
    async with asyncio.timeout(WAIT):
        await asyncio.wait([driving])
    assert table.match.analysis is None and not hub.analyses.jobs


async def test_a_judging_process_killed_fails_its_analysis_in_one_line_and_the_next_starts_another(
    tmp_path, new_store, caplog
):
    hub = Hub(new_store(), tmp_path / "records")
    gated = Gated()
    judging = judged_by(hub, gated.factory())
    for name in ("alice", "bob"):
        assert hub.store.claim(name, f"SHA256:{name}")
    one, two = finished_table(hub, 11), finished_table(hub, 12)
    try:
        assert run_command(hub, "alice", f"analyse {one.id}").status == 3
        assert await asyncio.to_thread(gated.judging.wait, WAIT)
        killed = judging.pid
        assert killed is not None
        with caplog.at_level(logging.WARNING, logger="termgames.server"):
            os.kill(killed, signal.SIGKILL)
            await analysed(hub)
        failed = [r.getMessage() for r in caplog.records if "analysis failed" in r.getMessage()]
        ended = "JudgingFailed: the judging process ended (killed by SIGKILL)"
        assert failed == [f"table {one.id}: analysis failed: {ended}"]
        assert one.match.analysis is None
        gated.open()
        assert run_command(hub, "bob", f"analyse {two.id}").status == 3
        await analysed(hub)
        assert judging.pid not in (None, killed)
        assert notes(two) == {f"pid {judging.pid} nice 19"}
    finally:
        gated.open()
        hub.close()


def test_the_judging_process_leaves_when_idle_and_the_next_judgement_starts_another(tmp_path, new_store):
    hub = Hub(new_store(), tmp_path / "records")
    table = finished_table(hub, 13)
    hub.close()
    release = SPAWN.Semaphore(1)
    judging = Judging(functools.partial(gated_analyst, SPAWN.Event(), release), idle=0.2)
    record = dumps(table.match)
    try:
        first = judging.judge(record, "easy", 0)
        child = judging._process
        assert child is not None
        child.join(WAIT)  # it leaves by itself, idle
        assert child.exitcode == 0
        second = judging.judge(record, "easy", 1)
        assert judging.pid != child.pid
        assert first.note == f"pid {child.pid} nice 19" and second.note == f"pid {judging.pid} nice 19"
    finally:
        judging.close()
    with pytest.raises(AnalysisCancelled):
        judging.judge(record, "easy", 2)


def test_a_judging_process_that_does_not_answer_is_stopped_and_its_judgement_fails(tmp_path, new_store):
    hub = Hub(new_store(), tmp_path / "records")
    table = finished_table(hub, 14)
    hub.close()
    judging_now = SPAWN.Event()
    judging = Judging(functools.partial(stuck_analyst, judging_now), answer=1.0)
    try:
        with pytest.raises(JudgingFailed, match=r"^the judging process did not answer in 1 s: stopped$"):
            judging.judge(dumps(table.match), "easy", 0)
        assert judging.pid is None
    finally:
        judging.close()


def test_the_judging_process_is_bounded_in_memory(tmp_path, new_store):
    from termgames.server.judging import MEMORY_BYTES

    hub = Hub(new_store(), tmp_path / "records")
    table = finished_table(hub, 17)
    hub.close()
    judging = Judging(memory_reporter, idle=5.0)
    try:
        judged = judging.judge(dumps(table.match), "easy", 0)
        assert judged.note == str(MEMORY_BYTES) and MEMORY_BYTES < 4 << 30
    finally:
        judging.close()


async def test_a_second_person_asking_for_an_analysis_under_way_shares_it_at_no_cost(tmp_path, new_store):
    hub = Hub(new_store(), tmp_path / "records", analyses_per_day=1)
    for name in ("alice", "bob"):
        assert hub.store.claim(name, f"SHA256:{name}")
    try:
        table = finished_table(hub, 21)
        assert run_command(hub, "alice", f"analyse {table.id} --level easy").status == 3
        shared = run_command(hub, "bob", f"analyse {table.id} --level easy")
        assert shared.status == 3 and f"table {table.id} is queued for analysis at level easy" in shared.stderr
        assert len(hub.analyses.jobs) == 1  # one analysis of it, not two
        await analysed(hub)
        assert run_command(hub, "bob", f"analyse {table.id} --level easy --json").status == 0
        # His day's one analysis is still his to ask for.
        other = finished_table(hub, 22)
        assert run_command(hub, "bob", f"analyse {other.id} --level easy").status == 3
        await analysed(hub)
    finally:
        hub.close()
