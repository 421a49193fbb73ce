"""What the hub tests share: a subscriber that writes down what a table tells it."""

from __future__ import annotations


class Listener:
    """Stands in for a player's screen at a table: keeps every (kind, text) event it is sent."""

    def __init__(self, player: str, seat) -> None:
        self.player, self.seat = player, seat
        self.events: list[tuple[str, str]] = []

    def table_event(self, kind: str, text: str) -> None:
        self.events.append((kind, text))
