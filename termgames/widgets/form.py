"""Form fields whose keys land in the order they were typed."""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class OrderedInput(Input):
    """An ``Input`` that runs its own key bindings (Backspace, Delete, the arrows...) as the keys come.

    Textual's ``Input`` inserts a typed character at once but lets every other key go round the app first to
    find its binding: keys that arrive together (a quick typist, a paste, a slow link) then land out of order.
    Backspace then 3 on "0" left the field empty, "3" typed before the Backspace that was meant to come first.
    """

    async def _on_key(self, event: events.Key) -> None:
        if not event.is_printable:
            for binding in self._bindings.key_to_bindings.get(event.key, ()):
                if await self.app.run_action(binding.action, self):
                    event.stop()
                    event.prevent_default()
                    return
        await super()._on_key(event)
