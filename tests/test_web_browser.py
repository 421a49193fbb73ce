"""``termgames web`` in a real browser: Playwright driving Debian's Chromium, headless.

Needs ``/usr/bin/chromium`` (``apt-get install chromium``; ``.ci/run`` installs it when missing) and the
``playwright`` package (the test extra); Playwright's own browser download is not used.  Without Chromium
these tests skip, saying so.  The page draws on a canvas-free DOM terminal, but the tests read its text from
xterm.js's buffer (``window.termgames.screenText()``), the way a player reads the screen.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit

import pytest
from webtools import CHROMIUM, CHROMIUM_ARGS, skip_without_chromium

skip_without_chromium()
sync_api = pytest.importorskip("playwright.sync_api", reason="the browser tests need playwright (the test extra)")



@pytest.fixture(scope="module")
def link(tmp_path_factory):
    """A ``termgames web`` on a free port, in a folder of its own; its link (with the token)."""
    folder = tmp_path_factory.mktemp("web")
    env = {
        **os.environ,
        "HOME": str(folder),
        "XDG_DATA_HOME": str(folder / "data"),
        "XDG_CONFIG_HOME": str(folder / "config"),
        "TERMGAMES_PREFERENCES": str(folder / "preferences.json"),
        "TERMGAMES_SOLVER_CACHE": "off",
    }
    command = [sys.executable, "-m", "termgames", "web", "--port", "0", "--saves", str(folder / "saves")]
    process = subprocess.Popen([*command, "--pace", "instant"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=env)
    watchdog = threading.Timer(30, process.kill)  # a server that never says where it listens fails the tests
    watchdog.start()
    printed = []
    try:
        assert process.stdout is not None
        for line in process.stdout:
            printed.append(line)
            if found := re.search(r"http://\S+\?token=\S+", line):
                break
        else:
            raise AssertionError("termgames web printed no link:\n" + "".join(printed))
        watchdog.cancel()
        yield found.group(0)
    finally:
        watchdog.cancel()
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def screen_text(page) -> str:
    return page.evaluate("() => window.termgames ? window.termgames.screenText() : ''")


def wait_for_text(page, *wanted: str, timeout: float = 20.0) -> str:
    """The terminal's text once it shows every one of ``wanted`` (polled: the page's CSP forbids Playwright's eval)."""
    deadline = time.monotonic() + timeout
    while True:
        text = screen_text(page)
        if all(want in text for want in wanted):
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"the terminal never showed {wanted}:\n{text}")
        time.sleep(0.05)


def wait_for_title(page, title: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while page.title() != title:
        if time.monotonic() > deadline:
            raise AssertionError(f"the page's title stayed {page.title()!r}, not {title!r}")
        time.sleep(0.05)


def test_nothing_but_the_link_opens_the_page(link, browser):
    bare = link.split("?")[0]
    context = browser.new_context()
    page = context.new_page()
    assert page.goto(bare).status == 403
    assert page.goto(bare + "?token=wrong").status == 403
    assert page.goto(bare + "static/termgames.js").status == 403
    # The link followed from a page of another site (a chat, a mail): it signs this browser in all the same.
    elsewhere = bare.replace("127.0.0.1", "localhost")
    page.goto(elsewhere)
    page.evaluate(
        "url => { const a = document.createElement('a'); a.id = 'link'; a.href = url; a.textContent = 'play';"
        " document.body.append(a); }",
        link,
    )
    page.click("#link")
    wait_for_text(page, "New game", "Saved games")
    wait_for_title(page, "termgames - start")
    assert "token" not in page.url  # out of the address bar and the history
    assert page.goto(bare).status == 200  # the cookie opens it from now on
    context.close()


def test_a_game_in_the_browser_and_a_reload_returns_to_it(link, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    requested: list[str] = []
    context.on("request", lambda request: requested.append(request.url))
    page = context.new_page()
    page.on("websocket", lambda socket: requested.append(socket.url))
    page.goto(link)
    wait_for_text(page, "New game")
    page.click(".xterm-screen")
    page.keyboard.press("Enter")  # Copolymer, the first game
    wait_for_text(page, "New game of Copolymer", "Start game")
    wait_for_title(page, "termgames - Copolymer")
    page.keyboard.press("Enter")  # the start button has the focus: p1 against the computer
    wait_for_text(page, "p1 to claim", "Enter Claim")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    board = wait_for_text(page, "1. p1", "2. p2")  # her claim, and the computer's answer
    assert "●" in board and "○" in board  # both claims drawn on the board

    page.reload()
    again = wait_for_text(page, "1. p1", "2. p2", "Enter Claim")  # the same game, where it was
    assert again.splitlines()[0] == board.splitlines()[0]
    wait_for_title(page, "termgames - Copolymer")

    server = urlsplit(link).netloc
    assert requested and all(urlsplit(url).netloc == server for url in requested), requested
    context.close()


def test_a_phone_gets_buttons_for_the_keys_it_has_not(link, browser):
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(link)
    wait_for_text(page, "New game")
    for label in ("←", "↑", "↓", "→", "Enter", "Esc", "Tab"):
        page.locator("#pad button", has_text=label).first.wait_for(state="visible", timeout=10_000)
    page.locator("#screen-keys button", has_text="q Quit").wait_for(state="visible", timeout=10_000)
    # The start screen keeps its columns, in a smaller font that fits them in the phone's 360 px: nothing on
    # the page scrolls sideways, neither the terminal nor a row of keys.
    assert page.evaluate("() => window.termgames.terminal.cols") >= 60
    assert page.evaluate("() => window.termgames.terminal.options.fontSize") < 12
    scrolls = (
        "() => [document.documentElement, document.getElementById('terminal'),"
        " ...document.querySelectorAll('#keys .row')]"
        ".filter(e => e.scrollWidth > e.clientWidth).map(e => e.id || e.className || e.tagName)"
    )
    assert page.evaluate(scrolls) == []
    assert page.evaluate("() => document.querySelector('.xterm-screen').getBoundingClientRect().right") <= 360
    # Its last row (the footer) is not under the key rows, which filled in after the terminal was first sized.
    footer_shown = (
        "() => document.querySelector('.xterm-screen').getBoundingClientRect().bottom"
        " <= document.getElementById('keys').getBoundingClientRect().top + 1"
    )
    deadline = time.monotonic() + 10
    while not page.evaluate(footer_shown):  # polled, as the text is (the page's CSP)
        assert time.monotonic() < deadline, "the terminal's last row stayed under the key rows"
        time.sleep(0.05)
    page.locator("#pad button", has_text="Enter").first.tap()
    wait_for_title(page, "termgames - Copolymer")
    page.locator("#screen-keys button", has_text="Esc Back").tap()
    wait_for_title(page, "termgames - start")
    context.close()
