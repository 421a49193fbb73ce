"""``termgames serve --web`` in a real browser: Playwright driving Debian's Chromium, an SSH player beside it.

Each test runs an in-process server with its browser front; the browser pages are Chromium's (headless),
the SSH players asyncssh clients with a PTY (``sshterm``).  As ``test_web_browser.py``: needs
``/usr/bin/chromium`` and the ``playwright`` package, and skips (saying why) without them.  The terminal's
text is read from xterm.js's buffer (``window.termgames.screenText()``), the way a player reads the screen.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from datetime import UTC, datetime

import asyncssh
import pytest
from sshterm import command, connect
from test_server_ssh import ALICE_LAYOUT, ANSI, BOB_LAYOUT, board_rows
from webtools import link_for, skip_without_chromium, web_server

from termgames.server.commands import run_command
from termgames.server.stores.interface import WebPass
from termgames.web.serve import SIGNED_OUT, digest, iso_in

skip_without_chromium()
async_api = pytest.importorskip("playwright.async_api", reason="the browser tests need playwright (the test extra)")


pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture
def keys():
    return {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("alice", "bob")}


async def screen_text(page) -> str:
    return await page.evaluate("() => window.termgames ? window.termgames.screenText() : ''")


async def wait_for_text(page, *wanted: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        text = await screen_text(page)
        if all(want in text for want in wanted):
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"the page never showed {wanted}:\n{text}")
        await asyncio.sleep(0.05)


async def wait_for_title(page, title: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while await page.title() != title:
        if time.monotonic() > deadline:
            raise AssertionError(f"the page's title stayed {await page.title()!r}, not {title!r}")
        await asyncio.sleep(0.05)


async def notice_text(page, wanted: str, timeout: float = 20.0) -> str:
    """The page's notice (a session that ended, a refusal), once it says ``wanted``."""
    notice = page.locator("#notice-text")
    deadline = time.monotonic() + timeout
    while True:
        if await page.locator("#notice").is_visible() and wanted in (text := await notice.text_content() or ""):
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"the page's notice never said {wanted!r}")
        await asyncio.sleep(0.05)


# -- signing in ---------------------------------------------------------------------------------------------


async def test_a_link_signs_in_once_and_never_again_and_a_guest_comes_in_from_the_page(tmp_path, browser):
    async with web_server(tmp_path) as server:
        bare = server.web.url
        link = link_for(server)
        first = await browser.new_context()
        page = await first.new_page()
        assert (await page.goto(bare)).status == 403  # nothing opens without a link or a cookie
        assert (await page.goto(bare + "static/termgames.js")).status == 403
        # The link followed from a page of another site (a chat, a mail): it signs this browser in all the same.
        await page.goto(bare.replace("127.0.0.1", "localhost"))
        await page.evaluate(
            "url => { const a = document.createElement('a'); a.id = 'link'; a.href = url; a.textContent = 'play';"
            " document.body.append(a); }",
            link,
        )
        await page.click("#link")
        await wait_for_text(page, "signed in as alice")
        await wait_for_title(page, "termgames - alice - lobby")
        assert "token" not in page.url
        # A page of another site cannot drive her session: its websocket is refused (no cookie, nor its origin).
        other = await first.new_page()
        await other.goto(bare.replace("127.0.0.1", "localhost"))
        opened = await other.evaluate(
            "url => new Promise(done => { const ws = new WebSocket(url); ws.onopen = () => done(true);"
            " ws.onerror = () => done(false); })",
            bare.replace("http", "ws") + "ws?width=80&height=24",
        )
        assert opened is False
        await first.close()

        second = await browser.new_context()
        page = await second.new_page()
        again = await page.goto(link)
        assert again.status == 403 and "was used already" in await page.locator("#refusal").text_content()
        gone = iso_in(datetime.now(UTC), -1)
        server.store.add_web_link(digest("old"), WebPass("alice", "key:SHA256:alice", False, gone))
        assert (await page.goto(bare + "?token=old")).status == 403
        assert "has expired" in await page.locator("#refusal").text_content()
        await page.click("#guest")  # the server takes guests: the refusal page offers the way in
        await wait_for_text(page, "signed in as guest-web-")
        assert re.fullmatch(r"termgames - guest-web-[0-9a-f]{16} - lobby", await page.title())
        await second.close()


