"""A throwaway PostgreSQL cluster from the installed binaries, for tests and benchmarks.

``initdb`` then ``pg_ctl start`` in a temporary folder, listening on a unix
socket there only (no TCP port).  PostgreSQL refuses to run as root: as root
the cluster runs as the user ``nobody`` (``runuser``), which owns the folder.
Nothing is faked: where the binaries are missing, :func:`find_binaries` says
so and the tests skip with that reason.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

USER = "termgames"


def find_binaries() -> tuple[Path | None, str]:
    """The folder of ``initdb``/``pg_ctl``/``createdb``, or None and why not."""
    found = shutil.which("initdb")
    candidates = [Path(found).parent] if found else []
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for folder in candidates:
        if all((folder / name).exists() for name in ("initdb", "pg_ctl", "createdb")):
            return folder, ""
    return None, "no PostgreSQL installed here (initdb, pg_ctl and createdb not found)"


class Cluster:
    """One running cluster; :meth:`new_database` gives each test a database of its own."""

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.folder = Path(tempfile.mkdtemp(prefix="termgames-pg-"))
        self.data = self.folder / "data"
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL will not run as root
            self.as_user = ["runuser", "-u", "nobody", "--"]
            shutil.chown(self.folder, "nobody")
        os.chmod(self.folder, 0o755)
        self.started = False

    def _run(self, *args: str) -> None:
        subprocess.run([*self.as_user, *args], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self._run(
            str(self.binaries / "initdb"), "-D", str(self.data), "-U", USER, "-A", "trust", "-E", "UTF8",
            "--locale=C", "--no-sync",
        )
        self.start_again()

    def start_again(self) -> None:
        """Start the cluster's server (after :meth:`pause`)."""
        options = f"-k {self.folder} -c listen_addresses='' -c fsync=off -c max_connections=200"
        self._run(
            str(self.binaries / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"),
            "-w", "start",
        )
        self.started = True

    def pause(self) -> None:
        """Stop the server (``pg_ctl stop -m fast``: every connection is cut), keeping its data."""
        self._run(str(self.binaries / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def restart(self) -> None:
        """``pg_ctl restart``: every connection is cut, the data stays."""
        # With its log named: else the new server writes into our pipe and the call never returns.
        self._run(
            str(self.binaries / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "log"), "-m", "fast", "-w",
            "restart",
        )

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}@/{database}?host={self.folder}"

    def new_database(self) -> str:
        name = "t" + uuid.uuid4().hex[:16]
        self._run(str(self.binaries / "createdb"), "-h", str(self.folder), "-U", USER, name)
        return self.url(name)

    def stop(self) -> None:
        if self.started:
            with contextlib.suppress(subprocess.SubprocessError, OSError):
                self._run(str(self.binaries / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
            self.started = False
        shutil.rmtree(self.folder, ignore_errors=True)


def start_cluster() -> Cluster:
    """A running cluster (RuntimeError with the reason when there is no PostgreSQL or asyncpg)."""
    binaries, why = find_binaries()
    if binaries is None:
        raise RuntimeError(why)
    try:
        import asyncpg  # noqa: F401  # the store's driver: without it there is nothing to test
    except ImportError:
        raise RuntimeError("asyncpg is not installed (pip install 'termgames[postgres]')") from None
    cluster = Cluster(binaries)
    try:
        cluster.start()
    except BaseException:
        cluster.stop()
        raise
    return cluster
