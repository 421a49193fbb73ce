"""The Copolymer computer player: Monte Carlo tree search (UCT) over claims.

What the rules make of the game, and what the search makes of it:

* A free claim is one that touches two or more enemy cells: the claimer
  keeps the turn, so it is a cell for nothing.  No claim ever takes an
  enemy contact away, so a cell that is free for a player stays free for
  them until somebody claims it.
* Taking a free cell at once is not always best.  Claiming any cell adds to
  our contacts around it, and every empty neighbour that reaches two of our
  cells becomes a free cell for the opponent: a gift.  A free cell the
  opponent cannot use as one (it touches fewer than two of our cells) can
  wait in reserve until its neighbours have filled; the opponent can only
  take it away by ending a turn on it.
* The order of a turn's free claims matters little, so the tree takes them
  in increasing cell order: the same turn is not searched in every order.

Playouts follow a light policy built on the same ideas: take the free cells
that give nothing away or that the opponent could use too, keep the others
in reserve, and end the turn on the best of a few random cells by a local
score (+1 for taking a cell that would be free for the opponent, -1 per
gift).  The easy level plays that policy's choices without searching.

The bot sees only the :class:`CopolymerView` it is given and copies it into
flat lists; the search never touches the (immutable, slow) rules state.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from ..rules.copolymer import CopolymerView

EMPTY = -1


@dataclass(frozen=True)
class Level:
    """How hard one level thinks."""

    name: str
    #: Playouts per decision; 0 means no search (the local score alone).
    playouts: int
    #: A decision stops early after this long, whatever the playouts left.
    seconds: float
    #: Cells a playout draws before choosing the one that ends a turn.
    sample: int = 3
    #: UCT's exploration constant (rewards lie in 0..1).
    exploration: float = 0.5


LEVELS = {
    "easy": Level("easy", playouts=0, seconds=0.5),
    "normal": Level("normal", playouts=2500, seconds=1.0),
    "hard": Level("hard", playouts=8000, seconds=1.8),
}
DEFAULT_LEVEL = "normal"

#: Share of a playout's reward that is the winner; the rest is the margin, so
#: that won (or lost) positions still prefer the bigger (smaller) margin.
WIN_WEIGHT = 0.9


def make_bot(level: str | None = DEFAULT_LEVEL, seed: int | None = None) -> "CopolymerBot":
    name = (level or DEFAULT_LEVEL).lower()
    if name not in LEVELS:
        raise ValueError(f"Copolymer's AI levels are {', '.join(LEVELS)}, not {level!r}")
    return CopolymerBot(LEVELS[name], random.randrange(2**31) if seed is None else seed)


class CopolymerBot:
    def __init__(self, level: Level, seed: int) -> None:
        self.settings = level
        self.level = level.name
        self.seed = seed
        #: Playouts run by the last decision (0 when it needed no search), for benchmarks.
        self.last_playouts = 0

    def choose(self, view: CopolymerView) -> str:
        assert view.board is not None and view.viewer is not None
        self.last_playouts = 0
        me = view.viewer
        neighbours = view.board.neighbours
        owner = [EMPTY if o is None else o for o in view.owners]
        empties = [cell for cell, o in enumerate(owner) if o == EMPTY]
        if not empties:
            raise ValueError("the board is full")
        touch = contact_counts(owner, neighbours)
        if all(touch[1 - me][cell] >= 2 for cell in empties) or len(empties) == 1:
            # Every cell left is ours for the taking, in any order.
            return view.board.names[empties[0]]
        # The same seed and position always give the same answer, whatever
        # the bot played before (undo, replays and tests rely on it).
        rng = random.Random(f"{self.seed}:{me}:{''.join('.xo'[o + 1] for o in owner)}")
        if self.settings.playouts == 0:
            return view.board.names[greedy_claim(owner, touch, me, neighbours, rng)]
        search = Search(owner, touch, me, neighbours, self.settings, rng)
        cell = search.run()
        self.last_playouts = search.playouts
        return view.board.names[cell]


# --------------------------------------------------------------------------
# Position helpers on flat lists
# --------------------------------------------------------------------------
#
# ``owner[cell]`` is a seat or EMPTY; ``touch[seat][cell]`` counts the
# cell's neighbours that seat owns.  For the mover, ``mine = touch[mover]``
# and ``theirs = touch[1 - mover]``: a cell is free for the mover when
# ``theirs[cell] >= 2`` and free for the opponent when ``mine[cell] >= 2``.


def contact_counts(owner: list[int], neighbours) -> tuple[list[int], list[int]]:
    """Per seat, how many of each cell's neighbours that seat owns."""
    touch = ([0] * len(owner), [0] * len(owner))
    for cell, seat in enumerate(owner):
        if seat != EMPTY:
            counts = touch[seat]
            for n in neighbours[cell]:
                counts[n] += 1
    return touch