# -- playing ------------------------------------------------------------------------------------------------


CURSOR = re.compile(r"cursor ([A-Z]\d+): (\S+)")


async def claim_a_free_cell(read, press, rng: random.Random) -> str:
    """Walk the cursor to an empty cell (the screen's cursor line says which) and claim it; its name."""
    for _ in range(80):
        found = CURSOR.search(await read())
        if found and found.group(2) == "empty":
            await press("enter")
            return found.group(1)
        await press(rng.choice(["left", "right", "up", "down"]))
        await asyncio.sleep(0.1)
    raise AssertionError(f"no empty cell reached:\n{await read()}")


async def test_alice_in_a_browser_and_bob_over_ssh_play_copolymer_to_its_end(tmp_path, browser, keys):
    async with web_server(tmp_path) as server:
        made = await command(server.port, "alice", keys["alice"], "challenge copolymer --size 3 bob")
        assert made.exit_status == 0, made.stderr
        printed = await command(server.port, "alice", keys["alice"], "web 1")
        link = printed.stdout.split()[-1]
        context = await browser.new_context(viewport={"width": 1280, "height": 800})
        alice = await context.new_page()
        await alice.goto(link)
        await wait_for_title(alice, "termgames - alice - Copolymer, table 1")  # straight to the table
        await wait_for_text(alice, "alice to claim")
        bob = await connect(server.port, "bob", keys["bob"])
        await bob.wait_for("#1 Copolymer")
        await bob.press("enter")
        await bob.wait_for("bob (you)")

        async def alice_reads() -> str:
            return await screen_text(alice)

        async def alice_presses(key: str) -> None:
            await alice.keyboard.press({"enter": "Enter", "left": "ArrowLeft", "right": "ArrowRight",
                                        "up": "ArrowUp", "down": "ArrowDown"}[key])

        async def bob_reads() -> str:
            return bob.text()

        async def bob_presses(key: str) -> None:
            await bob.press(key)

        await alice.click(".xterm-screen")
        table, rng, reloaded = server.hub.table(1), random.Random(7), False
        while not table.over:
            mover = table.names[table.to_move()[0]]
            if mover == "alice":
                cell = await claim_a_free_cell(alice_reads, alice_presses, rng)
                await bob.wait_for(f"alice claimed {cell}")  # live on his terminal
            else:
                cell = await claim_a_free_cell(bob_reads, bob_presses, rng)
                await wait_for_text(alice, f"bob claimed {cell}")  # live on her page
                if not reloaded:  # a reload comes back to the table, where it was
                    reloaded = True
                    await alice.reload()
                    await wait_for_text(alice, f"bob claimed {cell}")
                    await wait_for_title(alice, "termgames - alice - Copolymer, table 1")
                    await alice.click(".xterm-screen")
        winner = table.final_status().split(" to ")[0]  # "Game over: alice wins 4" (the panel wraps the rest)
        await bob.wait_for(winner)
        await wait_for_text(alice, winner)
        assert len(table.match.moves) >= 4 and reloaded
        await bob.close()
        await context.close()


