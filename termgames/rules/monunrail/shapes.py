"""Unrailing positions as sets of cells, for the solver (:mod:`.solver`) and its callers.

A cell is ``(column, row)``, both 0-based (``A1`` is ``(0, 0)``), on a grid of
any size: :func:`parse_shape` reads a picture, :func:`cell_name` names a cell
(``AA1`` past column Z).  Here too: the components of a position and its
moves (:func:`components`, :func:`all_moves`), the values of straight rows
(:func:`line_nimber`), and the mirror rule (:func:`mirror_wins`).
"""

from __future__ import annotations

from collections.abc import Iterable

#: A cell: ``(column, row)``, both 0-based; ``(0, 0)`` is ``A1``.
Cell = tuple[int, int]
#: A move: the removed cells, sorted.
Move = tuple[Cell, ...]


# --------------------------------------------------------------------------
# Text helpers
# --------------------------------------------------------------------------


def parse_shape(text: str) -> frozenset[Cell]:
    """The cells of a picture made of ``#`` (tile) and ``.`` (empty) rows.

    The top row comes first and its first character is ``A1``.  Trailing
    whitespace on a line and blank lines at the start and end are ignored; a
    blank line in between is an empty row.  Any other character raises
    :class:`ValueError` naming its line and column (1-based, in ``text``).
    """
    lines = text.split("\n")
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    last = len(lines)
    while last > first and not lines[last - 1].strip():
        last -= 1
    cells = set()
    for row, line in enumerate(lines[first:last]):
        for col, ch in enumerate(line.rstrip()):
            if ch == "#":
                cells.add((col, row))
            elif ch != ".":
                raise ValueError(
                    f"line {first + row + 1}, column {col + 1}: unexpected {ch!r} (use '#' for a tile, '.' for empty)"
                )
    return frozenset(cells)


def cell_name(cell: Cell) -> str:
    """``(3, 2)`` -> ``"D3"``: column letter(s) then the 1-based row."""
    col, row = cell
    if col < 0 or row < 0:
        raise ValueError(f"cell {cell!r} is off the board")
    letters = ""
    col += 1
    while col:
        col, rem = divmod(col - 1, 26)
        letters = chr(65 + rem) + letters
    return f"{letters}{row + 1}"


# --------------------------------------------------------------------------
# Straight rows: octal game 0.777
# --------------------------------------------------------------------------

_LINE = [0]


def line_nimber(n: int) -> int:
    """The nimber of a straight row of ``n`` tiles (octal game 0.777).

    Removing 1, 2 or 3 adjacent tiles leaves up to two shorter rows.  The
    sequence has no short period (none up to 2,500 for n <= 10,000), so it is
    tabulated on demand.
    """
    if n < 0:
        raise ValueError("a row cannot have a negative length")
    g = _LINE
    for k in range(len(g), n + 1):
        seen = set()
        for t in (1, 2, 3):
            rest = k - t
            if rest < 0:
                break
            for a in range(rest // 2 + 1):
                seen.add(g[a] ^ g[rest - a])
        v = 0
        while v in seen:
            v += 1
        g.append(v)
    return g[n]


# --------------------------------------------------------------------------
# Plain geometry on cell sets (for the API; the cores work on bits)
# --------------------------------------------------------------------------


def as_cells(cells: Iterable[Cell]) -> frozenset[Cell]:
    out = frozenset((int(c), int(r)) for c, r in cells)
    return out


def components(cells: frozenset[Cell]) -> list[frozenset[Cell]]:
    """Orthogonally connected components, in a deterministic order."""
    left = set(cells)
    comps = []
    for start in sorted(cells):
        if start not in left:
            continue
        left.discard(start)
        comp = [start]
        i = 0
        while i < len(comp):
            c, r = comp[i]
            i += 1
            for nb in ((c + 1, r), (c - 1, r), (c, r + 1), (c, r - 1)):
                if nb in left:
                    left.discard(nb)
                    comp.append(nb)
        comps.append(frozenset(comp))
    return comps


def all_moves(cells: frozenset[Cell]) -> list[Move]:
    out: list[Move] = []
    for c, r in cells:
        out.append(((c, r),))
        if (c + 1, r) in cells:
            out.append(((c, r), (c + 1, r)))
            if (c + 2, r) in cells:
                out.append(((c, r), (c + 1, r), (c + 2, r)))
        if (c, r + 1) in cells:
            out.append(((c, r), (c, r + 1)))
            if (c, r + 2) in cells:
                out.append(((c, r), (c, r + 1), (c, r + 2)))
    out.sort(key=lambda m: (len(m), m))
    return out


def mirror_wins(cells: Iterable[Cell]) -> bool:
    """Whether the second player wins ``cells`` by mirroring, so that its value is 0 without a search.

    That is when the position is its own half turn about the centre of its
    bounding box and no legal removal meets its own image: the second player
    then answers every removal with its image, which is disjoint from it and
    so still legal, and the position stays symmetric; she always has a move,
    so she makes the last one.  A removal lies in one row or one column.  With
    an even number of rows and of columns no row or column is its own image,
    so no removal ever meets its image.  With an odd number of rows (or
    columns), only a removal through the central cells can: the centre cell,
    or the two central cells of the middle row (column); so the condition is
    that they are not all there.  This holds for a whole position of several
    components as much as for one (the empty position is left out: it needs
    no reason).
    """
    cells = cells if isinstance(cells, (set, frozenset)) else frozenset(cells)
    if not cells:
        return False
    cols = [c for c, _ in cells]
    rows = [r for _, r in cells]
    c0, c1, r0, r1 = min(cols), max(cols), min(rows), max(rows)
    if any((c0 + c1 - c, r0 + r1 - r) not in cells for c, r in cells):
        return False
    if (c1 - c0) % 2 and (r1 - r0) % 2:  # even numbers of columns and rows
        return True
    centre = {(c, r) for c in ((c0 + c1) // 2, (c0 + c1 + 1) // 2) for r in ((r0 + r1) // 2, (r0 + r1 + 1) // 2)}
    return not centre <= cells
