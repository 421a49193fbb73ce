"""Strangers against the browser port (issue 32, items 3 and 8; issue 33, item 7): half-open requests held
forever, the process's file descriptors filled until SSH players are locked out, a page of another name
pointed at the server (DNS rebinding), a second sign-in cookie, pages that name the server by the wrong address.

Each test runs a real ``termgames serve --web`` (in-process, or a process of its own for the file descriptor
limit) against real clients (raw sockets for the half-open requests, aiohttp for a browser's, asyncssh for a
player's); each reproduced its attack before the fix.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import asyncssh
import pytest
from sshterm import command
from test_web_serve import browser, self_signed
from webtools import link_for, web_server

from termgames.server.address import SshAddress
from termgames.server.people import key_owner
from termgames.web.guard import ConnectionLimits, fit_to_descriptors
from termgames.web.serve import COOKIE, SECURE_COOKIE

HALF_A_REQUEST = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\n"


async def half_open(port: int, source: str = "127.0.0.1"):
    """A connection that sends part of a request's headers (and, unless told, nothing more)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(HALF_A_REQUEST)
    await writer.drain()
    return reader, writer


async def closed_by_server(reader, within: float) -> bytes:
    """Everything the server sent before it closed the connection (AssertionError: still open ``within`` s on)."""
    received = b""
    try:
        async with asyncio.timeout(within):
            while chunk := await reader.read(65536):
                received += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        raise AssertionError(f"the server held the connection for {within} s") from None
    return received


async def tables_answers(port: int, key) -> None:
    """An SSH player's ``tables`` answers (within 90 s: a loaded machine can be slow; held by the attack it never
    answers at all)."""
    async with asyncio.timeout(90):
        result = await command(port, "alice", key, "tables")
    assert result.exit_status == 0, result.stderr


@pytest.fixture
def key():
    return asyncssh.generate_private_key("ssh-ed25519")


# -- 3. half-open requests ----------------------------------------------------------------------------------


async def test_a_request_trickled_a_header_line_at_a_time_is_closed_at_its_deadline(tmp_path, key):
    limits = ConnectionLimits(per_address=50, total=100, request_seconds=0.5)
    async with web_server(tmp_path, limits=limits) as server:
        port = server.web.port
        attack = [await half_open(port) for _ in range(5)]
        # A trickled body too: its request is answered at once (nobody reads a body here), the rest must come soon.
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"POST /guest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\nx")
        attack.append((reader, writer))

        async def trickle() -> None:  # the attacker's pace: a header line (a byte of body) now and then
            while True:
                await asyncio.sleep(0.1)
                for _reader, each in attack:
                    with contextlib.suppress(ConnectionError, RuntimeError):
                        each.write(b"X-Slow: 1\r\n")

        trickling = asyncio.get_running_loop().create_task(trickle())
        try:
            await tables_answers(server.port, key)  # SSH answers meanwhile
            for reader, _writer in attack[:5]:
                told = (await closed_by_server(reader, within=10)).decode()
                assert told.startswith("HTTP/1.1 408 Request Timeout\r\n")
                assert told.split("\r\n\r\n", 1)[1] == (
                    "termgames: a request must arrive whole within 0.5 seconds: connection closed\n"
                )
            answered = await closed_by_server(attack[5][0], within=10)
            assert answered.startswith(b"HTTP/1.1 403")
        finally:
            trickling.cancel()
            for _reader, writer in attack:
                writer.close()


async def test_connections_are_limited_per_address_and_in_all_each_refused_in_one_line(tmp_path, key):
    limits = ConnectionLimits(per_address=3, total=5, request_seconds=60)
    async with web_server(tmp_path, limits=limits) as server:
        port = server.web.port
        held = [await half_open(port) for _ in range(3)]
        reader, _writer = await half_open(port)
        refused = (await closed_by_server(reader, within=10)).decode()
        assert refused.startswith("HTTP/1.1 503")
        line = refused.split("\r\n\r\n", 1)[1]
        assert line == (
            "termgames: your address has 3 connections open here already (the most one address may have): "
            "close a page or try again in a moment\n"
        )
        held += [await half_open(port, "127.0.0.2") for _ in range(2)]  # another address: the total is 5
        reader, _writer = await half_open(port, "127.0.0.3")
        refused = (await closed_by_server(reader, within=10)).decode()
        assert refused.split("\r\n\r\n", 1)[1] == (
            "termgames: this server has 5 browser connections open already: try again in a moment\n"
        )
        await tables_answers(server.port, key)  # the SSH port is not the web port's: it answers
        for reader, writer in held:
            writer.close()
            assert await closed_by_server(reader, within=10) == b""
        guard = server.web.guard
        assert await settled(lambda: not guard.connections and not guard.by_owner)  # each counted out again


