"""Browser play without a browser: the gate, the websocket's protocol, sessions that come back, limits, floods.

Each test runs ``termgames web``'s aiohttp application in-process with real
Textual apps behind it and talks to it as a page would (aiohttp's client);
``test_web_browser.py`` drives the page itself in Chromium.
"""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import asynccontextmanager

import pytest
from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient, TestServer
from textual._xterm_parser import XTermParser
from textual.events import Key
from webtools import closed_with, next_message, screen_titled

from termgames.app import TermgamesApp
from termgames.server.ui.driver import share_the_loop_with_textual
from termgames.web.local import COOKIE, TokenGate, is_loopback, link
from termgames.web.pages import WebFront
from termgames.web.screen_info import KEY_SEQUENCES, describe, key_sequence
from termgames.web.session import (
    CLOSE_ENDED,
    CLOSE_FLOODED,
    CLOSE_REFUSED,
    CLOSE_REPLACED,
    Refused,
    SessionRegistry,
    Visitor,
)

TOKEN = "the-token"


def registry_for(tmp_path, **limits) -> SessionRegistry:
    return SessionRegistry(lambda session: TermgamesApp(saves_dir=tmp_path), describe, **limits)


@asynccontextmanager
async def serving(registry):
    share_the_loop_with_textual(asyncio.get_running_loop())
    client = TestClient(TestServer(WebFront(registry, TokenGate(TOKEN)).application()))
    await client.start_server()
    try:
        yield client
    finally:
        await registry.close()
        await client.close()


@asynccontextmanager
async def one_page(tmp_path, **limits):
    """A server, a browser signed in to it and one page's websocket: (registry, client, socket, session id)."""
    registry = registry_for(tmp_path, **limits)
    async with serving(registry) as client:
        await signed_in(client)
        socket = await open_socket(client)
        _kind, session_id = await next_message(socket, "session")
        yield registry, client, socket, session_id


def origin(client) -> dict[str, str]:
    return {"Origin": f"http://{client.host}:{client.port}"}


async def signed_in(client) -> None:
    response = await client.get(f"/?token={TOKEN}")
    assert response.status == 200


async def open_socket(client, session: str = "", width: int = 100, height: int = 30):
    return await client.ws_connect(f"/ws?session={session}&width={width}&height={height}", headers=origin(client))


# -- keys the page's buttons send --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [*KEY_SEQUENCES, "ctrl+r", "ctrl+n", "question_mark", "u", "L", "1", "plus", "minus", "colon", "number_sign",
     "left_square_bracket", "equals_sign"],
)
def test_a_buttons_characters_are_its_key_for_the_key_parser(key):
    parser = XTermParser(debug=False)
    events = list(parser.feed(key_sequence(key)))
    if key == "escape":  # a lone Escape comes out only on the parser's timeout
        time.sleep(0.15)
        events += list(parser.tick())
    keys = [event.key for event in events if isinstance(event, Key)]
    assert keys == [key]


def test_keys_no_terminal_sends_get_no_button():
    assert key_sequence("ctrl+shift+x") is None
    assert key_sequence("f24") is None


# -- the page's news -----------------------------------------------------------------------------------------


