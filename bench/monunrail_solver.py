"""Time the MonUnrail unrailing solver on solid rectangular blocks, cold.

    python bench/monunrail_solver.py               # 2x10 2x12 4x5 5x5 6x4, the path Solver() picks
    python bench/monunrail_solver.py --python      # the pure-Python path
    python bench/monunrail_solver.py --both        # the compiled path, then the pure-Python one
    python bench/monunrail_solver.py 2x14 3x8      # other blocks (rows x columns)

Each block is solved with a cold cache: a fresh Solver, the persistent cache
file not read.  Prints the time, the nimber, which path ran (C or pure
Python) and the cache size (classes of shapes solved), then the size of the
persistent cache file for reference.  No assertions on time: the figures are
for the hand-over report and regressions by eye.  The issue's targets (a
plain memoised solver took 119 s for 2x12 and 1381 s for 5x5 on 2 cores):
5x5 under 10 s, 2x12 under 2 s, 6x4 computed at all.  Expected nimbers
(README): 2x10 = 0, 2x12 = 0, 4x5 = 7, 5x5 = 1; 6x4 was first computed
here: 0.

Measured 2026-11-23 with --both on the 2-core development machine, shared
with other work (load average ~3.5, so wall times are inflated):

    block  C (s)  pure Python (s)  classes
     2x10   0.03             0.15     3590
     2x12   0.14             1.07    20488
      4x5   0.08             0.88    24255
      5x5   1.32            12.48   262303
      6x4   1.05            11.72   256995

With less load the C path took 0.90 s for 5x5 and 0.95 s for 6x4.  Larger
blocks on the C path: 3x9 = 16 in ~4 s, 5x6 = 4 in ~70 s of CPU (10.2 million
classes, a 512 MB table, 0.8 GB at its peak while the table grows).
"""

from __future__ import annotations

import gc
import os
import platform
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

from termgames.rules.monunrail_solver import Solver, compiled_core_available

DEFAULT = ["2x10", "2x12", "4x5", "5x5", "6x4"]
KNOWN = {"2x10": 0, "2x12": 0, "4x5": 7, "5x5": 1, "6x4": 0, "4x6": 0, "2x13": 2, "2x14": 0, "3x7": 4}


def cores_of(solver: Solver) -> str:
    parts = []
    for (kind, _), core in solver._cores.items():  # a bench may look inside
        if kind == "c":
            parts.append(f"C core {core.height}x{core.width} frame, {core.memory / 2**20:.0f} MB")
        elif kind == "table":
            parts.append(f"table {core.height}x{core.width}")
        else:
            parts.append(f"dict {core.width}")
    return ", ".join(parts)


def run(sizes: list[str], core: str) -> None:
    for size in sizes:
        rows, cols = (int(x) for x in size.lower().split("x"))
        cells = [(c, r) for r in range(rows) for c in range(cols)]
        solver = Solver(core=core)
        gc.collect()
        start = time.perf_counter()
        value = solver.nimber(cells)
        seconds = time.perf_counter() - start
        check = KNOWN.get(f"{rows}x{cols}")
        note = "" if check is None else ("  ok" if check == value else f"  EXPECTED {check}")
        print(
            f"{size:>6} {value:>6} {seconds:>8.2f} {solver.cache_size:>9}  "
            f"{solver.implementation} ({cores_of(solver)}){note}",
            flush=True,
        )


def main(argv: list[str]) -> int:
    flags = {a for a in argv if a.startswith("--")}
    sizes = [a for a in argv if not a.startswith("--")] or DEFAULT
    unknown = flags - {"--python", "--both"}
    if unknown:
        print(f"unknown option {sorted(unknown)[0]}; see the docstring", file=sys.stderr)
        return 2
    if "--both" in flags:
        paths = (["c"] if compiled_core_available() else []) + ["python"]
    elif "--python" in flags:
        paths = ["python"]
    else:
        paths = ["auto"]
    python = f"Python {platform.python_version()} on {platform.machine()}"
    print(f"MonUnrail unrailing solver, {python}, {os.cpu_count()} CPUs")
    print(f"compiled core (termgames._unrail): {'built' if compiled_core_available() else 'not built'}")
    print(f"{'block':>6} {'nimber':>6} {'seconds':>8} {'classes':>9}  path")
    for core in paths:
        run(sizes, core)
    try:
        from termgames import solver_cache

        path = solver_cache.default_path()
        if path is not None and path.exists():
            print(f"persistent cache (not used above): {path}, {path.stat().st_size / 1024:.0f} KB")
        else:
            print("persistent cache (not used above): none yet")
    except ImportError:  # platformdirs missing: the bench still ran
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
