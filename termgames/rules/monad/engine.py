"""Monad's fast core: the map, the commands and one turn's resolution.

Pure Python, no text parsing in the hot path.  A :class:`Board` is a value
(tuples only); :func:`resolve_turn` returns a new one.  Cells are numbered
``y * width + x``; the neighbour table of each map size is computed once.
Speed matters (matches run thousands of turns a second), so a turn touches
only the occupied cells, the hives and the cells units move into.

The rules are ``rules/monad.md`` and the Monad rulings; where both are silent
the original engine (Dartmouth 18w-si32) decides, and each such decision is
written in :data:`termgames.rules.monad.RULES`.
"""

from __future__ import annotations

import random
import re
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from ..base import RuleError, seeded_rng

DIRECTIONS = ("E", "W", "NE", "NW", "SE", "SW")
ACTIONS = ("MOVE", "MINE", "BUILD")
#: Direction name -> index into a cell's neighbour tuple.
DIRECTION_INDEX = {name: index for index, name in enumerate(DIRECTIONS)}
MINE_CODE = 6
BUILD_CODE = 7
#: The direction that leads back (E <-> W, NE <-> SW, NW <-> SE), by index.
OPPOSITE = (1, 0, 5, 4, 3, 2)

HIVE_COST = 100
START_RESOURCES = 100
HIVE_DEFENCE = 10
UNIT_COST = 5  # production points per new unit
MAX_CELL_RESOURCES = 50
DEFAULT_SIZE = 20
DEFAULT_LIMIT = 2000
MAX_OBSTACLE_DENSITY = 0.5

# Ruling 1: (dx, dy) per direction, for even rows and for odd rows.
_EVEN_ROW = ((1, 0), (-1, 0), (1, -1), (0, -1), (1, 1), (0, 1))
_ODD_ROW = ((1, 0), (-1, 0), (0, -1), (-1, -1), (0, 1), (-1, 1))


def neighbour(x: int, y: int, direction: str, width: int, height: int) -> tuple[int, int] | None:
    """The cell next to (x, y) in ``direction`` (ruling 1), or None off the map."""
    dx, dy = (_ODD_ROW if y & 1 else _EVEN_ROW)[DIRECTION_INDEX[direction]]
    nx, ny = x + dx, y + dy
    if 0 <= nx < width and 0 <= ny < height:
        return nx, ny
    return None


