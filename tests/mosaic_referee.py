"""An independent, plain and slow referee of Mosaic, written from the guide and the rulings only.

It shares no code with ``termgames.rules.mosaic``: it is the yardstick the engine is compared with
(``tests/test_mosaic_referee.py``).  It takes the deal from the engine's first ``show --json`` (the hands
are random from the seed) and then tracks the whole game itself, move by move, giving at every step the
exact set of legal moves in the engine's notation and the next position.

Readings where the texts are open (each argued in the commit that settled it):

* Ruling 3: a player with no placeable hand tile passes, an empty hand included (the guide's building
  loop gives every player a turn while any hand holds a tile).
* Ruling 8: tiles moved into place earlier in the routine (by Step R or placed back from the hand) and
  replacements that would leave too many holes (ruling 9) are no candidates; "as few differences as
  possible" is taken over the tiles that remain.  A first Step R is offered only if the second can follow.
* Ruling 9: with no perfect way and no hole, a placement may leave at most as many holes as tiles still to
  come (Shape Constraint 2 is judged after the last one; the guide relaxes colours, never shapes); a tile goes
  to a clean spot if it has one, else where it mismatches least.
* Ruling 10: tiles moved by Step R count as placed; the tiles a mismatch subroutine resolves are those
  mismatched when the previous subroutine ended, in reading order, rescanned after every Step R (the guide's
  "while (there is a possible replacement)"), one cured by an earlier replacement being skipped; the cap is
  4 x the tiles in play.  Out-of-play tiles (ruling 6) leave the hands.
* Ruling 5/7: a pass is no alteration routine (ruling 7: "her score is *still* checked"), so it does not
  count for ``--max-routines``; "every player passes in one round" is as many passes in a row as players.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

Pos = tuple[int, int]
Tile = tuple[int, int, int, int]  # quarters N, E, S, W as seat indices

N, E, S, W = 0, 1, 2, 3
STEP: dict[int, Pos] = {N: (-1, 0), E: (0, 1), S: (1, 0), W: (0, -1)}
AROUND: tuple[Pos, ...] = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0))
WIN_SCORE = {2: 100, 3: 200, 4: 300}


def tile_set(players: int) -> list[Tile]:
    """Ruling 1: every colouring with one or two of the players' colours, each once."""
    tiles = []
    for n in range(players):
        for e in range(players):
            for s in range(players):
                for w in range(players):
                    if len({n, e, s, w}) <= 2:
                        tiles.append((n, e, s, w))
    return tiles


def neighbour(pos: Pos, side: int) -> Pos:
    dr, dc = STEP[side]
    return (pos[0] + dr, pos[1] + dc)


def tile_text(tile: Tile) -> str:
    return "".join(str(colour + 1) for colour in tile)


def pos_text(pos: Pos) -> str:
    return f"{pos[0]},{pos[1]}"


def mismatches_at(board: dict[Pos, Tile], tile: Tile, pos: Pos) -> int:
    """Sides of ``tile`` at ``pos`` whose colour differs from the neighbour's facing quarter."""
    count = 0
    for side in (N, E, S, W):
        other = board.get(neighbour(pos, side))
        if other is not None and other[(side + 2) % 4] != tile[side]:
            count += 1
    return count


def mismatched_sides(board: dict[Pos, Tile], pos: Pos) -> list[int]:
    tile = board[pos]
    sides = []
    for side in (N, E, S, W):
        other = board.get(neighbour(pos, side))
        if other is not None and other[(side + 2) % 4] != tile[side]:
            sides.append(side)
    return sides


def near_empties(board: dict[Pos, Tile]) -> set[Pos]:
    """Empty positions among the 8 around some tile."""
    found = set()
    for r, c in board:
        for dr, dc in AROUND:
            p = (r + dr, c + dc)
            if p not in board:
                found.add(p)
    return found


def neighbour_count(board: dict[Pos, Tile], pos: Pos) -> int:
    return sum((pos[0] + dr, pos[1] + dc) in board for dr, dc in AROUND)


def holes(board: dict[Pos, Tile], aside: Iterable[Pos] = ()) -> set[Pos]:
    """Ruling 2: empty positions with 3 or 4 orthogonal tile neighbours."""
    skip = set(aside)
    found = set()
    for r, c in board:
        for p in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)):
            if p in board or p in skip or p in found:
                continue
            pr, pc = p
            beside = sum(q in board for q in ((pr - 1, pc), (pr, pc + 1), (pr + 1, pc), (pr, pc - 1)))
            if beside >= 3:
                found.add(p)
    return found


