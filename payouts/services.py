"""Money-moving and paytable services: every write to the ledger goes through `post_transaction`.

Accounts are locked in id order (so two transactions never wait on each other in a cycle),
new balances are checked before anything is written, and the entries and the cached balances
are written in the same database transaction.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import pghistory
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from casino.db import prepared_cursor

from .models import (
    CENT,
    Account,
    AccountKind,
    ChangeStatus,
    LedgerTransaction,
    Paytable,
    PaytableCategory,
    PaytableLine,
    PaytableVersion,
    TransactionKind,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class LedgerError(Exception):
    """A posting the ledger refuses; `field` and `rule` say what to fix."""

    def __init__(self, message: str, *, field: str = "amount", code: str = "ledger") -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.code = code


class InsufficientFunds(LedgerError):
    def __init__(self, account: Account, shortfall: Decimal) -> None:
        self.account = account
        super().__init__(
            f"Insufficient funds in {account}: {shortfall} {account.currency} short "
            "(no wagering without funds; no balance may go negative).",
            code="insufficient_funds",
        )


class ChangeRefused(Exception):
    """A maker-checker step refused; `errors` maps fields to messages."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


@dataclass(frozen=True)
class Posting:
    account: Account
    amount: Decimal


def money(value: Decimal | str | int) -> Decimal:
    """A positive amount with at most two places, or a LedgerError saying what is wrong."""
    try:
        amount = Decimal(value)
    except ArithmeticError as exc:
        raise LedgerError(f"{value!r} is not an amount.") from exc
    if not amount.is_finite() or amount != amount.quantize(CENT) or amount <= 0:
        raise LedgerError(f"{value} must be a positive amount with at most two decimal places.")
    return amount.quantize(CENT)


def wallet(user: User, currency: str) -> Account:
    return _account(kind=AccountKind.PLAYER_WALLET, currency=currency, owner=user)


def house_account(kind: str, currency: str) -> Account:
    return _account(kind=kind, currency=currency, owner=None)


@dataclass(frozen=True)
class GameAccounts:
    """The accounts a game round moves money between, for one player and currency."""

    wallet: Account
    stakes_in_play: Account
    bonus: Account
    house_bankroll: Account
    house_reserved: Account


def game_accounts(player: User, currency: str) -> GameAccounts:
    """The player's wallet and the house's game accounts: one query the first time, then from
    this process's memory. An account keeps its id, kind, currency and owner for good (accounts
    are never deleted), and `post_transactions` locks every account it posts to, reads its
    balance then, and checks it is the account the posting names."""
    key = (player.pk, currency)
    known = _GAME_ACCOUNTS.get(key)
    if known is None:
        house_kinds = (
            AccountKind.STAKES_IN_PLAY,
            AccountKind.BONUS,
            AccountKind.HOUSE_BANKROLL,
            AccountKind.HOUSE_RESERVED,
        )
        found = {
            account.kind: account
            for account in Account.objects.filter(currency=currency).filter(
                Q(kind=AccountKind.PLAYER_WALLET, owner=player)
                | Q(kind__in=house_kinds, owner=None)
            )
        }
        known = GameAccounts(
            wallet=found.get(AccountKind.PLAYER_WALLET) or wallet(player, currency),
            stakes_in_play=found.get(AccountKind.STAKES_IN_PLAY)
            or house_account(AccountKind.STAKES_IN_PLAY, currency),
            bonus=found.get(AccountKind.BONUS) or house_account(AccountKind.BONUS, currency),
            house_bankroll=found.get(AccountKind.HOUSE_BANKROLL)
            or house_account(AccountKind.HOUSE_BANKROLL, currency),
            house_reserved=found.get(AccountKind.HOUSE_RESERVED)
            or house_account(AccountKind.HOUSE_RESERVED, currency),
        )
        # Kept once the accounts are surely on the ledger: one made by a transaction that then
        # rolls back would name no account.
        transaction.on_commit(lambda: _remember_game_accounts(key, known))
    return known


def _remember_game_accounts(key: tuple[int, str], accounts: GameAccounts) -> None:
    if len(_GAME_ACCOUNTS) >= _GAME_ACCOUNTS_KEPT:
        _GAME_ACCOUNTS.clear()
    _GAME_ACCOUNTS[key] = accounts


