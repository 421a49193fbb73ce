"""Mosaic's computer players: the guide's tactics, and a search over the opponents' replies.

Mosaic hides nothing (hands are public), so a bot's view tells the whole
position: the bot takes the rules' own state from it (``view.state()``, or,
for a view that does not carry it, rebuilt from the public move log by
:class:`Replayer`) and thinks with the rules' exact legal-move generator:
nothing here re-implements a constraint.

Levels:

* ``random``: a legal move drawn at random (the benchmark's baseline).
* ``easy``: normal's judgement on a few of its legal moves drawn at random
  (judging each step by its immediate result alone won only 72 % of 20
  games against random play).
* ``normal`` (the default): the guide's tactics.  Every move of the bot's own
  run of steps (a whole building placement; an edge with its two
  replacements and the tiles placed back; a mismatch subroutine) is judged by
  where the run ends when the bot finishes it greedily.  The score
  difference that judges it is the guide's list in one number: extending
  one's largest region adds the most (points are the square of a region's
  tiles), cutting the opponent's largest region takes the most from her,
  replacements drawn from her largest region cut it, and holes one must fill
  leave mismatches, which cost a penalty (the opponent resolves them, and
  the guide calls forcing them dangerous).
* ``hard``: ranks its choices as ``normal`` does, then plays each of the best
  few on: the opponents' replies (their routines by the easy policy, several
  replies sampled), and its own next routine, and keeps the choice whose
  outcome scores best.

Decisions are deterministic for a seed and a position (the random draws are
seeded by both) unless the time budget cuts a search short.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from .budget import Deadline, deadline_for

#: Score points one mismatched side left on the board costs the player who leaves it.
MISMATCH_COST = 3.0
#: A win (or loss) outweighs any score difference.
WIN_VALUE = 10_000.0
#: At the winning score with the last check reached too: she wins at her next routine's end unless broken.
THREAT_VALUE = 2_000.0
#: Building rollouts: each placement is the best of this many drawn at random.
BUILD_SAMPLE = 6
#: Seconds before the hard cap at which a decision stops judging anything and answers.
CAP_SLACK = 0.2
#: Moves the easy level judges, of all its legal ones.
EASY_SAMPLE = 3
#: At the winning score, first time.
REACHED_VALUE = 30.0


@dataclass(frozen=True)
class Level:
    name: str
    #: "random", "greedy" (one step), "routine" (finish the own run greedily) or "search".
    policy: str
    #: Wall-clock budget for one decision; beyond it the bot settles for what it has.
    seconds: float = 1.5
    #: Search: how many of the best-ranked choices are played on.
    width: int = 5
    #: Search: opponents' replies sampled per choice.
    replies: int = 2
    #: Search: runs of the other players' steps (each answered as the normal level would) after the bot's own;
    #: 2 plays the bot's next run too.
    depth: int = 1
    #: Routine: how many legal moves, drawn at random, are judged (0: all of them).
    sample: int = 0


LEVELS = {
    "random": Level("random", "random"),
    # Easy plays normal's way on a few of its moves, drawn at random: a step judged by where its run ends beats
    # random play (judging each step alone did not: it won 72 % of 20 games), yet it misses what normal sees.
    "easy": Level("easy", "routine", sample=EASY_SAMPLE),
    "normal": Level("normal", "routine", seconds=1.5),
    "hard": Level("hard", "search", seconds=1.8),
}
DEFAULT_LEVEL = "normal"


def make_bot(level: str | None = DEFAULT_LEVEL, seed: int | None = None) -> MosaicBot:
    name = (level or DEFAULT_LEVEL).lower()
    if name not in LEVELS:
        raise ValueError(f"Mosaic's AI levels are {', '.join(LEVELS)}, not {level!r}")
    return MosaicBot(LEVELS[name], random.randrange(2**31) if seed is None else seed)


# --------------------------------------------------------------------------
# The state behind a view
# --------------------------------------------------------------------------


class Replayer:
    """Rebuilds the rules state a view shows from its public move log, and keeps it for the next view.

    The deal is not in the view, but every tile is public: a seat's first
    hand is the tiles it placed while building plus those still in its hand
    (building ended early, ruling 6: the tiles left out are shared out in
    every way the hand sizes allow until one replays to the view).
    """

    def __init__(self) -> None:
        self._moves: tuple[tuple[int, str], ...] = ()
        self._states: list[Any] = []

    def state_for(self, view: Any) -> Any:
        moves = tuple(view.moves)
        if self._states and self._moves[: len(moves)] == moves[: len(self._moves)] and len(moves) >= len(
            self._moves
        ):
            state = self._extend(moves)
            if state is not None and _matches(state, view):
                return state
        for hands in _first_hands(view):
            self._moves, self._states = (), []
            start = _new_state(view, hands)
            if start is None:
                continue
            self._states = [start]
            state = self._extend(moves)
            if state is not None and _matches(state, view):
                return state
        self._moves, self._states = (), []
        raise ValueError("the bot cannot rebuild this position from its move log")

    def _extend(self, moves: tuple[tuple[int, str], ...]) -> Any:
        from ..rules import RuleError

        states = self._states[: len(self._moves) + 1] if len(self._moves) <= len(moves) else self._states
        state = states[-1]
        for seat, text in moves[len(states) - 1 :]:
            try:
                state = state.apply(seat, text)
            except RuleError:
                return None
            states.append(state)
        self._states, self._moves = states, moves
        return state


def _new_state(view: Any, hands: tuple[tuple[Any, ...], ...]) -> Any:
    from ..rules.mosaic import Mosaic

    game = Mosaic()
    options = {"max_routines": int(getattr(view, "max_routines", 0) or 0)}
    state = game.new(options, list(view.players), 0)
    return replace(state, hands=hands)


def _first_hands(view: Any, limit: int = 64) -> list[tuple[tuple[Any, ...], ...]]:
    """The deals that may have led to ``view``: at most ``limit`` of them."""
    from ..rules.mosaic.notation import Edge, Place, parse_move

    players = len(view.players)
    placed: list[list[Any]] = [[] for _ in range(players)]
    seen: set[Any] = set()
    for seat, text in view.moves:
        try:
            move = parse_move(text, players)
        except ValueError:
            return []
        if isinstance(move, Edge):
            break
        if isinstance(move, Place):
            if move.tile in seen:
                break
            seen.add(move.tile)
            placed[seat].append(move.tile)
    held = [list(hand) for hand in view.hands] if view.step.phase == "building" else [[] for _ in range(players)]
    base = [placed[seat] + held[seat] for seat in range(players)]
    left = sorted(getattr(view, "out_of_play", ()) or ())
    size = max(len(hand) for hand in base) if not left else (sum(map(len, base)) + len(left)) // players
    needs = [size - len(hand) for hand in base]
    if any(need < 0 for need in needs) or sum(needs) != len(left):
        return [tuple(tuple(sorted(hand)) for hand in base)] if not left else []
    found: list[tuple[tuple[Any, ...], ...]] = []

    def share(index: int, rest: list[Any], hands: list[list[Any]]) -> None:
        if len(found) >= limit:
            return
        if index == players:
            found.append(tuple(tuple(sorted(hand)) for hand in hands))
            return
        from itertools import combinations

        for chosen in combinations(range(len(rest)), needs[index]):
            picked = [rest[i] for i in chosen]
            others = [tile for i, tile in enumerate(rest) if i not in chosen]
            share(index + 1, others, [*hands, base[index] + picked])
            if len(found) >= limit:
                return

    share(0, left, [])
    return found


def _matches(state: Any, view: Any) -> bool:
    return dict(state.board) == dict(view.tiles) and tuple(state.hands) == tuple(view.hands) and list(
        state.legal_moves()
    ) == list(view.legal_moves())


# --------------------------------------------------------------------------
# Judging positions
# --------------------------------------------------------------------------


def evaluate(state: Any, me: int) -> float:
    """How good ``state`` is for ``me``: her score against the best opponent's, wins first."""
    scores = state.scores()
    if state.is_over():
        winners = state.winners()
        if me in winners:
            return WIN_VALUE / len(winners) + scores[me]
        return -WIN_VALUE + scores[me] - max(scores)
    others = [score for seat, score in enumerate(scores) if seat != me]
    # Against several opponents the leader matters most, the rest a little.
    value = scores[me] - (0.75 * max(others) + 0.25 * sum(others) / len(others))
    from ..rules.mosaic.board import board_mismatches

    mismatches = len(board_mismatches(state.board))
    if mismatches and me not in state.to_move():
        value -= MISMATCH_COST * mismatches
    target = state.winning_score
    # Ruling 5: a player at the winning score whose last check reached it too wins at her next routine's end
    # unless someone breaks her region first: nearly a win.  Reaching it once is a first step.
    for seat, score in enumerate(scores):
        if score >= target:
            threat = THREAT_VALUE if state.streaks[seat] >= 1 else REACHED_VALUE
            value += threat if seat == me else -threat
    return value


