"""What a screen works out from a position (hints, overlays, marks, the move being assembled) belongs to that
position, never to a count of moves: after an undo and another line as long, every game's screen shows what a
fresh load of the same position shows (issue 33, 1).  A game joins by being registered in ``GAMES``; its screen
names the displays to turn on in ``DERIVED_DISPLAYS``."""

from __future__ import annotations

import random

import pytest
from test_game_contract import random_game, random_mover
from textual.widgets import Static
from tui import settle

from termgames.app import TermgamesApp
from termgames.games import GAMES, describe
from termgames.launch import Launch
from termgames.match import Match, Seat
from termgames.rules import get_game
from termgames.screens.dialogs import PrivacyScreen
from termgames.widgets.panel import PanelTexts

PLAYABLE = [name for name, descriptor in GAMES.items() if descriptor.playable]
#: The lines compared: two moves each, from the same position, deep in a game (where hints say most).
LINE = 2
#: A random game stops here: deep enough for every game's displays, short enough for the slower bots.
PLIES = 40

Moves = list[tuple[int, str]]


def play_out(name: str, moves: Moves) -> Match:
    game = get_game(name)
    match = Match(game, {}, [Seat(f"p{seat + 1}") for seat in range(game.min_seats)], 7)
    for seat, move in moves:
        match.play(seat, move)
    return match


def two_lines(name: str) -> tuple[Moves, Moves, Moves]:
    """A position and two different lines of ``LINE`` moves from it, both leaving a game that goes on with the same
    seat to move (one view stays on screen: no hand-over between them)."""
    full = random_game(name, 7, max_plies=PLIES)
    played = [(record.seat, record.move) for record in full.moves]
    for cut in range(len(played) - LINE, 0, -1):
        prefix, first = played[:cut], played[cut : cut + LINE]
        ends = play_out(name, prefix + first)
        if ends.over:
            continue
        for attempt in range(12):
            match = play_out(name, prefix)
            mover = random_mover(describe(name), 100 + attempt)
            turns = random.Random(attempt)
            while len(match.moves) < cut + LINE and not match.over:
                seat = turns.choice(match.state.to_move())
                match.play(seat, mover(match, seat))
            other = [(record.seat, record.move) for record in match.moves[cut:]]
            if not match.over and other != first and match.state.to_move() == ends.state.to_move():
                return prefix, first, other
    pytest.fail(f"{name}: no two lines of {LINE} moves found")


def shown(app: TermgamesApp) -> str:
    """The board and every text around it (the panel's, the line under the board), as text."""
    screen = app.screen
    texts = ["\n".join(screen.board.text_lines())]
    for panel in screen.query(PanelTexts):
        texts += [panel.text(name) for name in ("status", "legend", "scores", "last-action")]
    texts += [f"{static.id}: {static.render()}" for static in screen.query(Static)]
    return "\n".join(texts)


async def past_privacy(app: TermgamesApp, pilot) -> bool:
    """Hot seat with hidden boards: Enter hides the last player's boards, Enter again shows the next player's.
    True if the boards changed hands (a display a player turned on is that player's: it is off now)."""
    handed_over = False
    for _ in range(4):
        if not isinstance(app.screen, PrivacyScreen) and app.screen._handover_to is None:
            break
        await pilot.press("enter")
        await settle(pilot, 2)
        handed_over = True
    return handed_over


async def with_displays_on(app: TermgamesApp, pilot) -> None:
    await past_privacy(app, pilot)
    for action in app.screen.DERIVED_DISPLAYS:
        await app.screen.run_action(action)
    await settled(app, pilot)


async def settled(app: TermgamesApp, pilot) -> None:
    for _ in range(50):
        await app.workers.wait_for_complete()
        await settle(pilot, 3)
        if not any(worker.is_running for worker in app.workers):
            return


@pytest.mark.parametrize("name", PLAYABLE)
async def test_after_an_undo_and_another_line_as_long_the_screen_shows_that_position(name, tmp_path):
    prefix, first, other = two_lines(name)
    fresh = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=play_out(name, prefix + other)))
    async with fresh.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await with_displays_on(fresh, pilot)
        expected = shown(fresh)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=play_out(name, prefix + first)))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await with_displays_on(app, pilot)
        assert shown(app) != expected  # the other line's position looks different
        table = app.screen.table
        handed_over = False
        # What the undo key does, move by move (Mono's screen offers none: a probe's value has been seen; its
        # table still goes back the same way), then the other line as the moves' keys play it.
        while len(table.match.moves) > len(prefix):
            table.undo()
            await settle(pilot, 2)
            handed_over = await past_privacy(app, pilot) or handed_over
        for seat, move in other:
            table.play(seat, move)
            await settle(pilot, 2)
            handed_over = await past_privacy(app, pilot) or handed_over
        await settled(app, pilot)
        if await past_privacy(app, pilot) or handed_over:
            await with_displays_on(app, pilot)
        assert shown(app) == expected
