"""What a seat sees of Mosaic: the step the rules ask for, the view, and the view as text (``termgames show``).

Mosaic hides nothing (hands are public), so the view carries the whole position for the bots.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..base import State, View
from .tiles import SIDE_NAMES, Pos, Tile, pos_text, tile_text

BUILDING = "building"
ALTERATION = "alteration"
OVER = "over"

#: Step kinds: a tile from the hand (SH and P together), the last hand tile (P), an edge (SE), a replacement (R).
PLACE_KIND = "SH/P"
LAST_PLACE_KIND = "P"
EDGE_KIND = "SE"
REPLACE_KIND = "R"


@dataclass(frozen=True)
class MosaicStep:
    """What the rules ask now, for screens, bots and ``show --json``."""

    kind: str  # "SH/P", "P", "SE", "R", or "over"
    player: int | None
    phase: str  # "building", "alteration", "over"
    initiator: int | None = None
    #: "initiate" (the initiating player's subroutine) or "mismatch" (a mismatch subroutine); "" otherwise.
    subroutine: str = ""
    #: The edge selected in Step SE (its positions), kept until the routine ends.
    edge: tuple[Pos, Pos] | None = None
    #: Step R: the position being replaced, its target pattern and the sides that change.
    replacing: Pos | None = None
    target: Tile | None = None
    changing: tuple[int, ...] = ()
    #: Empty positions with three or four tile neighbours (positions waiting for a replacement aside).
    holes: tuple[Pos, ...] = ()
    #: Mismatch subroutine: the mismatched tiles (positions) the player must resolve.
    mismatched: tuple[Pos, ...] = ()
    #: The player to move can do nothing but pass.
    must_pass: bool = False

    def to_json(self, names: tuple[str, ...]) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "player": names[self.player] if self.player is not None else None,
            "phase": self.phase,
            "initiator": names[self.initiator] if self.initiator is not None else None,
            "subroutine": self.subroutine or None,
            "edge": [pos_text(pos) for pos in self.edge] if self.edge else None,
            "replacing": pos_text(self.replacing) if self.replacing is not None else None,
            "target": [names[c] for c in self.target] if self.target is not None else None,
            "changing": [SIDE_NAMES[side] for side in self.changing],
            "holes": [pos_text(pos) for pos in self.holes],
            "mismatched": [pos_text(pos) for pos in self.mismatched],
            "must_pass": self.must_pass,
        }


@dataclass(frozen=True)
class MosaicView(View):
    """Everything public (Mosaic hides nothing: hands are public, as in the Mac program)."""

    tiles: Mapping[Pos, Tile] = field(default_factory=dict)
    hands: tuple[tuple[Tile, ...], ...] = ()
    out_of_play: tuple[Tile, ...] = ()
    step: MosaicStep = MosaicStep(OVER, None, OVER)
    legal: tuple[str, ...] = ()
    region_list: tuple[Any, ...] = ()
    #: Every mismatched side on the board: (position, side 0-3 for N E S W).
    mismatches: tuple[tuple[Pos, int], ...] = ()
    holes: tuple[Pos, ...] = ()
    routines: int = 0
    max_routines: int = 0
    winning_score: int = 0
    #: Per seat, how many of her routine-end checks in a row reached the winning score.
    streaks: tuple[int, ...] = ()
    #: The whole position.  Mosaic has no hidden information (hands are public and nothing is
    #: drawn after the deal), so a bot may search from it instead of rebuilding it from the move log.
    #: (A ``MosaicState``: typed as any state so that this module stays below the game's.)
    position: State | None = field(default=None, compare=False, repr=False)

    def state(self) -> State:
        """The position this view shows, to apply moves to (bots' look-ahead)."""
        if self.position is None:
            raise ValueError("this view carries no position")
        return self.position

    def legal_moves(self) -> list[str]:
        return list(self.legal)

    def regions(self) -> list[Any]:
        """Every region (``board.Region``: colour, quarters, tiles, size, points), largest first."""
        return list(self.region_list)

    def board_json(self) -> dict[str, Any]:
        names = self.players
        return {
            "tiles": {pos_text(pos): [names[c] for c in tile] for pos, tile in sorted(self.tiles.items())},
            "hands": {names[seat]: [[names[c] for c in tile] for tile in hand] for seat, hand in enumerate(self.hands)},
            "step": self.step.to_json(names),
            "legal": list(self.legal),
            "routines": self.routines,
        }

    def board_text(self, ascii: bool = False) -> str:
        return board_drawing(self, ascii=ascii)


CELL_WIDTH = 5


def _cell_lines(view: MosaicView, pos: Pos, waiting: set[Pos]) -> tuple[str, str, str]:
    tile = view.tiles.get(pos)
    if tile is None:
        if pos in waiting:
            return ("     ", " [R] ", "     ")
        if pos in view.holes:
            return ("     ", "hole ", "     ")
        return ("     ", "     ", "     ")
    n, e, s, w = (str(colour + 1) for colour in tile)
    bad = {side for spot, side in view.mismatches if spot == pos}
    mark = ["!" if side in bad else " " for side in range(4)]
    return (f" {mark[0]}{n}  ", f"{w}{mark[3]} {mark[1]}{e}", f" {mark[2]}{s}  ")


def board_drawing(view: MosaicView, ascii: bool = False) -> str:
    """Tiles as 5x3 blocks with one seat number per quarter (N on top, W left, E right, S below)."""
    horizontal, vertical, corner = ("-", "|", "+") if ascii else ("─", "│", "┼")
    step = view.step
    waiting: set[Pos] = set()
    if step.edge and step.subroutine == "initiate":
        waiting = {pos for pos in step.edge if pos not in view.tiles}
    if step.replacing is not None:
        waiting.add(step.replacing)
    spots = set(view.tiles) | waiting | set(view.holes)
    lines: list[str] = []
    if spots:
        top = min(r for r, _c in spots)
        bottom = max(r for r, _c in spots)
        left = min(c for _r, c in spots)
        right = max(c for _r, c in spots)
        columns = range(left, right + 1)
        label = 5
        lines.append(" " * label + " " + "".join(f"{c:^{CELL_WIDTH}} " for c in columns).rstrip())
        rule = " " * label + corner + (horizontal * CELL_WIDTH + corner) * len(columns)
        lines.append(rule)
        for r in range(top, bottom + 1):
            blocks = [_cell_lines(view, (r, c), waiting) for c in columns]
            for part in range(3):
                prefix = f"{r:>4} " if part == 1 else " " * label
                lines.append(prefix + vertical + "".join(block[part] + vertical for block in blocks))
            lines.append(rule)
    else:
        lines.append("(the board is empty: the first tile goes at 0,0)")
    lines.append("")
    for seat, name in enumerate(view.players):
        hand = " ".join(tile_text(tile) for tile in view.hands[seat]) if view.hands else ""
        score = int(view.scores[seat]) if view.scores else 0
        lines.append(f"{seat + 1} = {name}: {score} points; hand: {hand or '(empty)'}")
    if view.out_of_play:
        lines.append("out of play: " + " ".join(tile_text(tile) for tile in view.out_of_play))
    if view.mismatches:
        listing = ", ".join(f"{pos[0]},{pos[1]} {SIDE_NAMES[side]}" for pos, side in view.mismatches)
        lines.append(f"mismatched sides (!): {listing}")
    if view.routines or step.phase == "alteration":
        limit = f" of {view.max_routines}" if view.max_routines else ""
        lines.append(
            f"alteration routines played: {view.routines}{limit}; {view.winning_score} points twice in a row win"
        )
    lines.append(view.status)
    if view.legal and not view.over:
        shown = ", ".join(view.legal[:12])
        more = f" ... ({len(view.legal)} in all)" if len(view.legal) > 12 else ""
        lines.append(f"legal: {shown}{more}")
    return "\n".join(lines)
