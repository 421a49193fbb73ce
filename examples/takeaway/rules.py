"""Take-away's rules: heaps of counters; a move takes 1 to ``max_take`` counters from one heap; the player who
takes the last counter wins.

A move is written ``HEAP-COUNT`` in ASCII digits: ``2-3`` takes three counters from the second heap.  The
state is the heaps and whose turn it is; nothing is hidden and nothing is random, so the view is the state.
Imports: the standard library and ``termgames.rules`` only (the rules are pure: no I/O, no front end).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from typing import Any

from termgames.rules.base import Game, OptionSpec, Preset, RuleError, State, View, Viewer, possessive
from termgames.rules.options import INT, IntList

MOVE = re.compile(r"([0-9]+)-([0-9]+)")


@dataclass(frozen=True)
class TakeAwayView(View):
    """What every seat sees: the heaps, and the most a move may take."""

    heaps: tuple[int, ...] = ()
    most: int = 1

    def board_json(self) -> Any:
        return {"heaps": list(self.heaps), "most": self.most}

    def board_text(self, ascii: bool = False) -> str:
        counter = "o" if ascii else "●"
        rows = [f"{number:>2}: {counter * size or '-'} ({size})" for number, size in enumerate(self.heaps, 1)]
        return "\n".join([*rows, "", self.status])


@dataclass(frozen=True)
class TakeAwayState(State):
    heaps: tuple[int, ...] = ()
    turn: int = 0
    last_action: str = ""

    @property
    def most(self) -> int:
        return int(self.options["max_take"])

    def to_move(self) -> tuple[int, ...]:
        return () if self.is_over() else (self.turn,)

    def is_over(self) -> bool:
        return not any(self.heaps)

    def scores(self) -> tuple[float, ...]:
        if not self.is_over():
            return (0.0, 0.0)
        # The last counter was taken by the seat before the one whose turn it now is.
        return (1.0, 0.0) if self.turn == 1 else (0.0, 1.0)

    def view(self, viewer: Viewer) -> TakeAwayView:
        if self.is_over():
            status = f"Game over: {self.seats[self.winners()[0]]} took the last counter and wins"
        else:
            status = f"It is {possessive(self.seats[self.turn])} turn: take 1 to {self.most} from one heap"
        return TakeAwayView(
            game="takeaway", viewer=viewer, players=self.seats, to_move=self.to_move(), over=self.is_over(),
            scores=self.scores(), winners=self.winners(), status=status, last_action=self.last_action,
            heaps=self.heaps, most=self.most,
        )

    def _apply(self, seat: int, move: str) -> TakeAwayState:
        heap, count = self._read(move)
        heaps = list(self.heaps)
        heaps[heap] -= count
        action = f"{self.seats[seat]} took {count} from heap {heap + 1}"
        return replace(self, heaps=tuple(heaps), turn=1 - seat, ply=self.ply + 1, last_action=action)

    def _read(self, move: str) -> tuple[int, int]:
        """(heap index, count) of a legal move; RuleError in one line otherwise."""
        found = MOVE.fullmatch(move.strip())
        if found is None:
            raise RuleError(f"a move is HEAP-COUNT, such as 1-2, not {move!r}")
        heap, count = int(found.group(1)) - 1, int(found.group(2))
        if not 0 <= heap < len(self.heaps):
            raise RuleError(f"there is no heap {heap + 1}: the heaps are 1 to {len(self.heaps)}")
        if not 1 <= count <= self.most:
            raise RuleError(f"take 1 to {self.most} counters, not {count}")
        if count > self.heaps[heap]:
            raise RuleError(f"heap {heap + 1} has {self.heaps[heap]} counters, not {count}")
        return heap, count

    def normalise_move(self, seat: int, move: str) -> str:
        heap, count = self._read(move)
        return f"{heap + 1}-{count}"

    def random_move(self, seat: int, rng: random.Random) -> str:
        heap = rng.choice([index for index, size in enumerate(self.heaps) if size])
        return f"{heap + 1}-{rng.randint(1, min(self.most, self.heaps[heap]))}"


class TakeAway(Game):
    name = "takeaway"
    option_specs = (
        # A list of numbers is a kind of option like any other: the CLI, the setup form and records take it.
        OptionSpec(
            "heaps", IntList(min_items=1, max_items=9), (7, 7, 7), "the counters in each heap at the start",
            minimum=1, maximum=30,
        ),
        OptionSpec("max_take", INT, 3, "the most counters one move takes", minimum=1, maximum=9),
    )
    presets = (Preset("--small", {"heaps": (10,)}, "one heap of 10"),)

    def _new(self, options: dict[str, Any], seats: tuple[str, ...], seed: int) -> TakeAwayState:
        return TakeAwayState(seats=seats, seed=seed, options=options, heaps=tuple(options["heaps"]))

    def rules_text(self) -> str:
        return RULES


RULES = """\
# Take-away

*The template game of termgames. Two players.*

There are heaps of counters (3 heaps of 7 unless `--heaps`, such as `--heaps 3,4,5`, says otherwise). On
your turn take 1 to 3 counters (`--max-take`) from one heap. Whoever takes the last counter wins.

## Notation

A move is `HEAP-COUNT`: `2-3` takes three counters from the second heap.
"""
