"""Monad bots of a local user (issue 23, part C): memory with a bot that never reads, time of `.py` bots.

    python bench/monad_bots.py                      # both figures
    python bench/monad_bots.py --seconds 45 --turns 2000 --runs 3

* two bots that never read their input but answer at once, on a 60x60 map,
  for up to ``--seconds`` (nobody wins: the match lasts): the turns played,
  the most that waited to be sent to them (bytes held by termgames beyond
  the pipes) and termgames' resident memory (peak and at the end, in MiB,
  read from /proc);
* two copies of the guide's starter bot (``docs/monad-starter-bot.py``, a
  ``.py`` bot) for ``--turns`` turns on the default map: the whole match's
  time (bots' start and end included) and the CPU time of termgames and the
  processes it ran, best of ``--runs``, and the same for a one-turn match
  (what starting and ending the two bots costs).

No assertions: figures for the hand-over report.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from termgames.ai.monad.match import MonadMatch

STARTER = ROOT / "docs" / "monad-starter-bot.py"

NEVER_READS = """\
import sys, time
while True:
    sys.stdout.write("[]\\n" * 200)
    sys.stdout.flush()
    time.sleep(0.001)
"""


def _resident_mib() -> float:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def never_reads(seconds: float) -> None:
    with tempfile.TemporaryDirectory(prefix="monad-deaf-") as folder:
        script = Path(folder) / "deaf.py"
        script.write_text(NEVER_READS)
        deaf = f"{sys.executable} {script}"
        match = MonadMatch([deaf, deaf], {"turns": 100_000, "width": 60, "height": 60}, 1)
        began, waiting, peak = time.monotonic(), 0, _resident_mib()
        turns = match.turns()
        fault = None
        for event in turns:
            waiting = max(waiting, sum(len(bot.process._outbox) for bot in match.adapters))
            if event.turn % 10 == 0:
                peak = max(peak, _resident_mib())
            if event.faults[0] and fault is None and not event.faults[0].startswith("out"):
                fault = (event.turn, event.faults[0])
            if time.monotonic() - began > seconds:
                break
        turns.close()
        took = time.monotonic() - began
        print(f"two never-reading bots, 60x60, {event.turn} turns in {took:.1f} s:")
        print(f"  most waiting to be sent to them: {waiting / (1 << 20):.1f} MiB")
        print(f"  termgames' resident memory: peak {peak:.0f} MiB, now {_resident_mib():.0f} MiB")
        print(f"  (peak by getrusage: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB)")
        print(f"  first fault: {fault[1] if fault else 'none'}" + (f" (turn {fault[0]})" if fault else ""))


def _cpu() -> float:
    """CPU seconds of this process and of every process it (and they) waited for: bots and their supervisors."""
    mine, theirs = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + theirs.ru_utime + theirs.ru_stime


def python_bots(turns: int, runs: int) -> None:
    def timed(turns: int) -> tuple[float, float]:
        best, cpu = float("inf"), float("inf")
        for _ in range(runs):
            match = MonadMatch([str(STARTER), str(STARTER)], {"turns": turns}, 7)
            began, used = time.perf_counter(), _cpu()
            result = match.run()
            best, cpu = min(best, time.perf_counter() - began), min(cpu, _cpu() - used)
            assert sum(bot.faults for bot in result.bots) == 0, [bot.last_fault for bot in result.bots]
        return best, cpu

    (full, full_cpu), (one, one_cpu) = timed(turns), timed(1)
    print(
        f"two .py starter bots, {turns} turns: {full:.2f} s, {full_cpu:.2f} s CPU (best of {runs});"
        f" a 1-turn match: {one:.3f} s, {one_cpu:.3f} s CPU"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=45.0, help="how long the never-reading bot plays")
    parser.add_argument("--turns", type=int, default=2000, help="turns of the .py bots' match")
    parser.add_argument("--runs", type=int, default=3, help="matches of the .py bots (the best is shown)")
    args = parser.parse_args()
    never_reads(args.seconds)
    python_bots(args.turns, args.runs)


if __name__ == "__main__":
    main()
