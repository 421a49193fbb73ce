"""The time a computer player may think, where the bots import it from: :mod:`termgames.deadline`.

The deadline itself lives in the ground layer so that the analysis contract (:mod:`termgames.analysis`), which
the analysts in this package implement, can name it without importing this package (no import loop).
"""

from __future__ import annotations

from ..deadline import SEARCH_SHARE, TIME_CAP, Clock, Deadline, deadline_for

__all__ = ["SEARCH_SHARE", "TIME_CAP", "Clock", "Deadline", "deadline_for"]
