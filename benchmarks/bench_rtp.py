"""RTP laboratory throughput: 10 million joker draw rounds under the reference strategy, split
into chunks across the laboratory's Celery worker with two pool processes, on PostgreSQL and
Redis.

Run as ``python benchmarks/bench_rtp.py [ROUNDS]``. It starts its own servers and worker, runs
the shipped default paytables (the bet paytable under both strategies, the BONUS example
against its exact census figure), prints a table, saves ``benchmarks/results/rtp.json`` and
exits non-zero if the 10-million-round run takes two minutes or more.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

from support import ROOT, save_results, services

ROUNDS = 10_000_000
TARGET_SECONDS = 120.0
SEED = 20261130


def start_worker() -> subprocess.Popen[bytes]:
    """The laboratory's worker as `make run` starts it (scripts/worker.sh lab: the RTP chunks
    and best play's are routed to the `lab` queue), with two pool processes."""
    worker = subprocess.Popen(  # noqa: S603 - the project's own script, fixed arguments
        [
            str(ROOT / "scripts" / "worker.sh"),
            "lab",
            "--without-gossip",
            "--without-mingle",
            "--loglevel=WARNING",
        ],
        cwd=ROOT,
        env={**os.environ, "LAB_WORKER_PROCESSES": "2"},
        start_new_session=True,
    )
    from casino.celery import app

    deadline = time.monotonic() + 60
    while not app.control.ping(timeout=1.0):
        if worker.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("the Celery worker did not start")
    return worker


def timed_run(version: Any, rounds: int, strategy: str) -> tuple[Any, float]:
    from games.joker_draw import rtp_lab
    from games.joker_draw.tasks import dispatch_rtp_run
    from payouts.models import RtpRunStatus

    started = time.perf_counter()
    run = rtp_lab.start_run(
        version, rounds=rounds, strategy_name=strategy, seed=SEED, dispatch=dispatch_rtp_run
    )
    while run.status != RtpRunStatus.DONE:
        time.sleep(0.2)
        run.refresh_from_db()
    return run, time.perf_counter() - started


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS
    with services():
        from django.core.management import call_command

        from payouts.models import Paytable

        call_command("load_paytables", verbosity=0)
        bet = Paytable.objects.get(name="joker-draw-bet-default").versions.first()
        bonus = Paytable.objects.get(name="joker-draw-bonus-example").versions.first()
        worker = start_worker()
        try:
            measured = [
                ("bet, reference strategy", *timed_run(bet, rounds, "reference")),
                ("bet, stand strategy", *timed_run(bet, rounds, "stand")),
                ("BONUS (beside the bet table)", *timed_run(bonus, rounds, "reference")),
            ]
        finally:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(timeout=60)
    print(f"{'run':<30} {'rounds':>12} {'seconds':>8} {'rounds/s':>10}  RTP (99% interval)")
    report: dict[str, Any] = {
        "worker_processes": 2,
        "target": f"{ROUNDS:,} reference rounds in under {TARGET_SECONDS:.0f} s",
        "runs": [],
    }
    from games.joker_draw.rtp_lab import describe

    for label, run, seconds in measured:
        print(
            f"{label:<30} {run.rounds:>12,} {seconds:>8.1f} {run.rounds / seconds:>10,.0f}  "
            f"{describe(run)}"
        )
        report["runs"].append(
            {
                "run": label,
                "rounds": run.rounds,
                "seed": run.seed,
                "seconds": round(seconds, 2),
                "rounds_per_second": round(run.rounds / seconds),
                "result": run.result,
            }
        )
    reference_seconds = measured[0][2]
    passed = rounds >= ROUNDS and reference_seconds < TARGET_SECONDS
    report["passed"] = passed
    print(
        f"target: {ROUNDS:,} reference rounds in < {TARGET_SECONDS:.0f} s on 2 worker "
        f"processes: {'PASS' if passed else 'FAIL'} ({reference_seconds:.1f} s)"
    )
    save_results("rtp", report)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
