"""``termgames serve``'s configuration as data: one typed :class:`ServerConfig`, checked in one place.

Every setting is one field of :class:`ServerConfig` with its flag, help, bounds and default (from
:mod:`.limits`).  A server's settings come from, later ones winning:

1. the defaults;
2. a TOML file, ``--config FILE.toml``, whose keys are the flags' names without their dashes
   (``max-tables = 150``, ``web = 8080``, ``public-address = "games.example.org:2222"``);
3. environment variables ``TERMGAMES_`` and the flag's name in capitals with underscores
   (``TERMGAMES_MAX_TABLES=150``; ``TERMGAMES_DB`` as before);
4. the command line.

:func:`build` reads them and :meth:`ServerConfig.check` checks the result, every mistake one line
(:class:`ConfigError`).  The CLI's ``serve`` command is made from the fields (``termgames.cli``), the server
(:func:`termgames.server.run.serve_forever`, :func:`termgames.server.ssh.start_server`, the hub) takes the
config: a new limit is one field here and its use where it is enforced.

The relay's password and user stay in the environment only (``TERMGAMES_SMTP_PASSWORD``,
``TERMGAMES_SMTP_USER``): a config file is easier to leak than a process's environment.

Imports nothing of the server (``termgames serve --help`` stays fast).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..paths import FileRefused, read_regular
from . import limits

#: The environment variables' prefix.
ENV_PREFIX = "TERMGAMES_"
#: Settings no file or environment may give (they only make sense on one command line).
COMMAND_LINE_ONLY = frozenset({"reuse_port"})
#: The longest config file read (a config is a few hundred bytes).
MAX_CONFIG_BYTES = 64 * 1024

COLOR_SYSTEMS = ("256", "truecolor", "standard")


class ConfigError(ValueError):
    """A setting that makes no server: ``str()`` is one line naming the setting."""


@dataclass(frozen=True)
class Setting:
    """How one field is given and checked: its flag, help, bounds and allowed words."""

    flag: str
    help: str
    metavar: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    #: The minimum is excluded (``more than 0``).
    above: bool = False
    #: What the bounds read as in an error when they are not plain ("(100 years)", " hours").
    unit: str = ""
    choices: tuple[str, ...] = ()
    hidden: bool = False

    @property
    def name(self) -> str:
        """The flag without its dashes: the config file's key."""
        return self.flag.removeprefix("--")

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper().replace("-", "_")


def _setting(default: Any, flag: str, help: str, **kwargs: Any) -> Any:
    return field(default=default, metadata={"setting": Setting(flag, help, **kwargs)})


