"""Pairing a Swiss round of many players: the seconds each round takes, and that nobody meets anyone twice.

    python bench/tournament_pairing.py [--players 1000] [--rounds 7]

Prints, for each round, the seconds pairing took and the repeated pairs (0 unless unavoidable).  The target
(docs/benchmarks.md): a round of 1,000 players under 1 s.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from termgames.tournaments.pairing import Entrant, Game, swiss_round, two_seat_points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    players = [Entrant(f"p{n}", rating=rng.gauss(25, 8)) for n in range(args.players)]
    strength = {player.name: player.rating for player in players}
    rounds: list[list[Game]] = []
    met: Counter[frozenset[str]] = Counter()
    print(f"{args.players} players, Swiss, {args.rounds} rounds")
    print("round  seconds  tables  repeats")
    for number in range(1, args.rounds + 1):
        started = time.perf_counter()
        games = swiss_round(players, rounds)
        seconds = time.perf_counter() - started
        finished = []
        for game in games:
            if game.bye:
                finished.append(game)
                continue
            one, other = game.seats
            edge = 1 / (1 + 10 ** ((strength[other] - strength[one]) / 16))
            roll = rng.random()
            winners = game.seats if abs(roll - edge) < 0.05 else (one,) if roll < edge else (other,)
            finished.append(Game(game.seats, two_seat_points(game.seats, winners)))
            met[frozenset(game.seats)] += 1
        repeats = sum(count - 1 for count in met.values() if count > 1)
        rounds.append(finished)
        print(f"{number:5}  {seconds:7.3f}  {len(games):6}  {repeats:7}")


if __name__ == "__main__":
    main()
