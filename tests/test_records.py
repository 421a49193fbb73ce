"""Records: versioned JSON, replayed and checked on load, written atomically.

Every way a record can be wrong must end in RecordError whose message is one
line naming the problem; never another exception and never a half-written file.
"""

from __future__ import annotations

import copy
import json
import os
import random
import tempfile

import pytest

from termgames import records
from termgames.match import AI, Match, Seat
from termgames.records import FORMAT, VERSION, RecordError

SEATS = [Seat("ann"), Seat("bot", AI, "hard")]


def make_match(seed: int = 3, chooser_seed: int = 1, limit: int | None = None, size: int = 5) -> Match:
    chooser = random.Random(chooser_seed)
    match = Match("copolymer", {"size": size}, SEATS, seed)
    while not match.over and (limit is None or len(match.moves) < limit):
        (seat,) = match.state.to_move()
        view = match.view(seat)
        pool = sorted(view.obliging) or sorted(view.legal_cells())
        match.play(seat, match.state.board.names[chooser.choice(pool)])
    return match


@pytest.fixture
def finished() -> Match:
    return make_match()


@pytest.fixture
def unfinished() -> Match:
    return make_match(limit=7)


def record_of(match: Match) -> dict:
    return json.loads(records.dumps(match))


def refused(data_or_text) -> str:
    """Load and expect RecordError; return its one-line message."""
    text = data_or_text if isinstance(data_or_text, str) else json.dumps(data_or_text)
    with pytest.raises(RecordError) as caught:
        records.loads(text)
    message = str(caught.value)
    assert message and "\n" not in message and "\r" not in message, message
    return message


def same_match(a: Match, b: Match) -> None:
    assert a.game is b.game
    assert a.options == b.options
    assert a.seats == b.seats
    assert a.seed == b.seed
    assert a.moves == b.moves
    assert a.states == b.states


# --------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [0, 1, 7, None])
def test_dumps_loads_round_trip(limit):
    match = make_match(limit=limit)
    text = records.dumps(match)
    assert text.endswith("\n")
    again = records.loads(text)
    same_match(again, match)
    assert records.dumps(again) == text


def test_save_load_round_trip(tmp_path, finished, unfinished):
    for name, match in [("done.json", finished), ("sub/dir/open.json", unfinished)]:
        path = records.save(tmp_path / name, match)
        assert path == tmp_path / name
        assert path.read_text(encoding="utf-8") == records.dumps(match)
        same_match(records.load(path), match)
        same_match(records.load(str(path)), match)


def test_record_layout(finished):
    data = record_of(finished)
    assert data["format"] == FORMAT == "termgames-record"
    assert data["version"] == VERSION == 2
    assert data["game"] == "copolymer"
    assert data["options"] == {"shape": "hexagon", "size": 5}
    assert data["seats"] == [{"name": "ann", "kind": "human"}, {"name": "bot", "kind": "ai", "level": "hard"}]
    assert data["seed"] == "3"  # a string: 128-bit seeds round-trip in every JSON reader
    assert len(data["moves"]) == 19
    assert all(set(m) == {"seat", "move", "time"} for m in data["moves"])
    assert data["moves"][0]["seat"] == "ann"


def test_result_is_written_once_over_and_checked(finished, unfinished):
    assert "result" not in record_of(unfinished)
    data = record_of(finished)
    assert data["result"] == finished.result()
    assert sum(data["result"]["scores"].values()) == 19
    (winner,) = data["result"]["winners"]
    loser = ({"ann", "bot"} - {winner}).pop()

    swapped = copy.deepcopy(data)
    swapped["result"]["winners"] = [loser]
    assert "does not match" in refused(swapped)

    rescored = copy.deepcopy(data)
    rescored["result"]["scores"][winner] += 1
    assert "does not match" in refused(rescored)

    bogus = copy.deepcopy(data)
    bogus["result"] = "ann won"
    assert "does not match" in refused(bogus)

    claimed = record_of(unfinished)
    claimed["result"] = data["result"]
    assert "do not finish" in refused(claimed)

    # A finished record without its result is still checked by replaying it.
    bare = copy.deepcopy(data)
    del bare["result"]
    assert records.loads(json.dumps(bare)).result() == data["result"]


# --------------------------------------------------------------------------
# Corrupt and tampered records
# --------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "{", "{not json}", "nul", '{"format": "termgames-record",', "\x00\x01"])
def test_corrupt_json(text):
    assert "not valid JSON" in refused(text)


def test_truncated_file(tmp_path, finished):
    text = records.dumps(finished)
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(RecordError) as caught:
        records.load(path)
    message = str(caught.value)
    assert "\n" not in message and "not valid JSON" in message and str(path) in message


