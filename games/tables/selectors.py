"""Read queries over tables."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_FLOOR, Decimal
from typing import TYPE_CHECKING, cast

from django.conf import settings
from django.db import connection
from django.db.models import Count, Exists, Min, OuterRef, Prefetch, Q, QuerySet, Sum
from django.utils import timezone

from casino.roles import STAFF_ROLES
from games.models import (
    BoxSettlement,
    Round,
    RoundStatus,
    Seat,
    SeatStatus,
    Table,
    TableLimits,
    TableStatus,
)
from games.tables.alerts import CatchUpFailure, catch_up_failures
from games.tables.table_game import Staked, TableGame, game_of
from payouts.models import AccountKind, LedgerEntry
from payouts.selectors import Bankroll

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


def is_staff_member(user: User | AnonymousUser) -> bool:
    return user.is_superuser or user.groups.filter(name__in=STAFF_ROLES).exists()


def tables_for(user: User | AnonymousUser, *, game: str | None = None) -> QuerySet[Table]:
    """Tables with their approved limits; staff see every table, players the open ones and
    those closed where they still have business (``players_closed_tables``)."""
    approved = (
        TableLimits.objects.filter(status="approved")
        .select_related("bet_paytable", "bonus_paytable")
        .order_by("-number")
    )
    tables = Table.objects.prefetch_related(
        Prefetch("limits_versions", queryset=approved, to_attr="approved_limits")
    )
    if not is_staff_member(user):
        tables = tables.filter(Q(status=TableStatus.OPEN) | players_closed_tables(user))
    if game:
        tables = tables.filter(game=game)
    return tables.order_by("game", "currency", "name")


def players_at_tables() -> dict[int, int]:
    """How many players each table has now: seated at a peer table, with a round in play at a
    banked one, in one query. Tables nobody is at are left out."""
    seated = (
        Seat.objects.exclude(status=SeatStatus.LEFT)
        .values("table_id")
        .annotate(players=Count("player_id", distinct=True))
    )
    playing = (
        Round.objects.filter(status=RoundStatus.DECIDING, player__isnull=False)
        .values("table_id")
        .annotate(players=Count("player_id", distinct=True))
    )
    return {row["table_id"]: row["players"] for row in seated.union(playing, all=True)}


def players_closed_tables(user: User | AnonymousUser) -> Q:
    """The closed tables a player still has business at, so can always read and leave: a
    seat still held (its chips must come back), a seat the closing cashed out (the player
    reads why), a banked round still in play (it finishes). Strangers see none of them."""
    if not user.is_authenticated:
        return Q(pk__in=[])
    seats = Seat.objects.filter(table=OuterRef("pk"), player=user)
    held = seats.exclude(status=SeatStatus.LEFT)
    cashed_out_by_closing = seats.filter(left_at__gte=OuterRef("status_changed_at"))
    in_play = Round.objects.filter(table=OuterRef("pk"), player=user, status=RoundStatus.DECIDING)
    return Q(Exists(held)) | Q(Exists(cashed_out_by_closing)) | Q(Exists(in_play))


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


def overdue_decisions(due_before: datetime) -> QuerySet[Round]:
    """The rounds of every game with a decision due before ``due_before``, oldest deadline
    first. Every game keeps the deadline of its next decision in ``Round.decision_deadline``
    (a joker draw round's for its boxes in turn, a peer hand's for the seat to act), cleared
    when the round is over; the partial index ``deciding_rounds_by_deadline`` (the deadlines
    of the rounds still deciding) finds them without reading any other round."""
    return Round.objects.filter(
        status=RoundStatus.DECIDING, decision_deadline__lt=due_before
    ).order_by("decision_deadline")


# The staff screens ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundInPlay:
    """A round in progress as the pit sees it: its state in a few words (``round_state``), what
    it has staked, and when its decision runs out (the pit's countdown)."""

    round: Round
    state: str
    staked: Staked

    @property
    def deadline(self) -> datetime | None:
        return self.round.decision_deadline


@dataclass(frozen=True)
class LiveTable:
    """One table as the pit sees it: who sits there, what is being played, today's takings."""

    table: Table
    seats: list[Seat]
    rounds: list[RoundInPlay]
    """Each round in progress, described without its cards."""
    takings_today: Decimal
    catch_up_failure: CatchUpFailure | None = None
    """Set while the sweeper fails to catch up the table's timers (``games.tables.alerts``)."""
    top_payout: TopPayout | None = None
    """A banked table's top payout under its limits in force."""


def live_tables(houses: dict[str, Bankroll]) -> list[LiveTable]:
    """Every table with its seated players, its rounds in progress (described without their
    cards, which stay secret until a round is over) and the house's takings today; a banked
    table's top payout against the bankroll of its currency (``houses``)."""
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
        limits = table.active_limits() if game.banked else None
        live.append(
            LiveTable(
                table=table,
                seats=seats[table.pk],
                rounds=[
                    RoundInPlay(round_, game.round_state(round_), game.staked(round_.engine_state))
                    for round_ in rounds[table.pk]
                ],
                takings_today=takings.get(table.pk, Decimal("0.00")),
                catch_up_failure=failures.get(table.pk),
                top_payout=top_payout(game, limits, houses) if limits else None,
            )
        )
    return live


@dataclass(frozen=True)
class TopPayout:
    """What one round at the top of a banked table's limits can cost the house (HB-1), and
    whether that is more than the bankroll has available, or than one player may hold of it
    (HB-2): such an opening would be refused, so pit staff see the limits flagged."""

    amount: Decimal
    uncovered: bool
    player_share: Decimal
    """The most one player's rounds in play may hold under these limits, now."""

    @property
    def over_share(self) -> bool:
        """The bankroll has it available, but one player may not hold it (HB-2); when it has
        not, the pit is told that instead (HB-1)."""
        return not self.uncovered and self.amount > self.player_share


def bankroll_shares(limits: TableLimits) -> tuple[Decimal, Decimal]:
    """The percent of the bankroll one player's, and one table's, rounds in play may hold
    (HB-2, HB-3): the limits' own, else the environment's."""
    return (
        limits.player_bankroll_percent or settings.BANKROLL_PLAYER_PERCENT,
        limits.table_bankroll_percent or settings.BANKROLL_TABLE_PERCENT,
    )


def share_of(bankroll: Decimal, percent: Decimal) -> Decimal:
    """``percent`` of ``bankroll``, rounded down to the cent: a share is never exceeded."""
    return (bankroll * percent / 100).quantize(Decimal("0.01"), rounding=ROUND_FLOOR)


def top_payout(
    game: TableGame, limits: TableLimits, houses: dict[str, Bankroll]
) -> TopPayout | None:
    """The limits' top payout against the bankroll in the table's currency (``houses``); None
    for limits that are not a banked game's or whose paytables have no approved version."""
    amount = game.top_round_payout(limits)
    if amount is None:
        return None
    zero = Decimal("0.00")
    house = houses.get(limits.table.currency, Bankroll(limits.table.currency, zero, zero))
    player_share = share_of(house.total, bankroll_shares(limits)[0])
    return TopPayout(amount, amount > house.available, player_share)


@dataclass(frozen=True)
class Holding:
    """What one table's, or one player's, rounds in play hold of the bankroll (HB-2, HB-3)."""

    pk: int
    name: str
    currency: str
    rounds: int
    reserved: Decimal
    percent: Decimal
    """The share of the currency's whole bankroll (available and reserved), in percent."""


def holdings(houses: dict[str, Bankroll]) -> dict[str, list[Holding]]:
    """The holds of the rounds in play by table and by player (``"tables"``, ``"players"``),
    largest first: what the shares of the bankroll cap, so the pit sees who is near one."""
    in_play = Round.objects.filter(status=RoundStatus.DECIDING, house_hold__gt=0)
    found: dict[str, list[Holding]] = {}
    for key, pk, name in (
        ("tables", "table_id", "table__name"),
        ("players", "player_id", "player__username"),
    ):
        rows = (
            in_play.values(pk, name, "table__currency")
            .annotate(rounds=Count("pk"), reserved=Sum("house_hold"))
            .order_by("-reserved", name)
        )
        found[key] = [
            Holding(
                row[pk],
                row[name],
                row["table__currency"],
                row["rounds"],
                row["reserved"],
                _percent(row["reserved"], houses.get(row["table__currency"])),
            )
            for row in rows
        ]
    return found


def _percent(amount: Decimal, house: Bankroll | None) -> Decimal:
    if house is None or not house.total:
        return Decimal("0.00")
    return (amount * 100 / house.total).quantize(Decimal("0.01"))


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


def round_ledger_entries(round_: Round) -> QuerySet[LedgerEntry]:
    """Every ledger entry the round posted (its references are "round:ID:...")."""
    return (
        LedgerEntry.objects.filter(transaction__reference__startswith=f"round:{round_.pk}:")
        .select_related("transaction", "account__owner")
        .order_by("transaction_id", "id")
    )


# The timers, as /metrics reads them at each scrape: both read the deciding rounds' deadline
# index (``deciding_rounds_by_deadline``) from its overdue end only.


def _overdue(before: datetime) -> QuerySet[Round]:
    return Round.objects.filter(status=RoundStatus.DECIDING, decision_deadline__lte=before)


def oldest_overdue_deadline(now: datetime) -> datetime | None:
    """The deadline of the decision, at any table of any game, longest out of time at ``now``
    (None when none is): how far the timers lag behind."""
    return _overdue(now).aggregate(oldest=Min("decision_deadline"))["oldest"]


def tables_overdue_since(cutoff: datetime) -> int:
    """How many tables have a decision that was due before ``cutoff``: timers stuck there."""
    return _overdue(cutoff).values("table_id").distinct().count()
