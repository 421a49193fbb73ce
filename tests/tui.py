"""Helpers shared by the Pilot tests of the game screens."""

from __future__ import annotations

from games import PerGame


def board_text(app) -> str:
    """The board of the current game screen as its lines of text."""
    return "\n".join(app.screen.board.text_lines())


async def settle(pilot, rounds: int = 20):
    """Let workers (AI moves, hints) finish and the screen catch up."""
    for _ in range(rounds):
        await pilot.pause(0.02)


def snake_layout(regions: int) -> str:
    """A Mono layout: regions 1, 2, ... laid along the rows, each row the other way (so each is connected)."""
    from termgames.rules.mono import grid_for, label

    grid = grid_for(regions)
    values = [value for value in range(1, regions + 1) for _ in range(value)]
    cells = [
        row * grid.width + (column if row % 2 == 0 else grid.width - 1 - column)
        for row in range(grid.height)
        for column in range(grid.width)
    ]
    layout = [""] * len(cells)
    for cell, value in zip(cells, values):
        layout[cell] = label(value)
    return "".join(layout)


def panel_text(screen, name: str) -> str:
    """One of the side panel's texts (status, legend, scores, last-action) of a game screen, as plain text."""
    from termgames.widgets.panel import PanelTexts

    return screen.query_one(PanelTexts).text(name)


class Terminal:
    """What a real terminal would show of an app under ``run_test``: every update the app draws, as the bytes it
    would write, fed to a VT emulator (pyte).

    ``run_test``'s screen (``_compositor.render_strips``) is drawn whole from the widgets each time, so it cannot
    see a part of the terminal the app forgot to repaint; this can.  Attach it before the first frame::

        async with app.run_test(size=(50, 20)) as pilot:
            terminal = Terminal(app)
    """

    def __init__(self, app) -> None:
        import pyte
        from textual._compositor import CompositorUpdate

        self.app = app
        width, height = app.size
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.Stream(self.screen)
        original = app._display

        def display(screen, renderable) -> None:
            if isinstance(renderable, CompositorUpdate) and not app._batch_count:
                self.stream.feed(renderable.render_segments(app.console))
            original(screen, renderable)

        app._display = display
        app.refresh()  # the first frame again, whole, through the emulator

    def lines(self) -> list[str]:
        return list(self.screen.display)

    def text(self) -> str:
        return "\n".join(self.screen.display)


def footer_descriptions(app) -> list[str]:
    """The footer's keys as the player reads them (``Undo``, ``Quit``...)."""
    from termgames.widgets.footer import Footer

    return [item.description for item in app.screen.query_one(Footer).items]


#: Quick games to play to their end (computer seats on both sides, in the test, not on the screen).
#: Per game: options, opening moves and a computer level that end a game quickly (tests/games/NAME.py's QUICK).
QUICK = PerGame("QUICK", screens_only=True)


def finished_match(game: str, seed: int = 1):
    """A match of ``game`` (its ``QUICK`` options and opening, seats me and you) played to its end by bots."""
    from termgames.ai import make_bot
    from termgames.match import Match, SeatInfo

    options, opening, level = QUICK[game]
    match = Match(game, options, [SeatInfo("me"), SeatInfo("you")], seed)
    for move in opening:
        match.play(match.view(None).to_move[0], move)
    bots = [make_bot(game, level, seed=seat) for seat in range(2)]
    while not match.over and len(match.moves) < 3000:
        seat = match.view(None).to_move[0]
        match.play(seat, bots[seat].choose(match.view(seat)))
    assert match.over
    return match