def test_an_illegal_move_is_named(finished):
    data = record_of(finished)
    data["moves"][4]["move"] = data["moves"][1]["move"]
    message = refused(data)
    assert message.startswith(f"move 5 ({data['moves'][1]['move']!r}) is illegal")
    assert "already taken" in message

    data = record_of(finished)
    data["moves"][2]["move"] = "Z99"
    assert "move 3 ('Z99') is illegal" in refused(data) and "not a cell" in refused(data)

    data = record_of(finished)
    data["moves"][0]["seat"] = "bot"
    assert "it is ann's turn" in refused(data)

    data = record_of(finished)
    data["moves"][0]["seat"] = "mallory"
    assert "'mallory', who has no seat" in refused(data)

    data = record_of(finished)
    data["moves"][0]["move"] = "   "
    assert "move 1" in refused(data)

    data = record_of(finished)
    data["moves"].append({"seat": "ann", "move": "C3", "time": ""})
    assert "the game is over" in refused(data)


def test_changed_moves_that_make_the_stored_result_wrong(finished):
    """Other legal moves (seats included) that finish the game differently."""
    data = record_of(finished)
    for chooser_seed in range(2, 200):
        other = make_match(chooser_seed=chooser_seed)
        if other.result() != finished.result():
            break
    else:
        pytest.fail("no game with another result found")
    tampered = copy.deepcopy(data)
    tampered["moves"] = record_of(other)["moves"]
    assert "does not match its moves" in refused(tampered)
    # Dropping the last move leaves a stored result the moves do not reach.
    cut = copy.deepcopy(data)
    cut["moves"].pop()
    assert "do not finish" in refused(cut)


@pytest.mark.parametrize("version", [4, 0, "1", None, 1.5, [1]])
def test_wrong_version(finished, version):
    data = record_of(finished)
    data["version"] = version
    message = refused(data)
    assert "version" in message and "not supported" in message


def test_missing_version(finished):
    data = record_of(finished)
    del data["version"]
    assert "version" in refused(data)


def test_boolean_version_is_refused(finished):
    data = record_of(finished)
    data["version"] = True
    assert "version" in refused(data)


@pytest.mark.parametrize("value", ["termgames-save", "", None, 1])
def test_wrong_format_name(finished, value):
    data = record_of(finished)
    data["format"] = value
    assert "not a termgames record" in refused(data)
    del data["format"]
    assert "not a termgames record" in refused(data)


@pytest.mark.parametrize("text", ["[]", "42", '"record"', "null"])
def test_not_an_object(text):
    assert "not a termgames record" in refused(text)


def test_unknown_game(finished):
    data = record_of(finished)
    data["game"] = "chess"
    assert "no game 'chess'" in refused(data)


def _set(path, value):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _delete(path):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return change


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (_set(["game"], 5), "'game'"),
        (_set(["seed"], 7), "'seed'"),
        (_set(["seed"], "+7"), "'seed'"),
        (_set(["seed"], "7.5"), "'seed'"),
        (_set(["seed"], "٣"), "'seed'"),
        (_set(["seed"], True), "'seed'"),
        (_set(["seed"], 7.5), "'seed'"),
        (_set(["options"], []), "'options'"),
        (_set(["options"], "--small"), "'options'"),
        (_set(["seats"], {"ann": "human"}), "'seats'"),
        (_set(["moves"], "C3 A1"), "'moves'"),
        (_set(["seats", 0], "ann"), "seat 1"),
        (_set(["seats", 1, "name"], 7), "seat 2"),
        (_set(["seats", 1, "kind"], "robot"), "seat 2"),
        (_set(["seats", 1, "level"], "genius"), "seat 2"),
        (_set(["moves", 3], "C3"), "move 4"),
        (_set(["moves", 3, "move"], 33), "move 4"),
        (_set(["moves", 3, "seat"], 0), "move 4"),
        (_set(["moves", 3, "time"], 12), "move 4"),
        (_delete(["game"]), "'game'"),
        (_delete(["seed"]), "'seed'"),
        (_delete(["options"]), "'options'"),
        (_delete(["seats"]), "'seats'"),
        (_delete(["moves"]), "'moves'"),
        (_delete(["seats", 0, "name"]), "'name'"),
        (_delete(["moves", 0, "move"]), "'move'"),
        (_delete(["moves", 0, "seat"]), "'seat'"),
        (_set(["options", "size"], 8), "odd"),
        (_set(["options", "size"], "big"), "whole number"),
        (_set(["options", "size"], None), "whole number"),
        (_set(["options", "shape"], "square"), "--shape"),
        (_set(["options", "colour"], "red"), "no option 'colour'"),
    ],
)
def test_wrong_types_and_values(finished, change, words):
    data = record_of(finished)
    change(data)
    message = refused(data)
    assert words in message, message


@pytest.mark.parametrize(
    ("seats", "words"),
    [
        ([{"name": "ann"}], "2 players"),
        ([{"name": "ann"}, {"name": "bob"}, {"name": "cy"}], "2 players"),
        ([{"name": "ann"}, {"name": "ann"}], "two seats"),
        ([{"name": "ann"}, {"name": "b o b"}], "not a usable player name"),
        ([{"name": "ann"}, {"name": ""}], "not a usable player name"),
    ],
)
def test_bad_seats(seats, words):
    data = record_of(make_match(limit=0))
    data["seats"] = seats
    assert words in refused(data)


