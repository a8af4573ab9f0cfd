"""Celery tasks of the ledger: the nightly ledger report.

The task only calls services and is safe to run twice: a report is a new row each time.
"""

from __future__ import annotations

from celery import shared_task

from payouts import reconciliation


@shared_task(name="payouts.tasks.nightly_ledger_report", acks_late=True)
def nightly_ledger_report() -> bool:
    return reconciliation.record_report().ok
