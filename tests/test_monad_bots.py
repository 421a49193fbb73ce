"""Monad bots: every kind of bot, every fault once, processes reaped, built-in bots, the match CLI.

Bot programs here are tiny scripts the tests write (one speaks the original
platform's msgpack protocol); only one test uses the original sample bots,
and it is skipped when they are not there.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from termgames import records
from termgames.ai import make_bot
from termgames.ai.monad import LEVELS
from termgames.ai.monad.adapters import (
    BotLoadError,
    Fault,
    JsonProgramBot,
    Monad1Bot,
    PythonFileBot,
    StrategyBot,
    make_adapter,
    monad1_commands,
)
from termgames.ai.monad.match import MonadMatch
from termgames.ai.monad.tournament import schedule, table_csv, table_text, tournament
from termgames.cli import app
from termgames.match import Match, SeatInfo
from termgames.rules.monad import Command

SAMPLE_RANDOM = Path("/work/orig/sample/random")

# A JSON bot: mines with all its units; BEHAVIOUR runs first each turn (``turn`` counts from 1).
JSON_BOT = """\
import json, os, sys, time
turn = 0
for line in sys.stdin:
    obs = json.loads(line)
    turn += 1
{behaviour}
    commands = []
    for y, row in enumerate(obs["cells"]):
        for x, cell in enumerate(row):
            if cell.get("owner") == obs["me"]:
                commands.append([x, y, cell["units"], "MINE"])
    print(json.dumps(commands), flush=True)
