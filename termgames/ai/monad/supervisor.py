"""Keeps one bot program, and every process it starts, inside a box that goes when the bot or termgames goes.

termgames (:mod:`.process`) runs this file on Linux, with the standard library only::

    python -I -S supervisor.py MODE LIFELINE -- PROGRAM [ARGS...]

``LIFELINE`` is one end of a socket pair whose other end only termgames holds:
when termgames closes it, or dies in any way (``kill -9`` included: the kernel
closes a dead process's files), this supervisor sees the socket hang up and
ends the box.  A socket, not a pipe: a pipe can be opened again through
``/proc/PID/fd/N``, and a bot run as root that held a write end so opened
kept the box alive after termgames was gone (issue 32); a socket cannot be
opened that way.  It ends the box too when the bot's own process exits, then
exits with the bot's status (the same exit code, or the same signal).

Two boxes, the stronger first (``MODE`` ``namespace`` tries the first, then
falls back to the second; ``subreaper`` takes the second at once):

* a PID namespace (``unshare``; an ordinary user gets one along with a user
  namespace, on kernels that allow those, where the bot keeps its own uid),
  with a mount namespace where it gets a ``/proc`` of its own (``_mount_proc``:
  without it the host's ``/proc`` would list every process of the machine).
  Its first process (``init`` below, ours, with ``PR_SET_PDEATHSIG`` so it
  dies with this supervisor) starts the bot and reaps orphans; when it ends,
  the kernel kills every process left in the namespace at once.  From inside
  the bot can neither see this supervisor or termgames nor kill that first
  process.  Where the machine refuses the new ``/proc`` (an ordinary user in
  some containers), the PID namespace is kept and the bot sees the host's
  ``/proc``: it still cannot reopen the lifeline, and the rest below holds;
* a child subreaper (``PR_SET_CHILD_SUBREAPER``): what the bot starts and
  abandons (a double fork, ``setsid``) is re-parented to this supervisor
  instead of to init, so it stays in our tree, and ending the box kills the
  whole tree from ``/proc``, over and over until nothing is left.  A bot that
  kills this supervisor first can escape it; a process that forks and exits
  faster than ``/proc`` is read may outrun it.

Either way this supervisor and termgames are non-dumpable (``PR_SET_DUMPABLE``
0): a bot of the same uid cannot open their ``/proc`` files (descriptors,
memory) nor ptrace them.  Root could anyway, with ``CAP_SYS_PTRACE``; so a bot
run as root keeps uid 0 but starts with no capability at all (empty bounding,
inheritable and ambient sets, ``PR_SET_NO_NEW_PRIVS``): it can neither open
those files nor unmount its ``/proc`` to see the host's beneath.  What uid 0
owns on the machine's files stays its to read and write: running bots as root
is not advised (docs/security.md).

Why not ``PR_SET_PDEATHSIG`` on this supervisor, as termgames' parent-death
signal: the kernel sends it when the *thread* that forked the child ends, not
the process, and termgames starts bots from whatever thread runs the match
(the ``--watch`` screen's runner thread, a caller's worker thread).  A pipe's
write end is the process's: it closes when the process is gone, from any
thread, and the same works on every Unix.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 0x4000, 1 << 18
#: capset's version 3 (two 32-bit words per set).
CAPABILITY_VERSION_3 = 0x20080522

#: How long ending the box may try to kill a subreaper's tree (a process stuck in the kernel cannot die at once).
KILL_FOR = 5.0
#: Exit status when the box could not be set up (the bot never ran).
SETUP_FAILED = 126

_libc = ctypes.CDLL(None, use_errno=True)


def _call(name: str, *args: int) -> None:
    if getattr(_libc, name)(*(ctypes.c_ulong(arg) for arg in args)) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{name}: {os.strerror(number)}")


def _default_signals() -> None:
    """The signal handling a new program expects (Python ignores SIGPIPE and SIGXFSZ; our handlers go)."""
    signal.set_wakeup_fd(-1)
    for name in ("SIGPIPE", "SIGXFSZ", "SIGCHLD", "SIGTERM", "SIGHUP", "SIGINT"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _drop_capabilities() -> None:
    """Run as root, the bot keeps uid 0 but gets no capability: none in its bounding set, inheritable or
    ambient sets (so exec grants none), and no new privileges from a setuid program.  Without
    CAP_SYS_PTRACE it cannot open a non-dumpable process's /proc files (termgames', this supervisor's),
    and without CAP_SYS_ADMIN it cannot unmount the /proc of its namespace."""
    _call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    with contextlib.suppress(OSError):  # a kernel before 4.3 has no ambient set to clear
        _call("prctl", PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for cap in range(64):
        if _libc.prctl(ctypes.c_ulong(PR_CAPBSET_DROP), ctypes.c_ulong(cap)) != 0:
            break  # past the kernel's last capability (EINVAL)
    header, data = _CapHeader(CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    if _libc.capget(ctypes.byref(header), data) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"capget: {os.strerror(number)}")
    for part in data:
        part.inheritable = 0
    if _libc.capset(ctypes.byref(header), data) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"capset: {os.strerror(number)}")


def _exec(program: list[str]) -> None:
    """Become the bot (every descriptor of ours is close-on-exec: the bot gets its three pipes only)."""
    _default_signals()
    if os.geteuid() == 0:
        try:
            _drop_capabilities()
        except OSError as error:
            os.write(2, f"cannot drop root's capabilities for the bot: {error}\n".encode())
            os._exit(SETUP_FAILED)
    try:
        os.execvp(program[0], program)
    except OSError as error:
        os.write(2, f"cannot start {program[0]}: {error.strerror or error}\n".encode())
    os._exit(127)


def _write_map(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as file:
        file.write(text)


def _unshare_pid_namespace(mounts: bool) -> None:
    """Make this process's next child the first process of a new PID namespace (OSError when not allowed);
    ``mounts``: in a mount namespace of its own too, where it can mount a /proc of its own."""
    uid, gid = os.geteuid(), os.getegid()
    extra = CLONE_NEWNS if mounts else 0
    if uid == 0:
        with contextlib.suppress(OSError):
            _call("unshare", CLONE_NEWPID | extra)
            return
    _call("unshare", CLONE_NEWUSER | CLONE_NEWPID | extra)
    # The bot keeps its uid and gid (and has no capabilities: it is not uid 0 in there).
    _write_map("/proc/self/setgroups", "deny")
    _write_map("/proc/self/uid_map", f"{uid} {uid} 1")
    _write_map("/proc/self/gid_map", f"{gid} {gid} 1")


def _mount_proc() -> None:
    """In the namespace's first process: a /proc that shows the namespace's processes only.

    The host's /proc would show every process of the machine to the bot, termgames and this supervisor
    among them; run as root, the bot could open their descriptors and memory there.  The mounts are made
    private first, so that the new /proc never shows outside.
    """
    mount = _libc.mount
    mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
    for args in ((b"none", b"/", None, MS_REC | MS_PRIVATE, None),
                 (b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)):
        if mount(*args) != 0:
            number = ctypes.get_errno()
            raise OSError(number, f"mount {args[1].decode()}: {os.strerror(number)}")


def _probe(mounts: bool) -> bool:
    """Whether a PID namespace (with a /proc of its own if ``mounts``) can be had, tried in throwaway
    children: a half-made one cannot be left."""
    probe = os.fork()
    if probe == 0:
        try:
            _unshare_pid_namespace(mounts)
            if mounts:
                first = os.fork()
                if first == 0:
                    try:
                        _mount_proc()
                    except OSError:
                        os._exit(1)
                    os._exit(0)
                _pid, status = os.waitpid(first, 0)
                os._exit(os.waitstatus_to_exitcode(status))
        except OSError:
            os._exit(1)
        os._exit(0)
    _pid, status = os.waitpid(probe, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _enter_pid_namespace() -> str:
    """Enter a PID namespace if this machine allows it: "proc" with a /proc of its own, "pid" without
    (the mount is refused: the bot sees the host's /proc), "" for none."""
    for mounts in (True, False):
        if _probe(mounts):
            _unshare_pid_namespace(mounts)
            return "proc" if mounts else "pid"
    return ""


def _init(program: list[str], status_out: int, supervisor_alive: int, mount_proc: bool) -> None:
    """The namespace's first process: start the bot, reap whatever is re-parented here, report the bot's end.

    Its exit makes the kernel kill everything else in the namespace.
    """
    _default_signals()  # and as the namespace's first process, the bot's signals do not reach it
    _call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL)
    _call("prctl", PR_SET_DUMPABLE, 0)  # no ptrace of this process by the bot (same uid)
    if mount_proc:
        try:
            _mount_proc()
        except OSError as error:
            os.write(2, f"cannot give the bot a /proc of its own: {error}\n".encode())
            os._exit(SETUP_FAILED)
    # The supervisor may have died before PR_SET_PDEATHSIG was set: its end of this pipe tells.
    if select.select([supervisor_alive], [], [], 0)[0]:
        os._exit(SETUP_FAILED)
    bot = os.fork()
    if bot == 0:
        os.close(status_out)
        os.close(supervisor_alive)
        _exec(program)
    _quiet_stdio()
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(0)
        if pid == bot:
            os.write(status_out, status.to_bytes(4, "little"))
            os._exit(0)


