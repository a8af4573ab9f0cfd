"""Read queries over tables."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, cast

from django.db import connection
from django.db.models import Prefetch, QuerySet, Sum
from django.utils import timezone

from casino.roles import STAFF_ROLES
from games.models import (
    BoxSettlement,
    Round,
    RoundStatus,
    Seat,
    SeatStatus,
    SettlementCorrection,
    Table,
    TableLimits,
    TableStatus,
)
from games.tables.alerts import CatchUpFailure, catch_up_failures
from games.tables.table_game import TableGame, game_of
from payouts.models import AccountKind, ChangeStatus, LedgerEntry
from payouts.selectors import bankrolls

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


def is_staff_member(user: User | AnonymousUser) -> bool:
    return user.is_superuser or user.groups.filter(name__in=STAFF_ROLES).exists()


def tables_for(user: User | AnonymousUser, *, game: str | None = None) -> QuerySet[Table]:
    """Tables with their approved limits; players see open tables only, staff every table."""
    approved = (
        TableLimits.objects.filter(status="approved")
        .select_related("bet_paytable", "bonus_paytable")
        .order_by("-number")
    )
    tables = Table.objects.prefetch_related(
        Prefetch("limits_versions", queryset=approved, to_attr="approved_limits")
    )
    if not is_staff_member(user):
        tables = tables.filter(status=TableStatus.OPEN)
    if game:
        tables = tables.filter(game=game)
    return tables.order_by("game", "currency", "name")


def rounds_for(
    user: User | AnonymousUser, *, game: str, table: int | None = None
) -> QuerySet[Round]:
    """Rounds the user may see: players their own, staff and auditors every round."""
    rounds = Round.objects.filter(table__game=game).select_related(
        "table",
        "player",
        "seed_pair",
        "bet_paytable_version__paytable",
        "bonus_paytable_version__paytable",
    )
    if not is_staff_member(user):
        rounds = (
            rounds.filter(game_of(game).own_rounds(cast("User", user)))
            if user.is_authenticated
            else rounds.none()
        )
    if table is not None:
        rounds = rounds.filter(table_id=table)
    return rounds.order_by("-id")


# Events of a joker draw round that take cards off the deck, with their deck positions (JD-3,
# JD-4, JD-8).
_DEALING_EVENTS = ("dealt", "exchange", "dealer_draw")


def dealt_cards(round_: Round) -> list[tuple[int, str]]:
    """Every card a settled joker draw round took off the deck, as (deck position, card) in
    deck order, for anyone to check against the revealed seed (FS-7). A round still being
    played shows nothing: its cards are secret until it is over."""
    if round_.status != RoundStatus.SETTLED:
        return []
    dealt: list[tuple[int, str]] = []
    events = round_.events.filter(kind__in=_DEALING_EVENTS).values_list("kind", "data")
    for kind, data in events:
        if kind == "dealt":
            for holder, positions in data["positions"].items():
                cards = data["dealer"] if holder == "dealer" else data["boxes"][holder]
                dealt += zip(positions, cards, strict=True)
        else:
            dealt += zip(data["positions"], data["drawn"], strict=True)
    return sorted(dealt)


# The staff screens ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LiveTable:
    """One table as the pit sees it: who sits there, what is being played, today's takings."""

    table: Table
    seats: list[Seat]
    rounds: list[tuple[Round, str]]
    """Each round in progress with its state in a few words (``round_state``)."""
    takings_today: Decimal
    catch_up_failure: CatchUpFailure | None = None
    """Set while the sweeper fails to catch up the table's timers (``games.tables.alerts``)."""
    top_payout: TopPayout | None = None
    """A banked table's top payout under its limits in force."""


def live_tables(available: dict[str, Decimal]) -> list[LiveTable]:
    """Every table with its seated players, its rounds in progress (described without their
    cards, which stay secret until a round is over) and the house's takings today; a banked
    table's top payout against the bankroll ``available`` by currency."""
    tables = list(Table.objects.order_by("game", "currency", "name"))
    seats: dict[int, list[Seat]] = defaultdict(list)
    for seating in (
        Seat.objects.exclude(status=SeatStatus.LEFT).select_related("player").order_by("number")
    ):
        seats[seating.table_id].append(seating)
    rounds: dict[int, list[Round]] = defaultdict(list)
    for round_ in Round.objects.filter(status=RoundStatus.DECIDING).select_related("player"):
        rounds[round_.table_id].append(round_)
    takings = takings_today()
    failures = catch_up_failures(table.pk for table in tables)
    live = []
    for table in tables:
        game = game_of(table.game)
        limits = table.active_limits()
        live.append(
            LiveTable(
                table=table,
                seats=seats[table.pk],
                rounds=[(round_, game.round_state(round_)) for round_ in rounds[table.pk]],
                takings_today=takings.get(table.pk, Decimal("0.00")),
                catch_up_failure=failures.get(table.pk),
                top_payout=top_payout(game, limits, available) if limits else None,
            )
        )
    return live


@dataclass(frozen=True)
class TopPayout:
    """What one round at the top of a banked table's limits can cost the house (HB-1), and
    whether that is more than the bankroll has available: such an opening would be refused,
    so pit staff see the limits flagged."""

    amount: Decimal
    uncovered: bool


def available_bankrolls() -> dict[str, Decimal]:
    """What the house bankroll can still put at risk, by currency."""
    return {currency: bankroll.available for currency, bankroll in bankrolls().items()}