"""


def json_bot(folder: Path, behaviour: str = "", name: str = "jbot.py") -> str:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text(JSON_BOT.format(behaviour=textwrap.indent(textwrap.dedent(behaviour), "    ")))
    return f"{sys.executable} {script}"


def play(bots, turns: int = 6, seed: int = 3, **kwargs) -> tuple[MonadMatch, list]:
    match = MonadMatch(bots, {"turns": turns}, seed, **kwargs)
    events = list(match.turns())
    return match, events


def moves_of(match: MonadMatch, seat: int) -> list[str | None]:
    return [turn[seat] for turn in match.moves]


def replayed(match: MonadMatch) -> Match:
    return records.loads(json.dumps(match.record()))


# --------------------------------------------------------------------------
# JSON programs and their faults
# --------------------------------------------------------------------------


def test_json_program_plays_and_its_record_replays(tmp_path):
    match, events = play([json_bot(tmp_path), "greedy"], turns=6)
    mine = moves_of(match, 0)
    assert len(mine) == 6
    assert mine[0] == "1,1 1 MINE"
    assert all(event.faults[0] is None for event in events)
    start = match.initial.index(1, 1)
    assert match.board.bank[0] == 100 + match.initial.resources[start] - match.board.resources[start]
    again = replayed(match)
    assert again.state.board == match.board
    assert again.over and again.result() == match.record()["result"]


def test_late_answer_is_a_fault_and_the_bot_stays_in_step(tmp_path):
    behaviour = "if turn == 2:\n    time.sleep(0.8)"
    match, events = play([json_bot(tmp_path, behaviour), "greedy"], turns=8, turn_limit=0.5)
    mine = moves_of(match, 0)
    assert mine[1].startswith("fault late")
    # The late answer is skipped when it comes: later turns are answered again, not shifted by one.
    assert any(move == "1,1 1 MINE" for move in mine[2:])
    assert events[1].faults[0].startswith("late")


def test_crash_is_reported_and_the_bot_stays_out(tmp_path):
    behaviour = "if turn == 3:\n    sys.exit('boom: the bot fell over')"
    match, _events = play([json_bot(tmp_path, behaviour), "greedy"], turns=6)
    mine = moves_of(match, 0)
    assert not mine[0].startswith("fault") and not mine[1].startswith("fault")
    assert mine[2].startswith("fault crashed (exit status 1)")
    assert "boom: the bot fell over" in mine[2]
    assert all(move.startswith("fault out: crashed") for move in mine[3:])
    assert match.result().bots[0].faults == 4
    assert replayed(match).state.board == match.board


def test_garbage_loses_the_turn_only(tmp_path):
    behaviour = "if turn == 2:\n    print('hello, world', flush=True)\n    continue"
    match, _events = play([json_bot(tmp_path, behaviour), "greedy"], turns=5)
    mine = moves_of(match, 0)
    assert mine[1].startswith("fault garbage: not JSON")
    assert mine[2] == "1,1 1 MINE"


def test_unreadable_commands_are_garbage(tmp_path):
    behaviour = "if turn == 2:\n    print(json.dumps([[1, 1, 1, 'DANCE']]), flush=True)\n    continue"
    match, _events = play([json_bot(tmp_path, behaviour), "greedy"], turns=4)
    assert moves_of(match, 0)[1].startswith("fault garbage:")
    assert "DANCE" in moves_of(match, 0)[1]


def test_huge_output_is_cut_and_the_stream_stays_in_step(tmp_path):
    behaviour = "if turn == 2:\n    print('[' + ' ' * 200000 + ']', flush=True)\n    continue"
    command = json_bot(tmp_path, behaviour)
    bot = JsonProgramBot(command, max_message=64 * 1024)
    match, _events = play([bot, "greedy"], turns=5)
    mine = moves_of(match, 0)
    assert mine[1].startswith("fault too much output")
    assert mine[2] == "1,1 1 MINE"


def test_a_program_that_never_answers_is_stopped(tmp_path):
    behaviour = "time.sleep(60)"
    match, _events = play([json_bot(tmp_path, behaviour), "greedy"], turns=6, turn_limit=0.2, start_limit=0.3)
    mine = moves_of(match, 0)
    assert mine[0].startswith("fault late") and mine[1].startswith("fault late")
    assert mine[2].startswith("fault stopped: no answer for 3 turns")
    assert mine[3].startswith("fault out: stopped")


def test_processes_are_reaped_with_their_children(tmp_path):
    # The child's pid inside the bot's PID namespace (with a /proc of its own) is not the machine's: the
    # test finds it by a mark in its command line.
    mark = f"child-of-{tmp_path.name}"
    behaviour = f"""
    if turn == 1:
        import subprocess
        code = "import os, time; open('child.pid', 'w').close(); time.sleep(60)"
        child = subprocess.Popen([sys.executable, "-c", code, "{mark}"])
        while not os.path.exists("child.pid"):
            time.sleep(0.01)
    """
    bot = JsonProgramBot(json_bot(tmp_path, behaviour))
    play([bot, "greedy"], turns=3)
    assert (tmp_path / "child.pid").exists()
    assert bot.process.exit_status() is not None
    assert not _running(bot.process.pid)
    assert _marked(mark) == []


def _marked(mark: str, settle: float = 2.0) -> list[int]:
    """The processes of the machine with ``mark`` in their command line, once given ``settle`` seconds to die."""
    deadline = time.monotonic() + settle
    while True:
        found = []
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    if mark.encode() in Path(f"/proc/{name}/cmdline").read_bytes() and _alive(int(name)):
                        found.append(int(name))
                except OSError:
                    pass
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def test_processes_are_killed_when_the_caller_stops_early(tmp_path):
    bot = JsonProgramBot(json_bot(tmp_path))
    match = MonadMatch([bot, "greedy"], {"turns": 50}, 3)
    turns = match.turns()
    next(turns)
    assert _alive(bot.process.pid)
    turns.close()  # a spectator closing its screen, an exception in the caller...
    assert not _running(bot.process.pid)


def _running(pid: int | None, settle: float = 2.0) -> bool:
    """Alive and not a zombie (a killed process gets ``settle`` seconds to die: signals are asynchronous)."""
    assert pid is not None
    deadline = time.monotonic() + settle
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return _alive(pid)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def test_program_runs_in_its_folder_with_a_clean_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("SECRET_TOKEN", "do-not-leak")
    behaviour = """
    if turn == 1:
        json.dump({"cwd": os.getcwd(), "env": dict(os.environ)}, open("seen.json", "w"))
    """
    folder = tmp_path / "bots"
    play([json_bot(folder, behaviour), "greedy"], turns=2)
    seen = json.loads((folder / "seen.json").read_text())
    assert Path(seen["cwd"]) == folder.resolve()
    assert seen["env"]["HOME"] == str(folder.resolve())
    assert "SECRET_TOKEN" not in seen["env"]
    assert set(seen["env"]) - {"LC_CTYPE"} <= {"PATH", "HOME", "LANG", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE"}


def test_an_unknown_bot_is_one_clear_error():
    with pytest.raises(BotLoadError, match="no bot named 'no-such-bot-here'"):
        make_adapter("no-such-bot-here")
    with pytest.raises(BotLoadError, match="no such file"):
        make_adapter("missing.py")
    with pytest.raises(BotLoadError, match=r"no bot\.py"):
        make_adapter("monad1:/nonexistent/folder")


# --------------------------------------------------------------------------
# In-process Python files
# --------------------------------------------------------------------------


FILE_BOT = """\
def turn(observation):
    me = observation["me"]
    commands = []
    for y, row in enumerate(observation["cells"]):
        for x, cell in enumerate(row):
            if cell.get("owner") == me:
                commands.append([x, y, cell["units"], "BUILD" if observation["turn"] == 0 else "MINE"])
    return commands
