"""The server's bounded pool for computer turns, fair between tables, with analyses in its idle moments.

A plain ``ThreadPoolExecutor`` serves its queue first come, first served: one
table whose computer players think slowly (a simultaneous turn of four AI
seats, an expensive level) can take every worker, and every other table's
computer waits behind it.  Here each table submits through its own *lane*;
the workers take lanes in turn (round robin), and a lane runs at most one
task at a time, so a slow table holds at most one worker and the others go on.

A *background* lane (``lane(background=True)``: the server's analyses) is served
only when no ordinary lane has a task waiting: a computer turn that arrives
while a background task runs waits at most for that one task (an analysis
submits one move's judgement at a time, at most its 2 s deadline), and none
waits behind a queue of them.  An analysis's task only waits: the judgement is
made in a niced child process (:mod:`.judging`), so the worker holds no lock the
loop needs meanwhile.  The workers are never niced: a thread lowers its own
priority for good (raising it back needs privilege), and every worker also
thinks for the computer players.

The computer players think in the workers, in Python, so while one thinks the
loop shares the interpreter's lock with it; ``termgames serve`` makes the
interpreter hand the lock over every 0.5 ms instead of Python's 5 ms
(``SWITCH_INTERVAL`` in :mod:`.run`; see docs/benchmarks.md), process-wide, at
start-up rather than here.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any


class Lane(Executor):
    """One table's way into a :class:`FairPool` (``loop.run_in_executor`` takes it as an executor)."""

    def __init__(self, pool: FairPool, background: bool = False) -> None:
        self._pool = pool
        #: Served only when no ordinary lane has work waiting.
        self.background = background
        self._tasks: deque[tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = deque()
        self._running = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return self._pool._submit(self, fn, args, kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """A lane is the pool's: the pool shuts down, not a lane."""


class FairPool:
    """``workers`` threads serving lanes in turn, one task of a lane at a time; background lanes last."""

    def __init__(self, workers: int = 2, name: str = "termgames-ai") -> None:
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        # Lanes with work and no task running, in the order they get served: the ordinary ones, then the others.
        self._ready: deque[Lane] = deque()
        self._background: deque[Lane] = deque()
        self._condition = threading.Condition()
        self._closed = False
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}-{number}", daemon=True) for number in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def lane(self, background: bool = False) -> Lane:
        return Lane(self, background)

    def _queue_of(self, lane: Lane) -> deque[Lane]:
        return self._background if lane.background else self._ready

    def _submit(
        self, lane: Lane, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Future[Any]:
        future: Future[Any] = Future()
        with self._condition:
            if self._closed:
                raise RuntimeError("the pool is shut down")
            lane._tasks.append((future, fn, args, kwargs))
            queue = self._queue_of(lane)
            if not lane._running and lane not in queue:
                queue.append(lane)
                self._condition.notify()
        return future

    def _work(self) -> None:
        while True:
            with self._condition:
                while not self._ready and not self._background and not self._closed:
                    self._condition.wait()
                if self._closed:
                    return
                lane = (self._ready or self._background).popleft()
                future, fn, args, kwargs = lane._tasks.popleft()
                lane._running = True
            try:
                if future.set_running_or_notify_cancel():
                    try:
                        result = fn(*args, **kwargs)
                    except BaseException as error:  # handed to whoever waits on the future, like an executor
                        future.set_exception(error)
                    else:
                        future.set_result(result)
            finally:
                with self._condition:
                    lane._running = False
                    if self._closed:
                        for waiting, *_rest in lane._tasks:
                            waiting.cancel()
                        lane._tasks.clear()
                    elif lane._tasks:
                        self._queue_of(lane).append(lane)  # to the back: every other lane with work goes first
                        self._condition.notify()

    def shutdown(self, wait: bool = False, *, cancel_futures: bool = True) -> None:
        with self._condition:
            self._closed = True
            if cancel_futures:
                for lane in (*self._ready, *self._background):
                    for future, *_rest in lane._tasks:
                        future.cancel()
                    lane._tasks.clear()
                self._ready.clear()
                self._background.clear()
            self._condition.notify_all()
        if wait:
            for thread in self._threads:
                thread.join()
