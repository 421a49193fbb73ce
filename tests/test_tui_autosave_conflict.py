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


async def test_a_game_started_in_the_same_second_as_another_takes_the_next_name(tmp_path):
    """Issue 33, 10: two games started in one second were given one name; the second to save said its file
    "changed on disk ... (a move came in?)".  The name is taken, with O_EXCL, when the record is first written."""
    from termgames.table import LocalTable

    match = Match("copolymer", {"size": 5}, [SeatInfo("ann"), SeatInfo("bob")], 3)
    path = records.new_save_path(tmp_path, match)
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=match, save_path=path))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        # The other game, started in another terminal in the same second: the same name, and it saves first.
        other = LocalTable(Match("copolymer", {"size": 5}, [SeatInfo("ann"), SeatInfo("bob")], 4), path)
        other.play(0, "A1")
        await pilot.press("enter")  # ann claims the cell under the cursor here
        await settle(pilot)
        told = [notification.message for notification in app._notifications]  # Textual keeps no public list
        assert not any("changed on disk" in message for message in told), told
        mine = app.screen.table.save_path
    assert mine == path.with_name(f"{path.stem}-2.json") and other.save_path == path
    assert records.load(mine).seed == 3 and records.load(path).seed == 4
