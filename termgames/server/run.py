"""``termgames serve`` in the foreground: start, log, stop cleanly on Ctrl+C or SIGTERM.

With ``--workers N`` this process only supervises: it starts N server processes
(``termgames serve ... --reuse-port``) that listen on one port (SO_REUSEPORT:
the kernel spreads connections between them) and share one PostgreSQL
database, starts again any that dies, and stops them all on Ctrl+C or SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import ServerConfig
    from .mail import MailConfig
    from .ssh import TermgamesServer, WebFront

#: What starts the browser front of ``--web`` (the CLI's; the server imports nothing of browser play itself).
WebStarter = Callable[["TermgamesServer"], Awaitable["WebFront"]]

LOOPBACK = ("127.0.0.1", "::1", "localhost")
#: Seconds before a worker that died is started again (a worker dying at once must not spin).
RESTART_DELAY = 1.0
#: A worker's status when it cannot serve at all (its one-line reason printed): not started again.
EXIT_USAGE = 2
#: Seconds the workers get to stop before they are killed.
STOP_GRACE = 10.0
#: Seconds a thread keeps the interpreter's lock when another (the loop) asks for it: Python's 5 ms made the
#: loop wait up to 5 ms each time it came back from a socket while a computer player thought in a pool thread
#: (docs/benchmarks.md, "Analyses on the server": the same wait when analyses were judged in the pool).
SWITCH_INTERVAL = 0.0005


def default_data_dir() -> Path:
    from ..paths import data_dir

    return data_dir() / "server"


def serve_forever(config: ServerConfig, *, mail: MailConfig | None = None, web: WebStarter | None = None) -> None:
    """Serve until Ctrl+C or SIGTERM: SSH (and browsers, with ``web``) as ``config`` says; ``mail`` the relay."""
    # Textual takes over sys.stdout/stderr inside apps: the server logs to the real stderr.
    handler = logging.StreamHandler(sys.__stderr__)
    # A worker of --workers says which one it is: their lines interleave on one terminal.
    worker = " worker %(process)d" if config.reuse_port else ""
    handler.setFormatter(logging.Formatter(f"%(asctime)s %(levelname)s{worker} %(message)s"))
    logger = logging.getLogger("termgames.server")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    folder = config.data or default_data_dir()
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))  # process-wide: this process serves
    if config.host not in LOOPBACK and not config.reuse_port:
        print(
            f"termgames: warning: listening on {config.host}, not loopback: anyone who can reach this port can play, "
            "and guests can sign in without a key (--no-guests refuses them)",
            file=sys.__stderr__,
        )
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(config, folder, mail, web))
    # Stopped: every table is stored, every terminal restored, the store closed.  What is left is the
    # interpreter's teardown, which frees every object of every table and session one by one (a full
    # collection of the whole heap, half a second and more on a busy server): SIGTERM promises an end within
    # 2 s, and nothing is left to gain from it.
    handler.flush()
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            stream.flush()  # type: ignore[union-attr]  # sys.__stdout__ may be None; suppressed
    os._exit(0)


async def _serve(config: ServerConfig, folder: Path, mail: MailConfig | None, web: WebStarter | None) -> None:
    from .ssh import start_server
    from .stores.interface import StoreError

    try:
        server = await start_server(folder, config=config, mail=mail)
    except OSError as error:
        print(f"termgames: cannot listen on {config.host}:{config.port}: {error.strerror or error}",
              file=sys.__stderr__)
        raise SystemExit(2) from None
    except StoreError as error:
        print(f"termgames: {error}", file=sys.__stderr__)
        raise SystemExit(2) from None
    print(
        f"termgames serve: {server.hub.address.command('NAME')}   (data in {server.store.describe()})",
        file=sys.__stderr__, flush=True,
    )
    if web is not None:
        try:
            server.web = await web(server)
        except OSError as error:  # (ssl.SSLError is one)
            print(f"termgames: the browser page cannot listen: {error.strerror or error}", file=sys.__stderr__)
            await server.close()
            raise SystemExit(2) from None
        print(
            f"termgames serve --web: {server.web.url}   "
            f"({server.hub.address.command('NAME')} web prints a link that signs a browser in)",
            file=sys.__stderr__, flush=True,
        )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.close()


def supervise(workers: int, worker_command: list[str], env: dict[str, str] | None = None) -> int:
    """Run ``workers`` copies of ``worker_command``; start again any that dies; stop them all on a signal."""
    stopping = False
    status = 0

    def stop(_signal: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    processes: list[subprocess.Popen[bytes] | None] = [None] * workers
    died_at: list[float] = [0.0] * workers
    try:
        while not stopping:
            for number, process in enumerate(processes):
                if process is not None and process.poll() is None:
                    continue
                if process is not None:
                    if process.returncode == EXIT_USAGE:  # it said why (a port taken, no database): so do we
                        stopping, status = True, EXIT_USAGE
                        break
                    print(
                        f"termgames serve: worker {number + 1} (pid {process.pid}) ended with status "
                        f"{process.returncode}: starting another", file=sys.__stderr__, flush=True,
                    )
                    processes[number] = None
                    died_at[number] = time.monotonic()
                if time.monotonic() - died_at[number] >= RESTART_DELAY:
                    processes[number] = subprocess.Popen(worker_command, env=env)
            time.sleep(0.2)
    finally:
        for process in processes:
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        for process in processes:
            if process is None:
                continue
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return status
