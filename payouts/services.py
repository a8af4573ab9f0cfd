"""Money-moving services, every write to the ledger through `post_transaction`.

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
from typing import TYPE_CHECKING, Any

import pghistory
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from casino.db import prepared_cursor
from casino.refusals import FieldRefused, Kind
from payouts import approvals
from payouts.approvals import ChangeStatus
from payouts.models import (
    CENT,
    Account,
    AccountKind,
    LedgerEntry,
    LedgerTransaction,
    ReversalProposal,
    TransactionKind,
    largest_amount,
)
from payouts.protection import gate

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class LedgerError(FieldRefused):
    """A posting the ledger refuses; `field` and `code` say what to fix."""

    def __init__(
        self,
        message: str,
        *,
        field: str = "amount",
        code: str = "ledger",
        kind: Kind = Kind.INVALID,
    ) -> None:
        super().__init__(message, field=field, code=code, kind=kind)


class InsufficientFunds(LedgerError):
    def __init__(self, account: Account, shortfall: Decimal) -> None:
        self.account = account
        super().__init__(
            _(
                "Insufficient funds in %(account)s: %(shortfall)s %(currency)s short "
                "(no wagering without funds; no balance may go negative)."
            )
            % {"account": account, "shortfall": shortfall, "currency": account.currency},
            code="insufficient_funds",
            kind=Kind.CONFLICT,
        )


# What an entry and a balance can hold: beyond it PostgreSQL would refuse the write with a
# numeric overflow, so a posting is refused before, naming the amount.
ENTRY_LIMIT = largest_amount(LedgerEntry, "amount")
BALANCE_LIMIT = largest_amount(Account, "balance")


def _beyond_the_ledger(amount: Decimal) -> LedgerError:
    return LedgerError(
        _("%(amount)s is beyond the largest amount the ledger holds, %(limit)s.")
        % {"amount": abs(amount), "limit": ENTRY_LIMIT},
        code="max_value",
    )


@dataclass(frozen=True)
class Posting:
    account: Account
    amount: Decimal


def money(value: Decimal | str | int) -> Decimal:
    """A positive amount with at most two places, or a LedgerError saying what is wrong."""
    try:
        amount = Decimal(value)
    except ArithmeticError as exc:
        raise LedgerError(_("%(value)r is not an amount.") % {"value": value}) from exc
    if amount.is_finite() and abs(amount) > ENTRY_LIMIT:
        raise _beyond_the_ledger(amount)
    if not amount.is_finite() or amount != amount.quantize(CENT) or amount <= 0:
        raise LedgerError(
            _("%(value)s must be a positive amount with at most two decimal places.")
            % {"value": value}
        )
    return amount.quantize(CENT)


def wallet(user: User, currency: str) -> Account:
    return _account(kind=AccountKind.PLAYER_WALLET, currency=currency, owner=user)


def house_account(kind: str, currency: str) -> Account:
    """The house's account of a kind in a currency. Its id is looked up once per process (a
    peer table's every decision posts between two of them), safe for the reasons
    `game_accounts` gives; the balance is never remembered: each call's account reads it
    afresh when asked."""
    key = (kind, currency)
    known = _HOUSE_ACCOUNTS.get(key)
    if known is not None:
        identity = [known, kind, currency, None]
        return Account.from_db(DEFAULT_DB_ALIAS, _HOUSE_ACCOUNT_IDENTITY, identity)
    account = _account(kind=kind, currency=currency, owner=None)
    # As the game accounts: kept once surely on the ledger.
    transaction.on_commit(lambda: _HOUSE_ACCOUNTS.setdefault(key, account.pk))
    return account


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
# (kind, currency) -> the id of the house's account: a few dozen at most.
_HOUSE_ACCOUNTS: dict[tuple[str, str], int] = {}
# What a remembered house account is made of (the house owns it: no owner); its balance is
# read from the database when asked.
_HOUSE_ACCOUNT_IDENTITY = ["id", "kind", "currency", "owner_id"]


def forget_accounts() -> None:
    """Drop the accounts this process remembers: a posting found one that is not the
    database's."""
    _GAME_ACCOUNTS.clear()
    _HOUSE_ACCOUNTS.clear()


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
            raise LedgerError(_("A ledger transaction needs at least two entries."))
        totals: dict[str, Decimal] = defaultdict(Decimal)
        for posting in self.postings:
            if abs(posting.amount) > ENTRY_LIMIT:  # first: too many digits to round to cents
                raise _beyond_the_ledger(posting.amount)
            if posting.amount == 0 or posting.amount != posting.amount.quantize(CENT):
                raise LedgerError(
                    _("Entry amount %(amount)s must be non-zero whole cents.")
                    % {"amount": posting.amount}
                )
            totals[posting.account.currency] += posting.amount
        unbalanced = {currency: total for currency, total in totals.items() if total}
        if unbalanced:
            raise LedgerError(
                _("Entries do not sum to zero per currency: %(unbalanced)s.")
                % {"unbalanced": unbalanced}
            )


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
                forget_accounts()
                raise LedgerError(
                    _("Account %(account)s is not the account posted to.")
                    % {"account": posting.account.pk}
                )
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
                if abs(account.balance) > BALANCE_LIMIT:
                    raise LedgerError(
                        _(
                            "This would take %(account)s to %(balance)s, beyond the largest "
                            "balance the ledger holds, %(limit)s."
                        )
                        % {"account": account, "balance": account.balance, "limit": BALANCE_LIMIT},
                        code="max_value",
                    )
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
    """Cash brought to the cage and credited to the player's wallet, within the deposit limits
    the player set (refused before anything is posted)."""
    amount = money(amount)
    with transaction.atomic():
        # A retry of a deposit already posted is answered by it, not counted again.
        if reference is None or not LedgerTransaction.objects.filter(reference=reference).exists():
            gate.check_deposit(player=player, currency=currency, amount=amount)
        return _through_the_cage(
            TransactionKind.DEPOSIT, player, currency, amount, reason, by, reference
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


# Transactions one staff member may reverse alone: cash keyed wrongly at the cage, which moves
# money only between the cage and a player's wallet.
CAGE_KINDS = (TransactionKind.DEPOSIT, TransactionKind.WITHDRAWAL)
_CAGE_ACCOUNTS = (AccountKind.CAGE, AccountKind.PLAYER_WALLET)


def reverse_transaction(original: LedgerTransaction, *, reason: str, by: User) -> LedgerTransaction:
    """Correct a cage mistake the only way the ledger allows: an equal and opposite transaction.

    Only a deposit or withdrawal keyed wrongly is reversed by one person. Game money (stakes,
    settlements, buy-ins, cash-outs, rake) is never reversed: a round in play is voided, a
    settled round is corrected by a settlement correction a second staff member approves.
    House funding is reversed only through a proposal a second staff member approves.
    """
    entries = _reversible_entries(original)
    if original.kind == TransactionKind.HOUSE_FUNDING:
        raise LedgerError(
            _(
                "Transaction #%(transaction)s moves house money: its reversal is proposed by "
                "one staff member and approved by another (separation of duties)."
            )
            % {"transaction": original.pk},
            field="transaction",
            code="house_money_needs_second_person",
        )
    if original.kind not in CAGE_KINDS or any(
        e.account.kind not in _CAGE_ACCOUNTS for e in entries
    ):
        raise LedgerError(
            _(
                "Transaction #%(transaction)s is game money (%(kind)s): it is never reversed; "
                "void the round in play, or propose a settlement correction for a second staff "
                "member to approve."
            )
            % {"transaction": original.pk, "kind": original.get_kind_display()},
            field="transaction",
            code="game_money_not_reversible",
        )
    return _post_reversal(original, entries, reason=reason, by=by)


def _reversible_entries(original: LedgerTransaction) -> list[LedgerEntry]:
    if original.kind == TransactionKind.REVERSAL:
        raise LedgerError(
            _("A reversal is not reversed; post a new transaction instead."),
            field="transaction",
            code="reversal_not_reversible",
        )
    if LedgerTransaction.objects.filter(reverses=original).exists():
        raise LedgerError(
            _("Transaction #%(transaction)s is already reversed.") % {"transaction": original.pk},
            field="transaction",
            code="already_reversed",
        )
    return list(original.entries.select_related("account"))


def _post_reversal(
    original: LedgerTransaction, entries: list[LedgerEntry], *, reason: str, by: User
) -> LedgerTransaction:
    return post_transaction(
        kind=TransactionKind.REVERSAL,
        postings=[Posting(e.account, -e.amount) for e in entries],
        reason=_required_reason(reason),
        created_by=by,
        reverses=original,
    )


def propose_house_reversal(
    original: LedgerTransaction, *, reason: str, by: User
) -> ReversalProposal:
    """A reversal of house funding, to be approved by a second staff member."""
    entries = _reversible_entries(original)
    if original.kind != TransactionKind.HOUSE_FUNDING or any(
        e.account.kind not in (AccountKind.CAGE, AccountKind.HOUSE_BANKROLL) for e in entries
    ):
        raise LedgerError(
            _(
                "Transaction #%(transaction)s is not house funding: only house funding is "
                "reversed by a proposal."
            )
            % {"transaction": original.pk},
            field="transaction",
            code="not_house_funding",
        )
    reason = _required_reason(reason)
    with pghistory.context(user=by.pk, reason=reason), transaction.atomic():
        LedgerTransaction.objects.select_for_update().get(pk=original.pk)
        if original.reversal_proposals.filter(status=ChangeStatus.DRAFT).exists():
            raise LedgerError(
                _("A reversal of transaction #%(transaction)s already awaits approval.")
                % {"transaction": original.pk},
                field="transaction",
                code="reversal_already_proposed",
            )
        return ReversalProposal.objects.create(original=original, reason=reason, proposed_by=by)


def approve_house_reversal(proposal: ReversalProposal, *, by: User) -> ReversalProposal:
    """Post a proposed reversal of house funding: by anyone but who proposed or changed it."""

    def post(proposal: ReversalProposal) -> tuple[str]:
        entries = _reversible_entries(proposal.original)
        proposal.reversal = _post_reversal(
            proposal.original, entries, reason=proposal.reason, by=by
        )
        return ("reversal",)

    locked = ReversalProposal.objects.select_for_update(of=("self",)).select_related("original")
    return approvals.approve(proposal, by=by, locked=locked, takes_effect=post)


def _required_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise LedgerError(
            _("A reason is required for every manual money movement."), field="reason"
        )
    return reason
