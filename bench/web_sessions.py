"""``termgames web`` with many browser sessions: memory per session, key-to-screen latency, coming back.

    python bench/web_sessions.py [--sessions 20] [--rounds 5]

Starts ``termgames web --port 0`` as its own process, signs in with its link
and opens ``--sessions`` websockets as pages would (aiohttp's client, no
browser: what a browser costs is the browser's), each its own app at the start
screen (100 x 30).  Prints the server's resident memory idle and with every
session open (per session: the difference / sessions), the time from opening
a websocket to the start screen's first frame, the time from a key (Tab:
the other list) to the first bytes of the redraw, every session pressing
one key each round, and the time a dropped session takes to be drawn whole
again when its page comes back.  Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def line_of(label: str, samples: list[float]) -> str:
    return (f"{label}: median {statistics.median(samples) * 1000:.1f} ms, "
            f"95th percentile {percentile(samples, 0.95) * 1000:.1f} ms ({len(samples)} samples)")


class Page:
    """One browser session's websocket."""

    def __init__(self, http: aiohttp.ClientSession, base: str) -> None:
        self.http = http
        self.base = base
        self.id = ""
        self.socket: aiohttp.ClientWebSocketResponse | None = None

    async def open(self) -> float:
        """Connect (again, when it has an id); seconds until the first frame of its screen."""
        started = time.perf_counter()
        origin = self.base.rstrip("/")
        self.socket = await self.http.ws_connect(
            f"{self.base}ws?session={self.id}&width=100&height=30", headers={"Origin": origin}
        )
        while True:
            message = await self.socket.receive()
            if message.type == aiohttp.WSMsgType.TEXT:
                kind, argument = json.loads(message.data)[:2]
                if kind == "session":
                    self.id = argument
            elif message.type == aiohttp.WSMsgType.BINARY and len(message.data) > 1000:
                return time.perf_counter() - started
            elif message.type != aiohttp.WSMsgType.BINARY:
                raise RuntimeError(f"the session closed: {message}")

    async def settle(self) -> None:
        """Read until the screen has been quiet for a moment."""
        assert self.socket is not None
        while True:
            try:
                await asyncio.wait_for(self.socket.receive(), 0.3)
            except TimeoutError:
                return

    async def key(self, data: str) -> float:
        """Seconds from sending a key to the first bytes of the redraw."""
        assert self.socket is not None
        started = time.perf_counter()
        await self.socket.send_str(json.dumps(["stdin", data]))
        while True:
            message = await self.socket.receive()
            if message.type == aiohttp.WSMsgType.BINARY:
                return time.perf_counter() - started


async def run(sessions: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "HOME": folder, "XDG_DATA_HOME": folder, "XDG_CONFIG_HOME": folder,
               "TERMGAMES_PREFERENCES": str(Path(folder) / "preferences.json"), "PYTHONPATH": str(ROOT)}
        server = subprocess.Popen(
            [sys.executable, "-m", "termgames", "web", "--port", "0", "--saves", str(Path(folder) / "saves")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        )
        try:
            assert server.stdout is not None
            link = ""
            for line in server.stdout:
                if found := re.search(r"http://\S+\?token=\S+", line):
                    link = found.group(0)
                    break
            base = link.split("?")[0]
            await asyncio.sleep(0.5)
            idle = rss_mb(server.pid)
            jar = aiohttp.CookieJar(unsafe=True)  # an address, not a name: aiohttp keeps no cookie for it otherwise
            async with aiohttp.ClientSession(cookie_jar=jar) as http:
                async with http.get(link) as response:
                    assert response.status == 200, response.status
                pages = [Page(http, base) for _ in range(sessions)]
                opened = [await page.open() for page in pages]
                await asyncio.gather(*(page.settle() for page in pages))
                full = rss_mb(server.pid)
                print(f"{sessions} browser sessions at the start screen (100 x 30)")
                print(f"server memory: idle {idle:.0f} MB, with the sessions {full:.0f} MB: "
                      f"{(full - idle) / sessions:.2f} MB a session")
                print(line_of("websocket to the first frame", opened))
                presses: list[float] = []
                for _ in range(rounds):
                    presses += await asyncio.gather(*(page.key("\t") for page in pages))
                    await asyncio.gather(*(page.settle() for page in pages))
                print(line_of(f"a key to its redraw, {sessions} sessions pressing at once", presses))
                back: list[float] = []
                for page in pages[: min(10, sessions)]:
                    assert page.socket is not None
                    await page.socket.close()
                    back.append(await page.open())
                    await page.settle()
                print(line_of("a dropped page back, to its whole screen", back))
                for page in pages:
                    if page.socket is not None:
                        await page.socket.close()
        finally:
            server.terminate()
            server.wait(15)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20, help="at most termgames web's limit, 20")
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    asyncio.run(run(options.sessions, options.rounds))


if __name__ == "__main__":
    main()
