"""What the server's screens need of their app: :class:`ServeHost`, an interface.

The lobby (:mod:`.lobby`) and a shared table's screen (:mod:`.shared_game`) name
this class, never the app: :class:`~.app.ServeApp` implements it and imports
them, so the app stands above its screens and no screen imports it back.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from typing import Any

from ...app import TermgamesApp
from ..hub import Hub
from ..shared import SharedTable


class ServeHost(TermgamesApp):
    """The app of one SSH player, as the lobby and the shared table screens use it (see the module doc)."""

    #: Every table of the server.
    hub: Hub
    #: Who is signed in, and whether as a guest (a name for one visit).
    player: str
    guest: bool
    #: The person signed in (``key:...``; ``guest:ADDRESS``): whom her tables, seeks and tournament entries count
    #: against.
    owner: str
    #: Players (folded names) whose chat lines this player hid at her screen, at every table of her visit.
    muted: set[str]
    #: Another spectator's app draws this terminal: table news waits until this one draws itself again.
    following: bool
    #: The SSH session's hook: this app shows a table to its spectator (a table id), or no longer (None).
    watching: Callable[[int | None], None]

    @abstractmethod
    def open_table(self, table_id: int, watch: bool = False) -> None:
        """Sit down at table ``table_id`` (the seat she has, or the first open one), or ``watch`` it."""

    @abstractmethod
    def create_table(
        self, game: str, options: dict[str, Any], seats: list[Any], rated: bool | None = None, clock: Any = None
    ) -> None:
        """Create a table (RuleError says why not) and sit down at it; ``rated`` None: the hub's default;
        ``clock``: its :class:`~termgames.clock.ClockSpec` (None: untimed)."""

    @abstractmethod
    def replay_table(self, table_id: int) -> None:
        """Replay the finished table ``table_id``."""

    @abstractmethod
    def rematch_table(self, shared: SharedTable) -> None:
        """A new table of the finished ``shared`` one's game, options and players, seats swapped or rotated as a
        rematch has them, and sit down at it (RuleError says why not)."""

    @abstractmethod
    def leave_table(self, shared: SharedTable) -> None:
        """Leave the table of the screen on top for the lobby (she is no longer expected back at it)."""
