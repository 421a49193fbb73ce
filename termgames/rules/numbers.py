"""Counts of any size: exact in JSON and records, short on screens, never through ``float``.

Monad's unit counts grow without bound (units given BUILD on their hive
multiply by about 1.2 a turn): past 1.8e308 ``float()`` of one raises
OverflowError, and past 4,300 digits Python will not even write one out.  Scores
and counts stay ``int`` everywhere; what a player reads is made short here.

Pure Python: the rules and every front end import it.
"""

from __future__ import annotations

import re

#: Digits a line of text (a status, a turn's log, ``show``) writes out exactly; longer counts are shortened.
EXACT_DIGITS = 12
#: log10(2): a count's number of digits from its bit length, with no str() of a huge int.
_LOG10_2 = 0.30102999566398120
_LONG_NUMBER = re.compile(rf"[0-9]{{{EXACT_DIGITS + 1},}}")


def exact_number(value: float) -> int | float:
    """A score as JSON writes it: an int stays the same int (of any size), a whole float becomes an int."""
    if isinstance(value, int):
        return int(value)  # a bool becomes 0 or 1
    return int(value) if value.is_integer() else value


def score_text(score: float) -> str:
    """A score for a line of text: whole scores without ``.0``, a count of hundreds of digits written short."""
    number = exact_number(score)
    return short_number(number) if isinstance(number, int) else str(number)


def _exponent(number: int) -> int:
    """floor(log10(number)) of a positive int, exactly (from its bit length, then corrected)."""
    exponent = max(0, int((number.bit_length() - 1) * _LOG10_2))
    while 10 ** (exponent + 1) <= number:
        exponent += 1
    while exponent > 0 and 10**exponent > number:
        exponent -= 1
    return exponent


def _scientific(number: int, decimals: int) -> str:
    """``number`` (at least 10) as ``1.234e309``: its leading digits (cut, not rounded) and its exponent."""
    exponent = _exponent(number)
    lead = number // 10 ** max(0, exponent - decimals)
    digits = str(lead)
    return f"{digits[0]}.{digits[1:]}e{exponent}" if decimals else f"{digits[0]}e{exponent}"


def short_number(number: int, digits: int = EXACT_DIGITS) -> str:
    """A count for a line of text: exact up to ``digits`` digits, then ``1.234e309`` (never a 300-digit run)."""
    if -(10**digits) < number < 10**digits:
        return str(number)
    if number < 0:
        return "-" + short_number(-number, digits)
    return _scientific(number, 3)


def short_numbers(text: str) -> str:
    """``text`` with every run of more than :data:`EXACT_DIGITS` digits written short (a move, a dropped command)."""
    if len(text) <= EXACT_DIGITS or not _LONG_NUMBER.search(text):
        return text
    return _LONG_NUMBER.sub(lambda found: _short_digits(found.group()), text)


def _short_digits(digits: str) -> str:
    """A run of digits as :func:`short_number` writes its number (read as text: it may be too long for int())."""
    significant = digits.lstrip("0") or "0"
    if len(significant) <= EXACT_DIGITS:
        return significant
    return f"{significant[0]}.{significant[1:4]}e{len(significant) - 1}"


def short_count(number: int) -> str:
    """A count of any size in a few characters (a narrow panel): 9999, 12.3k, 4.5M, 7.8G, then 1.2e15."""
    if number < 10_000:
        return str(number)
    for size, suffix in ((10**9, "G"), (10**6, "M"), (10**3, "k")):
        if number < size * 1000 and number >= size:
            return f"{number / size:.1f}{suffix}"
    if number.bit_length() < 3000:
        return _scientific(number, 1)
    return f"~1e{int(number.bit_length() * _LOG10_2)}"