# (player id, currency) -> the player's game accounts, as far as a posting needs them.
_GAME_ACCOUNTS: dict[tuple[int, str], GameAccounts] = {}
_GAME_ACCOUNTS_KEPT = 100_000


def _account(*, kind: str, currency: str, owner: User | None) -> Account:
    lookup = {"currency": currency, "owner": owner}
    if owner is None:
        lookup["kind"] = kind
    account = Account.objects.filter(**lookup).first()
    if account is not None:
        return account
    try:
        with transaction.atomic():
            account, _ = Account.objects.get_or_create(**lookup, defaults={"kind": kind})
    except IntegrityError:  # created by a concurrent request a moment ago
        account = Account.objects.get(**lookup)
    return account


@dataclass(frozen=True)
class Transfer:
    """One ledger transaction to post: balanced postings and what they are for."""

    kind: str
    postings: Sequence[Posting]
    reason: str = ""
    created_by: User | None = None
    reference: str | None = None
    reverses: LedgerTransaction | None = None

    def check(self) -> None:
        if len(self.postings) < 2:
            raise LedgerError("A ledger transaction needs at least two entries.")
        totals: dict[str, Decimal] = defaultdict(Decimal)
        for posting in self.postings:
            if posting.amount == 0 or posting.amount != posting.amount.quantize(CENT):
                raise LedgerError(f"Entry amount {posting.amount} must be non-zero whole cents.")
            totals[posting.account.currency] += posting.amount
        unbalanced = {currency: total for currency, total in totals.items() if total}
        if unbalanced:
            raise LedgerError(f"Entries do not sum to zero per currency: {unbalanced}.")


def post_transaction(**transfer: Any) -> LedgerTransaction:
    """Write one balanced transaction, or nothing (see `post_transactions`)."""
    return post_transactions([Transfer(**transfer)])[0]


def post_transactions(transfers: Sequence[Transfer]) -> list[LedgerTransaction]:
    """Write balanced transactions, all or none, in the order given.

    Every account they touch is locked once, in id order, so concurrent postings never
    deadlock; each transaction's new balances are checked before anything is written. A
    transfer whose `reference` is already on the ledger is not posted again: the earlier
    transaction stands in for it (a business event is posted at most once).

    Two statements in all: one locks the accounts and finds the references already posted, one
    writes the transactions, their entries and the new balances.
    """
    for transfer in transfers:
        transfer.check()
    if not transfers:
        return []
    # Inside the caller's transaction no savepoint is needed: every refusal is raised before
    # the first write, and a failing write fails the caller's whole transaction anyway.
    with nullcontext() if connection.in_atomic_block else transaction.atomic():
        references = [t.reference for t in transfers if t.reference is not None]
        postings = [p for t in transfers for p in t.postings]
        with prepared_cursor() as cursor:
            cursor.execute(_LOCK, [references, sorted({p.account.pk for p in postings})])
            rows = cursor.fetchall()
        locked = {
            row[0]: Account.from_db(connection.alias, _ACCOUNT_FIELDS, row[:-1]) for row in rows
        }
        for posting in postings:
            found = locked.get(posting.account.pk)
            if found is None or (found.kind, found.currency, found.owner_id) != (
                posting.account.kind,
                posting.account.currency,
                posting.account.owner_id,
            ):
                _GAME_ACCOUNTS.clear()
                raise LedgerError(f"Account {posting.account.pk} is not the account posted to.")
        posted_ids = rows[0][-1] if rows else []
        posted = (
            {t.reference: t for t in LedgerTransaction.objects.filter(pk__in=posted_ids)}
            if posted_ids  # only a retry of something already posted pays for this query
            else {}
        )
        fresh = [t for t in transfers if t.reference not in posted]
        for transfer in fresh:
            change: dict[int, Decimal] = defaultdict(Decimal)
            for posting in transfer.postings:
                change[posting.account.pk] += posting.amount
            for account_id, delta in change.items():
                account = locked[account_id]
                account.balance += delta
                if account.balance < 0 and account.kind != AccountKind.CAGE:
                    raise InsufficientFunds(account, -account.balance)
        created = _write(fresh, locked.values()) if fresh else []
    by_transfer = iter(created)
    return [posted[t.reference] if t.reference in posted else next(by_transfer) for t in transfers]


