"""E-mail for players who are not connected: one plain address each, confirmed by a code, sent off the loop.

Off unless the server is given a relay (``termgames serve --smtp HOST:PORT --mail-from ADDR``).  Everything a
player gives passes :func:`check_address` where it comes in (one plain ASCII address: no display name, no
comment, no second address, no line break), and a mail's headers are built from that address, the server's
own ``--mail-from`` and fixed words with numbers: no other text of a player's reaches a header (the subject
names no player).  Bodies are plain text; every name in them passes the screens' sanitiser
(:func:`~termgames.untrusted.printable`) and nothing hidden is named (a table, its game, its players, how long
it waited).

Mails go through the standard library's :mod:`smtplib` in one thread of their own (a relay that takes seconds
to answer never holds the server's loop), STARTTLS whenever the relay offers it; the password
(``$TERMGAMES_SMTP_PASSWORD``) is sent only over TLS, or to a relay on this machine's loopback.  The
standard library is enough for a few mails an hour: :mod:`aiosmtplib` would bring a dependency to save one
thread.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import hmac
import logging
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..rules import RuleError
from ..untrusted import printable, quoted

if TYPE_CHECKING:
    from email.message import EmailMessage

log = logging.getLogger("termgames.server")

#: Environment variables of the relay's account: the password (never on the command line, where ps shows
#: it) and the user name (default: the --mail-from address).
PASSWORD_ENV = "TERMGAMES_SMTP_PASSWORD"
USER_ENV = "TERMGAMES_SMTP_USER"
#: Seconds to wait for the relay at each step before the mail is given up (logged).
SMTP_TIMEOUT = 30.0
#: An address's most characters (RFC 5321's path limit less its brackets), and its local part's.
MAX_ADDRESS = 254
MAX_LOCAL = 64

# RFC 5322's dot-atom: what a plain address is made of.  No quoted local parts, comments, display names,
# IP literals or non-ASCII (an internationalised address needs SMTPUTF8, which relays do not all take).
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LOCAL = re.compile(rf"{_ATEXT}(?:\.{_ATEXT})*")
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")

ADDRESS_HELP = "one plain address such as name@example.org"


def check_address(text: str) -> str:
    """``text`` as one plain e-mail address (its domain in lower case); RuleError (one line) if it is not one.

    Refused: anything but ASCII letters, digits and ``!#$%&'*+/=?^_`{|}~.-`` before one ``@``, and a domain of
    dot-separated labels of letters, digits and hyphens ending in a name (no IP literal); hence no spaces,
    commas, angle brackets, quotes, parentheses or line breaks: one address, nothing that a header could read as
    more.  At most 254 characters (64 before the ``@``).  An internationalised address (non-ASCII) is refused:
    give the domain's ASCII form (``xn--...``) and a mailbox name in ASCII.
    """
    shown = quoted(text, 80)
    if not text:
        raise RuleError(f"no address given: {ADDRESS_HELP}")
    if len(text) > MAX_ADDRESS:
        raise RuleError(f"{shown} is not an address: longer than {MAX_ADDRESS} characters")
    if not text.isascii():
        raise RuleError(
            f"{shown}: only plain ASCII addresses are taken (write the domain as xn--...); {ADDRESS_HELP}"
        )
    if text.count("@") != 1:
        raise RuleError(f"{shown} is not {ADDRESS_HELP}")
    local, domain = text.split("@")
    labels = domain.split(".")
    if (
        not _LOCAL.fullmatch(local)
        or len(local) > MAX_LOCAL
        or len(labels) < 2
        or not all(_LABEL.fullmatch(label) for label in labels)
        or labels[-1].isdigit()
    ):
        raise RuleError(f"{shown} is not {ADDRESS_HELP}")
    return f"{local}@{domain.lower()}"


#: Domains that are other names of one provider's mailboxes.
_SAME_MAILBOXES = {"googlemail.com": "gmail.com"}


def mailbox_of(address: str) -> str:
    """The mailbox ``address`` most likely reaches, as the big providers compare them: in lower case, without a
    ``+tag`` and without dots before the ``@``, ``googlemail.com`` as ``gmail.com`` (``A.lice+x@Example.org`` is
    ``alice@example.org``).  Two mailboxes that share one share the limits on mail to it, which only makes them
    stricter (dots matter at some providers: such addresses count as one)."""
    local, _, domain = address.lower().rpartition("@")
    domain = _SAME_MAILBOXES.get(domain, domain)
    return local.split("+", 1)[0].replace(".", "") + "@" + domain


# -- confirmation codes ---------------------------------------------------------------

#: Letters and digits not mistaken for each other (no 0 O 1 I): 32 symbols, 5 bits each.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8


def new_code() -> str:
    """A fresh confirmation code: 40 random bits, as ``ABCD-EFGH``."""
    code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return f"{code[:4]}-{code[4:]}"


def normal_code(text: str) -> str:
    """A code as typed, as it is hashed: upper case, without dashes and spaces."""
    return "".join(text.split()).replace("-", "").upper()


def hash_code(code: str, salt: str | None = None) -> str:
    """``salt$sha256``: what the store keeps of a code (a database reader cannot mail-confirm with it)."""
    salt = salt if salt is not None else secrets.token_hex(8)
    digest = hashlib.sha256(f"{salt}:{normal_code(code)}".encode()).hexdigest()
    return f"{salt}${digest}"


def code_matches(code: str, stored: str) -> bool:
    salt, _, _digest = stored.partition("$")
    return bool(stored) and hmac.compare_digest(hash_code(code, salt), stored)


# -- the relay --------------------------------------------------------------------------


@dataclass(frozen=True)
class MailConfig:
    """Where mail goes out (``--smtp HOST:PORT``), whom it comes from (``--mail-from``), the relay's account."""

    host: str
    port: int
    mail_from: str
    user: str = ""
    password: str = ""


