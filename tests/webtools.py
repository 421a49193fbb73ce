"""Test helpers of browser play: a page's websocket messages, Chromium for Playwright, an in-process
``termgames serve`` with its browser front (``--web``) and sign-in links for it."""

from __future__ import annotations

import asyncio
import json
import os
from contextlib import asynccontextmanager

import pytest
from aiohttp import WSMsgType

from termgames.server.people import key_owner
from termgames.server.ssh import start_server
from termgames.web.serve import WebSettings, start_web

#: The person alice is (her SSH key) in tests that make her links without a key.
ALICE = key_owner("SHA256:alice")


@asynccontextmanager
async def web_server(folder, db_url=None, *, allow_guests=True, public_address=None, **settings):
    """An SSH server on a free port with its browser front on another: the server (``server.web`` the front)."""
    server = await start_server(
        folder, "127.0.0.1", 0, db=db_url, no_guests=not allow_guests, public_address=public_address
    )
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


# -- a page's websocket ----------------------------------------------------------------------------------------


async def next_message(socket, kind: str, timeout: float = 10.0):
    """The next JSON message of ``kind`` (terminal output and other messages skipped)."""
    async with asyncio.timeout(timeout):
        while True:
            message = await socket.receive()
            if message.type == WSMsgType.TEXT:
                envelope = json.loads(message.data)
                if envelope[0] == kind:
                    return envelope
            elif message.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING):
                raise AssertionError(f"closed ({socket.close_code}) before {kind!r}")


async def screen_titled(socket, title: str) -> dict:
    """The page's news once its title is ``title``."""
    while True:
        _kind, info = await next_message(socket, "screen")
        if info["title"] == title:
            return info


async def closed_with(socket) -> tuple[list, int | None]:
    """The last message before the server closed the socket, and the close code."""
    last = None
    async with asyncio.timeout(10):
        async for message in socket:
            if message.type == WSMsgType.TEXT:
                last = json.loads(message.data)
    return last, socket.close_code


# -- Chromium -------------------------------------------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
#: Without the background-networking flags Chromium keeps trying hosts a test machine cannot (and must not) reach.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def skip_without_chromium() -> None:
    """At a browser test module's top: skip it, saying why, where Chromium is missing."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium): the browser tests need it",
                    allow_module_level=True)
