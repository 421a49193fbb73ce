"""The web port's defences below HTTP: connections counted per address and in all, and a deadline for requests.

aiohttp keeps a connection that sends half a request for as long as the sender likes, and accepts as many as
the process has file descriptors: a few thousand connections trickling a header line now and then would fill
them, and then the SSH port could accept nobody either.  So the port's connections go through a
:class:`ConnectionGuard` before aiohttp sees them:

* at most :attr:`~ConnectionLimits.per_address` at once from one address (an IPv6 address counts by its /64,
  as guests do; a trusted reverse proxy, which carries everyone's, only against the total) and
  :attr:`~ConnectionLimits.total` in all, which :func:`fit_to_descriptors` keeps to half the process's file
  descriptors; one more is answered ``503`` with the one line of the limit it met (over TLS it is just
  closed: no line can be said before the handshake) and closed;
* a connection must finish its TLS handshake and a request's headers within
  :attr:`~ConnectionLimits.request_seconds` of opening, and each next request (and the rest of a body nobody
  reads) within as long of the last answer; past it half a request is answered ``408`` in one line and closed,
  an idle connection closed without a word.  A request being answered
  (a websocket: for as long as it is open) has no deadline, nor an answer still going out.

TLS is done here (after counting), not by the listening socket: a handshake that never ends must count too.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, cast

from aiohttp import web
from aiohttp.typedefs import Middleware

from ..server.limits import WEB_MAX_CONNECTIONS, WEB_MAX_CONNECTIONS_PER_ADDRESS, WEB_REQUEST_SECONDS
from ..server.people import guest_owner

#: Bytes kept of what a TLS connection sends between its handshake and its handing over (one loop turn).
EARLY_BYTES = 64 * 1024
#: Seconds between two log lines about refused connections of one kind (an attack would fill the log).
REFUSAL_LOG_SECONDS = 60.0


@dataclass(frozen=True)
class ConnectionLimits:
    """The web port's connections: at once per address and in all, and seconds a request has to arrive."""

    per_address: int = WEB_MAX_CONNECTIONS_PER_ADDRESS
    total: int = WEB_MAX_CONNECTIONS
    request_seconds: float = WEB_REQUEST_SECONDS


def descriptor_limit() -> int | None:
    """The files this process may open (its soft ``ulimit -n``), raised to the hard limit if it can be; None
    where the system does not say (Windows)."""
    try:
        import resource
    except ImportError:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or hard > soft):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return None if soft == resource.RLIM_INFINITY else int(soft)


