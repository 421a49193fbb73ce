"""The Copolymer computer player: Monte Carlo tree search (UCT) over claims.

What the rules make of the game, and what the bot makes of it:

* A cell is *free* for a player when it touches two or more enemy cells:
  claiming it keeps the turn, so it is a cell for nothing.  No claim ever
  takes an enemy contact away, so a free cell stays free until somebody
  claims it.  A player's own claims only ever make cells free for the
  opponent: every claim is a liability, and the game is about placing the
  one claim a turn must end with where it costs least.
* A claim *gifts* the opponent every empty neighbour it brings to two of
  the claimer's cells.  A gift that is also free for the claimer costs
  double when the turn ends there (the opponent takes it next), and
  nothing in the middle of a turn (the claimer takes it next).
* *Safe* free claims are taken at once, by the search and its playouts
  alike: free cells the opponent could take for free too, and free cells
  that gift nothing.  Others are kept in reserve until their neighbours
  have filled; the opponent can take them away only by ending a turn on
  one.
* An ending claim is scored locally: +1 for taking a cell that is free for
  the opponent, -1 per gift (-2 when the gift is free for us), a fraction
  of a cell for each empty neighbour it touches for the first time (a
  gift in the making) and for spoiling a cell that touches one enemy cell
  (one more enemy claim would make it free for us).
* The order of a turn's free claims changes nothing, so the tree takes
  reserve claims in increasing cell order and does not search one turn in
  every order.

The tree ranks each position's claims by that score and widens slowly
(progressive widening), so the playouts go to the claims worth comparing.
Playouts take safe free claims and end each turn on the best-scored of a
few random cells.  The easy level plays that playout policy without
searching; normal and hard search.

The bot sees only the :class:`CopolymerView` it is given and copies it into
flat lists; the search never touches the (immutable, slow) rules state.  It
is deterministic for a seed and a position, as long as the time cap does
not cut a search short.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..rules.copolymer import CopolymerView
from .budget import SEARCH_SHARE, Deadline, deadline_for

EMPTY = -1

#: Each cell's neighbours, by cell index (the board's ``neighbours``).
Neighbours = Sequence[Sequence[int]]
#: Per seat, how many of each cell's neighbours that seat owns (:func:`contact_counts`).
Touch = tuple[list[int], list[int]]


@dataclass(frozen=True)
class Level:
    """How hard one level thinks."""

    name: str
    #: Playouts per decision; 0 means no search (the playout policy's own choice).
    playouts: int
    #: A decision stops early after this long, whatever the playouts left.
    seconds: float
    #: Random cells a playout (or the easy level) scores before ending a turn.
    sample: int = 3
    #: UCT's exploration constant (rewards lie in 0..1).
    exploration: float = 0.5
    #: Progressive widening: a position's best ``widen_base + widen_rate * sqrt(visits)``
    #: claims (by local score) are searched.
    widen_base: int = 3
    widen_rate: float = 0.125
    #: Local score of a claim, in cells: cost per empty neighbour it touches first.
    first_contact_cost: float = 0.6
    #: Local score of a claim: cost of claiming a cell that touches one enemy cell.
    spoiled_chance_cost: float = 0.3


LEVELS = {
    # Easy takes what is free and ends each turn on a random cell: beatable, never silly.
    "easy": Level("easy", playouts=0, seconds=0.0, sample=1),
    "normal": Level("normal", playouts=2500, seconds=1.0),
    "hard": Level("hard", playouts=8000, seconds=1.8),
}

#: Share of a playout's reward that is the winner; the rest is the margin, so
#: that won (or lost) positions still prefer the bigger (smaller) margin.
WIN_WEIGHT = 0.9


class CopolymerBot:
    def __init__(self, level: str, seed: int) -> None:
        """The bot of ``level`` (a name from :data:`LEVELS`, checked by :func:`termgames.ai.make_bot`)."""
        self.settings = LEVELS[level]
        self.level = level
        self.seed = seed
        #: Playouts run by the last decision (0 when it needed no search), for benchmarks.
        self.last_playouts = 0

    def choose(self, view: CopolymerView, deadline: Deadline | None = None) -> str:
        if view.board is None or view.viewer is None or view.viewer not in view.to_move:
            raise ValueError("the bot is asked for a claim when it is not its turn")
        self.last_playouts = 0
        me = view.viewer
        names = view.board.names
        neighbours = view.board.neighbours
        owner = [EMPTY if o is None else o for o in view.owners]
        touch = contact_counts(owner, neighbours)
        theirs = touch[1 - me]
        empties = [cell for cell, o in enumerate(owner) if o == EMPTY]
        if all(theirs[cell] >= 2 for cell in empties):
            # Every cell left is ours for the taking, in any order.
            return names[empties[0]]
        safe = safe_free_claims(owner, touch, me, neighbours)
        if safe:
            return names[safe[0]]
        # The same seed and position always give the same answer, whatever
        # the bot played before (undo, replays and tests rely on it).
        rng = random.Random(f"{self.seed}:{me}:{''.join('.xo'[o + 1] for o in owner)}")
        settings = self.settings
        if settings.playouts == 0:
            return names[policy_claim(owner, touch, me, neighbours, rng, settings)]
        moves = ranked_claims(owner, touch, me, -1, neighbours, rng, settings)
        if len(moves) == 1:
            return names[moves[0]]
        deadline = deadline_for(deadline)
        search = Search(owner, touch, me, neighbours, settings, rng)
        cell = search.run(deadline.within(min(settings.seconds, deadline.remaining() * SEARCH_SHARE)))
        self.last_playouts = search.playouts
        return names[cell]


# --------------------------------------------------------------------------
# Positions as flat lists
# --------------------------------------------------------------------------
#
# ``owner[cell]`` is a seat or EMPTY; ``touch[seat][cell]`` counts the
# cell's neighbours that seat owns.  For the mover, ``mine = touch[mover]``
# and ``theirs = touch[1 - mover]``: a cell is free for the mover when
# ``theirs[cell] >= 2`` and free for the opponent when ``mine[cell] >= 2``.


def contact_counts(owner: list[int], neighbours: Neighbours) -> Touch:
    """Per seat, how many of each cell's neighbours that seat owns."""
    touch = ([0] * len(owner), [0] * len(owner))
    for cell, seat in enumerate(owner):
        if seat != EMPTY:
            counts = touch[seat]
            for n in neighbours[cell]:
                counts[n] += 1
    return touch


