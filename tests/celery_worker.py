"""A real Celery worker for tests of task behaviour: a subprocess on the test database.

Tasks are never run eagerly in tests: the worker fixture starts ``celery worker`` with two pool
processes on this test run's database, and its own Redis database as the broker so that
parallel test runs never take each other's tasks.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
from django.db import connection

from casino.celery import app as celery_app

ROOT = Path(__file__).resolve().parent.parent
READY_SECONDS = 60.0


def test_database_url() -> str:
    """DATABASE_URL of the database this test run uses (pytest-django's test_... copy)."""
    base = os.environ["DATABASE_URL"].rsplit("/", 1)[0]
    return f"{base}/{connection.settings_dict['NAME']}"


def private_broker_url() -> str:
    """The Redis database of this xdist worker (gw0 -> 1, gw1 -> 2, ...); 0 stays the default."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    base = os.environ["REDIS_URL"].rsplit("/", 1)[0]
    return f"{base}/{int(worker.removeprefix('gw')) + 1}"


def worker_env(**extra: str) -> dict[str, str]:
    """The environment of a subprocess (worker or server) on this test run's database and broker."""
    return {
        **os.environ,
        "DATABASE_URL": test_database_url(),
        "CELERY_BROKER_URL": private_broker_url(),
        # Throttles and stream counts shared by this test's processes only.
        "CACHE_URL": private_broker_url(),
        "DB_CONN_MAX_AGE": "0",
        **extra,
    }


@dataclass
class WorkerProcess:
    process: subprocess.Popen[bytes]
    log: Path

    def pool_processes(self) -> list[psutil.Process]:
        return psutil.Process(self.process.pid).children()

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def start_worker(log: Path, env: dict[str, str]) -> WorkerProcess:
    with log.open("ab") as sink:
        process = subprocess.Popen(  # noqa: S603 - our own venv's celery, fixed arguments
            [
                str(Path(sys.executable).with_name("celery")),
                "-A",
                "casino",
                "worker",
                "--concurrency=2",
                "--pool=prefork",
                "--without-gossip",
                "--without-mingle",
                "--loglevel=INFO",
            ],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    worker = WorkerProcess(process, log)
    deadline = time.monotonic() + READY_SECONDS
    while "ready." not in worker.output():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the Celery worker did not start:\n{worker.output()}")
        time.sleep(0.2)
    return worker


def stop_worker(worker: WorkerProcess) -> None:
    for child in worker.pool_processes():
        child.kill()
    worker.process.send_signal(signal.SIGKILL)
    worker.process.wait(timeout=30)


@pytest.fixture
def celery_worker(transactional_db, tmp_path: Path) -> Iterator[WorkerProcess]:
    """A running worker; the test's own process publishes to the same private broker."""
    broker = private_broker_url()
    previous = celery_app.conf.broker_url
    celery_app.conf.broker_url = broker
    # Drop the connection pools made for the previous broker URL (what Celery does after a fork).
    celery_app._after_fork()
    with celery_app.connection_for_write() as conn:
        conn.default_channel.client.flushdb()
    worker = start_worker(tmp_path / "celery-worker.log", worker_env())
    try:
        yield worker
    finally:
        stop_worker(worker)
        celery_app.conf.broker_url = previous
        celery_app._after_fork()
