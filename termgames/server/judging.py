"""The server's analyses judged in a child process: niced, started when first needed, gone when idle.

An analyst thinks in Python.  In the server's own process it would share the interpreter's lock with the event
loop, and every screen's redraw would wait for it (niceness does nothing against a lock: see
docs/benchmarks.md, "Analyses on the server").  So a move's judgement is handed, as plain data (the record's
JSON text, the level, the move's index), to one child process of the server's process, and the computer
players' thread that took the task (:mod:`.analyses` submits it to the pool's background lane) waits for the
answer in a pipe, holding no lock: the analysis is still queued and scheduled by the pool, after every
computer turn, but its processor time is the child's, at niceness 19.

* **Started lazily**, by the first judgement, with the ``spawn`` method (a fresh interpreter: never a fork
  of a process with threads and an event loop), and **let go** after :data:`IDLE_SECONDS` without a
  judgement to make (the child leaves by itself; the next judgement starts another).
* **The child keeps the match** it was last asked about (the record's text and level are the key): the next
  move's judgement walks on from there, as :class:`~termgames.analysis_run.MatchAnalysis` does in one process,
  instead of reading the record again.  It judges from the mover's view, as every analysis does.
* **Stopped at once**: :meth:`Judging.close` (the server stopping) terminates the child; the move it was
  judging is lost, and its caller gets :class:`~termgames.analysis_run.AnalysisCancelled`.
* **Bounded in memory**: the child's address space is limited to :data:`MEMORY_BYTES` (an analyst that
  would grow past it fails that move's judgement with ``MemoryError``, and the analysis with it), so a
  stranger's analysis cannot take the machine's memory.
* **A child that dies** (killed, out of memory) fails the judgement being made with :class:`JudgingFailed`
  (one line: the analysis is logged as failed), and the next judgement starts a new child.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import resource
import signal
import threading
from collections.abc import Callable
from dataclasses import asdict
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from ..ai.judgement import Analyst, Judgement
from ..analysis_run import AnalysisCancelled, MatchAnalysis, analyst_seed
from ..records import loads

log = logging.getLogger("termgames.server")

#: Seconds the judging process waits for its next judgement before it leaves.
IDLE_SECONDS = 60.0
#: The judging process's niceness: the lowest priority there is.
NICENESS = 19
#: The judging process's address space at most (its interpreter takes about 100 MB of it; an analyst's
#: 2-second search, MonUnrail's exact solver included, stays well under the rest).
MEMORY_BYTES = 2 << 30
#: Seconds :meth:`Judging.close` waits for a terminated child before it kills it.
STOP_SECONDS = 2.0
#: Seconds a judgement may take, the child's start included, before the child is taken for stuck and killed:
#: the analyst stops at its 2 s deadline, and a thread of the computer players' pool must not wait for ever.
ANSWER_SECONDS = 60.0

#: ``factory(level, seed)``: an analyst, as a game's descriptor names one; None: the game's own.
AnalystFactory = Callable[[str, int], Analyst]

#: What the parent sends: the record's JSON text, the level, the move's index (from 0).
Request = tuple[str, str, int]


class JudgingFailed(Exception):
    """The judging process could not judge the move (it died, or the analyst failed): one line."""


def judging_process(requests: Connection, analyst: AnalystFactory | None, idle: float) -> None:
    """The child: judges each move it is sent, keeping the last match, until it is idle for ``idle`` seconds
    or the server's end of the pipe closes."""
    os.setpriority(os.PRIO_PROCESS, 0, NICENESS)
    with contextlib.suppress(ValueError, OSError):  # (a hard limit already lower stays as it is)
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C at the server's terminal is the server's to handle
    kept: tuple[str, str] | None = None
    steps: MatchAnalysis | None = None
    while True:
        try:
            if not requests.poll(idle):
                return
            text, level, index = requests.recv()
        except (EOFError, OSError):
            return
        try:
            if steps is None or kept != (text, level):
                match = loads(text)
                made = None if analyst is None else analyst(level, analyst_seed(match))
                steps, kept = MatchAnalysis(match, level, analyst=made), (text, level)
            answer: tuple[str, Any] = ("judged", asdict(steps.judge(index)))
        except Exception as error:  # the parent logs it as the analysis's failure
            steps, kept = None, None
            answer = ("failed", f"{type(error).__name__}: {error}".splitlines()[0])
        try:
            requests.send(answer)
        except (EOFError, OSError):
            return


