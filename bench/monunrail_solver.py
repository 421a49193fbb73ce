"""Time the MonUnrail unrailing solver on solid blocks, cold: this tree against an earlier commit, in one run.

    python bench/monunrail_solver.py                         # issue 28's blocks: main's merge-base, then this tree
    python bench/monunrail_solver.py --before HEAD~3 5x5 2x21
    python bench/monunrail_solver.py --after-only 3x11       # this tree only
    python bench/monunrail_solver.py --python 4x5 2x12       # the pure-Python path (TERMGAMES_PURE_PYTHON=1)
    python bench/monunrail_solver.py --time-limit 60 --max-memory 1G

The earlier commit is checked out into a temporary git worktree and its
compiled core built there (``setup.py build_ext --inplace``, with this
interpreter); this tree's is rebuilt too.  Each block is solved in a
subprocess of its own with a cold cache (a fresh ``Solver()``, the cache file
turned off): ``Solver().nimber(block)``, what ``termgames solve`` and the
game run.  The harness watches the child's resident memory every 50 ms and
kills it at ``--max-memory`` or ``--time-limit`` (the old solver had no
budget of its own), then reads its peak resident memory and processor time
from the kernel (``wait4``).  Columns: the value, the seconds of the solve
(inside the child; "> N" when killed), the processor seconds, the peak
resident memory.

No assertions: the figures are for the hand-over report and for regressions
by eye.  The issue's targets: 6x6 and 2x20 at once (symmetric: the second
player mirrors), 2x21 and 3x13 within 2 minutes and 2 GB or a measured
statement of why not.  Results and how they were obtained: docs/monunrail-nimbers.md.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
DEFAULT = ["5x5", "6x4", "5x6", "2x16", "2x21", "3x13", "6x6"]
#: Values known from the README or earlier runs: a row that disagrees is marked.
KNOWN = {"2x10": 0, "2x12": 0, "2x15": 2, "2x16": 0, "2x17": 2, "2x19": 2, "2x21": 2, "3x7": 4, "3x9": 16,
         "3x10": 9, "4x5": 7, "5x5": 1, "6x4": 0, "5x6": 4, "6x6": 0}

CHILD = r"""
import json, sys, time
sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
try:
    from termgames.rules.monunrail.solver import Solver
except ImportError:  # a tree from before MonUnrail became a package (issue 24)
    from termgames.rules.monunrail_solver import Solver
rows, cols = (int(x) for x in sys.argv[1].split("x"))
solver = Solver()
start = time.perf_counter()
value = solver.nimber([(c, r) for r in range(rows) for c in range(cols)])
seconds = time.perf_counter() - start
print(json.dumps({"value": value, "seconds": seconds, "classes": solver.cache_size,
                  "path": solver.implementation}))