def scores(board: dict[Pos, Tile], players: int) -> list[int]:
    """Ruling 4: regions of touching same-coloured quarters, worth (tiles spanned) squared."""
    parent: dict[tuple[Pos, int], tuple[Pos, int]] = {}

    def find(x: tuple[Pos, int]) -> tuple[Pos, int]:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: tuple[Pos, int], b: tuple[Pos, int]) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb

    for pos in board:
        for q in range(4):
            parent[(pos, q)] = (pos, q)
    for pos, tile in board.items():
        for q in range(4):
            if tile[q] == tile[(q + 1) % 4]:
                union((pos, q), (pos, (q + 1) % 4))
        east = board.get(neighbour(pos, E))
        if east is not None and east[W] == tile[E]:
            union((pos, E), (neighbour(pos, E), W))
        south = board.get(neighbour(pos, S))
        if south is not None and south[N] == tile[S]:
            union((pos, S), (neighbour(pos, S), N))
    spans: dict[tuple[Pos, int], set[Pos]] = {}
    for pos in board:
        for q in range(4):
            spans.setdefault(find((pos, q)), set()).add(pos)
    result = [0] * players
    for (pos, q), tiles in spans.items():
        result[board[pos][q]] += len(tiles) ** 2
    return result


# --------------------------------------------------------------------------
# Placing back (ruling 9)
# --------------------------------------------------------------------------


def clean_spots(board: dict[Pos, Tile], tile: Tile) -> list[Pos]:
    """Shape Constraint 1 (two of 8 neighbours) and no mismatched side."""
    return sorted(
        p for p in near_empties(board) if neighbour_count(board, p) >= 2 and mismatches_at(board, tile, p) == 0
    )


def perfect_exists(board: dict[Pos, Tile], hand: tuple[Tile, ...]) -> bool:
    """Can every hand tile go back, one at a time, with no mismatch, ending with no hole?"""
    base = dict(board)

    @cache
    def search(placed: frozenset[tuple[Pos, Tile]], left: tuple[Tile, ...]) -> bool:
        current = dict(base)
        current.update(dict(placed))
        open_holes = holes(current)
        if not left:
            return not open_holes
        if len(open_holes) > len(left):
            return False  # only a tile placed in it fills a hole
        for i, tile in enumerate(left):
            if tile in left[:i]:
                continue
            rest = left[:i] + left[i + 1 :]
            # A hole has 3-4 tiles beside it, so filling it first never breaks Shape Constraint 1, nor does it
            # take a neighbour from a later tile: if the tiles can go back at all, they can with a hole first.
            spots = [min(open_holes)] if open_holes else clean_spots(current, tile)
            for p in spots:
                if open_holes and mismatches_at(current, tile, p):
                    continue
                if search(placed | {(p, tile)}, rest):
                    return True
        return False

    return search(frozenset(), tuple(sorted(hand)))


def placing_back_moves(board: dict[Pos, Tile], hand: list[Tile]) -> set[tuple[Tile, Pos]]:
    tiles = sorted(set(hand))
    perfect = set()
    for tile in tiles:
        rest = list(hand)
        rest.remove(tile)
        for p in clean_spots(board, tile):
            after = dict(board)
            after[p] = tile
            if perfect_exists(after, tuple(rest)):
                perfect.add((tile, p))
    if perfect:
        return perfect
    open_holes = holes(board)
    if open_holes:
        pairs = {(tile, h): mismatches_at(board, tile, h) for tile in tiles for h in open_holes}
        least = min(pairs.values())
        return {pair for pair, count in pairs.items() if count == least}
    # No hole now.  Shape Constraint 2 is judged once the last tile is down, so a placement may leave at most as
    # many holes as tiles still to come (the last tile none): the guide never relaxes a shape constraint, only
    # the colours ("it may not be possible to satisfy the color placement constraint if you are forced to fill
    # a hole").  Among those spots a tile goes to a clean one if it has one, else where it mismatches least.
    moves: set[tuple[Tile, Pos]] = set()
    spots = [p for p in near_empties(board) if neighbour_count(board, p) >= 2]
    left_after = len(hand) - 1
    worst: dict[tuple[Tile, Pos], tuple[int, int]] = {}
    for tile in tiles:
        allowed = {}
        for p in spots:
            after = dict(board)
            after[p] = tile
            excess = max(0, len(holes(after)) - left_after)
            worst[(tile, p)] = (excess, mismatches_at(board, tile, p))
            if excess == 0:
                allowed[p] = mismatches_at(board, tile, p)
        if allowed:
            least = min(allowed.values())
            moves.update((tile, p) for p, count in allowed.items() if count == least)
    if not moves and worst:
        least_bad = min(worst.values())
        moves = {pair for pair, key in worst.items() if key == least_bad}
    return moves


