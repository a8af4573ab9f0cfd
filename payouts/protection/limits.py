"""The limits players set on their own play (UKGC RTS 12): deposits and losses per gaming day,
week and month, the largest stake of a round or hand, and the length of a play session.

Lowering a limit (or setting one where there was none) applies at once and cancels a raise
still waiting; raising or removing one applies only after the cooling-off
(``PROTECTION_COOLING_OFF_HOURS``). Every request is kept (``LimitChange``).

What a limit counts, from the player's wallet postings in its currency within its period:
- deposits: cage deposits, less those the cage reversed;
- losses: minus the stakes, settlements and settlement corrections (and their reversals), so
  chips bought in at a peer table count as lost until they are cashed out.

The checks lock the player's limit rows in the currency, so two stakes racing against one limit
are counted one after the other: the second one reads the first one's posting.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q, Sum
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from casino.gaming_day import Period, period_bounds, zone
from casino.refusals import FieldRefused, Kind
from payouts.models import (
    CENT,
    Account,
    AccountKind,
    Currency,
    LedgerEntry,
    TransactionKind,
    largest_amount,
)
from payouts.protection.models import LimitChange, LimitKind, PlayerLimit

if TYPE_CHECKING:
    from django.contrib.auth.models import User

DEPOSIT_PERIODS: dict[str, Period] = {
    LimitKind.DEPOSIT_DAY: Period.DAY,
    LimitKind.DEPOSIT_WEEK: Period.WEEK,
    LimitKind.DEPOSIT_MONTH: Period.MONTH,
}
LOSS_PERIODS: dict[str, Period] = {
    LimitKind.LOSS_DAY: Period.DAY,
    LimitKind.LOSS_WEEK: Period.WEEK,
    LimitKind.LOSS_MONTH: Period.MONTH,
}
MONEY_KINDS = (*DEPOSIT_PERIODS, *LOSS_PERIODS, LimitKind.MAX_STAKE)
# The transactions whose wallet postings are the player's losses (or wins).
LOSS_TRANSACTIONS = (TransactionKind.STAKE, TransactionKind.SETTLEMENT, TransactionKind.CORRECTION)
# At this share of a limit the player is told (RTS 12).
NEAR_SHARE = Decimal("0.8")
# The longest session time limit: a gaming day; the largest money limit, what the ledger holds.
MAX_SESSION_MINUTES = 24 * 60
LARGEST = largest_amount(PlayerLimit, "value")


def cooling_off() -> timedelta:
    return timedelta(hours=settings.PROTECTION_COOLING_OFF_HOURS)


def period_of(kind: str) -> Period | None:
    return _PERIODS.get(kind)


_PERIODS: dict[str, Period] = {**DEPOSIT_PERIODS, **LOSS_PERIODS}


def resets_at(kind: str, at: datetime) -> datetime | None:
    """When the amount a limit counts starts again from nothing: the next period's start."""
    period = period_of(kind)
    return period_bounds(period, at)[1] if period is not None else None


def local_time(moment: datetime) -> str:
    """A moment as the casino's clock shows it, in the reader's language."""
    return formats.date_format(timezone.localtime(moment, zone()), "DATETIME_FORMAT")


# Setting a limit -----------------------------------------------------------------------------


class LimitRequestRefused(FieldRefused):
    """A limit a player may not set as asked; names the field."""


def checked_value(kind: str, value: Decimal | None) -> Decimal | None:
    """The value a limit of ``kind`` may take: money as whole cents from 0.00 up to what the
    ledger holds, the session time in whole minutes of one gaming day at most."""
    if value is None:
        return None
    largest = Decimal(MAX_SESSION_MINUTES) if kind == LimitKind.SESSION_TIME else LARGEST
    if not value.is_finite() or value < 0 or value > largest:
        raise LimitRequestRefused(
            _("A limit is from 0 to %(largest)s.") % {"largest": largest},
            field="value",
            code="max_value" if value.is_finite() and value > largest else "invalid",
        )
    unit = Decimal(1) if kind == LimitKind.SESSION_TIME else CENT
    if value != value.quantize(unit):
        raise LimitRequestRefused(
            _("The session time limit is in whole minutes.")
            if kind == LimitKind.SESSION_TIME
            else _("A money limit has at most two decimal places."),
            field="value",
            code="invalid",
        )
    return value.quantize(unit)


