"""The turn runner: plays a table's AI seats, the same way at one keyboard and on the server.

Every table (:class:`~termgames.table.LocalTable`, the server's
:class:`~termgames.server.tables.LiveTable`) owns one :class:`TurnRunner`.  It
decides when the computer players think, and nothing else does:

* **Scheduling.**  Every AI seat among ``state.to_move()`` gets its own
  decision, all at once when a turn is simultaneous (several seats to move);
  a human seat to move at the same time is asked meanwhile, the runner never
  waits for one seat before asking another.
* **Threading.**  A bot's ``choose`` and the checking of its move run in a
  worker thread (the table's executor: the server's pool, or the loop's
  default executor at one keyboard); the move is recorded by the table on the
  event loop, so a store, a hub and a screen are only ever touched there.
* **Pacing.**  An AI move stays "thinking" at least ``game.ai_move_seconds``
  (Mono's probes longer than a Copolymer claim) times the table's
  :attr:`~TurnRunner.pace_factor` (the player's pace at one keyboard: 0 for
  instant), waited out on the loop, not in the worker thread, so a slow pace
  never holds one of the pool's threads.
* **Staleness.**  :attr:`generation` counts changes of position.  An undo
  (:meth:`rewound`) makes every decision in flight stale; a move
  (:meth:`moved`) makes stale the decisions of seats no longer to move.  A
  seat still to move after another seat's move is in a simultaneous turn,
  where the rules show no seat the others' pending moves: what it decides on
  has not changed, and its decision holds.  A stale answer is dropped and the
  seat, if still to move, thinks again.
* **Time.**  Every decision runs under a :class:`~termgames.ai.Deadline` of
  :data:`~termgames.ai.TIME_CAP` seconds: :meth:`time_left` says how long a
  seat may still think, :meth:`hurry` has it play its best move now.
* **Failures.**  A bot that raises or answers an illegal move is reported
  (``error`` news); a game with a ``fault_move`` (Monad) then gets that move
  for the seat, so a simultaneous turn goes on; otherwise the seat waits.
* **Undo policy** (:func:`undo_ply`): undo goes back to just before the last
  move of the seats asking, and the AI replies after it go with it.

The runner is pure asyncio: no Textual, no asyncssh.  Its host (the table)
tells it of every change and hears of its moves and of who is thinking.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from .ai import TIME_CAP, Bot, Deadline, choose_within, make_bot
from .match import Match, PreparedMove, prepare_move
from .rules import RuleError, View
from .untrusted import printable


class RunnerHost(Protocol):
    """The table a runner plays for.  Every call comes on the event loop."""

    @property
    def match(self) -> Match: ...

    def ai_may_move(self) -> bool:
        """False while the table cannot take AI moves (a server shutting down)."""
        ...

    def now(self) -> float:
        """The time its clocks count with (the table's time source), in seconds since the epoch."""
        ...

    def play_prepared(self, prepared: PreparedMove) -> None:
        """Record an AI's move (RuleError if refused); the host then calls :meth:`TurnRunner.moved`."""
        ...

    def ai_news(self, kind: str, text: str) -> None:
        """``thinking`` (the set of thinking seats changed) or ``error`` (an AI failed: ``text`` says how)."""
        ...


@dataclass
class _Decision:
    """One AI seat's decision in flight."""

    seat: int
    epoch: int
    started: float
    timer: asyncio.TimerHandle | None = field(default=None, compare=False)
    #: The answer while its pace is waited out.
    answer: _Answer | None = field(default=None, compare=False)
    #: The bot's deadline: stopped by :meth:`TurnRunner.hurry`.
    deadline: Deadline = field(default_factory=Deadline, compare=False)
    #: The longest pace waited out: on a clock, the thinking time (the pace never costs a seat its time).
    pace_cap: float = field(default=float("inf"), compare=False)


@dataclass(frozen=True)
class _Answer:
    move: str
    prepared: PreparedMove | None
    error: str


def undo_ply(match: Match, asking: Sequence[int]) -> int | None:
    """Where an undo asked by the seats ``asking`` (those at one keyboard) goes: the undo policy of every table.

    Back to just before the last move one of them made, with the AI replies
    after it: against AIs the human's own move comes back; hot-seat (every
    seat asking) one move; at a shared table the asking player's last move.
    With nobody asking (AIs playing each other) the last move.  None when
    there is nothing to undo; RuleError when a seat ran out of time since
    that move (the flag, and what came before it, stand).
    """
    wanted = asking or range(len(match.seats))
    ply = match.undo_ply_for(wanted)
    if ply is None and match.flags and any(record.seat in set(wanted) for record in match.moves):
        raise RuleError("a seat ran out of time since that move: the moves before the flag stand")
    return ply


class TurnRunner:
    """Plays the AI seats of one table (see the module doc)."""

    def __init__(self, host: RunnerHost, executor: Executor | None = None) -> None:
        self.host = host
        self.executor = executor
        #: Bumped by every change of position; a screen compares it with what it drew.
        self.generation = 0
        self._epoch = 0
        self._deciding: dict[int, _Decision] = {}
        self._failed: set[int] = set()
        self._bots: dict[tuple[int, str], Bot] = {}
        self._announced: frozenset[int] = frozenset()
        self._stopped = False
        #: How long an AI move stays "thinking", as a multiple of the game's ``ai_move_seconds`` (0: instant).
        self.pace_factor = 1.0

    # -- what the table asks ---------------------------------------------------

    @property
    def thinking(self) -> frozenset[int]:
        """The AI seats whose move is being worked out now (or waits out its pace)."""
        return frozenset(self._deciding)

    def time_left(self, seat: int) -> float | None:
        """Seconds the AI seat ``seat`` may still think (None when it is not thinking)."""
        decision = self._deciding.get(seat)
        return None if decision is None else decision.deadline.remaining()

    def hurry(self) -> None:
        """Every AI seat thinking plays the best move it has found, now (the pace is not waited out)."""
        for decision in list(self._deciding.values()):
            decision.deadline.stop()
            if decision.timer is not None:  # answered already, waiting out its pace: conclude at once
                decision.timer.cancel()
                decision.timer = None
                answer = decision.answer
                if answer is not None:
                    self._conclude(decision, answer)

    def pace_seconds(self) -> float:
        """How long an AI move stays "thinking" at least, at this runner's pace."""
        return self.host.match.game.ai_move_seconds * self.pace_factor

    def set_pace(self, factor: float) -> None:
        """A new pace (see :attr:`pace_factor`); an answer already waiting out the old one waits what is left
        of the new one (nothing, at instant)."""
        self.pace_factor = max(0.0, factor)
        waiting = [d for d in self._deciding.values() if d.timer is not None and d.answer is not None]
        if not waiting:
            return
        loop = asyncio.get_running_loop()
        for decision in waiting:
            assert decision.timer is not None and decision.answer is not None
            decision.timer.cancel()
            rest = decision.started + self.pace_seconds() - loop.time()
            if rest > 0:
                decision.timer = loop.call_later(rest, self._conclude, decision, decision.answer)
            else:
                decision.timer = None
                self._conclude(decision, decision.answer)

    def start(self) -> None:
        """Let AI seats to move think (on the loop; without a running loop, nothing happens yet)."""
        self._stopped = False
        self._schedule()
        self._announce()

    def stop(self) -> None:
        """No more AI moves: every decision in flight is dropped."""
        self._stopped = True
        self.generation += 1
        self._drop_all()
        self._announce()

    def moved(self) -> None:
        """A move was recorded (any seat's): drop the decisions it made stale, then schedule."""
        self.generation += 1
        self._failed.clear()
        for decision in list(self._deciding.values()):
            if not self._still_valid(decision):
                self._drop(decision)
        self._schedule()
        self._announce()

    def rewound(self) -> None:
        """The position went back (an undo) or the match was rebuilt: every decision in flight is stale."""
        self.generation += 1
        self._epoch += 1
        self._failed.clear()
        self._drop_all()
        self._schedule()
        self._announce()

    async def prepare_in_thread(self, seat: int, move: str) -> PreparedMove:
        """Check a slow move (MonUnrail's Impossible) in a worker thread; record it on the loop at once after.

        RuleError if it is illegal, or if the position changed while it was being checked.
        """
        match = self.host.match
        state, generation = match.state, self.generation
        loop = asyncio.get_running_loop()
        prepared = await loop.run_in_executor(self.executor, prepare_move, state, seat, move)
        if self.generation != generation or self.host.match.state is not state:
            raise RuleError("the position changed meanwhile: try again")
        return prepared

    # -- scheduling ----------------------------------------------------------------

    def _schedule(self) -> None:
        match = self.host.match
        if self._stopped or match.over or not self.host.ai_may_move():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a plain script or a test without one): start() is called on the loop later
        for seat in match.to_move():
            if match.computer_plays(seat) and seat not in self._deciding and seat not in self._failed:
                self._begin(loop, match, seat)

    def _begin(self, loop: asyncio.AbstractEventLoop, match: Match, seat: int) -> None:
        timeout_move = match.timeout_move(seat)
        if timeout_move is not None:
            # A seat out of time whose game says what it plays (Monad's pass): no thinking, no pace.
            decision = _Decision(seat, self._epoch, loop.time())
            self._deciding[seat] = decision
            try:
                answer = _Answer(timeout_move, prepare_move(match.state, seat, timeout_move), "")
            except RuleError as error:
                answer = _Answer(timeout_move, None, f"tried {timeout_move}: {error}")
            loop.call_soon(self._conclude, decision, answer)
            return
        try:
            bot = self._bot(match, seat)
        except Exception as error:  # no bot for this game or level: the seat waits, the game goes on
            self._failed.add(seat)
            self.host.ai_news("error", f"{match.names[seat]} (AI) has no computer player: {error}")
            return
        view = match.view(seat)
        seconds = self._think_seconds(match, seat, self.host.now())
        decision = _Decision(seat, self._epoch, loop.time(), deadline=Deadline(seconds))
        if match.clocks is not None:
            decision.pace_cap = seconds
        self._deciding[seat] = decision
        future = loop.run_in_executor(self.executor, _decide, bot, view, match.state, seat, decision.deadline)
        future.add_done_callback(partial(self._answered, decision))

    @staticmethod
    def _think_seconds(match: Match, seat: int, now: float) -> float:
        """How long a computer seat may think: :data:`TIME_CAP`, and on a clock a tenth of its time left at most,
        so that a computer player never runs out of time thinking."""
        clocks = match.clocks
        if clocks is None or not clocks.counting or seat not in clocks.running:
            return TIME_CAP
        return max(0.05, min(TIME_CAP, clocks.left_at(seat, now) / 10))

    def _bot(self, match: Match, seat: int) -> Bot:
        level = match.computer_level(seat)
        key = (seat, level)
        if key not in self._bots:
            self._bots[key] = make_bot(match.game.name, level, seed=match.bot_seed(seat))  # never the table's seed
        return self._bots[key]

    # -- answers -------------------------------------------------------------------

    def _answered(self, decision: _Decision, future: asyncio.Future[_Answer]) -> None:
        if self._deciding.get(decision.seat) is not decision:
            return  # dropped meanwhile: stale
        if future.cancelled():
            self._drop(decision)
            self._announce()
            return
        error = future.exception()
        answer = _Answer("", None, f"failed: {error}") if error is not None else future.result()
        loop = asyncio.get_running_loop()
        # The pace is waited out within the thinking time: on a clock it never costs the seat more than that.
        rest = decision.started + min(self.pace_seconds(), decision.pace_cap) - loop.time()
        if rest > 0 and not decision.deadline.stopped:
            decision.answer = answer
            decision.timer = loop.call_later(rest, self._conclude, decision, answer)
        else:
            self._conclude(decision, answer)

    def _conclude(self, decision: _Decision, answer: _Answer) -> None:
        if self._deciding.get(decision.seat) is not decision:
            return
        del self._deciding[decision.seat]
        if self._stopped:
            self._announce()
            return
        if not self._still_valid(decision):
            self._schedule()  # the position changed under it: think again if still to move
            self._announce()
            return
        seat = decision.seat
        if answer.prepared is None:
            self._fail(seat, answer.error)
            return
        try:
            self.host.play_prepared(answer.prepared)  # the host calls moved(): the next decisions start there
        except RuleError as error:
            self._fail(seat, f"tried {answer.move}: {error}")
            return
        self._announce()

    def _fail(self, seat: int, reason: str) -> None:
        """An AI seat failed: say so; then the game's fault move for it, or it waits for an undo."""
        match = self.host.match
        self._failed.add(seat)
        self._announce()
        self.host.ai_news("error", f"{match.names[seat]} (AI) {reason}")
        fault = match.game.fault_move
        if fault is None:
            return
        try:
            # A bot's error may quote anything (its output, an escape sequence): the fault is printable text.
            said = printable(" ".join(reason.split()))
            self.host.play_prepared(prepare_move(match.state, seat, f"{fault} {said}"))
        except RuleError as error:
            self.host.ai_news("error", f"{match.names[seat]} (AI) could not even play {fault}: {error}")

    def _still_valid(self, decision: _Decision) -> bool:
        match = self.host.match
        return decision.epoch == self._epoch and not match.over and decision.seat in match.to_move()

    def _drop(self, decision: _Decision) -> None:
        decision.deadline.stop()  # its answer would be thrown away: the pool's thread is free sooner
        if decision.timer is not None:
            decision.timer.cancel()
        self._deciding.pop(decision.seat, None)

    def _drop_all(self) -> None:
        for decision in list(self._deciding.values()):
            self._drop(decision)

    def _announce(self) -> None:
        now = self.thinking
        if now != self._announced:
            self._announced = now
            self.host.ai_news("thinking", "")


def _decide(bot: Bot, view: View, state: Any, seat: int, deadline: Deadline | None = None) -> _Answer:
    """In a worker thread: the bot's move (within ``deadline``), checked against the position it was shown."""
    move = choose_within(bot, view, deadline or Deadline(TIME_CAP))
    try:
        return _Answer(move, prepare_move(state, seat, move), "")
    except RuleError as error:
        return _Answer(move, None, f"tried {move}: {error}")
