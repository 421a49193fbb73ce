"""Hostile players, second round (issue 23, part A): Monad arithmetic that outgrows a float, fault texts that
carry escape sequences, a table that cannot be loaded, and a server that stops late.

Each test reproduces one finding of the issue: it failed before the fix and holds after it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sqlite3
import sys
from dataclasses import replace
from pathlib import Path

import asyncssh
import pytest
from hubkit import Listener, until
from typer.testing import CliRunner

from termgames import records
from termgames.cli import app as cli_app
from termgames.match import AI, Match, Seat, now_iso
from termgames.rating import ranks_of
from termgames.report import view_json, view_text
from termgames.rules import RuleError
from termgames.rules.monad import Monad, MonadState, board_from_json
from termgames.rules.monad.notation import COUNT_DIGITS, MAX_MOVE_TEXT
from termgames.server.commands import run_command
from termgames.server.hub import Hub
from termgames.server.stores.sqlite import Store
from termgames.widgets.panel import scores_text

runner = CliRunner()
#: Escape sequences a player put in a fault: window title, clipboard (OSC 52), a C1 CSI, a bidi override.
HOSTILE = "\x1b]0;TITLE\x07\x1b]52;c;cHduZWQ=\x07\x9b2J\u202e"
#: What must never reach a terminal raw.
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\x00")
#: A run of digits longer than any line of text should hold (a count is written short past 12 digits).
LONG_DIGITS = re.compile(r"[0-9]{13,}")
#: A seed whose digits cannot appear in any output by chance.
BIG_SEED = 2**127 + 98765432109876543210987


def is_safe(text: str) -> bool:
    return not any(code in text for code in RAW)


def breeder_move(state: MonadState, seat: int, idle: bool = False) -> str:
    """Every unit of ``seat`` given BUILD where it stands (on its hive: units multiply by 1.2 a turn)."""
    board = state.board
    if idle:
        return "pass"
    commands = [
        f"{cell % board.width},{cell // board.width} {board.units[cell]} BUILD"
        for cell in board.occupied
        if board.owner[cell] == seat
    ]
    return "; ".join(commands) or "pass"


def breed(play, state_of, to_move) -> None:
    """Both seats breed to the turn limit; bob idles on the first turn, so alice has more units and wins."""
    while to_move():
        for seat in to_move():
            state = state_of()
            play(seat, breeder_move(state, seat, idle=seat == 1 and state.board.turn == 0))


@pytest.fixture(scope="module")
def bred() -> Match:
    """A 6x6 match of two breeders to turn 3900: past 1e308 units each (about 0.5 s)."""
    match = Match("monad", {"width": 6, "height": 6, "turns": 3900}, [Seat("alice"), Seat("bob")], 5)
    breed(match.play, lambda: match.state, lambda: match.state.to_move())
    return match


# --------------------------------------------------------------------------
# 1. Monad arithmetic past a float
# --------------------------------------------------------------------------


def test_a_breeder_past_1e308_is_scored_viewed_shown_and_recorded_exactly(bred):
    state = bred.state
    assert state.is_over() and min(state.board.unit_totals) > 10**308
    assert state.scores() == state.board.unit_totals and all(type(s) is int for s in state.scores())
    assert state.winners() == (0,)
    for viewer in (0, 1, None):
        view = bred.view(viewer)
        assert view.scores == state.board.unit_totals
        for text in (view.status, view.board_text(), view.last_action, scores_text(view)):
            assert not LONG_DIGITS.search(text), text  # written short: 1.034e309
        assert "e309 units" in view.status
    shown = view_text(bred, 0)
    assert "alice 1." in shown and not LONG_DIGITS.search(shown)
    as_json = view_json(bred, 0)
    assert as_json["scores"] == {"alice": state.board.unit_totals[0], "bob": state.board.unit_totals[1]}
    assert json.loads(json.dumps(as_json))["board"]["units"]["alice"] == state.board.unit_totals[0]
    again = records.loads(records.dumps(bred))
    assert again.result() == bred.result() and again.result()["scores"]["alice"] == state.board.unit_totals[0]


async def test_the_seat_s_screen_and_the_replay_draw_counts_past_1e308(tmp_path, bred, monkeypatch):
    from test_tui_monad import PassBot
    from tui import settle

    from termgames.app import TermgamesApp
    from termgames.launch import Launch
    from termgames.screens.monad_watch import MonadWatchScreen

    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: PassBot())
    monkeypatch.setattr("termgames.rules.monad.Monad.ai_move_seconds", 0.0)
    seats = [Seat("alice"), Seat("bob", AI, "greedy")]
    playing = Match.replay("monad", bred.options, seats, bred.seed, bred.moves[:-2])  # the last turn to send
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("play", match=playing, save_path=None))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, 5)
        screen = app.screen

        def shown(*names: str) -> str:
            return "\n".join(str(screen.query_one(f"#{name}").render()) for name in names)

        assert "8.6e308u" in shown("totals")  # a narrow panel's short form
        await pilot.press("b")  # BUILD with every unit at the cursor (alice's hive), queued
        await settle(pilot, 2)
        assert re.search(r"1,1 8\.[0-9]{3}e308 BUILD", shown("queue"))
        await pilot.press("enter")  # the last turn
        await settle(pilot, 5)
        assert playing.over and "e309 units" in shown("status")
        assert not LONG_DIGITS.search(shown("status", "totals", "builder", "queue", "last-action", "cursor-line"))
    app = TermgamesApp(saves_dir=tmp_path, launch=Launch("replay", match=bred))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, 3)
        assert isinstance(app.screen, MonadWatchScreen)
        await pilot.press("G")
        await settle(pilot, 3)
        totals = str(app.screen.query_one("#totals").render())
        assert "e309u" in totals and not LONG_DIGITS.search(totals)


def test_ranks_are_worked_out_from_exact_scores():
    assert ranks_of([], [10**400, 10**400 + 1, 5], 3) == [1.0, 0.0, 2.0]
    assert ranks_of([2], [2**60 + 1, 2**60, 0], 3) == [1.0, 2.0, 0.0]  # a float would tie these two


def test_a_rated_breeder_table_is_loaded_finished_and_rated_and_serves(tmp_path, bred):
    # The server stopped after the last move was stored, before the table was marked finished: at its next
    # start it finishes the table (rates it) while loading, which is where termgames serve died.
    store = Store(tmp_path / "termgames.db")
    store.claim("alice", "SHA256:alice")
    store.claim("bob", "SHA256:bob")
    seats = [seat.to_dict() for seat in bred.seats]
    table_id = store.create_table("monad", bred.options, bred.seed, seats, "alice", rated=True)
    with store.db:
        store.db.executemany(
            "INSERT INTO moves (table_id, ply, seat, move, time) VALUES (?, ?, ?, ?, ?)",
            [(table_id, ply, move.seat, move.move, move.time) for ply, move in enumerate(bred.moves)],
        )
    hub = Hub(store, tmp_path / "records")
    table = hub.tables[table_id]
    assert table.over and hub.set_aside == {}
    assert [c.player for c in table.rating_changes] == ["alice", "bob"]
    assert table.rating_changes[0].after.mu > table.rating_changes[0].before.mu  # alice won
    for player in ("alice", "bob", "carol"):
        shown = run_command(hub, player, f"show {table_id}")
        assert shown.status == 0 and not LONG_DIGITS.search(shown.stdout), shown.stderr
    record = run_command(hub, "carol", f"record {table_id}")
    assert record.status == 0 and records.loads(record.stdout).result() == bred.result()
    store.close()


def test_the_last_move_of_a_rated_breeder_table_ends_it_rated(tmp_path, bred):
    store = Store(tmp_path / "termgames.db")
    store.claim("alice", "SHA256:alice")
    store.claim("bob", "SHA256:bob")
    hub = Hub(store, tmp_path / "records")
    seats = [Seat(name="alice"), Seat(name="bob")]
    table = hub.create_table("monad", bred.options, seats, "alice", seed=bred.seed, rated=True)
    with store.db:  # every move but the last, straight into the store (as fast as a test may be)
        store.db.executemany(
            "INSERT INTO moves (table_id, ply, seat, move, time) VALUES (?, ?, ?, ?, ?)",
            [(table.id, ply, move.seat, move.move, move.time) for ply, move in enumerate(bred.moves[:-1])],
        )
    table.reload()
    last = bred.moves[-1]
    table.play(last.seat, last.move)  # the move that reaches the turn limit
    assert table.over and [c.player for c in table.rating_changes] == ["alice", "bob"]
    store.close()


BREEDER = """\
def turn(observation):  # every unit of mine BUILDs where it stands
    rows, me = observation["cells"], observation["me"]
    return [[x, y, c["units"], "BUILD"] for y, r in enumerate(rows) for x, c in enumerate(r) if me == c.get("owner")]