async def settled(predicate) -> bool:
    """Whether ``predicate()`` holds once the in-process server's pending callbacks have run (loop turns, no time)."""
    for _ in range(1000):
        if predicate():
            return True
        await asyncio.sleep(0)
    return predicate()


async def test_over_tls_a_handshake_counts_and_has_the_same_deadline(tmp_path):
    cert, key_file = self_signed(tmp_path)
    limits = ConnectionLimits(per_address=2, total=10, request_seconds=5)
    async with web_server(tmp_path / "tls", cert=cert, key=key_file, limits=limits) as server:
        port, guard = server.web.port, server.web.guard
        silent = [await asyncio.open_connection("127.0.0.1", port) for _ in range(2)]  # no handshake: no bytes
        reader, _writer = await asyncio.open_connection("127.0.0.1", port)
        assert await closed_by_server(reader, within=4) == b""  # one too many: closed at once (no line before TLS)
        for reader, _writer in silent:
            assert await closed_by_server(reader, within=20) == b""  # the handshake's deadline
        assert await settled(lambda: not guard.connections and not guard.by_owner)
        async with browser(server, connector=aiohttp.TCPConnector(ssl=False)) as http:
            assert (await http.get(server.web.url)).status == 403  # counted out: the address comes in again
        for _reader, writer in silent:
            writer.close()


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_ports(process: subprocess.Popen, *ports: int) -> None:
    import socket

    deadline = time.monotonic() + 60
    for port in ports:
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise AssertionError(process.communicate()[1].decode() or "termgames serve did not start")
            time.sleep(0.05)


FILES = 256  # the server's ulimit -n in the test (a service's is often 1024): the attack needs a few hundred


