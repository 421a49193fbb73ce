"""Knowing it is your move: notices where a player is connected, mail (to a local aiosmtpd) when she is not."""

from __future__ import annotations

import asyncio
import email
import email.policy
import socket
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hubkit import pg_servers, until

from termgames.match import Seat
from termgames.rules import RuleError
from termgames.server import notices as notices_module
from termgames.server import notify as notify_module
from termgames.server.commands import run_command
from termgames.server.hub import Hub
from termgames.server.mail import (
    MailConfig,
    Mailer,
    Waiting,
    check_address,
    describe_seconds,
    digest_mail,
    mailbox_of,
    new_message,
    waiting_line,
)
from termgames.server.notices import AWAY_SECONDS, Notice, desktop_sequence
from termgames.server.ui.app import ServeApp
from termgames.server.ui.lobby import LobbyScreen
from termgames.server.ui.shared_game import SharedGameMixin

ALICE_LAYOUT = "355553354412244"
BOB_LAYOUT = "555554444312233"
SIZE = (100, 32)


class Heard:
    """Stands in for a player's app: keeps the notices handed to it."""

    def __init__(self) -> None:
        self.notices: list[Notice] = []

    def __call__(self, notice: Notice) -> None:
        self.notices.append(notice)

    def kinds(self) -> list[str]:
        return [notice.kind for notice in self.notices]


@pytest.fixture(autouse=True)
def hubs_closed(monkeypatch):
    """Every hub a test makes is closed at its end (its mail thread among the rest)."""
    made: list[Hub] = []
    monkeypatch.setattr(Hub, "__init__", _kept(Hub.__init__, made))
    yield
    for hub in made:
        hub.notices.close()


#: Every mail a hub of the running test handed to its mailer (the futures :meth:`Mailer.send` returned).
HANDED: list = []


@pytest.fixture(autouse=True)
def mail_handed(monkeypatch):
    """Keeps each mail's future, so that a test can wait until every mail handed over is sent (no sleeping)."""
    send = Mailer.send

    def kept_send(self, message):
        future = send(self, message)
        HANDED.append(future)
        return future

    HANDED.clear()
    monkeypatch.setattr(Mailer, "send", kept_send)
    yield
    HANDED.clear()


async def all_mail_sent() -> None:
    """Every mail handed over so far has reached the relay: what is not there by now was never sent."""
    await sent(list(HANDED))


def _kept(init, made):
    def keep(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)

    return keep


def make_hub(new_store, folder, mail: MailConfig | None = None) -> Hub:
    return Hub(new_store(), folder / "records", mail=mail)


# -- live notices ------------------------------------------------------------------------------


