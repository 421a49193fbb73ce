"""Monad through the CLI: new/move/show like any game, show --json's board shape, termgames monad trace."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from termgames.cli import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def new_record(tmp_path: Path, *extra: str) -> Path:
    record = tmp_path / "monad.json"
    result = run("new", "monad", "-p", "ann", "-p", "bob", "--seed", "4", "--out", str(record), *extra)
    assert result.exit_code == 0, result.output
    return record


def show_json(record: Path, *extra: str) -> dict:
    result = run("show", str(record), "--json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_new_move_show(tmp_path: Path) -> None:
    record = new_record(tmp_path)
    data = show_json(record)
    assert data["game"] == "monad" and data["to_move"] == ["ann", "bob"]
    board = data["board"]
    assert set(board) == {"width", "height", "turn", "limit", "resources", "units", "hives", "cells"}
    assert (board["width"], board["height"], board["turn"], board["limit"]) == (20, 20, 0, 2000)
    assert board["resources"] == {"ann": 100, "bob": 100}
    assert board["units"] == {"ann": 1, "bob": 1} and board["hives"] == {"ann": 0, "bob": 0}
    assert len(board["cells"]) == 20 and all(len(row) == 20 for row in board["cells"])
    assert board["cells"][1][1] == {"resources": board["cells"][1][1]["resources"], "owner": "ann", "units": 1}
    assert board["cells"][18][18]["owner"] == "bob"

    result = run("move", str(record), "1,1 1 BUILD", "--as", "ann")
    assert result.exit_code == 0, result.output
    # bob's view does not show ann's commands before the turn resolves.
    seen_by_bob = show_json(record, "--as", "bob")
    assert "1,1 1 BUILD" not in json.dumps(seen_by_bob)
    assert seen_by_bob["to_move"] == ["bob"]
    result = run("move", str(record), "18,18 2 MINE; 18,18 1 MOVE NW")
    assert result.exit_code == 0, result.output
    assert "dropped 18,18 2 MINE: only 1 unit there" in result.stdout
    data = show_json(record)
    board = data["board"]
    assert board["turn"] == 1 and board["hives"] == {"ann": 1, "bob": 0} and board["resources"]["ann"] == 0
    assert board["cells"][1][1]["hive"] == "ann" and board["cells"][1][1]["production"] == 2
    assert board["cells"][17][18]["owner"] == "bob"  # even row 18: NW is (x, y-1)
    assert data["moves"] == ["1,1 1 BUILD", "18,18 2 MINE; 18,18 1 MOVE NW"]


def test_unreadable_move_leaves_the_record_alone(tmp_path: Path) -> None:
    record = new_record(tmp_path)
    before = record.read_text()
    result = run("move", str(record), "1,1 one BUILD", "--as", "ann")
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert record.read_text() == before
    result = run("move", str(record), "pass")
    assert result.exit_code == 2 and "--as" in result.stderr


def test_options_on_the_command_line(tmp_path: Path) -> None:
    record = new_record(tmp_path, "--width", "10", "--height", "12", "--obstacles", "0.2", "--turns", "30")
    board = show_json(record)["board"]
    assert (board["width"], board["height"], board["limit"]) == (10, 12, 30)
    assert any(cell.get("obstacle") for row in board["cells"] for cell in row)


def test_trace_prints_one_json_line_per_turn(tmp_path: Path) -> None:
    record = new_record(tmp_path)
    for ann, bob in [("1,1 1 BUILD", "18,18 1 MOVE W"), ("fault bot crashed", "17,18 1 MINE; 1,1 1 MINE")]:
        assert run("move", str(record), ann, "--as", "ann").exit_code == 0
        assert run("move", str(record), bob, "--as", "bob").exit_code == 0
    assert run("move", str(record), "pass", "--as", "ann").exit_code == 0  # turn 3 not resolved: not traced
    result = run("monad", "trace", str(record))
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["turn"] for line in lines] == [0, 1, 2]
    assert lines[0]["commands"] == {"ann": [], "bob": []} and lines[0]["dropped"] == {"ann": [], "bob": []}
    assert lines[0]["board"] == show_json_at_start(tmp_path)
    assert lines[1]["commands"] == {"ann": [[1, 1, 1, "BUILD"]], "bob": [[18, 18, 1, "MOVE", "W"]]}
    assert lines[2]["commands"] == {"ann": [], "bob": [[17, 18, 1, "MINE"]]}
    assert lines[2]["dropped"] == {"ann": ["fault: bot crashed"], "bob": ["1,1 1 MINE: no units of yours there"]}
    assert lines[2]["board"]["turn"] == 2 and lines[2]["board"]["resources"]["bob"] == 101
    assert set(lines[2]["board"]) == {"width", "height", "turn", "limit", "resources", "units", "hives", "cells"}


def show_json_at_start(tmp_path: Path) -> dict:
    fresh = tmp_path / "fresh"
    fresh.mkdir(exist_ok=True)
    return show_json(new_record(fresh))["board"]


def test_trace_refuses_other_games(tmp_path: Path) -> None:
    record = tmp_path / "c.json"
    assert run("new", "copolymer", "--out", str(record), "--seed", "1").exit_code == 0
    result = run("monad", "trace", str(record))
    assert result.exit_code == 2 and "not a Monad one" in result.stderr


def test_rules_text_documents_the_notation() -> None:
    result = run("rules", "monad")
    assert result.exit_code == 0
    for words in ("X,Y N MOVE DIR", "X,Y N MINE", "X,Y N BUILD", "pass", "fault"):
        assert words in result.stdout


def test_show_text_draws_the_map(tmp_path: Path) -> None:
    record = new_record(tmp_path)
    result = run("show", str(record), "--ascii")
    assert result.exit_code == 0
    assert "a 1" in result.stdout and "b 1" in result.stdout and "ann: 1 units" in result.stdout


def test_a_long_move_is_confirmed_in_one_short_line(tmp_path: Path) -> None:
    record = new_record(tmp_path)
    result = runner.invoke(app, ["move", str(record), "1,1 1 MINE; " * 10_000, "--as", "ann"])
    assert result.exit_code == 0, result.output
    assert "(10000 commands)" in result.output and len(result.output) < 300


# --------------------------------------------------------------------------
# Long records (issue 32): what termgames writes, show, replay and monad trace read back
# --------------------------------------------------------------------------


def test_a_record_past_the_old_8_mb_limit_is_read_back(tmp_path: Path, monkeypatch) -> None:
    import termgames.cli as cli

    record = tmp_path / "long.json"
    played = run("monad", "match", "greedy", "swarm", "--seed", "3", "--turns", "40", "--out", str(record))
    assert played.exit_code == 0, played.output
    # a long match's record, as large as 40 turns of a large map's: the same record, its lines indented
    text = record.read_text()
    pad = " " * (9_000_000 // text.count("\n ") + 1)
    record.write_text(text.replace("\n ", "\n " + pad))
    assert record.stat().st_size > 9_000_000
    trace = run("monad", "trace", str(record))
    assert trace.exit_code == 0, trace.output
    assert len(trace.stdout.splitlines()) == 41
    assert run("show", str(record)).exit_code == 0
    launched = []
    monkeypatch.setattr(cli, "_run_tui", lambda launch, *_rest: launched.append(launch))
    assert run("replay", str(record)).exit_code == 0
    assert launched and len(launched[0].match.moves) == 80


def test_a_record_termgames_could_not_read_back_is_not_written(tmp_path: Path, monkeypatch) -> None:
    from termgames import records

    monkeypatch.setattr(records, "MAX_RECORD_BYTES", 5_000)
    record = tmp_path / "long.json"
    played = run("monad", "match", "greedy", "swarm", "--seed", "3", "--turns", "100", "--out", str(record))
    assert played.exit_code == 2
    lines = played.stderr.strip().splitlines()
    assert len(lines) == 1 and "more than termgames reads back (5000)" in lines[0], lines
    assert not record.exists()
    short = tmp_path / "short.json"
    assert run("new", "monad", "--out", str(short), "--seed", "1").exit_code == 0
    match = records.load(short)
    monkeypatch.setattr(records, "MAX_RECORD_BYTES", 100)
    try:
        records.save(short, match)
    except records.SaveError as error:
        assert "not written" in str(error)
    else:
        raise AssertionError("saved a record termgames cannot read back")
