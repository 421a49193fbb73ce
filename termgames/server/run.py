"""``termgames serve`` in the foreground: start, log, stop cleanly on Ctrl+C or SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from pathlib import Path

LOOPBACK = ("127.0.0.1", "::1", "localhost")


def default_data_dir() -> Path:
    from ..paths import data_dir

    return data_dir() / "server"


def serve_forever(host: str, port: int, data: Path | None, *, allow_guests: bool = True, ascii: bool = False) -> None:
    # Textual takes over sys.stdout/stderr inside apps: the server logs to the real stderr.
    handler = logging.StreamHandler(sys.__stderr__)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger = logging.getLogger("termgames.server")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    folder = data or default_data_dir()
    if host not in LOOPBACK:
        print(
            f"termgames: warning: listening on {host}, not loopback: anyone who can reach this port can play, "
            "and guests can sign in without a key (--no-guests refuses them)",
            file=sys.__stderr__,
        )
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(host, port, folder, allow_guests, ascii))


async def _serve(host: str, port: int, folder: Path, allow_guests: bool, ascii: bool) -> None:
    from .ssh import start_server

    try:
        server = await start_server(folder, host, port, allow_guests=allow_guests, ascii=ascii)
    except OSError as error:
        print(f"termgames: cannot listen on {host}:{port}: {error.strerror or error}", file=sys.__stderr__)
        raise SystemExit(2) from None
    print(f"termgames serve: ssh -p {server.port} NAME@{host}   (data in {folder})", file=sys.__stderr__, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.close()
