"""The server's limits and their defaults (``termgames serve`` options), in one place.

Imports nothing, so ``termgames serve --help`` shows the defaults without loading the server.
"""

from __future__ import annotations

#: Refused keys on one connection before it is closed (OpenSSH's MaxAuthTries).
MAX_AUTH_TRIES = 6
#: Failed logins from one address within AUTH_FAILURE_WINDOW seconds before it is refused for a while.
MAX_AUTH_FAILURES = 30
AUTH_FAILURE_WINDOW = 60.0
#: Connections from one address not yet signed in (OpenSSH's MaxStartups, per address): more are closed at once.
MAX_STARTUPS = 100
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
#: Chat lines one person may send a minute (in bursts of up to CHAT_BURST), at every table together.
CHAT_PER_MINUTE = 20
CHAT_BURST = 5
#: Threads in which the computer players think (a pool shared fairly by every table).
AI_THREADS = 2
