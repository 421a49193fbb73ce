"""``termgames solve monunrail``: the contract of issue 5, through the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from termgames.cli import app

runner = CliRunner()

DM1 = """
.......
.....##
...####
...##..
...##..
"""


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Never touch the user's own cache file."""
    monkeypatch.setenv("TERMGAMES_SOLVER_CACHE", str(tmp_path / "cache.json.gz"))
    return tmp_path / "cache.json.gz"


def solve(*args: str, stdin: str | None = None):
    return runner.invoke(app, ["solve", "monunrail", *args], input=stdin, catch_exceptions=False)


def one_line_error(result) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_json_of_the_death_match_position(tmp_path):
    path = tmp_path / "dm1.txt"
    path.write_text(DM1)
    result = solve(str(path), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "nimber": 2,
        "winning_moves": [["D3", "E3"], ["F2", "F3"], ["F2", "G2"], ["F3", "G3"], ["G2", "G3"]],
    }


def test_human_output_reads_standard_input():
    result = solve(stdin=DM1)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "10 tiles, nimber 2."
    assert "player to move wins" in lines[1]
    assert [line.strip() for line in lines[2:]] == ["D3+E3", "F2+F3", "F2+G2", "F3+G3", "G2+G3"]
    assert solve("-", "--json", stdin=DM1).stdout == solve("--json", stdin=DM1).stdout


def test_a_lost_position_and_the_empty_shape():
    result = solve("--json", stdin="##\n##\n")
    assert json.loads(result.stdout) == {"nimber": 0, "winning_moves": []}
    assert "loses" in solve(stdin="##\n##\n").stdout
    for empty in ("", "\n\n", "....\n...\n", "   \n"):
        result = solve("--json", stdin=empty)
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == {"nimber": 0, "winning_moves": []}


def test_blank_lines_and_trailing_whitespace_are_tolerated():
    plain = solve("--json", stdin="##.\n.##\n").stdout
    assert solve("--json", stdin="\n\n##.  \r\n.##\t\r\n\n\n").stdout == plain
    assert json.loads(plain) == {"nimber": 1, "winning_moves": [["B1", "B2"]]}  # leaves two single tiles
    assert solve("--json", stdin="\ufeff##.\n.##\n").stdout == plain  # a byte-order mark


def test_moves_and_their_cells_are_sorted():
    # an L-tromino: only taking its corner wins (two single tiles remain)
    data = json.loads(solve("--json", stdin=".#\n##\n").stdout)
    assert data["nimber"] == 3
    moves = data["winning_moves"]
    assert moves == sorted(moves) and all(move == sorted(move) for move in moves)
    assert moves == [["B2"]]
    # rows past 9: a vertical line of 10
    data = json.loads(solve("--json", stdin="#\n" * 10).stdout)
    assert data == {"nimber": 6, "winning_moves": [["A5", "A6"]]}


def test_tall_shapes_sort_cells_by_column_then_row_number():
    # A vertical line of 12: sorting names as strings would put A10 before A9 and A2.
    data = json.loads(solve("--json", stdin="#\n" * 12).stdout)
    assert data["winning_moves"] == [
        ["A2", "A3"], ["A3", "A4"], ["A4", "A5"], ["A6", "A7"], ["A8", "A9"], ["A9", "A10"], ["A10", "A11"]
    ]
    human = solve(stdin="#\n" * 12).stdout
    assert human.index("A9+A10") < human.index("A10+A11")


@pytest.mark.parametrize(
    "text,where",
    [("##\n#x\n", "line 2, column 2"), (" #\n", "line 1, column 1"), ("##\n\n#o", "line 3, column 2")],
)
def test_bad_characters_are_one_line_errors(text, where):
    assert where in one_line_error(solve(stdin=text))


def test_other_bad_input_is_one_line(tmp_path):
    assert "no-such-file" in one_line_error(solve(str(tmp_path / "no-such-file")))
    binary = tmp_path / "binary"
    binary.write_bytes(b"\xff\xfe#\n")
    assert "binary" in one_line_error(solve(str(binary)))
    result = runner.invoke(app, ["solve", "copolymer"], input="#\n")
    assert "monunrail" in one_line_error(result)


def test_the_cache_is_written_and_read(private_cache):
    block = "#####\n#####\n####.\n"
    first = solve("--json", stdin=block)
    assert first.exit_code == 0
    assert private_cache.exists()
    again = solve("--json", stdin=block)
    assert again.stdout == first.stdout
    private_cache.write_bytes(b"not a cache at all")
    assert solve("--json", stdin=block).stdout == first.stdout  # ignored, no crash
    private_cache.unlink()
    assert solve("--json", "--no-cache", stdin=block).stdout == first.stdout
    assert not private_cache.exists()


def test_help_imports_neither_the_solver_nor_textual():
    code = (
        "import sys\n"
        "sys.argv = ['termgames', '--help']\n"
        "from termgames.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "bad = [m for m in ('textual', 'termgames.rules.monunrail_solver', 'termgames._unrail',"
        " 'termgames.solver_cache') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "solve" in done.stdout
