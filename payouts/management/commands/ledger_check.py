"""`python manage.py ledger_check`: prove the ledger's invariants; exit 1 on any failure."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from payouts.selectors import check_ledger


class Command(BaseCommand):
    help = (
        "Verify every transaction sums to zero per currency, every cached balance equals the sum "
        "of its entries, and no balance is or ever was negative."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        # One snapshot for every query, so play going on cannot make the check disagree with itself.
        already_in_transaction = connection.in_atomic_block
        with transaction.atomic():
            if not already_in_transaction:
                with connection.cursor() as cursor:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            result = check_ledger()
        lines = [
            f"transactions: {result.transactions}",
            f"entries: {result.entries}",
            f"unbalanced transactions: {result.unbalanced_transactions or 'none'}",
            f"transactions with fewer than two entries: {result.lonely_transactions or 'none'}",
            "cached balances differing from their entries: "
            + (
                ", ".join(
                    f"account {a} cached {c} entries {s}" for a, c, s in result.stale_balances
                )
                or "none"
            ),
            f"negative balances: {result.negative_balances or 'none'}",
            f"balances that ever went negative: {result.ever_negative or 'none'}",
            "entries in another currency than their account: "
            f"{result.currency_mismatches or 'none'}",
            "sum of all entries per currency: "
            + (", ".join(f"{c} {t}" for c, t in result.totals_by_currency.items()) or "no entries"),
        ]
        self.stdout.write("\n".join(lines))
        if not result.ok:
            raise CommandError("ledger check FAILED")
        self.stdout.write(self.style.SUCCESS("ledger check passed"))