def fit_to_descriptors(limits: ConnectionLimits, descriptors: int | None) -> tuple[ConnectionLimits, str | None]:
    """``limits`` with the total at most half of ``descriptors`` (the rest: SSH, the database, files), and the
    warning to print when it had to be lowered (None: they fit)."""
    if descriptors is None or limits.total <= descriptors // 2:
        return limits, None
    total = max(1, descriptors // 2)
    warning = (
        f"this process may open {descriptors} files (ulimit -n): browser connections are limited to {total}, "
        f"not {limits.total}, so that SSH players keep the rest (raise ulimit -n to allow more)"
    )
    return replace(limits, total=total, per_address=min(limits.per_address, total)), warning


class GuardedConnection(asyncio.Protocol):
    """One TCP connection of the web port: counted, given a deadline, and passed on to aiohttp's handler."""

    def __init__(self, guard: ConnectionGuard) -> None:
        self.guard = guard
        self.counted_as: str | None = None
        self.transport: asyncio.Transport | None = None  # what aiohttp writes to (TLS's, over TLS)
        self.handler: asyncio.Protocol | None = None
        self.busy = 0  # requests being answered now
        self._deadline: asyncio.TimerHandle | None = None
        self._raw: asyncio.Transport | None = None
        self._early = bytearray()  # what TLS decrypted before start_tls returned (the request, often)
        self._partial = False  # bytes of a request came since the deadline was armed

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        raw = cast(asyncio.Transport, transport)
        self._raw = raw
        peer = raw.get_extra_info("peername")
        address = str(peer[0]) if peer else ""
        refusal = self.guard.admit(self, address)
        if refusal is not None:
            if self.guard.tls is None:
                raw.write(plain_answer("503 Service Unavailable", refusal))
            raw.close()
            return
        self.arm()
        if self.guard.tls is None:
            self._hand_over(raw)
        else:
            raw.pause_reading()  # not a byte of the handshake may reach this protocol before start_tls takes over
            self.guard.tasks.add(asyncio.get_running_loop().create_task(self._start_tls(raw)))

    async def _start_tls(self, raw: asyncio.Transport) -> None:
        loop = asyncio.get_running_loop()
        context = self.guard.tls
        assert context is not None
        try:
            tls = await loop.start_tls(
                raw, self, context, server_side=True, ssl_handshake_timeout=self.guard.limits.request_seconds
            )
        except BaseException as error:
            # A handshake that failed, timed out or was cut off: TLS does not call connection_lost for it.
            self.disarm()
            self.guard.release(self)
            raw.abort()
            if isinstance(error, OSError | TimeoutError):  # (ssl.SSLError and ConnectionError are OSErrors)
                return
            raise
        finally:
            task = asyncio.current_task()
            if task is not None:
                self.guard.tasks.discard(task)
        if tls is None or raw.is_closing():  # closed during the handshake (its deadline): start_tls returns None
            self.disarm()
            self.guard.release(self)
            raw.abort()
            return
        self._hand_over(tls)

    def _hand_over(self, transport: asyncio.Transport) -> None:
        make_handler = self.guard.make_handler
        assert make_handler is not None, "listen() sets the handler up before the port listens"
        self.transport = transport
        self.guard.by_transport[transport] = self
        self.handler = make_handler()
        self.handler.connection_made(transport)
        if self._early:
            early, self._early = bytes(self._early), bytearray()
            self.handler.data_received(early)

    # -- the deadline -------------------------------------------------------------------------

    def arm(self) -> None:
        """Start the time a request (its TLS handshake, its headers, the rest of a body) has to arrive."""
        self.disarm()
        self._partial = False
        self._deadline = asyncio.get_running_loop().call_later(self.guard.limits.request_seconds, self._late)

    def disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _late(self) -> None:
        self._deadline = None
        if self.busy:
            return  # answering: armed again when the answer is done
        transport = self.transport
        if transport is not None and not transport.is_closing() and (
            transport.get_write_buffer_size() > 0 or not transport.is_reading()
        ):
            self.arm()  # an answer (a file) is still going out
            return
        if self._partial and transport is not None and not transport.is_closing():
            # Half a request: say which limit closed it (an idle connection is closed without a word: a browser
            # would take an answer there for its next request's).
            seconds = f"{self.guard.limits.request_seconds:g}"
            transport.write(plain_answer(
                "408 Request Timeout", f"a request must arrive whole within {seconds} seconds: connection closed"
            ))
            transport.close()
            # TLS's goodbye waits for the other side's: not for longer than the request had.
            self._deadline = asyncio.get_running_loop().call_later(self.guard.limits.request_seconds, self.abort)
            return
        self.abort()

    # -- passed on to aiohttp ----------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        self._partial = True
        if self.handler is not None:
            self.handler.data_received(data)
        elif len(self._early) < EARLY_BYTES:
            self._early += data
        else:
            self.abort()

    def eof_received(self) -> bool | None:
        return self.handler.eof_received() if self.handler is not None else None

    def pause_writing(self) -> None:
        if self.handler is not None:
            self.handler.pause_writing()

    def resume_writing(self) -> None:
        if self.handler is not None:
            self.handler.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.disarm()
        self.guard.release(self)
        if self.handler is not None:
            handler, self.handler = self.handler, None
            handler.connection_lost(exc)

    def abort(self) -> None:
        if self._raw is not None:
            self._raw.abort()


def plain_answer(status: str, line: str) -> bytes:
    """A whole HTTP answer to a connection whose request was not read (``503 Service Unavailable``: a limit; ``408
    Request Timeout``: the deadline), then closed: the status and the one line."""
    body = f"termgames: {line}\n".encode()
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\nRetry-After: 10\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


class ConnectionGuard:
    """Every connection of one web port: counts, refusals, deadlines (see the module's doc)."""

    def __init__(
        self,
        limits: ConnectionLimits,
        *,
        tls: ssl.SSLContext | None = None,
        proxies: frozenset[str] = frozenset(),
        log: logging.Logger | None = None,
    ) -> None:
        self.limits = limits
        #: What makes aiohttp's protocol for one connection: its runner's server, once set up (see :func:`listen`).
        self.make_handler: Callable[[], asyncio.Protocol] | None = None
        self.tls = tls
        self.proxies = proxies
        self.log = log or logging.getLogger("termgames.web")
        self.by_owner: dict[str, int] = {}
        self.connections: set[GuardedConnection] = set()
        self.by_transport: dict[asyncio.BaseTransport, GuardedConnection] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self._logged: dict[str, float] = {}

    def admit(self, connection: GuardedConnection, address: str) -> str | None:
        """Count ``connection`` from ``address`` in, or the one line of the limit it meets."""
        owner = "" if address in self.proxies else guest_owner(address)
        if len(self.connections) >= self.limits.total:
            return self._refused(
                "total", address,
                f"this server has {self.limits.total} browser connections open already: try again in a moment",
            )
        if owner and self.by_owner.get(owner, 0) >= self.limits.per_address:
            return self._refused(
                "address", address,
                f"your address has {self.limits.per_address} connections open here already (the most one address "
                "may have): close a page or try again in a moment",
            )
        self.connections.add(connection)
        if owner:
            self.by_owner[owner] = self.by_owner.get(owner, 0) + 1
            connection.counted_as = owner
        return None

    def release(self, connection: GuardedConnection) -> None:
        if connection not in self.connections:
            return
        self.connections.discard(connection)
        if connection.transport is not None:
            self.by_transport.pop(connection.transport, None)
        owner = connection.counted_as
        if owner:
            left = self.by_owner.get(owner, 0) - 1
            if left > 0:
                self.by_owner[owner] = left
            else:
                self.by_owner.pop(owner, None)

    def _refused(self, kind: str, address: str, line: str) -> str:
        now = asyncio.get_running_loop().time()
        if now - self._logged.get(kind, -REFUSAL_LOG_SECONDS) >= REFUSAL_LOG_SECONDS:
            self._logged[kind] = now
            self.log.warning("refused browser connections (from %s, and maybe more): %s", address or "?", line)
        return line

    def middleware(self) -> Middleware:
        """Marks a connection busy while one of its requests is answered (no deadline), and arms its deadline again
        for the next request when the answer is done."""

        @web.middleware
        async def answering(
            request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
        ) -> web.StreamResponse:
            connection = self.by_transport.get(request.transport) if request.transport is not None else None
            if connection is None:
                return await handler(request)
            connection.busy += 1
            connection.disarm()
            try:
                return await handler(request)
            finally:
                connection.busy -= 1
                if not connection.busy:
                    connection.arm()

        return answering

    def close(self) -> None:
        """Drop every connection (the server is stopping: aiohttp has closed those it knew)."""
        for task in list(self.tasks):
            task.cancel()
        for connection in list(self.connections):
            connection.abort()


class GuardedSite(web.BaseSite):
    """A TCP site whose every connection goes through a :class:`ConnectionGuard` (TLS too, after counting)."""

    def __init__(
        self,
        runner: web.BaseRunner,
        host: str,
        port: int,
        guard: ConnectionGuard,
        *,
        reuse_port: bool = False,
    ) -> None:
        super().__init__(runner)
        self.host = host
        self.port = port
        self.guard = guard
        self.reuse_port = reuse_port

    @property
    def name(self) -> str:
        scheme = "https" if self.guard.tls else "http"
        return f"{scheme}://{self.host}:{self.port}"

    async def start(self) -> None:
        await super().start()
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            lambda: GuardedConnection(self.guard), self.host, self.port,
            backlog=self._backlog, reuse_port=self.reuse_port or None,
        )


