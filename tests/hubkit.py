"""What the hub tests share: a subscriber that writes down what a table tells it, servers on one PostgreSQL,
waiting for news."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator


class Listener:
    """Stands in for a player's screen at a table: keeps every (kind, text) event it is sent."""

    def __init__(self, player: str, seat) -> None:
        self.player, self.seat = player, seat
        self.events: list[tuple[str, str]] = []

    def table_event(self, kind: str, text: str) -> None:
        self.events.append((kind, text))


async def until(condition, timeout: float = 10.0) -> None:
    """Wait for ``condition()`` (news from another server, a mail); AssertionError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the news never arrived")
        await asyncio.sleep(0.02)


@contextlib.asynccontextmanager
async def pg_servers(pg_url: str, folder, count: int) -> AsyncIterator[list]:
    """``count`` hubs (servers) on one PostgreSQL database, started, each with its own store; closed after."""
    from termgames.server.hub import Hub
    from termgames.server.stores.postgres import PostgresStore

    hubs = []
    try:
        for number in range(count):
            hub = Hub(PostgresStore(pg_url), folder / f"records{number}")
            hub.start()
            hubs.append(hub)
        yield hubs
    finally:
        for hub in hubs:
            hub.close()
            hub.store.close()
