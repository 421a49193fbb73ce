"""Records that are not yours are played as copies, new records never share a name, and locks leave no files
(issue 33, 2, 10 and 11)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from termgames import records
from termgames.match import Match, Seat
from termgames.paths import bundled_saves
from termgames.records import claim_name, locked, new_save_path, not_yours_to_write, played_from
from termgames.table import LocalTable


def small_game(moves: int = 1) -> Match:
    match = Match("copolymer", {"size": 3}, [Seat("ann"), Seat("bob")], 5)
    for ply, cell in enumerate(["B2", "A1", "C3"][:moves]):
        match.play(ply % 2, cell)
    return match


def leftovers(folder: Path) -> list[str]:
    """Hidden files left in ``folder`` (lock files, temporary files)."""
    return sorted(path.name for path in folder.iterdir() if path.name.startswith("."))


# -- names ---------------------------------------------------------------------


def test_a_taken_name_gets_the_next_suffix(tmp_path):
    wanted = tmp_path / "copolymer-20261129-120000-ann-bob.json"
    first, second, third = claim_name(wanted), claim_name(wanted), claim_name(wanted)
    assert [first.name, second.name, third.name] == [
        "copolymer-20261129-120000-ann-bob.json",
        "copolymer-20261129-120000-ann-bob-2.json",
        "copolymer-20261129-120000-ann-bob-3.json",
    ]


def test_writers_racing_for_one_name_each_get_their_own(tmp_path):
    wanted = tmp_path / "game.json"
    got: list[Path] = []
    start = threading.Barrier(8)

    def claim() -> None:
        start.wait(timeout=30)
        got.append(claim_name(wanted))

    threads = [threading.Thread(target=claim) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(got) == 8 and len(set(got)) == 8


def test_two_games_started_in_the_same_second_keep_their_own_records(tmp_path):
    """Both were given one name (the first had not saved yet): the second's first save told the player its file
    "changed on disk ... (a move came in?)" and moved it aside."""
    one, two = small_game(0), small_game(0)
    path = new_save_path(tmp_path, one)
    assert new_save_path(tmp_path, two) == path  # nothing on disk yet: the same suggestion
    first, second = LocalTable(one, path), LocalTable(two, path)
    first.play(0, "B2")
    second.play(0, "C3")
    assert second.take_notice() == "" and first.take_notice() == ""
    assert first.save_path == path and second.save_path == path.with_name(f"{path.stem}-2.json")
    assert [m.move for m in records.load(first.save_path).moves] == ["B2"]
    assert [m.move for m in records.load(second.save_path).moves] == ["C3"]


def test_a_game_with_no_move_claims_no_name(tmp_path):
    path = tmp_path / "game.json"
    LocalTable(small_game(0), path)
    assert list(tmp_path.iterdir()) == []


# -- locks ----------------------------------------------------------------------


def test_saving_leaves_no_lock_file(tmp_path):
    path = tmp_path / "game.json"
    table = LocalTable(small_game(0), path)
    table.play(0, "B2")
    table.play(1, "A1")
    table.undo()
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]


def test_the_lock_still_keeps_writers_apart_when_it_removes_its_file(tmp_path):
    """Each writer reads a number, waits, and writes it plus one under the lock: none may be lost, though each
    holder removes the lock file that the others wait on."""
    counter = tmp_path / "counter"
    counter.write_text("0")
    rounds, writers = 25, 6

    def count() -> None:
        for _ in range(rounds):
            with locked(counter):
                value = int(counter.read_text())
                os.sched_yield()
                counter.write_text(str(value + 1))

    threads = [threading.Thread(target=count) for _ in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert int(counter.read_text()) == rounds * writers
    assert leftovers(tmp_path) == []


# -- records that are not yours ---------------------------------------------------


def test_the_samples_are_not_yours_to_write():
    sample = next(bundled_saves().glob("*.json"))
    assert not_yours_to_write(sample) == "a sample that ships with termgames"


def test_your_own_record_is_played_in_place(tmp_path):
    path = tmp_path / "mine.json"
    records.save(path, small_game())
    assert played_from(path, tmp_path / "saves", records.load(path)) == (path, "")
    assert not (tmp_path / "saves").exists()


@pytest.mark.parametrize("whose", ["sample", "read-only", "another user's"])
def test_a_record_that_is_not_yours_is_copied_before_anything_is_written(tmp_path, monkeypatch, whose):
    samples, saves = tmp_path / "samples", tmp_path / "saves"
    samples.mkdir()
    path = samples / "game.json"
    records.save(path, small_game())
    if whose == "sample":
        monkeypatch.setattr("termgames.records.bundled_saves", lambda: samples)
    elif whose == "read-only":
        path.chmod(0o444)
    else:
        owner = path.stat().st_uid
        monkeypatch.setattr("termgames.records.os.geteuid", lambda: owner + 1)
    before = path.read_bytes()
    copy, why = played_from(path, saves, records.load(path))
    assert why.startswith("a sample" if whose == "sample" else whose) and copy.parent == saves
    table = LocalTable(records.load(copy), copy)
    table.play(1, "A1")
    assert path.read_bytes() == before and sorted(p.name for p in samples.iterdir()) == ["game.json"]
    assert [m.move for m in records.load(copy).moves] == ["B2", "A1"]


def test_no_new_record_is_made_among_the_samples(tmp_path, monkeypatch):
    monkeypatch.setattr("termgames.records.bundled_saves", lambda: tmp_path)
    table = LocalTable(small_game(0), new_save_path(tmp_path, small_game(0)))
    table.play(0, "B2")
    assert "samples that ship with termgames" in table.take_notice() and list(tmp_path.iterdir()) == []


def test_the_lock_files_an_older_termgames_left_go_when_the_saves_are_read(tmp_path):
    from termgames.screens.start import read_saved_games

    records.save(tmp_path / "game.json", small_game())
    for name in ("game.json", "gone.json"):  # beside a record, and beside one deleted since
        (tmp_path / f".{name}.lock").touch()
    (tmp_path / ".notes.lock").touch()  # not a record's: left alone
    games = read_saved_games(tmp_path, None)
    assert [game.path.name for game in games] == ["game.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".notes.lock", "game.json"]