def gifts(cell: int, owner: list[int], mine: list[int], neighbours) -> int:
    """How many empty cells claiming ``cell`` would make free for the opponent."""
    return sum(1 for n in neighbours[cell] if mine[n] == 1 and owner[n] == EMPTY)


def claim_score(cell: int, owner: list[int], mine: list[int], theirs: list[int], neighbours) -> int:
    """How good claiming ``cell`` looks to the mover, judged locally.

    A free cell is worth a cell; one the opponent could also take for free
    is worth one more; each gift costs one.
    """
    score = (1 if theirs[cell] >= 2 else 0) + (1 if mine[cell] >= 2 else 0)
    return score - gifts(cell, owner, mine, neighbours)


def ranked_claims(cells, owner, mine, theirs, neighbours, rng: random.Random) -> list[int]:
    """``cells`` best first by :func:`claim_score`, ties in random order."""
    keyed = [(-claim_score(cell, owner, mine, theirs, neighbours), rng.random(), cell) for cell in cells]
    keyed.sort()
    return [cell for _, _, cell in keyed]


def greedy_claim(owner: list[int], touch, me: int, neighbours, rng: random.Random) -> int:
    """The playout policy's claim, looking at every cell rather than a few."""
    mine, theirs = touch[me], touch[1 - me]
    empties = [cell for cell, o in enumerate(owner) if o == EMPTY]
    free = [cell for cell in empties if theirs[cell] >= 2]
    for cell in ranked_claims(free, owner, mine, theirs, neighbours, rng):
        if mine[cell] >= 2 or gifts(cell, owner, mine, neighbours) == 0:
            return cell
    endings = [cell for cell in empties if theirs[cell] < 2]
    if not endings:
        return free[0]
    return ranked_claims(endings, owner, mine, theirs, neighbours, rng)[0]


# --------------------------------------------------------------------------
# Search
# --------------------------------------------------------------------------


class Node:
    """A position with ``mover`` to claim.

    ``after`` is the last free claim of the turn so far (-1 at the start of
    a turn): only free cells after it in cell order may follow, so each set
    of free claims is searched in one order.  ``moves`` are ranked best
    first by :func:`claim_score` (unvisited moves are tried in that order)
    on the node's second visit: most leaves only ever see their playout.
    """

    __slots__ = ("mover", "after", "moves", "children", "visits", "values", "total", "tried")

    def __init__(self, mover: int, after: int) -> None:
        self.mover = mover
        self.after = after
        self.moves: list[int] = []
        self.children: list[Node | None] = []
        self.visits: list[int] = []
        self.values: list[float] = []
        self.total = 0
        #: Moves visited at least once: moves[:tried].
        self.tried = 0

    def expand(self, owner: list[int], touch, neighbours, rng: random.Random) -> None:
        mine, theirs = touch[self.mover], touch[1 - self.mover]
        empties = [cell for cell, o in enumerate(owner) if o == EMPTY]
        allowed = [cell for cell in empties if theirs[cell] < 2 or cell > self.after]
        # Only free cells before ``after`` are left: this order of the
        # turn is searched elsewhere, but the position still needs moves.
        self.moves = ranked_claims(allowed or empties, owner, mine, theirs, neighbours, rng)
        self.children = [None] * len(self.moves)
        self.visits = [0] * len(self.moves)
        self.values = [0.0] * len(self.moves)


