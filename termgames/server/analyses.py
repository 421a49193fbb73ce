"""``ssh HOST analyse TABLE``: a finished table analysed move by move, off the loop, a few a day per person.

An analysis takes the game's analyst up to 2 s a move (a long Copolymer game at the hard level, a minute
and more), so a stranger must not be able to keep the server's processors busy with it.  Hence:

* **in the computer players' threads, after them**: an analysis goes through the computer players' pool
  (:class:`~.pool.FairPool`) by its background lane, one move's judgement a task; a worker takes it only when
  no table's computer player has a turn waiting, so a computer turn waits at most one move's judgement (its
  2 s deadline at most), and the analyses use no thread of their own (``--ai-threads`` counts them all);
* **judged in a niced child process**: the task hands the move (the record's text, the level, the move's
  index) to the server's judging process (:mod:`.judging`: started by the first analysis, at niceness 19,
  gone after a minute idle) and waits for its answer without holding the interpreter's lock, so the event
  loop never waits for an analysis and the screens' redraws go on as fast as without one
  (docs/benchmarks.md); a judging process that dies fails its analysis in one log line, and the next
  analysis starts another;
* **one at a time on the server**: the analyses wait in one queue and run one after the other, so they take
  one worker at most whatever their number;
* **one at a time per person**: a person (a key; every guest of one address together) has at most one
  analysis waiting or running, and ``--analyses-per-day`` (5) a day; the server at most
  ``--max-analyses-waiting`` (20) waiting; each refusal is one line naming its limit;
* **kept once made**: the analysis is written into the table's record (in the store and in ``records/``) as
  its ``analysis`` section, so asking again, ``record TABLE`` and the lobby's replay read it without
  computing it again.

The command answers at once: the analysis when it is kept, else that it is queued (or running, with how far
it has come); the player asks again for the result.  Only finished tables are analysed (a game in play would
tell whoever asks what its seats hold).  When the server stops, the move being judged stops at once (the
judging process is terminated) and the queue is dropped: nothing of it is kept.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from ..analysis import Analysis, analysis_json
from ..analysis_run import AnalysisCancelled, MatchAnalysis, analysis_level, check_analysable, stored_analysis
from ..match import Match
from ..records import dumps, loads
from ..rules import RuleError
from .config import ServerConfig
from .judging import Judging
from .logs import error_line
from .pool import FairPool
from .stores.interface import StoreError, TableStore
from .tables import LiveTable

log = logging.getLogger("termgames.server")

DAY = 24 * 3600.0


class AnalysisHost(Protocol):
    """What analyses need of the hub (:class:`~.hub.Hub` is one)."""

    store: TableStore
    config: ServerConfig
    closed: bool
    #: The computer players' pool: analyses go through a background lane of it.
    executor: FairPool

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
        self._lane = self.hub.executor.lane(background=True)
        #: The child process that makes the judgements the lane's tasks wait for.
        self.judging = Judging()
        self._waiting: deque[tuple[Job, LiveTable, Match]] = deque()
        self._running: MatchAnalysis | None = None
        self._stopping = False
        #: The task running the queue, one analysis after the other (None before the first request).
        self.driving: asyncio.Task[None] | None = None

    def close(self) -> None:
        self._stopping = True
        self._waiting.clear()
        if self._running is not None:
            self._running.stop()
        self.judging.close()
        if self.driving is not None and not self.driving.done():
            self.driving.cancel()

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
        for other in self.jobs.values():
            if other.table_id == table.id and other.level == chosen:
                # Another's analysis of this game at this level, under way: hers as well once kept, at no cost.
                return None, self._progress_line(other)
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
        snapshot = loads(dumps(table.match))  # the analysis walks the moves: never the live table's own match
        self._waiting.append((job, table, snapshot))
        if self.driving is None or self.driving.done():
            self.driving = asyncio.get_running_loop().create_task(self._drive(), name="termgames-analyses")
        return None, self._progress_line(job)

    def _progress_line(self, job: Job) -> str:
        if not job.running:
            return f"table {job.table_id} is queued for analysis at level {job.level}: ask again in a while"
        return (f"table {job.table_id} is being analysed at level {job.level}: {job.done} of {job.total} moves; "
                "ask again in a while")

    async def _drive(self) -> None:
        """The queue's analyses one after the other, each a move a task in the pool's background lane."""
        while self._waiting and not self._stopping:
            job, table, match = self._waiting.popleft()
            try:
                analysis = await self._run(job, match)
            except AnalysisCancelled:
                return
            except Exception as error:  # one table's failure is logged; the queue goes on
                log.warning("table %s: analysis failed: %s", table.id, error_line(error))
                continue
            finally:
                self._running = None
                self.jobs.pop(job.owner, None)
            self._keep(table, analysis)

    async def _run(self, job: Job, match: Match) -> Analysis:
        loop = asyncio.get_running_loop()
        job.running = True
        # Made in the pool too: the first analysis of a game imports its analyst (its unit, its levels).
        steps: MatchAnalysis = await loop.run_in_executor(self._lane, MatchAnalysis, match, job.level)
        self._running = steps
        job.done, job.total = 0, steps.total
        record = dumps(match)  # what the judging process reads the match from: plain text
        while not steps.finished:
            if self._stopping:
                raise AnalysisCancelled("the server is stopping")
            # The lane's task waits in its thread for the child's judgement, holding no lock the loop needs.
            judgement = await loop.run_in_executor(self._lane, self.judging.judge, record, steps.level, steps.done)
            steps.add(judgement)
            job.done = steps.done
        return steps.result()

    def _keep(self, table: LiveTable, analysis: Analysis) -> None:
        if self.hub.closed:
            return
        try:
            record = json.loads(self.hub.record_json(table))
            record["analysis"] = analysis_json(analysis)
            self.hub.save_record_text(table, json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        except (StoreError, ValueError, OSError) as failure:
            log.warning("table %s: analysis not kept: %s", table.id, error_line(failure))
            return
        table.match.analysis = analysis_json(analysis)  # the lobby's replay shows it from now on