async def test_a_browser_spectator_of_a_mono_table_sees_no_hidden_board(tmp_path, browser):
    async with web_server(tmp_path) as server:
        hub = server.hub
        assert run_command(hub, "alice", "challenge mono --size 5 --no-auto bob").status == 0
        frames: dict[str, list[bytes]] = {"alice": [], "carol": []}
        pages = {}
        for name in frames:
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            page = await context.new_page()

            def keep(socket, into=frames[name]) -> None:
                socket.on("framereceived", lambda payload: into.append(
                    payload if isinstance(payload, bytes) else payload.encode()
                ))

            page.on("websocket", keep)
            await page.goto(link_for(server, name, table=1))
            pages[name] = page
        await wait_for_text(pages["carol"], "you are watching")
        screens: dict[str, list[str]] = {name: [] for name in pages}

        async def sample_screens() -> None:  # what each page showed, as the moves came
            while True:
                for name, page in pages.items():
                    screens[name].append(await screen_text(page))
                await asyncio.sleep(0.05)

        sampler = asyncio.get_running_loop().create_task(sample_screens())
        assert run_command(hub, "alice", f"move 1 {ALICE_LAYOUT}").status == 0
        assert run_command(hub, "bob", f"move 1 {BOB_LAYOUT}").status == 0
        assert run_command(hub, "alice", "move 1 random").status == 0
        for page in pages.values():
            await wait_for_text(page, "bob to probe")
        sampler.cancel()
        for name, page in pages.items():
            screens[name].append(await screen_text(page))

        def rows_seen(name: str, layout: str) -> set[int]:
            """Rows of ``layout`` anywhere in what the page received or showed."""
            received = ANSI.sub(b" ", b"".join(frames[name])).decode("utf-8", "replace")
            return {
                index
                for index, row in enumerate(board_rows(layout))
                if row.search(received) or any(row.search(screen) for screen in screens[name])
            }

        assert rows_seen("alice", ALICE_LAYOUT) == {0, 1, 2}  # a player's page carries her own board
        assert rows_seen("alice", BOB_LAYOUT) == set()
        assert rows_seen("carol", ALICE_LAYOUT) == set() and rows_seen("carol", BOB_LAYOUT) == set()
        everything = b"".join(frames["carol"]) + "".join(screens["carol"]).encode()
        assert ALICE_LAYOUT.encode() not in everything and BOB_LAYOUT.encode() not in everything
        assert any("you are watching" in screen and "bob to probe" in screen for screen in screens["carol"])
        for page in pages.values():
            await page.context.close()


async def test_a_browser_replays_a_finished_table_with_its_kept_analysis(tmp_path, browser):
    """Issue 36, "the same in the browser": the lobby's replay of an analysed table shows the analysis."""
    from termgames.match import Seat

    async with web_server(tmp_path) as server:
        hub = server.hub
        table = hub.create_table("copolymer", {"size": 3}, [Seat(name="alice"), Seat(name="bob")], "alice", seed=5)
        rng = random.Random(5)
        while not table.over:
            seat = table.match.view(None).to_move[0]
            table.play(seat, table.match.state.random_move(seat, rng))
        assert run_command(hub, "bob", f"analyse {table.id} --level easy").status == 3  # queued
        async with asyncio.timeout(120):
            await hub.analyses.driving
        assert table.match.analysis is not None
        context = await browser.new_context(viewport={"width": 1280, "height": 800})
        page = await context.new_page()
        await page.goto(link_for(server))
        await wait_for_text(page, "signed in as alice")
        await page.click(".xterm-screen")
        await page.keyboard.press("Enter")  # her finished table, first in her lobby: its replay
        await wait_for_text(page, "Analysis at level easy", "m/M Mistake")
        await page.keyboard.press("m")
        text = await wait_for_text(page, "loses")  # the next marked move's line: how much it lost
        assert re.search(r"(inaccuracy|mistake|blunder): loses \d", text)
        await context.close()


# -- limits and signing out -------------------------------------------------------------------------------------


async def test_limits_refuse_in_one_line_and_signing_out_ends_the_pages(tmp_path, browser, keys):
    async with web_server(tmp_path, max_sessions_per_player=1) as server:
        printed = await command(server.port, "alice", keys["alice"], "web")
        context = await browser.new_context()
        first = await context.new_page()
        await first.goto(printed.stdout.split()[-1])
        await wait_for_title(first, "termgames - alice - lobby")
        second = await context.new_page()  # another tab: over her limit of one session
        await second.goto(server.web.url)
        refusal = await notice_text(second, "browser sessions open already")
        assert refusal.startswith("termgames: you have 1 browser sessions open already") and "\n" not in refusal

        signed_out = await command(server.port, "alice", keys["alice"], "web --sign-out-all")
        assert signed_out.exit_status == 0
        assert await notice_text(first, "signed out") == SIGNED_OUT.format(ssh=f"ssh -p {server.port} alice@127.0.0.1")
        assert (await first.reload()).status == 403
        await context.close()
