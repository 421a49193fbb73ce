"""The turn runner: simultaneous turns (a fake sealed-bid game), threads, pacing, stale answers, undo.

The same runner plays the AI seats of the local table and of the server's
tables, so these tests drive it through a :class:`LocalTable` and, where the
server differs (thread pool, broadcasts, the store), through a ``LiveTable``.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, replace
from typing import Any

import pytest
from tui import panel_text

from termgames.games import GameDescriptor
from termgames.match import AI, Match, Seat
from termgames.rules import Game, RuleError, State, View, Viewer
from termgames.table import LocalTable

# --------------------------------------------------------------------------
# A fake simultaneous game: every seat bids a number each round, in secret
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class BidView(View):
    round: int = 0
    #: The viewer's own sealed bid this round (None: not yet); nobody else's is ever shown.
    mine: int | None = None
    totals: tuple[int, ...] = ()


@dataclass(frozen=True)
class BidState(State):
    rounds: int = 2
    round: int = 0
    pending: tuple[int | None, ...] = ()
    totals: tuple[int, ...] = ()

    def to_move(self) -> tuple[int, ...]:
        if self.is_over():
            return ()
        return tuple(seat for seat, bid in enumerate(self.pending) if bid is None)

    def is_over(self) -> bool:
        return self.round >= self.rounds

    def scores(self) -> tuple[float, ...]:
        return tuple(float(total) for total in self.totals)

    def view(self, viewer: Viewer) -> View:
        mine = self.pending[viewer] if viewer is not None and viewer >= 0 else None
        return BidView(
            "bids", viewer, self.seats, self.to_move(), self.is_over(), self.scores(), self.winners(),
            f"round {self.round + 1}", round=self.round, mine=mine, totals=self.totals,
        )

    def _apply(self, seat: int, move: str) -> State:
        if move.startswith("fault "):
            move = "0"  # a failed seat bids nothing this round
        if not move.isdigit():
            raise RuleError(f"{move!r} is not a bid")
        pending = tuple(int(move) if s == seat else bid for s, bid in enumerate(self.pending))
        if all(bid is not None for bid in pending):  # the last bid resolves the round
            totals = tuple(total + (bid or 0) for total, bid in zip(self.totals, pending))
            return replace(self, ply=self.ply + 1, round=self.round + 1, pending=(None,) * len(pending), totals=totals)
        return replace(self, ply=self.ply + 1, pending=pending)

    def redact_move(self, seat: int, move: str, viewer: Viewer) -> str:
        return move if viewer == seat else "bid"


class Bids(Game):
    name = "bids"
    ai_move_seconds = 0.0

    def _new(self, options: dict[str, Any], seats: tuple[str, ...], seed: int) -> State:
        n = len(seats)
        return BidState(seats, seed, options, pending=(None,) * n, totals=(0,) * n)

    def rules_text(self) -> str:
        return "Bid."


#: Never registered in GAMES: the game is handed its descriptor (its bots come from use_bots).
BIDS = GameDescriptor(
    "bids", "Bids", "A test game: sealed bids, every seat at once.", rules=f"{__name__}:Bids",
    bot=f"{__name__}:RecordingBot", ai_levels=("normal",), default_level="normal", max_seats=4,
)


class RecordingBot:
    """Bids its seat number + 1; records the views it got and the threads it ran on; may wait at a gate."""

    level = "normal"

    def __init__(self, gate: threading.Event | None = None, barrier: threading.Barrier | None = None) -> None:
        self.gate, self.barrier = gate, barrier
        self.views: list[View] = []
        self.threads: list[threading.Thread] = []
        self.asked = threading.Event()
        #: How many answers it has handed back (the runner then takes them on the loop, or drops them).
        self.answers = 0

    def choose(self, view: View) -> str:
        self.views.append(view)
        self.threads.append(threading.current_thread())
        self.asked.set()
        if self.barrier is not None:
            self.barrier.wait(timeout=5)  # every AI seat of the turn must be asked at once to get past
        if self.gate is not None:
            assert self.gate.wait(timeout=5)
        self.answers += 1
        return str(view.viewer + 1)


def use_bots(monkeypatch, bots: dict[int, RecordingBot]) -> None:
    # The runner seeds each seat's bot with Match.bot_seed(seat): here that seed says which seat's bot to hand out.
    monkeypatch.setattr("termgames.match.Match.bot_seed", lambda match, seat: SEED + seat)
    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: bots[seed - SEED])


SEED = 11


class LoopOnlyTable(LocalTable):
    """A local table that checks every move is recorded on the loop's thread, and keeps its news."""

    def __init__(self, match: Match) -> None:
        super().__init__(match)
        self.news: list[tuple[str, str]] = []
        self.watch(lambda kind, text: self.news.append((kind, text)))

    def play_prepared(self, prepared) -> None:
        assert threading.current_thread() is threading.main_thread()
        super().play_prepared(prepared)


def bids_table(*seats: Seat) -> LoopOnlyTable:
    return LoopOnlyTable(Match(Bids(BIDS), {}, seats, SEED))