class OutOfTime(Exception):
    """The decision's time budget is spent."""


class MosaicBot:
    def __init__(self, level: Level, seed: int) -> None:
        self.settings = level
        self.level = level.name
        self.seed = seed
        self.replayer = Replayer()
        self._deadline = Deadline(0.0)
        #: The decision's hard cap (the shared 2 s unless the caller's is sooner): nothing runs past it.
        self._cap = Deadline(0.0)
        #: States judged by the last decision (for benchmarks).
        self.last_nodes = 0

    # -- entry -------------------------------------------------------------

    def choose(self, view: Any, deadline: Deadline | None = None) -> str:
        if view.viewer is None or view.viewer not in view.to_move:
            raise ValueError("the bot is asked for a move when it is not its turn")
        legal = list(view.legal_moves())
        if not legal:
            raise ValueError("no legal move")
        if len(legal) == 1:
            return legal[0]
        me = view.viewer
        rng = random.Random(f"{self.seed}:{me}:{len(view.moves)}:{'|'.join(legal[:8])}")
        if self.settings.policy == "random":
            return rng.choice(legal)
        self.last_nodes = 0
        self.start_decision(deadline)
        try:
            state = self.state_of(view)
        except ValueError:
            return rng.choice(legal)
        if self.settings.policy == "greedy":
            return self.greedy_move(state, me)
        moves = state.legal_moves()
        if self.settings.sample and len(moves) > self.settings.sample:
            moves = rng.sample(list(moves), self.settings.sample)
        ranked = self.rank(state, me, moves, complete=True)
        if self.settings.policy == "routine" or len(ranked) == 1:
            return ranked[0][1]
        return self.search(state, me, ranked, rng)

    def start_decision(self, deadline: Deadline | None) -> None:
        """Start a decision's clocks: the level's own budget, within the shared cap (``deadline``, stopped by
        'move now' as every bot's is)."""
        self._cap = deadline_for(deadline)
        self._deadline = self._cap.within(self.settings.seconds)

    def state_of(self, view: Any) -> Any:
        """The rules' state ``view`` shows: its position, or one rebuilt from the public move log (a view
        without its position, one read back from JSON say); ValueError when neither gives it."""
        try:
            return view.state()
        except (AttributeError, ValueError):
            return self.replayer.state_for(view)

    # -- policies ----------------------------------------------------------

    def after(self, state: Any, move: str) -> Any:
        self.last_nodes += 1
        return state.apply(state.to_move()[0], move)

    def greedy_move(self, state: Any, me: int, moves: list[str] | None = None) -> str:
        """The move whose immediate result is best for ``me`` (ties: the first in notation order)."""
        best_move, best_value = "", -float("inf")
        for move in moves if moves is not None else state.legal_moves():
            value = evaluate(self.after(state, move), me)
            if value > best_value:
                best_move, best_value = move, value
            if self._deadline.expired() and best_move:
                break
        return best_move

    def finish_run(self, state: Any, seat: int, greedy_for: int | None = None) -> Any:
        """Play ``seat``'s steps greedily until someone else is to move (or the game ends)."""
        judge = seat if greedy_for is None else greedy_for
        while not state.is_over() and state.to_move() == (seat,):
            if self._cap.remaining() < CAP_SLACK:
                break  # the run stays unfinished: judged where it stands, the answer in time
            moves = state.legal_moves()
            move = moves[0] if len(moves) == 1 else self.greedy_move(state, judge, moves)
            state = self.after(state, move)
        return state

    def rank(
        self, state: Any, me: int, moves: list[str] | None = None, complete: bool = False
    ) -> list[tuple[float, str, Any]]:
        """Every legal move (or ``moves``) with the value of the bot's run finished greedily after it, best first.

        Out of time, the best of the moves judged so far comes first; with ``complete`` (the bot's own
        choice) the rest are judged by their immediate result, as long as the hard cap allows.  A search's
        inner rankings stop at once: the search stops too, and with four players judging every reply
        of an opponent past the deadline took a decision beyond 2 s.
        """
        scored: list[tuple[float, str, Any]] = []
        moves = state.legal_moves() if moves is None else moves
        for index, move in enumerate(moves):
            if self._deadline.expired() and scored:
                for rest in moves[index:] if complete else ():
                    if self._cap.remaining() < CAP_SLACK:
                        break
                    after = self.after(state, rest)
                    scored.append((evaluate(after, me) - 0.5, rest, after))
                break
            after = self.finish_run(self.after(state, move), me)
            scored.append((evaluate(after, me), move, after))
        scored.sort(key=lambda item: (-item[0], item[1]))
        return scored

    def search(self, state: Any, me: int, ranked: list[tuple[float, str, Any]], rng: random.Random) -> str:
        """Play the best few choices on: the opponents answer as the normal level would, then the bot again."""
        settings = self.settings
        best_move, best_value = ranked[0][1], -float("inf")
        building = state.phase == "building"
        for value, move, finished in ranked[: settings.width]:
            if self._deadline.expired():
                break
            outcome = self.build_out(finished, me, rng) if building else self.replies(finished, me, rng)
            # The bot's own run counts a little: two choices the replies judge alike keep their order.
            total = outcome + 0.01 * value
            if total > best_value:
                best_move, best_value = move, total
        return best_move

    def build_out(self, state: Any, me: int, rng: random.Random) -> float:
        """Building: the value for ``me`` once the board is built (each placement the best of a few drawn at
        random) and the first alteration run played: what the board built will be worth is what counts."""
        while not state.is_over() and state.phase == "building":
            if self._deadline.expired():
                return evaluate(state, me)
            seat = state.to_move()[0]
            moves = state.legal_moves()
            sample = moves if len(moves) <= BUILD_SAMPLE else rng.sample(moves, BUILD_SAMPLE)
            state = self.after(state, self.greedy_move(state, seat, sample))
        if not state.is_over() and not self._deadline.expired():
            state = self.rank(state, state.to_move()[0])[0][2]
        return evaluate(state, me)

    def replies(self, state: Any, me: int, rng: random.Random) -> float:
        """The value for ``me`` once the others have answered ``state`` as the normal level would.

        At depth 2 the bot's next run follows, and the others' answers to it.
        """
        for depth in range(self.settings.depth):
            if depth and not state.is_over():
                state = self.rank(state, me)[0][2]
            while not state.is_over() and state.to_move() != (me,):
                if self._deadline.expired():
                    return evaluate(state, me)
                state = self.rank(state, state.to_move()[0])[0][2]
        return evaluate(state, me)
