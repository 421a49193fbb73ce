"""``termgames profile``: the saves folder's games against the computer, counted per game and level."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from termgames.cli import app
from termgames.match import AI, Match, Seat
from termgames.player_stats import local_profile
from termgames.records import save

runner = CliRunner()


def finished(seats: list[Seat], seed: int, day: int) -> Match:
    match = Match("mono", {"size": 2}, seats, seed)
    while not match.over:
        match.play(match.state.to_move()[0], "random", time=f"2026-01-{day:02d}T10:00:00+00:00")
    return match


def result_of(match: Match, seat: int) -> str:
    winners = match.winners()
    if seat in winners:
        return "won" if len(winners) == 1 else "drawn"
    return "drawn" if not winners else "lost"


def test_profile_counts_finished_games_against_each_level_and_skips_the_rest(tmp_path: Path):
    folder = tmp_path / "saves"
    folder.mkdir()
    easy = [finished([Seat("me"), Seat("cpu", AI, "easy")], seed, day) for day, seed in enumerate((1, 2, 3), 1)]
    hard = finished([Seat("cpu", AI, "hard"), Seat("me")], 4, 9)
    for number, match in enumerate(easy):
        save(folder / f"easy{number}.json", match)
    save(folder / "hard.json", hard)
    save(folder / "hotseat.json", finished([Seat("me"), Seat("you")], 5, 10))  # no computer: not counted
    save(folder / "unfinished.json", Match("mono", {"size": 2}, [Seat("me"), Seat("cpu", AI, "easy")], 6))
    (folder / "broken.json").write_text("{not a record", encoding="utf-8")

    found = local_profile(folder)
    assert found.unreadable == 1 and found.other == 2
    page = json.loads(runner.invoke(app, ["profile", "--saves", str(folder), "--json"]).stdout)
    results = [result_of(match, 0) for match in easy]
    assert page["played"] == 4 and page["unreadable"] == 1 and page["other"] == 2
    mono = page["games"]["mono"]
    assert mono["by_opponent"]["computer easy"] == {
        "played": 3, "won": results.count("won"), "lost": results.count("lost"), "drawn": results.count("drawn"),
    }
    assert mono["by_opponent"]["computer hard"]["played"] == 1
    assert mono["by_opponent"]["computer hard"]["won"] == (result_of(hard, 1) == "won")
    in_order = [*results, result_of(hard, 1)]  # the hard game ended last
    best = current = 0
    for result in in_order:
        current = current + 1 if result == "won" else 0
        best = max(best, current)
    assert (page["streak"], page["best_streak"]) == (current, best)

    text = runner.invoke(app, ["profile", "--saves", str(folder)])
    assert text.exit_code == 0
    assert "vs computer easy: 3 played" in text.stdout and "1 unreadable" in text.stdout


def test_profile_of_an_empty_or_missing_folder_says_none_yet(tmp_path: Path):
    text = runner.invoke(app, ["profile", "--saves", str(tmp_path / "nowhere")])
    assert text.exit_code == 0 and "none finished yet" in text.stdout
    assert json.loads(runner.invoke(app, ["profile", "--saves", str(tmp_path), "--json"]).stdout)["played"] == 0


def test_profile_and_its_help_import_no_textual(tmp_path: Path):
    save(tmp_path / "one.json", finished([Seat("me"), Seat("cpu", AI, "easy")], 1, 1))
    for args in (["profile", "--help"], ["profile", "--json", "--saves", str(tmp_path)]):
        code = (
            f"import sys; from termgames.cli import main; sys.argv = ['termgames', *{args!r}]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "assert 'textual' not in sys.modules, 'textual imported'"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr


def test_a_chart_shows_the_shape_of_the_history_and_labels_its_ends():
    from termgames.player_stats import chart_rows, result_of

    rows = chart_rows([20.0, 25.0, 30.0], 10, 2, ascii_only=True)
    assert rows == ["  30.0 |  #", "  20.0 |###"]
    blocks = chart_rows([20.0, 30.0], 10, 1)
    assert blocks == ["  30.0 │▁█"]
    assert chart_rows(list(range(100)), 10, 2, ascii_only=True)[1].endswith("|" + "#" * 10)  # the newest ten
    assert chart_rows([], 10, 2) == []
    # A sole winner won; winners sharing it drew; a game without winners is a draw.
    assert [result_of((0,), 0, 2), result_of((0, 1), 1, 2), result_of((), 0, 2), result_of((1,), 0, 3)] == [
        "won", "drawn", "drawn", "lost",
    ]
