"""Monad speed and strength, side by side in one run.

    python bench/monad.py                               # engine, greedy vs greedy, win rates (100 games)
    python bench/monad.py --original /work/orig/sample/random   # and the original platform's random bot
    python bench/monad.py --games 20 --jobs 2

What it prints (targets from issue 10):

* the engine alone re-applying the commands of a recorded 2000-turn match
  between two greedy bots (``bench/monad_engine.py``'s measure): turns a
  second by the wall clock and by CPU time (target >= 5,000);
* a 2000-turn match between two built-in greedy bots in-process, bots and
  engine together: seconds (target < 2 s);
* with ``--original DIR`` (a sample bot folder of the original platform,
  holding ``bot.py``, ``GameHelper.py`` and ``game``): that bot as a
  subprocess on both seats, in termgames (``monad1:DIR``) and in the
  original engine (``DIR/game``, its ``Game`` and ``LocalBot``, in a scratch
  folder so that its logs land there), turns a second of each and their
  ratio (target >= 1.5).  The original gives each player a hive at the start
  (its units multiply); the rules here do not (ruling 3), so the sample random
  bot, which never builds, keeps its one unit: the figures say how many units
  each engine had at the end;
* the strongest built-in bot's (swarm's) wins against random and greedy over
  ``--games`` two-player matches on mirrored seats (each map seed played from
  both seats; targets >= 95 % and >= 70 %).

No assertions: figures for the hand-over report.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # bench/monad_engine.py

from termgames.ai.monad.match import MonadMatch
from termgames.ai.monad.tournament import Game, run_games
from termgames.records import loads


def engine_alone(turns: int = 2000, seed: int = 1) -> tuple[int, float, float]:
    """bench/monad_engine.py's measure on a recorded greedy-vs-greedy match: (turns, wall turns/s, CPU turns/s)."""
    from monad_engine import engine_turns_per_second, greedy_record, turns_of

    text = greedy_record(turns, seed)
    assert text is not None, "the built-in bots are missing"
    board, commands = turns_of(loads(text))
    wall, cpu = engine_turns_per_second(board, commands)
    return len(commands), wall, cpu


def greedy_match(turns: int = 2000, seed: int = 1) -> tuple[int, float, float]:
    """A greedy-vs-greedy match in-process, bots and engine: (turns, wall seconds, CPU seconds)."""
    match = MonadMatch(["greedy", "greedy"], {"turns": turns}, seed)
    wall, cpu = time.perf_counter(), time.process_time()
    result = match.run()
    return result.turns, time.perf_counter() - wall, time.process_time() - cpu


def termgames_subprocess(folder: Path, turns: int, seeds: int) -> tuple[int, float, str]:
    """``monad1:DIR`` on both seats: (turns, seconds, units at the end) over ``seeds`` matches."""
    total_turns, total_seconds, units = 0, 0.0, ""
    for seed in range(1, seeds + 1):
        match = MonadMatch([f"monad1:{folder}", f"monad1:{folder}"], {"turns": turns}, seed)
        began = time.perf_counter()
        result = match.run()
        total_seconds += time.perf_counter() - began
        total_turns += result.turns
        units = "/".join(str(n) for n in result.units)
    return total_turns, total_seconds, units


_ORIGINAL_DRIVER = r"""
import json, os, sys, time
sys.path.insert(0, os.getcwd())
from game.Game import Game
from game.LocalBot import LocalBot
bots = [LocalBot("bot.py", 0), LocalBot("bot.py", 1)]
game = Game(bots)
began = time.perf_counter()
game.start()
took = time.perf_counter() - began
units = "/".join(str(p.total_units()) for p in game.players)
for bot in bots:
    bot.cleanup()
print(json.dumps({"turns": game.iter, "seconds": took, "units": units}))
"""


