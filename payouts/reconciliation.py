"""The nightly ledger check, stored for the auditors."""

from __future__ import annotations

from payouts.models import ReconciliationReport
from payouts.selectors import check_ledger, ledger_snapshot, trial_balance


def record_report() -> ReconciliationReport:
    """Check the ledger in one consistent snapshot and keep what was found."""
    with ledger_snapshot():
        check = check_ledger()
        balance = trial_balance()
    problems = {name: found for name, found in check.findings() if found}
    return ReconciliationReport.objects.create(
        ok=check.ok, trial_balance=balance, problems=problems
    )
