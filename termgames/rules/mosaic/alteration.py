"""The alteration phase's searches: replacement candidates (Step R) and placing tiles back.

Rulings 8 and 9 decide what the guide leaves open:

* A removed tile's *target* is its pattern with the changing sides recoloured.
  A candidate is the board tile equal to the target (each colouring exists
  once); a target with three or four colours (3-4 players) exists nowhere, so
  the candidates are the tiles with the target's colours on every changing side
  and the fewest other quarters differing (the Replacement Step Constraint).
  Tiles moved into place earlier in the routine are not candidates, nor is a
  replacement that would leave more holes than tiles still to place back.
* Placing back: if all hand tiles can go back with no mismatch and no hole,
  only such placements are legal; otherwise holes are filled first with the
  hole/tile pair of fewest mismatches; a tile with no matching position goes
  where it has the fewest mismatched sides.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from .board import (
    Board,
    holes,
    holes_near,
    mismatch_count,
    orthogonal,
)
from .tiles import AROUND, Pos, Tile


@dataclass(frozen=True)
class Target:
    """What a position being replaced needs: the pattern, and which of its sides change."""

    pos: Pos
    pattern: Tile
    changing: tuple[int, ...]

    @property
    def exact(self) -> bool:
        """One or two colours: only the tile with exactly this pattern replaces it."""
        return len(set(self.pattern)) <= 2


def moved(board: Board, source: Pos, destination: Pos) -> dict[Pos, Tile]:
    """The board after the tile at ``source`` moves to the empty ``destination``."""
    after = dict(board)
    after[destination] = after.pop(source)
    return after


def holes_after_move(
    board: Board, source: Pos, destination: Pos, base_holes: set[Pos], waiting: Collection[Pos]
) -> int:
    """How many holes the board has once the tile at ``source`` moves to ``destination``.

    ``base_holes`` are the board's holes now (``waiting`` positions aside);
    only the two changed positions and their neighbours can change, so the
    board is not copied (this runs for every candidate of every edge).
    """

    def filled(spot: Pos) -> bool:
        return spot == destination or (spot != source and spot in board)

    affected = {source, destination}
    for spot in (source, destination):
        affected.update(orthogonal(spot))
    count = sum(1 for spot in base_holes if spot not in affected)
    for spot in affected:
        if filled(spot) or spot in waiting:
            continue
        if sum(1 for around in orthogonal(spot) if filled(around)) >= 3:
            count += 1
    return count


def candidates(
    board: Board,
    target: Target,
    excluded: Collection[Tile],
    waiting: Collection[Pos],
    hand_after: int,
    base_holes: set[Pos] | None = None,
) -> list[Pos]:
    """The board positions of the tiles that may replace ``target`` (ruling 8), sorted.

    ``board`` has ``target.pos`` empty; ``waiting`` are other empty positions
    still waiting for their own replacement (not holes); ``hand_after`` is
    how many tiles will wait in hand to go back once this replacement is made.
    """
    if base_holes is None:
        base_holes = holes(board, (*waiting, target.pos))

    def hole_free_enough(source: Pos) -> bool:
        return holes_after_move(board, source, target.pos, base_holes, waiting) <= hand_after

    if target.exact:
        for pos, tile in board.items():
            if tile == target.pattern:
                if tile not in excluded and hole_free_enough(pos):
                    return [pos]
                return []
        return []
    best: list[Pos] = []
    best_difference = 5
    pattern = target.pattern
    changing = target.changing
    for pos, tile in board.items():
        if tile in excluded or any(tile[side] != pattern[side] for side in changing):
            continue
        difference = (
            (tile[0] != pattern[0]) + (tile[1] != pattern[1]) + (tile[2] != pattern[2]) + (tile[3] != pattern[3])
        )
        if difference > best_difference or not hole_free_enough(pos):
            continue
        if difference < best_difference:
            best, best_difference = [], difference
        best.append(pos)
    return sorted(best)


# --------------------------------------------------------------------------
# Placing tiles back (ruling 9)
# --------------------------------------------------------------------------


def _open_spots(board: Board) -> list[Pos]:
    """Empty positions with at least two of the 8 neighbours (Shape Constraint 1), sorted."""
    counts: dict[Pos, int] = {}
    for r, c in board:
        for dr, dc in AROUND:
            pos = (r + dr, c + dc)
            if pos not in board:
                counts[pos] = counts.get(pos, 0) + 1
    return sorted(pos for pos, count in counts.items() if count >= 2)


def _clean_spots(board: Board, tile: Tile, spots: Iterable[Pos]) -> list[Pos]:
    return [pos for _tile, pos in _fitting(board, spots, (tile,))]


def _fitting(board: Board, spots: Iterable[Pos], tiles: Iterable[Tile]) -> list[tuple[Tile, Pos]]:
    """The (tile, spot) pairs with no mismatched side, looking each spot's neighbours up once."""
    tiles = tuple(tiles)
    found = []
    for pos in spots:
        r, c = pos
        north, east = board.get((r - 1, c)), board.get((r, c + 1))
        south, west = board.get((r + 1, c)), board.get((r, c - 1))
        need_n = north[2] if north is not None else -1
        need_e = east[3] if east is not None else -1
        need_s = south[0] if south is not None else -1
        need_w = west[1] if west is not None else -1
        for tile in tiles:
            if (
                (need_n < 0 or tile[0] == need_n)
                and (need_e < 0 or tile[1] == need_e)
                and (need_s < 0 or tile[2] == need_s)
                and (need_w < 0 or tile[3] == need_w)
            ):
                found.append((tile, pos))
    return found