def parse_relay(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:25`` for an IPv6 address) as (host, port); RuleError (one line) otherwise."""
    host, colon, port_text = text.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not colon or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise RuleError(f"--smtp takes HOST:PORT (such as localhost:25), not {quoted(text)}")
    if any(not (c.isalnum() or c in ".-:") for c in host):
        raise RuleError(f"--smtp: {quoted(host)} is not a host name or address")
    return host, int(port_text)


def mail_config(relay: str, mail_from: str, env: dict[str, str]) -> MailConfig:
    """The relay as ``termgames serve`` is given it; RuleError (one line) for a bad relay or sender."""
    host, port = parse_relay(relay)
    sender = check_address(mail_from)
    return MailConfig(host, port, sender, env.get(USER_ENV, "") or sender, env.get(PASSWORD_ENV, ""))


class MailError(Exception):
    """A mail that could not be sent (logged; the player is told nothing more)."""


def _is_loopback(host: str) -> bool:
    return host in ("localhost", "::1") or host.startswith("127.")


def send_now(config: MailConfig, message: EmailMessage) -> None:
    """Hand ``message`` to the relay (in the mail thread: this waits for the network)."""
    import smtplib
    import ssl

    context = ssl.create_default_context()
    smtp: smtplib.SMTP
    if config.port == 465:  # submissions: TLS from the first byte
        smtp = smtplib.SMTP_SSL(config.host, config.port, timeout=SMTP_TIMEOUT, context=context)
    else:
        smtp = smtplib.SMTP(config.host, config.port, timeout=SMTP_TIMEOUT)
    with smtp:
        smtp.ehlo()
        secure = config.port == 465
        if not secure and smtp.has_extn("starttls"):
            smtp.starttls(context=context)
            smtp.ehlo()
            secure = True
        if config.password:
            if not secure and not _is_loopback(config.host):
                raise MailError("the relay offers no STARTTLS: its password is not sent in the clear")
            smtp.login(config.user, config.password)
        smtp.send_message(message)


class Mailer:
    """Sends mails one at a time in a thread of its own; :meth:`send` gives a future (its failure is logged)."""

    def __init__(self, config: MailConfig) -> None:
        self.config = config
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="termgames-mail")

    def send(self, message: EmailMessage) -> concurrent.futures.Future[None]:
        future = self._pool.submit(send_now, self.config, message)
        what = str(message["Subject"])
        future.add_done_callback(lambda done: _log_failure(done, what))
        return future

    def close(self) -> None:
        """Mails already handed over are still sent (the thread ends after them); no new one is taken."""
        self._pool.shutdown(wait=False)


def _log_failure(done: concurrent.futures.Future[None], what: str) -> None:
    if done.cancelled():
        return
    error = done.exception()
    if error is not None:
        log.error("mail not sent (%s): %s", what, error)


# -- the mails ---------------------------------------------------------------------------


def _safe_subject(subject: str) -> str:
    # Fixed words and numbers only; checked all the same, as a header's last line of defence.
    if not subject.isascii() or not subject.isprintable() or len(subject) > 200:
        raise ValueError(f"not a subject: {subject!r}")
    return subject


def new_message(config: MailConfig, to: str, subject: str, body: str) -> EmailMessage:
    """A plain-text mail to ``to`` (checked again here: nothing unchecked reaches a header)."""
    from email.message import EmailMessage
    from email.policy import SMTP
    from email.utils import formatdate, make_msgid

    message = EmailMessage(policy=SMTP)
    message["From"] = check_address(config.mail_from)
    message["To"] = check_address(to)
    message["Subject"] = _safe_subject(subject)
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = make_msgid("termgames", domain=config.mail_from.rpartition("@")[2])
    message["Auto-Submitted"] = "auto-generated"  # RFC 3834: no vacation replies to a robot
    message.set_content(body)
    return message


def text_of(name: str) -> str:
    """A name or title in a mail's body: as a screen shows it (nothing in it can drive a terminal)."""
    return printable(name, keep_newlines=False)


