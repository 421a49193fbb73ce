"""Seeks and quick pairing: a player asks for a game with whoever fits, and the server seats them together.

A *seek* (``ssh HOST seek GAME [options] [--seats N] [--clock SPEC] [--rated|--casual] [--rating-range LO-HI]``,
or the lobby's quick-pairing lines) names a game, its options, its seat count, its clock and rated or casual.
Seeks that fit each other make a table at once: the same game, options, seats, clock and rated or casual,
different people, and each seeker's rating (its mu at that game; a player not rated yet has the starting one)
within the other's range.  A table needs as many fitting seeks as it has seats (Mono or Mosaic for three: three
seeks); a seek taken from the list (``seek --take ID``, Enter in the lobby) is a fitting seek of the taker's.

The database holds the seeks, so every server sharing it pairs the same ones: the seeks of a table are taken in
one transaction (:meth:`~.stores.interface.TableStore.take_seeks`), all or none, and of two servers pairing one
seek exactly one makes its table.  A server pairs each seek it has not seen yet (made here, or heard of from
another server): so two fitting seeks made at once at two servers still meet.

A seek ends when it makes a table, when its owner takes it back (``unseek``), when it expires (a correspondence
one after ``--seek-days``; a live one, whose clock is not ``/move`` nor a day or more, after
:data:`~.limits.LIVE_SEEK_HOURS`), and a live one (or a guest's) when its owner's last screen at the server closes
(a server that starts with its own database drops every live seek: nobody is connected to it yet).  A person
(one SSH key; the guests of one address) has at most ``--max-seeks-per-player`` seeks; guests seek and take
casual games only.

Pure Python on the server's loop (no Textual).
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from ..clock import ClockSpec
from ..match import Seat
from ..rating import DEFAULT_MU
from ..rules import RuleError, get_game
from ..untrusted import fold_name
from .config import ServerConfig
from .limits import LIVE_SEEK_HOURS
from .notices import Notices, iso
from .people import is_guest, seek_owner
from .stores.interface import PlayerRating, StoredSeek, StoreError, TableStore
from .tables import LiveTable

log = logging.getLogger("termgames.server")

#: The news other servers hear when the seeks change (a ``StoreEvent`` kind).
SEEKS_NEWS = "seeks"
#: Times a seek is paired again when the seeks it was to meet were taken meanwhile (by another server).
PAIRING_TRIES = 3

_RANGE = re.compile(r"(\d{1,4}(?:\.\d+)?)-(\d{1,4}(?:\.\d+)?)")


def parse_rating_range(text: str) -> tuple[float, float]:
    """``--rating-range LO-HI`` (``20-30``): the ratings (mu) a seeker will play; RuleError in one line."""
    found = _RANGE.fullmatch(text.strip())
    if found is None:
        raise RuleError(f"--rating-range takes LO-HI (such as 20-30), not {text!r}")
    low, high = float(found[1]), float(found[2])
    if low > high:
        raise RuleError(f"--rating-range {text}: LO is above HI")
    return low, high


def is_live(clock: ClockSpec | None) -> bool:
    """A live game's clock: minutes, not days (no clock, ``N/move`` or a day or more is correspondence)."""
    return clock is not None and not clock.per_move and not clock.correspondence


def describe_seek(seek: StoredSeek, rating: float | None = None) -> str:
    """``#4 Copolymer (size 7) 2 seats 5m+3s rated alice 27 (20-30)``: one seek, as ``seeks`` and the lobby list it."""
    game = get_game(seek.game)
    options = game.describe_options(seek.options) if seek.options else ""
    parts = [f"#{seek.id}", game.title]
    if options and options != "standard":
        parts.append(f"({options})")
    if game.max_seats > 2 or seek.seats != 2:
        parts.append(f"{seek.seats} seats")
    parts.append(seek.clock or "untimed")
    parts.append("rated" if seek.rated else "casual")
    parts.append(seek.player if rating is None else f"{seek.player} {rating:.0f}")
    if seek.low is not None and seek.high is not None:
        parts.append(f"({seek.low:g}-{seek.high:g})")
    return " ".join(parts)