def claim(cell: int, mover: int, owner: list[int], mine: list[int], neighbours: Neighbours) -> None:
    owner[cell] = mover
    for n in neighbours[cell]:
        mine[n] += 1


def safe_free_claims(owner: list[int], touch: Touch, mover: int, neighbours: Neighbours) -> list[int]:
    """The free cells the mover takes without thinking, in the order taken.

    A free cell is safe when the opponent could take it for free too, or
    when claiming it gifts nothing (gifts that are free for the mover do
    not count: they become free for both, and the mover takes them next).
    Each claim can make reserve cells safe, so this runs to a fixed point.
    Nothing passed in is changed.
    """
    theirs = touch[1 - mover]
    candidates = [cell for cell, o in enumerate(owner) if o == EMPTY and theirs[cell] >= 2]
    if not candidates:
        return []
    owner = owner[:]
    mine = touch[mover][:]
    taken: list[int] = []
    while candidates:
        reserve = [cell for cell in candidates if not is_safe(cell, owner, mine, theirs, neighbours)]
        if len(reserve) == len(candidates):
            break
        for cell in candidates:
            if owner[cell] == EMPTY and is_safe(cell, owner, mine, theirs, neighbours):
                claim(cell, mover, owner, mine, neighbours)
                taken.append(cell)
        candidates = [cell for cell in reserve if owner[cell] == EMPTY]
    return taken


def is_safe(cell: int, owner: list[int], mine: list[int], theirs: list[int], neighbours: Neighbours) -> bool:
    """Whether claiming ``cell`` (free for the mover) costs nothing, as :func:`safe_free_claims` says."""
    if mine[cell] >= 2:
        return True
    return all(not (mine[n] == 1 and owner[n] == EMPTY and theirs[n] < 2) for n in neighbours[cell])


