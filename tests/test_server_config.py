"""``termgames serve``'s settings as data: ServerConfig from flags, a TOML file and TERMGAMES_* variables."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from termgames.cli import app
from termgames.server import limits
from termgames.server.config import ConfigError, ServerConfig, build, settings


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "serve.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_then_file_then_environment_then_flags(tmp_path: Path) -> None:
    assert build({}, None, {}) == ServerConfig()
    path = write(tmp_path, 'max-tables = 150\nidle-days = 7\npublic-address = "games.example.org"\nweb = 8080\n')
    from_file = build({}, path, {})
    assert (from_file.max_tables, from_file.idle_days, from_file.web_port) == (150, 7.0, 8080)
    assert from_file.public_address == "games.example.org"
    with_env = build({}, path, {"TERMGAMES_MAX_TABLES": "200", "TERMGAMES_NO_GUESTS": "yes"})
    assert with_env.max_tables == 200 and with_env.no_guests and not with_env.allow_guests
    with_flags = build({"max_tables": 300}, path, {"TERMGAMES_MAX_TABLES": "200"})
    assert with_flags.max_tables == 300 and with_flags.idle_days == 7.0


@pytest.mark.parametrize(
    ("text", "environ", "message"),
    [
        ("max-tabels = 3\n", {}, "no setting 'max-tabels' (the settings: "),
        ("max-tables = 'many'\n", {}, "max-tables must be a whole number, not 'many'"),
        ("max-tables = true\n", {}, "max-tables must be a whole number, not True"),
        ("reuse-port = true\n", {}, "no setting 'reuse-port'"),
        ("[max-tables\n", {}, "not TOML"),
        ("", {"TERMGAMES_MAX_TABLES": "lots"}, "$TERMGAMES_MAX_TABLES must be a whole number, not 'lots'"),
        ("", {"TERMGAMES_NO_GUESTS": "maybe"}, "$TERMGAMES_NO_GUESTS must be on or off"),
        ("max-tables = 0\n", {}, "--max-tables must be at least 1, not 0"),
        ("idle-days = 0\n", {}, "--idle-days must be more than 0 and at most 36500 (100 years), not 0"),
        ("mail-every = 0.5\n", {}, "--mail-every must be at least 1 and at most 8784 hours, not 0.5"),
        ("colors = 'pink'\n", {}, "--colors must be 256, truecolor or standard, not 'pink'"),
        ("smtp = 'localhost:25'\n", {}, "--smtp HOST:PORT and --mail-from ADDR go together"),
        ("workers = 2\n", {}, "--workers above 1 needs a shared database"),
        ("db = 'mysql://x'\n", {}, "--db takes a postgresql://USER@HOST/DB address"),
        ("web = 8080\nweb-proxy = 'proxy.local'\n", {}, "--web-proxy takes the proxies' IP addresses"),
    ],
)
def test_each_mistake_is_one_line(tmp_path: Path, text: str, environ: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as refused:
        build({}, write(tmp_path, text), environ)
    assert message in str(refused.value) and "\n" not in str(refused.value)


def test_an_empty_database_variable_means_sqlite() -> None:
    assert build({}, None, {"TERMGAMES_DB": ""}).db is None
    assert build({}, None, {"TERMGAMES_DB": "postgresql://u@h/db"}).db == "postgresql://u@h/db"


def test_every_setting_is_a_flag_a_key_and_a_variable() -> None:
    """A new limit is one field: serve --help, the config file and the environment all take it from there."""
    help_text = CliRunner().invoke(app, ["serve", "--help"], terminal_width=200).output
    for item, setting, _kind in settings():
        if not setting.hidden:
            assert setting.flag in help_text, setting.flag
        assert setting.env == "TERMGAMES_" + item.metadata["setting"].name.upper().replace("-", "_")
    assert ServerConfig().max_tables == limits.MAX_TABLES


def test_serve_refuses_a_bad_config_file_in_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, "max-tables = -1\n")
    result = CliRunner().invoke(app, ["serve", "--data", str(tmp_path), "--config", str(path)])
    assert result.exit_code != 0
    assert result.output.strip() == "termgames: --max-tables must be at least 1, not -1"
    # The command line wins over the file: this one is good, so the mistake left is the web proxy's.
    path = write(tmp_path, "max-tables = -1\nweb-proxy = 'nowhere'\nweb = 0\n")
    result = CliRunner().invoke(app, ["serve", "--data", str(tmp_path), "--config", str(path), "--max-tables", "9"])
    assert "--web-proxy takes the proxies' IP addresses" in result.output


async def test_the_server_runs_with_the_config(tmp_path: Path) -> None:
    from termgames.server.ssh import start_server

    config = build({}, write(tmp_path, "max-tables = 7\nmax-sessions-per-player = 2\n"), {})
    server = await start_server(tmp_path / "data", port=0, config=config)  # port 0: any free one (tests only)
    try:
        assert server.hub.config.max_tables == 7 and server.config.max_sessions_per_player == 2
        assert server.port != 0
    finally:
        await server.close()


def test_a_config_that_is_a_fifo_or_a_folder_is_refused_at_once(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "serve.toml"
    os.mkfifo(fifo)  # opened for reading, a FIFO would wait for a writer forever
    for path, message in ((fifo, "not a regular file"), (tmp_path, "not a regular file")):
        with pytest.raises(ConfigError, match=message):
            build({}, path, {})
