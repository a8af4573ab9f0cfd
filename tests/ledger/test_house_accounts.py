"""The house's accounts are looked up once per process: a peer table's every decision posts
between two of them. One is remembered only once its transaction commits: an account made by
a transaction that rolls back names nothing."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import transaction

from payouts import services as money
from payouts.models import Account, AccountKind


@pytest.fixture
def forgotten():
    money.forget_accounts()
    yield
    money.forget_accounts()


@pytest.mark.django_db(transaction=True)
def test_a_committed_house_account_is_read_once(forgotten, django_assert_num_queries):
    with transaction.atomic():
        first = money.house_account(AccountKind.TABLE_CHIPS, "EUR")
    with django_assert_num_queries(0):
        again = money.house_account(AccountKind.TABLE_CHIPS, "EUR")
    assert again.pk == first.pk
    assert (again.kind, again.currency, again.owner_id) == (AccountKind.TABLE_CHIPS, "EUR", None)


@pytest.mark.django_db(transaction=True)
def test_a_remembered_house_account_reads_its_balance_as_it_is_now(forgotten):
    with transaction.atomic():
        money.house_account(AccountKind.RAKE, "EUR")
    remembered = money.house_account(AccountKind.RAKE, "EUR")
    Account.objects.filter(pk=remembered.pk).update(balance=Decimal("12.50"))
    assert money.house_account(AccountKind.RAKE, "EUR").balance == Decimal("12.50")


@pytest.mark.django_db(transaction=True)
def test_an_account_made_by_a_rolled_back_transaction_is_not_remembered(forgotten):
    with pytest.raises(RuntimeError), transaction.atomic():
        lost = money.house_account(AccountKind.RAKE, "EUR")
        raise RuntimeError("the request failed")
    assert not Account.objects.filter(pk=lost.pk).exists()
    made = money.house_account(AccountKind.RAKE, "EUR")
    assert made.pk != lost.pk
    assert Account.objects.filter(pk=made.pk, kind=AccountKind.RAKE).exists()
