"""``termgames play --load`` of a record that is not yours (a sample) plays a copy in your saves: with the
computer to move, its move went into the tracked sample and lock files were left beside it (issue 33, 2)."""

from __future__ import annotations

import shutil
import time

from termgames import records
from termgames.app import TermgamesApp
from termgames.launch import Launch
from termgames.paths import bundled_saves

SAMPLE = "mosaic-ada-vs-brian-building.json"  # brian, the computer, is to move


async def test_loading_a_sample_with_the_computer_to_move_plays_a_copy(tmp_path, monkeypatch):
    samples, saves = tmp_path / "samples", tmp_path / "saves"
    samples.mkdir()
    sample = samples / SAMPLE
    shutil.copyfile(bundled_saves() / SAMPLE, sample)
    monkeypatch.setattr("termgames.records.bundled_saves", lambda: samples)
    monkeypatch.setattr("termgames.rules.mosaic.Mosaic.ai_move_seconds", 0.0)
    before = sample.read_bytes()
    match = records.load(sample)
    played = len(match.moves)
    # What `termgames play --load samples/SAMPLE` launches.
    app = TermgamesApp(saves_dir=saves, launch=Launch("play", match=match, save_path=sample))
    async with app.run_test(size=(120, 40)) as pilot:
        deadline = time.monotonic() + 120
        while len(match.moves) == played and time.monotonic() < deadline:
            await pilot.pause(0.05)
        await pilot.pause()
        copy = app.screen.table.save_path
        told = [notification.message for notification in app._notifications]  # Textual keeps no public list
    assert len(match.moves) > played  # the computer moved
    assert sample.read_bytes() == before and sorted(p.name for p in samples.iterdir()) == [SAMPLE]
    assert copy.parent == saves and len(records.load(copy).moves) == len(match.moves)
    assert any("Playing a copy" in message and "sample" in message for message in told), told
    assert [record.path for record in app.played_records()] == [copy]  # what the terminal says at exit
