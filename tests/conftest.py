"""Settings every test shares."""

from __future__ import annotations

import pytest


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