@dataclass(frozen=True)
class ServerConfig:
    """Every setting of ``termgames serve`` (flags, config file, environment), typed and with its default."""

    host: str = _setting("127.0.0.1", "--host", "Address to listen on (loopback by default).")
    port: int = _setting(2222, "--port", "TCP port for SSH.", minimum=1, maximum=65535)
    data: Path | None = _setting(
        None, "--data", "Folder for the database, host key and records (default: your data folder's 'server')."
    )
    no_guests: bool = _setting(False, "--no-guests", "Refuse players without an SSH key.")
    colors: str = _setting("256", "--colors", "Colours for every player: 256, truecolor or standard.",
                           choices=COLOR_SYSTEMS)
    ascii: bool = _setting(False, "--ascii",
                           "Plain ASCII drawing (automatic when the locale or the terminal is not UTF-8).")
    max_auth_tries: int = _setting(limits.MAX_AUTH_TRIES, "--max-auth-tries",
                                   "Failed logins on one connection before it closes.", minimum=1)
    max_auth_failures: int = _setting(limits.MAX_AUTH_FAILURES, "--max-auth-failures",
                                      "Failed logins from one address in a minute: refused.", minimum=1)
    max_startups: int = _setting(limits.MAX_STARTUPS, "--max-startups",
                                 "Connections from one address not yet signed in, at once.", minimum=1)
    max_sessions: int = _setting(limits.SSH_MAX_SESSIONS, "--max-sessions",
                                 "SSH game screens open at once (each is an app).", minimum=1)
    max_sessions_per_player: int = _setting(
        limits.SSH_MAX_SESSIONS_PER_PLAYER, "--max-sessions-per-player",
        "SSH game screens one player may have open (one SSH key; the guests of one address together).", minimum=1,
    )
    max_sessions_per_connection: int = _setting(
        limits.SSH_MAX_CHANNELS_PER_CONNECTION, "--max-sessions-per-connection",
        "SSH game screens open on one connection.", minimum=1,
    )
    max_tables_per_player: int = _setting(
        limits.MAX_TABLES_PER_PLAYER, "--max-tables-per-player",
        "Unfinished tables one player may open (one SSH key; the guests of one address together).", minimum=1,
    )
    max_tables: int = _setting(limits.MAX_TABLES, "--max-tables", "Unfinished tables on the whole server.",
                               minimum=1)
    max_bot_tables_per_player: int = _setting(
        limits.MAX_BOT_TABLES_PER_PLAYER, "--max-bot-tables-per-player",
        "Unfinished tables of computers only one registered player may open (guests open none).", minimum=1,
    )
    max_tournaments_per_player: int = _setting(
        limits.MAX_TOURNAMENTS_PER_PLAYER, "--max-tournaments-per-player",
        "Open tournaments (waiting or running) one registered player may create (guests create none).", minimum=1,
    )
    max_tournament_entries_per_player: int = _setting(
        limits.MAX_TOURNAMENT_ENTRIES_PER_PLAYER, "--max-tournament-entries-per-player",
        "Open tournaments one player may have joined (one SSH key; the guests of one address together).",
        minimum=1,
    )
    tournament_grace_minutes: float = _setting(
        limits.TOURNAMENT_GRACE_MINUTES, "--tournament-grace-minutes",
        "Minutes a player of a tournament on a live clock may be absent at a round's start before she forfeits.",
        minimum=0, above=True, maximum=24 * 60,
    )
    idle_days: float = _setting(
        limits.IDLE_DAYS, "--idle-days", "Days without a move before a table is closed (not rated).",
        minimum=0, above=True, maximum=limits.MAX_IDLE_DAYS, unit=" (100 years)",
    )
    guest_idle_days: float = _setting(
        limits.GUEST_IDLE_DAYS, "--guest-idle-days",
        "Days without a move before a guest's table (a guest made it or sits at it), or one of computers only, "
        "is closed.", minimum=0, above=True, maximum=limits.MAX_IDLE_DAYS, unit=" (100 years)",
    )
    max_seeks_per_player: int = _setting(
        limits.MAX_SEEKS_PER_PLAYER, "--max-seeks-per-player",
        "Seeks (ssh HOST seek) one player may have waiting (one SSH key; the guests of one address together).",
        minimum=1,
    )
    max_seeks: int = _setting(limits.MAX_SEEKS, "--max-seeks", "Seeks waiting on the whole server.", minimum=1)
    seek_days: float = _setting(
        limits.SEEK_DAYS, "--seek-days", "Days a correspondence seek waits before it ends.",
        minimum=0, above=True, maximum=limits.MAX_IDLE_DAYS, unit=" (100 years)",
    )
    chat_per_minute: int = _setting(limits.CHAT_PER_MINUTE, "--chat-per-minute",
                                    "Chat lines one player may send a minute.", minimum=1)
    max_new_names_per_address: int = _setting(
        limits.MAX_NEW_NAMES_PER_ADDRESS, "--max-new-names-per-address",
        "New names (accounts) claimed from one address (an IPv6 /64) a day; loopback is not counted.", minimum=1,
    )
    new_player_tables: int = _setting(
        limits.NEW_PLAYER_TABLES, "--new-player-tables",
        "Unfinished tables a newcomer may open (one more for each rated game finished, up to "
        "--max-tables-per-player); the guests of one address together, always.", minimum=1,
    )
    max_confirmations_per_hour: int = _setting(
        limits.CONFIRMATIONS_PER_HOUR, "--max-confirmations-per-hour",
        "Confirmation mails (notify --email) the whole server sends an hour.", minimum=1,
    )
    analyses_per_day: int = _setting(
        limits.ANALYSES_PER_DAY, "--analyses-per-day",
        "Finished tables one person may have analysed a day (ssh HOST analyse TABLE; the guests of one address "
        "together).", minimum=1,
    )
    max_analyses_waiting: int = _setting(
        limits.MAX_ANALYSES_WAITING, "--max-analyses-waiting", "Analyses the server keeps waiting at once.",
        minimum=1,
    )
    ai_threads: int = _setting(limits.AI_THREADS, "--ai-threads",
                               "Threads the computer players think in (shared fairly by tables).", minimum=1)
    db: str | None = _setting(
        None, "--db", "A PostgreSQL database shared by several servers: postgresql://USER@HOST/DB "
        "(default: $TERMGAMES_DB, else SQLite in the data folder). Needs: pip install 'termgames[postgres]'.",
        metavar="URL",
    )
    workers: int = _setting(1, "--workers", "Server processes on one port (SO_REUSEPORT), sharing the PostgreSQL "
                            "of --db.", minimum=1)
    host_key: Path | None = _setting(
        None, "--host-key", "The SSH host key (made if missing): give every server behind one address the same file.",
        metavar="FILE",
    )
    smtp: str | None = _setting(
        None, "--smtp", "A mail relay: players away get a mail listing the tables where it is their move (STARTTLS "
        "when offered; the relay's password from $TERMGAMES_SMTP_PASSWORD, its user from $TERMGAMES_SMTP_USER).",
        metavar="HOST:PORT",
    )
    mail_from: str | None = _setting(None, "--mail-from", "The sender of the mail (--smtp).", metavar="ADDR")
    mail_every: float = _setting(
        limits.MAIL_EVERY_HOURS, "--mail-every", "Hours between two mails to one player.", metavar="HOURS",
        minimum=1, maximum=limits.MAX_MAIL_EVERY_HOURS, unit=" hours",
    )
    public_address: str | None = _setting(
        None, "--public-address", "How players reach this server, when not as --host and --port (a router's, a "
        "proxy's): mails and screens tell them ssh -p PORT NAME@HOST.", metavar="HOST[:PORT]",
    )
    reuse_port: bool = _setting(False, "--reuse-port", "A worker of --workers.", hidden=True)
    web_port: int | None = _setting(
        None, "--web", "Serve the lobby and tables to browsers too, on this port (0: any free one): ssh NAME@HOST web "
        "prints a link that signs a browser in.", metavar="PORT",
    )
    web_host: str | None = _setting(None, "--web-host", "Address the browser page listens on (default: --host's).",
                                    metavar="ADDRESS")
    web_cert: Path | None = _setting(
        None, "--web-cert", "TLS certificate chain (PEM) for the page: served over https.", metavar="FILE"
    )
    web_key: Path | None = _setting(None, "--web-key", "The certificate's private key (PEM).", metavar="FILE")
    web_url: str | None = _setting(
        None, "--web-url", "The page's address as players open it (a reverse proxy's), in the links web prints.",
        metavar="URL",
    )
    web_proxy: str | None = _setting(
        None, "--web-proxy",
        "Reverse proxies in front of the page: their X-Forwarded-Proto and X-Forwarded-For are believed.",
        metavar="ADDRESS[,ADDRESS]",
    )
    web_max_sessions: int = _setting(limits.WEB_MAX_SESSIONS, "--web-max-sessions",
                                     "Browser sessions open at once (each is an app).", minimum=1)
    web_max_sessions_per_player: int = _setting(
        limits.WEB_MAX_SESSIONS_PER_PLAYER, "--web-max-sessions-per-player",
        "Browser sessions one player may have open (one SSH key; the guests of one address together).", minimum=1,
    )
    web_max_connections: int = _setting(
        limits.WEB_MAX_CONNECTIONS, "--web-max-connections",
        "Connections to the browser port at once (at most half of ulimit -n: SSH keeps the rest).", minimum=1,
    )
    web_max_connections_per_address: int = _setting(
        limits.WEB_MAX_CONNECTIONS_PER_ADDRESS, "--web-max-connections-per-address",
        "Connections to the browser port from one address at once.", minimum=1,
    )
    web_request_seconds: float = _setting(
        limits.WEB_REQUEST_SECONDS, "--web-request-seconds",
        "Seconds a browser connection has to send a whole request: past them it is closed.",
        minimum=0, above=True, maximum=3600,
    )

    # -- what the settings say, read whole ------------------------------------------------

    @property
    def allow_guests(self) -> bool:
        return not self.no_guests

    @property
    def proxies(self) -> frozenset[str]:
        """The reverse proxies of ``--web-proxy``."""
        return frozenset(word.strip() for word in (self.web_proxy or "").split(",") if word.strip())

    def with_settings(self, **settings: Any) -> ServerConfig:
        """This config with some settings changed (by field name; TypeError names one that is none)."""
        return dataclasses.replace(self, **settings)

    def check(self) -> None:
        """Every setting, and the ones that go together; ConfigError, one line, for the first mistake."""
        for item in fields(self):
            setting: Setting = item.metadata["setting"]
            value = getattr(self, item.name)
            if value is None or isinstance(value, bool):
                continue
            if setting.choices and value not in setting.choices:
                raise ConfigError(f"{setting.flag} must be {_or(setting.choices)}, not {value!r}")
            if isinstance(value, (int, float)):
                _check_bounds(setting, value)
        if (self.smtp is None) != (self.mail_from is None):
            raise ConfigError("--smtp HOST:PORT and --mail-from ADDR go together: mail needs a relay and a sender")
        if self.db is not None and not self.db.startswith(("postgresql://", "postgres://")):
            raise ConfigError(f"--db takes a postgresql://USER@HOST/DB address, not {self.db!r}")
        if self.workers > 1 and self.db is None:
            raise ConfigError(
                "--workers above 1 needs a shared database (--db postgresql://...): SQLite is one process's file"
            )
        if self.host_key is not None and self.host_key.is_dir():
            raise ConfigError(f"--host-key names a file, not the folder {self.host_key}")
        if self.web_port is not None:
            self._check_web()

    def _check_web(self) -> None:
        assert self.web_port is not None
        if not 0 <= self.web_port < 65536:
            raise ConfigError(f"--web must be a port between 0 and 65535, not {self.web_port}")
        if (self.web_cert is None) != (self.web_key is None):
            raise ConfigError("--web-cert and --web-key go together (the certificate and its private key)")
        if self.web_url is not None and not self.web_url.startswith(("http://", "https://")):
            raise ConfigError(f"--web-url takes the page's address, http://... or https://..., not {self.web_url!r}")
        for address in self.proxies:
            try:
                ipaddress.ip_address(address)
            except ValueError:
                raise ConfigError(f"--web-proxy takes the proxies' IP addresses, not {address!r}") from None


