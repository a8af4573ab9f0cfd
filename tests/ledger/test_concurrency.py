"""Money under concurrency, on PostgreSQL with real row locks."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import connection

from payouts import services
from payouts.models import AccountKind, LedgerTransaction, TransactionKind
from payouts.selectors import check_ledger
from payouts.services import InsufficientFunds, Posting

DEBITS = 200
FUNDED_FOR = 50
STAKE = Decimal("0.30")


@pytest.mark.django_db(transaction=True)
def test_200_concurrent_debits_on_a_wallet_funded_for_50(player, pit):
    services.deposit(
        player=player, currency="USD", amount=STAKE * FUNDED_FOR, reason="cash", by=pit
    )
    wallet = services.wallet(player, "USD")
    # Withdrawals to the cage: a stake would need a round in play to hold it for.
    cage = services.house_account(AccountKind.CAGE, "USD")
    start = threading.Barrier(20)

    def debit(number: int) -> str:
        if number < 20:
            start.wait()  # the first wave starts together, to collide on the row lock
        try:
            services.post_transaction(
                kind=TransactionKind.WITHDRAWAL,
                postings=[Posting(wallet, -STAKE), Posting(cage, STAKE)],
                reference=f"debit:{number}",
            )
            return "ok"
        except InsufficientFunds:
            return "refused"
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=20) as pool:
        outcomes = list(pool.map(debit, range(DEBITS)))

    assert outcomes.count("ok") == FUNDED_FOR
    assert outcomes.count("refused") == DEBITS - FUNDED_FOR
    wallet.refresh_from_db()
    assert wallet.balance == Decimal("0.00")
    assert LedgerTransaction.objects.filter(kind=TransactionKind.WITHDRAWAL).count() == FUNDED_FOR
    result = check_ledger()
    assert result.ever_negative == []  # the running balance never went below zero
    assert result.ok, result
    call_command("ledger_check", verbosity=0)