_ACCOUNT_FIELDS = [field.attname for field in Account._meta.concrete_fields]

# Locks the accounts in id order and finds the references already on the ledger (the same
# array on every row).
_LOCK = f"""
SELECT {", ".join(f"a.{name}" for name in _ACCOUNT_FIELDS)},
       ARRAY(SELECT t.id FROM payouts_ledgertransaction t WHERE t.reference = ANY(%s::text[]))
FROM payouts_account a
WHERE a.id = ANY(%s::bigint[])
ORDER BY a.id
FOR NO KEY UPDATE
"""  # noqa: S608 - the column names are the model's own

# The transactions get their ids first (`v`, evaluated once), so that their entries can name
# them; entries keep the order of their postings. The rows come as three JSON arrays: one
# parameter each, whatever their number.
_WRITE = """
WITH v AS (
    SELECT x.n, nextval(pg_get_serial_sequence('payouts_ledgertransaction', 'id')) AS id,
           x.kind, x.reason, x.reference, x.reverses_id, x.created_by_id
    FROM jsonb_to_recordset(%s::jsonb) AS x (
        n int, kind text, reason text, reference text, reverses_id bigint, created_by_id bigint
    )
), t AS (
    INSERT INTO payouts_ledgertransaction
        (id, kind, reason, reference, reverses_id, created_by_id, created_at)
    SELECT id, kind, reason, reference, reverses_id, created_by_id, %s::timestamptz
    FROM v ORDER BY n
), e AS (
    INSERT INTO payouts_ledgerentry (transaction_id, account_id, amount, currency, created_at)
    SELECT v.id, p.account_id, p.amount, p.currency, %s::timestamptz
    FROM jsonb_to_recordset(%s::jsonb)
         AS p (n int, account_id bigint, amount numeric, currency text, position int)
    JOIN v USING (n)
    ORDER BY p.position
), b AS (
    UPDATE payouts_account AS a SET balance = p.balance
    FROM jsonb_to_recordset(%s::jsonb) AS p (id bigint, balance numeric)
    WHERE a.id = p.id
)
SELECT id FROM v ORDER BY n
"""


def _write(transfers: Sequence[Transfer], accounts: Iterable[Account]) -> list[LedgerTransaction]:
    """Insert the transactions and their entries and store the accounts' new balances: one
    statement, one round trip to the database."""
    now = timezone.now()
    rows = [
        {
            "n": n,
            "kind": t.kind,
            "reason": t.reason,
            "reference": t.reference,
            "reverses_id": t.reverses.pk if t.reverses else None,
            "created_by_id": t.created_by.pk if t.created_by else None,
        }
        for n, t in enumerate(transfers)
    ]
    entries = [
        {
            "n": n,
            "account_id": p.account.pk,
            "amount": str(p.amount),
            "currency": p.account.currency,
            "position": position,
        }
        for position, (n, p) in enumerate(
            (n, p) for n, t in enumerate(transfers) for p in t.postings
        )
    ]
    balances = [{"id": a.pk, "balance": str(a.balance)} for a in accounts]
    params: list[Any] = [json.dumps(rows), now, now, json.dumps(entries), json.dumps(balances)]
    with prepared_cursor() as cursor:
        cursor.execute(_WRITE, params)
        ids = [row[0] for row in cursor.fetchall()]
    written = []
    for pk, transfer in zip(ids, transfers, strict=True):
        txn = LedgerTransaction(
            pk=pk,
            kind=transfer.kind,
            reason=transfer.reason,
            reference=transfer.reference,
            reverses=transfer.reverses,
            created_by=transfer.created_by,
            created_at=now,
        )
        txn._state.adding = False
        txn._state.db = connection.alias
        written.append(txn)
    return written


