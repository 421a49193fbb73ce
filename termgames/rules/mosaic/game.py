"""Mosaic (Lindsey Spratt, 1992): the game and its states (the views are in ``view.py``).

A state is one decision point.  Every step the guide names is one move:
a building placement (Steps SH and P together), Step SE (``edge``), each
Step R (``take``) and each tile placed back (``TILE@ROW,COL``).  Steps the
rules make automatic (a mismatch subroutine with nothing to replace, the end
of a routine, the end of the building phase) happen inside ``apply``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from ..base import Game, OptionSpec, RuleError, State, Viewer, possessive
from ..options import INT
from .alteration import (
    Target,
    candidates,
    moved,
    perfect_placements,
    placing_back_moves,
)
from .board import (
    Board,
    board_mismatches,
    frontier,
    holes,
    holes_near,
    mismatch_count,
    mismatched_sides,
    neighbour_count,
    orthogonal,
    regions,
    scores,
)
from .notation import Edge, Move, Pass, Place, Take, parse_move
from .rules_text import rules_markdown
from .tiles import (
    OPPOSITE,
    SIDE_NAMES,
    WINNING_SCORES,
    E,
    Pos,
    S,
    Tile,
    deal,
    neighbour,
    pos_text,
    tile_set,
    tile_text,
)
from .view import (
    ALTERATION,
    BUILDING,
    EDGE_KIND,
    LAST_PLACE_KIND,
    OVER,
    PLACE_KIND,
    REPLACE_KIND,
    MosaicStep,
    MosaicView,
)

#: Ruling 10: a routine ends after this many Step R's per tile in play.
R_STEPS_PER_TILE = 4


def building_options(board: Board, hand: tuple[Tile, ...], last_placed: Pos | None) -> dict[Tile, list[Pos]]:
    """Each hand tile's legal positions in the building phase (tiles with none left out), ruling 3."""
    if not board:
        return {tile: [(0, 0)] for tile in hand}
    need = 1 if len(board) == 1 else 2
    existing = holes(board)
    spots = []
    for pos in frontier(board):
        if neighbour_count(board, pos) < need or existing - {pos}:
            continue
        after = dict(board)
        after[pos] = hand[0] if hand else (0, 0, 0, 0)  # which tile it is does not matter for holes
        if not holes_near(after, [pos]):
            spots.append(pos)
    near = set(orthogonal(last_placed)) if last_placed is not None else set()
    options: dict[Tile, list[Pos]] = {}
    for tile in hand:
        fitting = [pos for pos in spots if mismatch_count(board, pos, tile) == 0]
        beside_last = [pos for pos in fitting if pos in near]
        chosen = beside_last or fitting
        if chosen:
            options[tile] = sorted(chosen)
    return options


def edge_targets(board: Board, edge: tuple[Pos, Pos], colour: int) -> tuple[Target, Target]:
    """The two targets of an edge for ``colour``: each tile with its facing side recoloured (ruling 8)."""
    first, second = edge
    side = E if second[1] != first[1] else S
    upper, lower = list(board[first]), list(board[second])
    upper[side] = colour
    lower[OPPOSITE[side]] = colour
    return (
        Target(first, (upper[0], upper[1], upper[2], upper[3]), (side,)),
        Target(second, (lower[0], lower[1], lower[2], lower[3]), (OPPOSITE[side],)),
    )


def first_replacements(
    board: Board,
    first: Target,
    second: Target,
    excluded: frozenset[Tile],
    hand: int,
    any_one: bool = False,
    base_holes: set[Pos] | None = None,
) -> list[Pos]:
    """Step R candidates for the first edge tile after which the second still has one (ruling 7).

    ``any_one`` stops at the first (Step SE only asks whether there is one);
    ``base_holes`` are the board's holes, the edge's positions aside, if known.
    """
    if base_holes is None:
        base_holes = holes(board, (first.pos, second.pos))
    options = candidates(board, first, excluded, (second.pos,), hand, base_holes)
    usable = []
    for source in options:
        after = moved(board, source, first.pos)
        changed = (source, first.pos)
        affected = {spot for pos in changed for spot in (pos, *orthogonal(pos))}
        after_holes = (base_holes - affected) | holes_near(after, changed, (second.pos,))
        if candidates(after, second, excluded | {board[source]}, (), hand, after_holes):
            usable.append(source)
            if any_one:
                break
    return usable


