"""The game screen's autosave never overwrites a record that changed on disk: it keeps both and says so."""

from __future__ import annotations

from tui import settle

from termgames import records
from termgames.app import TermgamesApp
from termgames.launch import Launch
from termgames.match import Match, SeatInfo
from termgames.screens.game import GameScreen


async def test_a_correspondence_move_on_disk_is_kept_and_the_player_told(tmp_path):
    path = tmp_path / "game.json"
    records.save(path, Match("copolymer", {"size": 5}, [SeatInfo("ann"), SeatInfo("bob")], 3))
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=records.load(path), save_path=path))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        # Meanwhile a correspondence move comes in on the same record.
        elsewhere = records.load(path)
        elsewhere.play(0, "A1")
        records.save(path, elsewhere)
        await pilot.press("enter")  # ann claims the cell under the cursor here
        await settle(pilot)
        told = [notification.message for notification in app._notifications]  # Textual keeps no public list
        assert any("changed on disk" in message and "Both are kept" in message for message in told), told
    assert [m.move for m in records.load(path).moves] == ["A1"]
    (other,) = [p for p in tmp_path.glob("*.json") if p != path]
    assert len(records.load(other).moves) == 1 and records.load(other).moves[0].move != "A1"
