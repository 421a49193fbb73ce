"""Monad's fast core: one turn's resolution.

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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .board import HIVE_COST, HIVE_DEFENCE, UNIT_COST, Board
from .geometry import ACTIONS, BUILD_CODE, DIRECTION_INDEX, DIRECTIONS, MINE_CODE, OPPOSITE, neighbour_table
from .notation import Command

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


