"""Form fields: keys that land in the order they were typed, a checkbox whose box says its state."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.content import Content
from textual.widgets import Checkbox, Input


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


class TickBox(Checkbox):
    """A checkbox whose box is empty when it is off: Textual's draws an X in both states, told apart by colour
    alone (an "X off" read as ticked).  The label says "on" or "off" too."""

    def __init__(self, value: bool = False, **kwargs: Any) -> None:
        super().__init__(self.word(value), value=value, **kwargs)

    @staticmethod
    def word(value: bool) -> str:
        return "on" if value else "off"

    @property
    def _button(self) -> Content:
        self.BUTTON_INNER = "X" if self.value else " "
        return super()._button

    def watch_value(self) -> None:
        self.label = self.word(self.value)
