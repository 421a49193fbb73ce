"""Test helpers: an in-process ``termgames serve`` with its browser front (``--web``), and sign-in links for it."""

from __future__ import annotations

from contextlib import asynccontextmanager

from termgames.server.people import key_owner
from termgames.server.ssh import start_server
from termgames.web.serve import WebSettings, start_web

#: The person alice is (her SSH key) in tests that make her links without a key.
ALICE = key_owner("SHA256:alice")


@asynccontextmanager
async def web_server(folder, db_url=None, *, allow_guests=True, **settings):
    """An SSH server on a free port with its browser front on another: the server (``server.web`` the front)."""
    server = await start_server(folder, "127.0.0.1", 0, db=db_url, allow_guests=allow_guests)
    try:
        server.web = await start_web(server, WebSettings(0, **settings))
        yield server
    finally:
        await server.close()


def link_for(server, player: str = "alice", table: int | None = None, owner: str | None = None) -> str:
    """A one-time sign-in link for ``player``, as ``ssh HOST web [TABLE]`` prints it."""
    if owner is None:
        owner = ALICE if player == "alice" else key_owner(f"SHA256:{player}")
    return server.web.link(player, owner, table)