@pytest.mark.parametrize(
    "value",
    [
        float("inf"),
        9.5,
        float("nan"),
        True,
    ],
)
def test_non_integer_size_in_a_record_is_refused(finished, value):
    data = record_of(finished)
    data["options"]["size"] = value
    assert "--size" in refused(json.dumps(data))


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("[" * 100_000, id="deeply-nested"),
        pytest.param('{"format": "termgames-record", "seed": ' + "9" * 5000 + "}", id="huge-integer"),
    ],
)
def test_pathological_json_is_a_record_error(text):
    refused(text)


# --------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------


def test_missing_file(tmp_path):
    path = tmp_path / "nowhere.json"
    with pytest.raises(RecordError) as caught:
        records.load(path)
    assert str(caught.value) == f"{path}: no such file"


def test_a_directory(tmp_path):
    with pytest.raises(RecordError) as caught:
        records.load(tmp_path)
    message = str(caught.value)
    assert "\n" not in message and str(tmp_path) in message and "folder" in message


def test_binary_and_empty_files(tmp_path):
    binary = tmp_path / "image.json"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00")
    with pytest.raises(RecordError, match="not a text file"):
        records.load(binary)
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    with pytest.raises(RecordError) as caught:
        records.load(empty)
    assert "\n" not in str(caught.value) and "not valid JSON" in str(caught.value)


def test_file_errors_name_the_file(tmp_path, finished):
    data = record_of(finished)
    data["version"] = 9
    path = tmp_path / "future.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RecordError) as caught:
        records.load(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and "version 9" in message and "\n" not in message


# --------------------------------------------------------------------------
# Atomic save
# --------------------------------------------------------------------------


def _fail(*args, **kwargs):
    raise OSError(28, "No space left on device")


@pytest.mark.parametrize("broken", ["replace", "fsync"])
def test_a_failed_save_leaves_the_old_file_whole(tmp_path, monkeypatch, finished, unfinished, broken):
    path = records.save(tmp_path / "game.json", unfinished)
    old = path.read_bytes()
    monkeypatch.setattr(os, broken, _fail)
    with pytest.raises(OSError):
        records.save(path, finished)
    monkeypatch.undo()
    assert path.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]
    same_match(records.load(path), unfinished)


def test_a_failed_write_leaves_the_old_file_whole(tmp_path, monkeypatch, finished, unfinished):
    path = records.save(tmp_path / "game.json", unfinished)
    old = path.read_bytes()

    def explode(match):
        raise KeyboardInterrupt  # even an interrupt while encoding leaves no trace

    monkeypatch.setattr(records, "dumps", explode)
    with pytest.raises(KeyboardInterrupt):
        records.save(path, finished)
    assert path.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


def test_saving_over_an_existing_file(tmp_path, finished, unfinished):
    path = records.save(tmp_path / "game.json", unfinished)
    records.save(path, finished)
    assert path.read_text(encoding="utf-8") == records.dumps(finished)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


def test_new_save_path_is_fresh(tmp_path, finished):
    first = records.new_save_path(tmp_path, finished)
    assert first.parent == tmp_path and first.suffix == ".json"
    assert first.name.startswith("copolymer-") and "ann-bot" in first.name
    records.save(first, finished)
    second = records.new_save_path(tmp_path, finished)
    assert second != first and not second.exists()


# --------------------------------------------------------------------------
# Failures and gaps: a failed save leaks nothing, a missing time stays missing
# --------------------------------------------------------------------------


def _fd_is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def test_a_failed_save_closes_its_temporary_file(tmp_path, monkeypatch, finished, unfinished):
    path = records.save(tmp_path / "game.json", unfinished)
    old = path.read_bytes()
    handles = []
    real_mkstemp = tempfile.mkstemp

    def spy(*args, **kwargs):
        handle, name = real_mkstemp(*args, **kwargs)
        handles.append(handle)
        return handle, name

    monkeypatch.setattr(tempfile, "mkstemp", spy)
    monkeypatch.setattr(os, "chmod", _fail)
    with pytest.raises(OSError):
        records.save(path, finished)
    monkeypatch.undo()
    assert path.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]
    (handle,) = handles
    leaked = _fd_is_open(handle)
    if leaked:
        os.close(handle)  # do not leak it into the rest of the test run
    assert not leaked, "the temporary file's descriptor was left open"


@pytest.mark.parametrize("missing", ["empty", "absent"])
def test_loading_keeps_moves_without_a_time_as_they_are(unfinished, missing):
    data = record_of(unfinished)
    for move in data["moves"]:
        if missing == "empty":
            move["time"] = ""
        else:
            del move["time"]
    match = records.loads(json.dumps(data))
    assert [m.time for m in match.moves] == [""] * len(data["moves"])


def test_a_lock_in_a_folder_not_made_yet_makes_it(tmp_path):
    from termgames.records import locked

    record = tmp_path / "new" / "folder" / "game.json"
    with locked(record):
        pass
    assert record.parent.is_dir()
