"""A local user's hostile Monad bots (issue 23, part C): what they start dies with the match, however it
ends; a bot that never reads is stopped before our memory goes; a ``.py`` bot that loops, exits or raises
KeyboardInterrupt loses its turns and the match goes on to its record.

Each bot here is a tiny script the test writes.  A test that must not hang before its fix runs the
match in a child process with a timeout.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from test_monad_bots import _running as _running_within
from typer.testing import CliRunner

from termgames import records
from termgames.ai.monad import process
from termgames.ai.monad.adapters import BotLoadError, make_adapter
from termgames.ai.monad.match import MonadMatch
from termgames.cli import app

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="containment of bot processes is Linux's")


def _pid_from(path: Path, wait: float = 10.0) -> int:
    deadline = time.monotonic() + wait
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)
    return int(path.read_text())


@contextlib.contextmanager
def _killed_at_the_end(*markers: str):
    """A failing test leaves no ``sleep 1000`` behind: what runs with one of ``markers`` in its command line
    is killed (a pid the bot wrote may be its namespace's, not the machine's)."""
    try:
        yield
    finally:
        for marker in markers:
            for pid in _running_with(marker, settle=0):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)


# Whether this machine lets an unprivileged process (with a user namespace) or root (without) have a PID namespace.
_NAMESPACE_PROBE = """\
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
NEWUSER, NEWPID = 0x10000000, 0x20000000
ok = (os.geteuid() == 0 and libc.unshare(NEWPID) == 0) or libc.unshare(NEWUSER | NEWPID) == 0
raise SystemExit(0 if ok else 1)
"""


def _namespaces_allowed() -> bool:
    return subprocess.run([sys.executable, "-c", _NAMESPACE_PROBE], check=False).returncode == 0


def test_a_bot_gets_a_pid_namespace_where_the_machine_allows_one():
    if not _namespaces_allowed():
        pytest.skip("no PID namespace for this user on this machine: bots are kept by the subreaper alone")
    box = process.BotProcess([sys.executable, "-c", "import os; print(os.getpid(), flush=True)"], ROOT)
    try:
        box.start()
        # pid 1 is the namespace's first process, kept by termgames; the bot comes next
        assert box.read_line(time.monotonic() + 10) == b"2"
    finally:
        box.close()


BOXES = ["subreaper", "namespace"]


def _box(monkeypatch, box: str) -> None:
    if box == "namespace" and not _namespaces_allowed():
        pytest.skip("no PID namespace for this user on this machine: bots are kept by the subreaper alone")
    # raising=False: before the supervisor existed the test must fail on the escaped process, not here
    monkeypatch.setattr(process, "PID_NAMESPACE", box == "namespace", raising=False)


# A JSON bot that double-forks a `sleep 1000` into a session of its own (out of the bot's process group),
# writing the grandchild's pid (as its /proc numbers it) to grandchild.pid; the grandchild's command line
# says escaped-TAG, for the test to find it on the machine.  PRELUDE runs first (a hostile extra); each
# answer waits DELAY seconds.
ESCAPER = """\
import json, os, signal, sys, time

{prelude}

def spawn():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            pid = os.readlink("/proc/self")
            with open("grandchild.tmp", "w") as f:
                f.write(pid)
            os.rename("grandchild.tmp", "grandchild.pid")
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.execvp("sleep", ["escaped-{tag}", "1000"])
        os._exit(0)
    os.wait()
    while not os.path.exists("grandchild.pid"):  # the match must not end before the grandchild is there
        time.sleep(0.005)

with open("bot.tmp", "w") as f:
    f.write(os.readlink("/proc/self"))
os.rename("bot.tmp", "bot.pid")
spawn()
for line in sys.stdin:
    time.sleep({delay})
    print("[]", flush=True)
"""


def escaper(folder: Path, delay: float = 0.0, prelude: str = "") -> str:
    script = folder / "escaper.py"
    script.write_text(ESCAPER.format(delay=delay, prelude=prelude, tag=folder.name))
    return f"{sys.executable} {script}"


def _escaped(folder: Path) -> tuple[str, str]:
    """What finds the escaper's grandchild and the escaper itself on the machine."""
    return f"escaped-{folder.name}", str(folder / "escaper.py")