def test_a_move_a_challenge_and_an_undo_request_tell_the_other_player_not_the_one_who_made_them(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    alice, bob = Heard(), Heard()
    hub.notices.attach("alice", alice)
    hub.notices.attach("bob", bob)
    made = run_command(hub, "alice", "challenge mono --size 5 --no-auto bob")
    assert made.status == 0
    assert bob.kinds() == ["challenge"] and alice.notices == []
    assert bob.notices[0].text == "alice challenges you: table #1, Mono (rated)"
    assert bob.notices[0].mode == "bell" and bob.notices[0].table_id == 1

    run_command(hub, "alice", f"move 1 {ALICE_LAYOUT}")
    assert bob.kinds() == ["challenge", "move"] and alice.notices == []
    assert bob.notices[1].text == "Your move at table #1, Mono (alice moved)"
    run_command(hub, "bob", f"move 1 {BOB_LAYOUT}")
    assert alice.kinds() == ["move"] and alice.notices[0].text == "Your move at table #1, Mono (bob moved)"
    assert bob.kinds() == ["challenge", "move"]

    # Her own move, which keeps the turn hers (a probe held open), tells nobody.
    run_command(hub, "alice", "move 1 a1,hold")
    assert alice.kinds() == ["move"] and bob.kinds() == ["challenge", "move"]
    # The challenged player hears "your move" in the challenge when the first move is hers.
    assert run_command(hub, "carol", "challenge copolymer --size 5 alice:ai").status == 0  # a computer named alice
    assert alice.kinds() == ["move"]
    run_command(hub, "carol", "challenge copolymer --size 5 --casual alice")
    assert alice.notices[-1].text == "carol challenges you: table #3, Copolymer (casual)"


def test_an_undo_request_asks_the_other_players_wherever_they_are(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    bob = Heard()
    hub.notices.attach("bob", bob)
    table = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice", rated=False)
    table.play(0, "A1")
    table.request_undo(0)
    assert bob.kinds() == ["challenge", "move", "undo"]
    assert bob.notices[-1].text == "alice asks to take back a move at table #1, Copolymer: your answer is awaited there"


def test_notify_sets_how_a_player_hears_and_off_tells_her_nothing(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    bob = Heard()
    hub.notices.attach("bob", bob)
    assert "notices: bell" in run_command(hub, "bob", "notify").stdout
    assert run_command(hub, "bob", "notify desktop").status == 0
    assert "notices: desktop" in run_command(hub, "Bob", "notify").stdout  # one account, whatever its case
    run_command(hub, "alice", "challenge copolymer --size 5 bob")
    assert [notice.mode for notice in bob.notices] == ["desktop"]
    run_command(hub, "bob", "notify off")
    run_command(hub, "alice", "move 1 A1")
    assert len(bob.notices) == 1
    refused = run_command(hub, "bob", "notify loud")
    assert refused.status == 2 and refused.stderr.count("\n") == 1 and "usage: notify" in refused.stderr
    guest = run_command(hub, "guest-x-0123456789abcdef", "notify desktop")
    assert guest.status == 2 and "sign in with an SSH key" in guest.stderr


def test_the_desktop_notification_cannot_be_ended_early_by_a_name():
    sequence = desktop_sequence("Your move at table #3, Mono (\x1b]0;pwned\x07\x9c\x9d\x1b\\bob moved)")
    assert sequence.startswith("\x1b]9;termgames: Your move") and sequence.endswith("\x07")
    inner = sequence[len("\x1b]9;") : -1]
    assert not any(c in inner for c in "\x1b\x07\x9c\x9d\x90\x98\x9e\x9f") and inner.isprintable()


async def test_bobs_move_rings_alices_lobby_and_not_her_table_screen(tmp_path, new_store, monkeypatch):
    hub = make_hub(new_store, tmp_path)
    table = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "alice", rated=False)
    table.play(0, "A1")
    app = ServeApp(hub=hub, player="alice")
    rang: list[str] = []
    toasts: list[str] = []
    written: list[str] = []
    monkeypatch.setattr(app, "bell", lambda: rang.append("bell"))
    monkeypatch.setattr(app, "write_to_terminal", written.append)
    real_notify = app.notify
    monkeypatch.setattr(app, "notify", lambda text, **kw: (toasts.append(text), real_notify(text, **kw)))
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, LobbyScreen)
        table.play(1, "E5")
        await pilot.pause()
        assert toasts == ["Your move at table #1, Copolymer (bob moved)"] and rang == ["bell"] and written == []

        run_command(hub, "alice", "notify desktop")
        table.play(0, "B2")
        table.play(1, "D4")
        await pilot.pause()
        assert rang == ["bell", "bell"]
        assert written == ["\x1b]9;termgames: Your move at table #1, Copolymer (bob moved)\x07"]

        app.open_table(1)
        await pilot.pause()
        assert isinstance(app.screen, SharedGameMixin)
        table.play(0, "C3")
        table.play(1, "C1")
        await pilot.pause()
        assert len(toasts) == 2 and len(rang) == 2  # she sees it at the table
        app.release_tables()
        assert not hub.notices.is_connected("alice")


async def test_a_move_at_another_server_tells_a_player_connected_here(servers):
    a, b = servers
    alice = Heard()
    a.notices.attach("alice", alice)
    table = b.create_table("copolymer", {"size": 5}, [Seat(name="bob"), Seat(name="alice")], "bob", rated=False)
    await until(lambda: alice.kinds() == ["challenge"])
    b.table(table.id).play(0, "A1")
    await until(lambda: alice.kinds() == ["challenge", "move"])
    a.table(table.id).play(1, "E5")  # alice's own move, at her server
    a.table(table.id).request_undo(1)
    # News reach a server in the order they were made: once a later challenge made at b is heard, any news of
    # her own move and request would have been too.
    b.create_table("copolymer", {"size": 5}, [Seat(name="bob"), Seat(name="alice")], "bob", rated=False)
    await until(lambda: len(alice.kinds()) > 2)
    assert alice.kinds() == ["challenge", "move", "challenge"]  # her own move and her own request told her nothing


# -- mail ---------------------------------------------------------------------------------------


class MailKept:
    """aiosmtpd's handler: every mail it is given, parsed."""

    def __init__(self) -> None:
        self.mails: list[email.message.EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []

    async def handle_DATA(self, server, session, envelope):
        self.mails.append(email.message_from_bytes(envelope.content, policy=email.policy.default))
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        return "250 OK"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def code_in(mail) -> str:
    body = mail.get_content()
    return body.split("The code is ", 1)[1].split(" ", 1)[0]


async def confirmed(hub, kept, player: str, address: str) -> None:
    def mails_to() -> list:
        return [mail for mail in kept.mails if mail["To"] == address]

    before = len(mails_to())
    asked = run_command(hub, player, f"notify --email {address}")
    assert asked.status == 0, asked.stderr
    await until(lambda: len(mails_to()) > before)
    done = run_command(hub, player, f"notify --confirm {code_in(mails_to()[-1])}")
    assert done.status == 0, done.stderr


async def sent(futures) -> None:
    for future in futures:
        await asyncio.wrap_future(future)


def later(hours: float = 0.0, seconds: float = 0.0) -> datetime:
    return datetime.now(UTC) + timedelta(hours=hours, seconds=seconds)


async def test_an_address_is_confirmed_by_the_code_mailed_to_it(tmp_path, new_store, relay):
    config, kept = relay
    hub = make_hub(new_store, tmp_path, config)
    asked = run_command(hub, "alice", "notify --email Alice@Example.ORG")
    assert asked.status == 0 and "on its way to Alice@example.org" in asked.stdout
    await until(lambda: len(kept.mails) == 1)
    mail = kept.mails[0]
    assert mail["To"] == "Alice@example.org" and mail["From"] == "games@example.org"
    assert mail["Subject"] == "termgames: confirm your address"
    assert kept.envelopes[0] == ("games@example.org", ["Alice@example.org"])
    code = code_in(mail)
    assert "not confirmed" in run_command(hub, "alice", "notify").stdout

    wrong = run_command(hub, "alice", "notify --confirm AAAA-AAAA")
    assert wrong.status == 2 and "not the code" in wrong.stderr and "4 tries left" in wrong.stderr
    assert hub.store.notice_settings("alice").confirmed is False
    right = run_command(hub, "alice", f"notify --confirm {code.lower()}")  # as typed: case and dash do not matter
    assert right.status == 0 and "is confirmed" in right.stdout
    assert hub.store.notice_settings("alice").confirmed is True
    assert code not in repr(hub.store.notice_settings("alice"))  # only a hash was ever kept, and it is spent
    again = run_command(hub, "alice", f"notify --confirm {code}")
    assert again.status == 2 and "no confirmation is waiting" in again.stderr

    assert run_command(hub, "alice", "notify --no-email").status == 0
    assert hub.store.notice_settings("alice").email == ""


async def test_wrong_codes_spend_a_confirmation(tmp_path, new_store, relay):
    config, kept = relay
    hub = make_hub(new_store, tmp_path, config)
    run_command(hub, "alice", "notify --email alice@example.org")
    await until(lambda: len(kept.mails) == 1)
    for _ in range(notify_module.MAX_CODE_TRIES):
        assert run_command(hub, "alice", "notify --confirm ZZZZ-ZZZZ").status == 2
    spent = run_command(hub, "alice", f"notify --confirm {code_in(kept.mails[0])}")
    assert spent.status == 2 and "too many wrong codes" in spent.stderr


async def handed_over(hub) -> None:
    """Every mail the hub gave its mail thread so far has been handed to the relay (the thread takes them in turn)."""
    await asyncio.wrap_future(hub.notices.mailer._pool.submit(lambda: None))


class Clock:
    """The hub's clock (seconds since the epoch), moved on by the test: no test waits for time to pass."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def later(self, minutes: float) -> None:
        self.now += minutes * 60


def clocked_hub(new_store, folder, config: MailConfig, **limits) -> tuple[Hub, Clock]:
    clock = Clock()
    return Hub(new_store(), folder / "records", mail=config, now=clock, **limits), clock


async def test_confirmation_mails_are_throttled_per_person_and_per_mailbox(tmp_path, new_store, relay):
    config, kept = relay
    hub, clock = clocked_hub(new_store, tmp_path, config)
    assert run_command(hub, "alice", "notify --email alice@example.org", owner="key:A").status == 0
    same_person = run_command(hub, "alias", "notify --email other@example.org", owner="key:A")
    assert same_person.status == 2 and "you asked for a confirmation mail" in same_person.stderr
    await until(lambda: len(kept.mails) == 1)
    clock.later(11)
    assert run_command(hub, "alias", "notify --email other@example.org", owner="key:A").status == 0
    same_box = run_command(hub, "carol", "notify --email other@example.org", owner="key:C")
    assert same_box.status == 0 and "no new one goes meanwhile" in same_box.stdout
    await until(lambda: len(kept.mails) == 2)
    # The mailer sends one mail at a time, in the order handed over: once this no-op has run, any third mail
    # handed over above would have been sent.
    await asyncio.wrap_future(hub.notices.mailer._pool.submit(lambda: None))
    assert len(kept.mails) == 2


async def test_a_stranger_asking_again_and_again_cannot_keep_the_owner_of_an_address_from_confirming_it(
    tmp_path, new_store, relay
):
    config, kept = relay
    hub, clock = clocked_hub(new_store, tmp_path, config)
    assert run_command(hub, "mallory", "notify --email target@gmail.com", owner="key:M").status == 0
    await until(lambda: len(kept.mails) == 1)
    # Ten minutes later, again: the code waiting at that mailbox (30 minutes) is not renewed, and no mail goes.
    clock.later(11)
    again = run_command(hub, "mallory", "notify --email target@gmail.com", owner="key:M")
    assert again.status == 0 and "no new one goes meanwhile" in again.stdout
    # Nor does he free her mailbox by giving his account another address, or none, or by asking with another key.
    clock.later(11)
    assert run_command(hub, "mallory", "notify --email elsewhere@example.org", owner="key:M").status == 0
    assert run_command(hub, "mallory", "notify --no-email", owner="key:M").status == 0
    clock.later(1)
    again = run_command(hub, "mallory2", "notify --email target@gmail.com", owner="key:M2")
    assert again.status == 0 and "no new one goes meanwhile" in again.stdout
    await until(lambda: len(kept.mails) == 2)
    # Its owner asks, under another spelling of her mailbox: she is given the code waiting there.
    mine = run_command(hub, "target", "notify --email Tar.Get+games@googlemail.com", owner="key:T")
    assert mine.status == 0 and "whoever reads that mailbox confirms with it" in mine.stdout
    await handed_over(hub)
    assert [mail["To"] for mail in kept.mails] == ["target@gmail.com", "elsewhere@example.org"]
    done = run_command(hub, "target", f"notify --confirm {code_in(kept.mails[0])}")
    assert done.status == 0, done.stderr
    settings = hub.store.notice_settings("target")
    assert settings.confirmed and settings.email == "Tar.Get+games@googlemail.com"
    # The code is spent: mallory's account gets nothing of her mailbox.
    assert not hub.store.notice_settings("mallory").confirmed
    spent = run_command(hub, "mallory", f"notify --confirm {code_in(kept.mails[0])}")
    assert spent.status == 2 and "no confirmation is waiting" in spent.stderr


async def test_confirmation_mails_are_capped_per_account_per_source_address_and_per_server(
    tmp_path, new_store, relay
):
    config, kept = relay
    hub, clock = clocked_hub(new_store, tmp_path, config, max_confirmations_per_hour=8)

    def ask(player: str, to: str, address: str = "192.0.2.1"):
        return run_command(hub, player, f"notify --email {to}", owner=f"key:{player}", address=address)

    # One account: three an hour, whatever the addresses.
    for n in range(3):
        assert ask("alice", f"alice{n}@example.org").status == 0
        clock.later(11)
    refused = ask("alice", "alice3@example.org")
    assert refused.status == 2 and refused.stderr.count("\n") == 1
    assert "3 confirmation mails went for this account within the hour" in refused.stderr
    # One source address: five an hour, whatever the accounts (fresh keys).
    for n in range(2):
        assert ask(f"fresh{n}", f"fresh{n}@example.org").status == 0
    refused = ask("fresh2", "fresh2@example.org")
    assert refused.status == 2 and "asked for from your address within the hour" in refused.stderr
    # The whole server: eight an hour, whatever the addresses.
    for n in range(3):
        assert ask(f"far{n}", f"far{n}@example.org", address=f"198.51.100.{n}").status == 0
    refused = ask("far3", "far3@example.org", address="198.51.100.3")
    assert refused.status == 2 and "this server sent 8 confirmation mails within the hour" in refused.stderr
    await until(lambda: len(kept.mails) == 8)
    clock.later(61)  # an hour later, mail goes again
    assert ask("alice", "alice3@example.org").status == 0
    await until(lambda: len(kept.mails) == 9)


async def test_twenty_fresh_keys_from_one_address_make_five_confirmation_mails(tmp_path, relay):
    import asyncssh

    from termgames.server.ssh import start_server

    config, kept = relay
    server = await start_server(tmp_path, "127.0.0.1", 0, mail=config)
    try:
        answers = []
        for n in range(20):
            key = asyncssh.generate_private_key("ssh-ed25519")
            async with asyncssh.connect(
                "127.0.0.1", server.port, username=f"pills{n}.example.com", client_keys=[key], known_hosts=None,
                preferred_auth="publickey",
            ) as conn:
                answers.append(await conn.run(f"notify --email victim{n}@example.org", check=False))
        assert [answer.exit_status for answer in answers] == [0] * 5 + [2] * 15
        assert answers[-1].stderr == (
            "termgames: 5 confirmation mails were asked for from your address within the hour, its limit: "
            "try again later\n"
        )
        await handed_over(server.hub)
        assert len(kept.mails) == 5
        assert not any("pills" in mail.get_content() for mail in kept.mails)
    finally:
        await server.close()


async def test_the_confirmation_mail_quotes_no_name_a_stranger_chose(tmp_path, new_store, relay):
    config, kept = relay
    hub = make_hub(new_store, tmp_path, config)
    assert run_command(hub, "pills1.example.com", "notify --email victim@example.org").status == 0
    await until(lambda: len(kept.mails) == 1)
    body = kept.mails[0].get_content()
    assert "pills1" not in body and "example.com" not in body
    code = code_in(kept.mails[0])
    assert f"ssh -p 2222 NAME@localhost notify --confirm {code}" in body


BAD_ADDRESSES = [
    "",
    "alice",
    "alice@localhost",
    "Alice <alice@example.org>",
    "alice@example.org, bob@example.org",
    "alice@example.org\r\nBcc: victim@example.org",
    "alice@example.org\nSubject: hi",
    '"alice smith"@example.org',
    "alice@[127.0.0.1]",
    "alice@example.org (comment)",
    "alice..x@example.org",
    "alice@exa_mple.org",
    "élise@example.org",
    "alice@bücher.example",
    "a" * 65 + "@example.org",
    "alice@" + "a." * 130 + "org",
    "alice@@example.org",
    "alice@example.123",
]


@pytest.mark.parametrize("address", BAD_ADDRESSES)
def test_anything_but_one_plain_address_is_refused(address):
    with pytest.raises(RuleError) as refused:
        check_address(address)
    assert "\n" not in str(refused.value)


async def test_a_bad_address_is_refused_in_one_line_and_nothing_is_sent(tmp_path, new_store, relay):
    config, kept = relay
    hub = make_hub(new_store, tmp_path, config)
    for address in BAD_ADDRESSES[1:8]:
        refused = run_command(hub, "alice", "notify --email " + repr(address))
        assert refused.status == 2 and refused.stderr.count("\n") == 1 and refused.stdout == "", address
        assert "\r" not in refused.stderr
    assert run_command(hub, "alice", "notify --email a@example.org b@example.org").status == 2
    await all_mail_sent()
    assert kept.mails == [] and hub.store.notice_settings("alice").email == ""


def test_no_player_text_reaches_a_header():
    config = MailConfig("127.0.0.1", 25, "games@example.org")
    for to in ("x@example.org\r\nBcc: y@example.org", "x@example.org, y@example.org"):
        with pytest.raises(RuleError):
            new_message(config, to, "termgames: hi", "body")
    with pytest.raises(ValueError):
        new_message(config, "x@example.org", "termgames\r\nBcc: y@example.org", "body")
    hostile = Waiting(7, "Mono", ("bob\r\nBcc: y@example.org\x1b[2J",), None, 7200.0)
    mail = digest_mail(config, "x@example.org", [hostile], 24, "ssh x@localhost")
    assert sorted(mail.keys()) == ["Auto-Submitted", "Content-Transfer-Encoding", "Content-Type", "Date", "From",
                                   "MIME-Version", "Message-ID", "Subject", "To"]
    assert mail["Subject"] == "termgames: your move at 1 table" and "Bcc" not in str(mail["To"])
    body = mail.get_content()
    assert "\x1b" not in body and "\r" not in body
    assert "#7 Mono against bob\\r\\nBcc: y@example.org\\x1b[2J: waiting 2 hours" in body


def test_a_mailbox_is_one_whatever_its_spelling():
    assert mailbox_of("A.lice+x@Example.org") == mailbox_of("alice@example.org") == "alice@example.org"
    # As the big providers compare them: googlemail.com is gmail.com, its dots and +tags reach one mailbox.
    assert mailbox_of("Tar.Get+x@googlemail.com") == mailbox_of("target@gmail.com") == "target@gmail.com"


async def test_a_digest_lists_every_waiting_table_hides_nothing_and_goes_once_a_day(tmp_path, new_store, relay):
    config, kept = relay
    hub = make_hub(new_store, tmp_path, config)
    await confirmed(hub, kept, "alice", "alice@example.org")
    run_command(hub, "alice", "challenge mono --size 5 --no-auto bob")
    run_command(hub, "alice", "challenge copolymer --size 5 carol")
    run_command(hub, "dave", "challenge copolymer --size 5 alice")
    run_command(hub, "alice", f"move 1 {ALICE_LAYOUT}")
    run_command(hub, "bob", f"move 1 {BOB_LAYOUT}")  # alice's move at 1 (Mono) and 2; dave's at 3
    mails = len(kept.mails)
    await sent(hub.notices.mail_round(later(seconds=AWAY_SECONDS + 60)))
    assert len(kept.mails) == mails + 1
    digest = kept.mails[-1]
    assert digest["Subject"] == "termgames: your move at 2 tables" and digest["To"] == "alice@example.org"
    body = digest.get_content()
    lines = [line for line in body.splitlines() if line.startswith("  #")]
    assert sorted(line.split(":")[0] for line in lines) == ["  #1 Mono against bob", "  #2 Copolymer against carol"]
    # How to play there, with the command that signs her in at this server.
    assert "ssh -p 2222 alice@localhost show TABLE" in body and "ssh -p 2222 alice@localhost notify --no-email" in body
    for table_id in (1, 2):  # each table with the command that shows it
        assert f"\n      ssh -p 2222 alice@localhost show {table_id}    " in body
    # Nothing hidden: neither layout, no move, no board.
    assert ALICE_LAYOUT not in body and BOB_LAYOUT not in body and "a1" not in body.lower()

    # One a day: not again an hour later, again a day later.
    await sent(hub.notices.mail_round(later(hours=1)))
    assert len(kept.mails) == mails + 1
    await sent(hub.notices.mail_round(later(hours=25)))
    assert len(kept.mails) == mails + 2


async def test_least_time_left_first_where_tables_have_clocks(tmp_path, new_store, relay, monkeypatch):
    config, _kept = relay
    hub = make_hub(new_store, tmp_path, config)
    for opponent in ("bob", "carol", "dave"):
        run_command(hub, opponent, "challenge copolymer --size 5 alice")
        run_command(hub, opponent, f"move {len(hub.tables)} A1")
    run_command(hub, "erin", "challenge copolymer --size 5 alice")
    run_command(hub, "erin", "move 4 A1")
    # Table 1 has waited a day, table 4 an hour: without clocks, the longest wait comes first.
    for table_id, hours in ((1, 24), (4, 1)):
        moves = hub.table(table_id).match.moves
        moves[-1] = replace(moves[-1], time=notices_module.iso(datetime.now(UTC) - timedelta(hours=hours)))
    left = {1: None, 2: 3600.0, 3: 60.0, 4: None}
    monkeypatch.setattr(notices_module, "time_left", lambda table, seat: left[table.id])
    waiting = hub.notices.waiting_tables("alice")
    assert [w.table_id for w in waiting] == [3, 2, 1, 4]
    assert [line.split(": ")[1] for line in map(waiting_line, waiting)] == [
        "1 minute left", "1 hour left", "waiting 1 day", "waiting 1 hour"
    ]


@pytest.mark.parametrize(("seconds", "said"), [
    (2 * 86400 + 23 * 3600 + 55 * 60, "3 days"), (179, "3 minutes"), (29, "under a minute"), (31, "1 minute"),
    (59 * 60 + 40, "1 hour"), (90 * 60, "2 hours"), (23 * 3600 + 40 * 60, "1 day"), (36 * 3600, "2 days"),
])
def test_times_are_said_to_the_nearest_unit(seconds, said):
    assert describe_seconds(seconds) == said


async def test_a_table_without_a_move_has_waited_since_it_was_made(tmp_path, new_store):
    hub = make_hub(new_store, tmp_path)
    table = hub.create_table("copolymer", {"size": 5}, [Seat(name="alice"), Seat(name="bob")], "bob", rated=False)
    assert table.match.moves == []
    [entry] = hub.notices.waiting_tables("alice", later(seconds=5 * 60))
    assert waiting_line(entry).endswith(": waiting 5 minutes")
    # ... and as the store keeps it (a server started again).
    again = make_hub(new_store, tmp_path)
    [entry] = again.notices.waiting_tables("alice", later(seconds=5 * 60))
    assert waiting_line(entry).endswith(": waiting 5 minutes")


async def test_no_digest_while_connected_nor_to_an_unconfirmed_address(tmp_path, new_store, relay):
    config, kept = relay
    hub = make_hub(new_store, tmp_path, config)
    run_command(hub, "bob", "challenge copolymer --size 5 alice")
    run_command(hub, "bob", "move 1 A1")
    run_command(hub, "bob", "challenge copolymer --size 5 carol")
    run_command(hub, "bob", "move 2 A1")
    run_command(hub, "carol", "notify --email carol@example.org")  # never confirmed
    await confirmed(hub, kept, "alice", "alice@example.org")
    mails = len(kept.mails)
    app = Heard()
    hub.notices.attach("alice", app)
    assert hub.notices.mail_round(later(hours=30)) == []
    hub.notices.detach("alice", app)
    assert hub.notices.mail_round(later(seconds=60)) == []  # she has just left: not away yet
    await sent(hub.notices.mail_round(later(seconds=AWAY_SECONDS + 60)))
    assert [mail["To"] for mail in kept.mails[mails:]] == ["alice@example.org"]


async def test_a_clock_low_warning_goes_once_per_move_and_not_while_connected(tmp_path, new_store, relay):
    config, kept = relay
    hub = make_hub(new_store, tmp_path, config)
    await confirmed(hub, kept, "alice", "alice@example.org")
    run_command(hub, "bob", "challenge copolymer --size 5 alice")
    run_command(hub, "bob", "move 1 A1")
    table = hub.table(1)
    mails = len(kept.mails)
    app = Heard()
    hub.notices.attach("alice", app)
    hub.players_news(table, "clock", [1])  # what the clocks call (LiveTable's hub), once per move
    assert app.kinds() == ["clock"]
    await all_mail_sent()
    assert len(kept.mails) == mails  # she is here: the notice is enough
    hub.notices.detach("alice", app)
    hub.store.mark_seen(["alice"], notices_module.iso(datetime.now(UTC) - timedelta(hours=1)))
    hub.notices.clock_low(table, 1)
    hub.notices.clock_low(table, 1)
    await all_mail_sent()
    assert len(kept.mails) == mails + 1
    warning = kept.mails[-1]
    assert warning["Subject"] == "termgames: your time runs low at table 1"
    assert "#1 Copolymer against bob" in warning.get_content()
    # The command that reaches the table.
    assert "ssh -p 2222 alice@localhost show 1 shows it" in warning.get_content()
    assert warnings_kept(hub.store) == 1
    hub.store.finish_table(1, outcome="bob wins")  # what a warning was kept for is over: it goes
    assert warnings_kept(hub.store) == 0


def warnings_kept(store) -> int:
    """Rows of the store's ``mail_warnings`` (one per warning mailed: player, table, ply)."""
    if hasattr(store, "db"):  # SQLite
        return int(store.db.execute("SELECT count(*) FROM mail_warnings").fetchone()[0])
    return int(store._run(lambda c: c.fetchval("SELECT count(*) FROM mail_warnings")))


async def test_one_server_of_two_sends_a_digest(servers, relay):
    config, kept = relay
    a, b = servers
    for hub in servers:
        hub.notices.mailer = notices_module.Mailer(config)
    await confirmed(a, kept, "alice", "alice@example.org")
    table = a.create_table("copolymer", {"size": 5}, [Seat(name="bob"), Seat(name="alice")], "bob", rated=False)
    table.play(0, "A1")
    await until(lambda: table.id in b.tables and len(b.table(table.id).match.moves) == 1)
    mails = len(kept.mails)
    moment = later(seconds=AWAY_SECONDS + 60)
    await sent(a.notices.mail_round(moment) + b.notices.mail_round(moment))
    assert len(kept.mails) == mails + 1


@pytest.fixture
async def servers(pg_url, tmp_path):
    """Two hubs (two servers) on one PostgreSQL database."""
    async with pg_servers(pg_url, tmp_path, 2) as hubs:
        yield hubs


# -- over SSH: what reaches the players' terminals ------------------------------------------------


async def test_over_ssh_the_bell_and_osc_9_reach_her_terminal_and_no_one_watching_with_her(tmp_path):
    import asyncssh
    from sshterm import command, connect

    from termgames.server.ssh import start_server

    keys = {name: asyncssh.generate_private_key("ssh-ed25519") for name in ("alice", "bob", "carol", "erin")}
    server = await start_server(tmp_path, "127.0.0.1", 0)
    port = server.port
    clients = []
    try:
        assert (await command(port, "alice", keys["alice"], "notify desktop")).exit_status == 0
        await command(port, "alice", keys["alice"], "challenge copolymer --size 5 --casual bob")
        await command(port, "carol", keys["carol"], "challenge copolymer --size 5 --casual dave")
        alice = await connect(port, "alice", keys["alice"])
        erin = await connect(port, "erin", keys["erin"])
        clients = [alice, erin]
        # Both watch carol's table, drawn alike: alice's app draws for erin too (she came first).
        await alice.wait_for("Being played")
        await alice.press("down", "w")
        await alice.wait_for("carol  vs  dave")
        await erin.wait_for("Being played")
        await erin.press("down", "w")
        await erin.wait_for("carol  vs  dave")
        sessions = {session.player: session for session in server.sessions}
        await until(lambda: server.spectator_groups.followers(sessions["alice"]) == [sessions["erin"]])

        await command(port, "alice", keys["alice"], "move 1 A1")
        erin_before = len(erin.raw)
        moved = await command(port, "bob", keys["bob"], "move 1 E5")
        assert moved.exit_status == 0
        await alice.wait_for("Your move at table #1")
        osc = b"\x1b]9;termgames: Your move at table #1, Copolymer (bob moved)\x07"
        assert osc in alice.raw
        assert alice.raw.replace(osc, b"").count(b"\x07") >= 1  # the bell, besides the notification's end
        # A move at the table erin watches, after alice's notice: once erin's screen shows it, whatever was sent
        # down her channel before it has arrived.
        assert (await command(port, "carol", keys["carol"], "move 2 A1")).exit_status == 0
        await erin.wait_for("carol claimed A1")
        assert b"Your move" not in bytes(erin.raw[erin_before:]) and b"\x1b]9;" not in erin.raw
        assert "Your move" not in erin.text() and "carol  vs  dave" in erin.text()
        assert not server.spectator_groups.followers(sessions["alice"])  # she draws for herself from now on
    finally:
        for client in clients:
            await client.close()
        await server.close()


def self_signed(folder) -> tuple[str, str]:
    """A certificate for 127.0.0.1 and its key, as files (the relay's; the test's client trusts it)."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "relay.pem", folder / "relay.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return str(cert_file), str(key_file)


def test_starttls_when_offered_and_the_password_only_over_tls(tmp_path, monkeypatch):
    import ssl

    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult

    from termgames.server import mail as mail_module

    cert, key = self_signed(tmp_path)
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    logins: list[tuple[bytes, bytes, bool]] = []

    def authenticate(server, session, envelope, mechanism, data):
        logins.append((data.login, data.password, session.ssl is not None))
        return AuthResult(success=data.password == b"s3cret")

    kept = MailKept()
    controller = Controller(
        kept, hostname="127.0.0.1", port=free_port(), tls_context=server_tls, require_starttls=True,
        authenticator=authenticate, auth_required=True,
    )
    controller.start()
    trusting = ssl.create_default_context(cafile=cert)
    monkeypatch.setattr(ssl, "create_default_context", lambda *args, **kwargs: trusting)
    try:
        config = MailConfig("127.0.0.1", controller.port, "games@example.org", "games", "s3cret")
        mail_module.send_now(config, new_message(config, "alice@example.org", "termgames: hi", "hello"))
        assert len(kept.mails) == 1 and logins == [(b"games", b"s3cret", True)]
    finally:
        controller.stop()

    plain = MailKept()
    controller = Controller(plain, hostname="127.0.0.1", port=free_port())  # no STARTTLS offered
    controller.start()
    monkeypatch.setattr(mail_module, "_is_loopback", lambda host: False)  # as if the relay were elsewhere
    try:
        config = MailConfig("127.0.0.1", controller.port, "games@example.org", "games", "s3cret")
        with pytest.raises(mail_module.MailError, match="not sent in the clear"):
            mail_module.send_now(config, new_message(config, "alice@example.org", "termgames: hi", "hello"))
        assert plain.mails == []
    finally:
        controller.stop()


def test_serve_refuses_a_half_given_relay_or_a_bad_sender_in_one_line():
    from typer.testing import CliRunner

    from termgames.cli import app

    runner = CliRunner()
    for args, said in (
        (["--smtp", "localhost:25"], "go together"),
        (["--mail-from", "games@example.org"], "go together"),
        (["--smtp", "localhost", "--mail-from", "games@example.org"], "--smtp takes HOST:PORT"),
        (["--smtp", "localhost:25", "--mail-from", "Games <games@example.org>"], "is not one plain address"),
        (["--smtp", "localhost:25", "--mail-from", "games@example.org", "--mail-every", "0"], "--mail-every"),
        (["--public-address", "games.example.org:0"], "--public-address takes HOST or HOST:PORT"),
        (["--public-address", "games example\x1b]0;x\x07"], "is not a host name or address"),
    ):
        result = runner.invoke(app, ["serve", *args])
        assert result.exit_code == 2 and said in result.output and result.output.count("\n") == 1, args
