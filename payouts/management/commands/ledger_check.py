"""`python manage.py ledger_check`: prove the ledger's invariants and reconcile its sub-ledgers
with the game state; exit 1 on any failure, naming the checks that failed. The result is kept
as a reconciliation report, beside the nightly ones, so `/metrics` shows the last run's."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from payouts.reconciliation import record_check


class Command(BaseCommand):
    help = (
        "Verify every transaction sums to zero per currency, every cached balance equals the sum "
        "of its entries, no balance is or ever was negative, and the table chips, stakes in play "
        "and BONUS accounts hold exactly what the seats and the rounds in play hold."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        result, _report = record_check()
        lines = [f"transactions: {result.transactions}", f"entries: {result.entries}"]
        lines += [f"{name}: {', '.join(found) or 'none'}" for name, found in result.findings()]
        lines.append(
            "sum of all entries per currency: "
            + (", ".join(f"{c} {t}" for c, t in result.totals_by_currency.items()) or "no entries")
        )
        self.stdout.write("\n".join(lines))
        if not result.ok:
            failed = [name for name, found in result.findings() if found]
            raise CommandError(f"ledger check FAILED: {'; '.join(failed)}")
        self.stdout.write(self.style.SUCCESS("ledger check passed"))
