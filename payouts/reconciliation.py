"""The ledger check, stored for the auditors (and for ``/metrics``): the nightly report and
every run of ``ledger_check`` keep what they found."""

from __future__ import annotations

from payouts.models import ReconciliationReport
from payouts.selectors import LedgerCheck, check_ledger, ledger_snapshot, trial_balance


def record_check() -> tuple[LedgerCheck, ReconciliationReport]:
    """Check the ledger in one consistent snapshot and keep what was found."""
    with ledger_snapshot():
        check = check_ledger()
        balance = trial_balance()
    problems = {name: found for name, found in check.findings() if found}
    report = ReconciliationReport.objects.create(
        ok=check.ok, trial_balance=balance, problems=problems
    )
    return check, report


def record_report() -> ReconciliationReport:
    """The nightly report: the ledger checked and the result kept."""
    return record_check()[1]
