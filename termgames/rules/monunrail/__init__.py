"""MonUnrail (ISamEI, ORG Genius Invitational), with the MonUnrail rulings.

Two players build one railway circuit together on an 8 x 7 board from a
shared supply of tiles, then take it apart.  :data:`RULES` (``termgames rules
monunrail``) gives the rules and the rulings a player would notice.

Board
    Columns A-H, rows 1-7, ``A1`` top left.  A cell is ``(column, row)``,
    0-based, exactly as :mod:`.solver` takes it:
    ``A1`` is ``(0, 0)``, ``D4`` is ``(3, 3)``.  The two starting tiles are
    vertical straights at ``D4`` and ``E4`` (:data:`START_CELLS`).

Tiles (type codes, case-insensitive on input, canonical as written here)
    ``S-h`` straight west-east, ``S-v`` straight north-south,
    ``T-ne`` ``T-nw`` ``T-se`` ``T-sw`` turns joining the two sides named,
    ``X`` crossroads (both straights at once, crossing).  Every tile joins the
    middles of its sides; a side with no track is blank.

Moves (the notation; ``termgames move`` takes the same text)
    * building: ``C3:T-ne,D3:S-h`` -- 1 to 3 ``CELL:TYPE`` placements, comma
      separated (spaces, ``+`` and ``;`` also separate);
    * ``impossible`` -- claim that the track cannot be completed (building);
    * ``swap`` -- the pie rule: the second player, on their first turn, takes
      over the opening move and the first player moves again;
    * unrailing: ``D3,E3`` -- 1 to 3 cells to clear (``D3+E3`` works too).
    Input is case-insensitive; turn sides may come in either order (``T-en``)
    and the hyphen may be left out (``tne``, ``sh``).  The canonical text
    (what records, logs and ``show --json`` hold) lists cells top to bottom,
    left to right: ``C3:T-ne,D3:S-h``, ``D3,E3``, ``swap``, ``impossible``.

Placement rules (each refused with its own one-line message)
    1 to 3 tiles, on empty cells of the board, forming a contiguous line in
    one row or column, at least one orthogonally next to a tile already on
    the board; the supply must hold them; touching sides agree (track meets
    track, blank meets blank), including the sides between the new tiles;
    no track points off the board.  When the placement completes the track
    (every tile on one closed circuit through both starting tiles, every
    crossroads passed on both bars) the turn ends and unrailing begins: the
    other player removes first.

The package, from the bottom up (each module imports only those before it in
this list, and :mod:`termgames.rules.base`):

* :mod:`.board`: the cells and their names, the tiles, the placement rule,
  the track's open ends and its circuit;
* :mod:`.notation`: moves as text (:func:`parse_move`, :func:`placement_text`);
* :mod:`.completion`: the completion search that decides Impossible (ruling
  5), and the legal placements of a position (for bots and hints);
* :mod:`.shapes`, :mod:`.analysis`, :mod:`.cores`, :mod:`.solver`: the
  nimbers of the removal phase (positions as sets of cells, what a solve
  reports, the searches on bits, the :class:`~.solver.Solver`);
* :mod:`.text`: the rules as text, and the board drawn in characters;
* :mod:`.game`: :class:`MonUnrail`, its states and the view a seat gets (it
  calls the completion search, and the solver for the hints).

Every public name of the board, the notation, the text and the game is handed on
here: ``from termgames.rules.monunrail import MonUnrailView``.
"""

from .board import (
    CELLS,
    COLUMN_LETTERS,
    COLUMNS,
    CROSSROADS,
    KIND_NAMES,
    KIND_OF_MASK,
    KIND_PLURALS,
    MASK_TYPES,
    MASKS,
    NEIGHBOUR,
    OPPOSITE,
    OPTIONS,
    ROWS,
    SIDE_NAMES,
    SIDES,
    START_CELLS,
    START_TILES,
    STEP,
    STRAIGHT,
    TILE_MASKS,
    TILE_TYPES,
    TURN,
    Cell,
    E,
    N,
    S,
    W,
    cell_name,
    cell_of,
    exit_side,
    index_of,
    name_of,
    open_end_list,
    placement_problem,
    segments_of,
    side_rules,
    start_grid,
    trace_circuit,
    track_problem,
)
from .game import (
    DEFAULT_SUPPLY,
    MIN_TURNS,
    ImpossibleOutcome,
    MonUnrail,
    MonUnrailState,
    MonUnrailView,
    draw_random_supply,
)
from .notation import (
    IMPOSSIBLE,
    SWAP,
    ParsedMove,
    parse_cell,
    parse_move,
    placement_text,
    tile_code,
)
from .text import RULES, START_GLYPHS, TILE_GLYPHS, TILE_GLYPHS_ASCII

__all__ = [
    "CELLS",
    "COLUMNS",
    "COLUMN_LETTERS",
    "CROSSROADS",
    "DEFAULT_SUPPLY",
    "IMPOSSIBLE",
    "KIND_NAMES",
    "KIND_OF_MASK",
    "KIND_PLURALS",
    "MASKS",
    "MASK_TYPES",
    "MIN_TURNS",
    "NEIGHBOUR",
    "OPPOSITE",
    "OPTIONS",
    "ROWS",
    "RULES",
    "SIDES",
    "SIDE_NAMES",
    "START_CELLS",
    "START_GLYPHS",
    "START_TILES",
    "STEP",
    "STRAIGHT",
    "SWAP",
    "TILE_GLYPHS",
    "TILE_GLYPHS_ASCII",
    "TILE_MASKS",
    "TILE_TYPES",
    "TURN",
    "Cell",
    "E",
    "ImpossibleOutcome",
    "MonUnrail",
    "MonUnrailState",
    "MonUnrailView",
    "N",
    "ParsedMove",
    "S",
    "W",
    "cell_name",
    "cell_of",
    "draw_random_supply",
    "exit_side",
    "index_of",
    "name_of",
    "open_end_list",
    "parse_cell",
    "parse_move",
    "placement_problem",
    "placement_text",
    "segments_of",
    "side_rules",
    "start_grid",
    "tile_code",
    "trace_circuit",
    "track_problem",
]
