"""Settings every test shares."""

from __future__ import annotations

import pytest
import pytest_asyncio


@pytest.fixture(autouse=True)
def no_shared_solver_cache(monkeypatch):
    """Tests never read or write the user's MonUnrail solver cache: they must be cold and leave no trace.

    Tests of the cache name their own file.
    """
    monkeypatch.setenv("TERMGAMES_SOLVER_CACHE", "off")


@pytest.fixture(autouse=True)
def own_preferences(monkeypatch, tmp_path):
    """Tests never read or write the player's preferences file (the app started by the CLI reads it)."""
    monkeypatch.setenv("TERMGAMES_PREFERENCES", str(tmp_path / "preferences.json"))


# -- the server's stores: every server test that takes ``new_store`` runs against SQLite and PostgreSQL --------


@pytest.fixture(scope="session")
def pg_cluster():
    """One throwaway PostgreSQL for the whole session (each test gets a database of its own)."""
    from pgcluster import start_cluster

    try:
        cluster = start_cluster()
    except RuntimeError as error:
        pytest.skip(str(error))
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster):
    """A fresh empty database of the session's cluster."""
    return pg_cluster.new_database()


@pytest.fixture(params=["sqlite", "postgres"])
def store_kind(request):
    return request.param


@pytest.fixture
def db_url(request, store_kind):
    """What ``termgames serve --db`` gets: None (the data folder's SQLite) or a fresh PostgreSQL database."""
    if store_kind == "sqlite":
        return None
    return request.getfixturevalue("pg_url")


@pytest.fixture
def new_store(tmp_path, db_url):
    """``new_store()``: a store on this test's database, a new one at each call (a restarted server)."""
    from termgames.server.stores import open_store

    opened = []

    def make():
        store = open_store(db_url, tmp_path / "termgames.db")
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def relay():
    """A local SMTP server (aiosmtpd, in its own thread): (its config for the hub, what it received).  The mail
    tests of notices and of tournaments share it."""
    from aiosmtpd.controller import Controller
    from test_server_notices import MailKept, free_port

    from termgames.server.mail import MailConfig

    kept = MailKept()
    controller = Controller(kept, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield MailConfig("127.0.0.1", controller.port, "games@example.org"), kept
    finally:
        controller.stop()


# -- a real browser ------------------------------------------------------------------------------------------


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def browser():
    """Debian's Chromium driven by Playwright (async), one for a test module's browser tests."""
    from webtools import CHROMIUM, CHROMIUM_ARGS

    async_api = pytest.importorskip("playwright.async_api", reason="the browser tests need playwright (the test extra)")
    async with async_api.async_playwright() as playwright:
        chromium = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        await chromium.close()
