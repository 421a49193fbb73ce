"""The sample records that ship in the repo's saves/ folder load, replay and agree with themselves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from termgames import records
from termgames.paths import bundled_saves

SAVES = Path(__file__).resolve().parent.parent / "saves"
SAMPLES = sorted(SAVES.glob("*.json"))


def test_the_saves_folder_is_the_bundled_one():
    assert SAVES.is_dir()
    assert bundled_saves() == SAVES


@pytest.mark.parametrize("path", SAMPLES, ids=[path.name for path in SAMPLES])
def test_sample_record_loads_and_replays(path):
    match = records.load(path)  # replays every move through the rules
    data = json.loads(path.read_text(encoding="utf-8"))
    # The file is exactly what termgames writes for this match.
    assert records.to_dict(match) == data
    assert len(match.moves) == len(data["moves"])
    assert match.state.ply == len(match.moves)
    if match.over:
        assert "result" in data
        assert data["result"] == match.result()
        assert data["result"]["winners"] == [match.names[seat] for seat in match.state.winners()]
        if match.game.name == "copolymer":
            (winner,) = data["result"]["winners"]
            assert sum(data["result"]["scores"].values()) == match.state.board.cell_count
            assert data["result"]["scores"][winner] > match.state.board.cell_count / 2
    else:
        assert "result" not in data
        assert match.state.to_move()
    # The players are named, not the default p1/p2.
    assert not {seat.name for seat in match.seats} & {"p1", "p2"}


def test_samples_include_the_games_the_docs_promise():
    matches = [records.load(path) for path in SAMPLES]
    copolymer = [m for m in matches if m.game.name == "copolymer"]
    finished_standard = [m for m in copolymer if m.over and m.state.board.cell_count == 91]
    assert finished_standard, "no finished standard-board (91-cell) Copolymer game in saves/"
    assert any(m.over and m.options.get("size") == 9 for m in copolymer), "no finished --small game"
    assert any(not m.over and m.state.board.cell_count == 91 for m in copolymer), "no unfinished standard game"
    mono = [m for m in matches if m.game.name == "mono"]
    assert any(m.over and m.options["size"] == 9 and len(m.seats) == 2 for m in mono), "no finished Mono game"
    assert any(not m.over and len(m.seats) == 3 for m in mono), "no unfinished three-player Mono game"
    assert any(m.over and m.game.name == "monunrail" for m in matches), "no finished MonUnrail game"