async def test_half_open_requests_cannot_fill_the_file_descriptors_and_lock_ssh_players_out(tmp_path, key):
    ssh_port, web_port = free_port(), free_port()

    # Limits set above what the process may open: the server lowers them to half its file descriptors.
    arguments = [
        "serve", "--port", str(ssh_port), "--data", str(tmp_path), "--web", str(web_port),
        "--web-max-connections", "100000", "--web-max-connections-per-address", "100000",
    ]
    small_ulimit = (
        f"import resource, runpy, sys; resource.setrlimit(resource.RLIMIT_NOFILE, ({FILES}, {FILES})); "
        f"sys.argv = ['termgames', *{arguments!r}]; runpy.run_module('termgames', run_name='__main__')"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", small_ulimit], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )
    attack = []
    try:
        wait_for_ports(process, ssh_port, web_port)
        for _ in range(FILES + 50):
            with contextlib.suppress(ConnectionError):
                attack.append(await half_open(web_port))
        await tables_answers(ssh_port, key)
    finally:
        for _reader, writer in attack:
            writer.close()
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            _out, errors = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            _out, errors = process.communicate()
    said = errors.decode()
    assert f"this process may open {FILES} files (ulimit -n): browser connections are limited to {FILES // 2}" in said
    assert "Too many open files" not in said


def test_the_connection_limits_fit_in_half_the_file_descriptors():
    limits = ConnectionLimits(per_address=30, total=400)
    assert fit_to_descriptors(limits, 20000) == (limits, None)
    assert fit_to_descriptors(limits, None) == (limits, None)  # a system that does not say
    fitted, warning = fit_to_descriptors(limits, 512)
    assert (fitted.total, fitted.per_address) == (256, 30)
    assert warning is not None and "limited to 256, not 400" in warning and "\n" not in warning
    fitted, _warning = fit_to_descriptors(limits, 40)
    assert (fitted.total, fitted.per_address) == (20, 20)


# -- 8. DNS rebinding and cookies ---------------------------------------------------------------------------


async def test_a_page_under_another_name_pointed_at_the_server_gets_no_guest_and_no_cookie(tmp_path):
    async with web_server(
        tmp_path, url="https://games.example.org/play/", public_address=SshAddress("ssh.example.net", 2222)
    ) as server, browser(server) as http:
        url = server.web.url.replace("https://games.example.org/play/", f"http://127.0.0.1:{server.web.port}/")
        evil = f"evil.example:{server.web.port}"
        came = await http.post(
            url + "guest", headers={"Host": evil, "Origin": f"http://{evil}"}, allow_redirects=False
        )
        assert came.status == 421 and "Set-Cookie" not in came.headers
        assert "does not answer to that name" in await came.text()
        page = await http.get(url, headers={"Host": evil})
        assert page.status == 421 and "guest" not in await page.text()
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(url + "ws", headers={"Host": evil, "Origin": f"http://{evil}"})
        assert refused.value.status == 421
        assert not list(http.cookie_jar)
        # Its own names: --web-url's, --public-address's, loopback's, an address's.
        names = ("games.example.org", "ssh.example.net:8080", "localhost", "127.0.0.1", "[::1]", "GAMES.example.org.")
        for host in names:
            answer = await http.get(url, headers={"Host": host})
            assert answer.status == 403 and 'action="guest"' in await answer.text(), host
        came = await http.post(
            url + "guest", headers={"Host": "games.example.org", "Origin": "https://games.example.org"},
            allow_redirects=False,
        )
        assert came.status == 303


async def test_two_sign_in_cookies_sign_the_browser_in_as_nobody(tmp_path):
    async with web_server(tmp_path) as server:
        tokens = {}
        for player in ("alice", "mallory"):
            async with browser(server) as http:
                signed = await http.get(link_for(server, player, owner=key_owner(f"SHA256:{player}")))
                tokens[player] = signed.cookies[COOKIE].value
        async with aiohttp.ClientSession() as http:
            for order in (("alice", "mallory"), ("mallory", "alice")):
                cookies = "; ".join(f"{COOKIE}={tokens[player]}" for player in order)
                alive = await http.get(server.web.url + "alive", headers={"Cookie": cookies})
                assert alive.status == 403
                assert (await alive.text()).startswith("this browser sent two sign-in cookies (a neighbouring site")
            alone = await http.get(server.web.url + "alive", headers={"Cookie": f"{COOKIE}={tokens['alice']}"})
            assert alone.status == 204


async def test_over_tls_the_sign_in_cookie_is_a_host_cookie_and_no_other_signs_in(tmp_path):
    cert, key_file = self_signed(tmp_path)
    async with (
        web_server(tmp_path / "tls", cert=cert, key=key_file) as server,
        browser(server, connector=aiohttp.TCPConnector(ssl=False)) as http,
    ):
        signed = await http.get(link_for(server))
        cookie = signed.headers["Set-Cookie"]
        assert cookie.startswith(SECURE_COOKIE + "=") and "; Secure" in cookie and "Path=/" in cookie
        assert "Domain" not in cookie
        token = signed.cookies[SECURE_COOKIE].value
        assert (await http.get(server.web.url + "alive")).status == 204
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=False)) as other:
            plain = await other.get(server.web.url + "alive", headers={"Cookie": f"{COOKIE}={token}"})
            assert plain.status == 403  # the name a neighbouring site or a plain-HTTP port can set is not read


# -- 33.7: the pages name the server as players reach it ----------------------------------------------------------


async def test_the_pages_name_the_server_by_its_public_address(tmp_path):
    async with (
        web_server(tmp_path, public_address=SshAddress("games.example.org", 2222)) as server,
        browser(server) as http,
    ):
        refused = await http.get(server.web.url)
        text = await refused.text()
        assert "ssh -p 2222 NAME@games.example.org web" in text and "127.0.0.1" not in text
        link = link_for(server)
        await http.get(link)
        async with browser(server) as another:
            used = await another.get(link)
            assert "ssh -p 2222 NAME@games.example.org web prints a link" in await used.text()


# -- termgames web: the same defences ------------------------------------------------------------------------


async def test_the_local_web_answers_to_its_own_names_only(tmp_path):
    from termgames.web import local

    started: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    serving = asyncio.get_running_loop().create_task(
        local.serve("127.0.0.1", 0, tmp_path, token="t0ken", say=lambda _line: None, started=started.set_result)
    )
    try:
        address = await asyncio.wait_for(started, 30)
        base = address.split("?")[0]
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            rebound = await http.get(address, headers={"Host": "evil.example"})
            assert rebound.status == 421 and "Set-Cookie" not in rebound.headers
            signed = await http.get(address)
            assert signed.status == 200
            assert (await http.get(base, headers={"Host": "localhost"})).status == 200
    finally:
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await serving