@lru_cache(maxsize=64)
def neighbour_table(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """Per cell index, the index of its neighbour in each direction (DIRECTIONS order), -1 off the map."""
    table = []
    for y in range(height):
        deltas = _ODD_ROW if y & 1 else _EVEN_ROW
        for x in range(width):
            row = []
            for dx, dy in deltas:
                nx, ny = x + dx, y + dy
                row.append(ny * width + nx if 0 <= nx < width and 0 <= ny < height else -1)
            table.append(tuple(row))
    return tuple(table)


def hex_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Steps between two cells (even rows shifted right: 'even-r' offset coordinates)."""
    (ax, ay), (bx, by) = a, b
    aq = ax - (ay + (ay & 1)) // 2
    bq = bx - (by + (by & 1)) // 2
    dq, dr = aq - bq, ay - by
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


# --------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Command:
    """Order ``n`` units on cell (x, y) to MOVE (with a direction), MINE or BUILD."""

    x: int
    y: int
    n: int
    action: str
    direction: str | None = None
    #: The action as a number for the engine's hot loop: the direction's index for MOVE,
    #: MINE_CODE, BUILD_CODE, or -1 when the action or direction is not one of the rules'.
    code: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        action = self.action
        if action == "MOVE":
            code = DIRECTION_INDEX.get(self.direction, -1)  # type: ignore[arg-type]  # None -> -1
        else:
            code = MINE_CODE if action == "MINE" else BUILD_CODE if action == "BUILD" else -1
        object.__setattr__(self, "code", code)

    def text(self) -> str:
        if self.action == "MOVE":
            return f"{self.x},{self.y} {self.n} MOVE {self.direction}"
        return f"{self.x},{self.y} {self.n} {self.action}"

    def as_list(self) -> list[Any]:
        if self.action == "MOVE":
            return [self.x, self.y, self.n, "MOVE", self.direction]
        return [self.x, self.y, self.n, self.action]

    def __str__(self) -> str:
        return self.text()


#: Digits the notation reads in a coordinate and in a unit count.  Counts grow without bound (units
#: given BUILD on their hive multiply by about 1.2 a turn), so they get far more room; 4,000 digits
#: stay within what int() reads from text by default (4,300).
COORDINATE_DIGITS = 9
COUNT_DIGITS = 4000
LARGEST_COORDINATE = 10**COORDINATE_DIGITS - 1
LARGEST_COUNT = 10**COUNT_DIGITS - 1
_XY = rf"(-?[0-9]{{1,{COORDINATE_DIGITS}}})"
_N = rf"(-?[0-9]{{1,{COUNT_DIGITS}}})"
# [0-9], not \d: digits of other scripts are no part of the notation.
_COMMAND = re.compile(rf"{_XY}\s*,\s*{_XY}\s+{_N}\s+([A-Za-z]+)(?:\s+([A-Za-z]+))?", re.ASCII)
#: Longest move text read: a bot cannot make the engine parse megabytes.
MAX_MOVE_TEXT = 200_000


def _make_command(x: int, y: int, n: int, action: Any, direction: Any, shown: str) -> Command:
    if not isinstance(action, str) or action.upper() not in ACTIONS:
        raise RuleError(f"{shown!r}: the action is MOVE, MINE or BUILD, not {action!r}")
    action = action.upper()
    if action == "MOVE":
        if not isinstance(direction, str) or direction.upper() not in DIRECTION_INDEX:
            raise RuleError(f"{shown!r}: MOVE needs a direction, one of {' '.join(DIRECTIONS)}")
        return Command(x, y, n, "MOVE", direction.upper())
    if direction is not None and direction != "":
        raise RuleError(f"{shown!r}: {action} takes no direction")
    return Command(x, y, n, action)


#: The canonical notation (what records store), read in one pass over the whole text.
_CANONICAL = re.compile(rf"{_XY},{_XY} {_N} (?:MOVE (NE|NW|SE|SW|E|W)|(MINE|BUILD))(?:; |$)")


def _parse_canonical(text: str) -> tuple[Command, ...] | None:
    """The commands of a move in the canonical form, or None to read it the long way."""
    commands = []
    position = 0
    end = len(text)
    match = _CANONICAL.match
    while position < end:
        found = match(text, position)
        if found is None:
            return None
        x, y, n, direction, action = found.groups()
        if direction is None:
            commands.append(Command(int(x), int(y), int(n), action))
        else:
            commands.append(Command(int(x), int(y), int(n), "MOVE", direction))
        position = found.end()
    return tuple(commands)


@lru_cache(maxsize=256)  # apply and normalise_move read the same text one after the other
def _parse_cached(text: str) -> tuple[Command, ...]:
    stripped = text.strip()
    if not stripped or stripped.lower() == "pass":
        return ()
    fast = _parse_canonical(stripped)
    if fast is not None:
        return fast
    commands = []
    for part in re.split(r"[;\n]", stripped):
        part = part.strip()
        if not part:
            continue
        found = _COMMAND.fullmatch(part)
        if found is None:
            raise RuleError(f"cannot read {part[:60]!r}: a command is X,Y N MOVE DIR, X,Y N MINE or X,Y N BUILD")
        x, y, n, action, direction = found.groups()
        commands.append(_make_command(int(x), int(y), int(n), action, direction, part))
    return tuple(commands)


def parse_commands(text: str) -> list[Command]:
    """Read a move: commands separated by ``;`` (or new lines); ``pass`` or nothing is no command.

    Raises RuleError only on text that cannot be read; a command that can be
    read but not carried out is dropped when the turn resolves (ruling 4).
    """
    if len(text) > MAX_MOVE_TEXT:
        raise RuleError(f"the move is {len(text)} characters long; at most {MAX_MOVE_TEXT} are read")
    return list(_parse_cached(text))


def fits_notation(command: Command) -> bool:
    """Whether the command's numbers can be written in the notation (a record must replay)."""
    return (
        abs(command.x) <= LARGEST_COORDINATE
        and abs(command.y) <= LARGEST_COORDINATE
        and abs(command.n) <= LARGEST_COUNT
    )


def format_commands(commands: Iterable[Command]) -> str:
    """The canonical move text: ``3,4 2 MOVE NE; 5,5 1 MINE``, or ``pass`` for none."""
    text = "; ".join(command.text() for command in commands)
    return text or "pass"


def _whole(value: Any, what: str, shown: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise RuleError(f"{shown}: {what} must be a whole number, not {value!r}")
    return value


def coerce_command(obj: Any) -> Command:
    """A Command from what a bot returns: a Command, ``[x, y, n, "MOVE", "NE"]``, a dict or a string."""
    shown = repr(obj)[:60]
    if isinstance(obj, Command):
        x, y, n = (_whole(v, w, shown) for v, w in ((obj.x, "x"), (obj.y, "y"), (obj.n, "n")))
        return _make_command(x, y, n, obj.action, obj.direction, shown)
    if isinstance(obj, str):
        commands = parse_commands(obj)
        if len(commands) != 1:
            raise RuleError(f"{shown}: one command expected, found {len(commands)}")
        return commands[0]
    if isinstance(obj, (list, tuple)):
        if len(obj) not in (4, 5):
            raise RuleError(f"{shown}: a command list is [x, y, n, ACTION] or [x, y, n, \"MOVE\", DIR]")
        x, y, n = (_whole(v, w, shown) for v, w in zip(obj[:3], ("x", "y", "n")))
        return _make_command(x, y, n, obj[3], obj[4] if len(obj) == 5 else None, shown)
    if isinstance(obj, dict):
        missing = [key for key in ("x", "y", "n", "action") if key not in obj]
        if missing:
            raise RuleError(f"{shown}: a command object needs x, y, n and action (missing {', '.join(missing)})")
        x, y, n = (_whole(obj[k], k, shown) for k in ("x", "y", "n"))
        return _make_command(x, y, n, obj["action"], obj.get("direction"), shown)
    raise RuleError(f"{shown}: a command is a list, an object or a text, not {type(obj).__name__}")


# --------------------------------------------------------------------------
# Board
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Board:
    """One position of a match, treated as a value: per-cell tuples indexed ``y * width + x``."""

    width: int
    height: int
    players: int
    turn: int
    limit: int
    resources: tuple[int, ...]
    obstacle: tuple[bool, ...]
    #: Seat whose units stand in the cell, -1 when none.
    owner: tuple[int, ...]
    units: tuple[int, ...]
    #: Seat owning the hive in the cell, -1 when none.
    hive: tuple[int, ...]
    #: Production points of the cell's hive toward its next unit.
    production: tuple[int, ...]
    #: Resources each player holds.
    bank: tuple[int, ...]
    #: Whether each player has ever held a hive (ruling 9: "lost its last hive").
    had_hive: tuple[bool, ...]
    #: Each seat's start cell.
    starts: tuple[int, ...]
    # Derived, kept so that a turn need not scan the whole map.
    occupied: tuple[int, ...] = field(default=(), compare=False)
    hive_cells: tuple[int, ...] = field(default=(), compare=False)
    unit_totals: tuple[int, ...] = field(default=(), compare=False)
    hive_counts: tuple[int, ...] = field(default=(), compare=False)

    def index(self, x: int, y: int) -> int:
        return y * self.width + x

    def xy(self, cell: int) -> tuple[int, int]:
        return cell % self.width, cell // self.width

    def on_map(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def alive(self, seat: int) -> bool:
        """A seat with a hive or a unit can still act; one with neither never can again."""
        return self.unit_totals[seat] > 0 or self.hive_counts[seat] > 0

    def with_derived(self) -> Board:
        """This board with its derived fields computed from the cells (after building one by hand)."""
        occupied = tuple(i for i, n in enumerate(self.units) if n > 0)
        hives = tuple(i for i, h in enumerate(self.hive) if h >= 0)
        totals = [0] * self.players
        for cell in occupied:
            totals[self.owner[cell]] += self.units[cell]
        counts = [0] * self.players
        for cell in hives:
            counts[self.hive[cell]] += 1
        return replace(
            self, occupied=occupied, hive_cells=hives, unit_totals=tuple(totals), hive_counts=tuple(counts)
        )


def empty_board(width: int, height: int, players: int, limit: int = DEFAULT_LIMIT) -> Board:
    """A board with no resources, obstacles, units or hives (for tests and hand-made positions)."""
    cells = width * height
    return Board(
        width=width,
        height=height,
        players=players,
        turn=0,
        limit=limit,
        resources=(0,) * cells,
        obstacle=(False,) * cells,
        owner=(-1,) * cells,
        units=(0,) * cells,
        hive=(-1,) * cells,
        production=(0,) * cells,
        bank=(0,) * players,
        had_hive=(False,) * players,
        starts=(),
    ).with_derived()


def start_cells(width: int, height: int, players: int) -> tuple[tuple[int, int], ...]:
    """Ruling 2: the original engine's start cells, scaled from its 20x20 map."""
    if players == 2:
        # (1,1) and (18,18) on 20x20: each other's image under the 180-degree rotation.
        return ((1, 1), (width - 2, height - 2))
    base = {3: ((5, 5), (10, 14), (15, 5)), 4: ((5, 5), (5, 15), (15, 5), (15, 15))}[players]
    return tuple((x * width // DEFAULT_SIZE, y * height // DEFAULT_SIZE) for x, y in base)


def _regions(width: int, height: int, starts: Sequence[tuple[int, int]]) -> list[int]:
    """Each cell's start region: the nearest start cell (ties to the earlier seat)."""
    regions = []
    for y in range(height):
        for x in range(width):
            distances = [hex_distance((x, y), s) for s in starts]
            regions.append(distances.index(min(distances)))
    return regions


def _connected(width: int, height: int, obstacle: Sequence[bool], starts: Sequence[int]) -> bool:
    """Whether every start cell can reach every other over free cells."""
    table = neighbour_table(width, height)
    seen = {starts[0]}
    queue = deque([starts[0]])
    while queue:
        cell = queue.popleft()
        for nb in table[cell]:
            if nb >= 0 and nb not in seen and not obstacle[nb]:
                seen.add(nb)
                queue.append(nb)
    return all(s in seen for s in starts)


def _symmetric_layout(
    rng: random.Random, width: int, height: int, obstacles: float, starts: Sequence[int]
) -> tuple[list[int], list[bool]]:
    """Two players: resources and obstacles invariant under (x, y) -> (W-1-x, H-1-y)."""
    cells = width * height
    resources = [0] * cells
    obstacle = [False] * cells
    for cell in range(cells):
        image = cells - 1 - cell  # the 180-degree rotation of y * W + x
        if image < cell:
            continue
        value = rng.randint(0, MAX_CELL_RESOURCES)
        blocked = obstacles > 0 and rng.random() < obstacles and cell not in starts and image not in starts
        resources[cell] = resources[image] = 0 if blocked else value
        obstacle[cell] = obstacle[image] = blocked
    return resources, obstacle


def _regional_layout(
    rng: random.Random, width: int, height: int, obstacles: float, starts: Sequence[tuple[int, int]]
) -> tuple[list[int], list[bool]]:
    """Three or four players: every start region gets the same resource and obstacle totals."""
    cells = width * height
    regions = _regions(width, height, starts)
    members: list[list[int]] = [[] for _ in starts]
    for cell, region in enumerate(regions):
        members[region].append(cell)
    start_index = {y * width + x for x, y in starts}
    obstacle = [False] * cells
    candidates = [[c for c in group if c not in start_index] for group in members]
    per_region = int(obstacles * min(len(group) for group in candidates) + 0.5)
    for group in candidates:
        for cell in rng.sample(group, per_region):
            obstacle[cell] = True
    resources = [0 if obstacle[c] else rng.randint(0, MAX_CELL_RESOURCES) for c in range(cells)]
    totals = [sum(resources[c] for c in group) for group in members]
    target = min(totals)
    for group, total in zip(members, totals):
        # Take the excess away one resource at a time from random cells that still have some.
        excess = total - target
        rich = [c for c in group if resources[c] > 0]
        while excess > 0:
            pick = rng.randrange(len(rich))
            cell = rich[pick]
            take = min(excess, resources[cell], rng.randint(1, 5))
            resources[cell] -= take
            excess -= take
            if resources[cell] == 0:
                rich[pick] = rich[-1]
                rich.pop()
    return resources, obstacle


def make_map(
    width: int, height: int, players: int, obstacles: float, seed: int, limit: int = DEFAULT_LIMIT
) -> Board:
    """The initial board (rulings 2 and 3): symmetric resources 0-50 and obstacles, one unit per start cell."""
    if not 2 <= players <= 4:
        raise RuleError(f"Monad is played by 2 to 4 players, not {players}")
    starts = start_cells(width, height, players)
    start_index = [y * width + x for x, y in starts]
    if len(set(start_index)) != players:
        raise RuleError(f"a {width}x{height} map is too small for {players} players")
    # From the table's seed through the rules' one random source (base.seeded_rng), like every draw.
    rng = seeded_rng(seed, f"monad-map:{width}x{height}:{players}:{obstacles!r}")
    density = obstacles
    for attempt in range(60):
        if players == 2:
            resources, obstacle = _symmetric_layout(rng, width, height, density, start_index)
        else:
            resources, obstacle = _regional_layout(rng, width, height, density, starts)
        if _connected(width, height, obstacle, start_index):
            break
        if attempt % 20 == 19:
            density /= 2  # dense obstacles cut players apart too often: thin them out
    else:
        resources, obstacle = [r for r in resources], [False] * (width * height)
    cells = width * height
    owner = [-1] * cells
    units = [0] * cells
    for seat, cell in enumerate(start_index):
        owner[cell] = seat
        units[cell] = 1
    return Board(
        width=width,
        height=height,
        players=players,
        turn=0,
        limit=limit,
        resources=tuple(resources),
        obstacle=tuple(obstacle),
        owner=tuple(owner),
        units=tuple(units),
        hive=(-1,) * cells,
        production=(0,) * cells,
        bank=(START_RESOURCES,) * players,
        had_hive=(False,) * players,
        starts=tuple(start_index),
    ).with_derived()


# --------------------------------------------------------------------------
# One turn
# --------------------------------------------------------------------------

#: Event kinds in TurnReport.events.
COLLISION = "collision"  # (COLLISION, cell_a, seat_a, sent_a, cell_b, seat_b, sent_b)
FIGHT = "fight"  # (FIGHT, cell, ((seat, units), ...) before, survivor seat or -1, units left)
HIVE_BUILT = "built"  # (HIVE_BUILT, cell, seat)
HIVE_DESTROYED = "destroyed"  # (HIVE_DESTROYED, cell, owner, attacker seat, attackers, defenders, attackers left)
HIVE_HELD = "held"  # (HIVE_HELD, cell, owner, attacker seat, attackers, defenders lost)
PRODUCED = "produced"  # (PRODUCED, cell, seat, new units)
#: A command that passed ruling 4 but did nothing: a BUILD without the resources or with another player's units
#: in the cell, a MINE on a hive's cell or an empty one.  Ruling 4 drops only commands naming no units, too many
#: units, or a MOVE off the map or into an obstacle; these are carried out to no effect, and only noted in the log.
NO_EFFECT = "no effect"  # (NO_EFFECT, seat, "COMMAND: why")


@dataclass(frozen=True, slots=True)
class TurnReport:
    """What one turn did: per seat the commands carried out and one reason per dropped command."""

    carried: tuple[tuple[Command, ...], ...]
    dropped: tuple[tuple[str, ...], ...]
    #: Collisions, cell fights and hives built, destroyed or defended, in order (see the kinds above).
    events: tuple[tuple[Any, ...], ...] = ()


def _fight(counts: dict[int, int]) -> tuple[int, int]:
    """A cell fight (ruling 8): the largest force loses the second largest's count, all others die.

    Returns (survivor seat, units left), or (-1, 0) when the largest forces are equal.
    """
    best_seat, best, second = -1, 0, 0
    for seat, n in counts.items():
        if n > best:
            best_seat, best, second = seat, n, best
        elif n > second:
            second = n
    if best == second:
        return -1, 0
    return best_seat, best - second


def _drop_reason(command: Command, board: Board, seat: int, free: int) -> str:
    """Why ``command`` cannot be carried out (ruling 4), for the turn's log; off the hot path."""
    text = command.text()
    width, height = board.width, board.height
    x, y, n = command.x, command.y, command.n
    if n < 1:
        return f"{text}: a command moves at least 1 unit"
    if not (0 <= x < width and 0 <= y < height):
        return f"{text}: {x},{y} is off the map"
    cell = y * width + x
    have = board.units[cell]
    if board.owner[cell] != seat:
        return f"{text}: no units of yours there"
    if n > free:
        if free == have:
            return f"{text}: only {have} unit{'s' if have != 1 else ''} there"
        return f"{text}: only {free} of the {have} units there are not yet commanded"
    if command.action not in ACTIONS:
        return f"{text}: the action is MOVE, MINE or BUILD"
    direction = DIRECTION_INDEX.get(command.direction or "", -1)
    if direction < 0:
        return f"{text}: MOVE needs a direction, one of {' '.join(DIRECTIONS)}"
    target = neighbour_table(width, height)[cell][direction]
    if target < 0:
        return f"{text}: moves off the map"
    return f"{text}: moves into an obstacle at {target % width},{target // width}"


def resolve_turn(board: Board, commands: Sequence[Sequence[Command]]) -> tuple[Board, TurnReport]:
    """Resolve one turn (ruling 5): collisions, moves, builds, mining, each cell's update; the new board."""
    width, height, players = board.width, board.height, board.players
    table = neighbour_table(width, height)
    b_owner, b_units, b_obstacle, b_hive = board.owner, board.units, board.obstacle, board.hive
    carried: list[list[Command]] = [[] for _ in range(players)]
    dropped: list[list[str]] = [[] for _ in range(players)]
    events: list[tuple[Any, ...]] = []

    # -- ruling 4: check each command against the units not yet commanded --
    left = list(b_units)  # units not yet commanded this turn
    units = list(b_units)  # units in each cell once those that move have left
    owner = list(b_owner)
    # A move toward a cell where another player's units stood may collide: such moves wait in
    # ``facing`` (cell * 6 + direction -> units sent; a cell holds one seat's units).  Every other
    # move leaves at once and is listed in ``moved`` as (target, seat, units).
    facing: dict[int, int] = {}
    moved: list[tuple[int, int, int]] = []
    builds: list[tuple[int, int, Command]] = []
    mines: list[tuple[int, int, Command]] = []
    for seat in range(players):
        if seat >= len(commands):
            break
        accepted = carried[seat]
        for command in commands[seat]:
            x = command.x
            y = command.y
            n = command.n
            if n < 1 or x < 0 or x >= width or y < 0 or y >= height:
                dropped[seat].append(_drop_reason(command, board, seat, 0))
                continue
            cell = y * width + x
            free = left[cell]
            if b_owner[cell] != seat or n > free:
                dropped[seat].append(_drop_reason(command, board, seat, free))
                continue
            code = command.code
            if 0 <= code < 6:  # MOVE, code being the direction
                target = table[cell][code]
                if target < 0 or b_obstacle[target]:
                    dropped[seat].append(_drop_reason(command, board, seat, free))
                    continue
                if b_owner[target] < 0 or b_owner[target] == seat:
                    remaining = units[cell] - n
                    units[cell] = remaining
                    if remaining == 0:
                        owner[cell] = -1
                    moved.append((target, seat, n))
                else:
                    key = cell * 6 + code
                    facing[key] = facing.get(key, 0) + n
            elif code == MINE_CODE:
                mines.append((seat, cell, command))
            elif code == BUILD_CODE:
                builds.append((seat, cell, command))
            else:
                dropped[seat].append(_drop_reason(command, board, seat, free))
                continue
            left[cell] = free - n
            accepted.append(command)

    totals = list(board.unit_totals)

    if facing:
        # -- collisions: groups of two seats moving into each other's cells --
        for key, sent in facing.items():
            if sent == 0:
                continue
            cell, direction = divmod(key, 6)
            target = table[cell][direction]
            back = target * 6 + OPPOSITE[direction]
            other = facing.get(back)
            if not other:
                continue
            lost = min(other, sent)
            facing[key] = sent - lost
            facing[back] = other - lost
            units[cell] -= lost
            units[target] -= lost
            totals[b_owner[cell]] -= lost
            totals[b_owner[target]] -= lost
            events.append((COLLISION, cell, b_owner[cell], sent, target, b_owner[target], other))
        # -- the moves that waited leave their cells --
        for key, sent in facing.items():
            cell, direction = divmod(key, 6)
            remaining = units[cell] - sent
            units[cell] = remaining
            if remaining == 0:
                owner[cell] = -1
            if sent:
                moved.append((table[cell][direction], b_owner[cell], sent))

    # Arrivals merge into the cell unless another player's units or hive are there: then the cell
    # is contested and lists every seat present, for the cell's update.
    contested: dict[int, dict[int, int]] = {}
    for target, seat, sent in moved:
        there = contested.get(target)
        if there is not None:
            there[seat] = there.get(seat, 0) + sent
            continue
        holder = owner[target]
        hive_owner = b_hive[target]
        if (holder < 0 or holder == seat) and (hive_owner < 0 or hive_owner == seat):
            units[target] += sent
            owner[target] = seat
            continue
        there = {seat: sent}
        if holder >= 0:
            there[holder] = units[target]
        contested[target] = there

    # -- builds --
    hive = b_hive
    production = board.production
    bank = board.bank
    had_hive = board.had_hive
    bonus: dict[int, int] = {}
    new_hives: list[int] = []
    if builds:
        hive_list: list[int] | None = None  # copied on the first hive built
        for seat, cell, command in builds:
            if (hive if hive_list is None else hive_list)[cell] < 0:
                if cell in contested:
                    events.append((NO_EFFECT, seat, f"{command.text()}: another player's units came into the cell"))
                    continue
                if bank[seat] < HIVE_COST:
                    why = f"a hive costs {HIVE_COST} resources, you have {bank[seat]}"
                    events.append((NO_EFFECT, seat, f"{command.text()}: {why}"))
                    continue
                if hive_list is None:
                    hive_list = list(hive)
                hive_list[cell] = seat
                bank = (*bank[:seat], bank[seat] - HIVE_COST, *bank[seat + 1:])
                if not had_hive[seat]:
                    had_hive = (*had_hive[:seat], True, *had_hive[seat + 1:])
                new_hives.append(cell)
                events.append((HIVE_BUILT, cell, seat))
            bonus[cell] = bonus.get(cell, 0) + command.n
        if hive_list is not None:
            hive = tuple(hive_list)
            production_list = list(production)
            for cell in new_hives:
                production_list[cell] = 0
            production = tuple(production_list)

    # -- mining --
    resources = board.resources
    if mines:
        resources_list = list(resources)
        bank_list = list(bank)
        for seat, cell, command in mines:
            if hive[cell] >= 0:
                events.append((NO_EFFECT, seat, f"{command.text()}: a cell with a hive cannot be mined"))
                continue
            there_now = resources_list[cell]
            if there_now == 0:
                events.append((NO_EFFECT, seat, f"{command.text()}: no resources left there"))
                continue
            take = min(command.n, there_now)
            resources_list[cell] = there_now - take
            bank_list[seat] += take
        resources, bank = tuple(resources_list), tuple(bank_list)

    # -- each contested cell's update: combat, hive defence --
    destroyed: list[int] = []
    for cell, there in contested.items():
        for seat, n in there.items():
            totals[seat] -= n
        hive_owner = hive[cell]
        if hive_owner >= 0:
            defenders = there.pop(hive_owner, 0)
            if len(there) > 1:
                # Several attackers fight each other first; the survivor attacks the hive.
                before = tuple(sorted(there.items()))
                seat, attackers = _fight(there)
                events.append((FIGHT, cell, before, seat, attackers))
            else:
                ((seat, attackers),) = there.items()
            if attackers >= defenders + HIVE_DEFENCE:
                destroyed.append(cell)
                left_over = attackers - defenders - HIVE_DEFENCE
                events.append((HIVE_DESTROYED, cell, hive_owner, seat, attackers, defenders, left_over))
                seat, n = (seat, left_over) if left_over > 0 else (-1, 0)
            else:
                if attackers > 0:
                    lost = attackers - (HIVE_DEFENCE - 1) if attackers >= HIVE_DEFENCE else 0
                    events.append((HIVE_HELD, cell, hive_owner, seat, attackers, lost))
                    defenders -= lost
                seat, n = (hive_owner, defenders) if defenders > 0 else (-1, 0)
        else:
            before = tuple(sorted(there.items()))
            seat, n = _fight(there)
            events.append((FIGHT, cell, before, seat, n))
            if n == 0:
                seat = -1
        owner[cell], units[cell] = seat, n
        if n:
            totals[seat] += n
    if destroyed:
        hive_list = list(hive)
        for cell in destroyed:
            hive_list[cell] = -1
        hive = tuple(hive_list)

    # -- production: every standing hive gains 1 point plus 1 per unit given BUILD on it --
    hive_cells = board.hive_cells
    if new_hives or destroyed:
        gone = set(destroyed)
        hive_cells = tuple(sorted([c for c in hive_cells if c not in gone] + new_hives))
    counts = board.hive_counts
    if new_hives or destroyed:
        count_list = [0] * players
        for cell in hive_cells:
            count_list[hive[cell]] += 1
        counts = tuple(count_list)
    produced_into: list[int] = []
    if hive_cells or destroyed:
        production_list = list(production)
        for cell in hive_cells:
            points = production_list[cell] + 1 + bonus.get(cell, 0)
            if points >= UNIT_COST:
                made, points = divmod(points, UNIT_COST)
                units[cell] += made
                seat = hive[cell]
                owner[cell] = seat
                totals[seat] += made
                produced_into.append(cell)
                events.append((PRODUCED, cell, seat, made))
            production_list[cell] = points
        for cell in destroyed:
            production_list[cell] = 0
        production = tuple(production_list)

    # -- the occupied cells, from those this turn touched --
    # The cells occupied before keep their order; cells empty at the start that hold units now
    # (moves in, production on an empty hive) are added and the whole sorted again.
    kept = [c for c in board.occupied if units[c] > 0]
    gained = {t for t, _s, _n in moved if b_units[t] == 0}
    gained.update([c for c in produced_into if b_units[c] == 0])
    if gained:
        kept.extend([c for c in gained if units[c] > 0])
        kept.sort()
    occupied = tuple(kept)

    new_board = Board(
        width=width,
        height=height,
        players=players,
        turn=board.turn + 1,
        limit=board.limit,
        resources=resources,
        obstacle=b_obstacle,
        owner=tuple(owner),
        units=tuple(units),
        hive=hive,
        production=production,
        bank=bank,
        had_hive=had_hive,
        starts=board.starts,
        occupied=occupied,
        hive_cells=hive_cells,
        unit_totals=tuple(totals),
        hive_counts=counts,
    )
    report = TurnReport(
        carried=tuple(tuple(c) for c in carried),
        dropped=tuple(tuple(d) for d in dropped),
        events=tuple(events),
    )
    return new_board, report


# --------------------------------------------------------------------------
# Victory
# --------------------------------------------------------------------------


def outcome(board: Board) -> tuple[bool, tuple[int, ...]]:
    """(over, winners) per ruling 9; winners is () while the match goes on, several seats on a draw."""
    seats = range(board.players)
    hives, totals = board.hive_counts, board.unit_totals
    holders = [s for s in seats if hives[s] > 0]
    if len(holders) == 1:
        winner = holders[0]
        if all(board.had_hive[s] or totals[s] == 0 for s in seats if s != winner):
            return True, (winner,)
    # Nothing else ends a match before its turn limit (ruling 9), not even a map left without units.
    if board.turn >= board.limit:
        best = max(totals)
        return True, tuple(s for s in seats if totals[s] == best)
    return False, ()


# --------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------


def board_json(board: Board, names: Sequence[str]) -> dict[str, Any]:
    """The board as ``show --json`` gives it (the issue's shape)."""
    width = board.width
    resources, obstacle, owner, units, hive, production = (
        board.resources,
        board.obstacle,
        board.owner,
        board.units,
        board.hive,
        board.production,
    )
    rows = []
    for y in range(board.height):
        row = []
        for cell in range(y * width, (y + 1) * width):
            entry: dict[str, Any] = {"resources": resources[cell]}
            if obstacle[cell]:
                entry["obstacle"] = True
            if hive[cell] >= 0:
                entry["hive"] = names[hive[cell]]
                entry["production"] = production[cell]
            if units[cell] > 0:
                entry["owner"] = names[owner[cell]]
                entry["units"] = units[cell]
            row.append(entry)
        rows.append(row)
    return {
        "width": board.width,
        "height": board.height,
        "turn": board.turn,
        "limit": board.limit,
        "resources": {name: board.bank[s] for s, name in enumerate(names)},
        "units": {name: board.unit_totals[s] for s, name in enumerate(names)},
        "hives": {name: board.hive_counts[s] for s, name in enumerate(names)},
        "cells": rows,
    }


def observation(board: Board, names: Sequence[str], seat: int | None) -> dict[str, Any]:
    """What a bot gets each turn: the whole board (ruling 10), its seat, its name and the players."""
    data = board_json(board, names)
    data["seat"] = seat
    data["me"] = names[seat] if seat is not None else None
    data["players"] = list(names)
    return data


def board_from_json(data: dict[str, Any], names: Sequence[str]) -> Board:
    """A Board from :func:`board_json`'s shape (for tests and hand-made positions).

    Start cells and whether a seat ever held a hive are not in the JSON: a
    seat holding a hive counts as having held one.
    """
    width, height = data["width"], data["height"]
    index = {name: s for s, name in enumerate(names)}
    cells = [cell for row in data["cells"] for cell in row]
    board = Board(
        width=width,
        height=height,
        players=len(names),
        turn=data.get("turn", 0),
        limit=data.get("limit", DEFAULT_LIMIT),
        resources=tuple(c.get("resources", 0) for c in cells),
        obstacle=tuple(bool(c.get("obstacle", False)) for c in cells),
        owner=tuple(index[c["owner"]] if c.get("units", 0) > 0 else -1 for c in cells),
        units=tuple(c.get("units", 0) for c in cells),
        hive=tuple(index[c["hive"]] if "hive" in c else -1 for c in cells),
        production=tuple(c.get("production", 0) for c in cells),
        bank=tuple(data.get("resources", {}).get(name, 0) for name in names),
        had_hive=tuple(any(c.get("hive") == name for c in cells) for name in names),
        starts=(),
    )
    return board.with_derived()