def wallet_currencies(player: User) -> list[str]:
    """The currencies the player holds a wallet in, in the order of ``Currency``."""
    held = set(
        Account.objects.filter(owner=player, kind=AccountKind.PLAYER_WALLET).values_list(
            "currency", flat=True
        )
    )
    return [currency for currency in Currency.values if currency in held]


def set_limit(*, player: User, kind: str, currency: str, value: Decimal | None) -> PlayerLimit:
    """The player's own request to set (``value``) or remove (``None``) a limit: lowering it
    applies at once and cancels any raise waiting; raising or removing it applies after the
    cooling-off, replacing a raise already waiting. Kept in the limit's history."""
    if kind not in LimitKind.values:
        raise LimitRequestRefused(
            _("%(kind)r is no limit; use one of %(kinds)s.")
            % {"kind": kind, "kinds": ", ".join(LimitKind.values)},
            field="kind",
            code="invalid_choice",
        )
    if kind == LimitKind.SESSION_TIME:
        currency = ""
    elif currency not in wallet_currencies(player):
        raise LimitRequestRefused(
            _("You have no wallet in %(currency)r.") % {"currency": currency},
            field="currency",
            code="invalid_choice",
        )
    value = checked_value(kind, value)
    with transaction.atomic():
        limit, _created = PlayerLimit.objects.select_for_update().get_or_create(
            player=player, kind=kind, currency=currency
        )
        now = timezone.now()
        current = limit.in_force(now)
        if value is None and current is None and not limit.pending_at(now):
            return limit  # no limit, none asked for: nothing to keep
        if value is not None and (current is None or value <= current):
            limit.value, limit.pending_value, limit.applies_at = value, None, None
            applies_at = now
        else:
            applies_at = now + cooling_off()
            limit.value = current
            limit.pending_value, limit.applies_at = value, applies_at
        limit.save(update_fields=["value", "pending_value", "applies_at"])
        LimitChange.objects.create(
            limit=limit,
            requested_by=player,
            requested_at=now,
            old_value=current,
            new_value=value,
            applies_at=applies_at,
        )
    return limit


# Reading limits ------------------------------------------------------------------------------


@dataclass(frozen=True)
class LimitState:
    """A limit as the player reads it at a moment."""

    kind: str
    currency: str
    value: Decimal | None
    pending: bool
    pending_value: Decimal | None
    applies_at: datetime | None
    used: Decimal | None
    resets_at: datetime | None

    @property
    def label(self) -> str:
        return str(LimitKind(self.kind).label)

    @property
    def near(self) -> bool:
        """At or beyond ``NEAR_SHARE`` of the limit: the player is told."""
        return (
            self.value is not None
            and self.used is not None
            and self.used >= NEAR_SHARE * self.value
        )

    @property
    def used_percent(self) -> int | None:
        if self.value is None or self.used is None:
            return None
        if not self.value:
            return 100
        return min(100, int(self.used * 100 / self.value))


def in_force(
    player: User, kind: str, currency: str = "", at: datetime | None = None
) -> Decimal | None:
    """The value of the player's limit of ``kind`` in ``currency`` that binds at ``at`` (now),
    None when there is none."""
    limit = PlayerLimit.objects.filter(player=player, kind=kind, currency=currency).first()
    return limit.in_force(at or timezone.now()) if limit is not None else None


def session_minutes(player: User, at: datetime | None = None) -> int | None:
    """The player's session time limit in minutes at ``at`` (now), None when there is none."""
    value = in_force(player, LimitKind.SESSION_TIME, "", at)
    return int(value) if value is not None else None


