"""Who is who: player names, guests, and the person a table or a chat line counts against.

A registered player's name is her account (claimed by the first SSH key that signs in as it); a guest's
name (``guest-...``) lasts one visit and is never rated.  People, not visits, are counted: a table or a
chat line counts against its *owner*: one SSH key whatever names it signs in as (:func:`key_owner`), or
every guest of one address together (:func:`guest_owner`).  People are not free: the hub lets one address
(:func:`address_group`) claim few new names a day and gives a newcomer few tables
(:meth:`~.hub.Hub.new_name_refusal`, :meth:`~.hub.Hub.tables_allowed`).

Pure functions: the hub, the connections and the commands all check names here.
"""

from __future__ import annotations

import ipaddress
import re
import secrets
from collections.abc import Iterable

from ..rules import RuleError
from ..untrusted import fold_name, is_usable_name

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,23}")
GUEST_PREFIX = "guest-"
OPEN_PREFIX = "seat-"


def is_guest(name: str) -> bool:
    """A guest's name (one visit, no key): guests are never rated."""
    return name.lower().startswith(GUEST_PREFIX)


def valid_player_name(name: str) -> bool:
    """A name a player may register: letters, digits, ``_.-``; not a guest's or an open seat's."""
    if not _NAME.fullmatch(name) or not is_usable_name(name):
        return False
    lowered = name.lower()
    return not lowered.startswith(GUEST_PREFIX) and not re.fullmatch(r"seat-\d+", lowered)


#: Random bits in a guest's name: guessing another guest's name (and taking her seats) must be out of reach.
GUEST_NAME_BITS = 64
#: A guest's name: "guest-", up to 9 characters of the login name, then 64 random bits (see guest_name).
_GUEST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")


def guest_name(username: str) -> str:
    """``guest-`` + a hint of the login name + 64 random bits: no login can choose or guess another's."""
    stem = re.sub(r"[^A-Za-z0-9]", "", username)[:9]
    return f"guest-{stem + '-' if stem else ''}{secrets.token_hex(GUEST_NAME_BITS // 8)}"


def is_player_name(name: str) -> bool:
    """A name a seat may take: a registered player's (:func:`valid_player_name`) or a guest's."""
    return valid_player_name(name) or (name.startswith(GUEST_PREFIX) and bool(_GUEST_NAME.fullmatch(name)))


KEY_PREFIX = "key:"


def key_owner(fingerprint: str) -> str:
    """Whom a registered player's tables count against: her SSH key, whatever name it signed in as."""
    return f"{KEY_PREFIX}{fingerprint}"


def name_owner(player: str) -> str:
    """Whom a player counts as when nothing more is known of her than her name (a script, a test)."""
    return f"name:{fold_name(player)}"


#: A table made of seeks counts against the person who made it (the last seeker), and says where it came from
#: (its players hear their game is ready, not that they are challenged): ``seek:`` and her owner.
SEEK_OWNER = "seek:"


def seek_owner(owner: str) -> str:
    return f"{SEEK_OWNER}{owner}"


def person_of(table_owner: str) -> str:
    """Whom a table counts against: its owner, less the mark of a seek's table."""
    return table_owner.removeprefix(SEEK_OWNER)


def guest_owner(address: str) -> str:
    """Whom a guest's tables count against: every guest of one address together (:func:`address_group`)."""
    return f"guest:{address_group(address)}"


def address_group(address: str) -> str:
    """The addresses counted as one: one IPv4 address; an IPv6 address's /64, which one home or one host is
    given whole (its last 64 bits are the host's to choose, so counting single addresses would count none)."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def is_loopback(address: str) -> bool:
    """An address of this machine (127.0.0.0/8, ::1): its own users, its tests, a proxy running on it."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def check_rated_seat(table_id: int | None, player: str, seated: Iterable[str]) -> None:
    """RuleError unless ``player`` may take a seat at a rated table where ``seated`` sit already."""
    where = f"table {table_id} is rated" if table_id is not None else "a rated table"
    if is_guest(player):
        raise RuleError(f"{where}: guests play at casual tables (sign in with an SSH key to be rated)")
    if any(fold_name(player) == fold_name(name) for name in seated):
        raise RuleError(f"{where}: one account takes one seat, and {player} has one already")
