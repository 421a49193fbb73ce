"""A game's options as data: each option's spec, and each kind of option as a type of its own.

An :class:`OptionSpec` names one option of a game (``--size 9``); its ``kind``
is an :class:`OptionKind` that knows everything that differs between kinds:
how a value is read from the command line, a form or a record and checked,
how it is written back as flags, what the setup form edits it with, what
help says of its range, and which values the contract tests try.  The CLI,
the setup form, records, the server's ``challenge`` and the ladder ask the
kind; none of them switches on it, so a game may declare a kind of its own
(a subclass of :class:`OptionKind` in its own modules) and every front end
takes it.

The built-in kinds are :data:`INT`, :data:`FLOAT`, :data:`SWITCH`,
:data:`CHOICE`, :class:`IntList` (``--heaps 3,4,5``) and :class:`ShortText`.

Pure Python: the rules layer imports it.
"""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import RuleError
from ..untrusted import QUOTE_MAX, quoted

# --------------------------------------------------------------------------
# Kinds
# --------------------------------------------------------------------------


class OptionKind(ABC):
    """What one kind of option does: parse, check, write, edit in a form, describe, sample.

    Every method gets the option's :class:`OptionSpec` (its bounds and
    choices live there); a kind itself holds only what is the same for all of
    its options (a list's length bounds, a text's longest length).
    """

    #: The setup form's input for this kind: ``"select"`` (one of ``spec.choices``), ``"switch"`` (on or off),
    #: ``"integer"``, ``"number"`` or ``"text"`` (a line of text).
    widget: ClassVar[str] = "text"
    #: False for a switch: its flag alone turns it on (``--no-auto``), ``--no-auto=off`` turns it off.
    takes_value: ClassVar[bool] = True

    @abstractmethod
    def parse(self, spec: OptionSpec, value: Any, flag: str) -> Any:
        """``value`` (text from the CLI or a form, JSON from a record) as this kind's value, checked against
        ``spec``'s bounds; RuleError naming ``flag`` when it is none."""

    def metavar(self, spec: OptionSpec) -> str:
        """How help shows the value a flag takes: ``N``, ``hexagon|rhombus``."""
        return "N"

    def text(self, spec: OptionSpec, value: Any) -> str:
        """``value`` written as the flag's value (what :meth:`parse` reads back)."""
        return str(value)

    def write(self, spec: OptionSpec, value: Any) -> list[str]:
        """The command-line words that set ``value``."""
        return [spec.flag, self.text(spec, value)]

    def range_text(self, spec: OptionSpec) -> str:
        """What values are allowed, for help (``3 to 15``); empty when help needs no words for it."""
        return ""

    def form_value(self, spec: OptionSpec, value: Any) -> Any:
        """What the setup form's input holds for ``value``."""
        return self.text(spec, value)

    def from_form(self, spec: OptionSpec, raw: Any) -> Any:
        """The form input's value back as an option value (RuleError when it makes none)."""
        text = str(raw).strip()
        if not text:
            raise RuleError(f"{spec.label} needs a value")
        return self.parse(spec, text, spec.flag)

    def form_help(self, spec: OptionSpec) -> str:
        """The help the setup form shows beside the input."""
        bounds = self.range_text(spec)
        return f"{spec.help} ({bounds})" if bounds else spec.help

    @abstractmethod
    def edges(self, spec: OptionSpec) -> list[Any]:
        """Values at the edges of what is allowed, and one past the default: the contract tests try each."""

    @abstractmethod
    def random_value(self, spec: OptionSpec, rng: random.Random) -> Any:
        """Any allowed value, for the contract tests' random option sets."""

    def largest(self, spec: OptionSpec) -> Any | None:
        """The value that makes the largest game (the ladder's timing runs), or None when there is no such."""
        return None


def _shown(value: Any) -> str:
    """A refused value as the one-line error names it: quoted, escaped and cut short (a 5,000-digit number, a
    text of control characters)."""
    if isinstance(value, str):
        return quoted(value)
    text = repr(value)
    return text if len(text) <= QUOTE_MAX else quoted(text)


def _bounded(spec: OptionSpec, number: float, flag: str) -> None:
    if spec.minimum is not None and number < spec.minimum:
        raise RuleError(f"{flag} must be at least {spec.minimum}, not {number}")
    if spec.maximum is not None and number > spec.maximum:
        raise RuleError(f"{flag} must be at most {spec.maximum}, not {number}")


def _plain(number: float) -> str:
    """3 for 3.0, 0.5 for 0.5: how a bound reads in help and errors."""
    return str(int(number)) if float(number).is_integer() else str(number)


