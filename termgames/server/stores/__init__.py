"""The server's memory: one interface, two stores, and the choice between them.

* :mod:`.interface`: what the hub asks of a store (:class:`~.interface.TableStore`), the records it gives
  back and its errors; it imports no store;
* :mod:`.sqlite`: the embedded SQLite file of one server process (the default);
* :mod:`.postgres`: a PostgreSQL database shared by many server processes.

:func:`open_store` picks one from ``--db`` (or ``$TERMGAMES_DB``) and imports only the one it opens: asyncpg
is loaded for PostgreSQL alone.  No store imports this module.
"""

from __future__ import annotations

from pathlib import Path

from .interface import StoreError, TableStore

#: Environment variable naming the database when ``--db`` does not.
DB_ENV = "TERMGAMES_DB"


def database_url(db: str | None, env: dict[str, str]) -> str | None:
    """The database named by ``--db`` or ``$TERMGAMES_DB`` (None: the SQLite file of the data folder)."""
    chosen = db if db else env.get(DB_ENV, "").strip() or None
    return chosen


def is_postgres(url: str | None) -> bool:
    return bool(url) and str(url).startswith(("postgresql://", "postgres://"))


def open_store(url: str | None, sqlite_path: Path) -> TableStore:
    """The store ``url`` names: PostgreSQL for ``postgresql://...``, else the SQLite file ``sqlite_path``."""
    if url is not None and is_postgres(url):
        from .postgres import PostgresStore

        return PostgresStore(url)
    if url is not None:
        raise StoreError(f"--db takes a postgresql://USER@HOST/DB address, not {url!r}")
    from .sqlite import Store

    return Store(sqlite_path)
