"""Deposits and stakes racing against one limit, on PostgreSQL with real row locks: the checks
lock the player's limit rows, so the second one counts the first one's posting."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from django.db import connection

from games.stud.tasks import STUD
from payouts import services
from payouts.models import LedgerTransaction, TransactionKind
from payouts.protection import limits
from payouts.protection.limits import LimitReached
from payouts.protection.models import LimitKind
from tests.fixtures.tables import make_stud_table

D = Decimal
DEPOSITS = 20


@pytest.mark.django_db(transaction=True)
def test_concurrent_deposits_never_pass_the_daily_deposit_limit(player, pit):
    services.wallet(player, "USD")  # the wallet exists: the limit may name its currency
    limits.set_limit(player=player, kind=LimitKind.DEPOSIT_DAY, currency="USD", value=D("50.00"))
    start = threading.Barrier(DEPOSITS)

    def deposit(number: int) -> str:
        start.wait()  # all at once, to collide on the limit's row lock
        try:
            services.deposit(
                player=player, currency="USD", amount=D("10.00"), reason=f"cash {number}", by=pit
            )
            return "ok"
        except LimitReached:
            return "refused"
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=DEPOSITS) as pool:
        outcomes = list(pool.map(deposit, range(DEPOSITS)))

    assert outcomes.count("ok") == 5
    assert services.wallet(player, "USD").balance == D("50.00")
    assert LedgerTransaction.objects.filter(kind=TransactionKind.DEPOSIT).count() == 5


@pytest.mark.django_db(transaction=True)
def test_buy_ins_at_three_tables_at_once_never_pass_the_loss_limit(players, pit, pit2):
    ann = players[0]
    tables = [make_stud_table(pit, pit2, name=f"Stud {n}") for n in range(3)]
    limits.set_limit(player=ann, kind=LimitKind.LOSS_DAY, currency="USD", value=D("100.00"))
    start = threading.Barrier(len(tables))

    def buy_in(table) -> str:
        start.wait()
        try:
            STUD.join(player=ann, table=table, seat=1, buy_in=D("60.00"))
            return "ok"
        except LimitReached:
            return "refused"
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=len(tables)) as pool:
        outcomes = list(pool.map(buy_in, tables))

    assert sorted(outcomes) == ["ok", "refused", "refused"]
    assert services.wallet(ann, "USD").balance == D("140.00")