def seek_json(seek: StoredSeek) -> dict[str, Any]:
    """``seeks --json``'s entry: ``{"id", "game", "by", "options", "clock", "rated"}`` (and its seats and range)."""
    return {
        "id": seek.id, "game": seek.game, "by": seek.player, "options": seek.options, "clock": seek.clock or None,
        "rated": seek.rated, "seats": seek.seats,
        "rating_range": None if seek.low is None else [seek.low, seek.high],
    }


class SeeksHost(Protocol):
    """What the seeks need of the hub (:class:`~.hub.Hub` is one)."""

    store: TableStore
    config: ServerConfig
    notices: Notices

    def now(self) -> float: ...

    def rating(self, player: str, game: str) -> PlayerRating | None: ...

    def lobby_changed(self) -> None: ...

    def check_new_table(self, owner: str) -> None: ...

    def create_table(
        self, game_name: str, options: dict[str, Any], seats: Iterable[Seat], creator: str, seed: int | None = None,
        rated: bool | None = None, owner: str | None = None, clock: ClockSpec | None = None,
    ) -> LiveTable: ...


@dataclass(frozen=True)
class SeekResult:
    """What a seek came to: the table it made at once, or the seek waiting."""

    table: LiveTable | None = None
    seek: StoredSeek | None = None


