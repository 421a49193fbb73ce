"""The footer of every screen: Textual's own, built again only when the keys it shows change.

Textual's :class:`~textual.widgets.Footer` throws its keys away and composes
new ones (a dozen widgets, each styled and mounted) whenever its screen
publishes ``bindings_updated``, which ``Screen.refresh_bindings`` does whether
or not anything changed.  A game screen refreshes its bindings when the turn
passes (the act key comes and goes), so over SSH every screen at a table did
that at every move, spectators too: it was most of the server's CPU for a move
(``bench/serve_latency.py --profile``).  This footer remembers the keys it was
composed from (binding, enabled, tooltip: what Textual's compose reads) and
skips a refresh that would draw the same ones.

It also keeps each key whole: Textual's footer clips its last key where the
terminal ends (at 60 columns Mono's read "r Rando"), so keys that would run
past the right edge are left out from the end, but never the help and the way
out (a replay lists Quit last): the ``?`` help lists every key.
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey  # the class Textual's compose yields (no public name)

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.screen import Screen

#: What a footer shows: each key's binding, whether it is enabled, its tooltip.
ShownKeys = tuple[tuple[str, Binding, bool, str], ...]


def shown_keys(footer: TextualFooter, screen: Screen[object]) -> ShownKeys:
    """The keys ``footer`` shows on ``screen`` now: the bindings Textual's compose reads, as a comparable value."""
    palette_key = footer.app.COMMAND_PALETTE_BINDING if footer.show_command_palette else None
    return tuple(
        (key, binding, enabled, tooltip)
        for key, (_node, binding, enabled, tooltip) in screen.active_bindings.items()
        if binding.show or key == palette_key
    )


class Footer(TextualFooter):
    """Textual's footer, composed again only when what it shows changes, each key whole or left out."""

    #: The keys a footer keeps whatever its width: what explains the others, and leaving.
    KEPT_ACTIONS = frozenset({"help", "quit_game", "leave", "quit", "app.quit"})

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]  # Textual's own arguments, passed through
        #: The keys of the last composition (None: none yet, or composed before the bindings were ready).
        self._composed_keys: ShownKeys | None = None

    def compose(self) -> ComposeResult:
        # Textual's compose yields nothing until the first bindings_changed: remember only real compositions.
        self._composed_keys = shown_keys(self, self.screen) if self._bindings_ready else None
        for widget in super().compose():
            for key in [widget, *widget.children] if isinstance(widget, Widget) else []:
                if isinstance(key, FooterKey):
                    # A new key starts compact (its class default) and is then bound to the footer's ``compact``:
                    # two restylings of the key each time, set_class and all.  Given the footer's value first
                    # (set_reactive: no watcher), it has nothing to change at mount.
                    key.set_reactive(FooterKey.compact, self.compact)
            yield widget

    def bindings_changed(self, screen: Screen[object]) -> None:
        if (
            self._composed_keys is not None
            and self.is_attached
            and screen is self.screen
            and screen.app.app_focus
            and shown_keys(self, screen) == self._composed_keys
        ):
            return  # the same keys as drawn: a new composition would look the same
        super().bindings_changed(screen)

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
