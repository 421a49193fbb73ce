"""``termgames serve --web`` without a browser: sign-in rows, the ``web`` command, the gate, limits, guests, TLS.

Each test runs an in-process server with its browser front (real Textual apps
behind it) and talks to it as a page would (aiohttp's client);
``test_web_serve_browser.py`` drives the page in Chromium.
"""

from __future__ import annotations

import asyncio
import datetime
from contextlib import asynccontextmanager

import aiohttp
import asyncssh
import pytest
from sshterm import command, connect
from webtools import ALICE, closed_with, link_for, next_message, screen_titled, web_server

from termgames.server.commands import run_command
from termgames.server.people import key_owner
from termgames.server.ssh import TermgamesServer, start_server
from termgames.server.stores.interface import StoreUnavailable, WebPass
from termgames.web import serve as web_serve
from termgames.web.serve import COOKIE, SIGNED_OUT, WebSettings, digest, iso_in, start_web
from termgames.web.session import CLOSE_ENDED, CLOSE_REFUSED


@asynccontextmanager
async def browser(server, **options):
    """A browser's cookie jar and connections (a fresh one is a browser never signed in)."""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True), **options) as http:
        yield http


def signed_out(server: TermgamesServer) -> str:
    """What alice's signed-out page says at ``server``: the command that gets her a new link there."""
    return SIGNED_OUT.format(ssh=f"ssh -p {server.port} alice@127.0.0.1")


def base(server) -> str:
    return server.web.url


async def open_page(http, server, *, session: str = "", table: str = "", origin: str | None = None):
    origin = origin if origin is not None else base(server).rstrip("/")
    return await http.ws_connect(
        f"{base(server)}ws?session={session}&width=100&height=30&table={table}", headers={"Origin": origin}
    )


async def titled(socket, title: str, timeout: float = 15.0) -> None:
    async with asyncio.timeout(timeout):
        await screen_titled(socket, title)


# -- the store's rows ----------------------------------------------------------------------------------------


def test_sign_in_links_and_cookies_in_the_store(new_store):
    store = new_store()
    soon, gone = iso_in(datetime.datetime.now(datetime.UTC), 600), iso_in(datetime.datetime.now(datetime.UTC), -60)
    store.add_web_link("link-1", WebPass("alice", ALICE, False, soon))
    store.add_web_link("old-link", WebPass("alice", ALICE, False, gone))
    assert store.take_web_link("link-1") == WebPass("alice", ALICE, False, soon)
    assert store.take_web_link("link-1") is None  # once
    store.add_web_link("link-2", WebPass("alice", ALICE, False, soon))  # forgets the links past their time
    assert store.take_web_link("old-link") is None
    store.add_web_link("expired", WebPass("alice", ALICE, False, gone))
    assert store.take_web_link("expired").expires == gone  # taken all the same: the caller says it expired

    store.add_web_cookie("c-alice", WebPass("alice", ALICE, False, soon))
    store.add_web_cookie("c-alice-2", WebPass("alice", ALICE, False, soon))
    store.add_web_cookie("c-guest", WebPass("guest-web-1", "guest:10.0.0.1", True, soon))
    assert store.web_cookie("c-guest") == WebPass("guest-web-1", "guest:10.0.0.1", True, soon)
    assert store.web_cookies_kept(["c-alice", "c-guest", "nope"]) == {"c-alice", "c-guest"}
    assert store.drop_web_sign_ins("alice") == 2
    assert store.web_cookie("c-alice") is None and store.take_web_link("link-2") is None  # her links go too
    assert store.web_cookies_kept(["c-alice", "c-alice-2", "c-guest"]) == {"c-guest"}
    store.close()
    again = new_store()  # kept across a restart (and by every server of a shared database)
    assert again.web_cookie("c-guest") is not None


# -- the web command -----------------------------------------------------------------------------------------


