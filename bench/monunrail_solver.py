"""Time the MonUnrail unrailing solver on solid rectangular blocks.

    python bench/monunrail_solver.py              # 2x10 2x12 4x5 5x5 6x4
    python bench/monunrail_solver.py 2x14 3x8     # other blocks (rows x columns)

Each block is solved with a cold cache (a fresh Solver).  Prints the time,
the nimber, which implementation ran and the cache size.  No assertions on
time: the figures are for the hand-over report and regressions by eye.
Expected nimbers (README): 2x10 = 0, 2x12 = 0, 4x5 = 7, 5x5 = 1; 6x4 was
first computed here: 0.
"""

from __future__ import annotations

import gc
import os
import platform
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

from termgames.rules.monunrail_solver import Solver  # noqa: E402

DEFAULT = ["2x10", "2x12", "4x5", "5x5", "6x4"]
KNOWN = {"2x10": 0, "2x12": 0, "4x5": 7, "5x5": 1, "6x4": 0, "4x6": 0, "2x13": 2, "2x14": 0, "3x7": 4}


def main(argv: list[str]) -> int:
    sizes = argv or DEFAULT
    print(f"MonUnrail unrailing solver, Python {platform.python_version()} on {platform.machine()}")
    print(f"{'block':>6} {'nimber':>6} {'seconds':>8} {'classes':>9}  path")
    for size in sizes:
        rows, cols = (int(x) for x in size.lower().split("x"))
        cells = [(c, r) for r in range(rows) for c in range(cols)]
        solver = Solver()
        gc.collect()
        start = time.perf_counter()
        value = solver.nimber(cells)
        seconds = time.perf_counter() - start
        cores = ", ".join(
            f"{kind} {core.height}x{core.width}" if kind == "table" else f"dict {core.width}"
            for (kind, _), core in solver._cores.items()  # noqa: SLF001 (a bench may look inside)
        )
        check = KNOWN.get(f"{rows}x{cols}")
        note = "" if check is None else ("  ok" if check == value else f"  EXPECTED {check}")
        print(
            f"{size:>6} {value:>6} {seconds:>8.2f} {solver.cache_size:>9}  "
            f"{solver.implementation} ({cores}){note}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
