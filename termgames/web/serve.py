"""``termgames serve --web PORT``: the server's lobby and tables in a browser, signed in by SSH keys.

A browser session is one more kind of connection to the server's hub, beside
the SSH channels: its app is a :class:`~termgames.server.ui.app.ServeApp` (the
lobby, the shared tables, their chat and spectators) as the player's own, with
her identity, her seat's views only, the same limits and the same bounds on
input; spectators' pages join the server's spectator groups.  What the browser
adds is signing in, which stays with SSH keys:

* ``ssh -p 2222 alice@HOST web [TABLE]`` prints a one-time link (10 minutes,
  one use), kept in the store as its token's digest so that any server behind
  the balancer takes it.  Opening it answers the page itself (never a
  redirect: a SameSite=Strict cookie set on a redirect from a link followed
  from another site would not come with the next request) with a cookie
  (HttpOnly, SameSite=Strict; over TLS Secure and named ``__Host-``, which no
  other host or plain-HTTP page can set) whose digest the store keeps too:
  the browser is alice's for 30 days, or until ``ssh HOST web
  --sign-out-all`` (her open pages close: at once here, within
  :data:`SIGN_OUT_CHECK` seconds at the other servers).
* Where the server takes guests, the page a browser not signed in gets offers
  "Come in as a guest": a guest name for the visit, a cookie the browser
  forgets on closing, at most :data:`~termgames.server.limits.WEB_GUESTS_PER_MINUTE`
  a minute per address, whose sessions count together as SSH guests' tables do.

Nothing else opens a session: without a valid link or cookie the page, its
files and its websocket answer 403.  A session lives in one server process; a
page whose connection drops comes back to it within the grace period, or, at
another server (or past it), gets a new app that returns to the table she was
at (:meth:`~termgames.server.hub.Hub.returning_to`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import html
import logging
import secrets
import ssl
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web
from textual.app import App

from ..server.limits import (
    WEB_GUEST_BURST,
    WEB_GUEST_HOURS,
    WEB_GUEST_SHARE,
    WEB_GUESTS_PER_MINUTE,
    WEB_LINK_SECONDS,
    WEB_MAX_SESSIONS,
    WEB_MAX_SESSIONS_PER_PLAYER,
    WEB_SIGN_IN_DAYS,
    RateLimit,
)
from ..server.people import guest_name, guest_owner
from ..server.stores.interface import StoreError, WebPass
from ..server.ui.app import ServeApp
from .guard import ConnectionGuard, ConnectionLimits, descriptor_limit, fit_to_descriptors, listen
from .pages import STATIC, WebFront, forbidden, page_address, same_origin, server_names
from .screen_info import ScreenInfo, game_title, key_buttons, minimum_size
from .session import BrowserSession, SessionRegistry, Visitor

if TYPE_CHECKING:
    from ..server.ssh import TermgamesServer

log = logging.getLogger("termgames.server")

#: The cookie that signs a browser in to a server (its value: a random token; the store keeps its digest), and
#: its name over TLS: a ``__Host-`` cookie is set by this host only, over TLS, for the whole site, so that a
#: neighbouring name (a sibling subdomain) or a plain-HTTP port cannot slip in one of its own.
COOKIE = "termgames_signin"
SECURE_COOKIE = "__Host-" + COOKIE
#: Seconds between two looks at the store for sign-ins ended at another server (their pages here close).
SIGN_OUT_CHECK = 10.0
#: Why the gate refused a request, kept on the request for the line the browser reads.
REFUSAL = web.RequestKey("termgames_refusal", str)
#: What a signed-out page says (``ssh``: the command that signs its player in).
SIGNED_OUT = "This browser was signed out (web --sign-out-all): {ssh} web gives a new link."
#: What the page of a browser not signed in may do: post the guest form to this server (nothing else).
REFUSED_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'"
)

REFUSED_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>termgames</title>
<style>
body {{ font: 16px/1.5 sans-serif; background: #121212; color: #ddd; max-width: 36em; margin: 2em auto;
       padding: 0 1em; }}
code {{ color: #fff; }}
button {{ font-size: 1.1em; padding: 0.5em 1.2em; margin: 0.5em 0; }}
</style></head>
<body>
<p id="refusal">termgames: {line}</p>
{guest}
</body></html>
"""

GUEST_FORM = """<form method="post" action="guest"><button type="submit" id="guest">Come in as a guest</button></form>
<p>A guest's name lasts one visit. To play as yourself, sign in with your SSH key: <code>{command}</code>
prints a link that signs this browser in.</p>
"""


