"""``termgames solve monunrail``: the contract of issue 5, through the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from termgames.cli import app
from termgames.rules.monunrail.solver import SolveStopped

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
        "bad = [m for m in ('textual', 'termgames.rules.monunrail.solver', 'termgames._unrail',"
        " 'termgames.solver_cache', 'termgames.solver_run', 'rich.progress') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "solve" in done.stdout


# --------------------------------------------------------------------------
# Symmetry, budgets and progress (issue 28)
# --------------------------------------------------------------------------

SIX_BY_SIX = "######\n" * 6


def test_a_symmetric_position_is_answered_at_once_and_says_why():
    result = solve(stdin=SIX_BY_SIX)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "36 tiles, nimber 0."
    assert "loses" in lines[1]
    assert lines[2].startswith("Symmetric: the second player mirrors")
    # the JSON contract is as it was; --explain adds a key
    assert json.loads(solve("--json", stdin=SIX_BY_SIX).stdout) == {"nimber": 0, "winning_moves": []}
    explained = json.loads(solve("--json", "--explain", stdin=SIX_BY_SIX).stdout)
    assert explained["explain"] == {"box": "A1-F6", "symmetric": True, "components": []}
    assert "Symmetric" not in solve(stdin=DM1).stdout  # only where it applies


def test_explain_says_how_each_component_was_found():
    position = "##...#\n##..##\n....#.\n"  # O4 (symmetric: 0), and an S4 standing (1)
    result = solve("--explain", stdin=position)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "8 tiles, nimber 1."
    tail = result.stdout.split("Components, smallest first:\n")[1].splitlines()
    assert [line.strip() for line in tail] == [
        "A1-B2, 4 tiles: 0 (symmetric: the second player mirrors)",
        "E1-F3, 4 tiles: 1 (solved)",
    ]
    data = json.loads(solve("--json", "--explain", stdin=position).stdout)
    assert [(k["box"], k["nimber"], k["how"]) for k in data["explain"]["components"]] == [
        ("A1-B2", 0, "symmetric"), ("E1-F3", 1, "known")  # the first run put the S4 in the cache
    ]
    assert data["winning_moves"] == json.loads(solve("--json", stdin=position).stdout)["winning_moves"]


@pytest.mark.parametrize(
    "option,value,where",
    [("--time-limit", "soon", "not a time"), ("--time-limit", "0", "more than nothing"),
     ("--max-memory", "lots", "not a size"), ("--max-memory", "0M", "more than nothing")],
)
def test_bad_budgets_are_one_line_errors(option, value, where):
    assert where in one_line_error(solve(option, value, stdin="##\n"))


def test_the_memory_budget_stops_with_one_line_and_status_3():
    result = solve("--max-memory", "1M", "--json", stdin="#####\n" * 5)
    assert result.exit_code == 3, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("termgames: stopped at the memory budget (1.0 MB)")


@pytest.fixture
def work_clock(monkeypatch):
    """The budgets' clock, made of work instead of time: a second per 10,000 positions solved in the run.

    Deterministic where seconds are not: a run with --time-limit 1 solves about 10,000 positions (to the
    solver's next look at its budget) wherever the tests run.
    """
    from termgames import solver_run

    state: dict = {}
    check = solver_run.Budget.check

    def watched_check(self, solver):
        if state.get("solver") is not solver:
            state.update(solver=solver, base=solver.cache_size)
        return check(self, solver)

    def clock():
        solver = state.get("solver")
        return 0.0 if solver is None else (solver.cache_size - state["base"]) / 10_000

    monkeypatch.setattr(solver_run.Budget, "check", watched_check)
    monkeypatch.setattr(solver_run, "monotonic", clock)
    return state


def test_a_time_limit_stops_and_the_next_run_goes_on_from_there(work_clock, private_cache, monkeypatch):
    from termgames import solver_cache

    # the cache file keeps the largest shapes only, far fewer than a long search solves: here 500 of 24,000
    monkeypatch.setattr(solver_cache, "MAX_SHAPES", 500)
    block = "#####\n" * 4  # 4 x 5: value 7, about 24,000 positions
    want = json.loads(solve("--json", "--no-cache", stdin=block).stdout)
    assert want["nimber"] == 7
    work_clock.clear()
    cold = solve("--json", "--no-cache", "--time-limit", "1", stdin=block)
    assert cold.exit_code == 3 and cold.stdout == ""
    runs = []
    while True:
        work_clock.clear()
        result = solve("--json", "--time-limit", "1", stdin=block)
        runs.append(result)
        if result.exit_code == 0:
            break
        assert result.exit_code == 3, result.output
        assert result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith("termgames: stopped at the time limit (1.0 s) after ")
        assert "positions solved" in lines[0] and "kept for the next run" in lines[0]
        assert "the 20-tile component at A1-E4" in lines[0]
        assert (private_cache.parent / "monunrail-resume.bin").exists()
        assert len(runs) < 8, "no progress from one run to the next"
    assert len(runs) >= 2
    assert json.loads(runs[-1].stdout) == want
    assert not (private_cache.parent / "monunrail-resume.bin").exists()  # done: the resume file goes


def test_a_stop_says_what_it_knows(work_clock):
    # a single tile (1) and a 4 x 5 block: the tile is valued, the block stops part way
    result = solve("--time-limit", "1", "--no-cache", stdin="#.#####\n..#####\n..#####\n..#####\n")
    assert result.exit_code == 3
    line = result.stderr.strip()
    assert "1 of 2 components valued (A1 = 1)" in line
    assert "the 20-tile component at C1-G4: " in line and "moves valued" in line


def test_no_progress_line_on_a_pipe(work_clock):
    result = solve("--time-limit", "1", "--no-cache", stdin="#####\n" * 4)
    assert "solving" not in result.stderr


def test_the_progress_line_shows_on_a_terminal(tmp_path):
    """A real pseudo-terminal on standard error: rich's progress line appears while the solve runs (it
    needs half a second to show), and goes when it stops."""
    import os
    import pty
    import time

    position = tmp_path / "five-by-six.txt"
    position.write_text("######\n" * 5)
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "TERMGAMES_SOLVER_CACHE": "off", "COLUMNS": "160"}
    child = subprocess.Popen(
        [sys.executable, "-m", "termgames", "solve", "monunrail", str(position), "--time-limit", "2.5"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, env=env,
    )
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
    finally:
        child.kill() if child.poll() is None else None
        child.wait()
        os.close(master)
    assert child.returncode == 3, seen
    assert b"solving: move" in seen and b"positions solved" in seen
    assert b"termgames: stopped at the time limit (2.5 s)" in seen
    assert child.stdout is not None and child.stdout.read() == b""


def test_sizes_and_times_of_the_budgets():
    from termgames.solver_run import parse_seconds, parse_size

    assert parse_size("2G") == parse_size("2 GB") == parse_size("2GiB") == 2 << 30
    assert parse_size("1.5g") == 3 << 29 and parse_size("500M") == 500 << 20 and parse_size("4096") == 4096
    assert parse_seconds("90") == parse_seconds("90s") == parse_seconds("1.5m") == 90
    assert parse_seconds("2h") == 7200 and parse_seconds(".5") == 0.5


def test_the_memory_budget_is_never_more_than_the_machine_has_free(monkeypatch):
    from termgames import solver_run
    from termgames.rules.monunrail.solver import Solver

    monkeypatch.setattr(solver_run, "machine_memory", lambda: (8 << 30, 100 << 20))
    monkeypatch.setattr(solver_run, "process_memory", lambda: 50 << 20)
    budget = solver_run.Budget(memory=1 << 30)
    assert budget.memory == 150 << 20 and budget.capped
    assert budget.describe("memory") == "the memory budget (150 MB, what the machine had free)"
    monkeypatch.setattr(solver_run, "machine_memory", lambda: (8 << 30, 6 << 30))
    budget = solver_run.Budget()
    assert budget.memory == 4 << 30 and not budget.capped  # half the machine's by default
    assert budget.describe("memory") == "the memory budget (4.0 GB)"
    solver = Solver()
    budget.check(solver)
    assert solver.memory_limit == (4 << 30) - (50 << 20)  # the tables may have what the rest does not hold
    # past the budget
    monkeypatch.setattr(solver_run, "process_memory", lambda: 5 << 30)
    with pytest.raises(SolveStopped) as stopped:
        solver_run.Budget().check(solver)
    assert stopped.value.limit == "memory"
    # where nothing can be read, only the time limit and the solver's own tables bound a solve
    monkeypatch.setattr(solver_run, "machine_memory", lambda: (None, None))
    monkeypatch.setattr(solver_run, "process_memory", lambda: None)
    budget = solver_run.Budget()
    assert budget.memory is None
    budget.check(solver)


def test_the_machine_figures_are_read():
    from termgames import solver_run

    total, available = solver_run.machine_memory()
    held = solver_run.process_memory()
    assert held is None or held > 1 << 20
    if sys.platform == "linux":
        assert total and available and total >= available > 0 and held


# --------------------------------------------------------------------------
# The memory budget covers reading the solver's files (issue 32, item 6)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["cache", "resume"])
def test_files_that_do_not_fit_the_memory_budget_stop_before_they_are_read(private_cache, monkeypatch, which):
    from termgames import solver_cache, solver_run
    from termgames.rules.monunrail.solver import Solver

    shape = "#####\n" * 4
    solver = Solver()
    solver.nimber([(c, r) for r in range(4) for c in range(5)])  # about 24,000 shapes
    resume = private_cache.parent / solver_cache.RESUME_NAME
    if which == "cache":
        solver_cache.save(solver, private_cache)
        written = private_cache
    else:
        solver_cache.save_resume(solver, solver_cache.position_tag(
            [(c, r) for r in range(4) for c in range(5)]), resume)
        written = resume
    before = written.read_bytes()
    # the process holds 20 MB and may have 20.1: a few hundred KB of files do not fit
    monkeypatch.setattr(solver_run, "process_memory", lambda: 20 << 20)
    monkeypatch.setattr(solver_run, "machine_memory", lambda: (8 << 30, 6 << 30))
    result = solve("--json", "--max-memory", "20.1M", stdin=shape)
    assert result.exit_code == 3, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("termgames: stopped at the memory budget (20 MB)"), lines
    assert ("cache" if which == "cache" else "resume file") in lines[0]
    assert written.read_bytes() == before  # nothing of it lost
    assert solve("--json", stdin=shape).exit_code == 0  # with the default budget it is read and used


@pytest.mark.parametrize("entries", [10**8, 10**9])
def test_a_resume_header_claiming_more_than_the_file_is_one_line_and_the_solve_goes_on(private_cache, entries):
    from termgames import solver_cache
    from termgames.rules.monunrail.solver import DUMP_MAGIC, Solver

    cells = [(0, 0), (1, 0), (0, 1), (1, 1), (2, 1)]
    tag = solver_cache.position_tag(cells)
    resume = private_cache.parent / solver_cache.RESUME_NAME
    resume.write_bytes(DUMP_MAGIC + b" " + tag.encode() + b"\n" + b"C" + (18 * entries).to_bytes(8, "little"))
    # in a child whose address space is bounded: before the fix it tried to reserve gigabytes
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)); "
    code = limit + "import sys; from termgames.cli import main; sys.argv[0] = 'termgames'; main()"
    done = subprocess.run(
        [sys.executable, "-c", code, "solve", "monunrail", "--json", "--max-memory", "200M"],
        input="##.\n###\n", capture_output=True, text=True, timeout=120,
        env={**os.environ, "TERMGAMES_SOLVER_CACHE": str(private_cache)},
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["nimber"] == Solver().nimber(cells)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "damaged" in lines[0], lines

