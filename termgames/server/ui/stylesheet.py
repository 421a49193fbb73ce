"""One parse of the CSS for every app of the server process.

Textual parses an app's CSS (its ``app.tcss`` and every widget's ``DEFAULT_CSS``)
when the app starts, into rule sets kept by that app alone: the server, one app
per terminal, parsed the same text hundreds of times, about a fifth of the
processor a sign-in took, and held as many copies of the same rule sets.

Parsed rule sets depend on nothing but the CSS text, where it was read from and
the theme's variables, and nothing changes them once parsed (a node's styles
are its own, merged from the rules), so apps with the same variables (the same
theme) share them here.  A theme change sets other variables: that app's CSS is
parsed again, and shared with the apps of that theme.
"""

from __future__ import annotations

from typing import ClassVar

from textual.cache import LRUCache
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation

#: Parsed CSS sources kept for all apps: a source (app.tcss, a widget's default CSS) for each theme in use.
SHARED_SOURCES = 1024

ParseKey = tuple[tuple[tuple[str, str], ...], str, CSSLocation, bool, int, str]


class SharedStylesheet(Stylesheet):
    """A stylesheet whose parsed sources are the process's, shared with every app of the same theme."""

    _shared: ClassVar[LRUCache[ParseKey, list[RuleSet]]] = LRUCache(SHARED_SOURCES)

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._variables_key: tuple[tuple[str, str], ...] | None = None

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._variables_key = None

    def copy(self) -> Stylesheet:
        stylesheet = SharedStylesheet(variables=self._variables.copy())
        stylesheet.source = self.source.copy()
        return stylesheet

    def _parse_rules(
        self,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        if self._variables_key is None:
            self._variables_key = tuple(sorted(self._variables.items()))
        key: ParseKey = (self._variables_key, css, read_from, is_default_rules, tie_breaker, scope)
        try:
            return self._shared[key]
        except KeyError:
            pass
        rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
        self._shared[key] = rules
        return rules
