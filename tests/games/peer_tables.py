"""Checks the peer table tests share (seven-card stud, Drawmaha): wallets, house accounts, the
running hand and the chips a table holds."""

from __future__ import annotations

from decimal import Decimal

from games.models import Round, Seat
from payouts import services as money
from payouts.models import AccountKind


def balance(user) -> Decimal:
    return money.wallet(user, "USD").balance


def house(kind: str) -> Decimal:
    return money.house_account(kind, "USD").balance


def running(table) -> Round:
    return Round.objects.get(table=table, status="deciding")


def assert_chips_held(table):
    """The table chips account holds exactly the seats' stacks (chips in a pot are not theirs
    any more but the pot's, in stakes in play)."""
    seated = Seat.objects.filter(table=table).exclude(status="left")
    assert house(AccountKind.TABLE_CHIPS) == sum((s.chips for s in seated), Decimal(0))
