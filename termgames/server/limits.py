"""The server's limits and their defaults (``termgames serve`` options), in one place.

Imports nothing of termgames, so ``termgames serve --help`` shows the defaults without loading the server.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: Refused keys on one connection before it is closed (OpenSSH's MaxAuthTries).
MAX_AUTH_TRIES = 6
#: Failed logins from one address within AUTH_FAILURE_WINDOW seconds before it is refused for a while.
MAX_AUTH_FAILURES = 30
AUTH_FAILURE_WINDOW = 60.0
#: Connections from one address not yet signed in (OpenSSH's MaxStartups, per address): more are closed at once.
MAX_STARTUPS = 100
#: SSH channels with the game screens (an app each, about 1.3 MB of the server's memory): on one connection
#: (OpenSSH's MaxSessions), per person (one SSH key; every guest of one address together) and on the server.
#: A channel past a limit gets one line naming it; commands (``ssh HOST tables``) are not counted.
SSH_MAX_CHANNELS_PER_CONNECTION = 10
SSH_MAX_SESSIONS_PER_PLAYER = 10
SSH_MAX_SESSIONS = 500
#: Unfinished tables opened by one person (one SSH key, whatever names it signs in as; every guest of one
#: address together), and on the whole server.
MAX_TABLES_PER_PLAYER = 50
MAX_TABLES = 5000
#: Unfinished tables where only computers play, per registered person (guests make none): a few, as each
#: one's computers think whenever someone watches it.
MAX_BOT_TABLES_PER_PLAYER = 2
#: Days without a move before an unfinished table is closed (not rated); a guest's table (a guest made it or
#: sits at it, and cannot come back to it after her visit), or one of computers only (they play only while
#: watched: nobody waits for it), after GUEST_IDLE_DAYS.
IDLE_DAYS = 30.0
GUEST_IDLE_DAYS = 1.0
#: The longest idle time the options take (a date that far back is still a date).
MAX_IDLE_DAYS = 36500
#: Seeks (``ssh HOST seek``) waiting at once: per person (one SSH key; every guest of one address together), and
#: on the whole server.  A correspondence seek (``--clock N/move``, or none) ends after SEEK_DAYS; a live one when
#: its owner's last screen closes, and after LIVE_SEEK_HOURS at the latest.
MAX_SEEKS_PER_PLAYER = 3
MAX_SEEKS = 2000
SEEK_DAYS = 3.0
LIVE_SEEK_HOURS = 2.0
#: Chat lines one person may send a minute (in bursts of up to CHAT_BURST), at every table together.
CHAT_PER_MINUTE = 20
CHAT_BURST = 5
#: Threads in which the computer players think (a pool shared fairly by every table).
AI_THREADS = 2
#: New names (accounts) claimed from one address (an IPv6 /64) a day: each is a new person with limits of her own.
#: Loopback is not counted (the machine's own users and tests); a proxy on this machine that forwards the SSH
#: port makes every player loopback: see docs/security.md.
MAX_NEW_NAMES_PER_ADDRESS = 3
NEW_NAMES_DAYS = 1.0
#: A newcomer's unfinished tables (a key whose names finished no rated game, and the guests of one address): a
#: few, one more for each rated game finished, up to MAX_TABLES_PER_PLAYER.
NEW_PLAYER_TABLES = 5
#: Confirmation mails (``notify --email``) an hour: per source address, per account, and from the whole server.
#: Besides, one mail per person and per mailbox every CONFIRM_MINUTES, and no new code for a mailbox while one
#: mailed to it is good.
CONFIRMATIONS_PER_ADDRESS_HOUR = 5
CONFIRMATIONS_PER_ACCOUNT_HOUR = 3
CONFIRMATIONS_PER_HOUR = 30
CONFIRM_MINUTES = 10
#: Hours between two digests mailed to one player who is away (``--mail-every``).
MAIL_EVERY_HOURS = 24.0
MAX_MAIL_EVERY_HOURS = 24.0 * 366

#: Browser play (``termgames serve --web``): sessions open at once on one server process, and per person (one
#: SSH key; every guest of one address together).  Each is an app in the server's memory (a few MB).
WEB_MAX_SESSIONS = 50
WEB_MAX_SESSIONS_PER_PLAYER = 10
#: The share of those sessions every guest together may hold: a few guest addresses cannot fill them all.
WEB_GUEST_SHARE = 0.5
#: How long a sign-in link (``ssh HOST web``) works (once), and how long the browser it signs in stays signed in.
WEB_LINK_SECONDS = 600
WEB_SIGN_IN_DAYS = 30
#: A guest's browser stays signed in for her visit (a cookie the browser forgets on closing), at most this long.
WEB_GUEST_HOURS = 24
#: Guests signed in from one address a minute (in bursts of up to WEB_GUEST_BURST): each is a database row.
WEB_GUESTS_PER_MINUTE = 6
WEB_GUEST_BURST = 3
#: Connections to the browser port open at once from one address (an IPv6 /64; a page holds its websocket and
#: a few more while it loads), and in all (at most half the process's file descriptors: SSH keeps the rest).
WEB_MAX_CONNECTIONS_PER_ADDRESS = 30
WEB_MAX_CONNECTIONS = 400
#: Seconds a browser connection has for its TLS handshake and a request's headers (from opening, or from its
#: last answer), and for the rest of a body: past them it is closed.  A websocket, once open, has none.
WEB_REQUEST_SECONDS = 15.0


class RateLimit:
    """Token buckets by owner: ``per_minute`` a minute, in bursts of up to ``burst``."""

    def __init__(self, per_minute: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, owner: str) -> bool:
        """One more for ``owner`` now, if its bucket holds one."""
        now = self._clock()
        tokens, since = self._buckets.get(owner, (self.burst, now))
        tokens = min(self.burst, tokens + (now - since) * self.rate)
        if tokens < 1:
            self._buckets[owner] = (tokens, now)
            return False
        self._buckets[owner] = (tokens - 1, now)
        if len(self._buckets) > 10_000:  # many owners: forget those whose bucket is full again
            full = [key for key, (left, at) in self._buckets.items() if left + (now - at) * self.rate >= self.burst]
            for key in full:
                del self._buckets[key]
        return True

#: ``ssh HOST analyse TABLE``: analyses one person (a key; the guests of one address) may start a day, and the
#: most the server keeps waiting (each is up to 2 s of a processor a move, in one low-priority thread).
ANALYSES_PER_DAY = 5
MAX_ANALYSES_WAITING = 20
#: Tournaments (issue 35): open ones (waiting or running) a person may create, and enter.
MAX_TOURNAMENTS_PER_PLAYER = 2
MAX_TOURNAMENT_ENTRIES_PER_PLAYER = 5
#: Minutes a player may be absent at the start of a round of a tournament on a live clock before she forfeits.
TOURNAMENT_GRACE_MINUTES = 5.0
#: Players one tournament takes at most (``--max-players`` chooses fewer).
MAX_TOURNAMENT_PLAYERS = 1000
#: The longest title of a tournament, in characters.
MAX_TOURNAMENT_TITLE = 60
