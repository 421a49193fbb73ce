"""``termgames analyse`` / ``analyze`` (issue 36): the --json contract, the record's section kept and read back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from termgames import analysis_run
from termgames.cli import app

SAVES = Path(__file__).resolve().parent.parent / "saves"
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def sample_copy(tmp_path: Path, name: str = "monunrail-ada-vs-hal.json") -> Path:
    copy = tmp_path / name
    shutil.copyfile(SAVES / name, copy)
    return copy


def test_analyse_json_has_one_entry_per_move_and_keeps_it_in_the_record(tmp_path) -> None:
    record = sample_copy(tmp_path)
    result = run("analyse", str(record), "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    moves = json.loads((SAVES / record.name).read_text())["moves"]
    assert out["game"] == "monunrail" and out["level"] == "normal"
    assert [(m["ply"], m["player"], m["move"]) for m in out["moves"]] == [
        (ply, m["seat"], m["move"]) for ply, m in enumerate(moves, start=1)
    ]
    assert {m["class"] for m in out["moves"]} <= {"good", "inaccuracy", "mistake", "blunder"}
    assert all(m["best"] is None or isinstance(m["best"], str) for m in out["moves"])
    kept = json.loads(record.read_text())
    assert kept["analysis"] == out
    assert kept["moves"] == moves  # nothing else changed


def test_a_kept_analysis_is_read_back_not_worked_out_again(tmp_path, monkeypatch) -> None:
    record = sample_copy(tmp_path)
    first = run("analyze", str(record), "--json").stdout

    def refuse(*args, **kwargs):
        raise AssertionError("analysed again")

    monkeypatch.setattr("termgames.analysis_cli.analyse_match", refuse)
    assert run("analyse", str(record), "--json").stdout == first
    assert run("analyse", str(record), "--json", "--level", "normal").stdout == first


def test_another_level_or_a_tampered_section_is_analysed_again_with_one_line_why(tmp_path, monkeypatch) -> None:
    record = sample_copy(tmp_path)
    run("analyse", str(record), "--json")
    data = json.loads(record.read_text())
    data["analysis"]["moves"][3]["class"] = "blunder"
    record.write_text(json.dumps(data))
    calls: list[str | None] = []
    real = analysis_run.analyse_match

    def counting(match, level=None, **kwargs):
        calls.append(level)
        return real(match, level, **kwargs)

    monkeypatch.setattr("termgames.analysis_cli.analyse_match", counting)
    result = run("analyse", str(record), "--json")
    assert calls == [None]
    assert "move 4" in result.stderr and "analysing again" in result.stderr
    assert json.loads(record.read_text())["analysis"]["moves"][3]["class"] == "good"
    result = run("analyse", str(record), "--level", "easy")
    assert calls == [None, "easy"] and "at level normal" in result.stderr
    assert json.loads(record.read_text())["analysis"]["level"] == "easy"
    assert "analysed at level easy" in result.stdout


def test_a_sample_is_printed_never_written(tmp_path) -> None:
    sample = SAVES / "monunrail-ada-vs-hal.json"
    before = sample.read_bytes()
    result = run("analyse", str(sample))
    assert result.exit_code == 0
    assert "not kept" in result.stderr and "sample" in result.stderr
    assert "MonUnrail, analysed at level normal" in result.stdout
    assert sample.read_bytes() == before


def test_a_level_the_game_lacks_is_one_line(tmp_path) -> None:
    record = sample_copy(tmp_path)
    result = run("analyse", str(record), "--level", "grandmaster")
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "levels" in result.stderr
    assert "analysis" not in json.loads(record.read_text())
