"""Read queries over wallets and the ledger."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, QuerySet, Sum, Window
from django.utils.translation import gettext_noop

from payouts.models import Account, AccountKind, LedgerEntry, ReconciliationReport

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def wallets_of(user: User) -> QuerySet[Account]:
    return Account.objects.filter(kind=AccountKind.PLAYER_WALLET, owner=user).order_by("currency")


def wallet_entries(user: User, currency: str) -> QuerySet[LedgerEntry]:
    """The player's own entries in one currency, newest first, each with the balance after it."""
    return (
        LedgerEntry.objects.filter(
            account__kind=AccountKind.PLAYER_WALLET, account__owner=user, currency=currency
        )
        .select_related("transaction")
        .annotate(balance_after=Window(Sum("amount"), order_by=F("id").asc()))
        .order_by("-id")
    )


def all_accounts() -> QuerySet[Account]:
    return Account.objects.select_related("owner").order_by("currency", "kind", "owner__username")


@dataclass(frozen=True)
class Bankroll:
    """The house's bankroll in one currency: what it can still put at risk, and what it holds
    for the top payouts of the rounds in play."""

    currency: str
    available: Decimal
    reserved: Decimal

    @property
    def total(self) -> Decimal:
        return self.available + self.reserved

    @property
    def low(self) -> bool:
        """Whether what is available has fallen under ``BANKROLL_ALERT_PERCENT`` of the whole:
        the pit is alerted, since openings will soon be refused (HB-1)."""
        return self.available * 100 < self.total * settings.BANKROLL_ALERT_PERCENT


def bankrolls() -> dict[str, Bankroll]:
    """The house bankroll of every currency that has one, by currency."""
    balances: dict[str, dict[str, Decimal]] = defaultdict(dict)
    for currency, kind, balance in Account.objects.filter(
        owner__isnull=True, kind__in=(AccountKind.HOUSE_BANKROLL, AccountKind.HOUSE_RESERVED)
    ).values_list("currency", "kind", "balance"):
        balances[currency][kind] = balance
    zero = Decimal("0.00")
    return {
        currency: Bankroll(
            currency,
            available=found.get(AccountKind.HOUSE_BANKROLL, zero),
            reserved=found.get(AccountKind.HOUSE_RESERVED, zero),
        )
        for currency, found in sorted(balances.items())
    }


@contextmanager
def ledger_snapshot() -> Iterator[None]:
    """One REPEATABLE READ snapshot for every query inside, so play going on cannot make a
    check disagree with itself (inside a caller's transaction, that transaction's view)."""
    already_in_transaction = connection.in_atomic_block
    with transaction.atomic():
        if not already_in_transaction:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield


def trial_balance() -> dict[str, dict[str, str]]:
    """Per currency, the sum of the cached balances of each account kind and their total,
    which a double-entry ledger keeps at zero."""
    balances: dict[str, dict[str, str]] = {}
    totals: dict[str, Decimal] = {}
    rows = (
        Account.objects.values("currency", "kind")
        .annotate(balance=Sum("balance"))
        .order_by("currency", "kind")
    )
    for row in rows:
        balances.setdefault(row["currency"], {})[row["kind"]] = str(row["balance"])
        totals[row["currency"]] = totals.get(row["currency"], Decimal("0.00")) + row["balance"]
    for currency, total in totals.items():
        balances[currency]["total"] = str(total)
    return balances


# What the sub-ledgers (table chips, stakes in play, BONUS, house reservations) must agree with
# is the game state, which the ledger knows nothing of: the games register their checks when
# the app starts, and every ledger check runs them.
SubLedgerChecks = Callable[[], list[tuple[str, list[str]]]]
_sub_ledger_checks: list[SubLedgerChecks] = []


def register_sub_ledger_checks(checks: SubLedgerChecks) -> None:
    if checks not in _sub_ledger_checks:
        _sub_ledger_checks.append(checks)


