"""How players reach this server: the ``ssh`` command that mails, screens and messages tell them to type.

``termgames serve --public-address games.example.org:2222`` names it when players come in through another
name or port than the one the server listens on (a router, a proxy); without it the server says what it
listens on (``--host``, or this machine's name when that is every address) and ``--port``.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass

from ..rules import RuleError
from ..untrusted import quoted
from .people import is_guest

#: A host name as DNS spells one (letters, digits, dots and hyphens).
_HOST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?")
#: What ``--host`` is when the server listens on every address: no name a player could type.
_EVERY_ADDRESS = {"", "0.0.0.0", "::"}
SSH_PORT = 22


@dataclass(frozen=True)
class SshAddress:
    """A host and port players connect to."""

    host: str
    port: int = SSH_PORT

    def command(self, player: str | None, *, terminal: bool = False) -> str:
        """``ssh -p 2222 alice@games.example.org``: the command that signs in as ``player`` (a checked name; a
        guest's, whose name lasts one visit, and None, anyone's, are ``NAME``); ``terminal``: with ``-t``, for the
        screens."""
        options = "-t " if terminal else ""
        if self.port != SSH_PORT:
            options += f"-p {self.port} "
        return f"ssh {options}{'NAME' if player is None or is_guest(player) else player}@{self.host}"

    def restart_lines(self, player: str) -> list[str]:
        """What ``player`` reads as the server stops (her terminal, her page): it comes back, her clocks wait
        (a server starting credits the time none ran: :mod:`.clocks`), and the command that brings her back."""
        return [
            "termgames: the server is restarting.",
            "Clocks stop while it is down: that time is charged to nobody.",
            f"Come back with: {self.command(player)}",
        ]


def _checked_host(host: str, what: str) -> str:
    try:
        return str(ipaddress.ip_address(host.removeprefix("[").removesuffix("]")))
    except ValueError:
        pass
    if not _HOST_NAME.fullmatch(host) or ".." in host:
        raise RuleError(f"{what}: {quoted(host)} is not a host name or address")
    return host


def parse_public_address(text: str) -> SshAddress:
    """``HOST`` or ``HOST:PORT`` (``[::1]:2222`` for an IPv6 address with a port); RuleError (one line) otherwise."""
    host, port = text, SSH_PORT
    if text.startswith("[") and "]:" in text:
        host, _, port_text = text.rpartition(":")
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    else:
        port_text = str(SSH_PORT)
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise RuleError(
            f"--public-address takes HOST or HOST:PORT (such as games.example.org:2222), not {quoted(text)}"
        )
    port = int(port_text)
    return SshAddress(_checked_host(host, "--public-address"), port)


def listening_address(host: str, port: int) -> SshAddress:
    """What the server listens on, as players would type it: ``--host``, or this machine's name for every address."""
    if host in _EVERY_ADDRESS:
        name = socket.gethostname()  # not getfqdn: a DNS lookup could hold the start up
        try:
            return SshAddress(_checked_host(name, "the host name"), port)
        except RuleError:
            return SshAddress("localhost", port)
    try:
        return SshAddress(_checked_host(host, "--host"), port)
    except RuleError:
        return SshAddress("localhost", port)