def claim_score(
    cell: int, owner: list[int], mine: list[int], theirs: list[int], neighbours: Neighbours, settings: Level
) -> float:
    """How good claiming ``cell`` looks to the mover, in cells, judged locally.

    For a free cell (one kept in reserve) that is the cell itself less
    the gifts; for a turn's ending claim, what the module notes say.
    """
    free = theirs[cell] >= 2
    score = 1.0 if free else 0.0
    if mine[cell] >= 2:
        score += 1.0
    if theirs[cell] == 1:
        score -= settings.spoiled_chance_cost
    for n in neighbours[cell]:
        if owner[n] == EMPTY:
            contacts = mine[n]
            if contacts == 1:
                # In the middle of a turn, a gift free for us is ours next.
                if theirs[n] < 2:
                    score -= 1.0
                elif not free:
                    score -= 2.0
            elif contacts == 0:
                score -= settings.first_contact_cost
    return score


def ranked_claims(
    owner: list[int], touch: Touch, mover: int, after: int, neighbours: Neighbours, rng: random.Random,
    settings: Level,
) -> list[int]:
    """The mover's claims best first by :func:`claim_score`, ties in random order.

    Free cells before ``after`` are left out (see :class:`Node`) unless
    nothing else is left.
    """
    mine, theirs = touch[mover], touch[1 - mover]
    keyed = [
        (-claim_score(cell, owner, mine, theirs, neighbours, settings), rng.random(), cell)
        for cell, o in enumerate(owner)
        if o == EMPTY and (theirs[cell] < 2 or cell > after)
    ]
    if not keyed:
        return [cell for cell, o in enumerate(owner) if o == EMPTY]
    keyed.sort()
    return [cell for _, _, cell in keyed]


def policy_claim(
    owner: list[int], touch: Touch, mover: int, neighbours: Neighbours, rng: random.Random, settings: Level
) -> int:
    """The playout policy's claim once the safe free claims are made.

    The best-scored of ``settings.sample`` random cells; a reserve cell
    only if nothing else is left, as in a playout.
    """
    mine, theirs = touch[mover], touch[1 - mover]
    empties = [cell for cell, o in enumerate(owner) if o == EMPTY]
    endings = [cell for cell in empties if theirs[cell] < 2]
    if not endings:
        return empties[0]
    drawn = sorted(rng.sample(endings, min(settings.sample, len(endings))))
    return max(drawn, key=lambda cell: claim_score(cell, owner, mine, theirs, neighbours, settings))


# --------------------------------------------------------------------------
# Search
# --------------------------------------------------------------------------


class Node:
    """A position with ``mover`` to claim, once its safe free claims are made.

    ``safe`` are those claims (worked out on the first visit, replayed on
    every descent).  ``after`` is the last reserve claim of the turn so far
    (-1 at the start of a turn): only reserve claims after it in cell
    order may follow, so each set of reserve claims is searched in one
    order.  ``moves`` are ranked best first; ``moves[:len(visits)]`` have
    been searched.
    """

    __slots__ = ("after", "children", "mover", "moves", "safe", "total", "values", "visits")

    def __init__(self, mover: int, after: int) -> None:
        self.mover = mover
        self.after = after
        self.safe: list[int] | None = None
        self.moves: list[int] = []
        self.children: list[Node | None] = []
        self.visits: list[int] = []
        self.values: list[float] = []
        self.total = 0


class Search:
    """UCT from the bot's position, one claim per edge."""

    def __init__(
        self, owner: list[int], touch: Touch, me: int, neighbours: Neighbours, settings: Level, rng: random.Random
    ) -> None:
        self.owner = owner
        self.touch = touch
        self.empty_count = owner.count(EMPTY)
        self.neighbours = neighbours
        self.settings = settings
        self.rng = rng
        self.root = Node(me, -1)
        self.playouts = 0

    def run(self, deadline: Deadline) -> int:
        """The claim searched most within the level's playouts, or when ``deadline`` expires."""
        settings = self.settings
        while self.playouts < settings.playouts:
            self.iterate()
            # A look at the clock costs little next to a playout (hundreds of cells on the largest boards).
            if deadline.expired():
                break
        root = self.root
        best = max(range(len(root.visits)), key=lambda i: (root.visits[i], root.values[i]))
        return root.moves[best]

    def iterate(self) -> None:
        """One descent, expansion, playout and update."""
        neighbours = self.neighbours
        settings = self.settings
        owner = self.owner[:]
        touch = (self.touch[0][:], self.touch[1][:])
        remaining = self.empty_count
        node = self.root
        path: list[tuple[Node, int]] = []
        while True:
            mover = node.mover
            mine = touch[mover]
            if node.safe is None:
                node.safe = safe_free_claims(owner, touch, mover, neighbours)
            for cell in node.safe:
                claim(cell, mover, owner, mine, neighbours)
            remaining -= len(node.safe)
            if remaining == 0:
                break
            if node.total == 0:
                node.moves = ranked_claims(owner, touch, mover, node.after, neighbours, self.rng, settings)
            index = select(node, settings)
            path.append((node, index))
            cell = node.moves[index]
            free = touch[1 - mover][cell] >= 2
            claim(cell, mover, owner, mine, neighbours)
            remaining -= 1
            if remaining == 0:
                break
            child = node.children[index]
            if child is None:
                child = Node(mover, cell) if free else Node(1 - mover, -1)
                node.children[index] = child
                playout(owner, touch, child.mover, neighbours, self.rng, settings)
                break
            node = child
        reward0 = final_reward(owner)
        self.playouts += 1
        for node, index in path:
            node.visits[index] += 1
            node.values[index] += reward0 if node.mover == 0 else 1.0 - reward0
            node.total += 1