"""

CLASS_BOT = """\
class Builder:
    def __init__(self):
        self.turns = 0

    def turn(self, observation):
        self.turns += 1
        if self.turns == 3:
            raise RuntimeError("oops")
        return "pass"
"""


def test_python_file_bot_with_a_turn_function(tmp_path):
    path = tmp_path / "starter.py"
    path.write_text(FILE_BOT)
    match, _events = play([str(path), "random"], turns=4)
    assert moves_of(match, 0)[0] == "1,1 1 BUILD"
    assert match.board.hive_counts[0] == 1
    assert match.names[0] == "starter"


def test_python_file_bot_with_a_class_and_an_exception(tmp_path):
    path = tmp_path / "builder.py"
    path.write_text(CLASS_BOT)
    adapter = make_adapter(str(path))
    assert isinstance(adapter, PythonFileBot)
    match, _events = play([adapter, "greedy"], turns=4)
    mine = moves_of(match, 0)
    assert mine[0] == "pass"
    assert mine[2] == "fault error: RuntimeError: oops"
    assert mine[3] == "pass"  # an exception loses that turn only


def test_python_file_without_turn_is_refused(tmp_path):
    path = tmp_path / "nothing.py"
    path.write_text("x = 1\n")
    with pytest.raises(BotLoadError, match="defines no turn"):
        make_adapter(str(path)).start(0, ["a", "b"], MonadMatch(["greedy", "greedy"]).board)


def test_the_starter_bot_of_the_guide_plays():
    starter = Path(__file__).resolve().parent.parent / "docs" / "monad-starter-bot.py"
    match, _events = play([str(starter), "random"], turns=30)
    assert not any(move.startswith("fault") for move in moves_of(match, 0) if move)
    assert match.board.hive_counts[0] >= 1


# --------------------------------------------------------------------------
# The original platform's protocol
# --------------------------------------------------------------------------

# A bot of our own speaking the original devkit's protocol (4-byte little-endian length, msgpack).
# It rebuilds the map from the messages (resources arrive only when they change), writes what it
# saw each turn to seen.jsonl, builds a hive where its unit stands on turn 1, then mines, and once
# moves with direction 7 ("none") and sends a command for 0 units (both ignored, as the original does).
MONAD1_BOT = """\
import json, struct, sys
import msgpack

def read():
    (size,) = struct.unpack("<i", sys.stdin.buffer.read(4))
    return msgpack.unpackb(sys.stdin.buffer.read(size), raw=False)

def write(message):
    body = msgpack.packb(message, use_bin_type=True)
    sys.stdout.buffer.write(struct.pack("<i", len(body)) + body)
    sys.stdout.buffer.flush()