def database_away(error: StoreError) -> web.HTTPServiceUnavailable:
    """The answer while the database cannot be reached: not a refusal (a page that asks goes on asking)."""
    log.warning("a browser's sign-in not read: %s", error)
    return web.HTTPServiceUnavailable(
        text="termgames: the database cannot be reached just now: try again in a moment",
        headers={"Cache-Control": "no-store"},
    )


def digest(token: str) -> str:
    """What the store keeps of a token (a link's, a cookie's): whoever reads the database cannot sign in with it."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def iso_in(now: datetime, seconds: float) -> str:
    """The time ``seconds`` after ``now`` as the store writes times (``now_iso``: UTC, seconds)."""
    return (now + timedelta(seconds=seconds)).replace(microsecond=0).isoformat()


def cookie_name(request: web.Request) -> str:
    """The sign-in cookie's name for ``request``: ``__Host-`` over TLS (or behind a trusted proxy's https)."""
    return SECURE_COOKIE if request.secure else COOKIE


def cookies_named(request: web.Request, name: str) -> int:
    """How many cookies called ``name`` came (aiohttp keeps the last of several: one of them may not be ours)."""
    return sum(
        1
        for header in request.headers.getall("Cookie", ())
        for part in header.split(";")
        if part.split("=", 1)[0].strip() == name
    )


@dataclass(frozen=True)
class WebSettings:
    """``termgames serve --web PORT`` and its options."""

    port: int
    host: str = "127.0.0.1"
    #: TLS: the certificate chain and its key (PEM files); None: plain HTTP (loopback, or behind a proxy).
    cert: Path | None = None
    key: Path | None = None
    #: The address players open (a reverse proxy's); None: this server's own.
    url: str | None = None
    #: Reverse proxies whose X-Forwarded-Proto and X-Forwarded-For are believed.
    proxies: frozenset[str] = frozenset()
    max_sessions: int = WEB_MAX_SESSIONS
    max_sessions_per_player: int = WEB_MAX_SESSIONS_PER_PLAYER
    #: Several server processes share the port (``--workers``).
    reuse_port: bool = False
    #: Connections at once per address and in all, and the time a request has to arrive (:mod:`.guard`).
    limits: ConnectionLimits = field(default_factory=ConnectionLimits)


def tls_context(cert: Path, key: Path) -> ssl.SSLContext:
    """The server's TLS (OSError or ssl.SSLError when the files do not make one)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(cert), str(key))
    return context


def table_number(screens: list[Any]) -> int | None:
    """The number of the shared table the topmost screen that has one shows."""
    for screen in reversed(screens):
        number = getattr(getattr(screen, "table", None), "table_id", None)
        if isinstance(number, int):
            return number
    return None


def describe(app: App[Any]) -> ScreenInfo:
    """The page's news for a server's app: ``termgames - alice - Copolymer, table 12`` (``... - lobby``)."""
    stack = app.screen_stack
    game, number = game_title(stack), table_number(stack)
    where = f"{game}, table {number}" if game and number is not None else game or "lobby"
    player = getattr(app, "player", "")
    return ScreenInfo(f"termgames - {player} - {where}", key_buttons(app), minimum_size(stack))


