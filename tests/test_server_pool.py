"""The computer players' pool: its background lane (the server's analyses) is served after every table's turn."""

from __future__ import annotations

import sys
import threading

import pytest

from termgames.server.pool import FairPool

WAIT = 10  # seconds: a bound on waiting for a worker, never a wait for time to pass


def test_a_waiting_computer_turn_goes_before_the_background_lane_whatever_came_first():
    pool = FairPool(1)
    try:
        started, release = threading.Event(), threading.Event()
        served: list[str] = []

        def hold() -> None:
            started.set()
            assert release.wait(WAIT)

        busy = pool.lane().submit(hold)
        assert started.wait(WAIT)  # the one worker is taken: what follows waits, in the order it came
        analysis = pool.lane(background=True)
        steps = [analysis.submit(served.append, f"analysis {n}") for n in (1, 2)]
        turns = [pool.lane().submit(served.append, f"turn {n}") for n in (1, 2)]
        release.set()
        for future in [busy, *turns, *steps]:
            future.result(timeout=WAIT)
        assert served == ["turn 1", "turn 2", "analysis 1", "analysis 2"]
    finally:
        pool.shutdown()


def test_a_background_task_takes_one_worker_and_the_others_serve_the_tables():
    pool = FairPool(2)
    try:
        started, release = threading.Event(), threading.Event()

        def judge() -> str:
            started.set()
            assert release.wait(WAIT)
            return "judged"

        analysis = pool.lane(background=True)
        first = analysis.submit(judge)
        second = analysis.submit(lambda: "judged again")  # a lane runs one task at a time: it waits for the first
        assert started.wait(WAIT)
        assert pool.lane().submit(lambda: "moved").result(timeout=WAIT) == "moved"
        assert not second.running() and not second.done()
        release.set()
        assert first.result(timeout=WAIT) == "judged" and second.result(timeout=WAIT) == "judged again"
    finally:
        pool.shutdown()


def test_shutting_the_pool_down_drops_the_background_tasks_waiting():
    pool = FairPool(1)
    started, release = threading.Event(), threading.Event()

    def hold() -> None:
        started.set()
        assert release.wait(WAIT)

    busy = pool.lane().submit(hold)
    assert started.wait(WAIT)
    waiting = pool.lane(background=True).submit(lambda: "judged")
    pool.shutdown(cancel_futures=True)
    assert waiting.cancelled()
    release.set()
    busy.result(timeout=WAIT)
    with pytest.raises(RuntimeError):
        pool.lane(background=True).submit(lambda: "late")


def test_a_pool_leaves_the_interpreters_switch_interval_alone():
    # The analyses no longer think in the pool; the interval is serve's to set where it starts (server/run.py).
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)
    try:
        FairPool(1).shutdown()
        assert sys.getswitchinterval() == 0.005
    finally:
        sys.setswitchinterval(before)
