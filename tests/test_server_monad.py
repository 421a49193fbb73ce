"""Monad at a shared table (two apps on one hub, no SSH): a human and a bot seat, simultaneous turns, a spectator."""

from __future__ import annotations

import asyncio
import re

import pytest

from termgames.match import AI
from termgames.screens.monad import MonadScreen
from termgames.screens.monad_watch import MonadWatchScreen
from termgames.server.hub import Hub, Seat
from termgames.server.ui.app import ServeApp
from termgames.server.ui.shared_game import SharedGameMixin

SIZE = (100, 32)


@pytest.fixture(autouse=True)
def quick_ai(monkeypatch):
    monkeypatch.setattr("termgames.server.hub.AI_MIN_SECONDS", 0.0, raising=False)
    monkeypatch.setattr("termgames.rules.monad.Monad.ai_move_seconds", 0.0, raising=False)  # the turn runner's pace


def make_hub(new_store, folder) -> Hub:
    """A hub on the test's store (SQLite or PostgreSQL: see ``new_store`` in conftest)."""
    return Hub(new_store(), folder / "records")


async def settle(*pilots, rounds: int = 3) -> None:
    for _ in range(rounds):
        for pilot in pilots:
            await pilot.pause()


async def wait_for(condition, *pilots) -> None:
    for _ in range(100):
        if condition():
            return
        await asyncio.sleep(0.02)
        await settle(*pilots, rounds=1)
    assert condition()


async def test_a_human_and_a_bot_play_turns_while_a_spectator_watches(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    live = hub.create_table("monad", {}, [Seat(name="alice"), Seat(kind=AI, name="cpu", level="greedy")], "alice")
    alice, carol = ServeApp(hub=hub, player="alice"), ServeApp(hub=hub, player="carol")
    async with alice.run_test(size=SIZE) as pa, carol.run_test(size=SIZE) as pc:
        await settle(pa, pc)
        assert alice.screen.query_one("#tables").highlighted_option.id == "mine:1"
        await pa.press("enter")
        await wait_for(lambda: isinstance(alice.screen, SharedGameMixin), pa)
        screen = alice.screen
        assert isinstance(screen, MonadScreen) and screen.table.seat == 0
        await pc.press("w")
        await settle(pa, pc)
        watcher = carol.screen
        assert isinstance(watcher, MonadScreen) and watcher.table.seat is None

        # The bot may send first: the turn waits for alice, and nobody sees the bot's commands.
        await wait_for(lambda: 1 not in live.match.state.to_move(), pa, pc)
        assert "cpu" not in screen.queue_text().plain
        await pa.press("1", "b", "enter")
        await wait_for(lambda: live.match.state.board.turn == 1, pa, pc)
        await settle(pa, pc)
        assert live.match.state.board.hive_counts[0] == 1
        assert screen.monad_board.board["turn"] == 1 and watcher.monad_board.board["turn"] == 1
        assert "A" in "\n".join(watcher.board.text_lines())

        # A spectator's keys command nothing.
        await pc.press("m", "enter")
        await settle(pa, pc)
        assert "watching" in watcher.message
        assert [m.seat for m in live.match.moves].count(0) == 1


async def test_a_finished_monad_table_replays_turn_by_turn(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    live = hub.create_table("monad", {"turns": 3}, [Seat(name="alice"), Seat(name="bob")], "alice")
    while not live.over:
        for seat in live.match.state.to_move():
            live.play(seat, "pass")
    alice = ServeApp(hub=hub, player="alice")
    async with alice.run_test(size=SIZE) as pilot:
        assert alice.screen.query_one("#tables").highlighted_option.id == "done:1"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(alice.screen, MonadWatchScreen) and len(alice.screen.feed) == 4


async def test_monad_over_ssh_at_80x24_hides_the_other_seat_s_commands_until_the_turn_resolves(tmp_path):
    import asyncssh
    from sshterm import command, connect

    from termgames.server.ssh import start_server

    keys = {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("alice", "bob")}
    server = await start_server(tmp_path, "127.0.0.1", 0)
    clients = []
    try:
        made = await command(server.port, "alice", keys["alice"], "challenge monad bob")
        assert made.exit_status == 0, made.stderr
        alice = await connect(server.port, "alice", keys["alice"], width=80, height=24)
        bob = await connect(server.port, "bob", keys["bob"], width=80, height=24)
        clients = [alice, bob]
        for terminal in clients:
            await terminal.wait_for("Monad")
            await terminal.press("enter")
            await terminal.wait_for("Turn 1 of 2000")
        await bob.press("1", "b", "enter")  # bob builds on his start cell, 18,18
        await bob.wait_for("1 sent:")
        await alice.wait_for("bob sent")
        assert "18,18" not in alice.text() and b"18,18 1 BUILD" not in alice.raw
        await alice.press("1", "b", "enter")
        await alice.wait_for("Turn 2 of 2000")
        await bob.wait_for("Turn 2 of 2000")
        screen = alice.text()
        assert re.search(r"[ \[]A1? ", screen)  # her hive, drawn at 80x24 (between brackets under the cursor)
        assert "B" in bob.text()
    finally:
        for client in clients:
            await client.close()
        await server.close()