@pytest.mark.parametrize("box", BOXES)
def test_a_double_forked_setsid_grandchild_dies_with_the_match(tmp_path, monkeypatch, box):
    _box(monkeypatch, box)
    with _killed_at_the_end(*_escaped(tmp_path)):
        match = MonadMatch([escaper(tmp_path), "greedy"], {"turns": 3}, 1)
        events = list(match.turns())
        assert all(event.faults[0] is None for event in events)
        _pid_from(tmp_path / "grandchild.pid")
        assert [_running_with(marker) for marker in _escaped(tmp_path)] == [[], []]


@pytest.mark.parametrize("box", BOXES)
def test_a_double_forked_grandchild_dies_when_termgames_is_killed(tmp_path, monkeypatch, box):
    _box(monkeypatch, box)
    namespace = box == "namespace"
    runner = textwrap.dedent(
        f"""
        from termgames.ai.monad import process
        process.PID_NAMESPACE = {namespace}
        from termgames.ai.monad.match import MonadMatch
        match = MonadMatch([{escaper(tmp_path, delay=0.02)!r}, "greedy"], {{"turns": 100000}}, 1)
        for _event in match.turns():
            pass
        """
    )
    with _killed_at_the_end(*_escaped(tmp_path)):
        termgames = subprocess.Popen([sys.executable, "-c", runner], cwd=ROOT)
        try:
            _pid_from(tmp_path / "grandchild.pid"), _pid_from(tmp_path / "bot.pid")
            time.sleep(0.3)  # a few turns played
            assert termgames.poll() is None
        finally:
            termgames.kill()  # kill -9: nothing of termgames runs after this
            termgames.wait()
        assert [_running_with(marker) for marker in _escaped(tmp_path)] == [[], []]


def test_a_bot_cannot_kill_what_keeps_it(tmp_path, monkeypatch):
    """In a PID namespace a bot sees neither its supervisor nor termgames, and its namespace's first
    process ignores the bot's signals; killing its parent first, then double-forking, gains it nothing."""
    _box(monkeypatch, "namespace")
    prelude = f"""
parent = int(open("/proc/self/stat").read().rsplit(")", 1)[1].split()[1])  # as the machine numbers it
for pid in {{os.getppid(), parent}} - {{{os.getpid()}}}:  # (never the test's own process, should the bot be its child)
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
"""
    with _killed_at_the_end(*_escaped(tmp_path)):
        match = MonadMatch([escaper(tmp_path, prelude=prelude), "greedy"], {"turns": 3}, 1)
        events = list(match.turns())
        assert all(event.faults[0] is None for event in events)
        _pid_from(tmp_path / "grandchild.pid")
        assert _running_with(_escaped(tmp_path)[0]) == []


# --------------------------------------------------------------------------
# A bot that never reads its input
# --------------------------------------------------------------------------

# Answers "pass" far ahead of the turns and never reads what it is sent.
NEVER_READS = """\
import sys, time
while True:
    sys.stdout.write("[]\\n" * 200)
    sys.stdout.flush()
    time.sleep(0.01)
"""


def test_a_bot_that_never_reads_is_stopped_before_what_waits_for_it_grows(tmp_path):
    script = tmp_path / "deaf.py"
    script.write_text(NEVER_READS)
    turns = 200
    match = MonadMatch([f"{sys.executable} {script}", "greedy"], {"turns": turns, "width": 60, "height": 60}, 1)
    events = list(match.turns())
    mine = [turn[0] for turn in match.moves]
    stopped = [n for n, move in enumerate(mine) if move.startswith("fault stopped: not reading its input")]
    # A 60x60 map's observation is about 61 kB: the pipe (1 MiB) and the bound (4 MiB) hold about 85 turns.
    assert stopped and stopped[0] < 120, mine[-1]
    assert all(move.startswith("fault out: stopped") for move in mine[stopped[0] + 1 :])
    assert len(events) == turns
    assert records.loads(json.dumps(match.record())).state.board == match.board