def original_engine(folder: Path, seeds: int) -> tuple[int, float, str]:
    """The original engine running the same bot on both seats (its own turn limit, 1000): (turns, seconds, units)."""
    total_turns, total_seconds, units = 0, 0.0, ""
    with tempfile.TemporaryDirectory(prefix="monad-original-") as scratch:
        for name in ("bot.py", "GameHelper.py", "game"):
            os.symlink((folder / name).resolve(), Path(scratch) / name)
        driver = Path(scratch) / "run_original.py"
        driver.write_text(_ORIGINAL_DRIVER)
        env = dict(os.environ)
        # LocalBot runs "python ./bot.py": the same Python as termgames.
        env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
        for _ in range(seeds):
            done = subprocess.run(
                [sys.executable, str(driver)],
                cwd=scratch,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
            if done.returncode != 0 or not lines:
                tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
                raise RuntimeError(f"the original engine failed: {tail}")
            figures = json.loads(lines[-1])
            total_turns += figures["turns"]
            total_seconds += figures["seconds"]
            units = figures["units"]
    return total_turns, total_seconds, units


def win_rates(games: int, jobs: int, turns: int) -> dict[str, tuple[int, int, int]]:
    """swarm against random and greedy: (wins, draws, losses) over ``games`` matches, mirrored seats."""
    specs = ["swarm", "random", "greedy"]
    rates = {}
    for opponent in (1, 2):
        schedule = []
        for number in range((games + 1) // 2):
            seed = 10_000 + number
            schedule.append(Game(number, 0, opponent, seed))
            schedule.append(Game(number, opponent, 0, seed))
        schedule = schedule[:games]
        wins = draws = losses = 0
        for result in run_games(specs, schedule, {"turns": turns}, {}, jobs):
            if result.outcome == 0:
                draws += 1
            elif (result.outcome == 1) == (result.game.first == 0):
                wins += 1
            else:
                losses += 1
        rates[specs[opponent]] = (wins, draws, losses)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--original", type=Path, help="a sample bot folder of the original platform")
    parser.add_argument("--games", type=int, default=100, help="matches per win rate (default 100)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes for the win rates")
    parser.add_argument("--seeds", type=int, default=3, help="matches per side for --original (default 3)")
    parser.add_argument("--turns", type=int, default=2000, help="turn limit of the in-process matches")
    args = parser.parse_args()

    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    turns, wall, cpu = engine_alone(args.turns)
    print(
        f"engine alone, re-applying a recorded {turns}-turn greedy match: {wall:,.0f} turns/s"
        f" ({cpu:,.0f} by CPU time)  (target >= 5,000)"
    )
    turns, wall, cpu = greedy_match(args.turns)
    print(f"greedy vs greedy in-process, {turns} turns: {wall:.2f} s ({cpu:.2f} s CPU)  (target < 2 s)")

    if args.original is not None:
        folder = args.original.expanduser().resolve()
        ours = termgames_subprocess(folder, 1000, args.seeds)
        theirs = original_engine(folder, args.seeds)
        our_rate, their_rate = ours[0] / ours[1], theirs[0] / theirs[1]
        print(f"{folder.name} (subprocess) on both seats:")
        print(f"  termgames: {ours[0]} turns in {ours[1]:.2f} s = {our_rate:,.0f} turns/s (units at the end {ours[2]})")
        print(
            f"  original:  {theirs[0]} turns in {theirs[1]:.2f} s = {their_rate:,.0f} turns/s"
            f" (units at the end {theirs[2]})"
        )
        print(f"  ratio: {our_rate / their_rate:.2f}x  (target >= 1.5x)")

    if args.games > 0:
        began = time.perf_counter()
        rates = win_rates(args.games, args.jobs, args.turns)
        took = time.perf_counter() - began
        for opponent, (wins, draws, losses) in rates.items():
            played = wins + draws + losses
            target = 95 if opponent == "random" else 70
            print(
                f"swarm vs {opponent}: {wins} wins, {draws} draws, {losses} losses of {played}"
                f" = {100 * wins / played:.0f} % wins  (target >= {target} %)"
            )
        print(f"  ({took:.1f} s with {args.jobs} processes)")


if __name__ == "__main__":
    main()