def _without(hand: tuple[Tile, ...], tile: Tile) -> tuple[Tile, ...]:
    index = hand.index(tile)
    return hand[:index] + hand[index + 1 :]


class _Search:
    """Whether hand tiles can all go back with no mismatch and no hole (ruling 9), memoised by placement set.

    Order matters only for Shape Constraint 1, and a hole (3-4 tiles beside it)
    always satisfies it, so every hole is filled first, branching only on which
    tile fills the first hole; tiles left over once no hole is left are tried
    at every open position in every order (the memo folds the orders).
    """

    def __init__(self, board: Board) -> None:
        self.board: dict[Pos, Tile] = dict(board)
        self.memo: dict[frozenset[tuple[Pos, Tile]], bool] = {}

    def place(self, pos: Pos, tile: Tile, current_holes: set[Pos]) -> set[Pos]:
        """Put ``tile`` at ``pos`` and return the holes after it."""
        self.board[pos] = tile
        after = set(current_holes)
        after.discard(pos)
        for spot in orthogonal(pos):
            if spot not in self.board and sum(1 for around in orthogonal(spot) if around in self.board) >= 3:
                after.add(spot)
        return after

    def completes(self, rest: tuple[Tile, ...], current_holes: set[Pos], key: frozenset[tuple[Pos, Tile]]) -> bool:
        if key in self.memo:
            return self.memo[key]
        result = False
        if not rest:
            result = not current_holes
        elif len(current_holes) <= len(rest):
            for tile, pos in self.next_placements(rest, current_holes):
                after = self.place(pos, tile, current_holes)
                found = self.completes(_without(rest, tile), after, key | {(pos, tile)})
                del self.board[pos]
                if found:
                    result = True
                    break
        self.memo[key] = result
        return result

    def next_placements(self, rest: tuple[Tile, ...], current_holes: set[Pos]) -> list[tuple[Tile, Pos]]:
        board = self.board
        if current_holes:
            return _fitting(board, (min(current_holes),), rest)
        return _fitting(board, _open_spots(board), rest)


def perfect_placements(board: Board, hand: tuple[Tile, ...]) -> list[tuple[Tile, Pos]]:
    """The first placements of every way to put the whole hand back with no mismatch and no hole."""
    search = _Search(board)
    current_holes = holes(board)
    if len(current_holes) > len(hand):
        return []
    spots = sorted(current_holes) if len(current_holes) == len(hand) else _open_spots(board)
    found = []
    for tile in sorted(set(hand)):
        for pos in _clean_spots(board, tile, spots):
            after = search.place(pos, tile, current_holes)
            if search.completes(_without(hand, tile), after, frozenset({(pos, tile)})):
                found.append((tile, pos))
            del search.board[pos]
    return found


def placing_back_moves(board: Board, hand: tuple[Tile, ...]) -> list[tuple[Tile, Pos]]:
    """The legal placements of one hand tile while placing back (ruling 9), sorted."""
    if not hand:
        return []
    perfect = perfect_placements(board, hand)
    if perfect:
        return sorted(perfect)
    tiles = sorted(set(hand))
    current_holes = holes(board)
    if current_holes:
        # Holes first: the hole/tile pairs with the fewest mismatches.
        pairs = [(mismatch_count(board, pos, tile), tile, pos) for pos in current_holes for tile in tiles]
        fewest = min(pair[0] for pair in pairs)
        return sorted((tile, pos) for count, tile, pos in pairs if count == fewest)
    remaining_after = len(hand) - 1
    moves: list[tuple[Tile, Pos]] = []
    spots = _open_spots(board)
    fallback: list[tuple[tuple[int, int], Tile, Pos]] = []
    for tile in tiles:
        options: list[tuple[tuple[int, int], Pos]] = []
        for pos in spots:
            after = dict(board)
            after[pos] = tile
            excess = max(0, len(holes_near(after, [pos])) - remaining_after)
            options.append(((excess, mismatch_count(board, pos, tile)), pos))
        if not options:
            continue
        fallback.extend((key, tile, pos) for key, pos in options)
        clean = [pos for key, pos in options if key == (0, 0)]
        if clean:
            moves.extend((tile, pos) for pos in clean)
            continue
        best = min(key for key, _pos in options)
        if best[0] == 0:
            moves.extend((tile, pos) for key, pos in options if key == best)
    if not moves and fallback:
        # Nothing avoids leaving a hole: the least bad placements of any tile.
        best = min(key for key, _tile, _pos in fallback)
        moves = [(tile, pos) for key, tile, pos in fallback if key == best]
    return sorted(moves)
