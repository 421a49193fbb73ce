"""Who plays whom: Swiss rounds by weighted matching, round-robin by Berger tables, arena pairs, tables of N.

Pure Python, no I/O and no server: the server's tournaments (:mod:`termgames.server.tournaments`) call these
with the tournament's players and the rounds played so far and store what they return, so the same history
always pairs the same way (every choice is ordered by score, rating and name; no randomness).

**Swiss (two seats).**  Players are ranked by points, then rating, then name.  With an odd count the
lowest-ranked player who has had no bye sits out with a bye (it scores as a win, once a player).  The rest are
paired by a maximum weight matching (networkx's ``max_weight_matching``, the blossom algorithm, as lichess's
arena pairs): a pair's weight falls steeply with the difference of the two scores (so players meet their own
score group first), a pair that has met before gets none unless no other pairing exists, and within a group
the pair that balances who moves first, and that puts the group's top half against its bottom half, weighs
more.  A matching of all players at once costs O(n^3); past :data:`WINDOW` players the ranking is paired a
window at a time (players a window could not pair float down into the next), which keeps a round of 1,000
players well under a second and, within a window, is the exact optimum.

**Round robin.**  The circle method (Berger tables): with n players (and a "bye" seat when n is odd) every
player meets every other once in n - 1 rounds; ``double`` plays them all again with the seats swapped.

**Arena.**  :func:`arena_pairs` pairs the players waiting now by the same matching, with score distance as
the cost and the last opponent avoided.

**Tables of three or four** (Mono, Mosaic): ranked as for Swiss, cut into tables of N in order (the last
tables one seat smaller when the count does not divide, down to the game's fewest seats), then improved by
swapping players between neighbouring tables while that lowers the number of repeated meetings; the first
seat goes to the player who has had it least.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

#: Players paired by one matching; more are paired a window at a time (a window of 48 takes a few ms).
WINDOW = 48

#: Weights, in the order they matter: the matching maximises their sum.
_BASE = 10**9
_REPEAT = 10**8  # taken off a pair that has met: chosen only when nothing else pairs everyone
_SCORE = 10**5  # per squared half-point of score difference
_FIRST = 10**3  # per step of imbalance in who moved first
_SPREAD = 10  # per step of rank distance away from half the score group


@dataclass(frozen=True)
class Entrant:
    """A player as pairing sees her: a name, her rating for seeding (higher first) and what she has played."""

    name: str
    rating: float = 0.0


@dataclass(frozen=True)
class Game:
    """One table of a round: its players in seat order (the first moves first) and, once over, their points.

    A bye is a game of one seat.  ``points`` are per seat: 1, 0.5 or 0 at two seats; by finishing place at
    more (:func:`place_points`).  ``table`` is the server's table number once it is made.
    """

    seats: tuple[str, ...]
    points: tuple[float, ...] | None = None
    table: int | None = None

    @property
    def bye(self) -> bool:
        return len(self.seats) == 1

    @property
    def over(self) -> bool:
        return self.points is not None


@dataclass
class History:
    """What the rounds so far say of each player: points, opponents met, byes, times she moved first."""

    points: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    met: dict[str, Counter[str]] = field(default_factory=dict)
    byes: Counter[str] = field(default_factory=Counter)
    firsts: Counter[str] = field(default_factory=Counter)
    seconds: Counter[str] = field(default_factory=Counter)
    last_first: dict[str, bool] = field(default_factory=dict)

    @classmethod
    def of(cls, rounds: Iterable[Iterable[Game]]) -> History:
        history = cls()
        for games in rounds:
            for game in games:
                history.add(game)
        return history

    def add(self, game: Game) -> None:
        if game.points is not None:
            for name, points in zip(game.seats, game.points):
                self.points[name] += points
        if game.bye:
            self.byes[game.seats[0]] += 1
            return
        for place, name in enumerate(game.seats):
            self.met.setdefault(name, Counter()).update(other for other in game.seats if other != name)
            if place == 0:
                self.firsts[name] += 1
            else:
                self.seconds[name] += 1
            self.last_first[name] = place == 0

    def met_count(self, one: str, other: str) -> int:
        return self.met.get(one, Counter())[other]

    def first_balance(self, name: str) -> int:
        """Times first minus times not first: positive wants a turn second, negative wants to move first."""
        return self.firsts[name] - self.seconds[name]


def ranked(players: Iterable[Entrant], history: History) -> list[Entrant]:
    """Best first: points, then rating, then name (so that every server ranks alike)."""
    return sorted(players, key=lambda p: (-history.points[p.name], -p.rating, p.name))


def first_seat(one: str, other: str, history: History) -> tuple[str, str]:
    """The pair in seat order: who has moved first less goes first; on a tie, whoever did not last time;
    then the one ranked above (``one``)."""
    balance = history.first_balance(one) - history.first_balance(other)
    if balance > 0:
        return other, one
    if balance < 0:
        return one, other
    if history.last_first.get(one) and not history.last_first.get(other, False):
        return other, one
    return one, other


def _pair_weight(a: int, b: int, order: Sequence[Entrant], history: History, groups: dict[float, list[int]]) -> int:
    one, other = order[a].name, order[b].name
    score_one, score_other = history.points[one], history.points[other]
    weight = _BASE - _SCORE * round(2 * (score_one - score_other)) ** 2
    if history.met_count(one, other):
        weight -= _REPEAT * history.met_count(one, other)
    # Both wanting the same seat: the imbalance one of them keeps.
    want_one, want_other = history.first_balance(one), history.first_balance(other)
    if want_one * want_other > 0:
        weight -= _FIRST * min(abs(want_one), abs(want_other))
    if score_one == score_other:
        group = groups[score_one]
        half = len(group) // 2
        weight -= _SPREAD * abs(abs(group.index(a) - group.index(b)) - half)
    return weight


def _match(indices: list[int], order: Sequence[Entrant], history: History) -> tuple[list[tuple[int, int]], list[int]]:
    """The best pairs among ``indices`` (positions in ``order``) and the ones left: a matching of all but
    repeated pairs when it can, and of repeated pairs only for players nothing else pairs."""
    import networkx  # imported here: a second and tens of MB that only pairing needs

    groups: dict[float, list[int]] = {}
    for index in indices:
        groups.setdefault(history.points[order[index].name], []).append(index)
    graph = networkx.Graph()
    graph.add_nodes_from(indices)
    for position, a in enumerate(indices):
        for b in indices[position + 1:]:
            graph.add_edge(a, b, weight=_pair_weight(a, b, order, history, groups))
    matching = networkx.max_weight_matching(graph, maxcardinality=True)
    pairs = sorted((min(a, b), max(a, b)) for a, b in matching)
    paired = {index for pair in pairs for index in pair}
    return pairs, [index for index in indices if index not in paired]


def swiss_round(players: Iterable[Entrant], rounds: Sequence[Sequence[Game]]) -> list[Game]:
    """The next Swiss round of two-seat games for ``players`` (those still in), given the rounds so far."""
    history = History.of(rounds)
    order = ranked(players, history)
    games: list[Game] = []
    if len(order) % 2:
        # The lowest-ranked player without a bye sits out (everyone has had one: the lowest-ranked).
        eligible = [entrant for entrant in reversed(order) if not history.byes[entrant.name]]
        resting = (eligible or [order[-1]])[0]
        order = [entrant for entrant in order if entrant is not resting]
        games.append(Game((resting.name,), (1.0,)))
    pairs: list[tuple[int, int]] = []
    pending = list(range(len(order)))
    carried: list[int] = []  # players an earlier window could not pair without a repeat
    while pending or carried:
        take = max(2, WINDOW - len(carried))
        window, pending = carried + pending[:take], pending[take:]
        found, left = _match(window, order, history)
        if not pending:
            # The last window pairs everyone (a complete graph of an even count), repeats if it must; a
            # repeat here may be avoidable with the window before it, so those two are matched together again.
            if pairs and _repeats(found, order, history):
                kept, tail = pairs[:-(WINDOW // 2)], pairs[-(WINDOW // 2):]
                again, _left = _match(sorted(window + [i for pair in tail for i in pair]), order, history)
                if len(_repeats(again, order, history)) < len(_repeats(found, order, history)):
                    pairs, found = kept, again
            pairs += found
            break
        repeated = _repeats(found, order, history)
        pairs += [pair for pair in found if pair not in repeated]
        carried = sorted(left + [index for pair in repeated for index in pair])
    for a, b in sorted(pairs):
        games.append(Game(first_seat(order[a].name, order[b].name, history)))
    return _byes_last(games)


def _repeats(pairs: list[tuple[int, int]], order: Sequence[Entrant], history: History) -> list[tuple[int, int]]:
    return [pair for pair in pairs if history.met_count(order[pair[0]].name, order[pair[1]].name)]


def _byes_last(games: list[Game]) -> list[Game]:
    return [game for game in games if not game.bye] + [game for game in games if game.bye]


def round_robin(players: Sequence[str], double: bool = False) -> list[list[Game]]:
    """Every round of a round robin by the circle method (Berger tables); each pair once (twice, seats
    swapped, with ``double``).  With an odd count each player sits out one round (a bye, scored as a win)."""
    names = list(players)
    if len(names) % 2:
        names.append("")  # the empty name is the bye's seat
    count = len(names)
    rounds: list[list[Game]] = []
    circle = names[1:]
    index = {name: number for number, name in enumerate(players)}
    for _number in range(count - 1):
        row = [names[0], *circle]
        games = []
        for board in range(count // 2):
            one, other = row[board], row[count - 1 - board]
            if not one or not other:
                games.append(Game((one or other,), (1.0,)))
            else:
                games.append(Game(_berger_seats(one, other, index)))
        rounds.append(_byes_last(games))
        circle = circle[-1:] + circle[:-1]
    if double:
        rounds += [[game if game.bye else Game(game.seats[::-1]) for game in games] for games in rounds]
    return rounds


def _berger_seats(one: str, other: str, index: dict[str, int]) -> tuple[str, str]:
    """Who moves first in a round robin, so that each player does in half her games (one more or less when the
    count is even).  Among an odd number m of players, i goes first against the (m - 1) / 2 players after
    her round the circle; with an even count, the last player goes first against every other one of the rest."""
    count = len(index)
    a, b = index[one], index[other]
    if count % 2 == 0 and count - 1 in (a, b):
        rest = a if b == count - 1 else b
        last_first = rest % 2 == 0
        return (other, one) if (b == count - 1) == last_first else (one, other)
    odd = count if count % 2 else count - 1
    return (one, other) if 1 <= (b - a) % odd <= odd // 2 else (other, one)


def arena_pairs(waiting: Sequence[Entrant], scores: dict[str, float], last_opponent: dict[str, str]) -> list[Game]:
    """Pairs for the players waiting now in an arena: close scores together, nobody against the opponent she
    just played while another is waiting; an odd one out waits for the next game to end."""
    if len(waiting) < 2:
        return []
    history = History()
    for entrant in waiting:
        history.points[entrant.name] = scores.get(entrant.name, 0.0)
        if entrant.name in last_opponent:
            history.met.setdefault(entrant.name, Counter())[last_opponent[entrant.name]] += 1
    order = ranked(waiting, history)
    indices = list(range(len(order)))
    found: list[tuple[int, int]] = []
    while indices:
        window, indices = indices[:WINDOW], indices[WINDOW:]
        pairs, left = _match(window, order, history)
        found += pairs
        indices = left + indices if indices else []
    return [Game(tuple(sorted((order[a].name, order[b].name)))) for a, b in found]


def table_sizes(count: int, seats: int, fewest: int) -> list[int]:
    """How ``count`` players sit at tables of ``seats`` (some one or more seats smaller, none under ``fewest``);
    a player left over gets a bye (a size of 1)."""
    if count < fewest:
        return [1] * count
    tables = -(-count // seats)
    while tables * fewest > count:
        tables -= 1
    base, extra = divmod(count, tables)
    sizes = [base + 1] * extra + [base] * (tables - extra)
    if sizes[0] > seats:  # cannot happen with the ceiling above; kept for a game with odd bounds
        raise ValueError(f"{count} players do not fit tables of {fewest} to {seats}")
    return sizes


def tables_round(players: Iterable[Entrant], rounds: Sequence[Sequence[Game]], seats: int, fewest: int) -> list[Game]:
    """The next round of a Swiss-like event of tables of ``seats`` (``fewest`` at the least): by score groups,
    with as few repeated meetings as swaps between neighbouring tables can make."""
    history = History.of(rounds)
    order = [entrant.name for entrant in ranked(players, history)]
    sizes = table_sizes(len(order), seats, fewest)
    byes = [name for name, size in zip(reversed(order), reversed(sizes)) if size == 1]
    playing = [name for name in order if name not in byes]
    tables: list[list[str]] = []
    position = 0
    for size in (size for size in sizes if size > 1):
        tables.append(playing[position:position + size])
        position += size

    def repeats(table: list[str]) -> int:
        return sum(history.met_count(a, b) for i, a in enumerate(table) for b in table[i + 1:])

    improved = True
    passes = 0
    while improved and passes < 20:
        improved = False
        passes += 1
        for index in range(len(tables) - 1):
            upper, lower = tables[index], tables[index + 1]
            best = repeats(upper) + repeats(lower)
            for i, one in enumerate(upper):
                for j, other in enumerate(lower):
                    if best == 0:
                        break
                    upper[i], lower[j] = other, one
                    now = repeats(upper) + repeats(lower)
                    if now < best:
                        best, improved = now, True
                        one = other  # the swap stands: go on from it
                    else:
                        upper[i], lower[j] = one, other
    games = [Game(tuple(sorted(table, key=lambda name: (history.firsts[name], order.index(name))))) for table in tables]
    games += [Game((name,), (1.0,)) for name in byes]
    return games


def place_points(scores: Sequence[float]) -> tuple[float, ...]:
    """Points by finishing place at a table of N: first 1, last 0, evenly between (1, 0.5, 0 at three seats);
    seats that tie share their places' points."""
    count = len(scores)
    if count == 1:
        return (1.0,)
    order = sorted(range(count), key=lambda seat: -scores[seat])
    points = [0.0] * count
    place = 0
    while place < count:
        tied = [seat for seat in order[place:] if scores[seat] == scores[order[place]]]
        shared = sum((count - 1 - (place + k)) / (count - 1) for k in range(len(tied))) / len(tied)
        for seat in tied:
            points[seat] = shared
        place += len(tied)
    return tuple(points)


def two_seat_points(seats: Sequence[str], winners: Sequence[str]) -> tuple[float, ...]:
    """1 to a sole winner, 0.5 each when both share the win (a draw), 0 to a loser."""
    if len(winners) != 1:
        return tuple(0.5 if name in winners or not winners else 0.0 for name in seats)
    return tuple(1.0 if name in winners else 0.0 for name in seats)
