"""The server's collector policy: a full collection soon after apps are let go, one for many (collector.py)."""

from __future__ import annotations

import asyncio
import gc

from termgames.server import collector
from termgames.server.collector import CollectorPolicy


async def test_apps_let_go_get_one_full_collection_soon_and_none_sooner_than_the_gap(monkeypatch):
    policy = CollectorPolicy()
    policy.start()
    collections: list[int] = []
    try:
        monkeypatch.setattr(gc, "collect", lambda *generation: collections.append(1) or 0)
        loop = asyncio.get_running_loop()
        policy.collect_soon()
        first = policy._soon
        policy.collect_soon()  # another app let go meanwhile: the same collection
        assert first is not None and policy._soon is first
        assert first.when() - loop.time() <= collector.COLLECT_AFTER
        policy._collect()  # its time came
        assert collections == [1] and policy._soon is None
        policy.collect_soon()
        assert policy._soon is not None
        assert policy._soon.when() - loop.time() > collector.COLLECT_AFTER  # not sooner than the gap
    finally:
        monkeypatch.undo()
        policy.close()
    assert policy._soon is None and gc.get_threshold()[2] != collector.FULL_AFTER_YOUNG