@dataclass(frozen=True)
class LedgerCheck:
    transactions: int
    entries: int
    unbalanced_transactions: list[int]
    lonely_transactions: list[int]
    stale_balances: list[tuple[int, Decimal, Decimal]]
    negative_balances: list[int]
    ever_negative: list[int]
    currency_mismatches: list[int]
    totals_by_currency: dict[str, Decimal]
    # Each sub-ledger against the game state: the check's name, what breaks it.
    sub_ledgers: list[tuple[str, list[str]]]

    @property
    def ok(self) -> bool:
        return not any(found for _, found in self.findings())

    def findings(self) -> list[tuple[str, list[str]]]:
        """Each invariant the check proves, with what breaks it (nothing when it holds); the
        names stay English in the nightly reports and are translated when shown."""
        return [
            (
                gettext_noop("unbalanced transactions"),
                [str(t) for t in self.unbalanced_transactions],
            ),
            (
                gettext_noop("transactions with fewer than two entries"),
                [str(t) for t in self.lonely_transactions],
            ),
            (
                gettext_noop("cached balances differing from their entries"),
                [f"account {a}: cached {c}, entries {e}" for a, c, e in self.stale_balances],
            ),
            (gettext_noop("negative balances"), [f"account {a}" for a in self.negative_balances]),
            (
                gettext_noop("balances that ever went negative"),
                [f"account {a}" for a in self.ever_negative],
            ),
            (
                gettext_noop("entries in another currency than their account"),
                [str(e) for e in self.currency_mismatches],
            ),
            (
                gettext_noop("currencies whose entries do not sum to zero"),
                [f"{c} {t}" for c, t in self.totals_by_currency.items() if t],
            ),
            *self.sub_ledgers,
        ]


def check_ledger() -> LedgerCheck:
    """Prove the ledger's invariants from the entries themselves, and every sub-ledger against
    the game state (run under REPEATABLE READ by the caller for a consistent picture while play
    goes on)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM payouts_ledgertransaction")
        (transactions,) = cursor.fetchone()
        cursor.execute("SELECT count(*) FROM payouts_ledgerentry")
        (entries,) = cursor.fetchone()
        cursor.execute(
            "SELECT DISTINCT transaction_id FROM payouts_ledgerentry "
            "GROUP BY transaction_id, currency HAVING SUM(amount) <> 0 ORDER BY 1"
        )
        unbalanced = [row[0] for row in cursor.fetchall()]
        cursor.execute(
            "SELECT t.id FROM payouts_ledgertransaction t "
            "LEFT JOIN payouts_ledgerentry e ON e.transaction_id = t.id "
            "GROUP BY t.id HAVING count(e.id) < 2 ORDER BY 1"
        )
        lonely = [row[0] for row in cursor.fetchall()]
        cursor.execute(
            "SELECT a.id, a.balance, COALESCE(SUM(e.amount), 0) FROM payouts_account a "
            "LEFT JOIN payouts_ledgerentry e ON e.account_id = a.id "
            "GROUP BY a.id HAVING a.balance <> COALESCE(SUM(e.amount), 0) ORDER BY 1"
        )
        stale = [(row[0], row[1], row[2]) for row in cursor.fetchall()]
        cursor.execute(
            "SELECT e.id FROM payouts_ledgerentry e JOIN payouts_account a ON a.id = e.account_id "
            "WHERE e.currency <> a.currency ORDER BY 1"
        )
        mismatched = [row[0] for row in cursor.fetchall()]
        # Accounts are locked before a transaction gets its id, so per account the id order
        # is the commit order and this running sum is the balance as it really was.
        cursor.execute(
            "SELECT DISTINCT account_id FROM ("
            "  SELECT e.account_id, SUM(SUM(e.amount)) OVER ("
            "    PARTITION BY e.account_id ORDER BY e.transaction_id) AS running"
            "  FROM payouts_ledgerentry e JOIN payouts_account a ON a.id = e.account_id"
            "  WHERE a.kind <> 'cage' GROUP BY e.account_id, e.transaction_id"
            ") history WHERE running < 0 ORDER BY 1"
        )
        ever_negative = [row[0] for row in cursor.fetchall()]
        cursor.execute(
            "SELECT currency, SUM(amount) FROM payouts_ledgerentry GROUP BY currency ORDER BY 1"
        )
        totals = {row[0]: row[1] for row in cursor.fetchall()}
    negative = list(
        Account.objects.filter(balance__lt=0)
        .exclude(kind=AccountKind.CAGE)
        .values_list("id", flat=True)
    )
    return LedgerCheck(
        transactions=transactions,
        entries=entries,
        unbalanced_transactions=unbalanced,
        lonely_transactions=lonely,
        stale_balances=stale,
        negative_balances=negative,
        ever_negative=ever_negative,
        currency_mismatches=mismatched,
        totals_by_currency=totals,
        sub_ledgers=[found for checks in _sub_ledger_checks for found in checks()],
    )


def recent_ledger_reports(count: int = 14) -> QuerySet[ReconciliationReport]:
    return ReconciliationReport.objects.order_by("-created_at")[:count]