def _or(words: tuple[str, ...]) -> str:
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]


def _plain(number: float) -> str:
    return f"{number:g}"


def _check_bounds(setting: Setting, value: float) -> None:
    low, high, flag = setting.minimum, setting.maximum, setting.flag
    too_low = low is not None and (value <= low if setting.above else value < low)
    too_high = high is not None and value > high
    if not (too_low or too_high):
        return
    if low is not None and high is not None:
        if setting.above:
            raise ConfigError(f"{flag} must be more than {_plain(low)} and at most {_plain(high)}{setting.unit}, "
                              f"not {_plain(value)}")
        if setting.unit:
            raise ConfigError(f"{flag} must be at least {_plain(low)} and at most {_plain(high)}{setting.unit}, "
                              f"not {_plain(value)}")
        raise ConfigError(f"{flag} must be between {_plain(low)} and {_plain(high)}, not {_plain(value)}")
    if low is not None:
        raise ConfigError(f"{flag} must be {'more than' if setting.above else 'at least'} {_plain(low)}, "
                          f"not {_plain(value)}")
    raise ConfigError(f"{flag} must be at most {_plain(high or 0)}, not {_plain(value)}")


# -- reading the sources ----------------------------------------------------------------------


def settings() -> list[tuple[dataclasses.Field[Any], Setting, Any]]:
    """Each field, its setting and its type (``int | None``...), in the order help lists them."""
    hints = typing.get_type_hints(ServerConfig)
    return [(item, item.metadata["setting"], hints[item.name]) for item in fields(ServerConfig)]


