"""Test helpers: an in-process ``termgames serve`` and SSH clients that keep a terminal screen.

Each client is a real asyncssh connection with a PTY; every byte the server
writes to its channel is kept (``raw``) and fed to a pyte terminal emulator,
so a test can read the screen as the player sees it and scan all the output.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import asyncssh
import pyte

KEYS = {
    "enter": b"\r",
    "tab": b"\t",
    "escape": b"\x1b",
    "up": b"\x1b[A",
    "down": b"\x1b[B",
    "right": b"\x1b[C",
    "left": b"\x1b[D",
}


class Terminal:
    """One SSH client with a PTY, its screen (pyte) and everything its channel received."""

    def __init__(self, conn: asyncssh.SSHClientConnection, process, width: int, height: int) -> None:
        self.conn = conn
        self.process = process
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.frames: list[str] = []
        self.updated = asyncio.Event()
        self.closed = False
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            while True:
                chunk = await self.process.stdout.read(65536)
                if not chunk:
                    break
                self.raw += chunk
                self.stream.feed(chunk)
                self.frames.append(self.text())
                self.updated.set()
        except (asyncssh.Error, OSError, asyncio.CancelledError):
            pass
        finally:
            self.closed = True
            self.updated.set()

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, needle: str, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        while needle not in self.text():
            left = deadline - time.monotonic()
            if left <= 0 or self.closed:
                raise AssertionError(f"{needle!r} never appeared; the screen:\n{self.text()}")
            self.updated.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.updated.wait(), min(left, 0.5))
        return self.text()

    async def press(self, *keys: str, pause: float = 0.05) -> None:
        for key in keys:
            self.process.stdin.write(KEYS.get(key, key.encode()))
            await asyncio.sleep(pause)

    async def close(self) -> None:
        self.process.close()
        self.conn.close()
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)


async def connect(
    port: int,
    name: str,
    key: asyncssh.SSHKey | None = None,
    *,
    width: int = 100,
    height: int = 32,
    screen: tuple[int, int] | None = None,
    term: str = "xterm-256color",
) -> Terminal:
    """Sign in as ``name`` with ``key`` (None: a guest through keyboard-interactive) and open the app; ``term``:
    the ``TERM`` the client says it has."""
    options = dict(username=name, known_hosts=None, client_keys=[key] if key else None)
    if key is None:
        # asyncssh answers keyboard-interactive only with a password in hand; the server asks for nothing.
        options.update(preferred_auth="keyboard-interactive", client_keys=None, password="")
    conn = await asyncssh.connect("127.0.0.1", port, **options)
    process = await conn.create_process(term_type=term, term_size=(width, height), encoding=None)
    columns, lines = screen or (width, height)  # the emulated screen may be smaller than the size claimed
    return Terminal(conn, process, columns, lines)


async def command(port: int, name: str, key: asyncssh.SSHKey, line: str) -> asyncssh.SSHCompletedProcess:
    async with asyncssh.connect("127.0.0.1", port, username=name, client_keys=[key], known_hosts=None) as conn:
        return await conn.run(line, check=False)


def input_counter(server, name: str) -> list[int]:
    """From now on, the bytes the server's screens of ``name`` receive from their clients (``counted[0]``):
    what a test waits for instead of a fixed time when its keys must be in the server's hands."""
    counted = [0]
    for session in [session for session in server.sessions if session.player == name]:
        receive = session.data_received

        def counting(data, datatype, receive=receive) -> None:
            counted[0] += len(data)
            receive(data, datatype)

        session.data_received = counting
    return counted


async def until_received(counted: list[int], size: int, timeout: float = 20.0) -> None:
    """Until ``counted`` (see :func:`input_counter`) reaches ``size`` bytes; AssertionError after ``timeout``."""
    deadline = time.monotonic() + timeout
    while counted[0] < size:
        if time.monotonic() > deadline:
            raise AssertionError(f"the server received {counted[0]} of {size} bytes")
        await asyncio.sleep(0.02)
