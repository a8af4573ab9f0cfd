"""A player's account statement: per currency and period, what came in and went out of the
wallet, summed in SQL from the ledger's postings on it.

Every posting on a wallet falls in one column, by its transaction's kind (a reversal by the kind
of the transaction it reverses, so a cage mistake put right nets out of its own column):

- deposits and withdrawals: the cage's;
- stakes: the money staked, joker draw antes, bets, BONUS bets and paid exchanges, peer table
  buy-ins and rebuys (kind ``stake``), shown as a positive amount;
- returns: settlements, voids, cash-outs and settlement corrections (``settlement``,
  ``correction``).

Net deposits are deposits less withdrawals, the net result returns less stakes (chips at a peer
table count as staked until cashed out, as the loss limits count them), and the closing balance
is the opening balance plus both. The periods are the casino's gaming days
(``GAMING_DAY_STARTS_AT`` in ``CASINO_TIME_ZONE``): rows per gaming day for a range of up to
``DAILY_ROWS_UP_TO_DAYS`` days, per calendar month of gaming days beyond.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from django.db import DEFAULT_DB_ALIAS, connections

from casino.gaming_day import gaming_day_bounds, starts_after_midnight, zone
from payouts.models import Account, AccountKind, TransactionKind

if TYPE_CHECKING:
    from django.contrib.auth.models import User

ZERO = Decimal("0.00")
# Longer ranges than about three months are read month by month: a year is 12 rows, not 365.
DAILY_ROWS_UP_TO_DAYS = 92


class RowsPer(StrEnum):
    DAY = "day"
    MONTH = "month"


@dataclass(frozen=True)
class Figures:
    """What moved through a wallet over a period, and its balance before and after."""

    first_day: date
    last_day: date
    opening_balance: Decimal
    deposits: Decimal
    withdrawals: Decimal
    stakes: Decimal
    returns: Decimal

    @property
    def net_deposits(self) -> Decimal:
        return self.deposits - self.withdrawals

    @property
    def net_result(self) -> Decimal:
        return self.returns - self.stakes

    @property
    def closing_balance(self) -> Decimal:
        return self.opening_balance + self.net_deposits + self.net_result


@dataclass(frozen=True)
class CurrencyStatement:
    currency: str
    totals: Figures
    rows: list[Figures] = field(default_factory=list)


@dataclass(frozen=True)
class Statement:
    first_day: date
    last_day: date
    rows_per: RowsPer
    currencies: list[CurrencyStatement]


def rows_per(first: date, last: date) -> RowsPer:
    return RowsPer.DAY if (last - first).days < DAILY_ROWS_UP_TO_DAYS else RowsPer.MONTH


# One pass over the player's wallet postings up to the end of the range: those before it give
# the opening balance (the row whose period is NULL), those inside it are summed per period.
_STATEMENT = """
    WITH postings AS (
        SELECT a.currency, e.amount, t.created_at,
               COALESCE(reversed.kind, t.kind) AS kind
        FROM payouts_account a
        JOIN payouts_ledgerentry e ON e.account_id = a.id
        JOIN payouts_ledgertransaction t ON t.id = e.transaction_id
        LEFT JOIN payouts_ledgertransaction reversed ON reversed.id = t.reverses_id
        WHERE a.kind = %(wallet)s AND a.owner_id = %(player)s AND t.created_at < %(end)s
    )
    SELECT currency,
           CASE WHEN created_at >= %(start)s THEN {period} END AS period,
           COALESCE(SUM(amount), 0.00),
           COALESCE(SUM(amount) FILTER (WHERE kind = %(deposit)s), 0.00),
           COALESCE(-SUM(amount) FILTER (WHERE kind = %(withdrawal)s), 0.00),
           COALESCE(-SUM(amount) FILTER (WHERE kind = %(stake)s), 0.00),
           COALESCE(SUM(amount) FILTER (WHERE kind = ANY(%(returns)s)), 0.00)
    FROM postings
    GROUP BY 1, 2
    ORDER BY 1, 2 NULLS FIRST
