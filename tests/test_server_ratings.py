"""Ratings for people: the store keeps them, the hub rates finished rated tables, the commands show them."""

from __future__ import annotations

import sqlite3

import pytest

from termgames.rating import Rating, ranks_of, rate
from termgames.server.store import RatedResult, Store


def test_ranks_winners_first_then_scores_ties_as_ties():
    assert ranks_of((0,), (3, 1), 2) == [0.0, 1.0]
    assert ranks_of((0, 1), (2, 2), 2) == [0.0, 0.0]
    assert ranks_of((2,), (5, 7, 9, 5), 4) == [2.0, 1.0, 0.0, 2.0]
    assert ranks_of((), (1, 1), 2) == [0.0, 0.0]


def test_rate_moves_the_winner_up_and_a_tie_between_equals_leaves_mu():
    winner, loser = rate([Rating(), Rating()], [0, 1])
    assert winner.mu > 25 > loser.mu and winner.sigma < Rating().sigma
    first, second = rate([Rating(), Rating()], [0, 0])
    assert first.mu == pytest.approx(25) == second.mu


def test_ratings_are_written_with_the_finish_and_survive_a_reopen(tmp_path, new_store):
    store = new_store()
    table_id = store.create_table("copolymer", {}, 1, [], "alice", rated=True)
    changes = store.finish_table(table_id, RatedResult("copolymer", ("alice", "bob"), (0.0, 1.0)))
    assert [c.player for c in changes] == ["alice", "bob"]
    assert changes[0].after.mu > changes[0].before.mu
    # Finished again (an undo and a second end, or a restart's recovery): never rated twice.
    assert store.finish_table(table_id, RatedResult("copolymer", ("alice", "bob"), (1.0, 0.0))) == []
    store.close()

    store = new_store()
    alice = store.rating("alice", "copolymer")
    assert alice is not None and alice.games == 1 and alice.rating == changes[0].after
    assert store.rating("alice", "mono") is None and store.rating("carol", "copolymer") is None
    assert [r.player for r in store.ratings("copolymer")] == ["alice", "bob"]
    assert store.ratings("mono") == []
    assert store.rating_changes(table_id) == changes
    [loaded] = store.load_tables()
    assert loaded.finished and loaded.rated


def test_a_casual_finish_rates_nobody(tmp_path, new_store):
    store = new_store()
    table_id = store.create_table("copolymer", {}, 1, [], "alice")
    assert store.finish_table(table_id) == []
    assert store.ratings() == [] and not store.load_tables()[0].rated


def test_a_failed_rating_leaves_the_table_unfinished(tmp_path, new_store):
    store = new_store()
    table_id = store.create_table("copolymer", {}, 1, [], "alice", rated=True)
    with pytest.raises(ValueError):
        store.finish_table(table_id, RatedResult("copolymer", ("alice", "alice"), (0.0, 1.0)))
    assert not store.load_tables()[0].finished and store.ratings() == []


def test_a_database_from_before_ratings_gets_them_and_its_tables_stay_casual(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE tables (id INTEGER PRIMARY KEY AUTOINCREMENT, game TEXT NOT NULL, options TEXT NOT NULL,"
        " seed TEXT NOT NULL, seats TEXT NOT NULL, creator TEXT NOT NULL, created TEXT NOT NULL,"
        " finished INTEGER NOT NULL DEFAULT 0);"
        "INSERT INTO tables (game, options, seed, seats, creator, created) VALUES ('mono', '{}', '7', '[]', 'a', 'x');"
    )
    db.commit()
    db.close()
    store = Store(path)
    [old] = store.load_tables()
    assert not old.rated and old.seed == 7
    assert store.ratings() == []
