"""The web server's side of browser play: the page, its assets, and the websocket of each browser session.

Routes (relative, so a reverse proxy may serve them under a path):

* ``/``: the page (``static/index.html``); a sign-in link (``/?token=...`` for
  ``termgames web``) is taken here by the :class:`Gate`;
* ``/static/NAME``: the page's script, styles, xterm.js and fonts, from this
  package only (the page asks no other host for anything, and its Content
  Security Policy forbids it to);
* ``/alive``: 204 for a browser signed in, 403 and the gate's one line
  otherwise (the page asks before it reconnects, to tell a server that is
  away from a sign-in that is over);
* ``/ws``: the websocket.  It speaks textual-serve's protocol: the page sends
  JSON arrays (``["stdin", text]``, ``["resize", {"width": W, "height": H}]``,
  ``["ping", t]``, ``["focus"]``, ``["blur"]``), the server sends the terminal's
  bytes as binary frames and ``["pong", t]``; and a few messages of our own:
  ``["session", id]`` (the id the page gives back to come back to its app),
  ``["screen", {"title", "keys", "minimum"}]`` (see :mod:`.screen_info`),
  ``["ended", {"lines", "why", "retry"}]`` (``retry``: the server restarts, the page comes back by itself),
  ``["replaced"]``, ``["refused", line]`` and
  ``["closed", line]`` before the server closes it.

Nothing opens without the gate's say: the page, every asset and the websocket
answer 403 to a browser not signed in, and the websocket checks that its
``Origin`` is the page's own host.  Before the gate, a request whose ``Host``
is none of the server's names (:func:`answers_to`) is answered 421: a page of
another site whose name was pointed at this server (DNS rebinding) reaches
neither a cookie nor the guest's way in.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import ipaddress
import json
import logging
import socket
from collections import deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web
from aiohttp.typedefs import Middleware

from .session import CLOSE_FLOODED, CLOSE_REFUSED, BrowserSession, Refused, SessionRegistry, Visitor

log = logging.getLogger("termgames.web")

STATIC = Path(__file__).resolve().parent / "static"
#: Every file the page may load, and its type: nothing else is served.
ASSETS = {
    "termgames.js": "text/javascript",
    "termgames.css": "text/css",
    "xterm.mjs": "text/javascript",
    "xterm.css": "text/css",
    "addon-fit.mjs": "text/javascript",
    "addon-unicode11.mjs": "text/javascript",
    "DejaVuSansMono.woff2": "font/woff2",
    "DejaVuSansMono-Bold.woff2": "font/woff2",
    "DejaVuSans-Braille.woff2": "font/woff2",
    "favicon.svg": "image/svg+xml",
    "LICENSES.txt": "text/plain",
}

#: What the page may load and connect to: this server only.  Inline styles: xterm.js writes its own.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    # The address may carry a sign-in token: it is never told to anyone.
    "Referrer-Policy": "no-referrer",
}

#: A message from the page at most this long (a paste is sent in pieces well under it): the input budget's
#: whole burst, so that any message can be paid for.
MAX_MESSAGE = 16 * 1024
#: Terminal output queued for a browser that does not read it, at most: past it the connection is closed (the
#: app goes on; the browser comes back and gets the whole screen).
MAX_OUTPUT = 4 * 1024 * 1024
CLOSE_NORMAL = 1000
#: A websocket ping every this many seconds: a connection that does not answer is closed (and its app waits).
HEARTBEAT = 15.0

FORBIDDEN = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>termgames</title></head>
<body><p>termgames: {line}</p></body></html>
"""


class Gate(Protocol):
    """Who may come in: whom a request is signed in as, and the ways to sign in."""

    def owner(self, request: web.Request) -> Visitor | None:
        """Who sent ``request`` (the sessions' visitor), or None: nobody signed in."""

    def sign_in(self, request: web.Request) -> web.StreamResponse | None:
        """A response to a request for the page that carries a sign-in (a token or a link), else None."""

    def refusal(self, request: web.Request) -> str:
        """The one line a browser not signed in reads."""

    def refused(self, request: web.Request) -> web.StreamResponse:
        """The answer to a browser not signed in asking for the page (its refusal, and what it may do)."""

    def routes(self) -> list[web.RouteDef]:
        """Routes of the gate's own (a guest's way in), beside the page's."""


def forbidden(line: str, status: int = 403) -> web.Response:
    return web.Response(
        status=status,
        text=FORBIDDEN.format(line=html.escape(line)),
        content_type="text/html",
        headers={"Cache-Control": "no-store"},
    )