def _whole(value: Any, flag: str) -> int:
    """``value`` as a whole number, refused as a player would read it."""
    if isinstance(value, bool):
        raise RuleError(f"{flag} needs a whole number")
    if isinstance(value, float) and not value.is_integer():
        raise RuleError(f"{flag} needs a whole number, not {_shown(value)}")
    if isinstance(value, str) and not value.isascii():
        # int() reads every script's digits (int("٣") is 3); players write ASCII ones.
        raise RuleError(f"{flag} needs a whole number in ASCII digits, not {quoted(value)}")
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        raise RuleError(f"{flag} needs a whole number, not {_shown(value)}") from None


class _Number(OptionKind):
    """What whole and real numbers share: bounds in help and in checks, the largest game at the maximum."""

    def range_text(self, spec: OptionSpec) -> str:
        if spec.minimum is not None and spec.maximum is not None:
            return f"{_plain(spec.minimum)} to {_plain(spec.maximum)}"
        if spec.minimum is not None:
            return f"at least {_plain(spec.minimum)}"
        if spec.maximum is not None:
            return f"at most {_plain(spec.maximum)}"
        return ""

    def form_help(self, spec: OptionSpec) -> str:
        # the form's column is narrow: "3-15" where help says "3 to 15"
        if spec.minimum is None:
            return spec.help
        return f"{spec.help} ({spec.minimum}-{spec.maximum})"

    def from_form(self, spec: OptionSpec, raw: Any) -> Any:
        text = str(raw).strip()
        if not text:
            raise RuleError(f"{spec.label} needs a number")
        return self.parse(spec, text, spec.flag)

    def edges(self, spec: OptionSpec) -> list[Any]:
        values = [value for value in (spec.minimum, spec.maximum) if value is not None]
        after = spec.default + 1
        if spec.maximum is None or after <= spec.maximum:
            values.append(after)
        return values

    def largest(self, spec: OptionSpec) -> Any | None:
        return spec.maximum


class IntKind(_Number):
    """A whole number: ``--size 9``."""

    widget = "integer"

    def parse(self, spec: OptionSpec, value: Any, flag: str) -> int:
        number = _whole(value, flag)
        _bounded(spec, number, flag)
        return number


    def random_value(self, spec: OptionSpec, rng: random.Random) -> int:
        low = int(spec.minimum) if spec.minimum is not None else spec.default - 5
        high = min(int(spec.maximum) if spec.maximum is not None else spec.default + 5, low + 40)
        return rng.randint(low, high)


class FloatKind(_Number):
    """A real number: ``--obstacles 0.1``."""

    widget = "number"

    def parse(self, spec: OptionSpec, value: Any, flag: str) -> float:
        if isinstance(value, bool):
            raise RuleError(f"{flag} needs a number")
        if isinstance(value, str) and not value.isascii():
            raise RuleError(f"{flag} needs a number in ASCII digits, not {quoted(value)}")
        try:
            real = float(value)
        except (TypeError, ValueError, OverflowError):
            raise RuleError(f"{flag} needs a number such as 0.1, not {_shown(value)}") from None
        if not math.isfinite(real):
            raise RuleError(f"{flag} needs a finite number, not {_shown(value)}")
        _bounded(spec, real, flag)
        return real


    def random_value(self, spec: OptionSpec, rng: random.Random) -> float:
        low = spec.minimum if spec.minimum is not None else spec.default - 5
        high = min(spec.maximum if spec.maximum is not None else spec.default + 5, low + 40)
        return round(rng.uniform(low, high), 2)


class SwitchKind(OptionKind):
    """On or off: ``--no-auto`` (``--no-auto=off`` when the default is on)."""

    widget = "switch"
    takes_value = False

    def parse(self, spec: OptionSpec, value: Any, flag: str) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on"):
            return True
        if isinstance(value, str) and value.lower() in ("0", "false", "no", "off"):
            return False
        raise RuleError(f"{flag} is a switch and takes no value")

    def metavar(self, spec: OptionSpec) -> str:
        return ""

    def write(self, spec: OptionSpec, value: Any) -> list[str]:
        return [spec.flag if value else f"{spec.flag}=off"]

    def form_value(self, spec: OptionSpec, value: Any) -> Any:
        return bool(value)

    def from_form(self, spec: OptionSpec, raw: Any) -> Any:
        return self.parse(spec, raw, spec.flag)

    def edges(self, spec: OptionSpec) -> list[Any]:
        return [not spec.default]

    def random_value(self, spec: OptionSpec, rng: random.Random) -> bool:
        return rng.random() < 0.3