async def test_the_web_command_over_ssh(tmp_path):
    keys = {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("alice",)}
    server = await start_server(tmp_path, "127.0.0.1", 0)
    try:
        refused = await command(server.port, "alice", keys["alice"], "web")
        assert refused.exit_status == 2 and "serves no browsers" in refused.stderr
        server.web = await start_web(server, WebSettings(0))
        made = await command(server.port, "alice", keys["alice"], "challenge copolymer --size 3 bob")
        assert made.exit_status == 0
        printed = await command(server.port, "alice", keys["alice"], "web 1")
        assert printed.exit_status == 0, printed.stderr
        assert "signs that browser in as alice, at table 1" in printed.stdout
        address = printed.stdout.split()[-1]
        assert address.startswith(server.web.url + "?token=") and address.endswith("&table=1")
        token = address.split("token=")[1].split("&")[0]
        found = server.store.take_web_link(digest(token))
        assert found.player == "alice" and found.owner == key_owner(keys["alice"].get_fingerprint("sha256"))
        for line, error in (("web 99", "no table 99"), ("web 1 2", "web [TABLE]"), ("web --all", "web [TABLE]")):
            result = await command(server.port, "alice", keys["alice"], line)
            assert result.exit_status == 2 and error in result.stderr and result.stderr.count("\n") == 1, line
        signed_out = await command(server.port, "alice", keys["alice"], "web --sign-out-all")
        assert signed_out.exit_status == 0 and "signed alice out of every browser" in signed_out.stdout
        guest = await connect(server.port, "zed", None)
        await guest.wait_for("signed in as guest-zed-")
        await guest.close()
        assert "connect with an SSH key" in run_command(server.hub, "guest-zed-1", "web", web=server.web).stderr
    finally:
        await server.close()


# -- the gate ------------------------------------------------------------------------------------------------


async def test_a_link_signs_in_once_and_never_again(tmp_path, db_url):
    async with web_server(tmp_path, db_url) as server:
        link = link_for(server)
        async with browser(server) as http:
            bare = await http.get(base(server))
            assert bare.status == 403 and "web prints a link" in await bare.text()
            for path in ("static/termgames.js", "alive"):
                assert (await http.get(base(server) + path)).status == 403
            signed = await http.get(link)
            assert signed.status == 200 and "termgames.js" in await signed.text()
            cookie = signed.headers["Set-Cookie"]
            assert cookie.startswith(COOKIE + "=")
            assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie
            assert f"Max-Age={30 * 86400}" in cookie
            assert (await http.get(base(server))).status == 200  # the cookie opens it from now on
            assert (await http.get(base(server) + "alive")).status == 204
        async with browser(server) as http:
            again = await http.get(link)
            assert again.status == 403 and "was used already" in await again.text()
            assert "Set-Cookie" not in again.headers
            gone = iso_in(datetime.datetime.now(datetime.UTC), -1)
            server.store.add_web_link(digest("old"), WebPass("alice", ALICE, False, gone))
            expired = await http.get(base(server) + "?token=old")
            assert expired.status == 403 and "has expired" in await expired.text()
            assert (await http.get(base(server) + "?token=made-up")).status == 403


async def test_the_websocket_opens_for_the_cookie_and_the_pages_own_origin_only(tmp_path):
    async with web_server(tmp_path) as server:
        run_command(server.hub, "alice", "challenge copolymer --size 3 bob", owner=ALICE)
        async with browser(server) as http:
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await open_page(http, server)
            await http.get(link_for(server))
            for origin in ("http://elsewhere.example", ""):
                with pytest.raises(aiohttp.WSServerHandshakeError):
                    await open_page(http, server, origin=origin)
            page = await open_page(http, server)
            await titled(page, "termgames - alice - lobby")
            odd = await open_page(http, server, table="²")  # a digit, but not a table's number: the lobby
            await titled(odd, "termgames - alice - lobby")
            other = await open_page(http, server, table="1")  # a link to a table: her seat there
            await titled(other, "termgames - alice - Copolymer, table 1")
            for socket in (page, other, odd):
                await socket.close()


async def test_while_the_database_is_away_a_page_is_told_to_wait_not_that_it_is_signed_out(tmp_path, monkeypatch):
    async with web_server(tmp_path) as server, browser(server) as http:
        await http.get(link_for(server))
        assert (await http.get(base(server) + "alive")).status == 204

        def away(digest: str) -> None:
            raise StoreUnavailable("the database cannot be reached")

        monkeypatch.setattr(server.store, "web_cookie", away)
        answer = await http.get(base(server) + "alive")  # the page reconnecting goes on asking (not 403)
        assert answer.status == 503 and "database cannot be reached" in await answer.text()


async def test_limits_are_refused_in_one_line(tmp_path):
    async with (
        web_server(tmp_path, max_sessions=2, max_sessions_per_player=1) as server,
        browser(server) as alices,
        browser(server) as bobs,
        browser(server) as carols,
    ):
        await alices.get(link_for(server))
        await bobs.get(link_for(server, "bob", owner=key_owner("SHA256:bob")))
        await carols.get(link_for(server, "carol", owner=key_owner("SHA256:carol")))
        first = await open_page(alices, server)
        await next_message(first, "session")
        (kind, line), code = await closed_with(await open_page(alices, server))
        assert (kind, code) == ("refused", CLOSE_REFUSED) and "\n" not in line
        assert line.startswith("you have 1 browser sessions open already")
        bob = await open_page(bobs, server)
        await next_message(bob, "session")
        (kind, line), code = await closed_with(await open_page(carols, server))
        assert kind == "refused" and line.startswith("this server has 2 browser sessions open already")
        await first.close()
        await bob.close()


