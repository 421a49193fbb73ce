"""The PostgreSQL store's queries of players' own things: browser sign-ins (one-time links and cookies) and notice
settings (how a player is told of her move, her confirmed address, the mails sent).

:class:`PeopleQueries` is mixed into :class:`~.postgres.PostgresStore`, whose ``_run`` runs each query on the
database's thread; the schema is :mod:`.postgres_schema`'s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Any, TypeVar

from ...untrusted import fold_name
from .interface import DEFAULT_NOTIFY_MODE, NoticeSettings, Quota, StoreClock, WebPass, quota_forgotten

T = TypeVar("T")

#: Advisory lock namespace of mail confirmations and of every quota (beside :mod:`.postgres`'s: 0x7467 to 0x746B).
MAIL_LOCK = 0x746A


def _web_pass(row: Any) -> WebPass | None:
    return WebPass(row["player"], row["owner"], bool(row["guest"]), row["expires"]) if row else None


class PeopleQueries(StoreClock):
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
                await conn.execute(f"DELETE FROM {table} WHERE expires < $1", self.now_iso())
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

    def take_quota(self, quotas: Collection[Quota], now: str, spend: bool = True) -> str:
        async def take(conn: Any) -> str:
            async with conn.transaction():
                return await self._take_quota(conn, quotas, now, spend)

        found: str = self._run(take)
        return found

    @staticmethod
    async def _take_quota(conn: Any, quotas: Collection[Quota], now: str, spend: bool) -> str:
        # Every server's quotas one at a time (new names and confirmation mails are rare): counted and spent in
        # one go, so two servers asked at once never both take the last use.
        await conn.execute("SELECT pg_advisory_xact_lock($1, 0)", MAIL_LOCK)
        await conn.execute("DELETE FROM quota_uses WHERE at <= $1", quota_forgotten(now))
        for quota in quotas:
            used = await conn.fetchval(
                "SELECT count(*) FROM quota_uses WHERE key = $1 AND at > $2", quota.key, quota.since
            )
            if used >= quota.most:
                return quota.key
        if spend:
            await conn.executemany("INSERT INTO quota_uses (key, at) VALUES ($1, $2)", [(q.key, now) for q in quotas])
        return ""

    def begin_confirmation(
        self, player: str, email: str, mailbox: str, code_hash: str, expires: str, now: str, quotas: Collection[Quota]
    ) -> str:
        async def begin(conn: Any) -> str:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1, 0)", MAIL_LOCK)
                await conn.execute("DELETE FROM mailbox_codes WHERE expires <= $1", now)
                waiting = await conn.fetchrow(
                    "SELECT code_hash, expires FROM mailbox_codes WHERE mailbox = $1", mailbox
                )
                given_hash, given_expires = code_hash, expires
                if waiting is None:
                    refused = await self._take_quota(conn, quotas, now, spend=True)
                    if refused:
                        return refused
                    await conn.execute(
                        "INSERT INTO mailbox_codes (mailbox, code_hash, expires) VALUES ($1, $2, $3)",
                        mailbox, code_hash, expires,
                    )
                else:
                    given_hash, given_expires = waiting["code_hash"], waiting["expires"]
                folded = await self._settings_row(conn, player)
                await conn.execute(
                    "UPDATE notice_settings SET email = $2, confirmed = FALSE, code_hash = $3, code_expires = $4, "
                    "code_tries = 0 WHERE folded = $1",
                    folded, email, given_hash, given_expires,
                )
                return "" if waiting is None else f"waiting:{given_expires}"

        found: str = self._run(begin)
        return found

    def settle_code(self, player: str, right: bool) -> None:
        folded = fold_name(player)
        if not right:
            self._run(
                lambda c: c.execute("UPDATE notice_settings SET code_tries = code_tries + 1 WHERE folded = $1", folded)
            )
            return

        async def settle(conn: Any) -> None:
            async with conn.transaction():
                # The code is spent: at its mailbox, and for every account it was given to (see begin_confirmation).
                spent = await conn.fetchval("SELECT code_hash FROM notice_settings WHERE folded = $1", folded)
                await conn.execute("DELETE FROM mailbox_codes WHERE code_hash = $1", spent)
                await conn.execute(
                    "UPDATE notice_settings SET code_hash = '', code_expires = '', code_tries = 0 "
                    "WHERE code_hash = $1 AND folded <> $2", spent, folded,
                )
                await conn.execute(
                    "UPDATE notice_settings SET confirmed = TRUE, code_hash = '', code_expires = '', code_tries = 0 "
                    "WHERE folded = $1", folded,
                )

        self._run(settle)

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
