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
#: Unfinished tables opened by one player, and on the whole server.
MAX_TABLES_PER_PLAYER = 50
MAX_TABLES = 5000
#: Threads in which the computer players think (a pool shared fairly by every table).
AI_THREADS = 2
