"""The server's store, hub and correspondence commands, without SSH."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hubkit import Listener, until

from termgames.match import AI, Match, Seat
from termgames.records import load, loads
from termgames.report import view_json, view_text
from termgames.rules import RuleError
from termgames.rules.base import ALL
from termgames.server.commands import run_command
from termgames.server.hub import Hub
from termgames.server.people import valid_player_name
from termgames.server.shared import SharedTable
from termgames.server.stores.interface import PlyTaken

ALICE_LAYOUT = "355553354412244"
BOB_LAYOUT = "555554444312233"


def make_hub(new_store, folder: Path) -> Hub:
    """A hub on the test's store (SQLite or PostgreSQL: see ``new_store`` in conftest)."""
    return Hub(new_store(), folder / "records")


def test_first_key_claims_a_name_and_only_that_key_keeps_it(tmp_path, new_store):
    store = new_store()
    assert store.claim("alice", "SHA256:one")
    assert store.claim("alice", "SHA256:one")
    assert not store.claim("alice", "SHA256:two")
    assert store.key_of("alice") == "SHA256:one"
    assert store.key_of("bob") is None


def test_names_a_player_may_register():
    assert valid_player_name("alice") and valid_player_name("Bob_2.x-y")
    for name in ("", "guest-alice", "Guest-1", "seat-2", "al ice", "a:b", "a,b", "-x", "x" * 25):
        assert not valid_player_name(name), name


