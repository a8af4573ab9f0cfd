"""`python manage.py ledger_check`: prove the ledger's invariants; exit 1 on any failure."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from payouts.selectors import check_ledger, ledger_snapshot


class Command(BaseCommand):
    help = (
        "Verify every transaction sums to zero per currency, every cached balance equals the sum "
        "of its entries, and no balance is or ever was negative."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        with ledger_snapshot():
            result = check_ledger()
        lines = [f"transactions: {result.transactions}", f"entries: {result.entries}"]
        lines += [f"{name}: {', '.join(found) or 'none'}" for name, found in result.findings()]
        lines.append(
            "sum of all entries per currency: "
            + (", ".join(f"{c} {t}" for c, t in result.totals_by_currency.items()) or "no entries")
        )
        self.stdout.write("\n".join(lines))
        if not result.ok:
            raise CommandError("ledger check FAILED")
        self.stdout.write(self.style.SUCCESS("ledger check passed"))
