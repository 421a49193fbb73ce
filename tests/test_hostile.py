"""Hostile players and hostile files (issue 14): secret seeds, records that say what happened, no lost
moves, names that stay names, files that are not records.

Each test reproduces one finding of the issue: it failed before the fix and holds after it.
"""

from __future__ import annotations

import copy
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from termgames import records
from termgames.cli import app
from termgames.match import SEED_BITS, Match, SeatInfo, random_seed
from termgames.records import RecordError
from termgames.rules import RuleError, game_names, get_game
from termgames.rules.mono import label
from termgames.server.stores.sqlite import Store
from termgames.table import LocalTable
from termgames.untrusted import check_name, fold_name, printable, safe_json

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
#: A seed of 128 bits whose digits cannot appear in any output by chance.
BIG_SEED = 2**127 + 98765432109876543210987


def run(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def one_line_error(result) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def termgames(*args: str, timeout: float = 60, drop_root: bool = False) -> subprocess.CompletedProcess[str]:
    """The real command in a child process; ``drop_root`` takes away root's licence to ignore permissions."""
    command = [sys.executable, "-m", "termgames", *args]
    if drop_root and os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: permission bits cannot be tested")
        caps = "-dac_override,-dac_read_search"
        command = ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT, check=False)


def new_record(path: Path, game: str = "copolymer", *extra: str, seed: int | None = 7) -> Path:
    seed_args = ["--seed", str(seed)] if seed is not None else []
    result = run("new", game, *extra, "--player", "ann", "--player", "bob", *seed_args, "--out", str(path))
    assert result.exit_code == 0, result.output
    return path


# --------------------------------------------------------------------------
# 1. Secret seeds
# --------------------------------------------------------------------------


def test_fresh_seeds_have_128_bits():
    seeds = [random_seed() for _ in range(64)]
    assert SEED_BITS == 128
    assert len(set(seeds)) == 64
    assert all(0 < seed < 2**128 for seed in seeds)
    # 31-bit seeds were searched exhaustively; these are beyond 2**64 all but never.
    assert sum(seed >= 2**64 for seed in seeds) >= 60


def test_a_128_bit_seed_round_trips_through_a_record(tmp_path):
    match = Match("mono", {"size": 4}, [SeatInfo("ann"), SeatInfo("bob")], BIG_SEED)
    match.play(0, "random")
    path = records.save(tmp_path / "game.json", match)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["seed"] == str(BIG_SEED)  # a string: JavaScript's JSON would round a number this big
    again = records.load(path)
    assert again.seed == BIG_SEED
    assert again.state.layouts[0] == match.state.layouts[0]


def test_a_version_1_record_with_a_small_integer_seed_still_loads(tmp_path):
    path = new_record(tmp_path / "game.json", "mono", "--size", "4")
    assert run("move", str(path), "random").exit_code == 0
    data = json.loads(path.read_text(encoding="utf-8"))
    data["version"], data["seed"] = 1, 7
    for move in data["moves"]:
        move.pop("drawn", None)
    path.write_text(json.dumps(data), encoding="utf-8")
    match = records.load(path)
    assert match.seed == 7 and match.moves[0].move == "random"


def test_the_server_store_keeps_128_bit_seeds_exactly(tmp_path):
    store = Store(tmp_path / "server.db")
    table_id = store.create_table("copolymer", {}, BIG_SEED, [], "ann")
    store.close()
    (table,) = Store(tmp_path / "server.db").load_tables()
    assert table.id == table_id and table.seed == BIG_SEED


def test_an_old_database_with_integer_seeds_is_moved_to_text_seeds(tmp_path):
    path = tmp_path / "server.db"
    old = sqlite3.connect(path)
    old.executescript(
        """
        CREATE TABLE tables (id INTEGER PRIMARY KEY AUTOINCREMENT, game TEXT NOT NULL, options TEXT NOT NULL,
            seed INTEGER NOT NULL, seats TEXT NOT NULL, creator TEXT NOT NULL, created TEXT NOT NULL,
            finished INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE moves (table_id INTEGER NOT NULL REFERENCES tables(id), ply INTEGER NOT NULL,
            seat INTEGER NOT NULL, move TEXT NOT NULL, time TEXT NOT NULL, PRIMARY KEY (table_id, ply));
        INSERT INTO tables (game, options, seed, seats, creator, created) VALUES ('copolymer', '{}', 12345, '[]',
            'ann', 'then');
        INSERT INTO moves VALUES (1, 0, 0, 'F6', 'then');
        """
    )
    old.commit()
    old.close()
    store = Store(path)
    second = store.create_table("copolymer", {}, BIG_SEED, [], "bob")
    tables = {table.id: table for table in store.load_tables()}
    assert tables[1].seed == 12345 and [m.move for m in tables[1].moves] == ["F6"]
    assert second == 2 and tables[2].seed == BIG_SEED


