"""The PostgreSQL store's queries of players' own things: browser sign-ins (one-time links and cookies) and notice
settings (how a player is told of her move, her confirmed address, the mails sent).

:class:`PeopleQueries` is mixed into :class:`~.postgres.PostgresStore`, whose ``_run`` runs each query on the
database's thread; the schema is :mod:`.postgres_schema`'s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Any, TypeVar

from ...match import now_iso
from ...untrusted import fold_name
from .interface import DEFAULT_NOTIFY_MODE, NoticeSettings, WebPass

T = TypeVar("T")

#: Advisory lock namespace of mail confirmations (beside :mod:`.postgres`'s: 0x7467 to 0x746B).
MAIL_LOCK = 0x746A


def _web_pass(row: Any) -> WebPass | None:
    return WebPass(row["player"], row["owner"], bool(row["guest"]), row["expires"]) if row else None


class PeopleQueries:
    """Players' sign-ins and notice settings in PostgreSQL (part of :class:`~.postgres.PostgresStore`)."""

    def _run(self, work: Callable[[Any], Awaitable[T]]) -> T:
        """Run ``work`` with a connection of the pool and wait for its answer (the store's own)."""
        raise NotImplementedError

    # -- browser sign-in --------------------------------------------------------------

    def add_web_link(self, digest: str, sign_in: WebPass) -> None:
        self._add_web_pass("web_links", digest, sign_in)

    def take_web_link(self, digest: str) -> WebPass | None:
        # One DELETE: of two servers given the same link at once, exactly one gets the row.
        row = self._run(
            lambda c: c.fetchrow(
                "DELETE FROM web_links WHERE digest = $1 RETURNING player, owner, guest, expires", digest
            )
        )
        return _web_pass(row)

    def add_web_cookie(self, digest: str, sign_in: WebPass) -> None:
        self._add_web_pass("web_cookies", digest, sign_in)

    def web_cookie(self, digest: str) -> WebPass | None:
        row = self._run(
            lambda c: c.fetchrow("SELECT player, owner, guest, expires FROM web_cookies WHERE digest = $1", digest)
        )
        return _web_pass(row)

    def drop_web_sign_ins(self, player: str) -> int:
        async def drop(conn: Any) -> int:
            async with conn.transaction():
                await conn.execute("DELETE FROM web_links WHERE player = $1", player)
                status = await conn.execute("DELETE FROM web_cookies WHERE player = $1", player)
            return int(status.split()[-1])  # "DELETE n"

        return self._run(drop)

    def web_cookies_kept(self, digests: Collection[str]) -> set[str]:
        rows = self._run(
            lambda c: c.fetch("SELECT digest FROM web_cookies WHERE digest = ANY($1)", list(digests))
        )
        return {row["digest"] for row in rows}

    def _add_web_pass(self, table: str, digest: str, sign_in: WebPass) -> None:
        async def add(conn: Any) -> None:
            async with conn.transaction():
                await conn.execute(f"DELETE FROM {table} WHERE expires < $1", now_iso())
                await conn.execute(
                    f"INSERT INTO {table} (digest, player, owner, guest, expires) VALUES ($1, $2, $3, $4, $5)",
                    digest, sign_in.player, sign_in.owner, sign_in.guest, sign_in.expires,
                )

        self._run(add)

    # -- notices and mail ---------------------------------------------------------------

    def notice_settings(self, player: str) -> NoticeSettings:
        row = self._run(
            lambda c: c.fetchrow(
                "SELECT mode, email, confirmed, code_hash, code_expires, code_tries, mailed FROM notice_settings "
                "WHERE folded = $1", fold_name(player),
            )
        )
        if row is None:
            return NoticeSettings()
        return NoticeSettings(
            row["mode"], row["email"], bool(row["confirmed"]), row["code_hash"], row["code_expires"],
            int(row["code_tries"]), row["mailed"],
        )

    @staticmethod
    async def _settings_row(conn: Any, player: str) -> str:
        folded = fold_name(player)
        await conn.execute(
            "INSERT INTO notice_settings (folded, player, mode) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            folded, player, DEFAULT_NOTIFY_MODE,
        )
        return folded

    def set_notify_mode(self, player: str, mode: str) -> None:
        async def set_mode(conn: Any) -> None:
            async with conn.transaction():
                folded = await self._settings_row(conn, player)
                await conn.execute("UPDATE notice_settings SET mode = $2 WHERE folded = $1", folded, mode)

        self._run(set_mode)

    def begin_confirmation(
        self, player: str, email: str, code_hash: str, expires: str, now: str, throttle: list[str], since: str
    ) -> str:
        async def begin(conn: Any) -> str:
            async with conn.transaction():
                # Every server's confirmations one at a time (they are rare): the throttle is checked and marked
                # in one go, so two servers asked at once send one mail.
                await conn.execute("SELECT pg_advisory_xact_lock($1, 0)", MAIL_LOCK)
                await conn.execute("DELETE FROM mail_throttle WHERE sent <= $1", since)
                taken = await conn.fetchval(
                    "SELECT what FROM mail_throttle WHERE what = ANY($1::text[]) LIMIT 1", throttle
                )
                if taken:
                    return str(taken)
                await conn.execute(
                    "INSERT INTO mail_throttle (what, sent) SELECT unnest($1::text[]), $2 "
                    "ON CONFLICT (what) DO UPDATE SET sent = EXCLUDED.sent",
                    throttle, now,
                )
                folded = await self._settings_row(conn, player)
                await conn.execute(
                    "UPDATE notice_settings SET email = $2, confirmed = FALSE, code_hash = $3, code_expires = $4, "
                    "code_tries = 0 WHERE folded = $1",
                    folded, email, code_hash, expires,
                )
                return ""

        found: str = self._run(begin)
        return found

    def settle_code(self, player: str, right: bool) -> None:
        if right:
            sql = (
                "UPDATE notice_settings SET confirmed = TRUE, code_hash = '', code_expires = '', code_tries = 0 "
                "WHERE folded = $1"
            )
        else:
            sql = "UPDATE notice_settings SET code_tries = code_tries + 1 WHERE folded = $1"
        self._run(lambda c: c.execute(sql, fold_name(player)))

    def clear_email(self, player: str) -> None:
        self._run(
            lambda c: c.execute(
                "UPDATE notice_settings SET email = '', confirmed = FALSE, code_hash = '', code_expires = '', "
                "code_tries = 0 WHERE folded = $1", fold_name(player),
            )
        )

    def mark_seen(self, players: Collection[str], now: str) -> None:
        if not players:
            return
        folded = sorted({fold_name(p) for p in players})
        self._run(
            lambda c: c.execute("UPDATE notice_settings SET seen = $2 WHERE folded = ANY($1::text[])", folded, now)
        )

    def digest_due(self, mailed_before: str, seen_before: str) -> list[str]:
        rows = self._run(
            lambda c: c.fetch(
                "SELECT player FROM notice_settings WHERE confirmed AND email <> '' AND mailed < $1 AND seen < $2 "
                "ORDER BY folded", mailed_before, seen_before,
            )
        )
        return [row["player"] for row in rows]

    def claim_digest(self, player: str, now: str, mailed_before: str, seen_before: str) -> str | None:
        # One statement: the row's lock makes a second server wait, then see the new ``mailed`` and update nothing.
        found: str | None = self._run(
            lambda c: c.fetchval(
                "UPDATE notice_settings SET mailed = $2 WHERE folded = $1 AND confirmed AND email <> '' "
                "AND mailed < $3 AND seen < $4 RETURNING email",
                fold_name(player), now, mailed_before, seen_before,
            )
        )
        return found

    def set_mailed(self, player: str, when: str) -> None:
        self._run(
            lambda c: c.execute("UPDATE notice_settings SET mailed = $2 WHERE folded = $1", fold_name(player), when)
        )

    def claim_warning(self, player: str, table_id: int, ply: int, seen_before: str) -> str | None:
        found: str | None = self._run(
            lambda c: c.fetchval(
                "WITH s AS (SELECT folded, email FROM notice_settings WHERE folded = $1 AND confirmed "
                "AND email <> '' AND seen < $4), "
                "w AS (INSERT INTO mail_warnings (folded, table_id, ply) SELECT folded, $2, $3 FROM s "
                "ON CONFLICT DO NOTHING RETURNING folded) "
                "SELECT s.email FROM s JOIN w USING (folded)",
                fold_name(player), table_id, ply, seen_before,
            )
        )
        return found
