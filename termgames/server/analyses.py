"""``ssh HOST analyse TABLE``: a finished table analysed move by move, off the loop, a few a day per person.

An analysis takes the game's analyst up to 2 s a move (a long Copolymer game at the hard level, a minute
and more), so a stranger must not be able to keep the server's processors busy with it.  Hence:

* **one thread, at the lowest priority**: analyses run one after the other in a thread of their own, niced to
  19 (on Linux a thread has its own niceness), so the computer players' threads and the loop come first;
* **one at a time per person**: a person (a key; every guest of one address together) has at most one
  analysis waiting or running, and ``--analyses-per-day`` (5) a day; the server at most
  ``--max-analyses-waiting`` (20) waiting; each refusal is one line naming its limit;
* **kept once made**: the analysis is written into the table's record (in the store and in ``records/``) as
  its ``analysis`` section, so asking again, ``record TABLE`` and the lobby's replay read it without
  computing it again.

The command answers at once: the analysis when it is kept, else that it is queued (or running, with how far
it has come); the player asks again for the result.  Only finished tables are analysed (a game in play would
tell whoever asks what its seats hold).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..analysis import Analysis, analysis_json
from ..analysis_run import analyse_match, analysis_level, check_analysable, stored_analysis
from ..records import dumps, loads
from ..rules import RuleError
from .config import ServerConfig
from .logs import error_line
from .stores.interface import StoreError, TableStore
from .tables import LiveTable

log = logging.getLogger("termgames.server")

DAY = 24 * 3600.0


class AnalysisHost(Protocol):
    """What analyses need of the hub (:class:`~.hub.Hub` is one)."""

    store: TableStore
    config: ServerConfig
    closed: bool

    def record_json(self, table: LiveTable) -> str: ...

    def save_record_text(self, table: LiveTable, text: str) -> None: ...


@dataclass
class Job:
    table_id: int
    level: str
    owner: str
    done: int = 0
    total: int = 0
    running: bool = False


@dataclass
class Analyses:
    """The server's queue of analyses (see the module doc)."""

    hub: AnalysisHost
    #: ``monotonic()``: when each person's analyses of the last day began (the hub's time source).
    clock: Callable[[], float]
    jobs: dict[str, Job] = field(default_factory=dict)
    started: dict[str, deque[float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="termgames-analysis", initializer=_lowest_priority)
        self._stopping = threading.Event()

    def close(self) -> None:
        self._stopping.set()
        self._executor.shutdown(wait=False, cancel_futures=True)

    def kept(self, table: LiveTable, level: str | None) -> Analysis | None:
        """The analysis kept in the table's record, if there is one (at ``level``, when given)."""
        match = loads(self.hub.record_json(table))
        found, _why = stored_analysis(match, level)
        return found

    def request(self, table: LiveTable, owner: str, level: str | None) -> tuple[Analysis | None, str]:
        """The kept analysis of ``table`` (and ""), or None and one line: queued, running, or refused (RuleError)."""
        if not table.over:
            raise RuleError(f"table {table.id} is not finished: games are analysed once they end")
        check_analysable(table.match)
        chosen = analysis_level(table.game.descriptor, level)
        found = self.kept(table, level)
        if found is not None:
            return found, ""
        job = self.jobs.get(owner)
        if job is not None:
            if job.table_id == table.id and job.level == chosen:
                return None, self._progress_line(job)
            raise RuleError(
                f"your analysis of table {job.table_id} comes first: one analysis at a time for each person"
            )
        now = self.clock()
        recent = self.started.setdefault(owner, deque())
        while recent and recent[0] <= now - DAY:
            recent.popleft()
        limit = self.hub.config.analyses_per_day
        if len(recent) >= limit:
            raise RuleError(f"you have had {limit} analyses today, the limit a person (--analyses-per-day): "
                            "try again tomorrow")
        waiting = sum(1 for other in self.jobs.values() if not other.running)
        if waiting >= self.hub.config.max_analyses_waiting:
            raise RuleError(f"{waiting} analyses wait already, the most this server queues "
                            "(--max-analyses-waiting): try again later")
        recent.append(now)
        job = self.jobs[owner] = Job(table.id, chosen, owner, total=len(table.match.moves))
        snapshot = loads(dumps(table.match))  # the driver walks the moves: never the live table's own match
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._executor, self._run, job, snapshot)
        future.add_done_callback(lambda done: self._finished(job, table, done))
        return None, self._progress_line(job)

    def _progress_line(self, job: Job) -> str:
        if not job.running:
            return f"table {job.table_id} is queued for analysis at level {job.level}: ask again in a while"
        return (f"table {job.table_id} is being analysed at level {job.level}: {job.done} of {job.total} moves; "
                "ask again in a while")

    def _run(self, job: Job, match: Any) -> Analysis:
        job.running = True

        def progress(done: int, total: int) -> None:
            job.done, job.total = done, total

        return analyse_match(match, job.level, progress=progress, cancelled=self._stopping.is_set)

    def _finished(self, job: Job, table: LiveTable, done: asyncio.Future[Analysis]) -> None:
        self.jobs.pop(job.owner, None)
        if done.cancelled() or self.hub.closed:
            return
        error = done.exception()
        if error is not None:
            log.warning("table %s: analysis failed: %s", table.id, error_line(error))
            return
        analysis = done.result()
        try:
            record = json.loads(self.hub.record_json(table))
            record["analysis"] = analysis_json(analysis)
            self.hub.save_record_text(table, json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        except (StoreError, ValueError, OSError) as failure:
            log.warning("table %s: analysis not kept: %s", table.id, error_line(failure))
            return
        table.match.analysis = analysis_json(analysis)  # the lobby's replay shows it from now on


def _lowest_priority() -> None:
    """The analysis thread yields to every other thread of the server (Linux nices threads one by one)."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