def test_bots_are_not_seeded_with_seed_plus_seat():
    match = Match("copolymer", {"size": 5}, [SeatInfo("ann"), SeatInfo("cpu", "ai", "easy")], BIG_SEED)
    seeds = {match.bot_seed(seat) for seat in range(2)}
    assert len(seeds) == 2 and not seeds & {BIG_SEED, BIG_SEED + 1}
    # Nothing in the front ends or the server derives a seed by adding to the table's seed.
    for folder in ("termgames/screens", "termgames/server", "termgames/ai"):
        for source in (ROOT / folder).rglob("*.py"):
            assert "seed + " not in source.read_text(encoding="utf-8"), source


def test_the_seed_never_leaves_show_json_move_or_errors(tmp_path):
    path = new_record(tmp_path / "game.json", "mono", "--size", "4", seed=BIG_SEED)
    outputs = [
        run("move", str(path), "random"),
        run("move", str(path), "random"),
        run("show", str(path)),
        run("show", str(path), "--json"),
        run("show", str(path), "--as", "ann"),
        run("move", str(path), "zz9"),
        run("move", str(path), "a1", "--as", "nobody"),
    ]
    digits = str(BIG_SEED)
    for result in outputs:
        assert digits not in result.stdout + result.stderr
        assert digits[:12] not in result.stdout + result.stderr


def test_the_seed_never_reaches_ssh_commands(tmp_path):
    from termgames.server.commands import run_command
    from termgames.server.hub import Hub

    hub = Hub(Store(tmp_path / "server.db"))
    made = run_command(hub, "ann", "challenge mono --size 4 bob")
    table_id = made.stdout.split(":")[0]
    hub.tables[int(table_id)].match  # noqa: B018 -- the table exists
    outputs = [made, run_command(hub, "ann", "tables"), run_command(hub, "ann", f"show {table_id} --json")]
    outputs.append(run_command(hub, "ann", f"move {table_id} random"))
    outputs.append(run_command(hub, "bob", f"show {table_id}"))
    seed = str(hub.tables[int(table_id)].seed)
    for result in outputs:
        assert seed not in result.stdout + result.stderr


# --------------------------------------------------------------------------
# 2. Records that say what happened
# --------------------------------------------------------------------------


def mono_record(tmp_path: Path) -> tuple[Path, dict]:
    path = new_record(tmp_path / "mono.json", "mono", "--size", "4", seed=BIG_SEED)
    assert run("move", str(path), "random").exit_code == 0
    assert run("move", str(path), "random").exit_code == 0
    assert run("move", str(path), "random").exit_code == 0  # ann's first turn: random probes
    return path, json.loads(path.read_text(encoding="utf-8"))


def test_a_random_layout_is_stored_as_the_layout_it_drew(tmp_path):
    path, data = mono_record(tmp_path)
    match = records.load(path)
    first = data["moves"][0]
    assert first["move"] == "random"
    assert first["drawn"] == "".join(label(value) for value in match.states[1].layouts[0])
    assert data["moves"][2]["drawn"]  # the positions random probes uncovered


def test_editing_the_seed_cannot_reroll_a_played_random_layout(tmp_path):
    _path, data = mono_record(tmp_path)
    edited = copy.deepcopy(data)
    edited["seed"] = str(BIG_SEED + 1)
    with pytest.raises(RecordError, match="seed"):
        records.loads(json.dumps(edited))
    # Taking out what was drawn does not help: version 2 writes every random outcome down.
    for move in edited["moves"]:
        move.pop("drawn", None)
    with pytest.raises(RecordError, match="drew at random"):
        records.loads(json.dumps(edited))


def test_editing_the_seed_cannot_reroll_monunrail_s_random_supply(tmp_path):
    path = new_record(tmp_path / "rail.json", "monunrail", "--random-supply", seed=BIG_SEED)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["drawn"].count(",") == 2
    records.loads(json.dumps(data))
    data["seed"] = str(BIG_SEED + 2)
    with pytest.raises(RecordError, match="setup"):
        records.loads(json.dumps(data))