def _plain_type(kind: Any) -> Any:
    """``int`` of ``int | None``."""
    if isinstance(kind, types.UnionType):
        others = [part for part in typing.get_args(kind) if part is not type(None)]
        return others[0]
    return kind


def _parse_text(setting: Setting, kind: Any, text: str) -> Any:
    """A setting written as text (an environment variable) as its type."""
    plain = _plain_type(kind)
    if not text.strip() and plain is not kind:
        return None  # an empty variable of a setting that may be left out: left out (TERMGAMES_DB="")
    try:
        if plain is bool:
            words = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False,
                     "off": False}
            if text.strip().lower() not in words:
                raise ValueError(text)
            return words[text.strip().lower()]
        if plain is int:
            return int(text.strip())
        if plain is float:
            return float(text.strip())
        if plain is Path:
            return Path(text)
        return text
    except ValueError:
        raise ConfigError(f"${setting.env} must be {_kind_words(plain)}, not {text!r}") from None


def _kind_words(plain: Any) -> str:
    return {bool: "on or off", int: "a whole number", float: "a number", Path: "a path", str: "a text"}[plain]


def _from_file_value(setting: Setting, kind: Any, value: Any, source: str) -> Any:
    """A setting as TOML gave it, checked to be of its type."""
    plain = _plain_type(kind)
    if plain is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if plain is Path and isinstance(value, str):
        return Path(value)
    if isinstance(value, plain) and not (plain is int and isinstance(value, bool)):
        return value
    raise ConfigError(f"{source}: {setting.name} must be {_kind_words(plain)}, not {value!r}")