def test_a_ply_is_stored_once(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    table = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
    table.play(0, "A1")
    with pytest.raises(PlyTaken):
        hub.store.append_move(table.id, 0, table.match.moves[0])


def test_two_moves_for_one_turn_exactly_one_is_accepted(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    hub.create_table("mono", {"size": 3}, [Seat(name="alice"), Seat(name="bob")], "alice")
    first = run_command(hub, "alice", "move 1 random")
    second = run_command(hub, "alice", "move 1 random")
    assert first.status == 0 and second.status == 2
    assert second.stderr.startswith("termgames: it is bob's turn")
    assert len(Hub(hub.store).table(1).match.moves) == 1


def test_tables_moves_and_seats_survive_a_restart(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    table = hub.create_table("mono", {"size": 5, "no_auto": True}, [Seat(name="alice"), Seat()], "alice")
    table.play(0, ALICE_LAYOUT)
    table.join("bob")
    table.play(1, BOB_LAYOUT)
    table.play(0, "a1,end")
    hub.store.close()
    again = make_hub(new_store, tmp_path)
    restored = again.table(1)
    assert restored.names == ("alice", "bob")
    assert [m.move for m in restored.match.moves] == [m.move for m in table.match.moves]
    assert restored.view(1).boards[1] == tuple(int(c) for c in BOB_LAYOUT)


def test_joining_an_open_seat_renames_it_and_tells_the_table(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    table = hub.create_table("mono", {"size": 3}, [Seat(name="alice"), Seat(), Seat()], "alice")
    assert table.names == ("alice", "seat-2", "seat-3")
    listener = Listener("alice", 0)
    table.subscribe(listener)
    assert table.join("carol") == 1
    assert table.join("carol") == 1  # already there
    assert table.names == ("alice", "carol", "seat-3")
    assert ("seats", "carol takes seat 2") in listener.events
    assert hub.open_tables("dave") == [table] and hub.my_tables("carol") == [table]
    table.join("dave")
    with pytest.raises(RuleError, match="no free seat"):
        table.join("erin")


def test_an_open_seat_cannot_move(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    table = hub.create_table("mono", {"size": 3}, [Seat(name="alice"), Seat()], "alice")
    table.play(0, "random")
    with pytest.raises(RuleError, match="no player yet"):
        table.play(1, "random")


def test_a_shared_table_shows_only_its_own_seat(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    live = hub.create_table("mono", {"size": 5, "no_auto": True}, [Seat(name="alice"), Seat(name="bob")], "alice")
    live.play(0, ALICE_LAYOUT)
    live.play(1, BOB_LAYOUT)
    shared = SharedTable(live, "alice", 0)
    for asked in (0, 1, None):
        view = shared.view(asked)
        assert view.viewer == 0
        assert all(value is None for value in view.boards[1])
    assert not hasattr(shared, "match") and not hasattr(shared, "seed")
    assert shared.view(0).moves[1] == (1, "layout")  # bob's layout is redacted in alice's log
    with pytest.raises(RuleError):
        shared.play(1, "a1,end")
    watcher = SharedTable(live, "zed", None)
    assert all(value is None for board in watcher.view().boards for value in board)
    with pytest.raises(RuleError, match="spectators"):
        watcher.play(0, "a1,end")


def test_views_are_worked_out_once_a_position_and_a_seat_never_gets_another_seats(tmp_path, new_store, monkeypatch):
    hub = make_hub(new_store, tmp_path)
    live = hub.create_table("mono", {"size": 5, "no_auto": True}, [Seat(name="alice"), Seat(name="bob")], "alice")
    live.play(0, ALICE_LAYOUT)
    live.play(1, BOB_LAYOUT)
    worked_out: list[object] = []
    match_view = live.match.view
    monkeypatch.setattr(
        live.match, "view", lambda viewer, ply=None: worked_out.append(viewer) or match_view(viewer, ply)
    )
    alice, alice_again = SharedTable(live, "alice", 0), SharedTable(live, "alice", 0)  # two screens of one seat
    bob = SharedTable(live, "bob", 1)
    watchers = [SharedTable(live, name, None) for name in ("zed", "yan", "xia")]

    seen = [watcher.view() for watcher in watchers]
    assert all(view is seen[0] for view in seen)  # one view for every spectator
    assert alice.view(1) is alice_again.view() and alice.view().viewer == 0
    assert bob.view(0).viewer == 1 and bob.view() is not alice.view()
    assert sorted(worked_out, key=str) == [0, 1, None]  # once per viewer
    # Hidden boards stay hidden through the sharing: each seat sees its own board only, a spectator none.
    assert all(value is None for value in alice.view().boards[1]) and None not in alice.view().boards[0]
    assert all(value is None for value in bob.view().boards[0]) and None not in bob.view().boards[1]
    assert all(value is None for board in seen[0].boards for value in board)

    before = alice.view()
    live.play(0, "a1,end")  # a new position: worked out afresh, once
    worked_out.clear()
    assert alice.view() is not before and alice.view() == match_view(0)
    assert [watcher.view() for watcher in watchers][1] is watchers[0].view()
    assert sorted(worked_out, key=str) == [0, None]


def test_undo_needs_the_other_players_consent(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    live = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
    alice, bob = Listener("alice", 0), Listener("bob", 1)
    live.subscribe(alice)
    live.subscribe(bob)
    live.play(0, "A1")
    assert live.request_undo(0) == "Asked bob to accept the undo"
    assert ("undo-request", "alice asks to take back their last move") in bob.events
    live.answer_undo(1, False)
    assert len(live.match.moves) == 1 and ("notice", "bob refused the undo") in alice.events
    live.request_undo(0)
    live.answer_undo(1, True)
    assert live.match.moves == []
    assert make_hub(new_store, tmp_path).table(live.id).match.moves == []  # stored too
    with pytest.raises(RuleError, match="Nothing to undo"):
        live.request_undo(0)


def test_a_broken_subscriber_is_dropped_and_the_others_still_hear(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    live = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")

    class Broken(Listener):
        def table_event(self, kind, text):
            raise OSError("gone")

    good = Listener("bob", 1)
    live.subscribe(Broken("alice", 0))
    live.subscribe(good)
    live.play(0, "A1")
    assert ("moved", "") in good.events and len(live.subscribers) == 1


def test_a_finished_game_is_exported_as_a_record(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    live = hub.create_table("mono", {"size": 2}, [Seat(name="alice"), Seat(name="bob")], "alice")
    seat = 0
    while not live.over:
        live.play(seat, "random")
        seat = live.match.state.to_move()[0] if not live.over else seat
    record = load(hub.record_path(live))
    assert record.over and record.names == ("alice", "bob")
    assert [m.move for m in record.moves] == [m.move for m in live.match.moves]
    assert make_hub(new_store, tmp_path).finished_tables("alice")[0].id == live.id
    # ``record TABLE`` gives it to a player, from the file here or, where the file is missing, from the store.
    given = run_command(hub, "carol", f"record {live.id}")
    assert given.status == 0 and given.stdout == hub.record_path(live).read_text(encoding="utf-8").rstrip("\n") + "\n"
    hub.record_path(live).unlink()
    again = run_command(make_hub(new_store, tmp_path / "elsewhere"), "carol", f"record {live.id}")
    assert again.status == 0 and [m.move for m in loads(again.stdout).moves] == [m.move for m in live.match.moves]


async def test_ai_seats_play_from_the_thread_pool(tmp_path, new_store):

    hub = make_hub(new_store, tmp_path)
    live = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat("cpu", AI, "easy")], "alice")
    live.play(0, "A1")
    await until(lambda: len(live.match.moves) > 1)
    assert live.match.moves[1].seat == 1
    hub.close()


# -- correspondence commands -----------------------------------------------------------


def test_challenge_tables_show_and_move(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    made = run_command(hub, "alice", "challenge mono --size 5 --no-auto bob")
    assert made.status == 0 and made.stdout.startswith("1: Mono (5 regions, 3x5, --no-auto): alice vs bob")
    assert run_command(hub, "alice", "tables").stdout.startswith("*   1  mono")
    assert run_command(hub, "bob", "tables").stdout.startswith("    1  mono")
    moved = run_command(hub, "alice", f"move 1 {ALICE_LAYOUT}")
    assert moved.status == 0 and "bob to lay out" in moved.stdout
    run_command(hub, "bob", f"move 1 {BOB_LAYOUT}")
    match = hub.table(1).match
    shown = run_command(hub, "alice", "show 1 --json")
    assert json.loads(shown.stdout) == view_json(match, 0)
    assert run_command(hub, "alice", "show 1").stdout == view_text(match, 0) + "\n"
    spectator = json.loads(run_command(hub, "carol", "show 1 --json").stdout)
    assert spectator["viewer"] is None and spectator["board"]["boards"]["bob"][0] == [None] * 5


@pytest.mark.parametrize(
    ("line", "options"),
    [
        ("challenge copolymer --rhombus 9 bob", {"shape": "rhombus", "size": 9}),
        ("challenge copolymer bob --rhombus=7", {"shape": "rhombus", "size": 7}),
        (
            "challenge monunrail --supply 4,4,4 bob",
            {"straights": 4, "turns": 4, "crossroads": 4, "random_supply": False},
        ),
        (
            "challenge monunrail --random-supply bob:ai:easy",
            {"straights": 8, "turns": 8, "crossroads": 8, "random_supply": True},
        ),
        ("challenge mono --size 5 --no-auto bob", {"size": 5, "no_auto": True}),
    ],
)
def test_challenge_reads_options_as_termgames_new_does(tmp_path, line, options, new_store):
    """Compound flags with a value (--rhombus N, --supply S,T,C) work over SSH as on the command line."""
    hub = make_hub(new_store, tmp_path)
    made = run_command(hub, "alice", line)
    assert made.status == 0, made.stderr
    table = hub.table(1)
    assert {name: table.match.options[name] for name in options} == options
    words = [word for word in line.split()[2:] if not word.startswith("bob")]
    assert table.match.options == table.game.parse_cli_options(words)  # what termgames new reads
    assert table.names[0] == "alice" and table.names[1] == "bob"
    hub.close()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("challenge copolymer --rhombus bob", "termgames: --rhombus needs a whole number, not 'bob'"),
        ("challenge copolymer --rhombus", "termgames: --rhombus needs a value"),
        ("challenge monunrail --supply 4,4 bob", "termgames: --supply needs three values"),
        ("challenge monunrail --supply 4,4,4 --random-supply bob", "termgames: --random-supply decides"),
        ("challenge copolymer --bogus bob", "termgames: copolymer has no option '--bogus'"),
    ],
)
def test_challenge_refuses_bad_options_in_one_line(tmp_path, line, message, new_store):
    hub = make_hub(new_store, tmp_path)
    result = run_command(hub, "alice", line)
    assert result.status == 2 and result.stderr.startswith(message) and result.stderr.count("\n") == 1, result.stderr
    assert not hub.tables
    hub.close()


def test_command_errors_are_one_line_and_status_2(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    run_command(hub, "alice", "challenge copolymer --size 5 bob")
    for line, message in [
        ("move 1 Z9", "termgames: "),
        ("move 1", "termgames: move TABLE MOVE: which move?"),
        ("move 7 A1", "termgames: there is no table 7"),
        ("show x", "termgames: 'x' is not a table number"),
        ("challenge chess bob", "termgames: there is no game 'chess'"),
        ("challenge mono --size 99 bob", "termgames: --size must be at most"),
        ("challenge mono", "termgames: challenge whom?"),
        ("rm -rf /", "termgames: unknown command 'rm'"),
        ("show 'unclosed", "termgames: cannot read the command"),
    ]:
        result = run_command(hub, "alice", line)
        assert result.status == 2 and result.stdout == "", line
        assert result.stderr.startswith(message) and result.stderr.count("\n") == 1, (line, result.stderr)
    assert run_command(hub, "carol", "move 1 A1").stderr == "termgames: you have no seat at table 1\n"
    assert hub.table(1).match.moves == []


def test_cli_show_prints_what_the_report_module_prints(tmp_path, capsys):
    from termgames.cli import app as cli
    from termgames.records import save

    match = Match("copolymer", {"size": 5}, [Seat("ann"), Seat("bob")], 7)
    match.play(0, "A1")
    path = save(tmp_path / "g.json", match)
    with pytest.raises(SystemExit):
        cli(["show", str(path), "--json"])
    assert json.loads(capsys.readouterr().out) == view_json(match, None)
    with pytest.raises(SystemExit):
        cli(["show", str(path), "--as", "bob"])
    assert capsys.readouterr().out == view_text(match, 1) + "\n"
    assert view_json(match, None)["viewer"] is None and ALL == -1


def test_help_imports_neither_textual_nor_asyncssh():
    code = (
        "import sys\n"
        "from termgames.cli import app\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('textual', 'asyncssh') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_the_store_and_the_hub_refuse_a_worker_thread(tmp_path, new_store):
    import threading

    hub = make_hub(new_store, tmp_path)
    live = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice")
    errors: list[str] = []

    def worker() -> None:
        for reach in (lambda: live.play(0, "A1"), lambda: hub.store.key_of("alice"), hub.lobby_changed):
            try:
                reach()
            except RuntimeError as error:
                errors.append(str(error))

    thread = threading.Thread(target=worker, name="a-worker")
    thread.start()
    thread.join()
    assert len(errors) == 3 and all("'a-worker'" in error for error in errors)
    assert live.match.moves == [] and make_hub(new_store, tmp_path).table(live.id).match.moves == []
    live.play(0, "A1")  # on the loop's thread: fine
    assert len(live.match.moves) == 1


async def test_an_ai_seat_tells_the_table_it_is_thinking(tmp_path, monkeypatch, new_store):

    from bots import GatedBot

    bot = GatedBot()
    monkeypatch.setattr("termgames.turns.make_bot", lambda game, level, seed=None: bot)
    hub = make_hub(new_store, tmp_path)
    live = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat("cpu", AI, "easy")], "alice")
    listener = Listener("alice", 0)
    live.subscribe(listener)
    live.play(0, "A1")
    assert live.thinking == {1} and ("thinking", "") in listener.events
    bot.gate.set()
    await until(lambda: len(live.match.moves) == 2)
    assert live.match.moves[1].seat == 1 and live.thinking == frozenset()
    assert listener.events.count(("thinking", "")) == 2  # started, then done
    hub.close()


async def test_ai_seats_at_a_shared_table_keep_the_games_pace(tmp_path, monkeypatch, new_store):
    """The hub's AI seats use the runner of the local game, Mono's slower pace between probes included."""
    import asyncio
    import time

    from termgames.rules import Game
    from termgames.rules.mono import Mono

    assert Mono.ai_move_seconds > Game.ai_move_seconds  # Mono's probes stay in sight longer than a Copolymer claim
    monkeypatch.setattr("termgames.rules.copolymer.Copolymer.ai_move_seconds", 0.2)
    hub = make_hub(new_store, tmp_path)
    hub.store.claim("alice", "SHA256:alice")  # only a registered player makes a table of computers only
    started = time.monotonic()
    live = hub.create_table("copolymer", {"size": 3}, [Seat("a", AI, "easy"), Seat("b", AI, "easy")], "alice")
    live.subscribe(Listener("alice", None))  # and its computers play while someone watches
    for _ in range(500):
        await asyncio.sleep(0.02)
        if len(live.match.moves) >= 3:
            break
    assert len(live.match.moves) >= 3
    assert time.monotonic() - started >= 0.6  # three moves, each at least the game's 0.2 s
    hub.close()


def test_a_table_number_past_a_stores_row_ids_or_thousands_of_digits_long_is_one_short_line(tmp_path):
    from termgames.server.commands import run_command
    from termgames.server.hub import Hub
    from termgames.server.stores.sqlite import Store

    hub = Hub(Store(tmp_path / "server.db"))
    try:
        for command, shown in (
            ("show 99999999999999999999999999", "'99999999999999999999999999' is not a table number"),
            ("record -1", "'-1' is not a table number"),
            ("analyse " + "9" * 5000, "is not a table number"),
            ("show 999999999999999999", "there is no table 999999999999999999"),
        ):
            result = run_command(hub, "ann", command)
            assert result.status == 2 and shown in result.stderr, (command, result.stderr)
            assert len(result.stderr) < 200 and result.stderr.count("\n") == 1
    finally:
        hub.close()
        hub.store.close()