def _quiet_stdio() -> None:
    """Let go of the bot's pipes: termgames sees their end as soon as the bot's side lets go of them."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _reap(child: int) -> int | None:
    """Reap every finished child (orphans come here too); ``child``'s wait status once it has ended."""
    status = None
    while True:
        try:
            pid, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return status
        if pid == 0:
            return status
        if pid == child:
            status = code


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue
        parent = int(stat.rsplit(b")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(name))
    found, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), ()):
            found.append(pid)
            todo.append(pid)
    return found


def _kill_tree(child: int) -> int | None:
    """Kill every process under this one until none is left; ``child``'s wait status if it was reaped."""
    status = None
    me, give_up = os.getpid(), time.monotonic() + KILL_FOR
    while True:
        reaped = _reap(child)
        status = reaped if reaped is not None else status
        pids = _descendants(me)
        if not pids or time.monotonic() > give_up:
            return status
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.001)


def _end_like(status: int | None) -> None:
    """Exit as the bot did: its exit code, or its signal."""
    if status is None:
        os._exit(0)
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        with contextlib.suppress(OSError, ValueError):
            signal.signal(number, signal.SIG_DFL)
            os.kill(os.getpid(), number)
        os._exit(128 + number)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def main(argv: list[str]) -> None:
    if len(argv) < 5 or argv[3] != "--":
        sys.exit("usage: supervisor.py namespace|subreaper LIFELINE -- PROGRAM [ARGS...]")
    mode, lifeline, program = argv[1], int(argv[2]), argv[4:]
    os.set_inheritable(lifeline, False)
    stop = False

    def on_stop(_signum: int, _frame: object) -> None:
        nonlocal stop
        stop = True

    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)
    for name in ("SIGTERM", "SIGHUP", "SIGINT"):
        signal.signal(getattr(signal, name), on_stop)

    try:
        # run as root, a bot could otherwise open this process's /proc files (its lifeline among them)
        _call("prctl", PR_SET_DUMPABLE, 0)
        _call("prctl", PR_SET_CHILD_SUBREAPER, 1)
        kind = _enter_pid_namespace() if mode == "namespace" else ""
        namespace = bool(kind)
    except OSError as error:
        os.write(2, f"cannot keep the bot's processes together: {error}\n".encode())
        os._exit(SETUP_FAILED)

    status_read = status_write = alive_read = alive_write = -1
    if namespace:
        status_read, status_write = os.pipe()
        alive_read, alive_write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(lifeline)
        os.close(wake_read)
        if namespace:
            os.close(status_read)
            os.close(alive_write)
            _init(program, status_write, alive_read, kind == "proc")
        _exec(program)
    if namespace:
        os.close(status_write)
        os.close(alive_read)
    _quiet_stdio()

    poller = select.poll()
    poller.register(lifeline, select.POLLIN)
    poller.register(wake_read, select.POLLIN)
    status = None
    while status is None and not stop:
        for fd, _event in poller.poll():
            if fd == lifeline:
                stop = True  # termgames closed it or is gone (nothing is ever written to it)
        with contextlib.suppress(BlockingIOError):
            os.read(wake_read, 512)
        status = _reap(child)

    if namespace:
        if status is None:
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)  # the namespace's first process: the kernel kills the rest
            os.waitpid(child, 0)
            os._exit(0)
        try:
            reported = os.read(status_read, 4)
        except OSError:
            reported = b""
        _end_like(int.from_bytes(reported, "little") if len(reported) == 4 else status)
    bot_status = _kill_tree(child)
    _end_like(status if status is not None else bot_status)


if __name__ == "__main__":
    main(sys.argv)
