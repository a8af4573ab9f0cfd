"""Celery tasks of the money side: RTP runs across workers, and the nightly ledger report.

Every task only calls services and is safe to run twice: chunks are stored once, a finished
run stays finished, and a report is a new row each time.
"""

from __future__ import annotations

from celery import group, shared_task
from django.db import InterfaceError, OperationalError

from games.joker_draw import rtp_lab as rtp
from payouts import reconciliation
from payouts.models import RtpRun


def dispatch_rtp_run(run_id: int) -> None:
    """Hand a run's chunks to the workers; the last chunk stored merges the run (no chord,
    whose count would never close if a worker died after its chunk but before reporting it)."""
    run = RtpRun.objects.get(pk=run_id)
    group(compute_rtp_chunk.si(run.pk, index) for index in range(run.chunk_count)).apply_async()


# A lost connection or a deadlock undoes the chunk's transaction; without a retry the task
# would end there and the run would wait forever for its chunk.
@shared_task(
    name="payouts.tasks.compute_rtp_chunk",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=5,
)
def compute_rtp_chunk(run_id: int, index: int) -> bool:
    return rtp.compute_chunk(run_id, index)


@shared_task(name="payouts.tasks.nightly_ledger_report", acks_late=True)
def nightly_ledger_report() -> bool:
    return reconciliation.record_report().ok