def top_payout(
    game: TableGame, limits: TableLimits, available: dict[str, Decimal]
) -> TopPayout | None:
    """The limits' top payout against the bankroll `available` in the table's currency; None
    for limits that are not a banked game's or whose paytables have no approved version."""
    amount = game.top_round_payout(limits)
    if amount is None:
        return None
    return TopPayout(amount, amount > available.get(limits.table.currency, Decimal("0.00")))


def takings_today() -> dict[int, Decimal]:
    """Each table's house result since midnight (UTC): at banked tables the house's net from
    the boxes settled (the players' losses less their wins), at peer tables the rake taken."""
    since = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    banked = (
        BoxSettlement.objects.filter(settled_at__gte=since)
        .values("table_id")
        .annotate(players=Sum("total_result"))
    )
    takings = {row["table_id"]: -row["players"] for row in banked}
    with connection.cursor() as cursor:
        # Peer games post the rake with a reference naming the hand ("round:ID:event:N").
        cursor.execute(
            "SELECT r.table_id, SUM(e.amount) FROM payouts_ledgerentry e "
            "JOIN payouts_account a ON a.id = e.account_id "
            "JOIN payouts_ledgertransaction t ON t.id = e.transaction_id "
            "JOIN games_round r ON r.id = CASE WHEN t.reference LIKE 'round:%%' "
            "  THEN split_part(t.reference, ':', 2)::bigint END "
            "WHERE a.kind = %s AND e.created_at >= %s GROUP BY r.table_id",
            [AccountKind.RAKE, since],
        )
        for table_id, rake in cursor.fetchall():
            takings[table_id] = takings.get(table_id, Decimal("0.00")) + rake
    return takings


def box_settlements(
    *,
    date_from: date | None = None,
    date_to: date | None = None,
    table: Table | None = None,
    player: User | None = None,
    category: str = "",
    min_amount: Decimal | None = None,
    max_amount: Decimal | None = None,
) -> QuerySet[BoxSettlement]:
    """Settled joker draw boxes for the payouts review, newest first; dates are settlement days
    (UTC, both ends included), amounts the player's net result of the box."""
    settlements = BoxSettlement.objects.select_related(
        "round", "table", "player", "bet_paytable_version__paytable",
        "bonus_paytable_version__paytable",
    )  # fmt: skip
    if date_from is not None:
        settlements = settlements.filter(settled_at__date__gte=date_from)
    if date_to is not None:
        settlements = settlements.filter(settled_at__date__lte=date_to)
    if table is not None:
        settlements = settlements.filter(table=table)
    if player is not None:
        settlements = settlements.filter(player=player)
    if category:
        settlements = settlements.filter(category=category)
    if min_amount is not None:
        settlements = settlements.filter(total_result__gte=min_amount)
    if max_amount is not None:
        settlements = settlements.filter(total_result__lte=max_amount)
    return settlements.order_by("-settled_at", "-round_id", "box")


def approved_corrections(
    round_ids: Iterable[int] | None = None,
) -> dict[tuple[int, int], Decimal]:
    """What approved settlement corrections added to each box (round id, box) of the rounds
    (of every round when none are named)."""
    totals: dict[tuple[int, int], Decimal] = defaultdict(Decimal)
    approved = SettlementCorrection.objects.filter(status=ChangeStatus.APPROVED)
    if round_ids is not None:
        approved = approved.filter(round_id__in=list(round_ids))
    for correction in approved:
        for box, amount in correction.box_amounts().items():
            totals[correction.round_id, box] += amount
    return dict(totals)


def round_ledger_entries(round_: Round) -> QuerySet[LedgerEntry]:
    """Every ledger entry the round posted (its references are "round:ID:...")."""
    return (
        LedgerEntry.objects.filter(transaction__reference__startswith=f"round:{round_.pk}:")
        .select_related("transaction", "account__owner")
        .order_by("transaction_id", "id")
    )


@dataclass(frozen=True)
class ReturnSums:
    """What one table returned on one paytable version: the sums a ratio estimate of the RTP
    and its confidence interval need (S staked and R returned per box)."""

    table_id: int
    paytable_version_id: int
    boxes: int
    staked: Decimal
    returned: Decimal
    staked_squared: Decimal
    returned_squared: Decimal
    cross: Decimal


def return_sums(kind: str) -> list[ReturnSums]:
    """Per table and paytable version, the settled boxes' stakes and returns: for the bet
    paytable ante and bet together (a folded box returns nothing), for the bonus paytable the
    bonus of the boxes that placed one."""
    if kind == "bet":
        version, staked, net = (
            "bet_paytable_version_id",
            "ante_staked + bet_staked",
            "ante_result + bet_result",
        )
        placed = "TRUE"
    else:
        version, staked, net = "bonus_paytable_version_id", "bonus_staked", "bonus_result"
        placed = "bonus_staked > 0"
    query = f"""
        SELECT table_id, {version}, count(*), sum(s), sum(r), sum(s * s), sum(r * r), sum(r * s)
        FROM (
            SELECT table_id, {version}, {staked} AS s, {staked} + {net} AS r
            FROM games_boxsettlement WHERE {placed} AND {version} IS NOT NULL
        ) AS boxes
        GROUP BY table_id, {version} ORDER BY table_id, {version}
    """  # noqa: S608 - the fragments are the constants above, never input
    with connection.cursor() as cursor:
        cursor.execute(query)
        return [ReturnSums(*row) for row in cursor.fetchall()]
