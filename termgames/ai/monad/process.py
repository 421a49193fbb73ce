"""Bot programs as child processes: started clean, read with deadlines, always killed.

A bot program is untrusted: it may never answer, answer late, die, write
megabytes, or fill its stderr.  :class:`BotProcess` owns one such child:

* it starts in its own folder, in a new session (its own process group),
  with a minimal environment (``PATH``, ``HOME`` = its folder, ``LANG``), so
  it neither inherits our secrets nor writes into our working folder by
  accident of ours;
* every pipe is non-blocking and driven by one ``poll`` loop, so a message
  we send never blocks us (a bot that stops reading just falls behind), its
  stderr is drained as it comes (only the tail is kept, for crash reports),
  and a read gives up at a deadline;
* a message is taken from the input buffer only once complete, so a late
  answer is never half-consumed: the protocol layer skips it next turn;
* a message over the size cap is discarded as it arrives (the stream stays
  in step) and reported once;
* what waits to be sent is bounded: a bot that stops reading its input is
  cut off (:class:`BotBacklog`) before our memory pays for it;
* on Linux the program runs under a small supervisor (``supervisor.py``)
  that keeps it and everything it starts in a PID namespace where the
  machine allows one, else under a subreaper, and ends them all when the bot
  exits, when :meth:`close` is called, or when termgames dies in any way
  (``kill -9`` included, run as root too: termgames is made non-dumpable and
  the lifeline is a socket a bot cannot reopen): see that module.  Elsewhere the bot gets its own
  process group and session only, and a process it moves out of them
  outlives the match (:data:`CONTAINMENT` says which);
* :meth:`close` ends the box (or kills the process group) and reaps the
  child; a registry closes whatever is still open at interpreter exit (Ctrl-C).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

#: Default cap on one message from a bot (a JSON line or a msgpack frame).
MAX_MESSAGE = 1 << 20
#: How much of a bot's stderr is kept for crash reports.
STDERR_TAIL = 4096
_READ_CHUNK = 1 << 16
#: Size asked for the pipe to a bot's stdin (Linux lets any process ask up to 1 MiB).
PIPE_SIZE = 1 << 20
#: Bytes of earlier messages that may still wait, beyond the pipe, when the next one is sent: a bot that
#: reads its input has taken each message before answering it, so only a bot that stops reading gets here.
MAX_PENDING = 4 << 20

_SUPERVISOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "supervisor.py")
#: Whether the supervisor tries a PID namespace before a subreaper (tests turn it off to try the subreaper).
PID_NAMESPACE = True
#: How a bot's processes are kept together here: ``"supervisor"`` (Linux: a PID namespace or a subreaper,
#: whichever the machine allows) or ``"process group"`` (elsewhere: what a bot moves out of its process
#: group and session, with a double fork and ``setsid``, outlives the match).
CONTAINMENT = "supervisor" if sys.platform.startswith("linux") and sys.executable else "process group"
#: How long closing waits for the supervisor to end the box before killing what it can itself.
CLOSE_WAIT = 5.0

_POLL_IN = select.POLLIN | select.POLLPRI
_POLL_END = select.POLLHUP | select.POLLERR | select.POLLNVAL


class BotIOError(Exception):
    """Something went wrong talking to a bot; ``str()`` is a short reason."""


class BotTimeout(BotIOError):
    """No complete message before the deadline."""


class BotExited(BotIOError):
    """The bot's output ended: it exited or closed stdout."""


class BotOversize(BotIOError):
    """A message larger than the cap (it is being discarded)."""


class BotBacklog(BotIOError):
    """The bot does not read its input: more than the bound waits to be sent to it."""


_OPEN: set[BotProcess] = set()


def _close_all() -> None:
    for process in list(_OPEN):
        process.close()


def _forget_in_forked_child() -> None:
    # A forked copy of termgames must not keep the bots' lifelines open (they would outlive termgames
    # in it) nor kill the parent's bots when it exits.
    for process in list(_OPEN):
        process._drop_lifeline()
    _OPEN.clear()


atexit.register(_close_all)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_forked_child)


_PR_SET_DUMPABLE = 4


