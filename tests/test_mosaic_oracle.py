"""Mosaic's legal-move generator against a slow, literal reading of the rules.

The oracle recomputes everything from scratch on a copy of the board (every
position in the board's box and one beyond, holes of the whole board after
each change), so it shares nothing with the fast generator but the board
helpers' definitions of neighbour, hole and mismatch.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from termgames.rules.mosaic import Mosaic, MosaicState
from termgames.rules.mosaic.board import holes, mismatch_count, neighbour_count
from termgames.rules.mosaic.tiles import OPPOSITE, Pos, Tile, tile_text

GAME = Mosaic()


def box(board: dict[Pos, Tile], margin: int) -> list[Pos]:
    rows = [r for r, _c in board]
    cols = [c for _r, c in board]
    return [
        (r, c)
        for r in range(min(rows) - margin, max(rows) + margin + 1)
        for c in range(min(cols) - margin, max(cols) + margin + 1)
        if (r, c) not in board
    ]


def as_tile(quarters: list[int]) -> Tile:
    return (quarters[0], quarters[1], quarters[2], quarters[3])


def building_oracle(state: MosaicState) -> set[str]:
    board = state.board
    if not board:
        return {f"{tile_text(t)}@0,0" for t in state.hand()}
    need = 1 if len(board) == 1 else 2
    found = set()
    for tile in state.hand():
        fits = []
        for pos in box(board, 1):
            after = dict(board)
            after[pos] = tile
            if neighbour_count(board, pos) >= need and mismatch_count(board, pos, tile) == 0 and not holes(after):
                fits.append(pos)
        last = state.last_placed
        near = [p for p in fits if last is not None and abs(p[0] - last[0]) + abs(p[1] - last[1]) == 1]
        found |= {f"{tile_text(tile)}@{p[0]},{p[1]}" for p in (near or fits)}
    return found or {"pass"}


def candidates_oracle(
    board: dict[Pos, Tile], at: Pos, target: Tile, changing: tuple[int, ...], excluded: set[Tile],
    waiting: set[Pos], hand_after: int,
) -> list[Pos]:
    pool = []
    for pos, tile in board.items():
        if tile in excluded:
            continue
        after = dict(board)
        del after[pos]
        after[at] = tile
        if len(holes(after) - waiting) > hand_after:
            continue
        pool.append((pos, tile))
    if len(set(target)) <= 2:
        return [pos for pos, tile in pool if tile == target]
    pool = [(pos, tile) for pos, tile in pool if all(tile[s] == target[s] for s in changing)]
    if not pool:
        return []
    fewest = min(sum(tile[s] != target[s] for s in range(4)) for _pos, tile in pool)
    return sorted(pos for pos, tile in pool if sum(tile[s] != target[s] for s in range(4)) == fewest)


def edge_oracle(state: MosaicState) -> set[str]:
    me = state.turn
    board = state.board
    found = set()
    for (r, c), tile in board.items():
        for side, other in ((1, (r, c + 1)), (2, (r + 1, c))):
            if other not in board or tile[side] == me or board[other][OPPOSITE[side]] == me:
                continue
            first = list(tile)
            first[side] = me
            second = list(board[other])
            second[OPPOSITE[side]] = me
            rest = {p: t for p, t in board.items() if p not in ((r, c), other)}
            ok = False
            for source in candidates_oracle(rest, (r, c), as_tile(first), (side,), set(), {other}, 2):
                after = dict(rest)
                moving = after.pop(source)
                after[(r, c)] = moving
                if candidates_oracle(after, other, as_tile(second), (OPPOSITE[side],), {moving}, set(), 2):
                    ok = True
                    break
            if ok:
                found.add(f"edge {r},{c} {other[0]},{other[1]}")
    return found or {"pass"}


def placing_oracle(state: MosaicState) -> set[str] | None:
    """Ruling 9 by brute force for hands of one or two tiles (None for bigger hands)."""
    hand = state.hand()
    board = state.board
    if len(hand) > 2:
        return None
    spots = box(board, 2)
    perfect = set()
    for order in set(itertools.permutations(hand)):
        for first in spots:
            if neighbour_count(board, first) < 2 or mismatch_count(board, first, order[0]):
                continue
            after = dict(board)
            after[first] = order[0]
            if len(order) == 1:
                if not holes(after):
                    perfect.add(f"{tile_text(order[0])}@{first[0]},{first[1]}")
                continue
            for second in spots:
                if second == first or neighbour_count(after, second) < 2 or mismatch_count(after, second, order[1]):
                    continue
                final = dict(after)
                final[second] = order[1]
                if not holes(final):
                    perfect.add(f"{tile_text(order[0])}@{first[0]},{first[1]}")
                    break
    if perfect:
        return perfect
    current = holes(board)
    if current:
        pairs = [(mismatch_count(board, h, t), t, h) for h in current for t in hand]
        fewest = min(p[0] for p in pairs)
        return {f"{tile_text(t)}@{h[0]},{h[1]}" for n, t, h in pairs if n == fewest}
    return None  # the no-hole, no-perfect case: checked by the invariants only


def replacement_oracle(state: MosaicState) -> set[str]:
    """Step R's candidates for the position the step names (its target checked against the rules)."""
    step = state.step()
    assert step.replacing is not None and step.target is not None
    board = dict(state.board)
    at = step.replacing
    if state.subroutine == "mismatch":
        tile = board.pop(at)
        target = list(tile)
        for side, (dr, dc) in enumerate(((-1, 0), (0, 1), (1, 0), (0, -1))):
            other = board.get((at[0] + dr, at[1] + dc))
            if other is not None and other[OPPOSITE[side]] != tile[side]:
                target[side] = other[OPPOSITE[side]]
        assert tuple(target) == step.target
        options = candidates_oracle(board, at, step.target, step.changing, set(state.routine_moved), set(),
                                    len(state.hand()) + 1)
    else:
        pending = [t.pos for t in state.pending]
        waiting = set(pending[1:])
        options = candidates_oracle(board, at, step.target, step.changing, set(state.routine_moved), waiting, 2)
        if waiting:
            second = state.pending[1]
            usable = []
            for source in options:
                after = dict(board)
                moving = after.pop(source)
                after[at] = moving
                if candidates_oracle(after, second.pos, second.pattern, second.changing,
                                     set(state.routine_moved) | {moving}, set(), 2):
                    usable.append(source)
            options = usable
    return {f"take {r},{c}" for r, c in options}


@pytest.mark.parametrize(("players", "routines"), [(2, 8), (3, 3)])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_generator_matches_the_oracle(players: int, routines: int, seed: int) -> None:
    state = GAME.new({"max_routines": routines}, ["a", "b", "c", "d"][:players], seed)
    rng = random.Random(seed)
    while not state.is_over():
        legal = set(state.legal_moves())
        if state.phase == "building":
            assert legal == building_oracle(state)
        elif state.kind == "SE":
            assert legal == edge_oracle(state)
        elif state.kind == "R":
            assert legal == replacement_oracle(state)
        elif state.kind in ("SH/P", "P"):
            expected = placing_oracle(state)
            if expected is not None:
                assert legal == expected
        state = state.apply(state.turn, rng.choice(sorted(legal)))
