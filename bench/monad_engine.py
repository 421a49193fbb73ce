"""Monad engine benchmark: turns resolved per second, re-applying a recorded match's commands.

    python bench/monad_engine.py [--turns 2000] [--seed 1] [--repeat 3] [--record FILE] [--save FILE]

Two recorded 2000-turn two-player matches are measured (or ``--record FILE``):
greedy vs greedy, the built-in bots (when ``termgames.ai.monad`` is there), and
a stress match between two scripted bots (below) that fill the map and command
every occupied cell each turn (about 200 commands a turn).  For each:

* ``engine``: the commands of every turn are parsed once, and
  ``resolve_turn`` alone re-applies them from the initial board (best of
  ``--repeat`` runs): the target is at least 5,000 turns a second;
* ``load``: loading the record (JSON, checks, every move replayed through
  ``State.apply``), which must stay well under a second or two;
* ``trace``: building every turn's board JSON, as ``termgames monad trace`` does.

Figures are printed, never asserted.  ``bench/monad.py`` (the bots' bench)
may import :func:`scripted_record` and :func:`engine_turns_per_second`.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from termgames.match import Match, SeatInfo
from termgames.records import dumps, loads
from termgames.rules.monad import (
    DIRECTIONS,
    Board,
    Command,
    MonadState,
    board_json,
    format_commands,
    neighbour,
    parse_commands,
    resolve_turn,
)
from termgames.rules.monad.geometry import hex_distance


def scripted_commands(board: Board, seat: int, rng: random.Random) -> list[Command]:
    """A plausible bot: mine, build hives apart from each other, feed them, send the surplus at the enemy."""
    commands: list[Command] = []
    bank = board.bank[seat]
    width = board.width
    enemy = board.starts[(seat + 1) % board.players]
    ex, ey = enemy % width, enemy // width
    own_hives = [c for c in board.hive_cells if board.hive[c] == seat]
    for cell in board.occupied:
        if board.owner[cell] != seat:
            continue
        x, y = cell % width, cell // width
        n = board.units[cell]
        if board.hive[cell] == seat:
            keep = min(n, 3)
            if keep:
                commands.append(Command(x, y, keep, "BUILD"))
            if n > keep:
                commands.append(Command(x, y, n - keep, "MOVE", rng.choice(DIRECTIONS)))
            continue
        far = all(hex_distance((x, y), (h % width, h // width)) >= 3 for h in own_hives)
        if bank >= 100 and far:
            commands.append(Command(x, y, n, "BUILD"))
            bank -= 100
            own_hives.append(cell)
        elif board.resources[cell] > 0 and n < 12:
            commands.append(Command(x, y, n, "MINE"))
        else:
            # March on the enemy's start, or wander.
            direction = rng.choice(DIRECTIONS)
            if n >= 12:
                best = hex_distance((x, y), (ex, ey))
                for candidate in DIRECTIONS:
                    dx, dy = _step(x, y, candidate)
                    if 0 <= dx < width and 0 <= dy < board.height and hex_distance((dx, dy), (ex, ey)) < best:
                        direction, best = candidate, hex_distance((dx, dy), (ex, ey))
            commands.append(Command(x, y, n, "MOVE", direction))
    return commands


def _step(x: int, y: int, direction: str) -> tuple[int, int]:
    # neighbour() answers None off the map; a step off the map is simply not closer.
    return neighbour(x, y, direction, 1 << 20, 1 << 20) or (-1, -1)


def scripted_record(turns: int = 2000, seed: int = 1) -> str:
    """The record (JSON text) of a scripted two-player match of ``turns`` turns on the default map."""
    match = Match("monad", {"turns": turns}, [SeatInfo("ann"), SeatInfo("bob")], seed)
    rngs = [random.Random(seed * 2 + s) for s in range(2)]
    while not match.over:
        state = match.state
        assert isinstance(state, MonadState)
        for seat in state.to_move():
            match.play(seat, format_commands(scripted_commands(state.board, seat, rngs[seat])), time="")
    return dumps(match)


def turns_of(match: Match) -> tuple[Board, list[list[list[Command]]]]:
    """The initial board and, per resolved turn, each seat's commands (parsed from the record's moves)."""
    initial = match.states[0]
    assert isinstance(initial, MonadState)
    players = len(match.seats)
    turns: list[list[list[Command]]] = []
    current: list[list[Command]] = [[] for _ in range(players)]
    for record, state in zip(match.moves, match.states[1:]):
        if not record.move.startswith("fault"):
            current[record.seat] = parse_commands(record.move)
        assert isinstance(state, MonadState)
        if state.resolved_now():
            turns.append(current)
            current = [[] for _ in range(players)]
    return initial.board, turns


def engine_turns_per_second(board: Board, turns: list[list[list[Command]]], repeat: int = 3) -> tuple[float, float]:
    """(turns a second by the wall clock, by this process's CPU time), best of ``repeat`` runs.

    The CPU figure is the engine's own speed on a machine shared with other work.
    """
    best_wall = best_cpu = float("inf")
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        position = board
        for commands in turns:
            position, _report = resolve_turn(position, commands)
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return len(turns) / best_wall, len(turns) / max(best_cpu, 1e-9)


def greedy_record(turns: int = 2000, seed: int = 1) -> str | None:
    """The record of a match between two built-in greedy bots, when the bots package is there."""
    try:
        from termgames.ai.monad.match import MonadMatch  # type: ignore[import-not-found]  # the bots' branch
    except ImportError:
        return None
    runner = MonadMatch(["greedy", "greedy"], {"turns": turns}, seed)
    runner.run()
    match = Match("monad", {"turns": turns}, [SeatInfo(name) for name in runner.names], seed)
    for moves in runner.moves:
        for seat in match.state.to_move():
            match.play(seat, moves[seat] or "pass", time="")
    return dumps(match)


def measure(title: str, text: str, repeat: int) -> None:
    match = loads(text)
    board, turns = turns_of(match)
    final = match.state
    assert isinstance(final, MonadState)
    commands = sum(len(seat) for turn in turns for seat in turn)
    peak = max(len(s.board.occupied) for s in match.states if isinstance(s, MonadState))
    print(f"{title}: {len(turns)} turns, {commands / max(len(turns), 1):.0f} commands a turn, "
          f"units at the end {final.board.unit_totals}, hives {final.board.hive_counts}, peak {peak} occupied cells")
    wall, cpu = engine_turns_per_second(board, turns, repeat)
    print(f"  engine: {wall:,.0f} turns/s wall clock, {cpu:,.0f} turns/s CPU (target >= 5,000)")
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        loads(text)
        best = min(best, time.perf_counter() - started)
    print(f"  load: {best:.3f} s to load the record ({len(match.moves)} moves replayed through State.apply)")
    started = time.perf_counter()
    for state in match.states:
        assert isinstance(state, MonadState)
        if state.ply == 0 or state.resolved_now():
            board_json(state.board, match.names)
    print(f"  trace: {time.perf_counter() - started:.3f} s to build every turn's board JSON")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--record", type=Path, help="re-apply this Monad record instead of the matches below")
    parser.add_argument("--save", type=Path, help="write the scripted match's record here")
    args = parser.parse_args()

    if args.record:
        measure(str(args.record), args.record.read_text(encoding="utf-8"), args.repeat)
        return
    text = greedy_record(args.turns, args.seed)
    if text is None:
        print("greedy vs greedy: the built-in bots are not installed (termgames.ai.monad)")
    else:
        measure("greedy vs greedy", text, args.repeat)
    text = scripted_record(args.turns, args.seed)
    if args.save:
        args.save.write_text(text, encoding="utf-8")
    measure("stress (scripted bots that fill the map and command every cell)", text, args.repeat)


if __name__ == "__main__":
    main()
