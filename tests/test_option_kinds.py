"""Option kinds as types: each kind parses, checks, writes, edits and samples its values by itself.

The games' own options are round-tripped by tests/test_game_contract.py; here each kind's edges, the kinds no
game of today uses (a list of numbers, a short text) and a kind a game declares in its own module, through the
same Game methods the CLI, the setup form and records call.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import pytest

from termgames.games import GameDescriptor
from termgames.rules import RuleError
from termgames.rules.base import Game, State
from termgames.rules.options import CHOICE, FLOAT, INT, SWITCH, IntList, OptionKind, OptionSpec, ShortText


class Parity(OptionKind):
    """A kind of the test's own: ``odd`` or ``even``, stored as 1 or 0 -- no front end knows of it."""

    widget = "select"

    def parse(self, spec: OptionSpec, value: Any, flag: str) -> int:
        if value in (0, 1) and not isinstance(value, bool):
            return int(value)
        words = {"even": 0, "odd": 1}
        if str(value).lower() not in words:
            raise RuleError(f"{flag} is odd or even, not {value!r}")
        return words[str(value).lower()]

    def metavar(self, spec: OptionSpec) -> str:
        return "odd|even"

    def text(self, spec: OptionSpec, value: Any) -> str:
        return "odd" if value else "even"

    def edges(self, spec: OptionSpec) -> list[Any]:
        return [0, 1]

    def random_value(self, spec: OptionSpec, rng: random.Random) -> int:
        return rng.randint(0, 1)


class Heaps(Game):
    """Options only: the Game methods under test never reach a state."""

    name = "heaps"
    option_specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec("heaps", IntList(min_items=1, max_items=6), (3, 4, 5), "the heaps' sizes", minimum=1, maximum=20),
        OptionSpec("max_take", INT, 3, "take at most K", minimum=1, maximum=9),
        OptionSpec("ratio", FLOAT, 0.5, "a ratio", minimum=0.0, maximum=1.0),
        OptionSpec("misere", SWITCH, False, "who takes last loses"),
        OptionSpec("order", CHOICE, "left", "who starts", choices=("left", "right")),
        OptionSpec("label", ShortText(max_length=12), "plain", "a label"),
        OptionSpec("parity", Parity(), 0, "a parity"),
    )

    def _new(self, options: dict[str, Any], seats: tuple[str, ...], seed: int) -> State:
        raise NotImplementedError  # never called: these tests stop at the options

    def rules_text(self) -> str:
        return ""


@pytest.fixture
def game() -> Heaps:
    return Heaps(GameDescriptor("heaps", "Heaps", "Take from heaps.", "tests.test_option_kinds:Heaps"))


def test_every_kind_round_trips_through_flags_the_form_and_json(game: Heaps) -> None:
    rng = random.Random(3)
    sets = [game.default_options()]
    sets += [game.check_options({spec.name: value}) for spec in game.option_specs for value in spec.kind.edges(spec)]
    sets += [
        game.check_options({spec.name: spec.kind.random_value(spec, rng) for spec in game.option_specs})
        for _ in range(20)
    ]
    for options in sets:
        assert game.parse_cli_options(game.option_flags(options)) == options
        form = {spec.name: spec.form_value(options[spec.name]) for spec in game.option_specs}
        assert game.options_from_form(form) == options
        as_json = {name: list(value) if isinstance(value, tuple) else value for name, value in options.items()}
        assert game.check_options(as_json) == options  # a record's JSON makes a list of the tuple


def test_a_list_of_numbers(game: Heaps) -> None:
    assert game.parse_cli_options(["--heaps", "7, 1,2"])["heaps"] == (7, 1, 2)
    assert game.option_flags(game.check_options({"heaps": [1, 2]})) == ["--heaps", "1,2"]
    for words, message in [
        (["--heaps", "3,x"], "--heaps needs a whole number, not 'x'"),
        (["--heaps", "3,21"], "--heaps must be at most 20, not 21"),
        (["--heaps", "1,1,1,1,1,1,1"], "--heaps takes 1 to 6 numbers, not 7"),
        (["--heaps", ""], "--heaps takes 1 to 6 numbers, not 0"),
        (["--heaps", "3,٣"], "ASCII digits"),
        (["--heaps", "9" * 400], "--heaps takes at most 6 numbers"),
    ]:
        with pytest.raises(RuleError, match=message):
            game.parse_cli_options(words)
    with pytest.raises(RuleError, match="needs whole numbers separated by commas"):
        game.check_options({"heaps": 5})


def test_a_short_text(game: Heaps) -> None:
    assert game.parse_cli_options(["--label", "best of 3"])["label"] == "best of 3"
    for value, message in [("x" * 13, "at most 12 characters"), ("a\x1b[2J", r"printable"), (" pad", "printable")]:
        with pytest.raises(RuleError, match=message):
            game.check_options({"label": value})
    with pytest.raises(RuleError) as refused:
        game.check_options({"label": "\x1b]0;owned\x07"})
    assert "\x1b" not in str(refused.value)  # the refusal itself is safe to print


def test_help_and_form_ask_the_kind(game: Heaps) -> None:
    specs = {spec.name: spec for spec in game.option_specs}
    assert specs["heaps"].usage == "--heaps N,N,..."
    assert specs["heaps"].help_line() == "the heaps' sizes; 1 to 6 numbers, each 1 to 20 (default: 3,4,5)"
    assert specs["misere"].usage == "--misere" and specs["misere"].help_line() == "who takes last loses"
    assert specs["order"].usage == "--order left|right"
    assert specs["parity"].usage == "--parity odd|even"
    assert specs["parity"].help_line() == "a parity (default: even)"
    assert [spec.kind.widget for spec in game.option_specs] == [
        "text", "integer", "number", "switch", "select", "text", "select",
    ]
    assert specs["max_take"].kind.form_help(specs["max_take"]) == "take at most K (1-9)"
    assert specs["heaps"].kind.largest(specs["heaps"]) == (20,) * 6
    assert specs["order"].kind.largest(specs["order"]) is None


def test_a_games_own_kind_goes_through_the_cli(game: Heaps) -> None:
    options = game.parse_cli_options(["--parity", "odd", "--misere"])
    assert options["parity"] == 1 and options["misere"] is True
    assert game.option_flags(options) == ["--misere", "--parity", "odd"]
    with pytest.raises(RuleError, match="--parity is odd or even, not 'three'"):
        game.parse_cli_options(["--parity", "three"])


def test_a_refused_value_is_named_short(game: Heaps) -> None:
    """A 5,000-digit number or a long list is quoted cut short: the refusal stays one short line."""
    for words in (["--max-take", "9" * 5000], ["--label", "\x1b[2J" * 1000]):
        with pytest.raises(RuleError) as refused:
            game.parse_cli_options(words)
        assert len(str(refused.value)) < 200 and "\n" not in str(refused.value) and "\x1b" not in str(refused.value)
    with pytest.raises(RuleError, match=r"characters\)$"):
        game.check_options({"max_take": [1] * 100})