"""


def test_monad_match_of_breeders_past_1e308_writes_its_record(tmp_path):
    bot = tmp_path / "breeder.py"
    bot.write_text(BREEDER)
    out = tmp_path / "x.json"
    size = ["--width", "6", "--height", "6"]  # the issue used 20x20: the same counts, more cells to read
    result = runner.invoke(cli_app, ["monad", "match", str(bot), str(bot), *size, "--turns", "4000", "--out", str(out)])
    assert result.exit_code == 0, result.output
    table = result.output.split(" turns/s), seed ")[0]  # the seed is a long number, rightly
    assert "record written" in result.output and "e316" in table and not LONG_DIGITS.search(table)
    match = records.load(out)
    assert match.over and match.state.board.turn == 4000
    assert json.loads(out.read_text())["result"]["scores"]["breeder"] == match.state.board.unit_totals[0] > 10**308


def test_swarm_plans_against_an_enemy_past_1e308():
    from termgames.ai.monad.strategies import SwarmStrategy

    cells = [[{"resources": 5} for _x in range(6)] for _y in range(6)]
    cells[1][1].update(owner="ann", units=40, hive="ann", production=0)
    cells[4][4].update(owner="bob", units=10**400, hive="bob", production=0)
    data = {"width": 6, "height": 6, "cells": cells, "resources": {"ann": 0, "bob": 0}}
    board = board_from_json(data, ["ann", "bob"])
    swarm = SwarmStrategy(1)
    for _turn in range(8):  # its growth estimate looks back six turns
        commands = swarm.decide(board, 0)
    assert commands and all(command.n <= 10**12 for command in commands)


def test_an_older_record_whose_scores_went_through_a_float_still_loads():
    match = Match("monad", {"width": 6, "height": 6, "turns": 300}, [Seat("ann"), Seat("bob")], 3)
    breed(match.play, lambda: match.state, lambda: match.state.to_move())
    data = records.to_dict(match)
    exact = data["result"]["scores"]
    assert exact["ann"] > 2**53  # a float loses its last digits
    data["result"]["scores"] = {name: int(float(score)) for name, score in exact.items()}
    assert data["result"]["scores"] != exact
    assert records.from_dict(data).result()["scores"] == exact
    data["result"]["scores"]["ann"] += 10**10  # still refused when the score is simply not the game's
    with pytest.raises(records.RecordError, match="does not match"):
        records.from_dict(data)


def test_no_count_the_notation_allows_is_too_long_for_python_to_write_out():
    # Per turn and seat, the units given BUILD are at most a move's worth of the largest counts; every 5 are a
    # unit; 4 seats, the longest turn limit, and every hive's own point a turn.
    commands = MAX_MOVE_TEXT // (COUNT_DIGITS + len("0,0  BUILD; "))
    most = 4 * Monad.option_specs[-1].maximum * (commands * 10**COUNT_DIGITS // 5 + 3600) + 4
    assert len(str(most)) < sys.get_int_max_str_digits()  # records, JSON and str() take every count


# --------------------------------------------------------------------------
# 2. Escape sequences through a fault
# --------------------------------------------------------------------------


def monad_match(turns: int = 1) -> Match:
    return Match("monad", {"width": 6, "height": 6, "turns": turns}, [Seat("ann"), Seat("bob")], 4)


@pytest.mark.parametrize("reason", [HOSTILE, "crashed\x00", "a\x1b[2Jb", "\u2066isolated\u2069"])
def test_a_fault_whose_reason_could_drive_a_terminal_is_refused(reason):
    match = monad_match()
    with pytest.raises(RuleError, match="printable text on one line") as refused:
        match.play(0, f"fault {reason}")
    assert is_safe(str(refused.value)) and not match.moves


def test_a_fault_s_reason_is_one_line_and_a_bot_s_message_is_made_one():
    from termgames.rules.monad import fault_text

    match = monad_match()
    match.play(0, "fault bot crashed\n  Traceback (most recent call last)\t!")
    assert match.moves[0].move == "fault bot crashed Traceback (most recent call last) !"
    made = fault_text(f"error: RuntimeError: {HOSTILE}\nmore")
    assert is_safe(made) and made.startswith("fault error: RuntimeError: \\x1b]0;TITLE\\x07")
    match.play(1, made)  # whatever a bot said, its fault is a move the rules take
    assert match.over


def test_the_server_refuses_a_fault_with_escapes(tmp_path):
    hub = Hub(Store(tmp_path / "termgames.db"), tmp_path / "records")
    hub.create_table("monad", {"width": 6, "height": 6, "turns": 1}, [Seat(name="ann"), Seat(name="bob")], "ann")
    refused = run_command(hub, "ann", f"move 1 'fault {HOSTILE}'")
    assert refused.status == 2 and "printable text" in refused.stderr and is_safe(refused.stderr)
    nul = run_command(hub, "ann", "move 1 'fault a\x00b'")  # PostgreSQL refuses a NUL; so does every store now
    assert nul.status == 2 and "\\x00" in nul.stderr
    assert not hub.table(1).match.moves
    hub.store.close()


def legacy_table(tmp_path: Path) -> Path:
    """A database written before fault texts were checked: a finished table whose first move is hostile."""
    database = tmp_path / "termgames.db"
    store = Store(database)
    store.create_table("monad", {"width": 6, "height": 6, "turns": 1}, BIG_SEED, [
        {"kind": "human", "name": "ann", "level": None}, {"kind": "human", "name": "bob", "level": None}
    ], "ann")
    store.close()
    with sqlite3.connect(database) as db:
        db.executemany(
            "INSERT INTO moves (table_id, ply, seat, move, time) VALUES (1, ?, ?, ?, '')",
            [(0, 0, f"fault {HOSTILE}"), (1, 1, "pass")],
        )
        db.execute("UPDATE tables SET finished = 1")
    return database


def test_an_older_table_with_a_hostile_fault_loads_escaped_and_its_record_replays(tmp_path):
    hub = Hub(Store(legacy_table(tmp_path)), tmp_path / "records")
    table = hub.table(1)
    assert table.over and is_safe(table.match.moves[0].move) and "\\x1b]0;TITLE" in table.match.moves[0].move
    for command in ("show 1", "show 1 --json", "record 1", "tables"):
        result = run_command(hub, "ann", command)
        assert result.status == 0 and is_safe(result.stdout), (command, result.stderr)
    record = run_command(hub, "carol", "record 1").stdout
    replayed = records.loads(record)  # what termgames replay reads
    assert [m.move for m in replayed.moves] == [m.move for m in table.match.moves]
    assert replayed.result() == table.match.result()
    hub.store.close()


def test_record_prints_json_that_replays_even_from_a_raw_record_file(tmp_path):
    hub = Hub(Store(legacy_table(tmp_path)), tmp_path / "records")
    data = records.to_dict(hub.table(1).match)
    data["moves"][0]["move"] = f"fault {HOSTILE}"
    raw = json.dumps(data, indent=1, ensure_ascii=False)  # a record an older server wrote: C1 and bidi stay raw
    assert "\x9b" in raw and "\u202e" in raw
    (tmp_path / "records").mkdir()
    (tmp_path / "records" / "monad-table1.json").write_text(raw)
    record = run_command(hub, "ann", "record 1").stdout
    assert is_safe(record) and records.loads(record).over
    hub.store.close()


def test_an_older_record_file_with_a_hostile_fault_loads_and_shows_safe(tmp_path):
    match = monad_match()
    match.play(0, "fault placeholder")
    match.play(1, "pass")
    data = records.to_dict(match)
    data["moves"][0]["move"] = f"fault {HOSTILE}"
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    loaded = records.load(path)
    assert is_safe(loaded.moves[0].move) and records.loads(records.dumps(loaded)).over
    shown = runner.invoke(cli_app, ["show", str(path)])
    assert shown.exit_code == 0 and is_safe(shown.output) and "\\x1b]0;TITLE" in shown.output


def test_every_move_log_draws_a_move_safe():
    from termgames.screens.monad import MonadTurnLog
    from termgames.widgets.move_log import MoveLog

    match = monad_match()
    view = replace(match.view(None), moves=((0, f"fault {HOSTILE}"), (1, "pass")))
    for log in (MoveLog(), MonadTurnLog()):
        texts = [text for key in log.turn_keys(view, None) for text in key[2]]
        assert texts and all(is_safe(text) for text in texts), texts
        assert "\\x1b]0;TITLE" in texts[0]


async def test_the_watch_screen_draws_a_bot_s_fault_and_result_safe(tmp_path):
    from test_tui_monad_watch import fake_board, open_watch

    from termgames.app import TermgamesApp
    from termgames.screens.monad_watch import TurnFeed

    feed = TurnFeed(["ann", "bob"])
    feed.append(fake_board(0))
    feed.append(fake_board(1), dropped=[[f"fault: crashed: {HOSTILE}"], ["1,1 " + "9" * 400 + " MINE: only 3"]])
    feed.finish(f"the match stopped: {HOSTILE}")
    app = TermgamesApp(saves_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_watch(app, feed)
        await pilot.press("G")
        dropped = str(screen.query_one("#dropped").render())
        status = str(screen.query_one("#status").render())
        assert is_safe(dropped) and "\\x1b]0;TITLE" in dropped and "9.999e399" in dropped
        assert is_safe(status) and "the match stopped" in status


RAISER = """\
def turn(observation):
    raise RuntimeError("\\x1b]0;TITLE\\x07\\x9b2J\\u202e")
