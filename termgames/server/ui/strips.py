"""Textual's lines (``Strip``) make their caches when first used, not all seven at once.

Every ``Strip`` Textual makes (a widget's line, each crop and style of it)
made seven small caches as it was built, about 136 bytes each when empty, and
most are never used: five apps watching a Mono table held 4,347 lines, 2,302
of them with no cache used and the rest with one or two.  Here the caches are
made when first read (Textual's ``Content`` already does so): an app watching
a table holds 0.7 MB less (2.5 -> 1.8 MB of Python objects), one in the lobby
0.17 MB less, and in process a sign-in took a fifth less processor and a
move's redraws a quarter less (30 apps each drawing its own screen).

Textual is pinned to a minor version (pyproject.toml); :func:`make_strip_caches_lazy`
checks that ``Strip`` still has the slots and the ``__init__`` this replaces,
and leaves it alone if not (a test fails then, so the check is looked at
again with the new version).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any

from rich.segment import Segment
from textual.cache import FIFOCache
from textual.strip import Strip

#: The caches a ``Strip`` made in its ``__init__`` (Textual 8.2), with their sizes.
CACHE_SIZES = {
    "_divide_cache": 4,
    "_crop_cache": 16,
    "_style_cache": 16,
    "_filter_cache": 4,
    "_line_length_cache": 4,
    "_crop_extend_cache": 4,
    "_offsets_cache": 4,
}
#: The other attributes Textual 8.2's ``Strip.__init__`` sets (and nothing else).
PLAIN_SLOTS = ("_segments", "_cell_length", "_render_cache", "_link_ids", "_cell_count")


def _lazy_cache(name: str, size: int) -> property:
    slot = Strip.__dict__[name]

    def get(strip: Strip) -> FIFOCache[Any, Any]:
        try:
            cache: FIFOCache[Any, Any] = slot.__get__(strip, Strip)
        except AttributeError:
            cache = FIFOCache(size)
            slot.__set__(strip, cache)
        return cache

    return property(get, slot.__set__, doc=f"Strip.{name}, made when first used")


def _strip_init(self: Strip, segments: Iterable[Segment], cell_length: int | None = None) -> None:
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def strip_is_as_expected() -> bool:
    """Whether ``Strip`` is the class this module knows: its slots, and an ``__init__`` setting just those."""
    if getattr(Strip, "_termgames_lazy_caches", False):
        return True
    if set(Strip.__slots__) != set(CACHE_SIZES) | set(PLAIN_SLOTS):
        return False
    source = inspect.getsource(Strip.__init__)
    return all(f"self.{name}" in source for name in (*CACHE_SIZES, *PLAIN_SLOTS)) and all(
        f"FIFOCache({size})" in source for size in set(CACHE_SIZES.values())
    )


def make_strip_caches_lazy() -> bool:
    """Give ``Strip`` caches made on first use (once a process; idempotent); False if Textual's ``Strip`` is not
    the one this knows, and then it is left as it is."""
    if getattr(Strip, "_termgames_lazy_caches", False):
        return True
    if not strip_is_as_expected():
        return False
    for name, size in CACHE_SIZES.items():
        setattr(Strip, name, _lazy_cache(name, size))
    Strip.__init__ = _strip_init  # type: ignore[method-assign]  # the caches are made by their properties
    Strip._termgames_lazy_caches = True  # type: ignore[attr-defined]  # a mark on the class: done once
    return True