def read_file(path: Path) -> dict[str, Any]:
    """The settings a TOML config file gives, by field name; ConfigError (one line) for a file that is none."""
    try:
        raw = read_regular(path, MAX_CONFIG_BYTES)
    except FileRefused as why:
        raise ConfigError(f"--config {path}: {why}") from None
    import tomllib  # here: every termgames command's start would pay for the TOML parser

    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"--config {path}: not TOML: {error}") from None
    by_key = {setting.name: (item, setting, kind) for item, setting, kind in settings()}
    given: dict[str, Any] = {}
    for key, value in document.items():
        if key not in by_key or by_key[key][0].name in COMMAND_LINE_ONLY:
            known = ", ".join(sorted(name for name, (item, _s, _k) in by_key.items()
                                     if item.name not in COMMAND_LINE_ONLY))
            raise ConfigError(f"--config {path}: no setting {key!r} (the settings: {known})")
        item, setting, kind = by_key[key]
        given[item.name] = _from_file_value(setting, kind, value, f"--config {path}")
    return given


def read_environment(environ: Mapping[str, str]) -> dict[str, Any]:
    """The settings ``TERMGAMES_*`` variables give, by field name."""
    given: dict[str, Any] = {}
    for item, setting, kind in settings():
        if item.name in COMMAND_LINE_ONLY or setting.env not in environ:
            continue
        given[item.name] = _parse_text(setting, kind, environ[setting.env])
    return given


def build(
    command_line: Mapping[str, Any], config_file: Path | None, environ: Mapping[str, str]
) -> ServerConfig:
    """The server's config: the defaults, then the file, then the environment, then ``command_line`` (the
    settings given as flags, by field name), checked.  ConfigError, one line, for the first mistake."""
    given: dict[str, Any] = {}
    if config_file is not None:
        given.update(read_file(config_file))
    given.update(read_environment(environ))
    given.update(command_line)
    config = ServerConfig(**given)
    config.check()
    return config