me, players, params = read(), read(), read()
resources = None
turn = 0
log = open("seen.jsonl", "w")
while True:
    state = read()
    rows = state["m"]
    if resources is None:
        resources = [[0] * state["w"] for _ in range(state["h"])]
    units = []
    for y, row in enumerate(rows):
        for x, cell in enumerate(row):
            if "r" in cell:
                resources[y][x] = cell["r"]
            if cell.get("p") == me and "u" in cell:
                units.append((x, y, cell["u"]))
    turn += 1
    log.write(json.dumps({"me": me, "players": players, "params": params, "bank": state["r"],
                          "w": state["w"], "h": state["h"], "units": units,
                          "resources": sum(map(sum, resources))}) + "\\n")
    log.flush()
    commands = [{"l": [x, y], "c": "MOVE", "d": 7, "n": n} for x, y, n in units[:1]]
    commands += [{"l": [x, y], "c": "BUILD" if turn == 1 else "MINE", "d": 7, "n": n} for x, y, n in units]
    commands += [{"l": [0, 0], "c": "MINE", "d": 7, "n": 0}]
    write(commands)
"""


def test_monad1_protocol_bot_of_our_own(tmp_path):
    folder = tmp_path / "m1"
    folder.mkdir()
    (folder / "bot.py").write_text(MONAD1_BOT)
    # A map that is not square: rows and columns swapped would put the unit elsewhere.
    match = MonadMatch([f"monad1:{folder}", "greedy"], {"turns": 6, "width": 12, "height": 8}, 5)
    boards = [match.board]
    for event in match.turns():
        boards.append(event.board)
    seen = [json.loads(line) for line in (folder / "seen.jsonl").read_text().splitlines()]
    assert len(seen) == 6
    assert seen[0]["me"] == 0 and seen[0]["players"] == 2 and seen[0]["params"] == []
    assert (seen[0]["w"], seen[0]["h"]) == (12, 8)
    assert seen[0]["units"] == [[1, 1, 1]]
    for turn, view in enumerate(seen):
        board = boards[turn]
        assert view["bank"] == list(board.bank)
        assert view["resources"] == sum(board.resources)  # resources sent only when changed add up
    assert moves_of(match, 0)[0] == "1,1 1 BUILD"
    assert match.board.hive_counts[0] == 1
    assert replayed(match).state.board == match.board


def test_monad1_commands_are_read_strictly():
    assert monad1_commands([{"l": [2, 3], "c": "MOVE", "d": 3, "n": 4}]) == [Command(2, 3, 4, "MOVE", "NE")]
    assert monad1_commands([{"l": (2, 3), "c": "MINE", "d": 7, "n": 1}]) == [Command(2, 3, 1, "MINE")]
    assert monad1_commands([{"l": [2, 3], "c": "MOVE", "d": 7, "n": 4}]) == []
    for bad in (
        {"c": "MINE", "n": 1},
        {"l": [1], "c": "MINE", "n": 1},
        {"l": [1, 2], "c": "FLY", "n": 1},
        {"l": [1, 2], "c": "MOVE", "d": 9, "n": 1},
        {"l": [1, 2], "c": "MINE", "n": "x"},
    ):
        with pytest.raises(ValueError):
            monad1_commands([bad])
    with pytest.raises(ValueError):
        monad1_commands({"l": [1, 2]})


def test_monad1_garbage_frame(tmp_path):
    folder = tmp_path / "g"
    folder.mkdir()
    (folder / "bot.py").write_text(
        "import sys, struct\n"
        "for _ in range(4):\n"
        "    sys.stdout.buffer.write(struct.pack('<i', 3) + b'\\xc1\\xc1\\xc1'); sys.stdout.buffer.flush()\n"
        "sys.stdin.buffer.read()\n"
    )
    match, _events = play([f"monad1:{folder}", "greedy"], turns=2)
    assert moves_of(match, 0)[0].startswith("fault garbage")


@pytest.mark.skipif(
    not (SAMPLE_RANDOM / "bot.py").is_file(),
    reason="the original platform's sample bots are not checked out at /work/orig",
)
def test_original_sample_random_bot_plays_unchanged():
    bot = Monad1Bot(SAMPLE_RANDOM)
    assert isinstance(bot, Monad1Bot)
    match, events = play([bot, "greedy"], turns=40, seed=2)
    assert match.moves, "no turn was played"
    assert all(event.faults[0] is None for event in events)
    assert replayed(match).state.board == match.board


# --------------------------------------------------------------------------
# Built-in bots
# --------------------------------------------------------------------------


@pytest.mark.parametrize("first", LEVELS)
def test_built_in_bots_play_legal_matches(first):
    for second in LEVELS:
        match, events = play([first, second], turns=150, seed=len(first) + len(second))
        for event in events:
            for seat, name in enumerate(match.names):
                if name.startswith("random"):
                    continue
                # a careful bot's commands are never dropped (ruling 4)
                assert event.report.dropped[seat] == (), event.report.dropped[seat]
        assert replayed(match).state.board == match.board


def test_make_bot_choose_on_a_view():
    match = Match("monad", {"turns": 20}, [SeatInfo("a"), SeatInfo("b")], 4)
    bots = [make_bot("monad", "swarm", seed=1), make_bot("monad", "greedy", seed=2)]
    while not match.over:
        for seat in match.state.to_move():
            match.play(seat, bots[seat].choose(match.view(seat)))
    assert match.state.board.hive_counts[0] >= 1
    with pytest.raises(ValueError):
        make_bot("monad", "godlike")


def test_swarm_beats_random_and_greedy_on_mirrored_seats():
    for opponent in ("random", "greedy"):
        for seed in (1, 2):
            for seats in (("swarm", opponent), (opponent, "swarm")):
                match, _events = play(list(seats), turns=400, seed=seed)
                assert [match.names[s] for s in match.winners] == ["swarm"], (seats, seed)


def test_strategy_adapter_times_itself():
    adapter = make_adapter("greedy")
    assert isinstance(adapter, StrategyBot)
    play([adapter, "random"], turns=20)
    assert adapter.seconds > 0
    assert adapter.faults == 0


def test_fault_reasons_are_one_short_line():
    fault = Fault.of("crashed; Traceback\n  File x\n" + "y" * 500)
    assert "\n" not in fault.reason and ";" not in fault.reason and len(fault.reason) <= 160


# --------------------------------------------------------------------------
# Tournaments and the CLI
# --------------------------------------------------------------------------


def test_schedule_mirrors_every_pairing():
    games = schedule(3, 2, seed=1)
    assert len(games) == 3 * 2 * 2
    for a, b in zip(games[::2], games[1::2]):
        assert (a.first, a.second, a.seed) == (b.second, b.first, b.seed)


def test_tournament_table():
    standings, results = tournament(
        ["swarm", "random"], rounds=1, jobs=1, options={"turns": 200}, names=["swarm", "random"]
    )
    assert len(results) == 2
    assert standings[0].name == "swarm" and standings[0].wins == 2
    text = table_text(standings)
    assert "swarm" in text and "interval" in text
    csv_text = table_csv(standings)
    assert csv_text.splitlines()[0] == "rank,bot,games,wins,draws,losses,rating,low,high,faults"


runner = CliRunner()


def test_cli_match_summary_and_record(tmp_path):
    out = tmp_path / "m.json"
    result = runner.invoke(
        app, ["monad", "match", "swarm", "greedy", "--seed", "3", "--turns", "300", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "swarm wins after" in result.stdout
    assert "units" in result.stdout and "hives" in result.stdout and "bot time" in result.stdout
    match = records.load(out)
    assert match.over and match.result()["winners"] == ["swarm"]
    trace = runner.invoke(app, ["monad", "trace", str(out)])
    assert trace.exit_code == 0
    lines = trace.stdout.strip().splitlines()
    assert len(lines) == match.state.board.turn + 1
    show = runner.invoke(app, ["show", str(out), "--json"])
    assert show.exit_code == 0


def test_cli_match_errors_are_one_line(tmp_path):
    result = runner.invoke(app, ["monad", "match", "greedy"])
    assert result.exit_code == 2 and "2 to 4 bots" in result.stderr
    result = runner.invoke(app, ["monad", "match", "greedy", "nonexistent-bot-xyz"])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


def test_cli_tournament_writes_text_and_csv(tmp_path):
    out = tmp_path / "t"
    result = runner.invoke(
        app,
        ["monad", "tournament", "swarm", "random", "--rounds", "1", "--jobs", "1", "--turns", "100", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "t.txt").read_text().startswith("#")
    assert (tmp_path / "t.csv").read_text().startswith("rank,bot")


def test_environment_for_tests_is_not_leaking_os_environ():
    # the clean environment is built from scratch, not filtered: nothing of ours slips through
    from termgames.ai.monad.process import clean_environment

    env = clean_environment(Path("/tmp"))
    assert set(env) == {"PATH", "HOME", "LANG", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE"}
    assert env["PATH"] == os.environ.get("PATH", os.defpath)


def test_commands_the_notation_cannot_carry_are_garbage(tmp_path):
    behaviour = "if turn == 2:\n    print(json.dumps([[10**12, 1, 1, 'MINE']]), flush=True)\n    continue"
    match, _events = play([json_bot(tmp_path, behaviour), "greedy"], turns=3)
    assert moves_of(match, 0)[1].startswith("fault garbage: a number too long")
    assert replayed(match).state.board == match.board


def test_a_big_map_reaches_two_program_bots_in_time(tmp_path):
    bots = [json_bot(tmp_path / "a"), json_bot(tmp_path / "b")]
    match = MonadMatch(bots, {"turns": 3, "width": 60, "height": 60}, 1)
    events = list(match.turns())
    assert all(fault is None for event in events for fault in event.faults)


def test_a_move_too_long_for_the_record_is_garbage(tmp_path):
    behaviour = "if turn == 2:\n    print(json.dumps([[1, 1, 1, 'MINE']] * 30000), flush=True)\n    continue"
    match, _events = play([json_bot(tmp_path, behaviour), "greedy"], turns=3)
    assert moves_of(match, 0)[1].startswith("fault garbage: 30000 commands")
    assert replayed(match).state.board == match.board


DATACLASS_BOT = """\
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Memory:
    turns: int = 0