def limits_of(player: User, at: datetime | None = None) -> list[LimitState]:
    """Every limit the player may set, in each currency they hold a wallet in, then the session
    time limit: what binds now, what is pending and from when, and how much of it is used."""
    at = at or timezone.now()
    rows = {(row.kind, row.currency): row for row in PlayerLimit.objects.filter(player=player)}
    result = []
    for currency in wallet_currencies(player):
        spent = counted(player.pk, currency, at)
        result += [
            _state(rows.get((kind, currency)), kind, currency, spent, at) for kind in MONEY_KINDS
        ]
    result.append(
        _state(rows.get((LimitKind.SESSION_TIME, "")), LimitKind.SESSION_TIME, "", {}, at)
    )
    return result


def near_limits(player: User, at: datetime | None = None) -> list[LimitState]:
    """The player's deposit and loss limits at or beyond ``NEAR_SHARE``: one query when the
    player has none set, as most have (the lobby and the tables ask on every page)."""
    at = at or timezone.now()
    counting = [
        row
        for row in PlayerLimit.objects.filter(
            player=player, kind__in=[*DEPOSIT_PERIODS, *LOSS_PERIODS]
        )
        if row.in_force(at) is not None
    ]
    near = []
    for currency in sorted({row.currency for row in counting}):
        spent = counted(player.pk, currency, at)
        for row in counting:
            if row.currency == currency:
                state = _state(row, row.kind, currency, spent, at)
                if state.near:
                    near.append(state)
    return near


def _state(
    row: PlayerLimit | None, kind: str, currency: str, spent: dict[str, Decimal], at: datetime
) -> LimitState:
    pending = row is not None and row.pending_at(at)
    used = spent.get(kind)
    return LimitState(
        kind=kind,
        currency=currency,
        value=row.in_force(at) if row is not None else None,
        pending=pending,
        pending_value=row.pending_value if row is not None and pending else None,
        applies_at=row.applies_at if row is not None and pending else None,
        used=max(used, Decimal("0.00")) if used is not None else None,
        resets_at=resets_at(kind, at),
    )


def counted(player_id: int, currency: str, at: datetime) -> dict[str, Decimal]:
    """What each deposit and loss limit of the player counts in ``currency`` in its period
    holding ``at``, by kind: one query over the wallet's postings (a loss is negative when the
    player is ahead)."""
    bounds = {period: period_bounds(period, at) for period in Period}
    earliest = min(start for start, _end in bounds.values())
    deposits = Q(transaction__kind=TransactionKind.DEPOSIT) | Q(
        transaction__reverses__kind=TransactionKind.DEPOSIT
    )
    losses = Q(transaction__kind__in=LOSS_TRANSACTIONS) | Q(
        transaction__reverses__kind__in=LOSS_TRANSACTIONS
    )
    sums: dict[str, Any] = {}
    for which, periods in ((deposits, DEPOSIT_PERIODS), (losses, LOSS_PERIODS)):
        for kind, period in periods.items():
            start, end = bounds[period]
            within = Q(transaction__created_at__gte=start, transaction__created_at__lt=end)
            sums[kind] = Sum("amount", filter=which & within, default=Decimal("0.00"))
    totals = LedgerEntry.objects.filter(
        account__owner_id=player_id,
        account__kind=AccountKind.PLAYER_WALLET,
        account__currency=currency,
        transaction__created_at__gte=earliest,
    ).aggregate(**sums)
    return {kind: -total if kind in LOSS_PERIODS else total for kind, total in totals.items()}


# Enforcing limits ----------------------------------------------------------------------------


class LimitReached(FieldRefused):
    """A deposit or stake that would break one of the player's limits: a conflict naming the
    limit and, for a limit counted over a period, when it resets."""

    def __init__(self, message: str, *, code: str, field: str, state: LimitState) -> None:
        super().__init__(message, field=field, code=code, kind=Kind.CONFLICT)
        self.state = state

    def extra(self) -> dict[str, Any]:
        extra: dict[str, Any] = {
            "limit": {
                "kind": self.state.kind,
                "currency": self.state.currency,
                "value": f"{self.state.value:.2f}",
            }
        }
        if self.state.resets_at is not None:
            extra["resets_at"] = self.state.resets_at.isoformat()
        return extra