"""

CRASHER = """\
import sys

sys.stderr.write("\\x1b]52;c;cHduZWQ=\\x07 \\u202egnirts\\n")
sys.exit(3)
"""


def test_monad_match_shows_what_bots_said_safe_and_its_record_replays(tmp_path):
    raiser, crasher = tmp_path / "raiser.py", tmp_path / "crasher.py"
    raiser.write_text(RAISER)
    crasher.write_text(CRASHER)
    out = tmp_path / "evil.json"
    bots = [str(raiser), f"{sys.executable} {crasher}"]
    result = runner.invoke(cli_app, ["monad", "match", *bots, "--turns", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    summary = result.stdout
    assert is_safe(summary), summary
    assert "last fault: error: RuntimeError: \\x1b]0,TITLE\\x07\\x9b2J\\u202e" in summary  # its exception
    assert "\\x1b]52,c,cHduZWQ=\\x07 \\u202egnirts" in summary  # its stderr, in the crash report
    match = records.load(out)  # the rules take the record's faults
    assert all(is_safe(m.move) for m in match.moves) and match.moves[0].move.startswith("fault error:")


def test_tournament_error_lines_are_printable():
    from termgames.ai.monad.tournament import Standing, table_text

    standings = [Standing("evil", errors=[f"BotLoadError: it wrote {HOSTILE}\nand more"]), Standing("random")]
    text = table_text(standings)
    assert is_safe(text) and "evil: 1 match(es) failed, e.g. BotLoadError: it wrote \\x1b]0;TITLE" in text


async def test_a_computer_seat_whose_error_quotes_escapes_still_sends_its_fault(monkeypatch):
    from test_turns import LoopOnlyTable, until

    class Broken:
        level = "greedy"

        def choose(self, view):
            raise RuntimeError(f"the bot said {HOSTILE}")

    monkeypatch.setattr("termgames.rules.monad.Monad.ai_move_seconds", 0.0)
    table = LoopOnlyTable(Match("monad", {"width": 8, "height": 8, "turns": 3}, [Seat("ann"), Seat("cpu", AI)], 2))
    table.runner._bots[(1, "greedy")] = Broken()
    table.start()
    assert await until(lambda: bool(table.match.moves))
    move = table.match.moves[0].move
    assert is_safe(move) and move.startswith("fault failed: the bot said \\x1b]0;TITLE")


# --------------------------------------------------------------------------
# 3. A table that cannot be loaded; failures in the log
# --------------------------------------------------------------------------


def test_a_table_that_cannot_be_loaded_is_set_aside_and_the_others_serve(tmp_path, caplog):
    database = tmp_path / "termgames.db"
    hub = Hub(Store(database), tmp_path / "records")
    for _number in range(4):
        hub.create_table("copolymer", {"size": 5}, [Seat(name="ann"), Seat(name="bob")], "ann", seed=BIG_SEED)
    hub.store.close()
    with sqlite3.connect(database) as db:
        db.execute("UPDATE tables SET seats = '[1, 2]' WHERE id = 2")  # no seat is a number
        db.execute("UPDATE tables SET options = '{' WHERE id = 3")  # not JSON
        db.execute(  # an illegal move (made now: an old one would have the table closed as idle first)
            "INSERT INTO moves (table_id, ply, seat, move, time) VALUES (4, 0, 0, 'Z99', ?)", (now_iso(),)
        )
    caplog.set_level(logging.INFO, logger="termgames.server")
    again = Hub(Store(database), tmp_path / "records")
    assert sorted(again.tables) == [1]
    assert set(again.set_aside) == {2, 3, 4}
    logged = caplog.text
    for number in (2, 3, 4):
        assert f"table {number} cannot be loaded" in logged
    assert str(BIG_SEED) not in logged and "Traceback" not in logged
    assert run_command(again, "ann", "tables").status == 0
    again.store.close()


async def test_serve_starts_with_a_table_that_cannot_be_loaded(tmp_path):
    from termgames.server.ssh import DATABASE_NAME, start_server

    hub = Hub(Store(tmp_path / DATABASE_NAME), tmp_path / "records")
    hub.create_table("copolymer", {"size": 5}, [Seat(name="ann"), Seat(name="bob")], "ann")
    hub.store.close()
    with sqlite3.connect(tmp_path / DATABASE_NAME) as db:
        db.execute("UPDATE tables SET seats = '[\"ann\"]'")
    server = await start_server(tmp_path, "127.0.0.1", 0)
    try:
        assert server.hub.set_aside and not server.hub.tables
    finally:
        await server.close()


def test_a_command_that_fails_is_one_line_and_logs_no_local_variables(tmp_path, caplog, monkeypatch):
    hub = Hub(Store(tmp_path / "termgames.db"), tmp_path / "records")
    hub.create_table("copolymer", {"size": 5}, [Seat(name="ann"), Seat(name="bob")], "ann", seed=BIG_SEED)

    def broken(match, viewer, ascii=False):
        seed = match.seed  # a local variable a traceback with locals would print
        raise OverflowError(f"int too large to convert to float ({seed % 7})")

    monkeypatch.setattr("termgames.server.commands.view_text", broken)
    caplog.set_level(logging.INFO, logger="termgames.server")
    result = run_command(hub, "ann", "show 1")
    assert result.status == 2 and result.stderr.count("\n") == 1
    assert "OverflowError" in caplog.text and str(BIG_SEED) not in caplog.text
    assert run_command(hub, "ann", "tables").status == 0  # the others go on
    hub.store.close()


async def test_a_failing_app_logs_a_plain_traceback_without_locals(tmp_path, caplog, capsys):
    from termgames.server.ui.app import ServeApp

    hub = Hub(Store(tmp_path / "termgames.db"), tmp_path / "records")
    caplog.set_level(logging.INFO, logger="termgames.server")

    def draw_a_table() -> None:
        seed = BIG_SEED  # noqa: F841 -- what Textual's traceback would show
        raise OverflowError("int too large to convert to float")

    app = ServeApp(hub=hub, player="alice")
    with pytest.raises(OverflowError):
        async with app.run_test() as pilot:
            app.call_later(draw_a_table)
            await pilot.pause(0.2)
    assert "the app of alice failed" in caplog.text and "OverflowError" in caplog.text
    assert not app._exit_renderables  # Textual's traceback with locals, printed at exit on the server's stderr
    assert str(BIG_SEED) not in caplog.text + capsys.readouterr().err
    hub.store.close()


# --------------------------------------------------------------------------
# 4. Stopping
# --------------------------------------------------------------------------


async def test_stopping_the_hub_stops_every_computer_player_thinking(tmp_path):
    hub = Hub(Store(tmp_path / "termgames.db"), tmp_path / "records")
    assert hub.store.claim("ann", "SHA256:ann")  # only a registered player makes a table of computers only
    seats = [Seat(name="cpu1", kind=AI, level="hard"), Seat(name="cpu2", kind=AI, level="hard")]
    table = hub.create_table("copolymer", {}, seats, "ann")
    table.subscribe(Listener("ann", None))  # and its computers think only while someone watches
    await until(lambda: bool(table.runner._deciding))
    deciding = list(table.runner._deciding.values())
    assert deciding
    hub.close()
    assert all(decision.deadline.stopped for decision in deciding)  # its thread is free at once
    hub.store.close()


async def test_stopping_the_server_closes_its_connections_without_waiting_for_the_players(tmp_path):
    from sshterm import connect

    from termgames.server.ssh import start_server

    server = await start_server(tmp_path, "127.0.0.1", 0)
    key = asyncssh.generate_private_key("ssh-ed25519")
    player = await connect(server.port, "alice", key)
    await player.wait_for("signed in as")
    await server.close()
    # Since Python 3.12 the listener waits for its connections: the server closes them itself.
    await asyncio.wait_for(player.conn.wait_closed(), 5)
    assert not server.connections
    await player.close()


async def test_a_table_whose_lobby_line_cannot_be_drawn_leaves_the_lobby_standing(tmp_path, caplog, monkeypatch):
    from termgames.server.tables import LiveTable
    from termgames.server.ui.app import ServeApp

    hub = Hub(Store(tmp_path / "termgames.db"), tmp_path / "records")
    for _number in range(2):
        hub.create_table("copolymer", {"size": 5}, [Seat(name="ann"), Seat(name="bob")], "ann", seed=BIG_SEED)
    real = LiveTable.describe_options

    def broken(table):
        if table.id == 2:
            raise OverflowError("int too large to convert to float")
        return real(table)

    monkeypatch.setattr(LiveTable, "describe_options", broken)
    caplog.set_level(logging.INFO, logger="termgames.server")
    app = ServeApp(hub=hub, player="ann")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        prompts = [str(option.prompt) for option in app.screen.query_one("#tables").options]
        assert any("#1 " in prompt and "Copolymer" in prompt for prompt in prompts)
        assert any("#2 cannot be shown" in prompt for prompt in prompts)
    assert "table 2: its lobby line cannot be drawn: OverflowError" in caplog.text
    assert str(BIG_SEED) not in caplog.text
    hub.store.close()