MEMORY = Memory()


def turn(observation: dict) -> list:
    MEMORY.turns += 1
    return []
"""


def test_the_same_file_on_two_seats_with_a_dataclass(tmp_path):
    path = tmp_path / "remember.py"
    path.write_text(DATACLASS_BOT)
    match, _events = play([str(path), str(path)], turns=3)
    assert match.names == ("remember", "remember-2")
    assert all(move == "pass" for turn in match.moves for move in turn)


def test_tournament_in_worker_processes():
    standings, results = tournament(["swarm", "random"], rounds=1, jobs=2, options={"turns": 100})
    assert [r.error for r in results] == ["", ""]
    assert sum(s.games for s in standings) == 4


MONAD1_FRAMES = """\
import struct, sys
import msgpack

def frame(body):
    sys.stdout.buffer.write(struct.pack("<i", len(body)) + body)
    sys.stdout.buffer.flush()

def read():
    (size,) = struct.unpack("<i", sys.stdin.buffer.read(4))
    return msgpack.unpackb(sys.stdin.buffer.read(size), raw=False)

me, players, params = read(), read(), read()
turn = 0
while True:
    read()
    turn += 1
    if turn == 1:
        frame(msgpack.packb([{"l": [0, 0], "c": "MINE", "d": 7, "n": 1}] * 20000))  # about 300 KB
    elif turn == 3:
        sys.stdout.buffer.write(struct.pack("<i", -5))
        sys.stdout.buffer.flush()
    else:
        frame(msgpack.packb([]))
"""


def test_monad1_oversized_frame_is_skipped_and_a_negative_length_stops_the_bot(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    (folder / "bot.py").write_text(MONAD1_FRAMES)
    bot = Monad1Bot(folder, max_message=64 * 1024)
    match, _events = play([bot, "greedy"], turns=5)
    mine = moves_of(match, 0)
    assert mine[0].startswith("fault too much output")
    assert mine[1] == "pass"  # the stream stayed in step past the skipped frame
    assert mine[2].startswith("fault garbage: a frame of negative length")
    assert mine[3].startswith("fault out: garbage")