def trust_forwarded(proxies: frozenset[str]) -> Middleware:
    """A middleware: a request from one of ``proxies`` (a reverse proxy's address) is taken as the proxy saw it
    (``X-Forwarded-Proto``: https makes the cookie Secure; ``X-Forwarded-For``: the browser's address, whose
    guests are counted together).  Anyone else's forwarded headers are ignored."""

    @web.middleware
    async def forwarded(
        request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if request.remote in proxies:
            changes: dict[str, Any] = {}
            scheme = request.headers.get("X-Forwarded-Proto", "").split(",")[0].strip().lower()
            if scheme in ("http", "https"):
                changes["scheme"] = scheme
            # The proxy appends the address it saw to whatever the browser sent: only that last one is true.
            address = request.headers.get("X-Forwarded-For", "").split(",")[-1].strip()
            if address:
                changes["remote"] = address
            if changes:
                request = request.clone(**changes)
        return await handler(request)

    return forwarded


def page_address(host: str, port: int, tls: bool = False) -> str:
    """The page's address at this server: the host as given (the machine's name for a wildcard), the port."""
    if host in ("", "0.0.0.0", "::"):
        host = socket.gethostname()
    if ":" in host:
        host = f"[{host}]"
    return f"{'https' if tls else 'http'}://{host}:{port}/"


#: Names every server answers to: this machine by its loopback.
LOOPBACK_NAMES = frozenset({"localhost"})


def host_name(text: str) -> str | None:
    """The name of a ``Host`` header (``games.example.org:8080``, ``[::1]:80``): lower case, no port, no final dot;
    None when it is not one."""
    try:
        name = urlsplit(f"//{text}").hostname
    except ValueError:
        return None
    return name.rstrip(".") if name else None


def answers_to(host: str | None, names: frozenset[str]) -> bool:
    """Whether a request for ``host`` (its ``Host`` header) is for this server: one of ``names`` (lower case),
    ``localhost``, or an IP address (a page can come from an address only by being opened at it: the name of
    another site, pointed at this server, is what DNS rebinding needs)."""
    name = host_name(host or "")
    if name is None:
        return False
    if name in names or name in LOOPBACK_NAMES:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def server_names(*hosts: str | None) -> frozenset[str]:
    """The names a server answers to, from its addresses and URLs (a wildcard address names this machine)."""
    names = set()
    for host in hosts:
        if host is None:
            continue
        if host in ("", "0.0.0.0", "::"):
            host = socket.gethostname()
        name = host_name(urlsplit(host).netloc if "://" in host else host)
        if name:
            names.add(name)
    return frozenset(names)


def same_origin(request: web.Request) -> bool:
    """Whether the websocket's ``Origin`` is the page's own host (a page elsewhere must not drive a session)."""
    origin = request.headers.get("Origin")
    if not origin:
        return False
    return urlsplit(origin).netloc.lower() == request.host.lower()


def _int(text: str | None, default: int) -> int:
    try:
        return int(text or "")
    except ValueError:
        return default


class SocketLink:
    """One websocket as a session's :class:`~.session.Link`: output queued in order, sent by one task."""

    def __init__(self, socket: web.WebSocketResponse) -> None:
        self.socket = socket
        self._queue: deque[bytearray | str] = deque()
        self._queued = 0
        self._wake = asyncio.Event()
        self._close_code: int | None = None
        self.sender = asyncio.get_running_loop().create_task(self._send())

    def send_bytes(self, data: bytes) -> None:
        if self._close_code is not None:
            return
        last = self._queue[-1] if self._queue else None
        if isinstance(last, bytearray):
            last += data  # one frame's many writes go as one message
        else:
            self._queue.append(bytearray(data))
        self._queued += len(data)
        if self._queued > MAX_OUTPUT:
            log.warning("a browser did not keep up with its screen: connection closed")
            self._queue.clear()
            self.close(CLOSE_FLOODED, ["closed", "the connection could not keep up"])
        self._wake.set()

    def send_json(self, message: list[Any]) -> None:
        if self._close_code is None:
            self._queue.append(json.dumps(message))
            self._wake.set()

    def close(self, code: int, message: list[Any] | None = None) -> None:
        if self._close_code is not None:
            return
        if message is not None:
            self.send_json(message)
        self._close_code = code
        self._wake.set()

    async def _send(self) -> None:
        socket = self.socket
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._queue:
                    item = self._queue.popleft()
                    if isinstance(item, bytearray):
                        self._queued -= len(item)
                        await socket.send_bytes(bytes(item))
                    else:
                        await socket.send_str(item)
                if self._close_code is not None:
                    await socket.close(code=self._close_code)
                    return
        except (ConnectionError, RuntimeError):
            return  # the browser has gone: the receiving side notices and detaches

    async def stop(self) -> None:
        self.sender.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.sender


class WebFront:
    """The routes of browser play over one :class:`~.session.SessionRegistry`, behind one :class:`Gate`."""

    def __init__(
        self,
        registry: SessionRegistry,
        gate: Gate,
        proxies: frozenset[str] = frozenset(),
        names: frozenset[str] = frozenset(),
    ) -> None:
        """``proxies``: addresses of reverse proxies whose forwarded headers are trusted (:func:`trust_forwarded`);
        ``names``: the host names the server answers to besides loopback and IP addresses (:func:`answers_to`)."""
        self.registry = registry
        self.gate = gate
        self.proxies = proxies
        self.names = names

    def application(self) -> web.Application:
        middlewares: list[Middleware] = [self._headers, self._named]
        if self.proxies:
            middlewares.insert(0, trust_forwarded(self.proxies))
        application = web.Application(middlewares=middlewares)
        application.add_routes(
            [
                web.get("/", self.page),
                web.get("/alive", self.alive),
                web.get("/static/{name}", self.asset),
                web.get("/ws", self.websocket),
                *self.gate.routes(),
            ]
        )
        return application

    @web.middleware
    async def _headers(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        try:
            response = await handler(request)
        except web.HTTPException as error:  # a 404 says no more to a page than any other answer
            for name, value in SECURITY_HEADERS.items():
                error.headers.setdefault(name, value)
            raise
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    @web.middleware
    async def _named(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if not answers_to(request.headers.get("Host"), self.names):
            return forbidden(  # 421: Misdirected Request
                "this server does not answer to that name (a page of another site may not reach it): "
                "open the address it gave you", status=421,
            )
        return await handler(request)

    async def page(self, request: web.Request) -> web.StreamResponse:
        signed = self.gate.sign_in(request)
        if signed is not None:
            return signed
        if self.gate.owner(request) is None:
            return self.gate.refused(request)
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def alive(self, request: web.Request) -> web.StreamResponse:
        if self.gate.owner(request) is None:  # the page shows this line as it is
            return web.Response(status=403, text=self.gate.refusal(request), headers={"Cache-Control": "no-store"})
        return web.Response(status=204, headers={"Cache-Control": "no-store"})

    async def asset(self, request: web.Request) -> web.StreamResponse:
        if self.gate.owner(request) is None:
            return forbidden(self.gate.refusal(request))
        name = request.match_info["name"]
        if name not in ASSETS:
            raise web.HTTPNotFound()
        return web.FileResponse(
            STATIC / name, headers={"Content-Type": ASSETS[name], "Cache-Control": "private, no-cache"}
        )

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        owner = self.gate.owner(request)
        if owner is None:
            return forbidden(self.gate.refusal(request))
        if not same_origin(request):
            return forbidden("this connection must come from the page itself")
        socket = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_MESSAGE)
        await socket.prepare(request)
        link = SocketLink(socket)
        size = (_int(request.query.get("width"), 80), _int(request.query.get("height"), 24))
        try:
            opening = request.query.get("table", "")[:20]
            session = self.registry.open(owner, request.query.get("session"), size, link, opening)
        except Refused as refusal:
            link.close(CLOSE_REFUSED, ["refused", str(refusal)])
            await link.sender
            return socket
        except Exception:
            log.exception("a browser session could not start")
            link.close(CLOSE_REFUSED, ["refused", "the session could not start: see the server's log"])
            await link.sender
            return socket
        try:
            await self._receive(socket, session, link)
        finally:
            session.detach(link)
            link.close(CLOSE_NORMAL)  # unless it is closing already, with its reason
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(link.sender), 2)
            await link.stop()
        return socket

    async def _receive(self, socket: web.WebSocketResponse, session: BrowserSession, link: SocketLink) -> None:
        async for message in socket:
            if message.type != WSMsgType.TEXT:
                continue  # the page sends text only; a ping's answer and closing are aiohttp's
            if session.link is not link:
                return  # another connection has taken the session over
            data = message.data
            if not await session.take_input(len(data.encode("utf-8", "replace"))):
                log.warning("a browser kept flooding its input: connection closed")
                link.close(CLOSE_FLOODED, ["closed", "too much input, connection closed"])
                session.close()
                return
            await self._handle(session, link, data)

    async def _handle(self, session: BrowserSession, link: SocketLink, data: str) -> None:
        try:
            envelope = json.loads(data)
        except ValueError:
            return
        if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
            return
        kind, argument = envelope[0], envelope[1] if len(envelope) > 1 else None
        if kind == "stdin" and isinstance(argument, str):
            await session.feed(argument)
        elif kind == "resize" and isinstance(argument, dict):
            width, height = argument.get("width"), argument.get("height")
            if isinstance(width, int) and isinstance(height, int):
                session.resize(width, height)
        elif kind == "ping" and isinstance(argument, str) and len(argument) <= 32:
            link.send_json(["pong", argument])
        # "focus" and "blur" (the page's focus) change nothing here.