async def test_signing_out_ends_every_page_here_and_at_the_other_servers(tmp_path, monkeypatch):
    monkeypatch.setattr(web_serve, "SIGN_OUT_CHECK", 0.1)
    async with web_server(tmp_path) as server, browser(server) as http, browser(server) as phone:
        await http.get(link_for(server))
        await phone.get(link_for(server))
        page = await open_page(http, server)
        await titled(page, "termgames - alice - lobby")
        result = run_command(server.hub, "alice", "web --sign-out-all", owner=ALICE, web=server.web)
        assert "(2 signed in)" in result.stdout
        last, code = await closed_with(page)
        assert last == ["ended", {"lines": [], "why": signed_out(server)}] and code == CLOSE_ENDED
        alive = await http.get(base(server) + "alive")
        assert alive.status == 403 and "signed out" in await alive.text()

        # Signed out at another server sharing the store: the rows go; the page here closes within a check.
        await phone.get(link_for(server))
        page = await open_page(phone, server)
        await titled(page, "termgames - alice - lobby")
        server.store.drop_web_sign_ins("alice")
        last, code = await closed_with(page)
        assert last == ["ended", {"lines": [], "why": signed_out(server)}]


async def test_guests_come_in_from_the_page_where_the_server_takes_guests(tmp_path):
    async with web_server(tmp_path) as server, browser(server) as http:
        refused = await http.get(base(server))
        assert refused.status == 403 and 'action="guest"' in await refused.text()
        assert "form-action 'self'" in refused.headers["Content-Security-Policy"]
        elsewhere = await http.post(base(server) + "guest", headers={"Origin": "http://elsewhere.example"})
        assert elsewhere.status == 403
        came = await http.post(
            base(server) + "guest", headers={"Origin": base(server).rstrip("/")}, allow_redirects=False
        )
        assert came.status == 303 and came.headers["Location"] == "./"
        cookie = came.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Max-Age" not in cookie  # one visit
        page = await open_page(http, server)
        _kind, info = await next_message(page, "screen")
        assert info["title"].startswith("termgames - guest-web-") and info["title"].endswith(" - lobby")
        await page.close()
        for _ in range(3):  # a few a minute from one address, no more
            await http.post(base(server) + "guest", headers={"Origin": base(server).rstrip("/")})
        flooded = await http.post(base(server) + "guest", headers={"Origin": base(server).rstrip("/")})
        assert flooded.status == 403 and "too many guests" in await flooded.text()
    async with web_server(tmp_path / "no", allow_guests=False) as server, browser(server) as http:
        refused = await http.get(base(server))
        assert refused.status == 403 and "guest" not in await refused.text()
        posted = await http.post(base(server) + "guest", headers={"Origin": base(server).rstrip("/")})
        assert posted.status == 403 and "takes no guests" in await posted.text()


def self_signed(tmp_path):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256())
    )
    cert, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert, key_file


async def test_over_tls_and_behind_a_trusted_proxy_the_cookie_is_secure(tmp_path):
    cert, key = self_signed(tmp_path)
    async with web_server(tmp_path / "tls", cert=cert, key=key) as server:
        assert server.web.url.startswith("https://")
        async with browser(server, connector=aiohttp.TCPConnector(ssl=False)) as http:
            signed = await http.get(link_for(server))
            assert signed.status == 200 and "; Secure" in signed.headers["Set-Cookie"]
            page = await open_page(http, server)  # wss, its origin https://
            await titled(page, "termgames - alice - lobby")
            await page.close()
        with pytest.raises(aiohttp.ClientError):  # plain HTTP is not served
            async with browser(server) as http:
                await http.get(server.web.url.replace("https://", "http://"))

    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"}
    async with web_server(tmp_path / "proxy", proxies=frozenset({"127.0.0.1"})) as server, browser(server) as http:
        signed = await http.get(link_for(server), headers=forwarded)
        assert "; Secure" in signed.headers["Set-Cookie"]
    async with (
        web_server(tmp_path / "stranger", proxies=frozenset({"192.0.2.1"})) as server,
        browser(server) as http,
    ):
        signed = await http.get(link_for(server), headers=forwarded)  # not from the proxy: not believed
        assert "Secure" not in signed.headers["Set-Cookie"]