class AccountGate:
    """Signed in: a browser holding a cookie the store knows, given for a one-time link or to a guest."""

    def __init__(self, service: TermgamesServer, front: BrowserFront) -> None:
        self.service = service
        self.front = front
        self.guests = RateLimit(WEB_GUESTS_PER_MINUTE, WEB_GUEST_BURST, clock=service.hub.time_source.monotonic)

    def iso_in(self, seconds: float) -> str:
        """``seconds`` from now, by the server's time source, as the store writes times."""
        return iso_in(self.service.hub.utc_now(), seconds)

    @property
    def store(self) -> Any:
        return self.service.store

    def _refuse(self, request: web.Request, line: str) -> None:
        request[REFUSAL] = line

    def owner(self, request: web.Request) -> Visitor | None:
        name = cookie_name(request)
        token = request.cookies.get(name)
        if not token:
            return None
        if cookies_named(request, name) > 1:
            # Another site under a neighbouring name (or port) set one: which of them is ours cannot be told.
            self._refuse(
                request,
                "this browser sent two sign-in cookies (a neighbouring site set one): clear this site's cookies, "
                f"then {self._how_to_sign_in()}",
            )
            return None
        key = digest(token)
        try:
            found = self.store.web_cookie(key)
        except StoreError as error:
            raise database_away(error) from None
        if found is None or found.expires <= self.iso_in(0):
            self._refuse(request, f"this browser is signed out: {self._how_to_sign_in()}")
            return None
        return Visitor(found.player, found.owner, found.guest, key)

    def sign_in(self, request: web.Request) -> web.StreamResponse | None:
        token = request.query.get("token")
        if token is None:
            return None
        try:
            found = self.store.take_web_link(digest(token))
        except StoreError as error:
            raise database_away(error) from None
        if found is None or found.expires <= self.iso_in(0):
            what = "has expired (a link works for 10 minutes)" if found else "was used already (a link works once)"
            self._refuse(request, f"this sign-in link {what}: {self._how_to_sign_in()}")
            return None
        cookie = secrets.token_urlsafe(32)
        lasting = WEB_SIGN_IN_DAYS * 86400
        try:
            self.store.add_web_cookie(digest(cookie), WebPass(found.player, found.owner, False, self.iso_in(lasting)))
        except StoreError as error:  # the link is used up, and signed nobody in: she asks for another
            log.warning("%s not signed in to a browser: %s", found.player, error)
            self._refuse(request, "the database cannot be reached just now: ask for a new link in a moment")
            return None
        log.info("%s signed in to a browser", found.player)
        # The page itself, not a redirect (see the module doc); the page drops the token from the address bar.
        response = web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})
        response.set_cookie(
            cookie_name(request), cookie, max_age=lasting, httponly=True, samesite="Strict", secure=request.secure,
            path="/",
        )
        return response

    def refusal(self, request: web.Request) -> str:
        return request.get(REFUSAL) or f"sign in first: {self._how_to_sign_in()}"

    def refused(self, request: web.Request) -> web.StreamResponse:
        guest = ""
        if self.service.config.allow_guests:
            guest = GUEST_FORM.format(command=html.escape(self._command()))
        page = REFUSED_PAGE.format(line=html.escape(self.refusal(request)), guest=guest)
        return web.Response(
            status=403, text=page, content_type="text/html",
            headers={
                "Cache-Control": "no-store",
                "Content-Security-Policy": REFUSED_POLICY,
                # Not no-referrer: a form posted under it says "Origin: null", and the guest's way in checks the
                # Origin.  Its address goes to this server only.
                "Referrer-Policy": "same-origin",
            },
        )

    def routes(self) -> list[web.RouteDef]:
        return [web.post("/guest", self.guest)]

    async def guest(self, request: web.Request) -> web.StreamResponse:
        """The page's "Come in as a guest": a guest's name and a cookie for the visit, then the page."""
        if not self.service.config.allow_guests:
            return forbidden(f"this server takes no guests: {self._how_to_sign_in()}")
        if not same_origin(request):
            return forbidden("a guest comes in from this server's own page")
        owner = guest_owner(request.remote or "")
        if not self.guests.take(owner):
            return forbidden("too many guests from your address just now: try again in a minute")
        name = guest_name("web")
        cookie = secrets.token_urlsafe(32)
        try:
            self.store.add_web_cookie(digest(cookie), WebPass(name, owner, True, self.iso_in(WEB_GUEST_HOURS * 3600)))
        except StoreError as error:
            log.warning("a guest not signed in to a browser: %s", error)
            return forbidden("the database cannot be reached just now: try again in a moment")
        log.info("%s signed in to a browser as a guest", name)
        # A POST of this server's own page: the redirected request is same-site, and so carries the cookie.
        response = web.Response(status=303, headers={"Location": "./", "Cache-Control": "no-store"})
        # No Max-Age: the browser forgets it on closing (a guest's name lasts one visit).
        response.set_cookie(
            cookie_name(request), cookie, httponly=True, samesite="Strict", secure=request.secure, path="/"
        )
        return response

    def _command(self) -> str:
        """``ssh -p PORT NAME@HOST web``, as players reach the server (``--public-address``)."""
        return f"{self.service.hub.address.command('NAME')} web"

    def _how_to_sign_in(self) -> str:
        return f"{self._command()} prints a link that signs this browser in"