# --------------------------------------------------------------------------
# 3. No lost moves
# --------------------------------------------------------------------------


def test_racing_moves_on_one_record_lose_none(tmp_path):
    path = new_record(tmp_path / "race.json", "copolymer", "--size", "9")
    cells = ["A1", "A3", "A5", "C1", "C4", "C7", "E1", "E5", "E9", "G4", "G7", "J7"]
    command = [sys.executable, "-m", "termgames", "move", str(path)]
    children = [
        subprocess.Popen([*command, cell], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for cell in cells
    ]
    accepted = 0
    for child in children:
        _out, err = child.communicate(timeout=120)
        if child.returncode == 0:
            accepted += 1
        else:
            assert err.count("\n") == 1, err  # a refusal is one line, never a traceback
    moves = records.load(path).moves
    assert accepted == len(moves) == len(cells)  # 0 lost: every accepted move is in the record
    assert sorted(m.move for m in moves) == sorted(cells)


def test_autosave_keeps_both_when_the_record_changed_on_disk(tmp_path):
    path = new_record(tmp_path / "corr.json", "copolymer", "--size", "5")
    table = LocalTable(records.load(path), path)
    assert table.take_notice() == ""
    assert run("move", str(path), "A1").exit_code == 0  # a correspondence move comes in meanwhile
    table.play(0, "E3")  # the local game plays its own move and autosaves
    notice = table.take_notice()
    assert "changed on disk" in notice and "Both are kept" in notice
    assert [m.move for m in records.load(path).moves] == ["A1"]  # the correspondence move is still there
    assert table.save_path != path and [m.move for m in records.load(table.save_path).moves] == ["E3"]
    table.play(1, "A1")  # later saves go on in the new file, without another notice
    assert table.take_notice() == "" and len(records.load(table.save_path).moves) == 2


def test_autosave_over_its_own_record_says_nothing(tmp_path):
    path = new_record(tmp_path / "mine.json", "copolymer", "--size", "5")
    table = LocalTable(records.load(path), path)
    table.play(0, "A1")
    table.play(1, "E3")
    assert table.take_notice() == "" and table.save_path == path
    assert len(records.load(path).moves) == 2


# --------------------------------------------------------------------------
# 4. Names are names
# --------------------------------------------------------------------------

BAD_NAMES = [
    "\x1b[2J\x1b]0;pwn\x07evil",  # escape sequences
    "a\x9bb",  # C1 CSI
    "ab\u202ecd",  # bidi override
    "ab\u2066cd",  # bidi isolate
    "a\udc80",  # lone surrogate
    "x" * 33,
    "x" * 1000,
    "",
    "e\u0301",  # not NFC
    "a b",
]


@pytest.mark.parametrize("name", BAD_NAMES, ids=range(len(BAD_NAMES)))
def test_the_name_validator_refuses(name):
    with pytest.raises(ValueError, match="not a usable player name") as caught:
        check_name(name)
    assert str(caught.value).isprintable()  # the message shows the name escaped


@pytest.mark.parametrize("name", ["ann", "José", "李小龍", "x" * 32, "o'brien", "a.b-c_d"])
def test_the_name_validator_takes(name):
    assert check_name(name) == name


def test_player_flag_refuses_escape_sequences_and_long_names(tmp_path):
    for name in ["\x1b[2J\x1b]0;pwn\x07evil", "x" * 1000]:
        result = run("new", "copolymer", "-p", name, "-p", "bob", "--out", str(tmp_path / "g.json"))
        message = one_line_error(result)
        assert "\x1b" not in result.stderr and len(message) < 200
    assert not (tmp_path / "g.json").exists()


def test_player_flag_takes_a_name_in_nfc(tmp_path):
    result = run("new", "copolymer", "-p", "Jose\u0301", "-p", "bob", "--out", str(tmp_path / "g.json"))
    assert result.exit_code == 0, result.output
    assert records.load(tmp_path / "g.json").names[0] == "Jos\u00e9"


def test_challenge_refuses_escape_sequences_in_computer_seats(tmp_path):
    from termgames.server.commands import run_command
    from termgames.server.hub import Hub

    hub = Hub(Store(tmp_path / "server.db"))
    result = run_command(hub, "ann", "challenge copolymer '\x1b[2J\x1b]0;pwn\x07evil:ai'")
    assert result.status == 2 and "\x1b" not in result.stderr and "\\x1b" in result.stderr
    assert not hub.tables


def test_a_record_with_a_bad_name_is_refused_with_the_name_escaped(tmp_path):
    path = new_record(tmp_path / "game.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["seats"][1]["name"] = "\x1b[2Jbob"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = run("show", str(path))
    assert "\\x1b" in one_line_error(result) and "\x1b" not in result.stderr


def test_a_lone_surrogate_in_a_record_is_a_one_line_refusal(tmp_path):
    path = new_record(tmp_path / "game.json")
    text = path.read_text(encoding="utf-8").replace('"time": ""', '"time": "\\udc80"')
    text = text.replace('"options": {', '"options": {"note": "\\udc80", ', 1)
    path.write_text(text, encoding="utf-8")
    result = termgames("show", str(path))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "surrogate" in result.stderr


def test_the_sanitiser_escapes_what_could_drive_a_terminal():
    assert printable("ann\x1b[2J\u202e\udc80\x9b") == "ann\\x1b[2J\\u202e\\udc80\\x9b"
    assert printable("two\nlines") == "two\nlines"
    assert printable("board ·●○ 李") == "board ·●○ 李"
    text = safe_json({"name": "a\x1b\u202e\x9b\udc80"})
    assert text.isprintable() and json.loads(text) == {"name": "a\x1b\u202e\x9b\udc80"}


def test_account_names_are_one_per_folded_form(tmp_path):
    store = Store(tmp_path / "server.db")
    assert store.claim("Alice", "key-1")
    assert not store.claim("alice", "key-2") and not store.claim("ALICE", "key-2")
    assert store.key_of("aLiCe") == "key-1" and store.account_name("alice") == "Alice"
    assert fold_name("STRASSE") == fold_name("straße") and fold_name("ａｌｉｃｅ") == fold_name("alice")


# --------------------------------------------------------------------------
# 5. Files that are not records
# --------------------------------------------------------------------------


def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    for command in (["show", str(fifo)], ["move", str(fifo), "F6"], ["replay", str(fifo)]):
        result = termgames(*command, timeout=30)  # hung forever before
        assert result.returncode == 2 and "not a regular file" in result.stderr, result.stderr


def test_a_device_and_a_huge_file_are_refused_without_reading_them(tmp_path):
    assert "not a regular file" in one_line_error(run("show", "/dev/zero"))
    huge = tmp_path / "huge.json"
    with huge.open("wb") as out:
        out.truncate(records.MAX_RECORD_BYTES + 1)  # sparse: no disk used
    assert "too large" in one_line_error(run("show", str(huge)))
    assert "too large" in one_line_error(run("play", "--load", str(huge)))


def test_a_record_in_a_read_only_folder_is_one_line(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = new_record(folder / "game.json")
    before = path.read_bytes()
    folder.chmod(0o555)
    try:
        result = termgames("move", str(path), "F6", drop_root=True)
    finally:
        folder.chmod(0o755)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "read-only" in result.stderr
    assert path.read_bytes() == before


def test_a_read_only_record_is_not_rewritten(tmp_path):
    path = new_record(tmp_path / "game.json")
    before = path.read_bytes()
    path.chmod(0o444)
    result = termgames("move", str(path), "F6", drop_root=True)
    assert result.returncode == 2 and "read-only" in result.stderr and result.stderr.count("\n") == 1
    assert path.read_bytes() == before


def test_a_read_only_record_is_not_rewritten_even_by_root(tmp_path, monkeypatch):
    # The same without a child process: the OS refuses the write, whoever runs the suite.
    path = new_record(tmp_path / "game.json")
    match = records.load(path)
    match.play(0, "F6")
    real_open = os.open

    def refusing_open(file, flags, *args, **kwargs):
        if Path(file) == path and flags & os.O_WRONLY:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing_open)
    before = path.read_bytes()
    with pytest.raises(RecordError, match="read-only"):
        records.save(path, match)
    assert path.read_bytes() == before


def test_a_symlinked_record_is_written_through_and_stays_a_link(tmp_path):
    target = new_record(tmp_path / "real.json")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert run("move", str(link), "F6").exit_code == 0
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert [m.move for m in records.load(target).moves] == ["F6"]


def test_a_huge_move_is_quoted_short(tmp_path):
    for game in ("copolymer", "monunrail"):
        path = new_record(tmp_path / f"{game}.json", game)
        message = one_line_error(run("move", str(path), "A" * 100_000))
        assert len(message) < 200 and "100000 characters" in message


def test_a_move_that_begins_with_a_dash_is_read_as_a_move(tmp_path):
    path = new_record(tmp_path / "game.json")
    message = one_line_error(run("move", str(path), "-A1"))
    assert "'-A1'" in message and "No such option" not in message


def test_digits_in_moves_and_options_are_ascii(tmp_path):
    path = new_record(tmp_path / "rail.json", "monunrail")
    assert "not a cell" in one_line_error(run("move", str(path), "C\u0663:T-ne"))  # Arabic-Indic three
    assert "not a cell" in one_line_error(run("move", str(path), "\u0131" + "3:T-ne"))  # dotless i
    assert "ASCII" in one_line_error(run("new", "copolymer", "--size", "\u0669", "--out", str(tmp_path / "x.json")))
    game = get_game("monunrail")
    with pytest.raises(RuleError):
        game.new({}, ["ann", "bob"], 1).apply(0, "C\u0663:T-ne")


def test_monad_moves_and_float_options_take_ascii_digits_only(tmp_path):
    path = tmp_path / "monad.json"
    assert "ASCII" in one_line_error(run("new", "monad", "--obstacles", "\u0660.\u0661", "--out", str(path)))
    result = run("new", "monad", "--player", "ann", "--player", "bob", "--seed", "3", "--out", str(path))
    assert result.exit_code == 0, result.output
    assert "cannot read" in one_line_error(run("move", str(path), "\u0663,1 1 MINE", "--as", "ann"))


def test_a_bad_name_that_got_in_anyway_reaches_no_terminal_raw(monkeypatch):
    # As if an old database or a record from before the check held it: views and reports escape it.
    from termgames.report import view_json, view_text
    from termgames.rules.base import Game

    monkeypatch.setattr(Game, "check_seats", lambda self, seats: tuple(seats))
    match = Match("copolymer", {"size": 5}, [SeatInfo("\x1b[2Jevil"), SeatInfo("bob")], 7)
    assert match.view(None).players[0] == "\\x1b[2Jevil"
    assert "\x1b" not in view_text(match, None) and "\x1b" not in safe_json(view_json(match, None))


def test_a_negative_seed_round_trips(tmp_path):
    path = tmp_path / "game.json"
    result = run("new", "copolymer", "--seed=-5", "-p", "ann", "-p", "bob", "--out", str(path))
    assert result.exit_code == 0, result.output
    assert records.load(path).seed == -5


def test_a_challenged_seat_takes_the_registered_spelling(tmp_path):
    from termgames.server.commands import run_command
    from termgames.server.hub import Hub

    store = Store(tmp_path / "server.db")
    assert store.claim("Bob", "key-1")
    hub = Hub(store)
    result = run_command(hub, "ann", "challenge copolymer bob")
    assert result.status == 0, result.stderr
    (table,) = hub.tables.values()
    assert table.names == ("ann", "Bob") and table.seat_of("Bob") == 1


#: Digits of other scripts that int() and a str regex's \d read as 0-9: Arabic-Indic, full-width, Devanagari.
FOREIGN_DIGITS = [
    str.maketrans("0123456789", "".join(chr(zero + n) for n in range(10))) for zero in (0x660, 0xFF10, 0x966)
]


@pytest.mark.parametrize("name", game_names())
def test_no_game_reads_digits_of_other_scripts(name):
    """Every registered game (Mosaic too, once it lands): a random move with its digits in another script."""
    game = get_game(name)
    state = game.new({}, ["ann", "bob"], 11)
    rng = random.Random(5)
    tried = 0
    for _ in range(12):
        if state.is_over():
            break
        seat = state.to_move()[0]
        try:
            move = state.random_move(seat, rng)
        except NotImplementedError:
            pytest.skip(f"{name} draws no random moves")
        for table in FOREIGN_DIGITS:
            foreign = move.translate(table)
            if foreign != move:
                tried += 1
                with pytest.raises(RuleError):
                    state.apply(seat, foreign)
        state = state.apply(seat, move)
    assert tried, f"no move of {name} had digits to try"


def test_solve_reads_no_device_or_fifo(tmp_path):
    fifo = tmp_path / "shape.txt"
    os.mkfifo(fifo)
    result = termgames("solve", "monunrail", str(fifo), "--no-cache", timeout=30)
    assert result.returncode == 2 and "not a regular file" in result.stderr
    assert "not a regular file" in one_line_error(run("solve", "monunrail", "/dev/zero", "--no-cache"))
