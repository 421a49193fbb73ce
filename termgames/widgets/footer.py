"""The footer of every screen, each key whole: what does not fit the terminal's width is left out, not cut."""

from __future__ import annotations

from itertools import pairwise

from textual.widget import Widget
from textual.widgets import Footer


class FittingFooter(Footer):
    """Textual's footer, less the keys that would run past its right edge (the ``?`` help lists every key).

    Textual's footer clips its last key where the terminal ends: at 60 columns Mono's read "r Rando".
    Keys are left out from the end, but never the help and the way out (a replay lists Quit last), each
    time the footer lays its keys out again: when the bindings change and when the terminal's size does.
    """

    #: The keys a footer keeps whatever its width: what explains the others, and leaving.
    KEPT_ACTIONS = frozenset({"help", "quit_game", "leave", "quit", "app.quit"})

    async def recompose(self) -> None:
        await super().recompose()
        self.fit()

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """Every key shown and laid out; then the ones that do not fit are left out."""
        keys = list(self.children)
        for key in keys:
            key.display = True
        self.call_after_refresh(self._leave_out, keys)

    def _leave_out(self, keys: list[Widget]) -> None:
        if not self.is_attached or not keys or not all(key.is_attached for key in keys):
            return
        # Each key's width is the step to the next one (its margin included); the grid closes the gaps left.
        widths = [after.region.x - key.region.x for key, after in pairwise(keys)] + [keys[-1].region.width]
        room = self.content_region.right - keys[0].region.x
        used = sum(widths)
        for key, width in reversed(list(zip(keys, widths))):
            if used <= room:
                break
            if getattr(key, "action", None) not in self.KEPT_ACTIONS:
                key.display = False
                used -= width