class ChoiceKind(OptionKind):
    """One of a few words: ``--shape rhombus`` (the words are ``spec.choices``)."""

    widget = "select"

    def parse(self, spec: OptionSpec, value: Any, flag: str) -> str:
        text = str(value).lower()
        if text not in spec.choices:
            raise RuleError(f"{flag} must be one of {', '.join(spec.choices)}, not {_shown(value)}")
        return text

    def metavar(self, spec: OptionSpec) -> str:
        return "|".join(spec.choices)

    def form_value(self, spec: OptionSpec, value: Any) -> Any:
        return value

    def from_form(self, spec: OptionSpec, raw: Any) -> Any:
        return self.parse(spec, raw, spec.flag)

    def edges(self, spec: OptionSpec) -> list[Any]:
        return list(spec.choices)

    def random_value(self, spec: OptionSpec, rng: random.Random) -> str:
        return rng.choice(spec.choices)


@dataclass(frozen=True)
class IntList(OptionKind):
    """Whole numbers written with commas: ``--heaps 3,4,5``; each within the spec's bounds.

    The value is a tuple (hashable and compared as one whatever a record's JSON made of it).
    """

    min_items: int = 1
    max_items: int = 12

    widget: ClassVar[str] = "text"

    def parse(self, spec: OptionSpec, value: Any, flag: str) -> tuple[int, ...]:
        if isinstance(value, str):
            if len(value) > self.max_items * 24:
                raise RuleError(f"{flag} takes at most {self.max_items} numbers")
            parts: list[Any] = [part.strip() for part in value.split(",")] if value.strip() else []
        elif isinstance(value, (list, tuple)):
            parts = list(value)
        else:
            raise RuleError(f"{flag} needs whole numbers separated by commas, such as {self.example(spec)}")
        if not self.min_items <= len(parts) <= self.max_items:
            wanted = (f"{self.min_items}" if self.min_items == self.max_items
                      else f"{self.min_items} to {self.max_items}")
            raise RuleError(f"{flag} takes {wanted} numbers, not {len(parts)}")
        numbers = tuple(_whole(part, flag) for part in parts)
        for number in numbers:
            _bounded(spec, number, flag)
        return numbers

    def example(self, spec: OptionSpec) -> str:
        return self.text(spec, spec.default)

    def metavar(self, spec: OptionSpec) -> str:
        return "N,N,..."

    def text(self, spec: OptionSpec, value: Any) -> str:
        return ",".join(str(number) for number in value)

    def range_text(self, spec: OptionSpec) -> str:
        count = f"{self.min_items} to {self.max_items} numbers"
        if spec.minimum is not None and spec.maximum is not None:
            return f"{count}, each {_plain(spec.minimum)} to {_plain(spec.maximum)}"
        return count

    def edges(self, spec: OptionSpec) -> list[Any]:
        low = int(spec.minimum) if spec.minimum is not None else 0
        high = int(spec.maximum) if spec.maximum is not None else low + 9
        return [(low,) * self.min_items, (high,) * self.max_items]

    def random_value(self, spec: OptionSpec, rng: random.Random) -> tuple[int, ...]:
        low = int(spec.minimum) if spec.minimum is not None else 0
        high = min(int(spec.maximum) if spec.maximum is not None else low + 9, low + 40)
        return tuple(rng.randint(low, high) for _ in range(rng.randint(self.min_items, self.max_items)))

    def largest(self, spec: OptionSpec) -> Any | None:
        return None if spec.maximum is None else (int(spec.maximum),) * self.max_items


@dataclass(frozen=True)
class ShortText(OptionKind):
    """A short line of text a player types (a label, a variant's name): printable, one line, ``max_length`` long.

    It reaches other players' terminals, so it is checked where it comes in as names are: no control, format
    or private characters, no leading or trailing space.
    """

    max_length: int = 24

    widget: ClassVar[str] = "text"

    def parse(self, spec: OptionSpec, value: Any, flag: str) -> str:
        if not isinstance(value, str):
            raise RuleError(f"{flag} needs a text, not {_shown(value)}")
        if len(value) > self.max_length:
            raise RuleError(f"{flag} is at most {self.max_length} characters, not {len(value)}")
        if not value.isprintable() or value != value.strip():
            raise RuleError(f"{flag} must be one line of printable characters, not {quoted(value)}")
        return value

    def metavar(self, spec: OptionSpec) -> str:
        return "TEXT"

    def from_form(self, spec: OptionSpec, raw: Any) -> Any:
        return self.parse(spec, str(raw).strip(), spec.flag)

    def range_text(self, spec: OptionSpec) -> str:
        return f"at most {self.max_length} characters"

    def edges(self, spec: OptionSpec) -> list[Any]:
        return ["x" * self.max_length]

    def random_value(self, spec: OptionSpec, rng: random.Random) -> str:
        return "".join(rng.choice("abcdefgh") for _ in range(rng.randint(1, self.max_length)))


