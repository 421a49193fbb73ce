"""How players reach the server: ``--public-address`` checked where it enters, and the ssh command it makes."""

from __future__ import annotations

import pytest

from termgames.rules import RuleError
from termgames.server.address import SshAddress, listening_address, parse_public_address


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("games.example.org", "ssh alice@games.example.org"),
        ("games.example.org:2222", "ssh -p 2222 alice@games.example.org"),
        ("games.example.org:22", "ssh alice@games.example.org"),
        ("192.0.2.7:2022", "ssh -p 2022 alice@192.0.2.7"),
        ("[2001:db8::1]:2222", "ssh -p 2222 alice@2001:db8::1"),
        ("2001:db8::1", "ssh alice@2001:db8::1"),
    ],
)
def test_a_public_address_gives_the_command_a_player_types(text, command):
    assert parse_public_address(text).command("alice") == command


@pytest.mark.parametrize(
    "text",
    ["", "games.example.org:0", "games.example.org:65536", "games.example.org:ssh", "games example.org",
     "games.example.org\x1b]0;owned\x07", "-oProxyCommand=x", "a..b", "games.example.org:22:22", "[::1]:x"],
)
def test_a_bad_public_address_is_one_line_and_nothing_from_it_reaches_a_terminal(text):
    with pytest.raises(RuleError) as refused:
        parse_public_address(text)
    said = str(refused.value)
    assert "\n" not in said and "\x1b" not in said and "\x07" not in said


def test_a_guest_is_told_to_type_a_name_and_a_screen_wants_a_terminal():
    address = SshAddress("games.example.org", 2222)
    assert address.command("guest-3f2a9c") == "ssh -p 2222 NAME@games.example.org"
    assert address.command("alice", terminal=True) == "ssh -t -p 2222 alice@games.example.org"


def test_the_listening_address_is_what_a_player_can_type():
    assert listening_address("127.0.0.1", 2222) == SshAddress("127.0.0.1", 2222)
    assert listening_address("::1", 22).command("bob") == "ssh bob@::1"
    every = listening_address("0.0.0.0", 2222)  # this machine's name: never the wildcard
    assert every.host not in ("0.0.0.0", "::", "") and every.port == 2222
