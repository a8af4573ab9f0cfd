"""The double-entry ledger: balanced, immutable, never negative, exactly once per reference."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, ProgrammingError, connection, transaction

from payouts import services
from payouts.models import Account, AccountKind, LedgerEntry, LedgerTransaction, TransactionKind
from payouts.services import InsufficientFunds, LedgerError, Posting


def balance(account: Account) -> Decimal:
    account.refresh_from_db()
    return account.balance


@pytest.fixture
def funded(player, pit):
    services.deposit(player=player, currency="USD", amount=Decimal("100.00"), reason="cash", by=pit)
    return services.wallet(player, "USD")


def test_deposit_moves_money_from_the_cage_to_the_wallet(funded):
    cage = services.house_account(AccountKind.CAGE, "USD")
    assert balance(funded) == Decimal("100.00")
    assert balance(cage) == Decimal("-100.00")
    txn = LedgerTransaction.objects.get(kind=TransactionKind.DEPOSIT)
    assert sorted(e.amount for e in txn.entries.all()) == [Decimal("-100.00"), Decimal("100.00")]


def test_unbalanced_postings_are_refused_and_write_nothing(funded):
    house = services.house_account(AccountKind.HOUSE_BANKROLL, "USD")
    with pytest.raises(LedgerError, match="sum to zero"):
        services.post_transaction(
            kind=TransactionKind.STAKE,
            postings=[Posting(funded, Decimal("-1.00")), Posting(house, Decimal("0.99"))],
        )
    assert LedgerTransaction.objects.count() == 1
    assert balance(funded) == Decimal("100.00")


def test_a_transaction_needs_two_entries_in_whole_cents(funded):
    with pytest.raises(LedgerError, match="at least two"):
        services.post_transaction(
            kind=TransactionKind.STAKE, postings=[Posting(funded, Decimal("1"))]
        )
    house = services.house_account(AccountKind.HOUSE_BANKROLL, "USD")
    with pytest.raises(LedgerError, match="whole cents"):
        services.post_transaction(
            kind=TransactionKind.STAKE,
            postings=[Posting(funded, Decimal("-0.005")), Posting(house, Decimal("0.005"))],
        )


def test_withdrawal_beyond_the_balance_is_refused_and_changes_nothing(funded, player, pit):
    with pytest.raises(InsufficientFunds, match="0.01 USD short"):
        services.withdraw(
            player=player, currency="USD", amount=Decimal("100.01"), reason="cash", by=pit
        )
    assert balance(funded) == Decimal("100.00")
    services.withdraw(
        player=player, currency="USD", amount=Decimal("100.00"), reason="cash", by=pit
    )
    assert balance(funded) == Decimal("0.00")


def test_manual_movements_need_a_reason(player, pit):
    with pytest.raises(LedgerError, match="reason is required"):
        services.deposit(player=player, currency="USD", amount=Decimal("1.00"), reason="  ", by=pit)


@pytest.mark.parametrize("amount", ["0", "-1.00", "0.001", "NaN", "Infinity", "abc"])
def test_bad_amounts_are_refused(player, pit, amount):
    with pytest.raises(LedgerError):
        services.deposit(player=player, currency="USD", amount=amount, reason="cash", by=pit)
    assert not LedgerTransaction.objects.exists()


def test_a_reference_posts_at_most_once(funded):
    house = services.house_account(AccountKind.HOUSE_BANKROLL, "USD")
    postings = [Posting(funded, Decimal("-5.00")), Posting(house, Decimal("5.00"))]
    first = services.post_transaction(
        kind=TransactionKind.STAKE, postings=postings, reference="round:1:ante"
    )
    again = services.post_transaction(
        kind=TransactionKind.STAKE, postings=postings, reference="round:1:ante"
    )
    assert again.pk == first.pk
    assert balance(funded) == Decimal("95.00")


def test_reversal_restores_balances_and_keeps_the_original(funded, player, pit):
    original = LedgerTransaction.objects.get(kind=TransactionKind.DEPOSIT)
    reversal = services.reverse_transaction(original, reason="keyed twice", by=pit)
    assert reversal.reverses_id == original.pk
    assert balance(funded) == Decimal("0.00")
    assert LedgerEntry.objects.filter(transaction=original).count() == 2
    with pytest.raises(LedgerError, match="already reversed"):
        services.reverse_transaction(original, reason="again", by=pit)


def test_reversal_cannot_take_money_the_player_already_spent(funded, player, pit):
    original = LedgerTransaction.objects.get(kind=TransactionKind.DEPOSIT)
    services.withdraw(player=player, currency="USD", amount=Decimal("60.00"), reason="cash", by=pit)
    with pytest.raises(InsufficientFunds):
        services.reverse_transaction(original, reason="keyed twice", by=pit)


def test_entries_cannot_be_updated_or_deleted_through_the_orm(funded):
    entry = LedgerEntry.objects.first()
    entry.amount = Decimal("1000000.00")
    with (
        pytest.raises(
            ProgrammingError, match="Cannot update or delete rows from payouts_ledgerentry"
        ),
        transaction.atomic(),
    ):
        entry.save()
    with (
        pytest.raises(
            ProgrammingError, match="Cannot update or delete rows from payouts_ledgerentry"
        ),
        transaction.atomic(),
    ):
        LedgerEntry.objects.filter(pk=entry.pk).delete()
    with (
        pytest.raises(
            ProgrammingError, match="Cannot update or delete rows from payouts_ledgerentry"
        ),
        transaction.atomic(),
    ):
        LedgerEntry.objects.update(amount=Decimal("1.00"))


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE payouts_ledgerentry SET amount = amount * 2",
        "DELETE FROM payouts_ledgerentry",
        "UPDATE payouts_ledgertransaction SET reason = 'edited'",
        "DELETE FROM payouts_ledgertransaction",
    ],
)
def test_entries_and_transactions_cannot_be_changed_by_raw_sql(funded, sql):
    with (
        pytest.raises(ProgrammingError, match="Cannot update or delete rows from payouts_ledger"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    assert balance(funded) == Decimal("100.00")


@pytest.mark.django_db(transaction=True)
def test_an_unbalanced_raw_insert_is_refused_at_commit(player, pit):
    services.deposit(player=player, currency="USD", amount=Decimal("10.00"), reason="cash", by=pit)
    account = services.wallet(player, "USD")
    with pytest.raises(IntegrityError, match="does not sum to zero"), transaction.atomic():
        txn = LedgerTransaction.objects.create(kind=TransactionKind.DEPOSIT, reason="forged")
        LedgerEntry.objects.create(
            transaction=txn, account=account, amount=Decimal("5.00"), currency="USD"
        )
    assert LedgerTransaction.objects.count() == 1


def test_ledger_check_passes_on_a_sound_ledger(funded, capsys):
    call_command("ledger_check")
    out = capsys.readouterr().out
    assert "ledger check passed" in out
    assert "USD 0.00" in out


def test_ledger_check_fails_when_a_cached_balance_drifts(funded, capsys):
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE payouts_account SET balance = balance + 1 WHERE id = %s", [funded.pk]
        )
    with pytest.raises(CommandError, match="FAILED"):
        call_command("ledger_check")
    assert f"account {funded.pk}: cached 101.00, entries 100.00" in capsys.readouterr().out


def test_no_balance_may_go_negative_even_by_raw_sql(funded):
    with (
        pytest.raises(IntegrityError, match="no_negative_balance"),
        transaction.atomic(),
        connection.cursor() as c,
    ):
        c.execute("UPDATE payouts_account SET balance = -1 WHERE id = %s", [funded.pk])
