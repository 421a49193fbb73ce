"""The CLI contracts: new/move/show, one-line errors, untouched files, fast --help."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from termgames.cli import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def one_line_error(result) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def show_json(path: Path, *extra: str) -> dict:
    result = run("show", str(path), "--json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_list_names_copolymer():
    result = run("list")
    assert result.exit_code == 0
    assert result.stdout.startswith("copolymer")


def test_rules_prints_the_rules():
    result = run("rules", "copolymer")
    assert result.exit_code == 0
    assert "majority" in result.stdout.lower() or "more cells" in result.stdout.lower()
    assert "F6" in result.stdout


def test_rules_of_unknown_game_is_one_line():
    assert "no game 'chess'" in one_line_error(run("rules", "chess"))


def test_whole_game_through_new_move_show(tmp_path):
    record = tmp_path / "game.json"
    result = run(
        "new", "copolymer", "--size", "5", "--seed", "7", "--player", "ann", "--player", "bob", "--out", str(record)
    )
    assert result.exit_code == 0, result.output
    data = show_json(record)
    assert data["game"] == "copolymer"
    assert data["players"] == ["ann", "bob"]
    assert data["to_move"] == ["ann"]
    assert data["over"] is False and data["winners"] == [] and data["moves"] == []
    assert len(data["board"]) == 19 and set(data["board"].values()) == {None}

    chooser = random.Random(1)
    played = []
    while not data["over"]:
        mover = data["to_move"][0]
        empty = sorted(cell for cell, owner in data["board"].items() if owner is None)
        cell = chooser.choice(empty)
        result = run("move", str(record), cell.lower(), "--as", mover)
        assert result.exit_code == 0, result.output
        played.append(cell)
        data = show_json(record, "--as", mover)
        assert data["board"][cell] == mover
    assert data["to_move"] == []
    assert data["moves"] == played
    assert sum(data["scores"].values()) == 19
    (winner,) = data["winners"]
    assert data["scores"][winner] >= 10
    # Counts agree with the board.
    owners = list(data["board"].values())
    assert {name: owners.count(name) for name in ("ann", "bob")} == data["scores"]


def test_illegal_moves_leave_the_file_untouched(tmp_path):
    record = tmp_path / "game.json"
    assert run("new", "copolymer", "--small", "--out", str(record), "--seed", "1").exit_code == 0
    assert run("move", str(record), "E5", "--as", "p1").exit_code == 0
    before = record.read_bytes()
    assert "already taken" in one_line_error(run("move", str(record), "E5", "--as", "p2"))
    assert "p2's turn" in one_line_error(run("move", str(record), "E4", "--as", "p1"))
    assert "not a cell" in one_line_error(run("move", str(record), "Z99", "--as", "p2"))
    assert "no player" in one_line_error(run("move", str(record), "E4", "--as", "zed"))
    assert record.read_bytes() == before


def test_move_defaults_to_the_player_to_move(tmp_path):
    record = tmp_path / "game.json"
    run("new", "copolymer", "--size", "3", "--out", str(record))
    assert run("move", str(record), "B2").exit_code == 0
    assert show_json(record)["board"]["B2"] == "p1"


def test_bad_options_and_players_are_one_line(tmp_path):
    out = str(tmp_path / "x.json")
    assert "odd number of rows" in one_line_error(run("new", "copolymer", "--size", "6", "--out", out))
    assert "even count" in one_line_error(run("new", "copolymer", "--rhombus", "4", "--out", out))
    assert "no option '--bogus'" in one_line_error(run("new", "copolymer", "--bogus", "--out", out))
    assert "2 players" in one_line_error(run("new", "copolymer", "-p", "a", "-p", "b", "-p", "c", "--out", out))
    assert "AI levels" in one_line_error(run("new", "copolymer", "-p", "a", "-p", "b:ai:godlike", "--out", out))
    assert not Path(out).exists()


def test_corrupt_record_is_one_line(tmp_path):
    record = tmp_path / "bad.json"
    record.write_text('{"format": "termgames-record", "version": 1, "game": "copolymer"')
    before = record.read_bytes()
    assert "not valid JSON" in one_line_error(run("show", str(record)))
    assert "not valid JSON" in one_line_error(run("move", str(record), "F6"))
    assert record.read_bytes() == before
    assert "no such file" in one_line_error(run("show", str(tmp_path / "missing.json")))


def test_new_refuses_to_overwrite(tmp_path):
    record = tmp_path / "game.json"
    record.write_text("precious")
    assert "exists already" in one_line_error(run("new", "copolymer", "--out", str(record)))
    assert record.read_text() == "precious"


def test_show_text_draws_the_board(tmp_path):
    record = tmp_path / "game.json"
    run("new", "copolymer", "--size", "5", "-p", "ann", "-p", "bob", "--out", str(record))
    run("move", str(record), "C3")
    result = run("show", str(record))
    assert result.exit_code == 0
    assert "C . . x . ." in result.stdout
    assert "bob to claim" in result.stdout


def test_same_seed_and_moves_give_the_same_record(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for path in (first, second):
        run("new", "copolymer", "--size", "5", "--seed", "42", "--out", str(path))
        run("move", str(path), "C3")
    a, b = json.loads(first.read_text()), json.loads(second.read_text())
    for data in (a, b):
        for move in data["moves"]:
            move.pop("time")
    assert a == b


@pytest.mark.parametrize("command", ["--help", "list"])
def test_help_and_list_import_neither_textual_nor_any_game(command):
    # The game descriptors name every game's modules as text: listing the games imports none of them.
    code = (
        "import sys\n"
        f"sys.argv = ['termgames', {command!r}]\n"
        "from termgames.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = ('textual', 'termgames.rules', 'termgames.ai', 'termgames.screens', 'termgames.widgets',\n"
        "         'aiohttp', 'termgames.web')\n"
        "bad = [m for m in sys.modules if m.startswith(heavy)]\n"
        "assert not bad, bad\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    if command == "list":
        from termgames.games import GAMES

        assert done.stdout.splitlines() == [
            f"{name:<{max(map(len, GAMES))}}  {descriptor.blurb}" for name, descriptor in GAMES.items()
        ]


@pytest.mark.parametrize(
    ("args", "said"),
    [(["--port", "70000"], "--port must be between 0 and 65535"), (["--palette", "pink"], "--palette must be"),
     (["--pace", "fast"], "--pace")],
)
def test_web_option_mistakes_are_one_line(args, said):
    assert said in one_line_error(run("web", *args))


def test_web_warns_off_loopback_and_says_in_one_line_when_it_cannot_listen(tmp_path):
    # 192.0.2.1 (TEST-NET-1) is no address of this machine: binding it fails at once, nothing is sent anywhere.
    done = subprocess.run(
        [sys.executable, "-m", "termgames", "web", "--host", "192.0.2.1", "--saves", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    warning, error = done.stderr.strip().splitlines()
    assert warning.startswith("termgames: warning: listening on 192.0.2.1, not loopback")
    assert error.startswith("termgames: cannot listen on 192.0.2.1:8000")


@pytest.mark.parametrize("args", [["play", "--load", "x.json", "copolymer"], ["play", "-p", "a"]])
def test_play_argument_mistakes_are_one_line(args):
    one_line_error(run(*args))


def test_saves_folder_flag_then_environment_then_data_folder(monkeypatch, tmp_path):
    from termgames.paths import saves_dir

    monkeypatch.setenv("TERMGAMES_SAVES", str(tmp_path / "env"))
    assert saves_dir(tmp_path / "flag") == tmp_path / "flag"
    assert saves_dir(None) == tmp_path / "env"
    monkeypatch.delenv("TERMGAMES_SAVES")
    assert saves_dir(None).name == "saves" and "termgames" in str(saves_dir(None))


def test_ascii_is_automatic_when_the_terminal_is_not_utf8(monkeypatch):
    import io

    from termgames import terminal

    latin = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    utf8 = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    for name in ("LC_ALL", "LC_CTYPE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setattr(terminal, "python_coerced_locale", lambda: False)
    monkeypatch.setattr(terminal.sys, "stdout", utf8)
    monkeypatch.setattr(terminal.sys, "stderr", utf8)
    assert terminal.wants_ascii(False) is False
    assert terminal.wants_ascii(True) is True
    monkeypatch.setattr(terminal.sys, "stderr", latin)
    assert terminal.wants_ascii(False) is True


@pytest.mark.parametrize("command", ["play", "new"])
def test_game_help_lists_that_games_options_with_their_ranges(command):
    mono = run(command, "mono", "--help")
    assert mono.exit_code == 0
    assert "Mono options:" in mono.stdout
    assert "--size N" in mono.stdout and "2 to 35" in mono.stdout and "--no-hints" in mono.stdout
    monunrail = run(command, "monunrail", "--help")
    assert "--supply S,T,C" in monunrail.stdout and "--random-supply" in monunrail.stdout
    assert "Mono options:" not in monunrail.stdout
    # without a game: how to get them
    assert "termgames play GAME --help" in run(command, "--help").stdout


def test_each_invalid_option_names_the_flag_typed_and_contradictions_are_refused(tmp_path):
    out = str(tmp_path / "x.json")
    assert one_line_error(run("new", "copolymer", "--rhombus", "2", "--out", out)).startswith(
        "termgames: --rhombus must be at least 3"
    )
    assert "--small and --large both set the size" in one_line_error(
        run("new", "copolymer", "--small", "--large", "--out", out)
    )
    assert "--small and --size" in one_line_error(run("new", "copolymer", "--small", "--size", "11", "--out", out))
    assert "--take-min and --take-max" in one_line_error(run("new", "mono", "--take-min", "--take-max", "--out", out))
    # a MonUnrail with too few turns can never close its track: the first player would win at once
    assert "--supply's turns must be at least 4" in one_line_error(
        run("new", "monunrail", "--supply", "0,0,0", "--out", out)
    )
    assert not Path(out).exists()


def test_locale_names_whether_glyphs_can_show():
    from termgames.terminal import locale_is_utf8

    assert locale_is_utf8({"LANG": "en_GB.UTF-8"}) is True
    assert locale_is_utf8({"LANG": "de_DE.utf8@euro"}) is True
    assert locale_is_utf8({"LANG": "C"}) is False
    assert locale_is_utf8({"LANG": "C.UTF-8", "LC_ALL": "C"}) is False  # LC_ALL first
    assert locale_is_utf8({"LANG": "C.UTF-8", "LC_ALL": "POSIX"}) is False
    assert locale_is_utf8({"LANG": "C.UTF-8", "LC_CTYPE": "fr_FR.ISO-8859-1"}) is False  # then LC_CTYPE
    assert locale_is_utf8({"LANG": "C", "LC_CTYPE": "C.UTF-8"}) is True
    assert locale_is_utf8({"LANG": "C", "LC_CTYPE": "C.UTF-8"}, coerced=True) is False  # Python wrote it
    assert locale_is_utf8({"LANG": "en_US"}) is False  # no charset: an 8-bit one
    assert locale_is_utf8({}) is None


@pytest.mark.parametrize(
    ("environment", "ascii"),
    [({"LANG": "C"}, True), ({"LANG": "C", "LC_ALL": "C"}, True), ({"LC_ALL": "POSIX"}, True),
     ({"LANG": "C.UTF-8"}, False)],
)
def test_ascii_is_automatic_under_the_c_locale_which_python_hides(environment, ascii):
    # A real interpreter: its C-locale coercion (PEP 538) and UTF-8 mode (PEP 540) are what hide the locale.
    import os

    env = {"PATH": os.environ.get("PATH", ""), **environment}
    code = "from termgames.terminal import wants_ascii; print(wants_ascii(False))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.stdout.strip() == str(ascii), done.stderr