def select(node: Node, settings: Level) -> int:
    """UCT among the node's searched claims; the next-ranked claim joins as visits grow."""
    searched = len(node.visits)
    if searched < len(node.moves) and searched < settings.widen_base + int(settings.widen_rate * math.sqrt(node.total)):
        node.children.append(None)
        node.visits.append(0)
        node.values.append(0.0)
        return searched
    values = node.values
    scale = settings.exploration * math.sqrt(math.log(node.total))
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


def playout(
    owner: list[int], touch: Touch, mover: int, neighbours: Neighbours, rng: random.Random, settings: Level
) -> None:
    """Play to a full board with ``mover`` to claim, changing ``owner`` and ``touch``.

    Each turn the mover makes the safe free claims, keeps the rest in
    reserve, and ends the turn on the best (by :func:`claim_score`,
    inlined) of ``settings.sample`` random cells that are not free for
    them.
    """
    random_fraction = rng.random
    sample = settings.sample
    first_contact_cost = settings.first_contact_cost
    spoiled_chance_cost = settings.spoiled_chance_cost
    # Cells empty at the start; claimed ones are dropped as draws meet them.
    pool = [cell for cell, o in enumerate(owner) if o == EMPTY]
    live = len(pool)
    remaining = live
    # The cells free for each seat, kept up to date as claims make more.
    free_cells = [[c for c in pool if touch[1][c] >= 2], [c for c in pool if touch[0][c] >= 2]]
    while remaining:
        mine = touch[mover]
        theirs = touch[1 - mover]
        their_free = free_cells[1 - mover]
        candidates = free_cells[mover]
        progress = True
        while progress and candidates:
            progress = False
            reserve = []
            for cell in candidates:
                if owner[cell] != EMPTY:
                    continue
                if mine[cell] < 2:
                    gifting = False
                    for n in neighbours[cell]:
                        if mine[n] == 1 and owner[n] == EMPTY and theirs[n] < 2:
                            gifting = True
                            break
                    if gifting:
                        reserve.append(cell)
                        continue
                owner[cell] = mover
                remaining -= 1
                progress = True
                for n in neighbours[cell]:
                    mine[n] += 1
                    if mine[n] == 2 and owner[n] == EMPTY:
                        their_free.append(n)
            candidates = reserve
        free_cells[mover] = candidates
        if remaining == len(candidates):
            # Nothing left but our own free cells: all of them are ours.
            for cell in candidates:
                owner[cell] = mover
            return
        # The turn's last claim: the best of a few random draws among the
        # cells that are not free for the mover (with replacement: a repeat
        # only makes the choice a little more random).
        best = EMPTY
        best_score = -99.0
        for _ in range(sample):
            while True:
                index = int(random_fraction() * live)
                cell = pool[index]
                if owner[cell] != EMPTY:
                    live -= 1
                    pool[index] = pool[live]
                elif theirs[cell] < 2:
                    break
            score = 1.0 if mine[cell] >= 2 else 0.0
            if theirs[cell] == 1:
                score -= spoiled_chance_cost
            for n in neighbours[cell]:
                if owner[n] == EMPTY:
                    contacts = mine[n]
                    if contacts == 1:
                        score -= 2.0 if theirs[n] >= 2 else 1.0
                    elif contacts == 0:
                        score -= first_contact_cost
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