def _not_dumpable() -> None:
    """Make termgames non-dumpable (Linux): a bot of the same user (root included, whose bot has no
    capabilities: see ``supervisor.py``) can then neither open its /proc files (memory, descriptors) nor
    ptrace it.  It also means no core dump of termgames, and debuggers must be root."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(ctypes.c_ulong(_PR_SET_DUMPABLE), ctypes.c_ulong(0))


def clean_environment(folder: Path) -> dict[str, str]:
    """The whole environment a bot gets: a search path, a home (its folder) and a UTF-8 locale.

    ``PYTHONUNBUFFERED`` spares Python bot authors a forgotten ``flush()``
    (their answer would otherwise sit in a buffer until the turn times out);
    ``PYTHONDONTWRITEBYTECODE`` keeps Python from writing ``__pycache__``
    folders next to the modules a bot imports, which may lie outside its
    folder (the original samples import ``game`` through a symlink).
    """
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(folder),
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


class BotProcess:
    """One bot program running as a child process (see the module's notes)."""

    def __init__(
        self, argv: Sequence[str], folder: Path, max_message: int = MAX_MESSAGE, max_pending: int = MAX_PENDING
    ) -> None:
        self.argv = list(argv)
        self.folder = Path(folder)
        self.max_message = max_message
        self.max_pending = max_pending
        self._proc: subprocess.Popen[bytes] | None = None
        #: Our end of the supervisor's lifeline (closing it ends the box).
        self._lifeline: int | None = None
        self._inbox = bytearray()
        self._outbox = bytearray()
        self._stderr = bytearray()
        self._eof = False
        self._stdin_closed = False
        #: Bytes still to drop from stdout (the rest of an oversized frame).
        self._skip_bytes = 0
        #: Dropping stdout up to the next newline (the rest of an oversized line).
        self._skip_line = False
        self._poll = select.poll()

    # -- life cycle ----------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def start(self) -> None:
        argv = self.argv
        keep: tuple[int, ...] = ()
        if CONTAINMENT == "supervisor":
            _not_dumpable()
            # a socket, not a pipe: a pipe can be opened again through /proc/PID/fd/N (for writing, by a
            # bot run as root), and an end opened so would keep the supervisor from seeing termgames go
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            self._lifeline, reader = ours.detach(), theirs.detach()
            mode = "namespace" if PID_NAMESPACE else "subreaper"
            argv, keep = [sys.executable, "-I", "-S", _SUPERVISOR, mode, str(reader), "--", *self.argv], (reader,)
        try:
            self._proc = subprocess.Popen(
                argv,
                cwd=self.folder,
                env=clean_environment(self.folder),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                close_fds=True,
                pass_fds=keep,
                bufsize=0,
            )
        except OSError as error:
            self._drop_lifeline()
            raise BotExited(f"cannot start {argv[0]}: {error.strerror or error}") from None
        finally:
            for fd in keep:
                os.close(fd)
        _OPEN.add(self)
        assert self._proc.stdin and self._proc.stdout and self._proc.stderr
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            os.set_blocking(stream.fileno(), False)
        # A turn's message (a big map's JSON) goes into the pipe whole, while we wait for another seat.
        # A smaller pipe only means the rest is written when this bot's answer is awaited.
        with contextlib.suppress(OSError, AttributeError):
            fcntl.fcntl(self._proc.stdin.fileno(), fcntl.F_SETPIPE_SZ, PIPE_SIZE)
        self._poll.register(self._proc.stdout.fileno(), _POLL_IN)
        self._poll.register(self._proc.stderr.fileno(), _POLL_IN)

    def exit_status(self) -> int | None:
        return self._proc.poll() if self._proc else None

    def close(self) -> None:
        """Kill the bot and everything it started, and reap it."""
        proc = self._proc
        if proc is None:
            return
        _OPEN.discard(self)
        if self._lifeline is not None:
            self._drop_lifeline()  # the supervisor ends the box, then exits
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=CLOSE_WAIT)
        if proc.returncode is None:
            # No supervisor, or one that does not answer (stopped by its bot): what we can reach ourselves.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):  # a process SIGKILL cannot stop
                proc.wait(timeout=5)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def _drop_lifeline(self) -> None:
        if self._lifeline is not None:
            with contextlib.suppress(OSError):
                os.close(self._lifeline)
            self._lifeline = None

    def stderr_tail(self, lines: int = 1) -> str:
        """The last non-empty lines the bot wrote to stderr (for a crash report)."""
        self._drain_stderr()
        text = self._stderr.decode("utf-8", "replace")
        kept = [line.strip() for line in text.splitlines() if line.strip()]
        return " | ".join(kept[-lines:])

    # -- writing -------------------------------------------------------------

    def send(self, data: bytes) -> None:
        """Queue ``data`` for the bot and write what the pipe takes now (never blocks).

        BotBacklog (nothing queued) when more than ``max_pending`` bytes of earlier messages still wait.
        """
        if self._stdin_closed:
            return
        self._flush_outbox()
        if len(self._outbox) > self.max_pending:
            raise BotBacklog(f"not reading its input ({len(self._outbox) / (1 << 20):.1f} MiB waiting for it)")
        self._outbox += data
        self._flush_outbox()

    def _flush_outbox(self) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        fd = self._proc.stdin.fileno()
        while self._outbox and not self._stdin_closed:
            try:
                written = os.write(fd, self._outbox)
            except BlockingIOError:
                break
            except (BrokenPipeError, OSError):
                # The bot is gone or closed its input: what it still wrote is read as usual.
                self._stdin_closed = True
                self._outbox.clear()
                break
            del self._outbox[:written]
        try:
            if self._outbox and not self._stdin_closed:
                self._poll.register(fd, select.POLLOUT)
            else:
                self._poll.unregister(fd)
        except KeyError:
            pass

    # -- reading -------------------------------------------------------------

    def read_line(self, deadline: float) -> bytes:
        """The next line (without its newline) before ``deadline`` (a ``time.monotonic`` time)."""
        return self._next(self._take_line, deadline)

    def read_frame(self, deadline: float) -> bytes:
        """The next frame of the original devkit: 4-byte little-endian signed length, then the body."""
        return self._next(self._take_frame, deadline)

    def _next(self, take: Callable[[], bytes | None], deadline: float) -> bytes:
        last_look = False
        while True:
            self._discard()
            message = take()
            if message is not None:
                return message
            if self._eof:
                raise BotExited("its output ended")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                # An answer that was written in time may still sit in the pipe (we were busy with
                # another seat): one look without waiting before calling it late.
                if last_look:
                    raise BotTimeout("no answer in time")
                last_look = True
            self._pump(max(remaining, 0.0))

    def _take_line(self) -> bytes | None:
        end = self._inbox.find(b"\n")
        if end < 0:
            if len(self._inbox) > self.max_message:
                self._inbox.clear()
                self._skip_line = True
                raise BotOversize(f"a line over {self.max_message} bytes")
            return None
        if end > self.max_message:
            del self._inbox[: end + 1]
            raise BotOversize(f"a line over {self.max_message} bytes")
        line = bytes(self._inbox[:end])
        del self._inbox[: end + 1]
        return line

    def _take_frame(self) -> bytes | None:
        if len(self._inbox) < 4:
            return None
        size = int.from_bytes(self._inbox[:4], "little", signed=True)
        if size < 0:
            # No way to find the next frame: the stream is lost for good.
            self._inbox.clear()
            self._eof = True
            raise BotIOError(f"a frame of negative length {size}")
        if size > self.max_message:
            del self._inbox[:4]
            self._skip_bytes = size
            self._discard()
            raise BotOversize(f"a message over {self.max_message} bytes")
        if len(self._inbox) < 4 + size:
            return None
        frame = bytes(self._inbox[4 : 4 + size])
        del self._inbox[: 4 + size]
        return frame

    def _discard(self) -> None:
        if self._skip_bytes:
            dropped = min(self._skip_bytes, len(self._inbox))
            del self._inbox[:dropped]
            self._skip_bytes -= dropped
        if self._skip_line:
            end = self._inbox.find(b"\n")
            if end < 0:
                self._inbox.clear()
            else:
                del self._inbox[: end + 1]
                self._skip_line = False

    def _pump(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the pipes, then move what they have."""
        assert self._proc is not None and self._proc.stdout is not None
        events = self._poll.poll(int(timeout * 1000 + 0.999))
        out_fd = self._proc.stdout.fileno()
        for fd, event in events:
            if fd == out_fd:
                if event & (_POLL_IN | _POLL_END):
                    self._read_stdout()
            elif self._proc.stderr is not None and fd == self._proc.stderr.fileno():
                if event & (_POLL_IN | _POLL_END):
                    self._drain_stderr()
            elif event & (select.POLLOUT | _POLL_END):
                self._flush_outbox()

    def _read_stdout(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, _READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._eof = True
                with contextlib.suppress(KeyError):
                    self._poll.unregister(fd)
                return
            self._inbox += chunk
            self._discard()
            if len(chunk) < _READ_CHUNK:
                return

    def _drain_stderr(self) -> None:
        if self._proc is None or self._proc.stderr is None or self._proc.stderr.closed:
            return
        fd = self._proc.stderr.fileno()
        while True:
            try:
                chunk = os.read(fd, _READ_CHUNK)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                with contextlib.suppress(KeyError):
                    self._poll.unregister(fd)
                return
            self._stderr += chunk
            if len(self._stderr) > STDERR_TAIL:
                del self._stderr[: len(self._stderr) - STDERR_TAIL]
