"""Hostile players against ``termgames serve``, third round (issue 32): one stranger cannot freeze or exhaust
the server.

Each test reproduces one attack of the issue against an in-process server with its browser front (``--web``),
through real SSH and HTTP clients: it failed before the fix and holds after it.  Time is the test's: the
people's input budgets and the hub's clocks count with clocks the test moves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from contextlib import asynccontextmanager

import aiohttp
import asyncssh
import pytest
from sshterm import connect
from webtools import next_message

from termgames.server.commands import run_command
from termgames.server.input_budget import RESIZE_BURST, PersonBudgets, SizeGate
from termgames.server.people import guest_owner, key_owner
from termgames.server.ssh import start_server
from termgames.server.ui.driver import ChannelDriver
from termgames.timesource import SYSTEM, CallableTime
from termgames.web.serve import WebSettings, start_web

MALLORY = guest_owner("127.0.0.1")  # every guest of the test's address is one person


class Clock:
    """Time that moves only when the test says so."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


@asynccontextmanager
async def fair_server(folder, budget_clock: Clock, time_source=SYSTEM, **limits):
    """``termgames serve --web`` on free ports whose people's input budgets count with ``budget_clock`` (and
    everything else with ``time_source``)."""
    server = await start_server(folder, "127.0.0.1", 0, time_source=time_source, **limits)
    server.budgets = PersonBudgets(budget_clock)
    try:
        server.web = await start_web(server, WebSettings(0))
        yield server
    finally:
        await server.close()


async def until(condition, what: str, timeout: float = 15.0, step=None) -> None:
    """Wait (bounded) until ``condition()``; ``step()`` runs between looks (a clock moved on, say)."""
    async with asyncio.timeout(timeout):
        while not condition():
            if step is not None:
                step()
            await asyncio.sleep(0.05)
    assert condition(), what


def base(server) -> str:
    return server.web.url


async def open_page(http, server):
    return await http.ws_connect(
        f"{base(server)}ws?session=&width=100&height=30", headers={"Origin": base(server).rstrip("/")}
    )


async def guest_browser(server) -> aiohttp.ClientSession:
    """A browser signed in as a guest of the test's address (as the page's guest button does)."""
    http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
    came = await http.post(base(server) + "guest", headers={"Origin": base(server).rstrip("/")}, allow_redirects=False)
    assert came.status == 303
    return http


async def lobby(page) -> None:
    async with asyncio.timeout(15):
        info = await next_message(page, "screen")
        while not info[1]["title"].endswith(" - lobby"):
            info = await next_message(page, "screen")


@pytest.fixture
def applied(monkeypatch):
    """Every size laid out by an app once the test arms it: (owner of its terminal, size)."""
    seen: list[tuple[str, tuple[int, int]]] = []
    armed = [False]
    resize = ChannelDriver.resize

    def counted(self, width: int, height: int) -> None:
        if armed[0]:
            seen.append((self._session.owner, (width, height)))
        resize(self, width, height)

    monkeypatch.setattr(ChannelDriver, "resize", counted)
    seen_armed = (seen, armed)
    return seen_armed


@pytest.fixture
def requested(monkeypatch):
    """How many resizes the server has heard from terminals whose apps run."""
    count = [0]
    request = SizeGate.request

    def counted(self, size):
        count[0] += 1
        request(self, size)

    monkeypatch.setattr(SizeGate, "request", counted)
    return count


# --------------------------------------------------------------------------
# 1. Resizes from one person's pages and SSH channels
# --------------------------------------------------------------------------