# --------------------------------------------------------------------------
# The game
# --------------------------------------------------------------------------


@dataclass
class Referee:
    players: int
    hands: list[list[Tile]]
    max_routines: int = 0
    board: dict[Pos, Tile] = field(default_factory=dict)
    phase: str = "building"  # building, alteration, over
    player: int = 0
    kind: str = "SH/P"  # SH/P, SE, R, P
    placed: int = 0  # tiles placed in the building phase
    last_placed: Pos | None = None
    initiator: int = 0
    subroutine: str = ""  # "SE" or "MM"
    pending: list[tuple[Pos, Tile, tuple[int, ...]]] = field(default_factory=list)  # SE: (pos, removed, changing)
    moved: set[Tile] = field(default_factory=set)
    placed_now: set[Tile] = field(default_factory=set)
    placed_before: set[Tile] = field(default_factory=set)
    replacements: int = 0
    routines: int = 0
    streaks: list[int] = field(default_factory=list)
    passes: int = 0
    winners: list[int] = field(default_factory=list)
    in_play: int = 0

    @classmethod
    def from_hands(cls, hands: list[list[Tile]], max_routines: int = 0) -> Referee:
        ref = cls(players=len(hands), hands=[list(h) for h in hands], max_routines=max_routines)
        ref.streaks = [0] * ref.players
        ref.in_play = sum(len(h) for h in hands)
        return ref

    # -- building ---------------------------------------------------------

    def shape_spots(self) -> list[Pos]:
        """Building: the empty positions that satisfy both Shape Constraints, whatever the tile."""
        if self.placed == 0:
            return [(0, 0)]
        need = 1 if self.placed == 1 else 2
        spots = []
        for p in near_empties(self.board):
            if neighbour_count(self.board, p) < need:
                continue
            after = dict(self.board)
            after[p] = (0, 0, 0, 0)
            if not holes(after):
                spots.append(p)
        return spots

    def building_spots(self, tile: Tile, shape_spots: list[Pos]) -> list[Pos]:
        if self.placed == 0:
            return [(0, 0)]
        spots = [p for p in shape_spots if mismatches_at(self.board, tile, p) == 0]
        assert self.last_placed is not None
        beside = [p for p in spots if abs(p[0] - self.last_placed[0]) + abs(p[1] - self.last_placed[1]) == 1]
        return beside or spots

    def building_moves(self, seat: int, shape_spots: list[Pos] | None = None) -> set[str]:
        shape = self.shape_spots() if shape_spots is None else shape_spots
        return {f"{tile_text(t)}@{pos_text(p)}" for t in set(self.hands[seat]) for p in self.building_spots(t, shape)}

    def anyone_can_build(self) -> bool:
        shape = self.shape_spots()
        return any(self.building_moves(seat, shape) for seat in range(self.players))

    # -- Step R -----------------------------------------------------------

    def candidates(
        self, board: dict[Pos, Tile], target: Tile, changing: tuple[int, ...], into: Pos,
        moved: set[Tile], budget: int, aside: tuple[Pos, ...],
    ) -> list[Pos]:
        def hole_free_enough(q: Pos) -> bool:
            after = dict(board)
            after[into] = after.pop(q)
            return len(holes(after, aside)) <= budget

        # The candidate conditions are all filters on the board's tiles; the pattern goes first as it is cheap.
        exact = len(set(target)) <= 2
        pool = [
            q for q, t in board.items()
            if t not in moved and (t == target if exact else all(t[d] == target[d] for d in changing))
        ]
        pool = [q for q in pool if hole_free_enough(q)]
        if len(set(target)) <= 2:
            return [q for q in pool if board[q] == target]
        fitting = [q for q in pool if all(board[q][d] == target[d] for d in changing)]
        if not fitting:
            return []

        def differences(q: Pos) -> int:
            return sum(board[q][d] != target[d] for d in range(4) if d not in changing)

        least = min(differences(q) for q in fitting)
        return [q for q in fitting if differences(q) == least]

    def se_first_candidates(self, board: dict[Pos, Tile], pending: list[tuple[Pos, Tile, tuple[int, ...]]],
                            moved: set[Tile], colour: int, budget: int) -> list[Pos]:
        """Candidates for pending[0] after which every later pending position can still be replaced."""
        pos, removed, changing = pending[0]
        target = list(removed)
        for d in changing:
            target[d] = colour
        aside = tuple(p for p, _t, _c in pending[1:])
        result = []
        for q in self.candidates(board, tuple(target), changing, pos, moved, budget, aside):  # type: ignore[arg-type]
            if len(pending) == 1:
                result.append(q)
                continue
            after = dict(board)
            tile = after.pop(q)
            after[pos] = tile
            if self.se_first_candidates(after, pending[1:], moved | {tile}, colour, budget):
                result.append(q)
        return result

    def edges(self, seat: int) -> list[tuple[Pos, Pos]]:
        found = []
        for pos, tile in self.board.items():
            for side in (E, S):
                other_pos = neighbour(pos, side)
                other = self.board.get(other_pos)
                if other is None or tile[side] == seat or other[(side + 2) % 4] == seat:
                    continue
                after = dict(self.board)
                del after[pos], after[other_pos]
                pending: list[tuple[Pos, Tile, tuple[int, ...]]] = [
                    (pos, tile, (side,)), (other_pos, other, ((side + 2) % 4,))
                ]
                if self.se_first_candidates(after, pending, set(), seat, 2):
                    found.append((pos, other_pos))
        return found

    def mismatch_target(self, pos: Pos) -> tuple[Tile, tuple[int, ...]]:
        tile = list(self.board[pos])
        sides = tuple(mismatched_sides(self.board, pos))
        for d in sides:
            tile[d] = self.board[neighbour(pos, d)][(d + 2) % 4]
        return tuple(tile), sides  # type: ignore[return-value]

    def next_mismatched(self) -> tuple[Pos, list[Pos]] | None:
        """The first mismatched tile (reading order) of the previous subroutine that has a candidate."""
        if self.replacements >= 4 * self.in_play:
            return None
        for pos in sorted(self.board):
            tile = self.board[pos]
            if tile not in self.placed_before or not mismatched_sides(self.board, pos):
                continue
            target, changing = self.mismatch_target(pos)
            after = dict(self.board)
            del after[pos]
            budget = len(self.hands[self.player]) + 1
            found = self.candidates(after, target, changing, pos, self.moved, budget, ())
            if found:
                return pos, found
        return None

    # -- moves ------------------------------------------------------------

    def legal(self) -> set[str]:
        if self.phase == "over":
            return set()
        if self.phase == "building":
            return self.building_moves(self.player) or {"pass"}
        if self.kind == "SE":
            found = {f"edge {pos_text(a)} {pos_text(b)}" for a, b in self.edges(self.player)}
            return found or {"pass"}
        if self.kind == "R":
            if self.subroutine == "SE":
                spots = self.se_first_candidates(self.board, self.pending, self.moved, self.initiator, 2)
            else:
                nxt = self.next_mismatched()
                assert nxt is not None
                spots = nxt[1]
            return {f"take {pos_text(q)}" for q in spots}
        assert self.kind == "P"
        return {f"{tile_text(t)}@{pos_text(p)}" for t, p in placing_back_moves(self.board, self.hands[self.player])}

    def play(self, move: str, legal: set[str] | None = None) -> None:
        """Play ``move``; ``legal`` is this position's legal set if the caller has it already."""
        if move not in (self.legal() if legal is None else legal):
            raise ValueError(f"referee: {move!r} is not legal")
        if self.phase == "building":
            self._building(move)
        elif move == "pass":
            self._pass()
        elif self.kind == "SE":
            self._edge(move)
        elif self.kind == "R":
            self._replace(move)
        else:
            self._place_back(move)

    @staticmethod
    def _parse_place(move: str) -> tuple[Tile, Pos]:
        tile_part, pos_part = move.split("@")
        r, c = pos_part.split(",")
        return tuple(int(ch) - 1 for ch in tile_part), (int(r), int(c))  # type: ignore[return-value]

    @staticmethod
    def _parse_pos(text: str) -> Pos:
        r, c = text.split(",")
        return int(r), int(c)

    def _building(self, move: str) -> None:
        if move != "pass":
            tile, pos = self._parse_place(move)
            self.hands[self.player].remove(tile)
            self.board[pos] = tile
            self.placed += 1
            self.last_placed = pos
        if not any(self.hands) or not self.anyone_can_build():
            self.phase, self.kind, self.player, self.initiator = "alteration", "SE", 0, 0
            self.in_play = len(self.board)
            self.hands = [[] for _ in self.hands]  # ruling 6: the tiles left stay out of play
            return
        self.player = (self.player + 1) % self.players

    def _edge(self, move: str) -> None:
        _word, a_text, b_text = move.split()
        a, b = self._parse_pos(a_text), self._parse_pos(b_text)
        side = E if b == neighbour(a, E) else S
        ta, tb = self.board.pop(a), self.board.pop(b)
        self.hands[self.player] += [ta, tb]
        self.pending = [(a, ta, (side,)), (b, tb, ((side + 2) % 4,))]
        self.subroutine, self.kind = "SE", "R"
        self.moved, self.placed_now, self.placed_before = set(), set(), set()
        self.replacements = 0
        self.passes = 0

    def _replace(self, move: str) -> None:
        source = self._parse_pos(move.split()[1])
        if self.subroutine == "SE":
            into = self.pending.pop(0)[0]
        else:
            nxt = self.next_mismatched()
            assert nxt is not None
            into = nxt[0]
            self.hands[self.player].append(self.board.pop(into))
        tile = self.board.pop(source)
        self.board[into] = tile
        self.moved.add(tile)
        self.placed_now.add(tile)
        self.replacements += 1
        if self.subroutine == "SE":
            if not self.pending:
                self.kind = "P"
        elif self.next_mismatched() is None:
            self.kind = "P"

    def _place_back(self, move: str) -> None:
        tile, pos = self._parse_place(move)
        self.hands[self.player].remove(tile)
        self.board[pos] = tile
        self.moved.add(tile)
        self.placed_now.add(tile)
        if self.hands[self.player]:
            return
        # the subroutine is over: mismatches pass to the next player (ruling 10)
        # The tiles to resolve are those mismatched now; mismatches the resolver's own replacements make are
        # new ones, for the player after her ("This placement of tiles may create new mismatches, which the
        # next player must resolve").
        self.placed_before = {
            t for p, t in self.board.items() if t in self.placed_now and mismatched_sides(self.board, p)
        }
        self.placed_now = set()
        self.player = (self.player + 1) % self.players
        self.subroutine = "MM"
        if self.next_mismatched() is not None:
            self.kind = "R"
            return
        self._routine_over()

    def _check_score(self, seat: int) -> None:
        if scores(self.board, self.players)[seat] >= WIN_SCORE[self.players]:
            self.streaks[seat] += 1
        else:
            self.streaks[seat] = 0
        if self.streaks[seat] >= 2:
            self.phase, self.winners = "over", [seat]

    def _highest_wins(self) -> None:
        final = scores(self.board, self.players)
        self.phase = "over"
        self.winners = [seat for seat in range(self.players) if final[seat] == max(final)]

    def _routine_over(self) -> None:
        self._check_score(self.initiator)
        self.routines += 1
        if self.phase != "over" and self.max_routines and self.routines >= self.max_routines:
            self._highest_wins()
        self._next_initiator()

    def _pass(self) -> None:
        self._check_score(self.player)
        self.passes += 1
        if self.phase != "over" and self.passes >= self.players:
            self._highest_wins()
        self._next_initiator()

    def _next_initiator(self) -> None:
        self.initiator = (self.initiator + 1) % self.players
        self.player, self.kind, self.subroutine = self.initiator, "SE", ""
        self.moved, self.placed_now, self.placed_before = set(), set(), set()

    # -- comparison -------------------------------------------------------

    def step_kind(self) -> str:
        """Placing back is Steps SH and P while there is a choice of hand tile, Step P for the last one."""
        if self.kind == "P" and len(self.hands[self.player]) > 1:
            return "SH/P"
        return self.kind

    def position(self, names: list[str]) -> dict[str, Any]:
        """What the engine's ``show --json`` must agree with."""
        def named(tile: Tile) -> list[str]:
            return [names[c] for c in tile]

        over = self.phase == "over"
        return {
            "tiles": {pos_text(p): named(t) for p, t in sorted(self.board.items())},
            "hands": {names[s]: sorted(named(t) for t in hand) for s, hand in enumerate(self.hands)},
            "step": None if over else {"kind": self.step_kind(), "player": names[self.player]},
            "scores": dict(zip(names, scores(self.board, self.players))),
            "over": over,
            "winners": sorted(names[s] for s in self.winners) if over else [],
        }


def hands_from_json(board: dict[str, Any], names: list[str]) -> list[list[Tile]]:
    seat = {name: i for i, name in enumerate(names)}
    return [[tuple(seat[c] for c in tile) for tile in board["hands"][name]] for name in names]  # type: ignore[misc]