async def test_the_page_title_and_keys_follow_the_screens(tmp_path):
    app = TermgamesApp(saves_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        start = describe(app)
        assert start.title == "termgames - start"
        assert "q Quit" in [key.label for key in start.keys]
        assert "Tab Switch list" in [key.label for key in start.keys]
        app.open_setup("copolymer")
        await pilot.pause()
        setup = describe(app)
        assert setup.title == "termgames - Copolymer"
        assert [(key.label, key.data) for key in setup.keys] == [("Ctrl+S Start", "\x13"), ("Esc Back", "\x1b")]
        app.screen.action_start()
        await pilot.pause()
        game = describe(app)
        assert game.title == "termgames - Copolymer"
        assert game.minimum == app.screen.minimum_size()
        assert ("? Help", "?") in [(key.label, key.data) for key in game.keys]


# -- the gate ----------------------------------------------------------------------------------------------


async def test_nothing_opens_without_the_token_or_its_cookie(tmp_path):
    async with serving(registry_for(tmp_path)) as client:
        for path in ("/", "/alive", "/static/termgames.js", "/static/xterm.mjs", "/?token=wrong"):
            response = await client.get(path)
            assert response.status == 403, path
            assert "termgames" in await response.text()
        response = await client.get("/ws?session=&width=80&height=24", headers=origin(client))
        assert response.status == 403
        assert COOKIE not in client.session.cookie_jar.filter_cookies(client.make_url("/"))

        response = await client.get(f"/?token={TOKEN}")
        assert response.status == 200
        cookie = response.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie
        assert "script-src 'self'" in response.headers["Content-Security-Policy"]
        for path in ("/", "/static/termgames.js", "/static/DejaVuSansMono.woff2"):
            assert (await client.get(path)).status == 200, path
        assert (await client.get("/alive")).status == 204
        assert (await client.get("/static/session.py")).status == 404
        assert (await client.get("/static/..%2Fsession.py")).status == 404


async def test_a_websocket_from_another_origin_is_refused(tmp_path):
    async with serving(registry_for(tmp_path)) as client:
        await signed_in(client)
        for headers in ({"Origin": "http://elsewhere.example"}, {}):
            response = await client.get("/ws?width=80&height=24", headers=headers)
            assert response.status == 403


# -- sessions ---------------------------------------------------------------------------------------------


async def test_a_session_comes_back_after_its_connection_drops(tmp_path):
    async with one_page(tmp_path) as (registry, client, socket, session_id):
        await screen_titled(socket, "termgames - start")
        await socket.send_str(json.dumps(["stdin", "\r"]))  # Copolymer's setup
        await screen_titled(socket, "termgames - Copolymer")
        app = registry.sessions[session_id].app
        await socket.close()

        again = await open_socket(client, session_id, width=90, height=28)
        assert await next_message(again, "session") == ["session", session_id]
        info = await screen_titled(again, "termgames - Copolymer")  # where it was, at once
        assert info["minimum"] and info["pad"]
        frame = b""
        async with asyncio.timeout(10):
            while b"Start game" not in frame:  # the whole screen drawn again for the new terminal
                message = await again.receive()
                if message.type == WSMsgType.BINARY:
                    frame += message.data
        assert list(registry.sessions) == [session_id] and registry.sessions[session_id].app is app
        assert app.size == (90, 28)
        await again.close()


async def test_a_second_connection_takes_the_session_over(tmp_path):
    async with one_page(tmp_path) as (registry, client, first, session_id):
        second = await open_socket(client, session_id)
        await next_message(second, "session")
        assert await closed_with(first) == (["replaced"], CLOSE_REPLACED)
        assert len(registry.sessions) == 1
        await second.close()


async def test_an_unknown_session_id_starts_a_new_session(tmp_path):
    registry = registry_for(tmp_path)
    async with serving(registry) as client:
        await signed_in(client)
        socket = await open_socket(client, "made-up")
        _kind, session_id = await next_message(socket, "session")
        assert session_id != "made-up" and list(registry.sessions) == [session_id]
        await socket.close()


class FakeLink:
    def __init__(self) -> None:
        self.messages: list = []
        self.closed: tuple | None = None

    def send_bytes(self, data: bytes) -> None:
        pass

    def send_json(self, message: list) -> None:
        self.messages.append(message)

    def close(self, code: int, message: list | None = None) -> None:
        self.closed = (code, message)


async def test_a_session_is_its_owners_only(tmp_path):
    registry = registry_for(tmp_path, max_per_owner=1)
    try:
        alice, bob = Visitor("alice", "alice"), Visitor("bob", "bob")
        alices = registry.open(alice, None, (80, 24), FakeLink())
        bobs = registry.open(bob, alices.id, (80, 24), FakeLink())  # her session's id does not make it his
        assert bobs is not alices and alices.owner == "alice" and bobs.owner == "bob"
        with pytest.raises(Refused, match="you have 1 browser sessions open already"):
            registry.open(alice, None, (80, 24), FakeLink())
    finally:
        await registry.close()


async def test_guests_of_many_addresses_cannot_fill_every_browser_session(tmp_path):
    registry = registry_for(tmp_path, max_sessions=4, max_per_owner=2, max_guests=2)
    try:
        for address in ("192.0.2.1", "192.0.2.2"):
            registry.open(Visitor(f"guest-{address}", f"guest:{address}", guest=True), None, (80, 24), FakeLink())
        with pytest.raises(Refused, match=r"^guests have 2 of this server's 4 browser sessions, their share: "):
            registry.open(Visitor("guest-x", "guest:192.0.2.3", guest=True), None, (80, 24), FakeLink())
        registry.open(Visitor("alice", "key:alice"), None, (80, 24), FakeLink())  # room for a signed-in player
    finally:
        await registry.close()


async def test_a_session_whose_browser_never_returns_closes(tmp_path):
    async with one_page(tmp_path, grace=0.2) as (registry, _client, socket, session_id):
        task = registry.sessions[session_id].app_task
        await socket.close()
        async with asyncio.timeout(10):
            await task
        assert registry.sessions == {}


async def test_quitting_ends_the_session_and_says_so(tmp_path):
    registry = registry_for(tmp_path)
    async with serving(registry) as client:
        await signed_in(client)
        socket = await open_socket(client)
        await screen_titled(socket, "termgames - start")
        await socket.send_str(json.dumps(["stdin", "q"]))
        last, code = await closed_with(socket)
        assert last == ["ended", {"lines": []}] and code == CLOSE_ENDED
        assert registry.sessions == {}


async def test_a_stopping_server_says_so_to_its_pages(tmp_path):
    async with one_page(tmp_path) as (registry, _client, socket, _session_id):
        await screen_titled(socket, "termgames - start")
        await registry.close()
        last, code = await closed_with(socket)
        assert last == ["ended", {"lines": [], "why": "The server has stopped."}] and code == CLOSE_ENDED


async def test_sessions_past_the_limit_are_refused_in_one_line(tmp_path):
    registry = registry_for(tmp_path, max_sessions=1)
    async with serving(registry) as client:
        await signed_in(client)
        first = await open_socket(client)
        await next_message(first, "session")
        second = await open_socket(client)
        (kind, line), code = await closed_with(second)
        assert kind == "refused" and code == CLOSE_REFUSED
        assert "\n" not in line and "1 browser sessions" in line
        await first.close()


async def test_a_flooding_browser_is_cut_off_and_the_others_are_served(tmp_path, monkeypatch):
    import termgames.server.input_budget as budget

    monkeypatch.setattr(budget, "BYTES_PER_SECOND", 2000)
    monkeypatch.setattr(budget, "FLOOD_SECONDS", 0.5)
    registry = registry_for(tmp_path)
    async with serving(registry) as client:
        await signed_in(client)
        calm = await open_socket(client)
        await screen_titled(calm, "termgames - start")
        flood = await open_socket(client)
        await next_message(flood, "session")
        junk = json.dumps(["stdin", "j" * 8000])

        async def send_flood() -> None:
            for _ in range(200):
                if flood.closed:
                    return
                await flood.send_str(junk)
                await asyncio.sleep(0)

        sender = asyncio.create_task(send_flood())
        last, code = await closed_with(flood)
        sender.cancel()
        assert last == ["closed", "too much input, connection closed"] and code == CLOSE_FLOODED
        await calm.send_str(json.dumps(["ping", "42"]))
        assert await next_message(calm, "pong") == ["pong", "42"]
        await calm.close()


async def test_resizes_are_applied_and_clamped(tmp_path):
    async with one_page(tmp_path) as (registry, _client, socket, session_id):
        await screen_titled(socket, "termgames - start")
        app = registry.sessions[session_id].app
        for width in range(81, 120):  # a window dragged wider: the last size is the one that stays
            await socket.send_str(json.dumps(["resize", {"width": width, "height": 30}]))
        await socket.send_str(json.dumps(["resize", {"width": 100000, "height": 100000}]))
        async with asyncio.timeout(5):
            while app.size != (240, 80):
                await asyncio.sleep(0.02)
        for junk in ("[", '"stdin"', '["resize", {"width": "x"}]', '["stdin", 5]', "[]"):
            await socket.send_str(junk)  # ignored, the session goes on
        await socket.send_str(json.dumps(["ping", "7"]))
        assert await next_message(socket, "pong") == ["pong", "7"]
        await socket.close()


# -- the command's pieces ------------------------------------------------------------------------------------


def test_the_link_and_what_counts_as_loopback():
    assert link("127.0.0.1", 8000, "t") == "http://127.0.0.1:8000/?token=t"
    assert link("::1", 8000, "t") == "http://[::1]:8000/?token=t"
    assert "0.0.0.0" not in link("0.0.0.0", 8000, "t")
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.2") and not is_loopback("example.org")