class BrowserFront:
    """The server's browser front: its aiohttp site, its sessions (each a :class:`ServeApp`), their sign-ins."""

    def __init__(self, service: TermgamesServer, settings: WebSettings) -> None:
        self.service = service
        self.settings = settings
        self.registry = SessionRegistry(
            self._make_app, describe, on_end=self._ended, groups=service.spectator_groups,
            max_sessions=settings.max_sessions, max_per_owner=settings.max_sessions_per_player,
            budgets=service.budgets, max_guests=max(1, int(settings.max_sessions * WEB_GUEST_SHARE)),
        )
        self.gate = AccountGate(service, self)
        self.runner: web.AppRunner | None = None
        self.guard: ConnectionGuard | None = None
        self.port = settings.port
        self.url = settings.url or ""
        self._checker: asyncio.Task[None] | None = None

    async def start(self) -> None:
        settings = self.settings
        context = tls_context(settings.cert, settings.key) if settings.cert and settings.key else None
        limits, warning = fit_to_descriptors(settings.limits, descriptor_limit())
        if warning:
            log.warning("%s", warning)
        names = server_names(settings.url, settings.host, self.service.hub.address.host)
        application = WebFront(self.registry, self.gate, settings.proxies, names).application()
        self.runner, self.guard = await listen(
            application, settings.host, settings.port, limits, tls=context, proxies=settings.proxies,
            reuse_port=settings.reuse_port, log=log,
        )
        self.port = self.runner.addresses[0][1] if self.runner.addresses else settings.port
        if not self.url:
            self.url = page_address(settings.host, self.port, context is not None)
        if not self.url.endswith("/"):
            self.url += "/"
        self._checker = asyncio.get_running_loop().create_task(self._check_sign_ins_forever())

    # -- the sessions ---------------------------------------------------------------------

    def _make_app(self, session: BrowserSession) -> ServeApp:
        visitor, service = session.visitor, self.service
        opening = int(session.opening) if session.opening.isascii() and session.opening.isdigit() else None
        app = ServeApp(
            hub=service.hub, player=visitor.name, guest=visitor.guest, ascii=service.config.ascii, owner=visitor.owner,
            opening=opening,
        )
        app.watching = session.watching
        return app

    def _ended(self, session: BrowserSession) -> list[str]:
        if isinstance(session.app, ServeApp):
            session.app.release_tables()  # the store still says where she sat: her next session starts there
        return []

    def restart_lines(self, session: BrowserSession) -> list[str]:
        """What a page says as the server stops: it restarts, the clocks wait, the page comes back by itself."""
        address, name = self.service.hub.address, session.visitor.name
        _, *clocks, _ = address.restart_lines(name)  # the terminal's words, but for the way back
        return ["The server is restarting.", *clocks, "This page connects again by itself once it is back.",
                f"Or over SSH: {address.command(name)}"]

    # -- signing in and out (the ``web`` command) ---------------------------------------------

    def link(self, player: str, owner: str, table_id: int | None) -> str:
        token = secrets.token_urlsafe(32)
        expires = iso_in(self.service.hub.utc_now(), WEB_LINK_SECONDS)
        self.service.store.add_web_link(digest(token), WebPass(player, owner, False, expires))
        return f"{self.url}?token={token}" + (f"&table={table_id}" if table_id is not None else "")

    def sign_out_all(self, player: str) -> int:
        count: int = self.service.store.drop_web_sign_ins(player)
        closed = self.registry.close_where(
            lambda s: s.visitor.name == player and not s.visitor.guest, self.signed_out
        )
        log.info("%s signed out of every browser (%s pages closed here)", player, closed)
        return count

    async def _check_sign_ins_forever(self) -> None:
        """Close the pages whose sign-in ended at another server sharing the store (or went past its time)."""
        while True:
            await asyncio.sleep(SIGN_OUT_CHECK)
            signed = {session.visitor.sign_in for session in self.registry.sessions.values()}
            signed.discard("")
            if not signed:
                continue
            try:
                kept = self.service.store.web_cookies_kept(signed)
            except StoreError as error:  # not now: the next look
                log.warning("browsers' sign-ins not checked: %s", error)
                continue
            self.close_signed_out(kept)

    def close_signed_out(self, kept: set[str]) -> int:
        """Close the sessions whose sign-in is not among ``kept`` (the sign-ins the store still has)."""
        return self.registry.close_where(lambda s: s.visitor.sign_in not in kept, self.signed_out)

    def signed_out(self, session: BrowserSession) -> str:
        """What the page of a session signed out says: how its player gets a new link."""
        return SIGNED_OUT.format(ssh=self.service.hub.address.command(session.visitor.name))

    async def close(self) -> None:
        if self._checker is not None:
            self._checker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checker
        await self.registry.close(restarting=self.restart_lines)
        if self.runner is not None:
            await self.runner.cleanup()
        if self.guard is not None:
            self.guard.close()


async def start_web(service: TermgamesServer, settings: WebSettings) -> BrowserFront:
    """Serve the server's lobby and tables to browsers too (OSError, ssl.SSLError: it cannot listen)."""
    front = BrowserFront(service, settings)
    await front.start()
    return front

