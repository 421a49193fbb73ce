"""MonUnrail as text: its rules (``termgames rules monunrail``, the help screen) and its board drawn in
characters (``termgames show``)."""

from __future__ import annotations

from collections.abc import Sequence

from .board import COLUMN_LETTERS, COLUMNS, MASK_TYPES, ROWS, Cell, cell_name

RULES = """\
# MonUnrail

*ISamEI, for the ORG Genius Invitational. Two players.*

The players first **build** one railway circuit together, then **unrail**
it. Whoever removes the last tile wins.

## Building the track

The board has columns A-H and rows 1-7 (A1 top left). Two vertical straights
stand at D4 and E4 from the start. One supply of tiles, visible to both
players, is shared: straights, turns and crossroads, in any rotation.

On your turn either **place** tiles or call **Impossible**.

* Place **1 to 3 tiles** on empty cells in a **line** (one row or column,
  side by side), at least one of them next to a tile already on the board.
* Touching sides must agree: track meets track and blank meets blank, the new
  tiles among themselves too. No track may point off the board.
  Pieces of track may stay unconnected until the circuit is complete.
* The track is **complete** when every tile on the board lies on one closed
  circuit through both starting tiles, every crossroads passed on both of
  its bars (going straight across). Completing it ends your turn, and the
  unrailing begins with your opponent.
* **Impossible**: if you believe the track can no longer be completed, call
  it. An exhaustive search then decides whether your opponent could complete
  it with the remaining supply (any number of tiles). If not, you win; if
  so, your opponent wins, and the completion found is shown.

**Pie rule**: after the first move of the game, the second player may
`swap`: the opening move becomes theirs and the first player moves again.

## Unrailing

Take turns removing **1 to 3 tiles** that are side by side in one row or
column of the board (tile types and track no longer matter; the starting
tiles go too). Whoever removes the **last tile wins**. Impossible can no
longer be called.

## Notation

| move | example |
|---|---|
| place tiles | `C3:T-ne,D3:S-h` (1 to 3 `CELL:TYPE`, comma separated) |
| remove tiles | `D3,E3` (or `D3+E3`) |
| claim the track cannot be completed | `impossible` |
| take the opening move (pie rule) | `swap` |

Tile types: `S-h` straight west-east, `S-v` straight north-south, `T-ne`,
`T-nw`, `T-se`, `T-sw` turns joining the two sides named (north, east, south,
west), `X` crossroads. Upper or lower case; turn sides in either order
(`T-en`); the hyphen may be left out (`tne`). Moves are recorded in the
canonical form: cells top to bottom, left to right.

## Rulings you may notice

* Default supply: 8 straights, 8 turns and 8 crossroads (not counting the
  starting tiles). `--supply S,T,C` sets the counts (every circuit needs at
  least four turns); `--random-supply` draws counts from the game's seed:
  4-12 straights, 4-12 turns, 1-6 crossroads, at least 16 tiles in all. The
  remaining supply is always shown.
* Tiles of different types may be placed in one move.
* The supply is shared: either player may place any tile left.
* Impossible ends the game either way; the search places any number of
  tiles and ignores whose turn it would be.
* A swap keeps the seats' names: the first player simply moves again, and
  the game says whose opening move it now is.
"""

#: Box-drawing and ASCII pictures of each tile, three characters wide.
TILE_GLYPHS = {
    "S-h": "───", "S-v": " │ ", "T-ne": " └─", "T-nw": "─┘ ",
    "T-se": " ┌─", "T-sw": "─┐ ", "X": "─┼─",
}  # fmt: skip
TILE_GLYPHS_ASCII = {
    "S-h": "---", "S-v": " | ", "T-ne": " '-", "T-nw": "-' ",
    "T-se": " .-", "T-sw": "-. ", "X": "-+-",
}  # fmt: skip
START_GLYPHS = {"S-v": " ┃ ", "S-h": "━━━"}


def draw_board(
    grid: Sequence[int],
    start_cells: Sequence[Cell],
    supply: tuple[int, int, int],
    completion: Sequence[tuple[Cell, str]] | None,
    status: str,
    ascii: bool = False,
) -> str:
    """The board, three characters a cell; box-drawing lines, or plain ASCII with ``ascii=True``; then the
    supply, the starting tiles, the completion an Impossible call found (if any) and ``status``."""
    glyphs = TILE_GLYPHS_ASCII if ascii else TILE_GLYPHS
    empty = " . " if ascii else " · "
    lines = [("   " + "".join(f" {letter} " for letter in COLUMN_LETTERS)).rstrip()]
    for row in range(ROWS):
        parts = []
        for col in range(COLUMNS):
            mask = grid[row * COLUMNS + col]
            if not mask:
                parts.append(empty)
                continue
            code = MASK_TYPES[mask]
            if not ascii and (col, row) in start_cells and code in START_GLYPHS:
                parts.append(START_GLYPHS[code])
            else:
                parts.append(glyphs[code])
        lines.append(f"{row + 1:>2} " + "".join(parts).rstrip())
    straights, turns, crossroads = supply
    lines.append("")
    lines.append(f"Supply: {straights} straights, {turns} turns, {crossroads} crossroads")
    starts = " and ".join(cell_name(c) for c in start_cells)
    lines.append(f"Starting tiles: {starts}" + ("" if ascii else " (heavy lines)"))
    if completion:
        found = ",".join(f"{cell_name(c)}:{code}" for c, code in completion)
        lines.append(f"Completion found: {found}")
    lines.append(status)
    return "\n".join(lines)
