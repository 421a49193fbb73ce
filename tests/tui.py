"""Helpers shared by the Pilot tests of the game screens."""

from __future__ import annotations


def board_text(app) -> str:
    """The board of the current game screen as its lines of text."""
    return "\n".join(app.screen.board.text_lines())


async def settle(pilot, rounds: int = 20):
    """Let workers (AI moves, hints) finish and the screen catch up."""
    for _ in range(rounds):
        await pilot.pause(0.02)


def panel_text(screen, name: str) -> str:
    """One of the side panel's texts (status, legend, scores, last-action) of a game screen, as plain text."""
    from termgames.widgets.panel import PanelTexts

    return screen.query_one(PanelTexts).text(name)
