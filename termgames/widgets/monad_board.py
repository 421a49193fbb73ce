"""Monad's hex map as one Line-API widget: staggered rows, layers, queued commands as arrows.

The widget draws from the board's JSON shape (``board_json``: rows of cell
dicts naming owners and hive owners by player name), so the game screen, the
replay and the live spectator feed it the same thing.  Every cell is one
fixed-width slot of text on its row's line; even rows are shifted right by
one character (ruling 1: an even row's NE/NW neighbours are x+1/x above).

A cell shows, colour aside (colour is never the only signal):

- units: the owner's letter (``a`` ``b`` ``c`` ``d`` by seat) and the count,
  ``++`` for 100 or more when the slot has room for two digits only;
- a hive: its owner's capital letter (``A`` ...), with the units there;
- an obstacle: ``###``;
- an empty cell: its resource level (`` .:*``), or the exact resources with
  the units layer off;
- a queued command of the human seat: an arrow (ASCII: the direction's
  letters) or ``$``/``+`` for MINE/BUILD, then the units it takes;
- the analysis's better commands (a replay, ``suggest``): the same marks in
  reverse video, named in the legend.

Layers (toggled by the screens): ``units``, ``resources``, ``hives``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.style import Style
from textual.geometry import Region

from ..rules.base import RuleError, possessive
from ..rules.monad.geometry import neighbour
from ..rules.monad.notation import Command, parse_commands
from ..rules.numbers import short_count as short_count  # its home before counts had one of their own
from .board import BoardWidget, Piece
from .palette import style

LAYERS = ("units", "resources", "hives")

#: The cursor key that points the same way as a command direction (ruling 1's neighbours).
DIRECTION_KEYS = {"W": "left", "E": "right", "NW": "up_left", "NE": "up_right", "SW": "down_left", "SE": "down_right"}
KEY_DIRECTIONS = {key: direction for direction, key in DIRECTION_KEYS.items()}

ARROWS = {"E": "→", "W": "←", "NE": "↗", "NW": "↖", "SE": "↘", "SW": "↙"}
ASCII_ARROWS = {"E": ">", "W": "<", "NE": "NE", "NW": "NW", "SE": "SE", "SW": "SW"}

#: Queued MINE and BUILD (not letters: those name the seats).
QUEUED_MARKS = {"MINE": "$", "BUILD": "+"}

#: Columns of the row numbers at the map's left (two digits and a space: maps have up to 60 rows).
ROW_LABEL_WIDTH = 3

RESOURCE_LEVELS = " .:*"  # 0, 1-16, 17-33, 34+ (cells start with 0-50)


def seat_letter(seat: int) -> str:
    return "abcd"[seat % 4]


def step_cell(x: int, y: int, key: str, width: int, height: int) -> tuple[int, int] | None:
    """Where a cursor key leads from (x, y): a hex neighbour, or straight up/down a row; None off the map."""
    if key in KEY_DIRECTIONS:
        return neighbour(x, y, KEY_DIRECTIONS[key], width, height)
    if key in ("up", "down"):
        y += -1 if key == "up" else 1
        return (x, y) if 0 <= y < height else None
    return None


def count_text(units: int, room: int) -> str:
    """``units`` in ``room`` characters, ``++`` when it has more digits (never writes out a huge number)."""
    return str(units) if units < 10**room else "+" * room


def resource_level(resources: int) -> str:
    if resources <= 0:
        return RESOURCE_LEVELS[0]
    return RESOURCE_LEVELS[min(3, 1 + resources * 3 // 51)]


class MonadBoard(BoardWidget):
    """The map.  ``show`` takes a view with ``board_json()`` (and ``players``), or a board_json dict."""

    DEFAULT_CSS = """
    MonadBoard { padding: 0; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.board: dict[str, Any] | None = None
        self.players: tuple[str, ...] = ()
        self.shown_layers: set[str] = set(LAYERS)
        self.queued: list[Command] = []
        #: The analysis's better commands (a replay), those on the map: drawn as a queue is, in reverse video.
        self.suggested: list[Command] = []
        #: Where the last drawing put them (content coordinates), for scrolling a big map to them.
        self._suggestion_region: Region | None = None
        #: Columns the screen leaves the map beside it (the side panel), for choosing the cell width.
        self.reserved_width = 20
        #: Cell texts already worked out, for ``_cell_cache_key`` (most cells look like many others).
        self._cell_cache: dict[tuple[Any, ...], tuple[str, Style]] = {}
        self._cell_cache_key: tuple[Any, ...] = ()

    # -- attributes down ---------------------------------------------------

    def show(self, view: Any) -> None:
        if view is None:
            self.board = None
        else:
            board = view if isinstance(view, dict) else view.board_json()
            self.board = board
            names = getattr(view, "players", None)
            self.players = tuple(names) if names else tuple(board.get("resources", {}))
        super().show(view)

    def set_players(self, names: Sequence[str]) -> None:
        self.players = tuple(names)
        self.redraw()

    def set_queue(self, queued: Iterable[Command]) -> None:
        self.queued = list(queued)
        self.redraw()

    def suggest(self, move: str | None) -> bool:
        """Mark the analysis's better commands (``X,Y N MOVE DIR; ...``) on their cells, or take them off with None;
        False when none of them can be drawn (a pass, a text that is no commands, cells off the map)."""
        commands: list[Command] = []
        if move is not None:
            try:
                commands = parse_commands(move)
            except RuleError:
                commands = []
            width, height = self.map_size
            commands = [c for c in commands if 0 <= c.x < width and 0 <= c.y < height]
        if commands != self.suggested:
            self.suggested = commands
            if self.board is not None:
                self.redraw()
        return move is None or bool(commands)

    def toggle_layer(self, layer: str) -> bool:
        """Turn a layer on or off; True if it is now on."""
        if layer in self.shown_layers:
            self.shown_layers.discard(layer)
        else:
            self.shown_layers.add(layer)
        self.redraw()
        return layer in self.shown_layers

    # -- geometry ----------------------------------------------------------

    @property
    def map_size(self) -> tuple[int, int]:
        if self.board is None:
            return 0, 0
        return int(self.board["width"]), int(self.board["height"])

    def slot(self) -> tuple[int, bool]:
        """(characters a cell, labels?): roomy cells when the terminal has the room for the map with its labels.

        A map with a cursor has its labels always: one bigger than its area scrolls under them, kept at the
        area's edges (``label_lines``, ``label_columns``) as the other games' are.  A map without one (a
        replay, a watched match: the arrows step turns, they do not scroll) has them only where it fits whole
        with them, as the 20x20 map does not beside the panel at 80 columns.
        """
        width, height = self.map_size
        if self.is_attached:
            screen_width, screen_height = self.app.size
            narrow = self.screen.has_class("narrow")
        else:
            screen_width, screen_height, narrow = 80, 24, False
        room = screen_width - 2 - (0 if narrow else self.reserved_width)
        step = 4 if width * 4 + 2 + ROW_LABEL_WIDTH <= room else 3
        fits = width * step + 1 + ROW_LABEL_WIDTH <= room and height + 6 <= screen_height - (11 if narrow else 0)
        return step, self.interactive or fits

    def whole_columns(self) -> int:
        """Columns the whole map takes with its labels, as last drawn."""
        return self._width + self.styles.padding.left + self.styles.padding.right

    def initial_cursor(self) -> int | None:
        if self.board is None:
            return None
        width, height = self.map_size
        names = self.players
        me = getattr(self.view, "viewer", None)
        if isinstance(me, int) and 0 <= me < len(names):
            # The human seat starts on its own units (its start cell).
            for y, row in enumerate(self.board["cells"]):
                for x, cell in enumerate(row):
                    if cell.get("owner") == names[me]:
                        return y * width + x
        return (height // 2) * width + width // 2

    def cursor_valid(self, cursor: int) -> bool:
        width, height = self.map_size
        return 0 <= cursor < width * height

    def cursor_xy(self) -> tuple[int, int] | None:
        if self.cursor is None or self.board is None:
            return None
        width, _height = self.map_size
        return self.cursor % width, self.cursor // width

    def cell(self, x: int, y: int) -> dict[str, Any]:
        assert self.board is not None
        return self.board["cells"][y][x]

    def move_cursor(self, direction: str) -> None:
        spot = self.cursor_xy()
        if spot is None:
            return
        width, height = self.map_size
        target = step_cell(*spot, direction, width, height)
        if target is not None:
            self.cursor = target[1] * width + target[0]
            self.redraw()

    def cursor_name(self) -> str:
        spot = self.cursor_xy()
        return f"{spot[0]},{spot[1]}" if spot else ""

    def cursor_detail(self, room: int | None = None) -> str:
        """The cursor's cell in words; in the panel's abbreviations (``20r``) where the words pass ``room``
        columns (the line under the map at 50 columns cut a hive's cell mid-word)."""
        spot = self.cursor_xy()
        if spot is None or not self.interactive:
            return ""
        viewer = getattr(self.view, "viewer", None)
        reader = self.players[viewer] if isinstance(viewer, int) and 0 <= viewer < len(self.players) else None
        detail = f"{spot[0]},{spot[1]}: {describe_cell(self.cell(*spot), reader)}"
        if room is not None and len(detail) > room:
            detail = f"{spot[0]},{spot[1]}: {describe_cell(self.cell(*spot), reader, short=True)}"
        return detail

    def seat_of(self, name: str | None) -> int | None:
        if name is None:
            return None
        try:
            return self.players.index(name)
        except ValueError:
            return None

    def legend(self) -> list[Piece]:
        pieces: list[Piece] = []
        for seat, name in enumerate(self.players):
            look = style(self.palette.seat(seat), bold=True)
            pieces.append((f"{seat_letter(seat)} {seat_letter(seat).upper()}", look))
            pieces.append((f" {name}\n", style()))
        pieces.append(("a/A units/hive ### rock\n . : * resources", style(self.palette.label)))
        arrow = "NE" if self.ascii_only else "↗"
        if self.queued:
            pieces.append((f"\n{arrow} move $ mine + build", style(self.palette.warn)))
        if self.suggested:
            pieces.append(("\n", style()))
            pieces.append((f"{arrow} $ +", self.suggestion_look()))
            pieces.append((" better commands", style()))
        return pieces

    def suggestion_region(self) -> Region | None:
        return self._suggestion_region if self.suggested else None

    def suggestion_look(self) -> Style:
        """The better commands' look: reverse video, in every palette (never colour alone)."""
        return style(self.palette.warn, bold=True, reverse=True)

    # -- drawing -----------------------------------------------------------

    def cell_text(self, cell: dict[str, Any], room: int) -> tuple[str, Style]:
        """The text (``room`` characters) and look of one cell without cursor or queue."""
        palette = self.palette
        if cell.get("obstacle"):
            return "#" * room, style(palette.label, dim=palette.label is None)
        hive_seat = self.seat_of(cell.get("hive")) if "hives" in self.shown_layers else None
        owner = self.seat_of(cell.get("owner"))
        units = int(cell.get("units", 0) or 0)
        if hive_seat is not None:
            count = count_text(units, room - 1) if units and "units" in self.shown_layers else ""
            text = seat_letter(hive_seat).upper() + count
            return text.ljust(room), style(palette.seat(hive_seat), palette.highlight_bg, bold=True, underline=True)
        if owner is not None and units and "units" in self.shown_layers:
            text = seat_letter(owner) + count_text(units, room - 1)
            return text.ljust(room), style(palette.seat(owner), bold=True)
        if "resources" not in self.shown_layers:
            return " " * room, style()
        resources = int(cell.get("resources", 0) or 0)
        if "units" not in self.shown_layers:
            return str(resources).rjust(room - 1) + " ", style(palette.empty, dim=palette.empty is None)
        return " " + resource_level(resources) + " " * (room - 2), style(palette.empty, dim=palette.empty is None)

    def queued_text(self, commands: list[Command], room: int) -> str:
        action, direction = commands[-1].action, commands[-1].direction
        total = sum(command.n for command in commands)
        if action == "MOVE" and direction:
            mark = (ASCII_ARROWS if self.ascii_only else ARROWS).get(direction, "?")
        else:
            mark = QUEUED_MARKS[action]
        if len(commands) > 1:
            mark = mark[:1] + "*" if len(mark) > 1 else mark
        return (mark + count_text(total, max(1, room - len(mark))))[:room].ljust(room)

    def build_lines(self) -> list[list[Piece]]:
        board = self.board
        assert board is not None
        width, height = self.map_size
        step, labels = self.slot()
        room = step if step == 3 else step - 1
        shift = 1 if step == 3 else 2
        left = ROW_LABEL_WIDTH if labels else 0
        self.label_lines, self.label_columns = (1, ROW_LABEL_WIDTH) if labels else (0, 0)
        palette = self.palette
        label_look = style(palette.label, dim=palette.label is None)
        queue_look = style(palette.warn, bold=True, underline=True)
        by_cell: dict[tuple[int, int], list[Command]] = {}
        for command in self.queued:
            by_cell.setdefault((command.x, command.y), []).append(command)
        suggested: dict[tuple[int, int], list[Command]] = {}
        for command in self.suggested:
            suggested.setdefault((command.x, command.y), []).append(command)
        suggestion_look = self.suggestion_look()
        look_key = (self.palette_name, frozenset(self.shown_layers), self.players)
        if look_key != self._cell_cache_key:
            self._cell_cache, self._cell_cache_key = {}, look_key
        cache = self._cell_cache
        lines: list[list[Piece]] = []
        if labels:
            marks = [" "] * (left + width * step + shift)
            for x in range(0, width, 5):
                for offset, char in enumerate(str(x)):
                    if left + x * step + shift + offset < len(marks):
                        marks[left + x * step + shift + offset] = char
            lines.append([("".join(marks).rstrip(), label_look)])
        self._cursor_box = None
        marked: list[Region] = []
        spot = self.cursor_xy() if self.interactive and labels else None
        for y in range(height):
            pieces: list[Piece] = []
            if labels:
                pieces.append((f"{y:>{ROW_LABEL_WIDTH - 1}} ", label_look))
            offset = shift if y % 2 == 0 else 0
            if offset:
                pieces.append((" " * offset, style()))
            row = board["cells"][y]
            for x in range(width):
                commands = by_cell.get((x, y))
                better = suggested.get((x, y))
                if commands:
                    text, look = self.queued_text(commands, room), queue_look
                elif better:
                    text, look = self.queued_text(better, room), suggestion_look
                    marked.append(Region(left + offset + x * step, len(lines), room, 1))
                else:
                    cell = row[x]
                    key = (cell.get("obstacle"), cell.get("hive"), cell.get("owner"), cell.get("units"),
                           cell.get("resources"), room)
                    drawn = cache.get(key)
                    if drawn is None:
                        drawn = cache[key] = self.cell_text(cell, room)
                    text, look = drawn
                if self.interactive and self.cursor == y * width + x:
                    colour = look.color.name if look.color else None
                    look = style(colour, palette.cursor_bg, bold=True, reverse=palette.cursor_bg is None)
                    self._cursor_box = (len(lines), left + offset + x * step, room)
                pieces.append((text, look))
                if room < step:
                    pieces.append((" " * (step - room), style()))
            if spot is not None and spot[1] == y:
                pieces = self.mark_cursor(pieces, left + offset + spot[0] * step, room)
            lines.append(_merge(pieces))
        self._suggestion_region = Region.from_union(marked) if marked else None
        return lines

    def mark_cursor(self, pieces: list[Piece], x: int, room: int) -> list[Piece]:
        """The cursor's row with glyphs besides its colour (never the only signal): its number followed by ``>``
        (kept in sight at the map's left edge), and the cell between ``[`` ``]`` where the columns either side
        of it are blank (the cells touch: a neighbour's letters are never covered)."""
        chars = [(char, look) for text, look in pieces for char in text]
        mark = style(self.palette.warn, bold=True)
        chars[ROW_LABEL_WIDTH - 1] = (">", mark)
        for at, bracket in ((x - 1, "["), (x + room, "]")):
            # Never past the row's end: a line one column longer (the last column's "]") widened the map, which
            # the area had not taken yet when it scrolled to the cursor.
            if ROW_LABEL_WIDTH <= at < len(chars) and chars[at][0] == " ":
                chars[at] = (bracket, mark)
        return [(char, look) for char, look in chars]


def _merge(pieces: list[Piece]) -> list[Piece]:
    """Neighbouring pieces of one look become one (fewer segments to draw)."""
    merged: list[Piece] = []
    for text, look in pieces:
        if merged and merged[-1][1] == look:
            merged[-1] = (merged[-1][0] + text, look)
        else:
            merged.append((text, look))
    while merged and not merged[-1][0].strip() and not merged[-1][1].bgcolor and not merged[-1][1].reverse:
        merged.pop()
    return merged


def describe_cell(cell: dict[str, Any], reader: str | None = None, short: bool = False) -> str:
    """One line about a cell, in words (the cursor line and screen readers); ``reader``: the player it speaks
    to, whose hive is "your hive" (another player's named "me" stays \"me\"'s).  ``short``: units and
    resources as the panel's totals write them (``5u``, ``20r``), for a narrow line."""
    if cell.get("obstacle"):
        return "obstacle"
    parts = []
    if cell.get("hive") is not None:
        hive = str(cell["hive"])
        whose = "your" if hive == reader else possessive(hive, addressed=True)
        production = cell.get("production", 0)
        parts.append(f"{whose} hive (prod {production})" if short else f"{whose} hive ({production} production)")
    if cell.get("owner") is not None and cell.get("units"):
        units = int(cell["units"])
        noun = "u" if short else " unit" if units == 1 else " units"
        if cell["owner"] == reader:
            parts.append(f"your {short_count(units)}{noun}")
        else:
            parts.append(f"{short_count(units)}{noun} of {cell['owner']}")
    resources = cell.get("resources", 0)
    parts.append(f"{resources}r" if short else f"{resources} resources")
    return ", ".join(parts)
