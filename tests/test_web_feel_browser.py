"""``termgames serve --web`` as a player feels it: a page across a restart (told why, back by itself), a
phone's lobby that fits its width.

Playwright driving Debian's Chromium, as ``test_web_serve_browser.py`` (skips, saying why, without either).
"""

from __future__ import annotations

import asyncio
import time

import pytest
from webtools import link_for, skip_without_chromium

from termgames.match import Seat
from termgames.server.ssh import start_server
from termgames.web.serve import WebSettings, start_web

skip_without_chromium()
async_api = pytest.importorskip("playwright.async_api", reason="the browser tests need playwright (the test extra)")

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def serve(folder, ssh_port: int = 0, web_port: int = 0):
    server = await start_server(folder, "127.0.0.1", ssh_port)
    try:
        server.web = await start_web(server, WebSettings(web_port))
    except BaseException:
        await server.close()
        raise
    return server


async def until(page, expression: str, what: str, timeout: float = 20.0):
    """The value of the JavaScript ``expression`` in the page once it is truthy."""
    deadline = time.monotonic() + timeout
    while not (value := await page.evaluate(f"() => {expression}")):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} never came: {await page.evaluate(f'() => {SCREEN}')!r}")
        await asyncio.sleep(0.05)
    return value


SCREEN = "(window.termgames ? window.termgames.screenText() : '')"
NOTICE = "(document.getElementById('notice').hidden ? '' : document.getElementById('notice').innerText)"


async def test_a_page_is_told_the_server_restarts_and_comes_back_to_the_table_by_itself(tmp_path, browser):
    server = await serve(tmp_path)
    context = await browser.new_context()
    try:
        table = server.hub.create_table("copolymer", {"size": 5}, [Seat("alice"), Seat("bob")], "alice", rated=False)
        page = await context.new_page()
        await page.goto(link_for(server, table=table.id))
        await until(page, f"{SCREEN}.includes('alice (you)')", "her table")
        ssh_port, web_port = server.port, server.web.port
        closing, server = server.close(), None
        await closing
        said = await until(page, NOTICE, "the notice")
        assert "The server is restarting." in said and "Clocks stop while it is down" in said
        assert f"Or over SSH: ssh -p {ssh_port} alice@127.0.0.1" in said
        assert "Next try in 1 s (try 1)" in said and "Try now" in said
        # Still down at the first try: the page waits longer, and says so.
        await until(page, f"{NOTICE}.includes('Next try in 2 s (try 2)')", "a longer wait")
        server = await serve(tmp_path, ssh_port, web_port)
        await page.click("#notice-button")  # "Try now": no need to sit out the wait
        await until(page, "window.termgames.connected()", "the connection")
        await until(page, f"{SCREEN}.includes('alice (you)')", "her table again")
        assert await page.evaluate(f"() => {NOTICE}") == ""
    finally:
        await context.close()
        if server is not None:
            await server.close()


async def test_a_phone_s_lobby_and_table_fit_its_360_px(tmp_path, browser):
    server = await serve(tmp_path)
    context = await browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    try:
        server.hub.create_table("copolymer", {"size": 5}, [Seat("alice"), Seat("bob")], "alice", rated=False)
        page = await context.new_page()
        await page.goto(link_for(server))
        await until(page, f"{SCREEN}.includes('signed in as alice')", "the lobby")
        await until(page, "document.querySelectorAll('#screen-keys button').length > 0", "the lobby's keys")
        await until(page, f"{SIDEWAYS}.length === 0", "a page that does not scroll sideways")
        assert await page.evaluate("() => window.termgames.terminal.cols") >= 60
        await page.locator("#pad button", has_text="Enter").first.tap()
        await until(page, f"{SCREEN}.includes('alice (you)')", "her table")
        await until(page, "document.title.includes('table 1')", "the table's keys")
        await until(page, f"{SIDEWAYS}.length === 0", "a table that does not scroll sideways")
    finally:
        await context.close()
        await server.close()


#: What scrolls sideways on the page: the page itself, the terminal, a row of keys.
SIDEWAYS = (
    "[document.documentElement, document.getElementById('terminal'), ...document.querySelectorAll('#keys .row')]"
    ".filter(e => e.scrollWidth > e.clientWidth)"
)
