"""What the benchmarks share: their own PostgreSQL and Redis, Django set up on them, and where
their reports are saved."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the benchmarks run as scripts, beside the project's packages


@contextmanager
def services() -> Iterator[None]:
    """Start PostgreSQL and Redis in a throwaway folder unless DATABASE_URL and REDIS_URL name
    servers already; set up Django on them with DEBUG off and migrate."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    os.environ["DEBUG"] = "false"
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key")
    os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")
    # A line per request would bury the table; warnings still show.
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    launcher = [sys.executable, str(ROOT / "scripts" / "services.py")]
    with tempfile.TemporaryDirectory(prefix="bench-") as scratch:
        started = not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"))
        if started:
            exports = subprocess.run(  # noqa: S603 - our own launcher
                [*launcher, "start", scratch], check=True, capture_output=True, text=True
            ).stdout
            for assignment in exports.removeprefix("export ").split():
                name, value = assignment.split("=", 1)
                os.environ[name] = value.strip("'")
        try:
            import django
            from django.core.management import call_command

            django.setup()
            call_command("migrate", verbosity=0)
            yield
        finally:
            if started:
                subprocess.run([*launcher, "stop", scratch], check=False)  # noqa: S603


def machine() -> dict[str, object]:
    return {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
    }


def save_results(name: str, report: dict[str, object]) -> Path:
    """Save a benchmark's report as ``benchmarks/results/NAME.json``, stamped with when it ran and
    on what machine (a report may give its own ``machine``, with the load it started under)."""
    path = ROOT / "benchmarks" / "results" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    stamped = {"when": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machine()}
    path.write_text(json.dumps(stamped | report, indent=2) + "\n")
    print(f"saved {path}")
    return path