async def test_several_servers_on_one_database_share_sign_ins_and_a_page_comes_back_at_another(
    tmp_path, pg_url, monkeypatch
):
    monkeypatch.setattr(web_serve, "SIGN_OUT_CHECK", 0.1)
    async with web_server(tmp_path / "a", pg_url) as first, web_server(tmp_path / "b", pg_url) as second:
        run_command(first.hub, "alice", "challenge copolymer --size 3 bob", owner=ALICE)
        async with browser(first) as http:
            signed = await http.get(link_for(first).replace(base(first), base(second)))  # made at one, taken at another
            assert signed.status == 200
            page = await open_page(http, first, table="1")  # the cookie works at every server
            await titled(page, "termgames - alice - Copolymer, table 1")
            await page.close()
            # Her page reconnects at the other server: a new session there, back at the table she was at.
            again = await open_page(http, second)
            await titled(again, "termgames - alice - Copolymer, table 1")
            result = run_command(first.hub, "alice", "web --sign-out-all", owner=ALICE, web=first.web)
            assert "(1 signed in)" in result.stdout
            last, _code = await closed_with(again)  # closed at the other server within a check
            assert last == ["ended", {"lines": [], "why": signed_out(second)}]


def test_the_web_options_mistakes_are_one_line_each(tmp_path):
    from typer.testing import CliRunner

    from termgames.cli import app

    runner = CliRunner()
    for arguments, line in (
        (["--web", "70000"], "--web must be a port between 0 and 65535, not 70000"),
        (["--web", "0", "--web-cert", str(tmp_path / "c.pem")], "--web-cert and --web-key go together"),
        (["--web", "0", "--web-cert", str(tmp_path / "c.pem"), "--web-key", str(tmp_path / "k.pem")],
         "make no TLS certificate"),
        (["--web", "0", "--web-url", "games.example.org"], "--web-url takes the page's address"),
        (["--web", "0", "--web-proxy", "proxy.example.org"], "--web-proxy takes the proxies' IP addresses"),
        (["--web", "0", "--web-max-sessions", "0"], "--web-max-sessions must be at least 1, not 0"),
        (["--web", "0", "--web-max-connections-per-address", "0"],
         "--web-max-connections-per-address must be at least 1, not 0"),
        (["--web", "0", "--web-request-seconds", "0"], "--web-request-seconds must be more than 0 and at most 3600"),
    ):
        result = runner.invoke(app, ["serve", "--data", str(tmp_path), *arguments])
        assert result.exit_code == 2, (arguments, result.output)
        assert line in result.output and result.output.count("\n") == 1, (arguments, result.output)


# -- sessions at the server's tables ---------------------------------------------------------------------------


async def test_browser_spectators_draw_once_and_a_session_that_ends_leaves_its_table(tmp_path):
    async with web_server(tmp_path) as server:
        run_command(server.hub, "alice", "challenge copolymer --size 3 bob", owner=ALICE)
        live = server.hub.table(1)
        async with browser(server) as alices, browser(server) as carols, browser(server) as dans:
            await alices.get(link_for(server))
            await carols.get(link_for(server, "carol", owner=key_owner("SHA256:carol")))
            await dans.get(link_for(server, "dan", owner=key_owner("SHA256:dan")))
            alice = await open_page(alices, server, table="1")
            await titled(alice, "termgames - alice - Copolymer, table 1")
            carol = await open_page(carols, server, table="1")
            dan = await open_page(dans, server, table="1")
            await titled(carol, "termgames - carol - Copolymer, table 1")
            await titled(dan, "termgames - dan - Copolymer, table 1")
            async with asyncio.timeout(10):
                while len(live.spectators()) < 2 or "alice" not in live.connected():
                    await asyncio.sleep(0.05)
            sessions = {s.visitor.name: s for s in server.web.registry.sessions.values()}
            groups = server.spectator_groups
            leader = next(sessions[name] for name in ("carol", "dan") if not groups.following(sessions[name]))
            assert {leader, *groups.followers(leader)} == {sessions["carol"], sessions["dan"]}  # one app draws both
            assert not groups.following(sessions["alice"])  # a player's page is her own

            watching_lobbies = len(server.hub.lobby_watchers)
            leader.close()  # its grace period is over, say: its app leaves the table, the other draws itself
            async with asyncio.timeout(10):
                while leader.visitor.name in live.spectators() or not leader.ended:
                    await asyncio.sleep(0.05)
            assert len(server.hub.lobby_watchers) == watching_lobbies - 1  # nor does it hear the lobby's news
            other = sessions["dan" if leader is sessions["carol"] else "carol"]
            assert groups.followers(other) == [] and not groups.following(other)
            for page in (alice, carol, dan):
                await page.close()
