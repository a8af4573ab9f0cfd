"""Play sessions, reality checks, time-outs and self-exclusion (UKGC RTS 13 and 14).

A **play session** begins at the first stake of a player who has staked nothing for
``PLAY_SESSION_BREAK_MINUTES``; its length is now minus its start, its net result the player's
wallet postings of play since the start (as a loss limit counts them, with the sign of a win)
plus the chips the player holds at peer tables now. A **reality check** falls due every
interval of play the player chose; until it is acknowledged no stake is taken. A **time-out**
(24 hours to 6 weeks) or **self-exclusion** (6 months to 5 years) refuses every new round,
buy-in, rebuy, deal and deposit until it ends; nobody can end one early.

The gate asks ``check_stake`` and ``check_deposit`` inside the service's transaction, before
anything is posted; the peer tables ask ``barred_from_play`` whom not to deal in, and
``excluded_players`` whose seats to cash out after the hand.
"""

from __future__ import annotations

import calendar
from collections import defaultdict
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import (
    Case,
    DateTimeField,
    ExpressionWrapper,
    F,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from casino.db import prepared_cursor
from casino.refusals import FieldRefused, Kind
from payouts.models import AccountKind, LedgerEntry
from payouts.protection.limits import LOSS_TRANSACTIONS
from payouts.protection.models import (
    REALITY_CHECK_CHOICES,
    REALITY_CHECK_DEFAULT_MINUTES,
    Exclusion,
    ExclusionKind,
    LimitKind,
    PlayerLimit,
    PlaySession,
    RealityCheck,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class ConductRefused(FieldRefused):
    """A stake, deposit or request refused by the player's own decisions; ``extra`` goes into
    the body beside detail, code and errors (``until``, ``session``)."""

    def __init__(
        self, message: str, *, code: str, kind: Kind, field: str, extra: dict[str, Any]
    ) -> None:
        super().__init__(message, field=field, code=code, kind=kind)
        self.extra_fields = extra

    def extra(self) -> dict[str, Any]:
        return self.extra_fields


# Sessions -----------------------------------------------------------------------------------------

# What the player holds at peer tables now, by currency: the games register it (payouts knows
# no game), as they register their sub-ledger checks.
ChipsAtTables = Callable[[int], dict[str, Decimal]]
_chips_at_tables: list[ChipsAtTables] = []


def register_chips_at_tables(chips: ChipsAtTables) -> None:
    if chips not in _chips_at_tables:
        _chips_at_tables.append(chips)


def break_between_sessions() -> timedelta:
    return timedelta(minutes=settings.PLAY_SESSION_BREAK_MINUTES)


@dataclass(frozen=True)
class Session:
    """A play session as the player and the staff read it."""

    started_at: datetime
    last_stake_at: datetime
    minutes: int
    net_result: dict[str, Decimal]
    reality_check_minutes: int
    next_due_at: datetime
    due: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "started_at": self.started_at.isoformat(),
            "minutes": self.minutes,
            "net_result": amounts_json(self.net_result),
            "reality_check_minutes": self.reality_check_minutes,
            "next_due_at": self.next_due_at.isoformat(),
            "due": self.due,
        }


def amounts_json(amounts: dict[str, Decimal]) -> dict[str, str]:
    return {currency: f"{amount:.2f}" for currency, amount in amounts.items()}


def current_session(player: User, now: datetime | None = None) -> Session | None:
    """The player's session in progress at ``now`` (None after a break or before any stake)."""
    now = now or timezone.now()
    row = PlaySession.objects.filter(player=player).first()
    if row is None or not _in_progress(row, now):
        return None
    return _session(row, now)


def _in_progress(row: PlaySession, now: datetime) -> bool:
    return row.last_stake_at is not None and row.last_stake_at > now - break_between_sessions()


def _session(row: PlaySession, now: datetime) -> Session:
    # Set together by the first stake, and a session in progress has had one.
    started_at = cast(datetime, row.started_at)
    due_at = cast(datetime, row.reality_check_due_at)
    return Session(
        started_at=started_at,
        last_stake_at=cast(datetime, row.last_stake_at),
        minutes=int((now - started_at).total_seconds() // 60),
        net_result=net_result(row.player_id, since=started_at),
        reality_check_minutes=row.reality_check_minutes,
        next_due_at=due_at,
        due=due_at <= now,
    )


def net_result(player_id: int, *, since: datetime) -> dict[str, Decimal]:
    """The player's result of play since ``since``, per currency: their wallet postings of
    stakes, settlements and corrections (and reversals of those), plus the chips they hold at
    peer tables now (a buy-in counts as staked until it is cashed out)."""
    postings = (
        LedgerEntry.objects.filter(
            account__kind=AccountKind.PLAYER_WALLET,
            account__owner_id=player_id,
            transaction__created_at__gte=since,
        )
        .filter(
            Q(transaction__kind__in=LOSS_TRANSACTIONS)
            | Q(transaction__reverses__kind__in=LOSS_TRANSACTIONS)
        )
        .values("currency")
        .annotate(total=Sum("amount"))
    )
    result: dict[str, Decimal] = defaultdict(Decimal)
    for row in postings:
        result[row["currency"]] += row["total"]
    for chips in _chips_at_tables:
        for currency, amount in chips(player_id).items():
            result[currency] += amount
    return {currency: amount.quantize(Decimal("0.01")) for currency, amount in result.items()}


# One statement per stake (the hot path): the player's session goes on, or a new one begins
# (with its first reality check one interval away), and the exclusion in force and the session
# time limit come back. A
# refusal rolls the caller's transaction back, and the stake is not recorded either.
_RECORD_STAKES = """
WITH stake AS (
    INSERT INTO protection_playsession AS s
        (player_id, started_at, last_stake_at, reality_check_due_at, reality_check_minutes)
    SELECT p, %(now)s, %(now)s, %(now)s + make_interval(mins => %(every)s), %(every)s
    FROM unnest(%(players)s::bigint[]) AS p
    ON CONFLICT (player_id) DO UPDATE SET
        started_at = CASE WHEN s.last_stake_at IS NULL OR s.last_stake_at <= %(session_over)s
                          THEN %(now)s ELSE s.started_at END,
        reality_check_due_at = CASE
            WHEN s.last_stake_at IS NULL OR s.last_stake_at <= %(session_over)s
            THEN %(now)s + make_interval(mins => s.reality_check_minutes)
            ELSE s.reality_check_due_at END,
        last_stake_at = %(now)s
    RETURNING s.player_id, s.started_at, s.reality_check_due_at
)
SELECT stake.player_id, stake.started_at, stake.reality_check_due_at, x.kind, x.until,
       l.value, l.pending_value, l.applies_at
FROM stake LEFT JOIN LATERAL (
    SELECT e.kind, e.until FROM protection_exclusion e
    WHERE e.player_id = stake.player_id AND e.starts_at <= %(now)s AND e.until > %(now)s
    ORDER BY e.until DESC LIMIT 1
) x ON true
LEFT JOIN protection_playerlimit l
    ON l.player_id = stake.player_id AND l.kind = %(session_time)s AND l.currency = ''
"""


@dataclass(frozen=True)
class Stake:
    """What one recorded stake tells the gate."""

    player_id: int
    started_at: datetime
    reality_check_due_at: datetime
    exclusion: str | None
    until: datetime | None
    session_limit: PlayerLimit | None


def record_stakes(player_ids: Collection[int], now: datetime) -> list[Stake]:
    """Record a stake of each player at ``now``: their session goes on, or begins."""
    with prepared_cursor() as cursor:
        cursor.execute(
            _RECORD_STAKES,
            {
                "players": list(player_ids),
                "now": now,
                "session_over": now - break_between_sessions(),
                "every": REALITY_CHECK_DEFAULT_MINUTES,
                "session_time": LimitKind.SESSION_TIME.value,
            },
        )
        return [
            Stake(player_id, started_at, due_at, exclusion, until, _limit(value, pending, applies))
            for player_id, started_at, due_at, exclusion, until, value, pending, applies in (
                cursor.fetchall()
            )
        ]


def _limit(
    value: Decimal | None, pending: Decimal | None, applies_at: datetime | None
) -> PlayerLimit | None:
    if value is None and applies_at is None:
        return None
    return PlayerLimit(value=value, pending_value=pending, applies_at=applies_at)


# The gate's checks -------------------------------------------------------------------------------


def check_stake(*, player: User, starts_play: bool) -> None:
    """Refuse a stake the player's own decisions forbid, in the gate's order: a time-out or
    self-exclusion (a new round, buy-in, rebuy or deal only: a round in play may be finished),
    then a reality check due (every stake), then the session time limit (``starts_play``)."""
    now = timezone.now()
    (stake,) = record_stakes([player.pk], now)
    if starts_play and stake.exclusion is not None:
        raise exclusion_refusal(stake.exclusion, cast(datetime, stake.until))
    if stake.reality_check_due_at <= now:
        session = _session(PlaySession.objects.get(player=player), now)
        raise ConductRefused(
            _(
                "Your reality check is due: you have played for %(minutes)s minutes. "
                "Acknowledge it to go on."
            )
            % {"minutes": session.minutes},
            code="reality_check_due",
            kind=Kind.CONFLICT,
            field="reality_check",
            extra={"session": session.as_json()},
        )
    session_limit = stake.session_limit.in_force(now) if stake.session_limit else None
    if starts_play and session_limit is not None:
        session_limit_minutes = int(session_limit)
        if now - stake.started_at >= timedelta(minutes=session_limit_minutes):
            raise ConductRefused(
                _(
                    "Your session time limit of %(limit)s minutes is reached: take a break of "
                    "%(pause)s minutes before you play again."
                )
                % {"limit": session_limit_minutes, "pause": settings.PLAY_SESSION_BREAK_MINUTES},
                code="session_time_limit",
                kind=Kind.CONFLICT,
                field="session_time_limit",
                extra={"limit": {"kind": "session_time", "minutes": session_limit_minutes}},
            )


def check_deposit(*, player: User) -> None:
    """No deposit while a time-out or self-exclusion is in force."""
    exclusion = exclusion_in_force(player)
    if exclusion is not None:
        raise exclusion_refusal(exclusion.kind, exclusion.until)


def exclusion_refusal(kind: str, until: datetime) -> ConductRefused:
    when = date_format(timezone.localtime(until), "DATETIME_FORMAT")
    if kind == ExclusionKind.SELF_EXCLUSION:
        message, code = _("You are self-excluded until %(until)s."), "self_excluded"
    else:
        message, code = _("You are taking a time-out until %(until)s."), "time_out"
    return ConductRefused(
        message % {"until": when},
        code=code,
        kind=Kind.FORBIDDEN,
        field="player",
        extra={"until": until.isoformat()},
    )


# Who may play -----------------------------------------------------------------------------------


def excluded_players(now: datetime | None = None) -> QuerySet[Exclusion, Any]:
    """The players under a time-out or self-exclusion at ``now`` (their ids), for a subquery."""
    now = now or timezone.now()
    return Exclusion.objects.filter(starts_at__lte=now, until__gt=now).values("player_id")


def barred_from_play(field: str, now: datetime | None = None) -> Q:
    """Whether the player named by ``field`` (e.g. "player_id") may not start play at ``now``:
    a time-out or self-exclusion in force, or in a session whose reality check is due or that
    reached the player's session time limit. A peer table does not deal them in."""
    now = now or timezone.now()
    in_session = PlaySession.objects.filter(last_stake_at__gt=now - break_between_sessions())
    # The session time limit in force, in minutes (as ``PlayerLimit.in_force`` reads it).
    limit = (
        PlayerLimit.objects.filter(
            player_id=OuterRef("player_id"), kind=LimitKind.SESSION_TIME, currency=""
        )
        .annotate(
            minutes=Case(When(applies_at__lte=now, then=F("pending_value")), default=F("value"))
        )
        .values("minutes")[:1]
    )
    over_limit = in_session.annotate(limit=Subquery(limit)).filter(
        limit__isnull=False,
        started_at__lte=ExpressionWrapper(
            Value(now) - F("limit") * Value(timedelta(minutes=1)), output_field=DateTimeField()
        ),
    )
    return (
        Q(**{f"{field}__in": excluded_players(now)})
        | Q(**{f"{field}__in": in_session.filter(reality_check_due_at__lte=now).values("player")})
        | Q(**{f"{field}__in": over_limit.values("player_id")})
    )


# Reality checks ----------------------------------------------------------------------------------


def choose_reality_check(*, player: User, minutes: int) -> PlaySession:
    """The player's interval between reality checks. A shorter one applies at once (the next
    check comes no later than one new interval from now); a longer one from the next check."""
    if minutes not in REALITY_CHECK_CHOICES:
        raise ConductRefused(
            _("Choose a reality check interval of %(choices)s minutes.")
            % {"choices": ", ".join(str(m) for m in REALITY_CHECK_CHOICES)},
            code="reality_check_minutes",
            kind=Kind.INVALID,
            field="minutes",
            extra={},
        )
    now = timezone.now()
    with transaction.atomic():
        row, _created = PlaySession.objects.select_for_update().get_or_create(player=player)
        row.reality_check_minutes = minutes
        if row.reality_check_due_at is not None and _in_progress(row, now):
            row.reality_check_due_at = min(
                row.reality_check_due_at, now + timedelta(minutes=minutes)
            )
        row.save()
    return row


def acknowledge_reality_check(*, player: User) -> Session | None:
    """The player read the notice: it is kept (with what it showed) and the next one falls one
    interval from now. Acknowledging when nothing is due changes nothing, so a second press
    (or a retry) is harmless."""
    now = timezone.now()
    with transaction.atomic():
        row = PlaySession.objects.select_for_update().filter(player=player).first()
        if row is None or not _in_progress(row, now):
            return None
        session = _session(row, now)
        if not session.due:
            return session
        try:
            with transaction.atomic():
                RealityCheck.objects.create(
                    player=player,
                    session_started_at=session.started_at,
                    due_at=session.next_due_at,
                    acknowledged_at=now,
                    minutes=session.minutes,
                    net_result=amounts_json(session.net_result),
                )
        except IntegrityError:  # acknowledged a moment ago by the same player's other tab
            pass
        row.reality_check_due_at = now + timedelta(minutes=row.reality_check_minutes)
        row.save(update_fields=["reality_check_due_at"])
        return _session(row, now)


# Time-outs and self-exclusion --------------------------------------------------------------------

# How long each kind lasts, at least and at most, in calendar terms.
TIME_OUT_SHORTEST = timedelta(hours=24)
TIME_OUT_LONGEST = timedelta(weeks=6)
SELF_EXCLUSION_SHORTEST_MONTHS = 6
SELF_EXCLUSION_LONGEST_MONTHS = 60
# A time the player's device computed as "24 hours from now" reaches us a moment later.
TRANSIT = timedelta(minutes=1)


def months_later(moment: datetime, months: int) -> datetime:
    """The same day and time ``months`` calendar months later (the month's last day if shorter)."""
    month = moment.month - 1 + months
    year, month = moment.year + month // 12, month % 12 + 1
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


def exclusion_range(kind: str, now: datetime) -> tuple[datetime, datetime]:
    """The earliest and the latest end of an exclusion of ``kind`` taken at ``now``."""
    if kind == ExclusionKind.TIME_OUT:
        return now + TIME_OUT_SHORTEST, now + TIME_OUT_LONGEST
    return (
        months_later(now, SELF_EXCLUSION_SHORTEST_MONTHS),
        months_later(now, SELF_EXCLUSION_LONGEST_MONTHS),
    )


def exclusion_in_force(player: User, now: datetime | None = None) -> Exclusion | None:
    """The exclusion that ends last among those in force, if any."""
    now = now or timezone.now()
    return (
        Exclusion.objects.filter(player=player, starts_at__lte=now, until__gt=now)
        .order_by("-until")
        .first()
    )


def _refused(message: str, code: str, field: str = "until") -> ConductRefused:
    return ConductRefused(message, code=code, kind=Kind.INVALID, field=field, extra={})


def take_exclusion(*, player: User, kind: str, until: datetime) -> tuple[Exclusion, bool]:
    """A time-out or self-exclusion from now ``until``; returns it and whether it is new. The
    same one again (a retry) is the one in force; one ending earlier than that is refused: an
    exclusion is never shortened."""
    if kind not in ExclusionKind.values:
        raise _refused(_("Choose time_out or self_exclusion."), "exclusion_kind", field="kind")
    now = timezone.now()
    earliest, latest = exclusion_range(kind, now)
    when = date_format(timezone.localtime(until), "DATETIME_FORMAT")
    if until <= now:
        raise _refused(_("%(until)s is in the past.") % {"until": when}, "exclusion_in_past")
    time_out = kind == ExclusionKind.TIME_OUT
    if until < earliest - TRANSIT:
        raise _refused(
            (
                _("A time-out lasts at least 24 hours: choose an end from %(earliest)s.")
                if time_out
                else _("A self-exclusion lasts at least 6 months: choose an end from %(earliest)s.")
            )
            % {"earliest": date_format(timezone.localtime(earliest), "DATETIME_FORMAT")},
            "exclusion_too_short",
        )
    if until > latest:
        raise _refused(
            (
                _("A time-out lasts at most 6 weeks: choose an end by %(latest)s.")
                if time_out
                else _("A self-exclusion lasts at most 5 years: choose an end by %(latest)s.")
            )
            % {"latest": date_format(timezone.localtime(latest), "DATETIME_FORMAT")},
            "exclusion_too_long",
        )
    with transaction.atomic():
        # One request at a time per player, so two cannot both pass the check below.
        get_user_model().objects.select_for_update().filter(pk=player.pk).first()
        current = exclusion_in_force(player, now)
        if current is not None and current.kind == kind and current.until == until:
            return current, False
        if current is not None and until < current.until:
            raise _refused(
                _(
                    "Your break runs until %(until)s and cannot be shortened: a new one must "
                    "end later."
                )
                % {"until": date_format(timezone.localtime(current.until), "DATETIME_FORMAT")},
                "exclusion_cannot_shorten",
            )
        return Exclusion.objects.create(player=player, kind=kind, starts_at=now, until=until), True