"""


def parse_size(text: str) -> int:
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    text = text.strip().lower().rstrip("b")
    return int(float(text[:-1]) * units[text[-1]]) if text[-1] in units else int(text)


def resident(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def measure(tree: Path, size: str, seconds: float, memory: int, python_only: bool) -> dict:
    """Solve one block in a child process of ``tree``; its figures, or how it was stopped."""
    env = {**os.environ, "PYTHONPATH": str(tree), "TERMGAMES_SOLVER_CACHE": "off"}
    env.pop("TERMGAMES_PURE_PYTHON", None)
    if python_only:
        env["TERMGAMES_PURE_PYTHON"] = "1"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, size], cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    start = time.monotonic()
    stopped = ""
    peak = 0
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)  # the kernel's figures for this child alone
        if pid:
            break
        peak = max(peak, resident(child.pid))
        if not stopped and peak > memory:
            stopped = "memory"
        elif not stopped and time.monotonic() - start > seconds:
            stopped = "time"
        if stopped:
            child.send_signal(signal.SIGKILL)
        time.sleep(0.05)
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.stdout is not None and child.stderr is not None
    out, err = child.stdout.read(), child.stderr.read()
    result = {
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak": max(peak, usage.ru_maxrss * 1024),
        "wall": time.monotonic() - start,
        "stopped": stopped,
    }
    if not stopped:
        if child.returncode == 0:
            result.update(json.loads(out.decode().strip().splitlines()[-1]))
        else:
            last = (err.decode().strip().splitlines() or ["?"])[-1]
            result["stopped"] = f"failed: {last[:60]}"
    return result


def build(tree: Path) -> str:
    done = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"], cwd=tree, capture_output=True, text=True
    )
    if done.returncode != 0 or "not built" in done.stderr:
        return "compiled core not built"
    return "compiled core built"


def commit_of(ref: str) -> str:
    return subprocess.run(
        ["git", "log", "-1", "--format=%h %s", ref], cwd=HERE, capture_output=True, text=True, check=True
    ).stdout.strip()


def cell(result: dict | None, seconds: float) -> str:
    if result is None:
        return f"{'':>6} {'':>9} {'':>7} {'':>8}"
    value = "-" if "value" not in result else str(result["value"])
    if result["stopped"] in ("time", "memory"):
        took = f">{result['wall']:.0f}"
    elif result["stopped"]:
        took = "failed"
    else:
        took = f"{result['seconds']:.2f}"
    mark = {"time": " (time)", "memory": " (memory)"}.get(result["stopped"], "")
    return f"{value:>6} {took:>9} {result['cpu']:>7.1f} {result['peak'] / 2**20:>6.0f}MB{mark}"


def main(argv: list[str]) -> int:
    args = list(argv)
    options: dict[str, str] = {}
    flags: set[str] = set()
    sizes: list[str] = []
    while args:
        arg = args.pop(0)
        if arg in ("--before", "--time-limit", "--max-memory"):
            if not args:
                print(f"{arg} needs a value", file=sys.stderr)
                return 2
            options[arg] = args.pop(0)
        elif arg in ("--after-only", "--python"):
            flags.add(arg)
        elif arg.startswith("--"):
            print(f"unknown option {arg}; see the docstring", file=sys.stderr)
            return 2
        else:
            sizes.append(arg)
    sizes = sizes or DEFAULT
    seconds = float(options.get("--time-limit", "150"))
    memory = parse_size(options.get("--max-memory", "3G"))
    python_only = "--python" in flags
    before_ref = options.get("--before")
    if before_ref is None and "--after-only" not in flags:
        before_ref = subprocess.run(
            ["git", "merge-base", "HEAD", "main"], cwd=HERE, capture_output=True, text=True, check=True
        ).stdout.strip()

    print(f"MonUnrail unrailing solver: Python {platform.python_version()} on {platform.machine()}, "
          f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"each block in a child process, killed past {seconds:.0f} s or {memory / 2**30:.1f} GB resident"
          f"{'; pure Python (TERMGAMES_PURE_PYTHON=1)' if python_only else ''}")
    trees: list[tuple[str, Path]] = []
    scratch = None
    try:
        if before_ref is not None:
            scratch = Path(tempfile.mkdtemp(prefix="monunrail-bench-"))
            subprocess.run(["git", "worktree", "add", "--detach", str(scratch / "tree"), before_ref], cwd=HERE,
                           capture_output=True, check=True)
            trees.append(("before", scratch / "tree"))
            print(f"before: {commit_of(before_ref)} ({build(scratch / 'tree')})")
        trees.append(("after", HERE))
        print(f"after:  this tree, {commit_of('HEAD')}"
              f"{' + changes' if subprocess.run(['git', 'diff', '--quiet', 'HEAD'], cwd=HERE).returncode else ''}"
              f" ({build(HERE)})")
        print(f"{'':>6}  " + "  ".join(f"{name:<32}" for name, _ in trees))
        print(f"{'block':>6}  " + "  ".join(f"{'value':>6} {'seconds':>9} {'cpu s':>7} {'peak':>8}" for _ in trees))
        for size in sizes:
            results = {}
            for name, tree in trees:
                results[name] = measure(tree, size, seconds, memory, python_only)
            row = "  ".join(cell(results[name], seconds) for name, _ in trees)
            classes = results["after"].get("classes")
            extra = f"  {classes:,} classes ({results['after'].get('path', '?')})" if classes is not None else ""
            wrong = [name for name, r in results.items() if "value" in r and KNOWN.get(size, r["value"]) != r["value"]]
            if wrong:
                extra += f"  EXPECTED {KNOWN[size]} ({', '.join(wrong)})"
            print(f"{size:>6}  {row}{extra}", flush=True)
    finally:
        if scratch is not None:
            subprocess.run(["git", "worktree", "remove", "--force", str(scratch / "tree")], cwd=HERE,
                           capture_output=True)
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