"""
_DAY = "((created_at AT TIME ZONE %(zone)s) - %(starts)s::interval)::date"
_PERIOD = {RowsPer.DAY: _DAY, RowsPer.MONTH: f"date_trunc('month', {_DAY})::date"}


def statement(player: User, first: date, last: date, *, using: str = DEFAULT_DB_ALIAS) -> Statement:
    """The player's statement for the gaming days ``first`` to ``last``, every wallet they
    hold, in two queries (the wallets, the sums) on the database ``using``."""
    per = rows_per(first, last)
    start, end = gaming_day_bounds(first, last)
    params: dict[str, Any] = {
        "wallet": AccountKind.PLAYER_WALLET,
        "player": player.pk,
        "start": start,
        "end": end,
        "zone": str(zone()),
        "starts": starts_after_midnight(),
        "deposit": TransactionKind.DEPOSIT,
        "withdrawal": TransactionKind.WITHDRAWAL,
        "stake": TransactionKind.STAKE,
        "returns": [TransactionKind.SETTLEMENT, TransactionKind.CORRECTION],
    }
    with connections[using].cursor() as cursor:
        cursor.execute(_STATEMENT.format(period=_PERIOD[per]), params)
        sums = cursor.fetchall()
    currencies = list(
        Account.objects.using(using)
        .filter(owner=player, kind=AccountKind.PLAYER_WALLET)
        .order_by("currency")
        .values_list("currency", flat=True)
    )
    found: dict[str, list[tuple[date | None, Decimal, Decimal, Decimal, Decimal, Decimal]]] = {
        currency: [] for currency in currencies
    }
    for currency, period, total, *columns in sums:
        found.setdefault(currency, []).append((period, total, *columns))
    return Statement(
        first, last, per, [_of_currency(c, rows, first, last, per) for c, rows in found.items()]
    )


def _of_currency(
    currency: str,
    sums: list[tuple[date | None, Decimal, Decimal, Decimal, Decimal, Decimal]],
    first: date,
    last: date,
    per: RowsPer,
) -> CurrencyStatement:
    opening = next((total for period, total, *_ in sums if period is None), ZERO)
    balance = opening
    rows = []
    for period, total, deposits, withdrawals, stakes, returns in sums:
        if period is None:
            continue
        row = Figures(
            max(period, first),
            min(_period_end(period, per), last),
            balance,
            deposits,
            withdrawals,
            stakes,
            returns,
        )
        rows.append(row)
        balance += total
    totals = Figures(
        first,
        last,
        opening,
        sum((r.deposits for r in rows), ZERO),
        sum((r.withdrawals for r in rows), ZERO),
        sum((r.stakes for r in rows), ZERO),
        sum((r.returns for r in rows), ZERO),
    )
    return CurrencyStatement(currency, totals, rows)


def _period_end(period: date, per: RowsPer) -> date:
    if per is RowsPer.DAY:
        return period
    following = (period.replace(day=28) + timedelta(days=4)).replace(day=1)
    return following - timedelta(days=1)


# The CSV, the player's and the staff's: each period's row, then the whole range's.
CSV_COLUMNS = (
    "player",
    "currency", "period", "first_gaming_day", "last_gaming_day", "opening_balance", "deposits",
    "withdrawals", "net_deposits", "stakes", "returns", "net_result", "closing_balance",
)  # fmt: skip


# Named as the properties and fields of Figures.
AMOUNTS = CSV_COLUMNS[5:]


def csv_rows(found: Statement, player: User) -> list[list[object]]:
    return [
        [
            player.username,
            currency.currency,
            period,
            figures.first_day.isoformat(),
            figures.last_day.isoformat(),
            *(getattr(figures, name) for name in AMOUNTS),
        ]
        for currency in found.currencies
        for period, figures in [
            *((found.rows_per.value, row) for row in currency.rows),
            ("total", currency.totals),
        ]
    ]


def csv_name(first: date, last: date, *who: str) -> str:
    return "_".join(["statement", *who, first.isoformat(), last.isoformat()]) + ".csv"