def check_deposit(*, player: User, currency: str, amount: Decimal, field: str = "amount") -> None:
    """Refuse a deposit that would take the player's deposits in a period beyond its limit."""
    _check(player, currency, amount, kinds=DEPOSIT_PERIODS, field=field, code="deposit_limit")


def check_stake(
    *,
    player: User,
    currency: str,
    amount: Decimal,
    hand_total: Decimal | None,
    from_wallet: bool = True,
    field: str = "amount",
) -> None:
    """Refuse a stake over the maximum stake (``hand_total``, the player's whole stake in the
    round or hand after it) or, when the money leaves the wallet (``from_wallet``), one that
    would take the losses of a period beyond its limit. Chips a peer table's decision puts in
    the pot left the wallet at the buy-in, and were counted then."""
    now = timezone.now()
    rows = _locked(player, currency, [LimitKind.MAX_STAKE, *(LOSS_PERIODS if from_wallet else ())])
    for row in rows:
        value = row.in_force(now)
        if row.kind != LimitKind.MAX_STAKE or value is None or hand_total is None:
            continue
        if hand_total > value:
            state = _state(row, row.kind, currency, {}, now)
            raise LimitReached(
                _(
                    "%(total)s %(currency)s staked in this round or hand would be over your "
                    "%(limit)s, %(value)s %(currency)s."
                )
                % {"total": hand_total, "currency": currency, "limit": state.label, "value": value},
                code="max_stake",
                field=field,
                state=state,
            )
    if from_wallet:
        _over_period(
            player,
            currency,
            amount,
            now,
            [r for r in rows if r.kind in LOSS_PERIODS],
            field,
            "loss_limit",
        )


def _check(
    player: User,
    currency: str,
    amount: Decimal,
    *,
    kinds: Iterable[str],
    field: str,
    code: str,
) -> None:
    now = timezone.now()
    _over_period(player, currency, amount, now, _locked(player, currency, kinds), field, code)


def _locked(player: User, currency: str, kinds: Iterable[str]) -> list[PlayerLimit]:
    """The player's limits of ``kinds`` in ``currency``, locked (in id order, as every caller
    locks them) until the caller's transaction ends: a concurrent deposit or stake waits here
    and then counts this one's posting."""
    return list(
        PlayerLimit.objects.select_for_update()
        .filter(player=player, currency=currency, kind__in=list(kinds))
        .order_by("pk")
    )


def _over_period(
    player: User,
    currency: str,
    amount: Decimal,
    now: datetime,
    rows: Sequence[PlayerLimit],
    field: str,
    code: str,
) -> None:
    order = list(LimitKind.values)  # the shortest period first: it resets first
    binding = sorted(
        ((row, value) for row in rows if (value := row.in_force(now)) is not None),
        key=lambda pair: order.index(pair[0].kind),
    )
    if not binding:
        return
    spent = counted(player.pk, currency, now)
    for row, value in binding:
        if spent[row.kind] + amount <= value:
            continue
        state = _state(row, row.kind, currency, spent, now)
        words = {
            "amount": amount,
            "currency": currency,
            "limit": state.label,
            "value": value,
            "used": max(spent[row.kind], Decimal("0.00")),
            "resets_at": local_time(state.resets_at) if state.resets_at else "",
        }
        message = (
            _(
                "A deposit of %(amount)s %(currency)s would go over the %(limit)s, %(value)s "
                "%(currency)s (%(used)s deposited so far). It resets at %(resets_at)s."
            )
            if code == "deposit_limit"
            else _(
                "A stake of %(amount)s %(currency)s would go over your %(limit)s, %(value)s "
                "%(currency)s (%(used)s lost so far). It resets at %(resets_at)s."
            )
        )
        raise LimitReached(message % words, code=code, field=field, state=state)