# --------------------------------------------------------------------------
# .py bots: their own process, the same time limits
# --------------------------------------------------------------------------


def _bot_file(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(body))
    return path


def _cli(tmp_path: Path, *arguments: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``termgames monad match ...`` in a child process: a bot that hangs the match makes the test fail, not hang."""
    return subprocess.run(
        [sys.executable, "-m", "termgames", "monad", "match", *arguments],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )


def _seat_moves(record_path: Path, seat: str) -> list[str]:
    record = json.loads(record_path.read_text())
    return [move["move"] for move in record["moves"] if move["seat"] == seat]


def test_an_endless_loop_in_a_py_bot_loses_its_turns_and_the_match_ends_with_its_record(tmp_path):
    _bot_file(
        tmp_path,
        "spinner.py",
        """\
        def turn(observation):
            if observation["turn"] >= 1:
                while True:
                    pass
            return []
        """,
    )
    out = tmp_path / "m.json"
    done = _cli(
        tmp_path, "spinner.py", "greedy", "--turns", "6", "--seed", "2", "--turn-time", "0.2", "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    mine = _seat_moves(out, "spinner")
    assert len(mine) == 6
    assert mine[0] == "pass"
    assert mine[1].startswith("fault late")
    assert any(move.startswith("fault stopped: no answer for 3 turns") for move in mine)
    assert mine[-1].startswith("fault out: stopped")


runner = CliRunner()


@pytest.mark.parametrize(
    ("raised", "reason"), [("SystemExit(0)", "error: SystemExit: 0"), ("KeyboardInterrupt", "error: KeyboardInterrupt")]
)
def test_a_py_bot_that_exits_or_interrupts_loses_that_turn_only(tmp_path, monkeypatch, raised, reason):
    _bot_file(
        tmp_path,
        "quitter.py",
        f"""\
        def turn(observation):
            if observation["turn"] == 1:
                raise {raised}
            return []
        """,
    )
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "m.json"
    result = runner.invoke(app, ["monad", "match", "quitter.py", "greedy", "--turns", "4", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "wins after" in result.stdout or "No winner" in result.stdout
    mine = _seat_moves(out, "quitter")
    assert mine == ["pass", f"fault {reason}", "pass", "pass"]


def test_a_slow_py_bot_is_cut_off_at_the_turn_limit(tmp_path):
    path = _bot_file(
        tmp_path,
        "slow.py",
        """\
        import time

        def turn(observation):
            if observation["turn"] >= 1:
                time.sleep(0.6)
            return []
        """,
    )
    adapter = make_adapter(str(path), turn_limit=0.2, start_limit=5.0)
    match = MonadMatch([adapter, "greedy"], {"turns": 6}, 1)
    list(match.turns())
    mine = [turn[0] for turn in match.moves]
    assert mine[0] == "pass"
    assert mine[1].startswith("fault late")
    # Waited for at the limit, never for the bot's whole 0.6 s a turn; stopped when three answers are owed.
    assert any(move.startswith("fault stopped: no answer for 3 turns") for move in mine)
    assert adapter.seconds < 2.5


def test_a_py_bot_that_loops_while_loading_is_refused_in_one_line(tmp_path):
    _bot_file(tmp_path, "stuck.py", "while True:\n    pass\n")
    done = _cli(tmp_path, "stuck.py", "greedy", "--turns", "3", "--start-time", "0.5")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0
    assert "stuck.py" in done.stderr and "0.5 s" in done.stderr


def test_a_py_bot_that_cannot_load_is_refused_in_one_line(tmp_path):
    _bot_file(tmp_path, "broken.py", "def turn(observation)\n    return []\n")
    done = _cli(tmp_path, "broken.py", "greedy", "--turns", "3")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0
    assert "broken.py" in done.stderr and "SyntaxError" in done.stderr


def test_a_py_bot_runs_in_a_process_of_its_own_and_cannot_disturb_the_protocol(tmp_path):
    path = _bot_file(
        tmp_path,
        "chatty.py",
        """\
        import os, sys

        def turn(observation):
            print("thinking...")                     # to stdout: must not be taken for an answer
            os.write(1, b"raw noise\\n")
            assert sys.stdin.read() == ""            # the observations are not the bot's to read
            with open("pid", "w") as f:
                f.write(os.readlink("/proc/self"))
            return []
        """,
    )
    match = MonadMatch([str(path), "greedy"], {"turns": 3}, 1)
    events = list(match.turns())
    assert all(event.faults[0] is None for event in events), [event.faults for event in events]
    assert int((tmp_path / "pid").read_text()) != os.getpid()


def test_a_py_bot_s_load_error_is_a_bot_load_error(tmp_path):
    path = _bot_file(tmp_path, "raiser.py", "raise SystemExit(3)\n")
    adapter = make_adapter(str(path))
    try:
        with pytest.raises(BotLoadError, match="SystemExit"):
            adapter.start(0, ["a", "b"], MonadMatch(["greedy", "greedy"]).board)
    finally:
        adapter.close()


def test_every_seat_gets_its_observation_byte_for_byte(tmp_path):
    """The board's JSON is encoded once a turn for all seats: each line is still observation()'s JSON."""
    from termgames.ai.monad.adapters import JsonProgramBot
    from termgames.rules.monad import observation

    match = MonadMatch(["greedy", "greedy", "greedy"], {"turns": 5}, 4)
    board = match.board
    names = ("a", "b", "c")
    for seat in range(3):
        bot = JsonProgramBot(f"{sys.executable} -c pass")
        bot.seat, bot.names = seat, names
        line = bot.encode(board)
        assert line == json.dumps(observation(board, list(names), seat), separators=(",", ":")).encode() + b"\n"


# Each kind of bot (one that is not built in) takes 0.5 s on its second turn: late at a 0.2 s limit.
SLOW_SECOND_TURN = {
    "json": """\
import json, sys, time
for number, line in enumerate(sys.stdin):
    if number == 1:
        time.sleep(0.5)
    print("[]", flush=True)
""",
    "py": """\
import time

def turn(observation):
    if observation["turn"] == 1:
        time.sleep(0.5)
    return []
""",
    "monad1": """\
import struct, sys, time
import msgpack

def read():
    (size,) = struct.unpack("<i", sys.stdin.buffer.read(4))
    return msgpack.unpackb(sys.stdin.buffer.read(size), raw=False)

read(), read(), read()
number = 0
while True:
    read()
    if number == 1:
        time.sleep(0.5)
    number += 1
    body = msgpack.packb([])
    sys.stdout.buffer.write(struct.pack("<i", len(body)) + body)
    sys.stdout.buffer.flush()
""",
}


@pytest.mark.parametrize("kind", sorted(SLOW_SECOND_TURN))
def test_every_kind_of_bot_is_held_to_the_turn_limit(tmp_path, kind):
    script = tmp_path / ("bot.py" if kind != "py" else "slowpoke.py")
    script.write_text(SLOW_SECOND_TURN[kind])
    spec = {"json": f"{sys.executable} {script}", "py": str(script), "monad1": f"monad1:{tmp_path}"}[kind]
    match = MonadMatch([spec, "greedy"], {"turns": 7}, 1, turn_limit=0.2)
    list(match.turns())
    mine = [turn[0] for turn in match.moves]
    assert mine[0] == "pass" and mine[1].startswith("fault late"), mine
    # the late answers are skipped when they come: the bot is back in step, not stopped
    assert mine[-2:] == ["pass", "pass"] and not any("stopped" in move for move in mine), mine


# --------------------------------------------------------------------------
# A bot that reopens its supervisor's lifeline through /proc (issue 32, item 7)
# --------------------------------------------------------------------------

# A .py bot that looks for termgames (MARKER-TERMGAMES in its command line) and its own supervisor in
# /proc, opens a write end of every pipe or socket they hold through /proc/PID/fd/N (a pipe's write end
# keeps the supervisor from seeing termgames go), tries termgames' /proc/PID/mem, and keeps its process
# alive with a non-daemon thread.  It reports what it got.
LIFELINE_THIEF = """\
import json, os, threading, time

seen, held, mem = [], [], []
for name in os.listdir("/proc"):
    if not name.isdigit():
        continue
    seen.append(int(name))
    try:
        with open(f"/proc/{name}/cmdline", "rb") as f:
            command = f.read()
    except OSError:
        continue
    if (b"supervisor.py" in command and __file__.encode() in command) or b"MARKER-TERMGAMES" in command:
        try:
            fds = os.listdir(f"/proc/{name}/fd")
        except OSError:
            fds = []
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{name}/fd/{fd}")
                if target.startswith(("pipe:", "socket:")):
                    held.append((os.open(f"/proc/{name}/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK), target))
            except OSError:
                pass
    if b"MARKER-TERMGAMES" in command:
        try:
            with open(f"/proc/{name}/mem", "rb"):
                mem.append(int(name))
        except OSError:
            pass
threading.Thread(target=time.sleep, args=(1000,)).start()  # not a daemon: the process waits for it
with open("report.tmp", "w") as f:
    json.dump({"seen": seen, "held": [target for _fd, target in held], "mem": mem}, f)
os.rename("report.tmp", "report.json")


def turn(observation):
    return []
"""


def _fresh_proc_allowed() -> bool:
    """Whether the supervisor can give a bot a /proc of its own here (a mount namespace is allowed)."""
    code = f"import sys; sys.path.insert(0, {str(Path(process._SUPERVISOR).parent)!r}); import supervisor; " \
        "raise SystemExit(0 if supervisor._probe(True) else 1)"
    return subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def _running_with(marker: str, settle: float = 5.0) -> list[int]:
    """The processes whose command line holds ``marker`` (as this machine numbers them), once given
    ``settle`` seconds to die."""
    deadline = time.monotonic() + settle
    while True:
        found = []
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) != os.getpid():
                with contextlib.suppress(OSError):
                    if marker.encode() in Path(f"/proc/{name}/cmdline").read_bytes() and _running_within(
                        int(name), settle=0
                    ):
                        found.append(int(name))
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


@pytest.mark.parametrize("box", BOXES)
def test_a_bot_cannot_reopen_its_lifeline_through_proc_and_outlive_termgames(tmp_path, monkeypatch, box):
    """Run as root (where the issue was found: the kernel lets root open any process's /proc/PID/fd), and as
    anyone: after ``kill -9`` of termgames neither the bot nor its supervisor is left."""
    _box(monkeypatch, box)
    marker = f"MARKER-{tmp_path.name}"  # this test's termgames, not another's on the machine
    bot = _bot_file(tmp_path, "thief.py", LIFELINE_THIEF.replace("MARKER-TERMGAMES", marker))
    runner = textwrap.dedent(
        f"""
        import sys
        from termgames.ai.monad import process
        process.PID_NAMESPACE = {box == "namespace"}
        from termgames.ai.monad.match import MonadMatch
        # Against the random bot, not greedy: greedy took the idle thief's hive and ended the match before the
        # thief's slow /proc scan had reported, on a busy machine.
        match = MonadMatch([{str(bot)!r}, "random"], {{"turns": 100000}}, 1)
        for _event in match.turns():
            pass
        """
    )
    termgames = subprocess.Popen([sys.executable, "-c", runner, marker], cwd=ROOT)
    try:
        report_file = tmp_path / "report.json"
        deadline = time.monotonic() + 20
        while not report_file.exists():
            assert time.monotonic() < deadline and termgames.poll() is None, "the bot never reported"
            time.sleep(0.02)
        report = json.loads(report_file.read_text())  # its thievery done, its thread keeps the bot alive
        assert termgames.poll() is None
    finally:
        termgames.kill()  # kill -9: nothing of termgames runs after this
        termgames.wait()
    try:
        assert _running_with(str(bot)) == [], report  # the bot, its supervisor (the bot's path is in its command)
        assert report["mem"] == [], "the bot read termgames' memory"
        if box == "namespace" and _fresh_proc_allowed():
            # a /proc of its own: only the namespace's processes (its first, the bot, maybe a helper)
            assert max(report["seen"]) < 10 and termgames.pid not in report["seen"], report
    finally:
        for pid in _running_with(str(bot)):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
