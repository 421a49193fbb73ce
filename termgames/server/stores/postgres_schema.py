"""The PostgreSQL store's tables, functions and indexes: its migrations, applied by the server itself.

A database older than :data:`SCHEMA_VERSION` is brought up to it at start-up (:func:`migrate`), every
migration it has not had in order (a version missing from the list is skipped, and one applied later
than a higher one is still applied), in one transaction; servers starting at once take turns (an advisory lock).  A
migration is never edited once released: a change of the schema is a new one.
"""

from __future__ import annotations

import logging
from typing import Any

from .interface import StoreError

log = logging.getLogger("termgames.server")

#: The advisory lock namespace of migrating (the first key of PostgreSQL's two-key form; see postgres.py's).
MIGRATION_LOCK = 0x7467

#: (version, SQL): applied in order to a database older than the version; never edit one once released.
MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        CREATE TABLE players (
            name TEXT PRIMARY KEY,
            folded TEXT NOT NULL UNIQUE,
            key TEXT NOT NULL,
            since TEXT NOT NULL
        );
        CREATE TABLE tables (
            id BIGSERIAL PRIMARY KEY,
            game TEXT NOT NULL,
            options TEXT NOT NULL,
            seed TEXT NOT NULL,
            seats TEXT NOT NULL,
            creator TEXT NOT NULL,
            created TEXT NOT NULL,
            finished BOOLEAN NOT NULL DEFAULT FALSE,
            record TEXT
        );
        CREATE TABLE moves (
            table_id BIGINT NOT NULL REFERENCES tables(id),
            ply INTEGER NOT NULL,
            seat INTEGER NOT NULL,
            move TEXT NOT NULL,
            time TEXT NOT NULL,
            PRIMARY KEY (table_id, ply)
        );
        CREATE TABLE at_table (
            player TEXT PRIMARY KEY,
            table_id BIGINT NOT NULL
        );
        CREATE TABLE chat (
            id BIGSERIAL PRIMARY KEY,
            table_id BIGINT NOT NULL REFERENCES tables(id),
            player TEXT NOT NULL,
            text TEXT NOT NULL,
            time TEXT NOT NULL
        );
        CREATE INDEX chat_by_table ON chat (table_id, id);
        CREATE TABLE presence (
            id BIGSERIAL PRIMARY KEY,
            server INTEGER NOT NULL,
            table_id BIGINT NOT NULL,
            player TEXT NOT NULL,
            seated BOOLEAN NOT NULL
        );
        CREATE INDEX presence_by_table ON presence (table_id);
        """,
    ),
    (
        2,
        """
        ALTER TABLE tables ADD COLUMN rated BOOLEAN NOT NULL DEFAULT FALSE;
        CREATE TABLE ratings (
            player TEXT NOT NULL,
            game TEXT NOT NULL,
            mu DOUBLE PRECISION NOT NULL,
            sigma DOUBLE PRECISION NOT NULL,
            games INTEGER NOT NULL,
            updated TEXT NOT NULL,
            PRIMARY KEY (player, game)
        );
        CREATE TABLE rating_changes (
            table_id BIGINT NOT NULL REFERENCES tables(id),
            player TEXT NOT NULL,
            game TEXT NOT NULL,
            rank DOUBLE PRECISION NOT NULL,
            mu_before DOUBLE PRECISION NOT NULL,
            sigma_before DOUBLE PRECISION NOT NULL,
            mu_after DOUBLE PRECISION NOT NULL,
            sigma_after DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (table_id, player)
        );
        """,
    ),
    (
        3,
        # A move in one round trip (the server's loop waits for it): lock the table's row, check that the ply
        # is the next one (a VOLATILE function's statements each see what was committed before them), insert,
        # announce.  The primary key still refuses a second row for one ply.
        """
        CREATE FUNCTION termgames_append_move(
            p_table BIGINT, p_ply INTEGER, p_seat INTEGER, p_move TEXT, p_time TEXT, p_news TEXT
        ) RETURNS BOOLEAN LANGUAGE plpgsql VOLATILE AS $$
        BEGIN
            PERFORM 1 FROM tables WHERE id = p_table FOR NO KEY UPDATE;
            IF (SELECT count(*) FROM moves WHERE table_id = p_table) <> p_ply THEN
                RETURN FALSE;
            END IF;
            INSERT INTO moves (table_id, ply, seat, move, time) VALUES (p_table, p_ply, p_seat, p_move, p_time);
            PERFORM pg_notify('termgames', p_news);
            RETURN TRUE;
        END $$;
        """,
    ),
    (
        4,
        # Idle tables are closed (once, by one server: the row's lock orders the close and a move), a move or
        # an undo at a closed table is refused, and start-up reads the unfinished tables only.  The move
        # function of migration 3 stays for servers of the version before, until they are stopped.
        """
        ALTER TABLE tables ADD COLUMN owner TEXT NOT NULL DEFAULT '';
        ALTER TABLE tables ADD COLUMN closed TEXT NOT NULL DEFAULT '';
        ALTER TABLE tables ADD COLUMN outcome TEXT NOT NULL DEFAULT '';
        CREATE INDEX tables_unfinished ON tables (id) WHERE NOT finished;
        CREATE FUNCTION termgames_play(
            p_table BIGINT, p_ply INTEGER, p_seat INTEGER, p_move TEXT, p_time TEXT, p_news TEXT
        ) RETURNS INTEGER LANGUAGE plpgsql VOLATILE AS $$
        BEGIN
            PERFORM 1 FROM tables WHERE id = p_table FOR NO KEY UPDATE;
            IF (SELECT closed FROM tables WHERE id = p_table) <> '' THEN
                RETURN -1;
            END IF;
            IF (SELECT count(*) FROM moves WHERE table_id = p_table) <> p_ply THEN
                RETURN 0;
            END IF;
            INSERT INTO moves (table_id, ply, seat, move, time) VALUES (p_table, p_ply, p_seat, p_move, p_time);
            PERFORM pg_notify('termgames', p_news);
            RETURN 1;
        END $$;
        CREATE FUNCTION termgames_close_idle(p_table BIGINT, p_before TEXT, p_reason TEXT, p_news TEXT)
        RETURNS BOOLEAN LANGUAGE plpgsql VOLATILE AS $$
        BEGIN
            -- Waits for a move in flight; the UPDATE's own snapshot then sees it.
            PERFORM 1 FROM tables WHERE id = p_table FOR NO KEY UPDATE;
            UPDATE tables SET finished = TRUE, closed = p_reason, outcome = 'closed: ' || p_reason
            WHERE id = p_table AND NOT finished AND coalesce(
                (SELECT m.time FROM moves m WHERE m.table_id = p_table ORDER BY m.ply DESC LIMIT 1), created
            ) < p_before;
            IF NOT FOUND THEN
                RETURN FALSE;
            END IF;
            PERFORM pg_notify('termgames', p_news);
            RETURN TRUE;
        END $$;
        """,
    ),
    (
        5,
        # Clocks (issue 26): each table's clock (JSON text: the seats' time, who ran out), what each mover had
        # left, and when a server last ran (a start-up after a downtime credits it to the clocks).  A move now
        # stores the clock after it, refused when the clock changed meanwhile (a seat ran out of time first);
        # a flag is stored under the row's lock too, once.  The move function of migration 4 stays for the
        # servers of the version before, but refuses a timed table: they would not keep its clock.
        """
        ALTER TABLE tables ADD COLUMN clock TEXT NOT NULL DEFAULT '';
        ALTER TABLE moves ADD COLUMN clock DOUBLE PRECISION;
        CREATE TABLE alive (
            id INTEGER PRIMARY KEY,
            at DOUBLE PRECISION NOT NULL
        );
        CREATE OR REPLACE FUNCTION termgames_play(
            p_table BIGINT, p_ply INTEGER, p_seat INTEGER, p_move TEXT, p_time TEXT, p_news TEXT
        ) RETURNS INTEGER LANGUAGE plpgsql VOLATILE AS $$
        BEGIN
            PERFORM 1 FROM tables WHERE id = p_table FOR NO KEY UPDATE;
            IF (SELECT closed FROM tables WHERE id = p_table) <> '' THEN
                RETURN -1;
            END IF;
            IF (SELECT clock FROM tables WHERE id = p_table) <> ''
                    OR (SELECT count(*) FROM moves WHERE table_id = p_table) <> p_ply THEN
                RETURN 0;
            END IF;
            INSERT INTO moves (table_id, ply, seat, move, time) VALUES (p_table, p_ply, p_seat, p_move, p_time);
            PERFORM pg_notify('termgames', p_news);
            RETURN 1;
        END $$;
        CREATE FUNCTION termgames_play_timed(
            p_table BIGINT, p_ply INTEGER, p_seat INTEGER, p_move TEXT, p_time TEXT, p_left DOUBLE PRECISION,
            p_clock_before TEXT, p_clock TEXT, p_news TEXT
        ) RETURNS INTEGER LANGUAGE plpgsql VOLATILE AS $$
        DECLARE
            v_closed TEXT;
            v_clock TEXT;
        BEGIN
            -- The row's lock, and what it holds once locked (a move, an undo or a flag in flight came first).
            SELECT closed, clock INTO v_closed, v_clock FROM tables WHERE id = p_table FOR NO KEY UPDATE;
            IF v_closed <> '' THEN
                RETURN -1;
            END IF;
            IF (SELECT count(*) FROM moves WHERE table_id = p_table) <> p_ply THEN
                RETURN 0;
            END IF;
            IF v_clock <> p_clock_before THEN
                RETURN -2;
            END IF;
            INSERT INTO moves (table_id, ply, seat, move, time, clock)
                VALUES (p_table, p_ply, p_seat, p_move, p_time, p_left);
            IF p_clock <> p_clock_before THEN
                UPDATE tables SET clock = p_clock WHERE id = p_table;
            END IF;
            PERFORM pg_notify('termgames', p_news);
            RETURN 1;
        END $$;
        CREATE FUNCTION termgames_flag(p_table BIGINT, p_ply INTEGER, p_clock_before TEXT, p_clock TEXT, p_news TEXT)
        RETURNS BOOLEAN LANGUAGE plpgsql VOLATILE AS $$
        BEGIN
            -- Waits for a move in flight; the UPDATE's own snapshot then sees it.
            PERFORM 1 FROM tables WHERE id = p_table FOR NO KEY UPDATE;
            UPDATE tables SET clock = p_clock
            WHERE id = p_table AND NOT finished AND closed = '' AND clock = p_clock_before
                AND (SELECT count(*) FROM moves WHERE table_id = p_table) = p_ply;
            IF NOT FOUND THEN
                RETURN FALSE;
            END IF;
            PERFORM pg_notify('termgames', p_news);
            RETURN TRUE;
        END $$;
        """,
    ),
    (
        6,
        # Notices and mail (``notify``): an account's choice, her address and its confirmation, when she was last
        # mailed and seen connected; the confirmation mails' throttle (per person and per address); the clock
        # warnings sent.  New tables only (version 5, the clocks', touches none of them).
        """
        CREATE TABLE notice_settings (
            folded TEXT PRIMARY KEY,
            player TEXT NOT NULL,
            mode TEXT NOT NULL DEFAULT 'bell',
            email TEXT NOT NULL DEFAULT '',
            confirmed BOOLEAN NOT NULL DEFAULT FALSE,
            code_hash TEXT NOT NULL DEFAULT '',
            code_expires TEXT NOT NULL DEFAULT '',
            code_tries INTEGER NOT NULL DEFAULT 0,
            mailed TEXT NOT NULL DEFAULT '',
            seen TEXT NOT NULL DEFAULT ''
        );
        CREATE TABLE mail_throttle (
            what TEXT PRIMARY KEY,
            sent TEXT NOT NULL
        );
        CREATE TABLE mail_warnings (
            folded TEXT NOT NULL,
            table_id BIGINT NOT NULL,
            ply INTEGER NOT NULL,
            PRIMARY KEY (folded, table_id, ply)
        );
        """,
    ),
    (
        7,
        # Browser sign-in (termgames serve --web): one-time links and signed-in browsers, by their token's
        # digest, so that any server behind the balancer takes a link or a cookie another one gave.
        """
        CREATE TABLE web_links (
            digest TEXT PRIMARY KEY,
            player TEXT NOT NULL,
            owner TEXT NOT NULL,
            guest BOOLEAN NOT NULL,
            expires TEXT NOT NULL
        );
        CREATE TABLE web_cookies (
            digest TEXT PRIMARY KEY,
            player TEXT NOT NULL,
            owner TEXT NOT NULL,
            guest BOOLEAN NOT NULL,
            expires TEXT NOT NULL
        );
        CREATE INDEX web_cookies_by_player ON web_cookies (player);
        """,
    ),
    (
        8,
        # People are not free: the uses of the quotas on new names per address and on confirmation mails (per
        # source address, account, person, mailbox and server), and the code waiting at each mailbox (not renewed
        # while it is good).  New tables only; ``mail_throttle`` stays for the servers of the version before.
        """
        CREATE TABLE quota_uses (
            key TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX quota_uses_by_key ON quota_uses (key, at);
        CREATE TABLE mailbox_codes (
            mailbox TEXT PRIMARY KEY,
            code_hash TEXT NOT NULL,
            expires TEXT NOT NULL
        );
        """,
    ),
    (
        9,
        # Seeks (ssh HOST seek): every server pairs the same ones; a seek is taken in the transaction that locks
        # it (take_seeks), so two servers never both make a table of one seek.
        """
        CREATE TABLE seeks (
            id BIGSERIAL PRIMARY KEY,
            game TEXT NOT NULL,
            options TEXT NOT NULL,
            seats INTEGER NOT NULL,
            clock TEXT NOT NULL,
            rated BOOLEAN NOT NULL,
            player TEXT NOT NULL,
            owner TEXT NOT NULL,
            low DOUBLE PRECISION,
            high DOUBLE PRECISION,
            live BOOLEAN NOT NULL,
            created TEXT NOT NULL,
            expires TEXT NOT NULL
        );
        """,
    ),
    (
        10,
        # Tournaments (issue 35): each one a JSON document and its version; a change is stored only over the
        # version it was made from, so of several servers exactly one pairs a round.
        """
        CREATE TABLE tournaments (
            id BIGSERIAL PRIMARY KEY,
            version INTEGER NOT NULL,
            status TEXT NOT NULL,
            data TEXT NOT NULL,
            created TEXT NOT NULL
        );
        CREATE INDEX tournaments_by_status ON tournaments (status, id);
        """,
    ),
    (
        11,
        # Player pages (issue 36) read one account's rating history: by player, not every rated game's.
        """
        CREATE INDEX rating_changes_by_player ON rating_changes (player);
        """,
    ),
]
SCHEMA_VERSION = max(number for number, _ in MIGRATIONS)


async def migrate(conn: Any) -> None:
    """Bring the database ``conn`` reaches to :data:`SCHEMA_VERSION`; StoreError when it is newer than that."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1, 0)", MIGRATION_LOCK)
        await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        applied = {row[0] for row in await conn.fetch("SELECT version FROM schema_version")}
        version = max(applied, default=0)
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the database's schema is version {version}, newer than this termgames knows "
                f"({SCHEMA_VERSION}): upgrade termgames"
            )
        # Every migration not applied yet, even one numbered below the newest applied: branches developed
        # side by side take numbers of their own (5 and 6), and a database migrated by the branch holding 6
        # still gets 5 once both are merged.  Such migrations touch separate tables, so their order is free.
        for number, sql in MIGRATIONS:
            if number not in applied:
                await conn.execute(sql)
                await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", number)
                log.info("database schema migrated to version %s", number)