# --------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class MosaicState(State):
    board: dict[Pos, Tile] = field(default_factory=dict)
    hands: tuple[tuple[Tile, ...], ...] = ()
    #: Tiles left in hands when the building phase ended early (ruling 6).
    out_of_play: tuple[Tile, ...] = ()
    phase: str = BUILDING
    turn: int = 0
    kind: str = PLACE_KIND
    #: The seat whose alteration routine is under way.
    initiator: int = 0
    #: Building phase: the last tile placed by anyone (Building Phase Constraint).
    last_placed: Pos | None = None
    edge: tuple[Pos, Pos] | None = None
    #: The edge's targets still to replace, in order (the initiating subroutine's Step R's).
    pending: tuple[Target, ...] = ()
    subroutine: str = ""
    #: Mismatch subroutine: the tiles placed in the previous subroutine (those mismatched must be resolved).
    resolving: tuple[Tile, ...] = ()
    #: Tiles moved or placed during this routine: never replacement candidates (ruling 8).
    routine_moved: frozenset[Tile] = frozenset()
    #: Tiles moved or placed during this subroutine: the next one resolves those left mismatched.
    subroutine_placed: frozenset[Tile] = frozenset()
    r_steps: int = 0
    #: Alteration routines finished (a pass is none).
    routines: int = 0
    #: Alteration passes in a row (every player passing in one round ends the game).
    passes: int = 0
    streaks: tuple[int, ...] = ()
    won_by: int | None = None
    finish: str = ""
    last_action: str = ""
    _cache: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    # -- basics ------------------------------------------------------------

    def __hash__(self) -> int:
        # The generated hash would hash the board dict and fail; equal states share these fields.
        return hash((self.ply, self.phase, self.kind, self.turn, frozenset(self.board.items()), self.hands))

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def winning_score(self) -> int:
        return WINNING_SCORES[self.players]

    @property
    def max_routines(self) -> int:
        return int(self.options.get("max_routines") or 0)

    def _cached(self, key: str, compute: Any) -> Any:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def to_move(self) -> tuple[int, ...]:
        return () if self.phase == OVER else (self.turn,)

    def is_over(self) -> bool:
        return self.phase == OVER

    def scores(self) -> tuple[float, ...]:
        return self._cached("scores", lambda: tuple(float(s) for s in scores(self.board, self.players)))

    def winners(self) -> tuple[int, ...]:
        if self.won_by is not None:
            return (self.won_by,)
        return super().winners()

    def regions(self) -> list[Any]:
        return list(self._cached("regions", lambda: regions(self.board)))

    def hand(self) -> tuple[Tile, ...]:
        return self.hands[self.turn]

    def tiles_in_play(self) -> int:
        return len(self.board) + sum(len(hand) for hand in self.hands)

    def position_of(self, tile: Tile) -> Pos | None:
        positions: dict[Tile, Pos] = self._cached("positions", lambda: {t: p for p, t in self.board.items()})
        return positions.get(tile)

    # -- what the step asks ------------------------------------------------

    def building_options(self) -> dict[Tile, list[Pos]]:
        """Building phase: each hand tile of the player to move with its legal positions."""
        return self._cached("building", lambda: building_options(self.board, self.hand(), self.last_placed))

    def edge_options(self) -> list[tuple[Pos, Pos]]:
        """Step SE: the edges the initiating player may select (ruling 7)."""
        return self._cached("edges", self._edge_options)

    def _edge_options(self) -> list[tuple[Pos, Pos]]:
        board = self.board
        board_holes = self._cached("holes", lambda: holes(board))
        found = []
        for pos in sorted(board):
            for side in (E, S):
                edge = (pos, neighbour(pos, side))
                if self._edge_selectable(edge, board_holes):
                    found.append(edge)
        return found

    def _edge_selectable(self, edge: tuple[Pos, Pos], board_holes: set[Pos]) -> bool:
        """Ruling 7: both tiles there, facing quarters not the mover's colour, both replaceable in turn."""
        colour = self.turn
        board = self.board
        first_pos, other = edge
        side = E if other[1] != first_pos[1] else S
        if first_pos not in board or other not in board:
            return False
        if board[first_pos][side] == colour or board[other][OPPOSITE[side]] == colour:
            return False
        first, second = edge_targets(board, edge, colour)
        rest = dict(board)
        del rest[first_pos], rest[other]
        affected = {spot for place in edge for spot in (place, *orthogonal(place))}
        base_holes = (board_holes - affected) | holes_near(rest, edge, edge)
        return bool(first_replacements(rest, first, second, frozenset(), 2, any_one=True, base_holes=base_holes))

    def replacement(self) -> tuple[Target, list[Pos]] | None:
        """Step R: the position being replaced (its target) and its candidates; None when none is possible."""
        return self._cached("replacement", self._replacement)

    def _replacement(self) -> tuple[Target, list[Pos]] | None:
        if self.phase != ALTERATION:
            return None
        if self.subroutine == "initiate":
            if not self.pending:
                return None
            hand = len(self.hand())
            if len(self.pending) == 2:
                first, second = self.pending
                return first, first_replacements(self.board, first, second, self.routine_moved, hand)
            target = self.pending[0]
            return target, candidates(self.board, target, self.routine_moved, (), hand)
        if self.r_steps >= R_STEPS_PER_TILE * self.tiles_in_play():
            return None
        hand = len(self.hand()) + 1
        located = [(pos, tile) for tile in self.resolving if (pos := self.position_of(tile)) is not None]
        for pos, tile in sorted(located):
            sides = mismatched_sides(self.board, pos, tile)
            if not sides:
                continue
            pattern = list(tile)
            for side in sides:
                facing = self.board[neighbour(pos, side)]
                pattern[side] = facing[OPPOSITE[side]]
            target = Target(pos, (pattern[0], pattern[1], pattern[2], pattern[3]), sides)
            rest = dict(self.board)
            del rest[pos]
            options = candidates(rest, target, self.routine_moved, (), hand)
            if options:
                return target, options
        return None

    def placing_options(self) -> list[tuple[Tile, Pos]]:
        """Placing back: the legal (tile, position) placements (ruling 9)."""
        return self._cached("placing", lambda: placing_back_moves(self.board, self.hand()))

    def legal_moves(self) -> list[str]:
        """Every legal move of the player to move, canonical text, sorted: exactly what ``apply`` accepts."""
        return list(self._cached("legal", self._legal_moves))

    def random_move(self, seat: int, rng: random.Random) -> str:
        return rng.choice(self.legal_moves())

    def _legal_moves(self) -> tuple[str, ...]:
        if self.phase == OVER:
            return ()
        if self.phase == BUILDING:
            options = self.building_options()
            if not options:
                return ("pass",)
            return tuple(sorted(Place(tile, pos).text() for tile, spots in options.items() for pos in spots))
        if self.kind == EDGE_KIND:
            edges = self.edge_options()
            return tuple(sorted(Edge(*edge).text() for edge in edges)) if edges else ("pass",)
        if self.kind == REPLACE_KIND:
            found = self.replacement()
            return tuple(sorted(Take(pos).text() for pos in found[1])) if found else ()
        return tuple(sorted(Place(tile, pos).text() for tile, pos in self.placing_options()))

    def step(self) -> MosaicStep:
        return self._cached("step", self._step)

    def _step(self) -> MosaicStep:
        if self.phase == OVER:
            return MosaicStep(OVER, None, OVER)
        legal = self.legal_moves()
        must_pass = legal == ["pass"]
        if self.phase == BUILDING:
            return MosaicStep(PLACE_KIND, self.turn, BUILDING, must_pass=must_pass)
        waiting = [target.pos for target in self.pending]
        hole_list = tuple(sorted(holes(self.board, waiting)))
        replacing: Target | None = None
        mismatched: tuple[Pos, ...] = ()
        if self.kind == REPLACE_KIND:
            found = self.replacement()
            replacing = found[0] if found else None
        if self.subroutine == "mismatch":
            located = (self.position_of(tile) for tile in self.resolving)
            mismatched = tuple(
                sorted(pos for pos in located if pos is not None and mismatched_sides(self.board, pos, self.board[pos]))
            )
        return MosaicStep(
            self.kind,
            self.turn,
            ALTERATION,
            initiator=self.initiator,
            subroutine=self.subroutine,
            edge=self.edge,
            replacing=replacing.pos if replacing else None,
            target=replacing.pattern if replacing else None,
            changing=replacing.changing if replacing else (),
            holes=hole_list,
            mismatched=mismatched,
            must_pass=must_pass,
        )

    # -- moves -------------------------------------------------------------

    def apply(self, seat: int, move: str) -> MosaicState:
        return cast(MosaicState, super().apply(seat, move))

    def normalise_move(self, seat: int, move: str) -> str:
        try:
            return parse_move(move, self.players).text()
        except RuleError:
            return move.strip()

    def _apply(self, seat: int, move: str) -> MosaicState:
        parsed = parse_move(move, self.players)
        if (
            isinstance(parsed, Edge)
            and self.phase == ALTERATION
            and self.kind == EDGE_KIND
            and "legal" not in self._cache
        ):
            # Replays check one edge instead of listing them all (Step SE is the costliest list).
            edge = (parsed.first, parsed.second)
            if not self._edge_selectable(edge, self._cached("holes", lambda: holes(self.board))):
                raise RuleError(self._refusal(parsed))
        elif parsed.text() not in self._cached("legal_set", lambda: frozenset(self.legal_moves())):
            raise RuleError(self._refusal(parsed))
        after = self._play(parsed)
        return replace(after, ply=self.ply + 1)

    def _play(self, move: Move) -> MosaicState:
        name = self.seats[self.turn]
        if self.phase == BUILDING:
            if isinstance(move, Pass):
                return self._next_builder(replace(self, last_action=f"{name} cannot place a tile and passes"))
            assert isinstance(move, Place)
            board = dict(self.board)
            board[move.pos] = move.tile
            hands = self._hands_with(self.turn, _without(self.hand(), move.tile))
            action = f"{name} placed {tile_text(move.tile)} at {pos_text(move.pos)}"
            return self._next_builder(replace(self, board=board, hands=hands, last_placed=move.pos, last_action=action))
        if isinstance(move, Pass):
            action = f"{name} can select no edge and passes"
            return replace(self, passes=self.passes + 1, last_action=action)._end_routine(passed=True)
        if isinstance(move, Edge):
            return self._select_edge(move)
        if isinstance(move, Take):
            return self._replace(move.pos)
        assert isinstance(move, Place)
        return self._place_back(move)

    def _hands_with(self, seat: int, hand: tuple[Tile, ...]) -> tuple[tuple[Tile, ...], ...]:
        return (*self.hands[:seat], hand, *self.hands[seat + 1:])

    # -- building ----------------------------------------------------------

    def _next_builder(self, state: MosaicState) -> MosaicState:
        """The next seat (who passes if she cannot place a tile), or the alteration phase (ruling 6)."""
        if not any(state.hands):
            return state._start_alteration()
        if not any(building_options(state.board, hand, state.last_placed) for hand in state.hands if hand):
            left = tuple(sorted(tile for hand in state.hands for tile in hand))
            emptied = tuple(() for _hand in state.hands)
            note = f"; no one can place a tile, so {len(left)} tiles stay out of play"
            return replace(
                state, hands=emptied, out_of_play=left, last_action=state.last_action + note
            )._start_alteration()
        # Every player takes her turn, an empty hand included: ruling 3 ("a player with none passes") and the
        # guide's building loop ("CurrentPlayer is Next Player(CurrentPlayer)") skip no one.
        return replace(state, turn=(self.turn + 1) % self.players, kind=PLACE_KIND)

    def _start_alteration(self) -> MosaicState:
        state = replace(
            self,
            phase=ALTERATION,
            turn=0,
            initiator=0,
            kind=EDGE_KIND,
            last_placed=None,
            streaks=(0,) * self.players,
        )
        return replace(state, last_action=state.last_action + "; the alteration phase begins")

    # -- alteration --------------------------------------------------------

    def _select_edge(self, move: Edge) -> MosaicState:
        edge = (move.first, move.second)
        first, second = edge_targets(self.board, edge, self.turn)
        board = {pos: tile for pos, tile in self.board.items() if pos not in edge}
        hand = (self.board[move.first], self.board[move.second])
        name = self.seats[self.turn]
        return replace(
            self,
            board=board,
            hands=self._hands_with(self.turn, hand),
            kind=REPLACE_KIND,
            edge=edge,
            pending=(first, second),
            subroutine="initiate",
            resolving=(),
            routine_moved=frozenset(),
            subroutine_placed=frozenset(),
            r_steps=0,
            passes=0,
            last_action=f"{name} selected the edge {pos_text(move.first)}-{pos_text(move.second)}",
        )

    def _replace(self, source: Pos) -> MosaicState:
        found = self.replacement()
        assert found is not None
        target = found[0]
        name = self.seats[self.turn]
        board = dict(self.board)
        hand = self.hand()
        if self.subroutine == "mismatch":
            hand = (*hand, board.pop(target.pos))
        tile = board[source]
        board = moved(board, source, target.pos)
        action = f"{name} moved {tile_text(tile)} from {pos_text(source)} to {pos_text(target.pos)}"
        state = replace(
            self,
            board=board,
            hands=self._hands_with(self.turn, hand),
            pending=self.pending[1:] if self.subroutine == "initiate" else (),
            routine_moved=self.routine_moved | {tile},
            subroutine_placed=self.subroutine_placed | {tile},
            r_steps=self.r_steps + 1,
            last_action=action,
        )
        if state.subroutine == "initiate" and state.pending:
            return state
        if state.subroutine == "mismatch" and state.replacement() is not None:
            return state
        return state._start_placing_back()

    def _start_placing_back(self) -> MosaicState:
        count = len(self.hand())
        if count == 0:
            return self._end_subroutine()
        return replace(self, kind=PLACE_KIND if count >= 2 else LAST_PLACE_KIND)

    def _place_back(self, move: Place) -> MosaicState:
        name = self.seats[self.turn]
        board = dict(self.board)
        board[move.pos] = move.tile
        hand = _without(self.hand(), move.tile)
        sides = mismatched_sides(board, move.pos, move.tile)
        action = f"{name} placed {tile_text(move.tile)} back at {pos_text(move.pos)}"
        if sides:
            action += f", mismatched on {''.join(SIDE_NAMES[s] for s in sides)}"
        state = replace(
            self,
            board=board,
            hands=self._hands_with(self.turn, hand),
            routine_moved=self.routine_moved | {move.tile},
            subroutine_placed=self.subroutine_placed | {move.tile},
            last_action=action,
        )
        return state._start_placing_back()

    def _end_subroutine(self) -> MosaicState:
        mismatched = tuple(
            sorted(
                tile
                for tile in self.subroutine_placed
                if (pos := self.position_of(tile)) is not None and mismatched_sides(self.board, pos, tile)
            )
        )
        if not mismatched:
            return self._end_routine()
        resolver = (self.turn + 1) % self.players
        state = replace(
            self,
            turn=resolver,
            kind=REPLACE_KIND,
            subroutine="mismatch",
            pending=(),
            resolving=mismatched,
            subroutine_placed=frozenset(),
        )
        if state.replacement() is None:
            note = "; the mismatches left have no replacement and stay"
            return replace(state, last_action=state.last_action + note)._end_routine()
        note = f"; {self.seats[resolver]} must resolve the mismatches"
        return replace(state, last_action=state.last_action + note)

    def _end_routine(self, passed: bool = False) -> MosaicState:
        """The routine is over: check the initiator's score (ruling 5), then the next initiator or the end."""
        initiator = self.initiator
        score = self.scores()[initiator]
        streak = self.streaks[initiator] + 1 if score >= self.winning_score else 0
        streaks = (*self.streaks[:initiator], streak, *self.streaks[initiator + 1:])
        # A pass is no alteration routine (ruling 7: "her score is *still* checked"), so it does not count
        # towards --max-routines (ruling 5: "after N alteration routines").
        routines = self.routines if passed else self.routines + 1
        common: dict[str, Any] = {
            "streaks": streaks,
            "routines": routines,
            "edge": None,
            "pending": (),
            "resolving": (),
            "subroutine": "",
            "routine_moved": frozenset(),
            "subroutine_placed": frozenset(),
            "r_steps": 0,
        }
        name = self.seats[initiator]
        if streak >= 2:
            finish = f"{name} reached {int(score)} points at two routine ends in a row"
            return replace(self, phase=OVER, won_by=initiator, finish=finish, **common)
        if passed and self.passes >= self.players:
            return replace(self, phase=OVER, finish="every player passed in one round", **common)
        if self.max_routines and routines >= self.max_routines:
            return replace(self, phase=OVER, finish=f"the {routines} alteration routines are played", **common)
        following = (initiator + 1) % self.players
        return replace(self, turn=following, initiator=following, kind=EDGE_KIND, **common)

    # -- refusals ----------------------------------------------------------

    def _refusal(self, move: Move) -> str:
        """Why a move that is not legal now is refused, naming the constraint it breaks."""
        legal = self.legal_moves()
        if self.phase == BUILDING or self.kind in (PLACE_KIND, LAST_PLACE_KIND):
            if legal == ["pass"]:
                return f"{self.seats[self.turn]} has no tile that can be placed and must pass"
            if not isinstance(move, Place):
                return f"it is Step SH/P: place a tile from your hand with TILE@ROW,COL (e.g. {legal[0]})"
            return self._placement_refusal(move)
        if self.kind == EDGE_KIND:
            if legal == ["pass"]:
                return f"Step SE: {self.seats[self.turn]} can select no edge and must pass"
            if not isinstance(move, Edge):
                return f"it is Step SE: select an edge with edge ROW,COL ROW,COL (e.g. {legal[0]})"
            return self._edge_refusal(move)
        found = self.replacement()
        if not isinstance(move, Take) or found is None:
            return f"it is Step R: choose a replacement with take ROW,COL (e.g. {legal[0]})"
        target, options = found
        listing = ", ".join(pos_text(pos) for pos in options)
        where = pos_text(move.pos)
        if move.pos not in self.board:
            return f"Step R: there is no tile at {where} (candidates: {listing})"
        if self.board[move.pos] in self.routine_moved:
            return f"Step R: the tile at {where} was moved into place in this routine (candidates: {listing})"
        return (
            f"Step R: the tile at {where} does not match {tile_text(target.pattern)}, the pattern needed at "
            f"{pos_text(target.pos)} (Replacement Step Constraint; candidates: {listing})"
        )

    def _placement_refusal(self, move: Place) -> str:
        tile, pos = move.tile, move.pos
        where = pos_text(pos)
        if tile not in self.hand():
            return f"{tile_text(tile)} is not in {possessive(self.seats[self.turn])} hand"
        if pos in self.board:
            return f"{where} already holds a tile"
        board = self.board
        if self.phase == BUILDING and not board:
            return "the first tile goes at 0,0"
        need = 1 if self.phase == BUILDING and len(board) == 1 else 2
        count = neighbour_count(board, pos)
        if count < need:
            return f"Shape Constraint 1: a tile needs at least {need} neighbours and {where} has {count}"
        sides = mismatched_sides(board, pos, tile)
        after = dict(board)
        after[pos] = tile
        new_holes = sorted(holes(after))
        if self.phase == BUILDING:
            if sides:
                return self._colour_refusal(tile, pos, sides)
            if new_holes:
                return f"Shape Constraint 2: that would leave a hole at {pos_text(new_holes[0])}"
            spots = self.building_options().get(tile, [])
            return (
                f"Building Phase Constraint: {tile_text(tile)} can go next to the last tile placed "
                f"({pos_text(self.last_placed or (0, 0))}), so it must (at {', '.join(pos_text(p) for p in spots)})"
            )
        perfect = perfect_placements(board, self.hand())
        if perfect:
            if sides:
                return self._colour_refusal(tile, pos, sides)
            if new_holes and len(self.hand()) == 1:
                return f"Shape Constraint 2: that would leave a hole at {pos_text(new_holes[0])}"
            return (
                "placing back: the hand tiles can all go back with no mismatch and no hole, and this placement "
                "leaves no way to do that (Shape Constraint 2 / Colour Constraint)"
            )
        current = sorted(holes(board))
        if current:
            return (
                f"Shape Constraint 2: the hole at {pos_text(current[0])} must be filled first, with the hand tile "
                "that mismatches it least"
            )
        return (
            "placing back: a tile goes where it matches, or where it has the fewest mismatched sides if it "
            f"matches nowhere (legal: {', '.join(self.legal_moves()[:6])})"
        )

    def _colour_refusal(self, tile: Tile, pos: Pos, sides: tuple[int, ...]) -> str:
        side = sides[0]
        other = neighbour(pos, side)
        mine = self.seats[tile[side]]
        theirs = self.seats[self.board[other][OPPOSITE[side]]]
        return (
            f"Colour Constraint: {tile_text(tile)}'s {SIDE_NAMES[side]} side ({mine}) does not match "
            f"the tile at {pos_text(other)} ({theirs})"
        )

    def _edge_refusal(self, move: Edge) -> str:
        for pos in (move.first, move.second):
            if pos not in self.board:
                return f"Step SE: there is no tile at {pos_text(pos)}"
        side = E if move.second[1] != move.first[1] else S
        colour = self.turn
        if self.board[move.first][side] == colour or self.board[move.second][OPPOSITE[side]] == colour:
            return f"Step SE: the edge {pos_text(move.first)}-{pos_text(move.second)} is already partly your colour"
        return (
            f"Step SE: the tiles at {pos_text(move.first)} and {pos_text(move.second)} cannot both be replaced "
            "(Replacement Step Constraint: no candidate tile, or only ones that would leave too many holes)"
        )

    # -- view --------------------------------------------------------------

    def status(self) -> str:
        if self.phase == OVER:
            names = " and ".join(self.seats[s] for s in self.winners())
            return f"Game over: {self.finish}; {names} {'wins' if len(self.winners()) == 1 else 'tie'}"
        name = self.seats[self.turn]
        legal = self.legal_moves()
        if legal == ["pass"]:
            what = "place any tile" if self.phase == BUILDING else "select any edge"
            return f"{name} cannot {what} and must pass"
        if self.phase == BUILDING:
            return f"{name} to play Step SH/P: place a tile from your hand (building phase)"
        if self.kind == EDGE_KIND:
            return f"{name} to play Step SE: select an edge to turn to your colour"
        if self.kind == REPLACE_KIND:
            found = self.replacement()
            where = pos_text(found[0].pos) if found else "?"
            return f"{name} to play Step R: choose a replacement for the tile that was at {where}"
        if self.kind == LAST_PLACE_KIND:
            return f"{name} to play Step P: place your last hand tile back on the board"
        return f"{name} to play Step SH/P: place a tile from your hand back on the board"

    def view(self, viewer: Viewer) -> MosaicView:
        waiting = [target.pos for target in self.pending]
        return MosaicView(
            game="mosaic",
            viewer=viewer,
            players=self.seats,
            to_move=self.to_move(),
            over=self.is_over(),
            scores=self.scores(),
            winners=self.winners(),
            status=self.status(),
            last_action=self.last_action,
            tiles=dict(self.board),
            hands=self.hands,
            out_of_play=self.out_of_play,
            step=self.step(),
            legal=tuple(self.legal_moves()),
            region_list=tuple(self.regions()),
            mismatches=tuple(board_mismatches(self.board)),
            holes=tuple(sorted(holes(self.board, waiting))),
            routines=self.routines,
            max_routines=self.max_routines,
            winning_score=self.winning_score,
            streaks=self.streaks,
            position=self,
        )