async def test_a_resize_flood_from_one_address_costs_a_few_layouts_and_the_last_size_wins(
    tmp_path, applied, requested
):
    seen, armed = applied
    budget_clock = Clock()
    async with fair_server(tmp_path, budget_clock) as server:
        guests = [await guest_browser(server) for _ in range(2)]  # two visits, one address: one person
        terminals = []
        try:
            pages = [await open_page(guests[number % 2], server) for number in range(10)]  # her 10 pages
            for page in pages:
                await lobby(page)
            for _ in range(3):  # and SSH channels, as guests of the same address
                terminal = await connect(server.port, "mallory", width=100, height=30)
                terminals.append(terminal)
                await terminal.wait_for("New table")
            bob_key = asyncssh.generate_private_key("ssh-ed25519")
            bob = await connect(server.port, "bob", bob_key, width=100, height=30)
            terminals.append(bob)
            await bob.wait_for("New table")
            bob_owner = key_owner(bob_key.get_fingerprint("sha256"))

            armed[0] = True
            sizes = [(240, 80), (20, 8)] * 10  # 20 resizes each, alternating: the last is 20x8
            for width, height in sizes:
                for page in pages:
                    await page.send_str(json.dumps(["resize", {"width": width, "height": height}]))
                for terminal in terminals[:3]:
                    terminal.process.change_terminal_size(width, height)
            flood = len(sizes) * (len(pages) + 3)
            await until(lambda: requested[0] >= flood, "the flood reached the server")
            mine = [size for owner, size in seen if owner == MALLORY]
            assert len(mine) <= RESIZE_BURST  # her budget's burst, for all her pages and channels together

            # Another person's resize is laid out at once: her flood took nothing of his budget.
            bob.process.change_terminal_size(90, 28)
            await until(lambda: (bob_owner, (90, 28)) in seen, "bob's size was applied")

            # Her terminals get their last size as her budget refills (the test moves its clock on).
            def advance() -> None:
                budget_clock.now += 1.0

            web_sessions = list(server.web.registry.sessions.values())
            ssh_sessions = [session for session in server.sessions if session.owner == MALLORY]
            assert len(web_sessions) == 10 and len(ssh_sessions) == 3
            await until(
                lambda: all(s.size == (20, 8) for s in web_sessions + ssh_sessions if s.owner == MALLORY),
                "her terminals ended at the last size", step=advance,
            )
            mine = [size for owner, size in seen if owner == MALLORY]
            assert len(mine) <= RESIZE_BURST + 13  # a size each on top of the burst: the last one, coalesced
        finally:
            for terminal in terminals:
                await terminal.close()
            for http in guests:
                await http.close()


# --------------------------------------------------------------------------
# 2. SSH screens bounded
# --------------------------------------------------------------------------


async def open_channel(conn: asyncssh.SSHClientConnection):
    return await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)


async def refusal(process) -> tuple[str, int | None]:
    """What a refused channel printed, and its exit status."""
    async with asyncio.timeout(10):
        output = await process.stdout.read()
        await process.wait_closed()
    return output.decode(), process.exit_status


async def drawn(process) -> None:
    async with asyncio.timeout(15):
        assert await process.stdout.read(1)


async def guest_connection(port: int) -> asyncssh.SSHClientConnection:
    return await asyncssh.connect(
        "127.0.0.1", port, username="mallory", known_hosts=None, client_keys=None,
        preferred_auth="keyboard-interactive", password="",
    )


async def test_ssh_screens_are_bounded_per_connection_person_and_server_and_given_back(tmp_path):
    limits = dict(max_sessions_per_connection=2, max_sessions_per_player=3, max_sessions=4)
    async with fair_server(tmp_path, Clock(), **limits) as server:
        first, second = await guest_connection(server.port), await guest_connection(server.port)
        alice_key = asyncssh.generate_private_key("ssh-ed25519")
        alice = await asyncssh.connect(
            "127.0.0.1", server.port, username="alice", client_keys=[alice_key], known_hosts=None
        )
        try:
            open_ones = [await open_channel(first), await open_channel(first)]
            for process in open_ones:
                await drawn(process)
            line, status = await refusal(await open_channel(first))
            assert status == 1
            assert line == "termgames: this connection has 2 screens open already (the most one connection may): "\
                "close one\r\n"
            open_ones.append(await open_channel(second))  # her third screen, on another connection
            await drawn(open_ones[-1])
            line, status = await refusal(await open_channel(second))
            assert status == 1 and line.startswith(
                "termgames: you have 3 SSH screens open on this server already (the most one person may)"
            )
            # A command is no screen: it still runs.
            ran = await second.run("tables", check=False)
            assert ran.exit_status == 0
            open_ones.append(await open_channel(alice))  # another person: the server's fourth
            await drawn(open_ones[-1])
            line, status = await refusal(await open_channel(alice))
            assert (line, status) == ("termgames: this server has 4 SSH screens open already: try again later\r\n", 1)

            assert set(server.budgets.people) == {MALLORY, key_owner(alice_key.get_fingerprint("sha256"))}
            for process in open_ones:
                process.close()
            await until(lambda: not server.sessions, "every screen closed")
            assert server.budgets.people == {}  # what counted them is given back with them
            again = await open_channel(first)
            await drawn(again)
            again.close()
        finally:
            for conn in (first, second, alice):
                conn.close()
                with contextlib.suppress(Exception):
                    await conn.wait_closed()


