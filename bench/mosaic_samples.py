"""Writes Mosaic's sample records in saves/, as the Mac program shipped them: bots play, the records are kept.

    python bench/mosaic_samples.py [--out saves]

* ``mosaic-ada-vs-brian-building.json`` and ``mosaic-ada-vs-brian-altering.json``: one
  two-player game at two stages (mid-building, then mid-alteration);
* ``mosaic-three-players-board-built.json`` and ``mosaic-four-players-board-built.json``: three-
  and four-player games stopped with the board complete (the alteration phase under way), so a
  player can see what a finished board looks like without building one.

The games are fixed by their seeds and the bots' (the normal level) seeds, so running this again
writes the same moves (only the times in the records differ).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from termgames import records
from termgames.ai import make_bot
from termgames.match import Match, SeatInfo


def play_until(match: Match, bots: list, stop) -> None:
    while not match.over and not stop(match):
        seat = match.state.to_move()[0]
        match.play(seat, bots[seat].choose(match.view(seat)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "saves")
    args = parser.parse_args()
    out: Path = args.out

    names = ["ada", "brian"]
    seats = [SeatInfo("ada"), SeatInfo("brian", "ai", "normal")]
    match = Match("mosaic", {}, seats, 1992)
    bots = [make_bot("mosaic", "normal", seed=seat) for seat in range(2)]
    play_until(match, bots, lambda m: len(m.moves) >= 9)
    records.save(out / f"mosaic-{names[0]}-vs-{names[1]}-building.json", match)
    play_until(match, bots, lambda m: m.state.phase == "alteration" and m.state.routines >= 2
               and m.state.kind == "R")
    records.save(out / f"mosaic-{names[0]}-vs-{names[1]}-altering.json", match)

    for players, who, seed in ((3, ["carmen", "dmitri", "eve"], 31), (4, ["felix", "gita", "hal", "ines"], 41)):
        seats = [SeatInfo(name) for name in who]
        match = Match("mosaic", {}, seats, seed)
        bots = [make_bot("mosaic", "normal", seed=seat) for seat in range(players)]
        play_until(match, bots, lambda m: m.state.phase != "building")
        label = {3: "three", 4: "four"}[players]
        records.save(out / f"mosaic-{label}-players-board-built.json", match)
    for path in sorted(out.glob("mosaic-*.json")):
        print(path)


if __name__ == "__main__":
    main()
