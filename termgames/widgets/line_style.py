"""The widget style of a Line-API widget, worked out once for each batch of lines Textual draws."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.style import Style
from textual.geometry import Region, Size
from textual.strip import Strip

if TYPE_CHECKING:
    from textual.widget import Widget

    _MixedInto = Widget  # the type checker reads the mixin as the widget it is mixed into
else:
    _MixedInto = object


class StylePerPass(_MixedInto):
    """Mixin for widgets drawn line by line: ``line_style`` is the widget's ``rich_style``, ``line_size`` its size.

    ``rich_style`` walks every ancestor; asking once per ``render_lines`` pass
    instead of once per line halved that cost in the SSH bench's profile.
    """

    _pass_style: Style | None = None
    _pass_size: Size | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        self._pass_style = self.rich_style
        self._pass_size = self.scrollable_content_region.size
        try:
            return super().render_lines(crop)
        finally:
            self._pass_style = None
            self._pass_size = None

    @property
    def line_style(self) -> Style:
        return self._pass_style if self._pass_style is not None else self.rich_style

    @property
    def line_size(self) -> Size:
        """The size the lines are drawn in (the content's, less any scroll bar), once a pass too: working
        it out finds the widget on its screen, again for every line."""
        return self._pass_size if self._pass_size is not None else self.scrollable_content_region.size
