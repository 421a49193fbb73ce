"""Figures of issue 14: bits in a fresh seed, and moves lost when `termgames move` races on one record.

    python bench/hostile.py [--races 5] [--movers 12]

Each race starts ``--movers`` processes that run ``termgames move RECORD CELL`` on one Copolymer record at
the same moment (distinct cells, so every move is legal whoever comes first) and counts the moves that
reported success but are missing from the record afterwards.  Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from termgames import records
from termgames.match import SEED_BITS, Match, SeatInfo, random_seed

CELLS = ["A1", "A3", "A5", "C1", "C4", "C7", "E1", "E5", "E9", "G4", "G7", "J7", "B2", "D5", "H6", "F3"]


def race(folder: Path, number: int, movers: int) -> tuple[int, int]:
    """One race: (moves accepted, moves lost)."""
    path = folder / f"race{number}.json"
    records.save(path, Match("copolymer", {"size": 9}, [SeatInfo("ann"), SeatInfo("bob")], random_seed()))
    command = [sys.executable, "-m", "termgames", "move", str(path)]
    children = [
        subprocess.Popen([*command, cell], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for cell in CELLS[:movers]
    ]
    accepted = sum(child.wait() == 0 for child in children)
    kept = len(records.load(path).moves)
    return accepted, accepted - kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--races", type=int, default=5)
    parser.add_argument("--movers", type=int, default=12, choices=range(2, len(CELLS) + 1), metavar="2-16")
    args = parser.parse_args()
    seeds = [random_seed() for _ in range(1000)]
    print(f"seed bits: {SEED_BITS} (largest of 1000 fresh seeds has {max(s.bit_length() for s in seeds)} bits)")
    started = time.monotonic()
    accepted = lost = 0
    with tempfile.TemporaryDirectory() as folder:
        for number in range(args.races):
            won, gone = race(Path(folder), number, args.movers)
            accepted, lost = accepted + won, lost + gone
    seconds = time.monotonic() - started
    print(f"raced moves: {args.races} races of {args.movers}, {accepted} accepted, {lost} lost ({seconds:.1f} s)")


if __name__ == "__main__":
    main()