class Judging:
    """The server process's judging child (see the module doc); its methods are for the pool's threads, but
    :meth:`close`, which any thread may call."""

    def __init__(
        self, analyst: AnalystFactory | None = None, idle: float = IDLE_SECONDS, answer: float = ANSWER_SECONDS
    ) -> None:
        self._analyst = analyst
        self._idle = idle
        self._answer = answer
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()  # one judgement at a time through the pipe
        self._state = threading.Lock()  # the process and the pipe, against close()
        # Waiting for the child from two threads at once races: the one that loses hears "no such child" and
        # takes it for still running.  Every look at whether it ends goes through this lock (after _state).
        self._reaping = threading.Lock()
        self._process: BaseProcess | None = None
        self._pipe: Connection | None = None
        self._closed = False

    @property
    def pid(self) -> int | None:
        """The judging process's, while there is one."""
        process = self._process
        return None if process is None else process.pid

    def judge(self, record: str, level: str, index: int) -> Judgement:
        """Move ``index`` (from 0) of the record ``record`` (its JSON text) judged at ``level`` by the child;
        blocks its thread, holding no lock the loop needs, until the answer comes.  :class:`JudgingFailed` when
        it cannot be judged, :class:`AnalysisCancelled` once :meth:`close` was called."""
        with self._lock:
            for attempt in range(2):
                pipe, process = self._started()
                try:
                    pipe.send((record, level, index))
                    if not pipe.poll(self._answer):
                        self._stop(process)
                        with self._state:
                            self._forget(process)
                        raise JudgingFailed(f"the judging process did not answer in {self._answer:g} s: stopped")
                    status, answer = pipe.recv()
                except (EOFError, OSError):
                    self._join(process, STOP_SECONDS)
                    with self._state:
                        self._forget(process)
                    if self._closed:
                        raise AnalysisCancelled("the server is stopping") from None
                    if process.exitcode == 0 and attempt == 0:
                        continue  # it left idle just as this judgement came: a new child takes it
                    raise JudgingFailed(f"the judging process ended ({ended(process.exitcode)})") from None
                if status != "judged":
                    raise JudgingFailed(str(answer))
                return Judgement(**answer)
        raise JudgingFailed("the judging process could not be started")

    def _started(self) -> tuple[Connection, BaseProcess]:
        with self._state:
            if self._closed:
                raise AnalysisCancelled("the server is stopping")
            process, pipe = self._process, self._pipe
            if process is not None and pipe is not None and self._alive(process):
                return pipe, process
            if process is not None:
                self._forget(process)
            ours, theirs = self._context.Pipe()
            process = self._context.Process(
                target=judging_process, args=(theirs, self._analyst, self._idle), name="termgames-judging",
                daemon=True,
            )
            process.start()
            theirs.close()
            self._process, self._pipe = process, ours
            return ours, process

    def _forget(self, process: BaseProcess) -> None:
        """The dead ``process`` and its pipe let go (the caller holds ``_state``)."""
        if self._process is process:
            pipe, self._process, self._pipe = self._pipe, None, None
            if pipe is not None:
                pipe.close()
        self._join(process, 0)

    def _alive(self, process: BaseProcess) -> bool:
        with self._reaping:
            return process.is_alive()

    def _join(self, process: BaseProcess, timeout: float) -> None:
        with self._reaping:
            process.join(timeout)

    def close(self) -> None:
        """From now on nothing is judged: the child, if any, is terminated (the judgement it was making is lost)
        and waited for, within :data:`STOP_SECONDS`, then killed."""
        with self._state:
            self._closed = True
            process = self._process
        if process is not None:
            self._stop(process)

    def _stop(self, process: BaseProcess) -> None:
        """``process`` terminated, waited for within :data:`STOP_SECONDS`, then killed.  Its pipe stays open: a
        thread waiting on it hears the end there."""
        if self._alive(process):
            process.terminate()
            self._join(process, STOP_SECONDS)
            if self._alive(process):
                process.kill()
                self._join(process, STOP_SECONDS)


def ended(exitcode: int | None) -> str:
    """How a child ended, for one log line."""
    if exitcode is None:
        return "still running"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit status {exitcode}"