class Search:
    """UCT from the bot's position, one claim per edge."""

    def __init__(self, owner, touch, me: int, neighbours, settings: Level, rng: random.Random) -> None:
        self.owner = owner
        self.touch = touch
        self.empty_count = owner.count(EMPTY)
        self.neighbours = neighbours
        self.settings = settings
        self.rng = rng
        self.root = Node(me, -1)
        self.root.expand(owner, touch, neighbours, rng)
        self.playouts = 0

    def run(self) -> int:
        settings = self.settings
        deadline = time.perf_counter() + settings.seconds
        while self.playouts < settings.playouts:
            self.iterate()
            # Checking the clock costs little next to a playout, but not nothing.
            if self.playouts % 32 == 0 and time.perf_counter() > deadline:
                break
        root = self.root
        best = max(range(len(root.moves)), key=lambda i: (root.visits[i], root.values[i]))
        return root.moves[best]

    def iterate(self) -> None:
        """One descent, expansion, playout and update."""
        neighbours = self.neighbours
        owner = self.owner[:]
        touch = (self.touch[0][:], self.touch[1][:])
        remaining = self.empty_count
        exploration = self.settings.exploration
        node = self.root
        path: list[tuple[Node, int]] = []
        while True:
            if not node.moves:
                node.expand(owner, touch, neighbours, self.rng)
            index = select(node, exploration)
            path.append((node, index))
            mover = node.mover
            cell = node.moves[index]
            free = touch[1 - mover][cell] >= 2
            owner[cell] = mover
            remaining -= 1
            mine = touch[mover]
            for n in neighbours[cell]:
                mine[n] += 1
            if remaining == 0:
                reward0 = final_reward(owner)
                break
            child = node.children[index]
            if child is None:
                child = Node(mover, cell) if free else Node(1 - mover, -1)
                node.children[index] = child
                reward0 = playout(owner, touch, child.mover, neighbours, self.rng, self.settings.sample)
                break
            node = child
        self.playouts += 1
        for node, index in path:
            node.visits[index] += 1
            node.values[index] += reward0 if node.mover == 0 else 1.0 - reward0
            node.total += 1


def select(node: Node, exploration: float) -> int:
    """UCT; unvisited moves first, in the node's (heuristic) order."""
    if node.tried < len(node.moves):
        node.tried += 1
        return node.tried - 1
    values = node.values
    scale = exploration * math.sqrt(math.log(node.total))
    best = 0
    best_score = -1.0
    for index, count in enumerate(node.visits):
        score = values[index] / count + scale / math.sqrt(count)
        if score > best_score:
            best_score = score
            best = index
    return best


def final_reward(owner: list[int]) -> float:
    """Seat 0's reward for a full board."""
    cells = len(owner)
    mine = owner.count(0)
    return (WIN_WEIGHT if 2 * mine > cells else 0.0) + (1.0 - WIN_WEIGHT) * mine / cells


def playout(owner, touch, mover: int, neighbours, rng: random.Random, sample: int) -> float:
    """Play to the end with ``mover`` to claim; seat 0's reward.

    Each turn the mover takes the free cells that give nothing away or that
    the opponent could take for free too, keeps the rest in reserve, and
    ends the turn on the best (by :func:`claim_score`, inlined) of
    ``sample`` random cells that are not free for them.  ``owner`` and
    ``touch`` are the caller's copies and are changed.
    """
    random_fraction = rng.random
    touch0, touch1 = touch
    # Cells empty at the start; claimed ones are dropped as draws meet them.
    pool = [cell for cell, o in enumerate(owner) if o == EMPTY]
    live = len(pool)
    remaining = live
    # The cells free for each seat, kept up to date as claims make more.
    free_cells = [[c for c in pool if touch1[c] >= 2], [c for c in pool if touch0[c] >= 2]]
    while remaining:
        mine = touch[mover]
        theirs = touch[1 - mover]
        their_free = free_cells[1 - mover]
        reserve = []
        for cell in free_cells[mover]:
            if owner[cell] != EMPTY:
                continue
            if mine[cell] < 2:
                # The opponent cannot take it for free: keep it while it has gifts.
                if any(mine[n] == 1 and owner[n] == EMPTY for n in neighbours[cell]):
                    reserve.append(cell)
                    continue
            owner[cell] = mover
            remaining -= 1
            for n in neighbours[cell]:
                mine[n] += 1
                if mine[n] == 2 and owner[n] == EMPTY:
                    their_free.append(n)
        free_cells[mover] = reserve
        if remaining == len(reserve):
            # Nothing left but our own free cells: all of them are ours.
            for cell in reserve:
                owner[cell] = mover
            break
        # The turn's last claim: the best of a few random draws among the
        # cells that are not free for the mover (with replacement: a repeat
        # only makes the choice a little more random).
        best = EMPTY
        best_score = -99
        for _ in range(sample):
            while True:
                index = int(random_fraction() * live)
                cell = pool[index]
                if owner[cell] != EMPTY:
                    live -= 1
                    pool[index] = pool[live]
                elif theirs[cell] < 2:
                    break
            score = 1 if mine[cell] >= 2 else 0
            for n in neighbours[cell]:
                if mine[n] == 1 and owner[n] == EMPTY:
                    score -= 1
            if score > best_score:
                best = cell
                best_score = score
        owner[best] = mover
        remaining -= 1
        for n in neighbours[best]:
            mine[n] += 1
            if mine[n] == 2 and owner[n] == EMPTY:
                their_free.append(n)
        mover = 1 - mover
    return final_reward(owner)
