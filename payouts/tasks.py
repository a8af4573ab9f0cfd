"""Celery tasks of the money side: RTP runs across workers, and the nightly ledger report.

Every task only calls services and is safe to run twice: chunks are stored once, a finished
run stays finished, and a report is a new row each time.
"""

from __future__ import annotations

from celery import chord, shared_task

from . import reconciliation, rtp
from .models import RtpRun


def dispatch_rtp_run(run_id: int) -> None:
    """Hand a run's chunks to the workers as one chord: the last chunk in triggers the merge."""
    run = RtpRun.objects.get(pk=run_id)
    chunks = [compute_rtp_chunk.si(run.pk, index) for index in range(run.chunk_count)]
    chord(chunks)(finish_rtp_run.si(run.pk))


@shared_task(acks_late=True)
def compute_rtp_chunk(run_id: int, index: int) -> bool:
    return rtp.compute_chunk(run_id, index)


@shared_task(acks_late=True)
def finish_rtp_run(run_id: int) -> str:
    return rtp.finish_run(run_id).status


@shared_task(acks_late=True)
def nightly_ledger_report() -> bool:
    return reconciliation.record_report().ok