async def listen(
    application: web.Application,
    host: str,
    port: int,
    limits: ConnectionLimits,
    *,
    tls: ssl.SSLContext | None = None,
    proxies: frozenset[str] = frozenset(),
    reuse_port: bool = False,
    log: logging.Logger | None = None,
    shutdown_timeout: float = 2.0,
) -> tuple[web.AppRunner, ConnectionGuard]:
    """Serve ``application`` on ``host``:``port`` behind a :class:`ConnectionGuard` (OSError: it cannot listen).
    ``runner.cleanup()`` then ``guard.close()`` stop it."""
    guard = ConnectionGuard(limits, tls=tls, proxies=proxies, log=log)
    application.middlewares.insert(0, guard.middleware())
    # aiohttp's own idle time agrees with the guard's deadline (the guard's holds whatever aiohttp's version does).
    runner = web.AppRunner(
        application, access_log=None, shutdown_timeout=shutdown_timeout, keepalive_timeout=limits.request_seconds
    )
    await runner.setup()
    server: Any = runner.server
    guard.make_handler = cast(Callable[[], asyncio.Protocol], server)
    try:
        await GuardedSite(runner, host, port, guard, reuse_port=reuse_port).start()
    except BaseException:
        await runner.cleanup()
        raise
    return runner, guard
