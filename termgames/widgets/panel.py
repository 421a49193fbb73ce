"""The side panel beside every board: status, legend, scores, last action, move log."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from ..rules import View
from .move_log import MoveLog


def scores_text(view: View) -> str:
    parts = []
    for seat, name in enumerate(view.players):
        score = view.scores[seat]
        shown = int(score) if float(score).is_integer() else score
        marker = ">" if seat in view.to_move else " "
        parts.append(f"{marker} {name}: {shown}")
    return "\n".join(parts)


def update_if_changed(static: Static, content: Text | str, grow_only: bool = False) -> None:
    """Update ``static`` only when its content changes, and lay the screen out again only when its size does.

    A server redraws every screen at a table for each move on one event loop: a
    layout there costs as much as the repaint itself, and most updates (a score,
    a status of the same height) keep every widget where it was.  With
    ``grow_only`` the box keeps the tallest height it has had (blank lines under
    a shorter text): the side panel's texts change height back and forth as a
    turn goes on, and the log below them then stays put instead of the whole
    screen being laid out again at each move.
    """
    if getattr(static, "_shown_content", None) == content:
        return
    static._shown_content = content  # type: ignore[attr-defined]  # our own mark on Textual's Static
    if not static.is_mounted or static.size.area == 0:
        static.update(content)
        return
    static.update(content, layout=False)
    size = static.content_size
    width = static.styles.width
    if width is not None and width.is_auto:
        # A width that follows the content (a line centred under a board): laid out again only if it changes.
        parent = static.parent
        container = parent.content_size if isinstance(parent, Widget) else size
        if static.get_content_width(container, container) != size.width:
            static.refresh(layout=True)
            return
    height = static.get_content_height(size, size, size.width)
    max_height = static.styles.max_height
    if max_height is not None and max_height.is_cells:
        height = min(height, int(max_height.value))
    if height == size.height or (grow_only and height < size.height):
        return
    if grow_only:
        static.styles.min_height = height  # lays the screen out, once for each new tallest height
    else:
        static.refresh(layout=True)


class SidePanel(Vertical):
    """Attributes down: the screen calls ``show`` with a view and what else to say."""

    def compose(self) -> ComposeResult:
        # The texts above the log, one box: in the narrow layout the log stands beside it, not under it.
        with Vertical(id="panel-info"):
            yield Static("", id="status")
            yield Static("", id="legend")
            yield Static("", id="scores")
            yield Static("", id="last-action")
        yield MoveLog(id="move-log")

    def show(
        self,
        view: View,
        status: Text | str,
        legend: Text | None = None,
        log_view: View | None = None,
        highlight_ply: int | None = None,
        follow_log: bool = True,
    ) -> None:
        status = Text(status, style="bold") if isinstance(status, str) else status
        update_if_changed(self.query_one("#status", Static), status, grow_only=True)
        update_if_changed(self.query_one("#legend", Static), legend or "", grow_only=True)
        update_if_changed(self.query_one("#scores", Static), scores_text(view), grow_only=True)
        update_if_changed(
            self.query_one("#last-action", Static), Text(view.last_action, style="italic"), grow_only=True
        )
        self.query_one(MoveLog).show(log_view or view, highlight_ply, follow=follow_log)