# --------------------------------------------------------------------------
# A clock under a flood
# --------------------------------------------------------------------------


async def test_a_move_is_charged_to_when_it_was_received_not_when_the_busy_server_got_to_it(
    tmp_path, monkeypatch
):
    stall = 3.0
    hub_clock = Clock()
    keys = {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("alice", "bob")}
    async with fair_server(tmp_path, Clock(), time_source=CallableTime(hub_clock)) as server:
        for name, key in keys.items():
            assert server.store.claim(name, key.get_fingerprint("sha256"))
        alice_owner = key_owner(keys["alice"].get_fingerprint("sha256"))
        made = run_command(server.hub, "alice", "challenge copolymer --size 5 --clock 1m bob", owner=alice_owner)
        assert made.status == 0, made.stderr
        live = server.hub.table(1)
        started = hub_clock.now
        assert live.match.clocks is not None and live.match.clocks.since == started

        # The server is busy elsewhere between the key's arrival and the app's handling of it: the hub's clock
        # moves on by ``stall`` in between (as 3.5 s did under the resize flood).
        feed = ChannelDriver.feed
        armed = [False]

        def busy_then_fed(self, text: str) -> None:
            if armed[0] and "\r" in text:
                armed[0] = False
                hub_clock.now += stall
            feed(self, text)

        monkeypatch.setattr(ChannelDriver, "feed", busy_then_fed)
        terminals = []
        guests = await guest_browser(server)
        try:
            alice = await connect(server.port, "alice", keys["alice"])
            terminals.append(alice)
            await alice.wait_for("your move")
            await alice.press("enter")
            await alice.wait_for("to claim")
            # Meanwhile a guest floods resizes from her pages: none of it is charged to alice either.
            pages = [await open_page(guests, server) for _ in range(3)]
            for page in pages:
                await lobby(page)
            for width, height in [(240, 80), (20, 8)] * 10:
                for page in pages:
                    await page.send_str(json.dumps(["resize", {"width": width, "height": height}]))
            hub_clock.now += 10.0  # alice thinks for 10 s
            armed[0] = True
            await alice.press("enter")  # claim the cursor's cell
            await until(lambda: len(live.match.moves) == 1, "alice's move was made")
            clocks = live.match.clocks
            assert clocks is not None
            assert clocks.left[0] == pytest.approx(60.0 - 10.0)  # charged up to when her key arrived
            assert clocks.since == pytest.approx(started + 10.0 + stall)  # bob's clock starts when he is told
            assert clocks.left[1] == pytest.approx(60.0)
            for page in pages:
                await page.close()
        finally:
            for terminal in terminals:
                await terminal.close()
            await guests.close()


def test_one_person_s_terminals_share_one_budget_and_it_is_forgotten_with_the_last():
    clock = Clock()
    budgets = PersonBudgets(clock)
    page, channel = budgets.join(MALLORY), budgets.join(MALLORY)
    bob = budgets.join(key_owner("SHA256:bob"))
    while page.take_key():  # her burst, spent from one page
        pass
    assert not channel.take_key() and bob.take_key()  # her other terminal has none left; bob has his own
    assert page.wait_for_bytes(16 * 1024) == 0.0 and channel.wait_for_bytes(1) > 0
    clock.now += 1.0
    assert channel.take_key() and channel.wait_for_bytes(1) == 0.0  # it refills with time, for all of hers
    budgets.leave(page)
    budgets.leave(page)  # given back once only
    assert MALLORY in budgets.people
    budgets.leave(channel)
    budgets.leave(bob)
    assert budgets.people == {}