INT = IntKind()
FLOAT = FloatKind()
SWITCH = SwitchKind()
CHOICE = ChoiceKind()


# --------------------------------------------------------------------------
# Specs, presets and compound flags
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionSpec:
    """One option of a game, shared by the CLI, the setup form, records and the server.

    ``kind`` is the option's :class:`OptionKind` (:data:`INT` for ``--size 9``,
    :data:`FLOAT`, :data:`SWITCH` for ``--no-auto``, :data:`CHOICE` for
    ``--shape rhombus``, :class:`IntList`, :class:`ShortText`, or a game's
    own).  ``overrides`` names options this one makes meaningless when it is
    on (``--random-supply`` and the counts): a command line may not give them
    together, and ``Game.check_options`` sets them to their defaults.
    """

    name: str
    kind: OptionKind
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    overrides: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def label(self) -> str:
        """The option as the setup form and its errors name it: ``no auto``."""
        return self.name.replace("_", " ")

    @property
    def usage(self) -> str:
        """The flag as help and errors list it: ``--size N``, ``--shape hexagon|rhombus``, ``--no-auto``."""
        metavar = self.kind.metavar(self)
        return f"{self.flag} {metavar}" if metavar else self.flag

    def coerce(self, value: Any, flag: str = "") -> Any:
        """Turn ``value`` (text from the CLI or a form, JSON from a record) into this option's value.

        ``flag`` is how errors name the option when it came through another
        flag (``--supply``'s counts); by default its own flag.
        """
        return self.kind.parse(self, value, flag or self.flag)

    def form_value(self, value: Any) -> Any:
        """What the setup form's input for this option holds for ``value``: text, a switch or a choice."""
        return self.kind.form_value(self, value)

    def from_form(self, raw: Any) -> Any:
        """The form input's value back as an option value (RuleError when it makes none)."""
        return self.kind.from_form(self, raw)

    def help_line(self) -> str:
        """Help's line for this option: its help, allowed values and default (``--help``, docs)."""
        text = self.help
        bounds = self.kind.range_text(self)
        if bounds:
            text += f"; {bounds}"
        if self.kind.takes_value:
            text += f" (default: {self.kind.text(self, self.default)})"
        if self.overrides:
            text += f"; replaces {', '.join('--' + name.replace('_', '-') for name in self.overrides)}"
        return text


@dataclass(frozen=True)
class Preset:
    """A CLI switch that stands for several option values (``--small`` -> ``{"size": 9}``)."""

    flag: str
    values: dict[str, Any]
    help: str


@dataclass(frozen=True)
class CompoundFlag:
    """A CLI flag whose one value stands for several options: ``--rhombus 9``, ``--supply 8,8,8``.

    The value is split at commas into one part per name in ``fills`` (each
    read by that option's spec); ``fixed`` are the other options it sets
    (``--rhombus`` sets the shape).  It cannot be combined on one command line
    with any other flag that sets one of the same options.
    """

    flag: str
    #: How help shows the value: ``N``, ``S,T,C``.
    metavar: str
    help: str
    fills: tuple[str, ...]
    fixed: dict[str, Any] = field(default_factory=dict)
    #: A value for "needs a value, e.g. ..." errors.
    example: str = ""

    @property
    def usage(self) -> str:
        return f"{self.flag} {self.metavar}"

    @property
    def sets(self) -> frozenset[str]:
        return frozenset(self.fills) | frozenset(self.fixed)

    def read(self, value: str) -> dict[str, Any]:
        """The raw option values ``value`` stands for (checked by the options' specs afterwards)."""
        parts = [part.strip() for part in value.split(",")] if len(self.fills) > 1 else [value.strip()]
        if len(parts) != len(self.fills):
            count = ("no", "one", "two", "three", "four")[len(self.fills)] if len(self.fills) < 5 else len(self.fills)
            names = ", ".join(self.fills)
            raise RuleError(f"{self.flag} needs {count} values {self.metavar} ({names}), not {_shown(value)}")
        return {**self.fixed, **dict(zip(self.fills, parts))}

    def describes(self, options: dict[str, Any], defaults: dict[str, Any]) -> bool:
        """Whether this flag is the way to write ``options`` (its fixed values hold and it changes something)."""
        if any(options.get(name) != value for name, value in self.fixed.items()):
            return False
        return any(options.get(name) != defaults.get(name) for name in self.sets)

    def write(self, options: dict[str, Any]) -> list[str]:
        return [self.flag, ",".join(str(options[name]) for name in self.fills)]
