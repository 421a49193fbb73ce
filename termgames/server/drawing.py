"""A table's spectators drawn once: one app's frames go to every spectator whose terminal looks the same.

Every spectator of a table sees the same view of it, and a server redraws every
screen at a table for each move, one app per SSH channel on one event loop:
with thirty people watching a game, thirty identical redraws.  So spectators
of one table whose screens would be drawn alike (the same terminal size, ASCII
mode, palette and theme) form a group.  The first of them (the leader) draws
as usual, and everything its app writes goes down every member's channel too;
the others' apps sit still (they *follow*) and write nothing.

A follower who presses a key, resizes her terminal or leaves stops following:
her app catches up with the table and draws its whole screen itself, on its own
from then on.  A leader who does so hands the group to the next member, whose
app draws its whole screen for everyone left; a member that joins gets a whole
frame of the leader's screen, for her alone (the others' terminals show it
already): each member's terminal is always the leader's.

Only spectators ever group (a seated player's view is her own, with the hidden
information it may hold); the server's SSH sessions are the members.

A follower's app would only sit still, holding its widgets and their caches (a
few megabytes): an SSH session that starts following tears its app down and
keeps only its place at the table (a spectator there still) and its look.  What
wakes it (a key, a resize, a notice, the leader gone) builds a new app at the
same table with the same look; it draws its whole screen, as a follower that
stops following does (:class:`~termgames.server.ssh.GameSession`).  A session that
watches a table straight from sign-in (``ssh -t HOST watch TABLE``) and finds a
group of her look joins it in that state, with no app ever built.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Protocol


class Member(Protocol):
    """One spectator's channel and app, as a group sees them."""

    def send(self, data: bytes) -> None:
        """Bytes for this member's terminal (a leader's frame)."""

    def following_changed(self, following: bool) -> None:
        """Start following (draw nothing), or stop: catch up with the table and draw the whole screen."""

    def draw_whole_screen_for(self, newcomer: Member) -> None:
        """Send ``newcomer`` (a member that just joined) a whole frame of this leader's screen, for her alone."""


class SpectatorGroups:
    """The groups of one server process, by look: (table, terminal size, ASCII mode, palette, theme)."""

    def __init__(self) -> None:
        self._groups: dict[Hashable, list[Member]] = {}
        self._look_of: dict[Member, Hashable] = {}

    def join(self, member: Member, look: Hashable) -> None:
        """``member`` watches a table with this look: it leads a new group, or follows the one there is."""
        self.leave(member)
        group = self._groups.setdefault(look, [])
        group.append(member)
        self._look_of[member] = look
        if len(group) > 1:
            member.following_changed(True)
            # Her terminal shows what her own app drew, or nothing yet: the leader's whole screen replaces it.
            # The others' terminals have it already: a frame to all of them for each one who joins would cost
            # a group of hundreds a whole screen each, hundreds of times.
            group[0].draw_whole_screen_for(member)

    def leave(self, member: Member) -> None:
        """``member`` goes its own way (a key, a resize, another screen, gone): the group goes on without it."""
        look = self._look_of.pop(member, None)
        if look is None:
            return
        group = self._groups[look]
        led = group[0] is member
        group.remove(member)
        if not group:
            del self._groups[look]
        if not led:
            member.following_changed(False)
        elif group:
            group[0].following_changed(False)  # the next in line draws, for itself and the rest

    def drawn(self, look: Hashable) -> bool:
        """Whether a group of this look is drawn already (one who joins it follows)."""
        return look in self._groups

    def look_of(self, member: Member) -> Hashable | None:
        """The look of the group ``member`` is in (None: none)."""
        return self._look_of.get(member)

    def following(self, member: Member) -> bool:
        """Whether ``member``'s screen is drawn by another's app."""
        look = self._look_of.get(member)
        return look is not None and self._groups[look][0] is not member

    def followers(self, member: Member) -> list[Member]:
        """The members ``member`` draws for (none unless it leads a group)."""
        look = self._look_of.get(member)
        if look is None:
            return []
        group = self._groups[look]
        return group[1:] if group[0] is member else []

    def receivers(self, member: Member) -> list[Member]:
        """Who gets what ``member``'s app writes: nobody while it follows, else itself and its followers."""
        look = self._look_of.get(member)
        if look is None:
            return [member]
        group = self._groups[look]
        return group if group[0] is member else []

    def __len__(self) -> int:
        return len(self._groups)