def _without(hand: tuple[Tile, ...], tile: Tile) -> tuple[Tile, ...]:
    index = hand.index(tile)
    return hand[:index] + hand[index + 1 :]


# --------------------------------------------------------------------------
# Game
# --------------------------------------------------------------------------


class Mosaic(Game):
    name = "mosaic"
    #: An alteration routine is five or more small steps: each AI step stays in sight long enough to follow.
    ai_move_seconds = 0.5
    option_specs = (
        OptionSpec(
            "max_routines",
            INT,
            0,
            "end the game after N alteration routines, highest score winning (0: off)",
            minimum=0,
            maximum=100000,
        ),
    )

    def new(self, options: dict[str, Any], seats: Sequence[str], seed: int) -> MosaicState:
        return cast(MosaicState, super().new(options, seats, seed))

    def _new(self, options: dict[str, Any], seats: tuple[str, ...], seed: int) -> MosaicState:
        players = len(seats)
        return MosaicState(
            seats=seats,
            seed=seed,
            options=options,
            hands=deal(players, seed),
            streaks=(0,) * players,
        )

    def rules_text(self) -> str:
        return rules_markdown()

    def keys_text(self) -> str:
        return ""

    @staticmethod
    def tile_set(players: int) -> tuple[Tile, ...]:
        return tile_set(players)
