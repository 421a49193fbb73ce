"""MonUnrail's game: :class:`MonUnrail` (options, supply), its states and what a seat sees.

The rules are on the board (:mod:`.board`) and the notation (:mod:`.notation`);
an Impossible call and the hints run the completion search
(:mod:`.completion`), the removal hints the solver (:mod:`.solver`, imported
when a hint first needs it: loading the rules loads no solver).  The package's
docstring (:mod:`termgames.rules.monunrail`) gives the board, the notation
and the placement rules.

What a screen gets: :class:`MonUnrailView` (perfect information, every seat
sees everything):
    ``grid`` (tile mask per cell, row-major, 0 = empty; :meth:`tile_at`,
    :meth:`tiles`), ``start_cells``, ``supply`` / ``initial_supply``
    (straights, turns, crossroads: one supply shared by both players),
    ``phase`` (``"building"``, ``"unrailing"``, ``"over"``), ``to_move``,
    ``pie_offer`` (the player to move may ``swap``), ``swapped``,
    ``opener`` (whose opening move it is after the pie decision),
    ``last_cells`` and ``last_move``, ``circuit`` (the loop's cells in order
    once complete), ``impossible`` (:class:`ImpossibleOutcome`: caller,
    completion found or None, winner), ``winner``, ``ended_by``.
    Pure helpers that never change the game: :meth:`MonUnrailView.move_problem`,
    :meth:`placement_problem`, :meth:`removal_problem` (None when the text is
    legal, else the message), :meth:`preview` (the grid after a move),
    :meth:`completes`, :meth:`tile_options` (which types fit a cell),
    :meth:`open_ends`, :meth:`unrail_cells` (solver cells for the nimber hint),
    :meth:`unrail_hint` (the nimber and the winning removals, as move texts),
    :meth:`finishing_moves` and :meth:`finishing_nimbers` (moves that complete
    the track now, with the value of the removal position they leave),
    :meth:`completions` (all ways to complete the track, when few remain).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..base import CompoundFlag, Game, OptionSpec, RuleError, State, View, Viewer, possessive, seeded_rng
from ..options import INT, SWITCH
from .board import (
    COLUMNS,
    KIND_OF_MASK,
    KIND_PLURALS,
    MASK_TYPES,
    OPTIONS,
    ROWS,
    SIDE_NAMES,
    START_CELLS,
    Cell,
    cell_name,
    cell_of,
    index_of,
    line_problem,
    name_of,
    open_end_list,
    placement_problem,
    side_rules,
    start_grid,
    trace_circuit,
)
from .completion import (
    SearchLimit,
    find_completion,
    finishing_placements,
    list_completions,
    random_placement,
    steps_towards,
)
from .notation import IMPOSSIBLE, SWAP, ParsedMove, parse_move, placement_text
from .text import RULES, draw_board

if TYPE_CHECKING:
    from .solver import Solver

DEFAULT_SUPPLY = (8, 8, 8)


# --------------------------------------------------------------------------
# View
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ImpossibleOutcome:
    """How an Impossible call ended the game."""

    #: The seat that called Impossible.
    caller: int
    #: Tiles that complete the track ((cell, type code) pairs), or None: no completion exists.
    completion: tuple[tuple[Cell, str], ...] | None
    #: The seat that won: the caller when no completion exists, else the opponent.
    winner: int


@dataclass(frozen=True)
class MonUnrailView(View):
    #: Tile mask per cell, row-major (index = row * 8 + column), 0 where empty.
    grid: tuple[int, ...] = ()
    start_cells: tuple[Cell, ...] = START_CELLS
    #: Tiles left in the shared supply: (straights, turns, crossroads).
    supply: tuple[int, int, int] = (0, 0, 0)
    initial_supply: tuple[int, int, int] = (0, 0, 0)
    #: "building", "unrailing" or "over".
    phase: str = "building"
    #: The player to move may answer the opening move with ``swap`` (the pie rule).
    pie_offer: bool = False
    #: The second player took the opening move by the pie rule.
    swapped: bool = False
    #: The seat whose opening move it is: the first seat, or the second after a swap (None before any move).
    opener: int | None = None
    #: The cells the last move placed or removed (its canonical text in ``last_move``).
    last_cells: tuple[Cell, ...] = ()
    last_move: str = ""
    #: The complete circuit in order from D4 (crossroads twice), once the track is complete.
    circuit: tuple[Cell, ...] = ()
    impossible: ImpossibleOutcome | None = None
    winner: int | None = None
    #: How the game ended: "" while it runs, "impossible" or "unrailed".
    ended_by: str = ""

    # -- cells ---------------------------------------------------------------

    def tile_at(self, cell: Cell) -> str | None:
        """The tile type code on ``cell`` (``"S-v"``, ``"X"``, ...), or None when empty."""
        mask = self.grid[index_of(cell)]
        return MASK_TYPES[mask] if mask else None

    def tiles(self) -> dict[Cell, str]:
        return {cell_of(i): MASK_TYPES[m] for i, m in enumerate(self.grid) if m}

    def is_start(self, cell: Cell) -> bool:
        return cell in self.start_cells

    def unrail_cells(self) -> frozenset[Cell]:
        """The tiles left, as solver cells (the position of the removal phase)."""
        return frozenset(cell_of(i) for i, m in enumerate(self.grid) if m)

    def open_ends(self) -> list[tuple[Cell, str]]:
        """Track ends pointing into empty cells: (cell, side name)."""
        return [(cell_of(i), SIDE_NAMES[s]) for i, s in open_end_list(self.grid)]

    def supply_left(self) -> dict[str, int]:
        return dict(zip(KIND_PLURALS, self.supply))

    def tile_options(self, cell: Cell, move_text: str = "") -> list[str]:
        """Tile types that could go on empty ``cell`` as its neighbours stand (plus the tiles of a tentative
        placement ``move_text``, if given) and the supply allows.  Empty list if the cell is taken."""
        grid = list(self.grid)
        stock = list(self.supply)
        if move_text.strip():
            try:
                parsed = parse_move(move_text)
            except RuleError:
                parsed = ParsedMove("place")
            for index, mask in parsed.items if parsed.kind == "place" else ():
                if not grid[index] and index != index_of(cell):
                    grid[index] = mask
                    stock[KIND_OF_MASK[mask]] -= 1
        index = index_of(cell)
        if grid[index]:
            return []
        required, forbidden = side_rules(grid, index)
        return [MASK_TYPES[m] for m in OPTIONS[required][forbidden] if stock[KIND_OF_MASK[m]] > 0]

    # -- checking tentative moves -----------------------------------------

    def move_problem(self, move_text: str) -> str | None:
        """Why ``move_text`` would be refused for the player to move now, or None if it is legal."""
        if self.over:
            return "the game is over"
        try:
            parsed = parse_move(move_text)
        except RuleError as error:
            return str(error)
        return _move_problem(self.phase, self.grid, self.supply, self.pie_offer, parsed)

    def placement_problem(self, move_text: str) -> str | None:
        """Like :meth:`move_problem`, for a placement; never applies anything."""
        return self.move_problem(move_text)

    def removal_problem(self, move_text: str) -> str | None:
        """Like :meth:`move_problem`, for a removal; never applies anything."""
        return self.move_problem(move_text)

    def preview(self, move_text: str) -> tuple[int, ...]:
        """The grid after a legal placement or removal (RuleError if it is not legal)."""
        problem = self.move_problem(move_text)
        if problem:
            raise RuleError(problem)
        parsed = parse_move(move_text)
        grid = list(self.grid)
        for index, mask in parsed.items:
            grid[index] = mask
        return tuple(grid)

    def completes(self, move_text: str) -> bool:
        """Whether a legal placement would complete the track (False for anything else)."""
        if self.phase != "building" or self.move_problem(move_text):
            return False
        parsed = parse_move(move_text)
        return parsed.kind == "place" and trace_circuit(self.preview(move_text)) is not None

    # -- hints ---------------------------------------------------------------

    def finishing_moves(self) -> list[str]:
        """Placements that complete the track now (only a few can exist: at most 3 tiles in a line)."""
        if self.phase != "building":
            return []
        return [placement_text(items) for items in finishing_placements(self.grid, self.supply)]

    def finishing_nimbers(self, solver: Solver | None = None) -> list[tuple[str, int]]:
        """Each finishing placement with the nimber of the removal position it leaves.

        The other player removes first after a completion, so a finishing
        move worth 0 wins for the player who makes it.  ``solver`` is a
        :class:`~termgames.rules.monunrail.solver.Solver` (a new one if None).
        """
        if solver is None:
            from .solver import Solver  # here, not at the top: the rules load no solver until a hint asks

            solver = Solver()

        result = []
        for items in finishing_placements(self.grid, self.supply) if self.phase == "building" else []:
            cells = set(self.unrail_cells()) | {cell_of(i) for i, _ in items}
            result.append((placement_text(items), solver.nimber(cells)))
        return result

    def unrail_hint(self, solver: Solver | None = None) -> tuple[int, list[str]]:
        """The nimber of the removal position and the removals that leave 0 (none when it is 0).

        Whole tracks can take seconds in the pure Python solver: run it off
        the UI thread.  ``solver`` as for :meth:`finishing_nimbers`.
        """
        if solver is None:
            from .solver import Solver

            solver = Solver()
        cells = self.unrail_cells()
        if not cells:
            return 0, []
        winning = solver.winning_moves(cells)
        return solver.nimber(cells), [
            ",".join(cell_name(c) for c in sorted(move, key=lambda c: (c[1], c[0]))) for move in winning
        ]

    def completions(self, limit: int = 20, node_limit: int = 20_000) -> list[str] | None:
        """Every way to complete the track from here (placement texts of any length), or None when there
        are more than ``limit`` or the search would take longer than ``node_limit`` nodes."""
        if self.phase != "building":
            return []
        try:
            found = list_completions(self.grid, self.supply, limit, node_limit)
        except SearchLimit:
            return None
        return None if found is None else [placement_text(items) for items in found]

    # -- output --------------------------------------------------------------

    def board_json(self) -> dict[str, Any]:
        outcome = None
        if self.impossible is not None:
            completion = self.impossible.completion
            outcome = {
                "caller": self.players[self.impossible.caller],
                "completion": None
                if completion is None
                else {cell_name(cell): code for cell, code in completion},
                "winner": self.players[self.impossible.winner],
            }
        return {
            "columns": COLUMNS,
            "rows": ROWS,
            "tiles": {
                cell_name(cell): code for cell, code in sorted(self.tiles().items(), key=lambda x: (x[0][1], x[0][0]))
            },
            "start": [cell_name(cell) for cell in self.start_cells],
            "supply": self.supply_left(),
            "phase": self.phase,
            "pie_offer": self.pie_offer,
            "swapped": self.swapped,
            "opener": None if self.opener is None else self.players[self.opener],
            "last_move": self.last_move,
            "last_cells": [cell_name(cell) for cell in self.last_cells],
            "complete": bool(self.circuit),
            "impossible": outcome,
            "winner": None if self.winner is None else self.players[self.winner],
        }

    def board_text(self, ascii: bool = False) -> str:
        """The board, three characters a cell; box-drawing lines, or plain ASCII with ``ascii=True``."""
        completion = self.impossible.completion if self.impossible is not None else None
        return draw_board(self.grid, self.start_cells, self.supply, completion, self.status, ascii)


def _move_problem(
    phase: str, grid: Sequence[int], supply: Sequence[int], pie_offer: bool, parsed: ParsedMove
) -> str | None:
    if phase == "over":
        return "the game is over"
    if parsed.kind == SWAP:
        if phase == "building" and pie_offer:
            return None
        return "swap is only allowed as the answer to the opening move (the pie rule)"
    if parsed.kind == IMPOSSIBLE:
        if phase == "building":
            return None
        return "Impossible can only be called while the track is being built"
    if parsed.kind == "place":
        if phase != "building":
            return "the track is complete: remove 1 to 3 tiles in a line, e.g. D3,E3 (no tile types)"
        return placement_problem(grid, supply, parsed.items)
    # removal
    if phase != "unrailing":
        first = name_of(parsed.items[0][0])
        return f"the track is still being built: place tiles, e.g. {first}:S-h, or call impossible"
    if not 1 <= len(parsed.items) <= 3:
        return f"remove 1 to 3 tiles, not {len(parsed.items)}"
    for index, _ in parsed.items:
        if not grid[index]:
            return f"{name_of(index)} holds no tile"
    return line_problem(parsed.indexes)


# --------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class MonUnrailState(State):
    grid: tuple[int, ...] = ()
    supply: tuple[int, int, int] = (0, 0, 0)
    initial_supply: tuple[int, int, int] = (0, 0, 0)
    phase: str = "building"
    turn: int = 0
    pie_offer: bool = False
    swapped: bool = False
    opener: int | None = None
    last_cells: tuple[int, ...] = ()
    last_move: str = ""
    last_action: str = ""
    circuit: tuple[int, ...] = ()
    impossible: ImpossibleOutcome | None = None
    winner: int | None = None
    ended_by: str = ""

    # -- queries -----------------------------------------------------------

    def to_move(self) -> tuple[int, ...]:
        return () if self.phase == "over" else (self.turn,)

    def is_over(self) -> bool:
        return self.phase == "over"

    def scores(self) -> tuple[float, ...]:
        if self.winner is None:
            return (0.0, 0.0)
        return tuple(1.0 if seat == self.winner else 0.0 for seat in range(2))

    def setup_drawn(self) -> str | None:
        """A random supply as its counts, ``S,T,C``."""
        return ",".join(map(str, self.initial_supply)) if self.options.get("random_supply") else None

    def random_move(self, seat: int, rng: random.Random) -> str:
        if self.phase == "building":
            if self.pie_offer and rng.random() < 0.25:
                return SWAP
            # Random tiles alone seldom close a circuit: mostly follow a completion, tiles of one line at a time.
            if rng.random() < 0.8:
                try:
                    completion = find_completion(self.grid, self.supply, node_limit=2_000)
                except SearchLimit:
                    completion = None
                if completion:
                    steps = steps_towards(self.grid, self.supply, completion)
                    if steps:
                        return placement_text(rng.choice(steps))
            placement = random_placement(self.grid, self.supply, rng)
            return IMPOSSIBLE if placement is None else placement_text(placement)
        lines: list[tuple[int, ...]] = []
        for index, mask in enumerate(self.grid):
            if not mask:
                continue
            column, row = cell_of(index)
            for step_column, step_row in ((1, 0), (0, 1)):
                line: list[int] = []
                for k in range(3):
                    cell = (column + step_column * k, row + step_row * k)
                    if not (cell[0] < COLUMNS and cell[1] < ROWS and self.grid[index_of(cell)]):
                        break
                    line.append(index_of(cell))
                    lines.append(tuple(line))
        return ParsedMove("remove", tuple((index, 0) for index in rng.choice(lines))).text()

    def normalise_move(self, seat: int, move: str) -> str:
        try:
            return parse_move(move).text()
        except RuleError:
            return move.strip()

    # -- moves -------------------------------------------------------------

    def _apply(self, seat: int, move: str) -> MonUnrailState:
        parsed = parse_move(move)
        problem = _move_problem(self.phase, self.grid, self.supply, self.pie_offer, parsed)
        if problem:
            raise RuleError(problem)
        who = self.seats[seat]
        other = 1 - seat
        text = parsed.text()
        base = replace(self, ply=self.ply + 1, pie_offer=False, last_move=text)
        if parsed.kind == SWAP:
            return replace(
                base,
                turn=other,
                swapped=True,
                opener=seat,
                last_cells=(),
                last_action=(
                    f"{who} swapped: the opening move is now {possessive(who)} and {self.seats[other]} moves again"
                ),
            )
        if parsed.kind == IMPOSSIBLE:
            found = find_completion(self.grid, self.supply)
            if found is None:
                winner = seat
                action = f"{who} called Impossible: no completion exists, {who} wins"
                completion = None
            else:
                winner = other
                completion = tuple((cell_of(i), MASK_TYPES[m]) for i, m in found)
                action = (
                    f"{who} called Impossible, but {placement_text(found)} completes the track: "
                    f"{self.seats[other]} wins"
                )
            return replace(
                base,
                phase="over",
                winner=winner,
                ended_by="impossible",
                impossible=ImpossibleOutcome(seat, completion, winner),
                last_cells=(),
                last_action=action,
            )
        if parsed.kind == "place":
            grid = list(self.grid)
            supply = list(self.supply)
            for index, mask in parsed.items:
                grid[index] = mask
                supply[KIND_OF_MASK[mask]] -= 1
            circuit = trace_circuit(grid)
            first_move = self.opener is None
            if circuit is not None:
                action = f"{who} placed {text} and completed the track: {self.seats[other]} removes first"
            else:
                action = f"{who} placed {text}"
            return replace(
                base,
                grid=tuple(grid),
                supply=(supply[0], supply[1], supply[2]),
                turn=other,
                phase="unrailing" if circuit is not None else "building",
                pie_offer=first_move and circuit is None,
                opener=seat if first_move else self.opener,
                circuit=circuit or (),
                last_cells=parsed.indexes,
                last_action=action,
            )
        # removal
        grid = list(self.grid)
        for index, _ in parsed.items:
            grid[index] = 0
        if not any(grid):
            return replace(
                base,
                grid=tuple(grid),
                phase="over",
                winner=seat,
                ended_by="unrailed",
                last_cells=parsed.indexes,
                last_action=f"{who} removed {text}, the last of the track: {who} wins",
            )
        return replace(
            base,
            grid=tuple(grid),
            turn=other,
            last_cells=parsed.indexes,
            last_action=f"{who} removed {text}",
        )

    # -- view --------------------------------------------------------------

    def status_text(self) -> str:
        name = self.seats[self.turn]
        if self.phase == "over":
            winner = self.seats[self.winner] if self.winner is not None else "nobody"
            if self.ended_by == "impossible" and self.impossible is not None:
                caller = self.seats[self.impossible.caller]
                if self.impossible.completion is None:
                    return f"Game over: {winner} wins (called Impossible and no completion exists)"
                return f"Game over: {winner} wins ({caller} called Impossible but the track can be completed)"
            return f"Game over: {winner} wins (removed the last tile)"
        if self.phase == "unrailing":
            left = sum(1 for m in self.grid if m)
            return f"{name} to remove 1 to 3 tiles in a line ({left} left)"
        if self.pie_offer:
            opener = possessive(self.seats[1 - self.turn])
            return f"{name} to place tiles, call impossible, or swap (take {opener} opening move)"
        return f"{name} to place 1 to 3 tiles or call impossible"

    def view(self, viewer: Viewer) -> MonUnrailView:
        return MonUnrailView(
            game="monunrail",
            viewer=viewer,
            players=self.seats,
            to_move=self.to_move(),
            over=self.is_over(),
            scores=self.scores(),
            winners=self.winners(),
            status=self.status_text(),
            last_action=self.last_action,
            grid=self.grid,
            supply=self.supply,
            initial_supply=self.initial_supply,
            phase=self.phase,
            pie_offer=self.pie_offer,
            swapped=self.swapped,
            opener=self.opener,
            last_cells=tuple(cell_of(i) for i in self.last_cells),
            last_move=self.last_move,
            circuit=tuple(cell_of(i) for i in self.circuit),
            impossible=self.impossible,
            winner=self.winner,
            ended_by=self.ended_by,
        )


# --------------------------------------------------------------------------
# Game
# --------------------------------------------------------------------------

#: The fewest turns that can close a track: a circuit has four corners and only turns make them.
MIN_TURNS = 4


def draw_random_supply(seed: int) -> tuple[int, int, int]:
    """Counts drawn from the seed (ruling 2): 4-12 straights, 4-12 turns, 1-6 crossroads, at least 16 in all."""
    rng = seeded_rng(seed, "monunrail-supply")
    while True:
        counts = (rng.randint(4, 12), rng.randint(4, 12), rng.randint(1, 6))
        if sum(counts) >= 16:
            return counts


class MonUnrail(Game):
    name = "monunrail"
    option_specs = (
        OptionSpec("straights", INT, DEFAULT_SUPPLY[0], "straights in the supply", minimum=0, maximum=99),
        # Fewer than MIN_TURNS can never close a track: the first player would win at once by Impossible.
        OptionSpec(
            "turns", INT, DEFAULT_SUPPLY[1], "turns in the supply (a track needs 4)", minimum=MIN_TURNS, maximum=99
        ),
        OptionSpec("crossroads", INT, DEFAULT_SUPPLY[2], "crossroads in the supply", minimum=0, maximum=99),
        OptionSpec(
            "random_supply", SWITCH, False, "draw the supply counts from the seed",
            overrides=("straights", "turns", "crossroads"),
        ),
    )
    # ``--supply S,T,C`` sets the three counts in one flag (ruling 2).
    compound_flags = (
        CompoundFlag(
            "--supply", "S,T,C", "straights, turns and crossroads in the supply",
            fills=("straights", "turns", "crossroads"), example="8,8,8",
        ),
    )

    def describe_options(self, options: dict[str, Any]) -> str:
        if options.get("random_supply"):
            return "random supply"
        counts = tuple(options.get(k, d) for k, d in zip(("straights", "turns", "crossroads"), DEFAULT_SUPPLY))
        return "supply {} straights, {} turns, {} crossroads".format(*counts)

    def _new(self, options: dict[str, Any], seats: tuple[str, ...], seed: int) -> MonUnrailState:
        if options["random_supply"]:
            supply = draw_random_supply(seed)
        else:
            supply = (options["straights"], options["turns"], options["crossroads"])
        return MonUnrailState(
            seats=seats, seed=seed, options=options, grid=start_grid(), supply=supply, initial_supply=supply
        )

    def rules_text(self) -> str:
        return RULES

