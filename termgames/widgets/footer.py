"""The footer of every screen, each key whole: what does not fit the terminal's width is left out, not cut."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Footer


class FittingFooter(Footer):
    """Textual's footer, less the keys that would run past its right edge (the ``?`` help lists every key).

    Textual's footer clips its last key where the terminal ends: at 60 columns Mono's read "r Rando".
    Keys are dropped from the end (screens list the keys that matter most first), each time the footer
    lays its keys out again: when the bindings change and when the terminal's size does.
    """

    async def recompose(self) -> None:
        await super().recompose()
        self.fit()

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """Every key shown, laid out, then those past the edge (and the ones after them) left out."""
        keys = list(self.children)
        for key in keys:
            key.display = True
        self.call_after_refresh(self._leave_out_past_edge, keys)

    def _leave_out_past_edge(self, keys: list[Widget]) -> None:
        if not self.is_attached:
            return
        right = self.content_region.right
        past = False
        for key in keys:
            past = past or key.region.right > right
            if past and key.display:
                key.display = False