def deposit(
    *,
    player: User,
    currency: str,
    amount: Decimal,
    reason: str,
    by: User,
    reference: str | None = None,
) -> LedgerTransaction:
    """Cash brought to the cage and credited to the player's wallet."""
    return _through_the_cage(
        TransactionKind.DEPOSIT, player, currency, money(amount), reason, by, reference
    )


def withdraw(
    *,
    player: User,
    currency: str,
    amount: Decimal,
    reason: str,
    by: User,
    reference: str | None = None,
) -> LedgerTransaction:
    """Money paid out of the player's wallet at the cage; never more than the wallet holds."""
    return _through_the_cage(
        TransactionKind.WITHDRAWAL, player, currency, -money(amount), reason, by, reference
    )


def _through_the_cage(
    kind: str,
    player: User,
    currency: str,
    into_wallet: Decimal,
    reason: str,
    by: User,
    reference: str | None,
) -> LedgerTransaction:
    return post_transaction(
        kind=kind,
        postings=[
            Posting(house_account(AccountKind.CAGE, currency), -into_wallet),
            Posting(wallet(player, currency), into_wallet),
        ],
        reason=_required_reason(reason),
        created_by=by,
        reference=reference,
    )


def fund_house(
    *, currency: str, amount: Decimal, reason: str, by: User | None
) -> LedgerTransaction:
    amount = money(amount)
    return post_transaction(
        kind=TransactionKind.HOUSE_FUNDING,
        postings=[
            Posting(house_account(AccountKind.CAGE, currency), -amount),
            Posting(house_account(AccountKind.HOUSE_BANKROLL, currency), amount),
        ],
        reason=_required_reason(reason),
        created_by=by,
    )


def reverse_transaction(original: LedgerTransaction, *, reason: str, by: User) -> LedgerTransaction:
    """Correct a mistake the only way the ledger allows: an equal and opposite transaction."""
    if original.kind == TransactionKind.REVERSAL:
        raise LedgerError(
            "A reversal is not reversed; post a new transaction instead.", field="transaction"
        )
    if LedgerTransaction.objects.filter(reverses=original).exists():
        raise LedgerError(f"Transaction #{original.pk} is already reversed.", field="transaction")
    entries = list(original.entries.select_related("account"))
    return post_transaction(
        kind=TransactionKind.REVERSAL,
        postings=[Posting(e.account, -e.amount) for e in entries],
        reason=_required_reason(reason),
        created_by=by,
        reverses=original,
    )


def _required_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise LedgerError("A reason is required for every manual money movement.", field="reason")
    return reason


# Paytables (JD-14) ---------------------------------------------------------------------------


def propose_paytable_version(
    *, paytable: Paytable, lines: dict[str, Fraction], reason: str, by: User | None
) -> PaytableVersion:
    errors: dict[str, str] = {}
    if not lines:
        errors["lines"] = "A paytable version needs at least one line (JD-14)."
    for category, odds in lines.items():
        if category not in PaytableCategory.values:
            errors[f"lines.{category}"] = f"{category!r} is not a hand category (JD-14)."
        elif odds <= 0:
            errors[f"lines.{category}"] = "Odds must be above zero (JD-14)."
    if not (reason or "").strip():
        errors["reason"] = "Say why the paytable changes."
    if errors:
        raise ChangeRefused(errors)
    with pghistory.context(user=getattr(by, "pk", None), reason=reason), transaction.atomic():
        Paytable.objects.select_for_update().get(pk=paytable.pk)
        last = paytable.versions.order_by("-number").values_list("number", flat=True).first() or 0
        version = PaytableVersion.objects.create(
            paytable=paytable, number=last + 1, reason=reason.strip(), proposed_by=by
        )
        PaytableLine.objects.bulk_create(
            PaytableLine(
                version=version,
                category=category,
                odds_numerator=odds.numerator,
                odds_denominator=odds.denominator,
            )
            for category, odds in lines.items()
        )
    return version


def check_approver(status: str, proposed_by_id: int | None, by: User) -> dict[str, str]:
    if status != ChangeStatus.DRAFT:
        return {"status": f"Only a draft can be approved; this one is {status}."}
    if proposed_by_id == by.pk:
        return {
            "approved_by": "The staff member who proposed a change cannot approve it "
            "(separation of duties)."
        }
    return {}
