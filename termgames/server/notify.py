"""``ssh HOST notify``: how a player hears of her move, and her address for mail while she is away.

``notify`` shows the settings; ``notify off|bell|desktop`` chooses the notices (kept per account; ``bell`` by
default); ``notify --email ADDR`` sends a confirmation code to ADDR (one plain address: :func:`.mail.check_address`),
``notify --confirm CODE`` confirms it (an unconfirmed address gets nothing more), ``notify --no-email`` stops
the mail.  A confirmation mail goes at most every :data:`CONFIRM_EVERY` to one person (her SSH key, whatever
name she signs in as) and to one mailbox (:func:`.mail.mailbox_of`), at most a few an hour per account and
per source address, and at most ``--max-confirmations-per-hour`` from the whole server (:mod:`.limits`).  A
code is good for :data:`CODE_LIFETIME` and :data:`MAX_CODE_TRIES` wrong tries of each account, and the store
keeps only its salted hash.

A code is the mailbox's: while one mailed to a mailbox is good, nobody gets a new one for it (not even who
asked), and anyone who asks for that mailbox meanwhile is given the code that waits there, so whoever reads
the mailbox can always confirm it with the code in her mail, however often a stranger asks for her address.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from ..rules import RuleError
from ..untrusted import fold_name
from .hub import Hub
from .limits import CONFIRM_MINUTES, CONFIRMATIONS_PER_ACCOUNT_HOUR, CONFIRMATIONS_PER_ADDRESS_HOUR
from .mail import check_address, code_matches, confirmation_mail, hash_code, mailbox_of, new_code
from .notices import iso
from .people import address_group, is_guest, name_owner
from .stores.interface import NOTIFY_MODES, Quota

#: One confirmation mail per person and per mailbox at most this often.
CONFIRM_EVERY = timedelta(minutes=CONFIRM_MINUTES)
#: A confirmation code is good for this long, and for this many wrong tries.
CODE_LIFETIME = timedelta(minutes=30)
MAX_CODE_TRIES = 5

USAGE = "notify [off|bell|desktop] | notify --email ADDR | notify --confirm CODE | notify --no-email"

MODES = {
    "off": "no notices",
    "bell": "a line on your screen and the terminal's bell",
    "desktop": (
        "a line on your screen, the bell and a desktop notification (OSC 9: it passes SSH and screen; "
        "inside tmux only with `set -g allow-passthrough on`, else you get the bell)"
    ),
}
WHEN = "when it becomes your move at another table, you are challenged, or an undo waits for your answer"


def notify_command(hub: Hub, player: str, args: list[str], owner: str | None = None, address: str = "") -> str:
    """Run ``notify ARGS`` for ``player`` (``address``: where she connects from); the answer, or RuleError."""
    if not args:
        return describe(hub, player)
    if is_guest(player):
        raise RuleError("guests hear notices with a bell; sign in with an SSH key to choose (kept per account)")
    first, rest = args[0], args[1:]
    if first in NOTIFY_MODES and not rest:
        hub.store.set_notify_mode(player, first)
        return f"notices: {first}: {MODES[first]}" + ("" if first == "off" else f", {WHEN}")
    if first == "--email" and len(rest) == 1:
        return ask_to_confirm(hub, player, rest[0], owner, address)
    if first == "--confirm" and len(rest) == 1:
        return confirm(hub, player, rest[0])
    if first == "--no-email" and not rest:
        hub.store.clear_email(player)
        return "no more mail: your address is forgotten"
    raise RuleError(f"usage: {USAGE}")


def describe(hub: Hub, player: str) -> str:
    settings = hub.store.notice_settings(player)
    lines = [f"notices: {settings.mode}: {MODES.get(settings.mode, '')}" + (
        "" if settings.mode == "off" else f", {WHEN}"
    )]
    if is_guest(player):
        lines.append("(a guest cannot change them: sign in with an SSH key)")
    elif hub.notices.mailer is None:
        lines.append("e-mail: this server sends none")
    elif settings.email and settings.confirmed:
        lines.append(
            f"e-mail: {settings.email}: while you are away, at most one mail every {hub.notices.mail_every:g} hours"
            " listing the tables where it is your move (notify --no-email stops it)"
        )
    elif settings.email:
        lines.append(f"e-mail: {settings.email}, not confirmed: notify --confirm CODE (the code mailed to it)")
    else:
        lines.append("e-mail: none (notify --email ADDR, to hear of your move while you are away)")
    lines.append(f"usage: {USAGE}")
    return "\n".join(lines)


def ask_to_confirm(hub: Hub, player: str, text: str, owner: str | None, address: str = "") -> str:
    """Send a confirmation code to the address ``text`` (checked first), within the quotas (see the module doc);
    ``address``: where the request came from (its limit: :data:`.limits.CONFIRMATIONS_PER_ADDRESS_HOUR`)."""
    mailer = hub.notices.mailer
    if mailer is None:
        raise RuleError("this server sends no e-mail (it was started without --smtp)")
    email = check_address(text)
    mailbox = mailbox_of(email)
    code = new_code()
    now = datetime.fromtimestamp(hub.now(), UTC)
    recent, hour = iso(now - CONFIRM_EVERY), iso(now - timedelta(hours=1))
    minutes = int(CONFIRM_EVERY.total_seconds() // 60)
    quotas = [
        Quota("mail:person:" + (owner or name_owner(player)), 1, recent),
        Quota("mail:mailbox:" + mailbox, 1, recent),
        Quota("mail:account:" + fold_name(player), CONFIRMATIONS_PER_ACCOUNT_HOUR, hour),
        Quota("mail:server", hub.config.max_confirmations_per_hour, hour),
    ]
    if address:
        quotas.append(Quota("mail:from:" + address_group(address), CONFIRMATIONS_PER_ADDRESS_HOUR, hour))
    refused = hub.store.begin_confirmation(
        player, email, mailbox, hash_code(code), iso(now + CODE_LIFETIME), iso(now), quotas
    )
    lifetime = int(CODE_LIFETIME.total_seconds() // 60)
    if refused.startswith("waiting:"):
        until = refused.removeprefix("waiting:")[11:16]
        return (
            f"a code already mailed to the mailbox of {email} is good until {until} UTC, and no new one goes "
            "meanwhile: whoever reads that mailbox confirms with it (notify --confirm CODE)"
        )
    why = {
        "mail:person": f"you asked for a confirmation mail less than {minutes} minutes ago",
        "mail:mailbox": f"a confirmation mail went to that address less than {minutes} minutes ago",
        "mail:account": f"{CONFIRMATIONS_PER_ACCOUNT_HOUR} confirmation mails went for this account within the hour,"
        " its limit",
        "mail:server": f"this server sent {hub.config.max_confirmations_per_hour} confirmation mails within the hour,"
        " its limit (--max-confirmations-per-hour)",
        "mail:from": f"{CONFIRMATIONS_PER_ADDRESS_HOUR} confirmation mails were asked for from your address within"
        " the hour, its limit",
    }
    if refused:
        raise RuleError(f"{why[_kind(refused)]}: try again later")
    mailer.send(confirmation_mail(mailer.config, email, code, lifetime, hub.address.command(None)))
    return (
        f"a confirmation code is on its way to {email}: notify --confirm CODE confirms it "
        f"(good for {lifetime} minutes); until then it gets nothing more"
    )


def _kind(key: str) -> str:
    """``mail:person`` of ``mail:person:key:SHA256:...``: which quota a key is of."""
    return ":".join(key.split(":", 2)[:2])


def confirm(hub: Hub, player: str, code: str) -> str:
    settings = hub.store.notice_settings(player)
    if not settings.code_hash:
        raise RuleError("no confirmation is waiting: notify --email ADDR sends a code")
    if settings.code_expires < iso(datetime.fromtimestamp(hub.now(), UTC)):
        raise RuleError("that code's time is over: notify --email ADDR sends a new one")
    if settings.code_tries >= MAX_CODE_TRIES:
        raise RuleError("too many wrong codes: notify --email ADDR sends a new one")
    if not code_matches(code, settings.code_hash):
        hub.store.settle_code(player, right=False)
        left = MAX_CODE_TRIES - settings.code_tries - 1
        raise RuleError(f"that is not the code sent to {settings.email} ({left} tries left)")
    hub.store.settle_code(player, right=True)
    return (
        f"{settings.email} is confirmed: while you are away, at most one mail every {hub.notices.mail_every:g} hours "
        "lists the tables where it is your move"
    )
