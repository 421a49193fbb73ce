"""``termgames web``: the start screen in a browser, for one person on their own machine.

The server prints a link carrying a random token (as Jupyter does).  The page
opened with the right token sets a cookie (HttpOnly, SameSite=Strict) and
takes the token out of the address bar; from then on the cookie opens the
page, its assets and its websocket, and nothing else does: without the cookie
or the token every request is refused (403).  Each browser tab is a session
of its own with its own app (the start screen, every screen, key and option as
in the terminal); a reload, or a connection that drops and comes back within
the grace period, returns to the same app.  The port answers to its own
names only and bounds its connections as a server's does (:mod:`.guard`).
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from ..app import TermgamesApp
from ..launch import exit_lines
from ..paths import preferences_path
from ..server.ui.driver import share_the_loop_with_textual
from .guard import ConnectionLimits, descriptor_limit, fit_to_descriptors, listen
from .pages import STATIC, WebFront, forbidden, page_address, server_names
from .screen_info import describe
from .session import BrowserSession, SessionRegistry, Visitor

#: The cookie that signs a browser in to a ``termgames web`` (its value: the token).
COOKIE = "termgames_local"
#: The one person of a local server: every session's owner.
LOCAL_OWNER = "local"
LOCAL_VISITOR = Visitor(LOCAL_OWNER, LOCAL_OWNER)
#: Tabs one person may have open at once (each one an app: a few MB).
MAX_LOCAL_SESSIONS = 20


class TokenGate:
    """Signed in: a browser that has shown the token once (the link) and keeps the cookie it was given."""

    def __init__(self, token: str) -> None:
        self.token = token

    def _valid(self, text: str | None) -> bool:
        return text is not None and hmac.compare_digest(text.encode(), self.token.encode())

    def owner(self, request: web.Request) -> Visitor | None:
        return LOCAL_VISITOR if self._valid(request.cookies.get(COOKIE)) else None

    def sign_in(self, request: web.Request) -> web.StreamResponse | None:
        if "token" not in request.query:
            return None
        if not self._valid(request.query.get("token")):
            return None  # then no cookie either: refused
        # The page itself, not a redirect: a SameSite=Strict cookie set on a link followed from another site would
        # not come with the redirected request.  The page drops the token from the address bar.
        response = web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})
        response.set_cookie(COOKIE, self.token, httponly=True, samesite="Strict", secure=request.secure, path="/")
        return response

    def refusal(self, request: web.Request) -> str:
        if "token" in request.query:
            return "this link's token is not this server's: open the link termgames web printed when it started"
        return "open the link termgames web printed (it carries a token that signs this browser in)"

    def refused(self, request: web.Request) -> web.StreamResponse:
        return forbidden(self.refusal(request))

    def routes(self) -> list[web.RouteDef]:
        return []


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def link(host: str, port: int, token: str) -> str:
    """The address to open: the host as given (the machine's name for a wildcard), the port, the token."""
    return f"{page_address(host, port)}?token={token}"


def make_registry(
    saves_dir: Path, *, ascii: bool, palette: str, pace: str | None, say: Callable[[str], None]
) -> SessionRegistry:
    """Sessions of the start screen at this machine, each a :class:`~termgames.app.TermgamesApp`."""

    def make_app(_session: BrowserSession) -> TermgamesApp:
        return TermgamesApp(
            saves_dir=saves_dir, ascii=ascii, palette=palette, preferences_path=preferences_path(), pace=pace
        )

    def farewell(session: BrowserSession) -> list[str]:
        app: Any = session.app
        lines = exit_lines(app.played_records())
        for line in lines:  # as the terminal's termgames says, on the terminal that runs the server
            say(line)
        return lines

    return SessionRegistry(
        make_app, describe, on_end=farewell, max_sessions=MAX_LOCAL_SESSIONS, max_per_owner=MAX_LOCAL_SESSIONS
    )


async def serve(
    host: str,
    port: int,
    saves_dir: Path,
    *,
    ascii: bool = False,
    palette: str = "default",
    pace: str | None = None,
    token: str | None = None,
    say: Callable[[str], None] = print,
    started: Callable[[str], None] | None = None,
) -> None:
    """Serve until cancelled; ``started(link)`` once listening (by default the link is printed)."""
    loop = asyncio.get_running_loop()
    share_the_loop_with_textual(loop)
    token = token or secrets.token_urlsafe(32)
    registry = make_registry(saves_dir, ascii=ascii, palette=palette, pace=pace, say=say)
    limits, warning = fit_to_descriptors(ConnectionLimits(), descriptor_limit())
    if warning:
        say(f"termgames: warning: {warning}")
    application = WebFront(registry, TokenGate(token), names=server_names(host)).application()
    runner, guard = await listen(application, host, port, limits, shutdown_timeout=60.0)
    try:
        bound = runner.addresses[0][1] if runner.addresses else port
        address = link(host, bound, token)
        if started is not None:
            started(address)
        else:
            say("termgames web: open this link in your browser (it signs the browser in: keep it to yourself)")
            say(f"    {address}")
            say("Ctrl+C stops the server (every game is saved after each move).")
        await asyncio.Event().wait()
    finally:
        await registry.close()
        await runner.cleanup()
        guard.close()


def run(host: str, port: int, saves_dir: Path, *, ascii: bool, palette: str, pace: str | None) -> None:
    """``termgames web``: serve until Ctrl+C."""
    if not is_loopback(host):
        print(
            f"termgames: warning: listening on {host}, not loopback: anyone who can reach this port and has the "
            "link can play here, and the link crosses the network unencrypted (plain HTTP)",
            file=sys.stderr,
        )

    def say(line: str) -> None:
        print(line, flush=True)

    try:
        asyncio.run(serve(host, port, saves_dir, ascii=ascii, palette=palette, pace=pace, say=say))
    except KeyboardInterrupt:
        pass
    except OSError as error:  # the port is taken, the address is not this machine's
        print(f"termgames: cannot listen on {host}:{port}: {error.strerror or error}", file=sys.stderr)
        raise SystemExit(2) from None