class Seeks:
    """The hub's seeks (see the module doc): made, taken, paired, expired."""

    def __init__(self, hub: SeeksHost, shuffle: Callable[[list[Any]], None] = random.shuffle) -> None:
        self.hub = hub
        #: Seats are drawn at random (the first seat has an edge in some games).
        self.shuffle = shuffle
        #: The seeks as last read from the store (None: read again when next asked).
        self._kept: list[StoredSeek] | None = None
        #: The ids this server has paired already: a seek heard of from another server is paired once here.
        self._seen: set[int] = set()
        self._read = False

    # -- reading ---------------------------------------------------------------------------

    def current(self) -> list[StoredSeek]:
        """Every seek waiting, oldest first (those past their time are dropped as they are found)."""
        if self._kept is None:
            try:
                self._kept = self.hub.store.seeks()
            except StoreError as error:  # the database is away: no seeks meanwhile
                log.warning("seeks not read: %s", error)
                return []
            if not self._read:  # those waiting at start-up were paired when made
                self._read = True
                self._seen.update(seek.id for seek in self._kept)
        now = iso(datetime.fromtimestamp(self.hub.now(), UTC))
        expired = [seek.id for seek in self._kept if seek.expires <= now]
        if expired:
            self._drop(expired)
        return list(self._kept or [])

    def of(self, player: str) -> list[StoredSeek]:
        folded = fold_name(player)
        return [seek for seek in self.current() if fold_name(seek.player) == folded]

    def rating_of(self, player: str, game: str) -> float:
        """The rating a range is checked against: her mu at ``game``, the starting one before her first rated game."""
        if is_guest(player):
            return DEFAULT_MU
        found = self.hub.rating(player, game)
        return DEFAULT_MU if found is None else found.rating.mu

    def changed(self) -> None:
        """The seeks changed at another server: read them again, pair the new ones, and tell the lobbies."""
        self._kept = None
        waiting = self.current()
        fresh = [seek for seek in waiting if seek.id not in self._seen]
        # A seek gone never comes back (ids only grow): the ids kept are those still waiting.
        self._seen = {seek.id for seek in waiting}
        for seek in fresh:
            self._pair(seek)
        self.hub.lobby_changed()

    # -- a player's seeks ------------------------------------------------------------------

    def seek(
        self, player: str, owner: str, game_name: str, options: dict[str, Any], *, seats: int | None = None,
        clock: ClockSpec | None = None, rated: bool | None = None, rating_range: tuple[float, float] | None = None,
    ) -> SeekResult:
        """A new seek of ``player`` (counted against ``owner``): the table it makes at once with the seeks that
        fit it, else the seek waiting.  RuleError (one line naming the limit) when it may not be made."""
        game = get_game(game_name)
        seats = game.min_seats if seats is None else seats
        if not game.min_seats <= seats <= game.max_seats:
            raise RuleError(f"{game.title} is played by {game.min_seats} to {game.max_seats} players, not {seats}")
        if is_guest(player):
            if rated:
                raise RuleError("guests seek casual games only (sign in with an SSH key to be rated)")
            rated = False
        rated = True if rated is None else rated
        checked = game.check_options(options)
        self.may_seek(player, owner, clock)
        now = datetime.fromtimestamp(self.hub.now(), UTC)
        live = is_live(clock)
        lasts = timedelta(hours=LIVE_SEEK_HOURS) if live else timedelta(days=self.hub.config.seek_days)
        low, high = rating_range if rating_range is not None else (None, None)
        made = StoredSeek(
            0, game.name, checked, seats, "" if clock is None else str(clock), rated, player, owner, low, high, live,
            iso(now), iso(now + lasts),
        )
        return self._add_and_pair(made)

    def may_seek(self, player: str, owner: str, clock: ClockSpec | None, counted: bool = True) -> None:
        """RuleError in one line unless ``player`` (counted as ``owner``) may make one more seek now (``counted``
        False: she takes one, and adds none)."""
        waiting = self.current() if counted else []
        if len(waiting) >= self.hub.config.max_seeks:
            raise RuleError(f"the server has {len(waiting)} seeks waiting, its limit (--max-seeks): try again later")
        mine = sum(1 for seek in waiting if seek.owner == owner)
        if mine >= self.hub.config.max_seeks_per_player:
            who = "the guests of your address have" if owner.startswith("guest:") else "you have"
            raise RuleError(
                f"{who} {mine} seeks waiting, the limit per player (--max-seeks-per-player): unseek one first"
            )
        if is_live(clock) and not self.hub.notices.is_connected(player):
            raise RuleError(
                f"a live seek ({clock}) waits while you have a screen open at the server: seek from the lobby "
                "(or with one open), or seek a correspondence clock (3d/move)"
            )
        # The table it makes counts against her: refused now rather than when it is paired.
        self.hub.check_new_table(owner)

    def take(self, player: str, owner: str, seek_id: int) -> SeekResult:
        """``player`` takes seek ``seek_id`` from the list: its table at once (with a seek of hers that fits it,
        for a table of more seats: the table once enough have come)."""
        seek = next((s for s in self.current() if s.id == seek_id), None)
        if seek is None:
            raise RuleError(f"there is no seek {seek_id} (taken, taken back or expired): seeks lists those waiting")
        if fold_name(seek.player) == fold_name(player) or seek.owner == owner:
            raise RuleError(f"seek {seek_id} is yours: unseek {seek_id} takes it back")
        if seek.rated and is_guest(player):
            raise RuleError(f"seek {seek_id} is rated: guests take casual seeks only (sign in with an SSH key)")
        mine = self.rating_of(player, seek.game)
        if not _within(seek, mine):
            raise RuleError(f"seek {seek_id} is for ratings {seek.low:g}-{seek.high:g}, and yours is {mine:.1f}")
        clock = ClockSpec.parse(seek.clock) if seek.clock else None
        self.may_seek(player, owner, clock, counted=seek.seats > 2)
        now = datetime.fromtimestamp(self.hub.now(), UTC)
        hers = replace(seek, id=0, player=player, owner=owner, low=None, high=None, created=iso(now))
        if seek.seats == 2:
            if not self._take([seek]):
                raise RuleError(f"seek {seek_id} was just taken by someone else")
            return SeekResult(self._seat([seek, hers]))
        return self._add_and_pair(hers, first=seek)

    def unseek(self, player: str, seek_id: int | None = None) -> list[int]:
        """Take back ``player``'s seek ``seek_id`` (None: every seek of hers); the ids taken back."""
        mine = self.of(player)
        if seek_id is not None:
            mine = [seek for seek in mine if seek.id == seek_id]
            if not mine:
                raise RuleError(f"you have no seek {seek_id}: seeks lists yours")
        ids = [seek.id for seek in mine]
        if ids:
            self._drop(ids)
        return ids

    def owner_left(self, player: str) -> None:
        """``player``'s last screen at this server closed: her live seeks end (a guest's every seek: her visit is
        over)."""
        gone = [seek.id for seek in self.of(player) if seek.live or is_guest(player)]
        if gone:
            self._drop(gone)

    def drop_live(self) -> None:
        """At the start of a server with a database of its own: nobody is connected, so no live seek has an owner."""
        gone = [seek.id for seek in self.current() if seek.live]
        if gone:
            self._drop(gone)

    # -- pairing ---------------------------------------------------------------------------

    def _add_and_pair(self, seek: StoredSeek, first: StoredSeek | None = None) -> SeekResult:
        try:
            seek = replace(seek, id=self.hub.store.add_seek(seek))
        except StoreError as error:
            log.error("a seek not stored: %s", error)
            raise RuleError("the seek could not be stored; try again") from None
        self._seen.add(seek.id)
        self._kept = None
        self._announce()
        table = self._pair(seek, first)
        if table is None:
            self.hub.lobby_changed()
        return SeekResult(table, None if table is not None else seek)

    def _pair(self, seek: StoredSeek, first: StoredSeek | None = None) -> LiveTable | None:
        """The table ``seek`` makes with the oldest seeks that fit it (``first`` before them), if enough are
        waiting; None when not (or when they went meanwhile: tried again a few times)."""
        for _ in range(PAIRING_TRIES):
            group = self._group(seek, first)
            if group is None:
                return None
            if self._take(group):
                return self._seat(group)
            self._kept = None  # another server took one of them: read again
        return None

    def _group(self, seek: StoredSeek, first: StoredSeek | None) -> list[StoredSeek] | None:
        waiting = self.current()
        if all(s.id != seek.id for s in waiting):
            return None  # gone (taken meanwhile)
        group = [seek]
        candidates = ([first] if first is not None else []) + [s for s in waiting if s.id != seek.id]
        for other in candidates:
            if len(group) == seek.seats:
                break
            if other in group or not all(self.fits(member, other) for member in group):
                continue
            group.append(other)
        return group if len(group) == seek.seats else None

    def fits(self, one: StoredSeek, other: StoredSeek) -> bool:
        """Whether two seeks make one table: the same settings, two people, each rating within the other's range."""
        if (one.game, one.seats, one.clock, one.rated, one.options) != (
            other.game, other.seats, other.clock, other.rated, other.options
        ):
            return False
        if one.owner == other.owner or fold_name(one.player) == fold_name(other.player):
            return False
        return _within(one, self.rating_of(other.player, other.game)) and _within(
            other, self.rating_of(one.player, one.game)
        )

    def _take(self, group: Collection[StoredSeek]) -> bool:
        stored = [seek.id for seek in group if seek.id]
        try:
            taken = self.hub.store.take_seeks(stored) if stored else True
        except StoreError as error:
            log.warning("seeks %s not taken: %s", stored, error)
            return False
        self._kept = None
        if taken and stored:
            self._announce()
        return taken

    def _seat(self, group: list[StoredSeek]) -> LiveTable | None:
        """The table of seeks just taken: their players seated at random; the last seeker makes it (the others
        hear they are challenged).  A table that cannot be made gives its seeks back."""
        maker = max(group, key=lambda seek: seek.id if seek.id else float("inf"))
        seats = [Seat(name=seek.player) for seek in group]
        self.shuffle(seats)
        clock = ClockSpec.parse(maker.clock) if maker.clock else None
        try:
            table = self.hub.create_table(
                maker.game, dict(maker.options), seats, creator=maker.player, rated=maker.rated,
                owner=seek_owner(maker.owner), clock=clock,
            )
        except RuleError as error:
            log.warning("seeks %s made no table: %s", [seek.id for seek in group], error)
            self._give_back([seek for seek in group if seek.id])
            raise RuleError(f"the seeks fit but made no table: {error}") from None
        self.hub.lobby_changed()
        return table

    def _give_back(self, seeks: Iterable[StoredSeek]) -> None:
        for seek in seeks:
            try:
                self._seen.add(self.hub.store.add_seek(seek))
            except StoreError as error:
                log.warning("seek of %s not given back: %s", seek.player, error)
        self._kept = None
        self._announce()

    def _drop(self, ids: Collection[int]) -> None:
        try:
            self.hub.store.drop_seeks(ids)
        except StoreError as error:
            log.warning("seeks %s not dropped: %s", list(ids), error)
            return
        if self._kept is not None:
            self._kept = [seek for seek in self._kept if seek.id not in ids]
        self._announce()
        self.hub.lobby_changed()

    def _announce(self) -> None:
        if not self.hub.store.shared:
            return
        try:
            self.hub.store.announce(0, SEEKS_NEWS, {})
        except StoreError as error:  # the others read the seeks again once the database is back
            log.warning("seeks news not sent: %s", error)


def _within(seek: StoredSeek, rating: float) -> bool:
    if seek.low is None or seek.high is None:
        return True
    return seek.low <= rating <= seek.high
