"""A table: the game a screen plays at, with its seats, saves and undo.

The game screen talks only to a table, never to rules or records directly.
``LocalTable`` is a game on this machine (hot-seat and AI seats, saved after
every move); a network table (one seat per SSH client) offers the same
methods, so the screens need not know which they have.
"""

from __future__ import annotations

from pathlib import Path

from .match import Match
from .records import RecordError, dumps, load, locked, read_bytes, save
from .rules import View, Viewer


class LocalTable:
    """A match played at one keyboard, saved atomically after every change."""

    def __init__(self, match: Match, save_path: Path | None = None) -> None:
        self.match = match
        self.save_path = save_path
        self._last_human: int | None = None
        #: What this table last read or wrote at ``save_path``: a save replaces only that.
        self._on_disk: bytes | None = None
        #: What the player must hear about saving (a record changed on disk, a folder not writable).
        self.notice = ""
        if save_path is not None:
            self._on_disk = self._disk_copy_of_this_game(save_path)
            self.save()

    # -- who sits where ----------------------------------------------------

    @property
    def game(self):
        return self.match.game

    @property
    def names(self) -> tuple[str, ...]:
        return self.match.names

    def local_humans(self) -> list[int]:
        return self.match.human_seats()

    def ai_seats(self) -> list[int]:
        return [seat for seat, info in enumerate(self.match.seats) if info.is_ai]

    def ai_to_move(self) -> int | None:
        """The AI seat that should move now, if any."""
        for seat in self.match.state.to_move():
            if self.match.seats[seat].is_ai:
                return seat
        return None

    def viewing_seat(self) -> Viewer:
        """Whose view the screen shows: the human to move, else the last human who moved."""
        humans = self.local_humans()
        if not humans:
            return None  # AI against AI: watch as a spectator
        for seat in self.match.state.to_move():
            if seat in humans:
                return seat
        for record in reversed(self.match.moves):
            if record.seat in humans:
                return record.seat
        return humans[0]

    # -- play --------------------------------------------------------------

    def view(self, viewer: Viewer) -> View:
        return self.match.view(viewer)

    def play(self, seat: int, move: str) -> None:
        """Apply a move (RuleError says what is wrong, and nothing changes) and save."""
        self.match.play(seat, move)
        self.save()

    def undo(self) -> bool:
        """Undo: against AIs, back to before the last human move; hot-seat, one move."""
        humans = self.local_humans()
        seats = humans if self.ai_seats() and humans else None
        done = self.match.undo(seats)
        if done:
            self.save()
        return done

    def save(self) -> None:
        """Save under the record's lock, never over a record that changed on disk since it was read.

        A correspondence move may have come in (``termgames move``): then both are kept, this game under a
        new name beside it, and :attr:`notice` says so.  A save that fails is a notice too, not a crash.
        """
        path = self.save_path
        if path is None:
            return
        try:
            with locked(path):
                current = _bytes_or_none(path)
                if current is not None and current != self._on_disk:
                    path = self._keep_both(path)
                save(path, self.match)
                self._on_disk = read_bytes(path)
        except (RecordError, OSError) as error:
            self.notice = f"Not saved: {error}"

    def take_notice(self) -> str:
        """The notice about saving, once."""
        notice, self.notice = self.notice, ""
        return notice

    def _keep_both(self, path: Path) -> Path:
        from .records import new_save_path

        fresh = new_save_path(path.parent, self.match)
        self.notice = (
            f"{path.name} changed on disk since this game read it (a move came in?). Both are kept: "
            f"this game goes on in {fresh.name}"
        )
        self.save_path = fresh
        self._on_disk = None
        return fresh

    def _disk_copy_of_this_game(self, path: Path) -> bytes | None:
        """The record at ``path`` if it holds this very game (what the screen resumed), else None."""
        current = _bytes_or_none(path)
        if current is None:
            return None
        if current == dumps(self.match).encode("utf-8"):
            return current
        try:
            there = load(path)
        except RecordError:
            return None
        same = (
            there.game.name == self.match.game.name
            and there.seed == self.match.seed
            and there.seats == self.match.seats
            and there.options == self.match.options
            and [(m.seat, m.move) for m in there.moves] == [(m.seat, m.move) for m in self.match.moves]
        )
        return current if same else None


def _bytes_or_none(path: Path) -> bytes | None:
    try:
        return read_bytes(path)
    except RecordError:
        return None