async def loop_turns(count: int = 20) -> None:
    """Let the loop run what is due now (an answer handed over from a bot's thread): no time passes."""
    for _ in range(count):
        await asyncio.sleep(0)


async def until(condition, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


# --------------------------------------------------------------------------
# Simultaneous turns
# --------------------------------------------------------------------------


async def test_every_ai_seat_of_a_simultaneous_turn_decides_at_once(monkeypatch):
    barrier = threading.Barrier(3)
    bots = {seat: RecordingBot(barrier=barrier) for seat in range(3)}
    use_bots(monkeypatch, bots)
    table = bids_table(*(Seat(f"cpu{n}", AI, "normal") for n in range(3)))
    table.start()
    assert table.thinking == {0, 1, 2}
    assert await until(lambda: table.over)
    assert table.match.state.totals == (2, 4, 6)  # two rounds of 1, 2, 3
    for seat, bot in bots.items():
        assert len(bot.views) == 2  # asked once a round: another seat's bid did not make its decision stale
        assert all(view.viewer == seat for view in bot.views)
        assert all(thread is not threading.main_thread() for thread in bot.threads)
    assert not table.thinking and ("thinking", "") in table.news


async def test_a_human_is_asked_while_the_ais_think_and_never_sees_their_bids(monkeypatch):
    gate = threading.Event()
    bots = {1: RecordingBot(gate), 2: RecordingBot(gate)}
    use_bots(monkeypatch, bots)
    table = bids_table(Seat("ann"), Seat("cpu1", AI, "normal"), Seat("cpu2", AI, "normal"))
    table.start()
    assert await until(lambda: bots[1].asked.is_set() and bots[2].asked.is_set())
    assert table.thinking == {1, 2} and table.viewing_seat() == 0
    table.play(0, "7")  # the human bids while both AIs think
    assert table.thinking == {1, 2}  # her bid changed nothing they saw: they go on
    gate.set()
    assert await until(lambda: table.match.state.round == 1)
    assert [sum(v.round == 0 for v in bot.views) for bot in bots.values()] == [1, 1]  # not asked twice
    assert table.match.state.totals == (7, 2, 3)
    # Each seat's view (the human's, each bot's) shows the others' bids as "bid" only: the rules' redaction.
    assert all(text == "bid" for seat, text in table.view(0).moves if seat != 0)
    for seat, bot in bots.items():
        assert all(text == "bid" for view in bot.views for who, text in view.moves if who != seat)


async def test_an_undo_makes_the_answers_in_flight_stale(monkeypatch):
    gate = threading.Event()
    bots = {1: RecordingBot(gate)}
    use_bots(monkeypatch, bots)
    table = bids_table(Seat("ann"), Seat("cpu", AI, "normal"))
    table.play(0, "5")
    table.start()
    assert await until(bots[1].asked.is_set)
    generation = table.generation
    assert table.undo() == "Undone"
    assert table.generation > generation and table.match.moves == []
    gate.set()
    assert await until(lambda: len(bots[1].views) == 2)  # asked again, about the position after the undo
    assert await until(lambda: len(table.match.moves) == 1)
    assert await until(lambda: bots[1].answers == 2)  # both answers handed back: the stale one and the new one
    await loop_turns()
    assert [m.seat for m in table.match.moves] == [1]  # one answer only: the stale one was dropped
    assert table.thinking == frozenset()


async def test_an_ai_move_stays_thinking_for_the_games_pace(monkeypatch):
    monkeypatch.setattr(Bids, "ai_move_seconds", 0.3)
    bots = {0: RecordingBot(), 1: RecordingBot()}
    use_bots(monkeypatch, bots)
    table = bids_table(Seat("a", AI, "normal"), Seat("b", AI, "normal"))
    started = time.monotonic()
    table.start()
    assert await until(lambda: bool(table.match.moves))
    assert time.monotonic() - started >= 0.3  # the bots answered at once, yet each stayed "thinking" 0.3 s
    assert all(thread is not threading.main_thread() for bot in bots.values() for thread in bot.threads)


async def test_a_failing_bot_is_reported_once_and_the_game_waits():
    class Broken:
        level = "normal"

        def choose(self, view: View) -> str:
            raise ValueError("out of ideas")

    table = bids_table(Seat("ann"), Seat("cpu", AI, "normal"))
    table.runner._bots[(1, "normal")] = Broken()
    table.start()
    assert await until(lambda: ("error", "cpu (AI) failed: out of ideas") in table.news)
    assert await until(lambda: table.thinking == frozenset())
    assert table.news.count(("error", "cpu (AI) failed: out of ideas")) == 1


async def test_an_illegal_ai_move_is_reported_with_the_move(monkeypatch):
    class Nonsense:
        level = "normal"

        def choose(self, view: View) -> str:
            return "lots"

    table = bids_table(Seat("ann"), Seat("cpu", AI, "normal"))
    table.runner._bots[(1, "normal")] = Nonsense()
    table.start()
    assert await until(lambda: any(kind == "error" for kind, _ in table.news))
    assert ("error", "cpu (AI) tried lots: 'lots' is not a bid") in table.news
    assert table.match.moves == []


async def test_a_stopped_table_plays_no_more(monkeypatch):
    gate = threading.Event()
    bots = {1: RecordingBot(gate)}
    use_bots(monkeypatch, bots)
    table = bids_table(Seat("ann"), Seat("cpu", AI, "normal"))
    table.set_pace("instant")  # an answer would be recorded as soon as it is handed over
    table.start()
    assert await until(bots[1].asked.is_set)
    table.close()
    gate.set()
    assert await until(lambda: bots[1].answers == 1)
    await loop_turns()
    assert table.match.moves == [] and not table.thinking


async def test_a_slow_move_is_checked_in_a_thread_and_recorded_on_the_loop():
    checked_on: list[threading.Thread] = []

    class SlowState(BidState):
        def _apply(self, seat: int, move: str) -> State:
            checked_on.append(threading.current_thread())
            return super()._apply(seat, move)

    table = bids_table(Seat("ann"), Seat("bob"))
    first = table.match.state
    slow = SlowState(first.seats, first.seed, first.options, pending=first.pending, totals=first.totals)
    table.match.states[0] = slow
    await table.play_slow(0, "4")
    assert checked_on and checked_on[0] is not threading.main_thread()
    assert [m.move for m in table.match.moves] == ["4"]
    with pytest.raises(RuleError, match="not a bid"):
        await table.play_slow(1, "x")


async def test_a_game_with_a_fault_move_goes_on_without_the_failed_seat(monkeypatch):
    class Broken:
        level = "normal"

        def choose(self, view: View) -> str:
            raise ValueError("crashed\nfor good")

    monkeypatch.setattr(Bids, "fault_move", "fault")
    table = bids_table(Seat("ann"), Seat("cpu", AI, "normal"))
    table.runner._bots[(1, "normal")] = Broken()
    table.start()
    assert await until(lambda: table.match.moves)
    assert [(m.seat, m.move) for m in table.match.moves] == [(1, "fault failed: crashed for good")]
    table.play(0, "3")  # the round resolves: the failed seat bid nothing
    assert table.match.state.totals == (3, 0)


# --------------------------------------------------------------------------
# The game screen at a simultaneous turn
# --------------------------------------------------------------------------


async def test_the_screen_takes_the_humans_bid_while_the_ai_thinks(monkeypatch, tmp_path):
    from rich.style import Style
    from textual.app import App

    from termgames.screens.game import GameScreen
    from termgames.widgets.board import BoardWidget

    class BidsBoard(BoardWidget[BidView]):
        def build_lines(self):
            view = self.view
            return [[(f"round {view.round + 1}, my bid {view.mine}" if view else "", Style())]]

    class BidsScreen(GameScreen[BidView]):
        board_class = BidsBoard

        def move_at_cursor(self, view: BidView) -> str | None:
            return "5"

    gate = threading.Event()
    bots = {1: RecordingBot(gate)}
    use_bots(monkeypatch, bots)
    table = LocalTable(Match(Bids(BIDS), {}, [Seat("ann"), Seat("cpu", AI, "normal")], SEED))
    app = App()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(BidsScreen(table))
        await pilot.pause()
        assert bots[1].asked.wait(5)
        await pilot.pause()
        screen = app.screen
        assert "cpu is thinking" in panel_text(screen, "status")
        await pilot.press("enter")  # ann bids while the AI thinks: nothing makes her wait
        await pilot.pause()
        assert [(m.seat, m.move) for m in table.match.moves] == [(0, "5")]
        assert "my bid 5" in screen.board.text_lines()[0]
        gate.set()
        assert await until(lambda: table.match.state.round == 1)
        for _ in range(5):
            await pilot.pause()
        assert "round 2, my bid None" in screen.board.text_lines()[0]
        assert table.match.state.totals == (5, 2)


async def test_a_game_without_a_computer_player_says_so_and_the_humans_play_on():
    table = bids_table(Seat("ann"), Seat("cpu", AI, "normal"))  # "bids" has no bot module
    table.start()
    assert any(kind == "error" and text.startswith("cpu (AI) has no computer player") for kind, text in table.news)
    table.play(0, "1")  # the human's move is recorded all the same
    assert [m.seat for m in table.match.moves] == [0] and table.thinking == frozenset()


async def test_a_monad_seat_whose_bot_fails_sends_a_fault_and_the_turn_resolves(monkeypatch):
    class Broken:
        level = "greedy"

        def choose(self, view: View) -> str:
            raise RuntimeError("the bot process died")

    monkeypatch.setattr("termgames.rules.monad.Monad.ai_move_seconds", 0.0)
    table = LoopOnlyTable(Match("monad", {"width": 8, "height": 8, "turns": 3}, [Seat("ann"), Seat("cpu", AI)], 2))
    table.runner._bots[(1, "greedy")] = Broken()
    table.start()
    assert await until(lambda: bool(table.match.moves))
    assert table.match.moves[0].seat == 1 and table.match.moves[0].move.startswith("fault ")
    table.play(0, "pass")
    assert table.match.state.board.turn == 1  # both seats answered: the turn resolved