def confirmation_mail(config: MailConfig, to: str, code: str, minutes: int, ssh: str) -> EmailMessage:
    """``ssh``: the command that signs a player in, her name left as ``NAME`` (``ssh -p 2222 NAME@games.example.org``).

    The body quotes nothing a stranger chose but the address itself: not the name of the account that asked (a
    name such as ``pills.example.com`` would read as a link)."""
    body = (
        "Someone asked a termgames server to mail this address when it is their\n"
        "move and they are away.\n\n"
        f"The code is {code} (good for {minutes} minutes). Whoever reads this mailbox\n"
        "confirms it over SSH, signed in with their own name:\n\n"
        f"    {ssh} notify --confirm {code}\n\n"
        "If that was not you, ignore this mail: without the code,\n"
        "this address gets nothing more.\n"
    )
    return new_message(config, to, "termgames: confirm your address", body)


@dataclass(frozen=True)
class Waiting:
    """One table where it is the player's move, as a digest lists it."""

    table_id: int
    title: str
    others: tuple[str, ...]
    #: Seconds left on her clock (None: the table has no clock) and seconds since it became her move.
    time_left: float | None
    waited: float


def describe_seconds(seconds: float) -> str:
    """``3 days``, ``5 hours``, ``12 minutes``: how long, to the nearest unit (2 days 23 hours 55 minutes is
    ``3 days``, 2:59 is ``3 minutes``)."""
    seconds = max(0.0, seconds)
    count, unit = _nearest(seconds / 60), "minute"
    if count == 0:
        return "under a minute"
    if count >= 60:
        count, unit = _nearest(seconds / 3600), "hour"
        if count >= 24:
            count, unit = _nearest(seconds / 86400), "day"
    return f"{count} {unit}{'s' if count != 1 else ''}"


def _nearest(value: float) -> int:
    """``value`` rounded half up (``round`` rounds 2.5 to 2)."""
    return int(value + 0.5)


def waiting_line(entry: Waiting) -> str:
    against = f" against {', '.join(text_of(name) for name in entry.others)}" if entry.others else ""
    when = (
        f"{describe_seconds(entry.time_left)} left" if entry.time_left is not None
        else f"waiting {describe_seconds(entry.waited)}"
    )
    return f"  #{entry.table_id} {text_of(entry.title)}{against}: {when}"


def table_commands(entry: Waiting, ssh: str) -> str:
    """The commands that reach ``entry``'s table, indented under its line."""
    return f"      {ssh} show {entry.table_id}    (or {ssh} move {entry.table_id} MOVE)"


def digest_mail(config: MailConfig, to: str, waiting: list[Waiting], every_hours: float, ssh: str) -> EmailMessage:
    """Every table where it is her move, least time first: table, game, players and time only, each with the
    command that shows it; ``ssh`` signs her in."""
    count = len(waiting)
    tables = "1 table" if count == 1 else f"{count} tables"
    body = (
        f"It is your move at {tables}:\n\n"
        + "\n".join(f"{waiting_line(entry)}\n{table_commands(entry, ssh)}" for entry in waiting)
        + f"\n\nPlay over SSH: {ssh} opens the lobby that lists them\n"
        f"({ssh} show TABLE shows one, {ssh} move TABLE MOVE\n"
        f"plays there). At most one such mail every {every_hours:g} hours, none while you\n"
        f"are connected; {ssh} notify --no-email stops them.\n"
    )
    return new_message(config, to, f"termgames: your move at {tables}", body)


def warning_mail(config: MailConfig, to: str, entry: Waiting, ssh: str) -> EmailMessage:
    body = (
        f"Your clock is below a fifth of its time at one table:\n\n{waiting_line(entry)}\n\n"
        f"Play there over SSH: {ssh} show {entry.table_id} shows it,\n"
        f"{ssh} move {entry.table_id} MOVE plays there ({ssh} alone opens the lobby);\n"
        f"{ssh} notify --no-email stops these mails.\n"
    )
    return new_message(config, to, f"termgames: your time runs low at table {entry.table_id}", body)


def forfeit_mail(config: MailConfig, to: str, table_id: int, reason: str, ssh: str) -> EmailMessage:
    """A tournament's game closed by a forfeit (``reason``: whose, and why), to a player who was away."""
    body = (
        f"Table {table_id} is closed: {text_of(reason)}.\n\n"
        f"{ssh} tournaments lists your tournaments, {ssh} tournament show ID their standings;\n"
        f"{ssh} notify --no-email stops these mails.\n"
    )
    return new_message(config, to, f"termgames: a forfeit at table {table_id}", body)
