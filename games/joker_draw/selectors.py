"""Read queries of the joker draw: its rounds out of time, the cards a settled round dealt, the
settled boxes and their corrections for the payouts review, and the sums its RTP monitor needs
and what it observed."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from games.engine.joker_draw import NO_GAME_ODDS, JokerDrawEvent, no_game_odds
from games.models import (
    BoxSettlement,
    Game,
    Round,
    RoundStatus,
    SettlementCorrection,
    Table,
    TableLimits,
    TableStatus,
)
from payouts.approvals import ChangeStatus
from payouts.models import PaytableCategory, PaytableLine, PaytableVersion, RtpObservation

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def overdue_rounds() -> list[tuple[int, int]]:
    """Each joker draw round with a box out of time, and its table."""
    return list(
        Round.objects.filter(
            status=RoundStatus.DECIDING,
            table__game=Game.JOKER_DRAW,
            decision_deadline__lte=timezone.now(),
        ).values_list("pk", "table_id")
    )


# Events of a joker draw round that take cards off the deck, with their deck positions (JD-3,
# JD-4, JD-8).
_DEALING_EVENTS = (JokerDrawEvent.DEALT, JokerDrawEvent.EXCHANGE, JokerDrawEvent.DEALER_DRAW)


def dealt_cards(round_: Round) -> list[tuple[int, str]]:
    """Every card a settled joker draw round took off the deck, as (deck position, card) in
    deck order, for anyone to check against the revealed seed (FS-7). A round still being
    played shows nothing: its cards are secret until it is over."""
    if round_.status != RoundStatus.SETTLED:
        return []
    dealt: list[tuple[int, str]] = []
    events = round_.events.filter(kind__in=_DEALING_EVENTS).values_list("kind", "data")
    for kind, data in events:
        if kind == JokerDrawEvent.DEALT:
            for holder, positions in data["positions"].items():
                cards = data["dealer"] if holder == "dealer" else data["boxes"][holder]
                dealt += zip(positions, cards, strict=True)
        else:
            dealt += zip(data["positions"], data["drawn"], strict=True)
    return sorted(dealt)


@dataclass(frozen=True)
class PaytableInForce:
    """A paytable version in force at a table, its lines highest hand first."""

    kind: str
    version: PaytableVersion
    lines: list[tuple[str, Fraction]]


# Paytable lines by the hands they pay, strongest first (HR-1, HR-10, HR-6).
_LINE_ORDER = {category: rank for rank, category in enumerate(reversed(PaytableCategory.values))}


def paytables_in_force(limits: TableLimits) -> list[PaytableInForce]:
    """The bet and BONUS paytable versions an opening at these limits would be settled by now
    (the latest approved version of each paytable, JD-14), with their lines, in one query."""
    paytables = {"bet": limits.bet_paytable_id, "bonus": limits.bonus_paytable_id}
    in_force = (
        PaytableVersion.objects.filter(
            paytable_id=OuterRef("version__paytable_id"), status=ChangeStatus.APPROVED
        )
        .order_by("-number")
        .values("pk")[:1]
    )
    lines = PaytableLine.objects.filter(
        version__paytable_id__in=[pk for pk in paytables.values() if pk is not None],
        version_id=Subquery(in_force),
    ).select_related("version")
    versions: dict[int, PaytableVersion] = {}
    odds: dict[int, list[tuple[str, Fraction]]] = defaultdict(list)
    for line in lines:
        versions[line.version.paytable_id] = line.version
        odds[line.version.paytable_id].append((line.category, line.odds))
    return [
        PaytableInForce(
            kind=kind,
            version=versions[paytable_id],
            lines=sorted(odds[paytable_id], key=lambda line: _LINE_ORDER[line[0]]),
        )
        for kind, paytable_id in paytables.items()
        if paytable_id in versions
    ]


def no_game_odds_in_force() -> list[Fraction]:
    """What a dealer without a game pays the total ante at the open joker draw tables, each
    odds once, lowest first: the no_game line of each table's bet paytable version in force,
    2:3 where it has none, and 2:3 while no table is open (JD-11, JD-11a)."""
    odds = {
        no_game_odds(dict(paytable.lines))
        for table in Table.objects.filter(game=Game.JOKER_DRAW, status=TableStatus.OPEN)
        for limits in [table.active_limits()]
        if limits is not None
        for paytable in paytables_in_force(limits)
        if paytable.kind == "bet"
    }
    return sorted(odds) or [NO_GAME_ODDS]


def box_settlements(
    *,
    date_from: date | None = None,
    date_to: date | None = None,
    table: Table | None = None,
    player: User | None = None,
    category: str = "",
    min_amount: Decimal | None = None,
    max_amount: Decimal | None = None,
    using: str = DEFAULT_DB_ALIAS,
) -> QuerySet[BoxSettlement]:
    """Settled joker draw boxes for the payouts review, newest first, on the database
    ``using``; dates are settlement days (UTC, both ends included), amounts the player's net
    result of the box."""
    settlements = BoxSettlement.objects.using(using).select_related(
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
    round_ids: Iterable[int] | None = None, *, using: str = DEFAULT_DB_ALIAS
) -> dict[tuple[int, int], Decimal]:
    """What approved settlement corrections added to each box (round id, box) of the rounds
    (of every round when none are named)."""
    totals: dict[tuple[int, int], Decimal] = defaultdict(Decimal)
    approved = SettlementCorrection.objects.using(using).filter(status=ChangeStatus.APPROVED)
    if round_ids is not None:
        approved = approved.filter(round_id__in=list(round_ids))
    for correction in approved:
        for box, amount in correction.box_amounts().items():
            totals[correction.round_id, box] += amount
    return dict(totals)


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


def return_sums(kind: str, *, using: str = DEFAULT_DB_ALIAS) -> list[ReturnSums]:
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
    with connections[using].cursor() as cursor:
        cursor.execute(query)
        return [ReturnSums(*row) for row in cursor.fetchall()]


@dataclass(frozen=True)
class DecisionSums:
    """One table's boxes on one bet paytable version that were judged against best play: what
    they staked (S), what the table paid them net (P) and what their decisions should have
    returned net (E), their original antes, and per round (a round's boxes share the dealer's
    hand, so they are not independent) the sums of D = P - E and D^2."""

    table_id: int
    paytable_version_id: int
    boxes: int
    staked: Decimal
    paid: Decimal
    expected: Decimal
    difference: Decimal
    difference_squared: Decimal
    antes: Decimal
    rounds: int


def decision_sums() -> list[DecisionSums]:
    """Per table and bet paytable version, the sums of the boxes assessed against best play."""
    query = """
        SELECT table_id, version, sum(boxes), sum(s), sum(p), sum(e), sum(p - e),
            sum((p - e) * (p - e)), sum(a), count(*)
        FROM (
            SELECT box.table_id, box.bet_paytable_version_id AS version, count(*) AS boxes,
                sum(box.ante_staked + box.bet_staked) AS s,
                sum(box.ante_result + box.bet_result) AS p,
                sum(play.expected_result) AS e, sum(play.base_ante) AS a
            FROM games_boxsettlement AS box
            JOIN games_boxplay AS play ON play.settlement_id = box.id
            GROUP BY box.round_id, box.table_id, box.bet_paytable_version_id
        ) AS rounds
        GROUP BY table_id, version ORDER BY table_id, version
    """
    with connection.cursor() as cursor:
        cursor.execute(query)
        return [DecisionSums(*row) for row in cursor.fetchall()]


def latest_rtp_observations(*, using: str = DEFAULT_DB_ALIAS) -> list[RtpObservation]:
    """The newest observation of each table, paytable version and kind, alerts first."""
    newest = (
        RtpObservation.objects.using(using)
        .order_by("table_id", "paytable_version_id", "kind", "-observed_at")
        .distinct("table_id", "paytable_version_id", "kind")
        .values_list("pk", flat=True)
    )
    return list(
        RtpObservation.objects.using(using)
        .filter(pk__in=list(newest))
        .select_related("table", "paytable_version__paytable")
        .order_by("-alert", "table__name", "kind")
    )


def rtp_alerts(count: int = 50, *, using: str = DEFAULT_DB_ALIAS) -> QuerySet[RtpObservation]:
    return (
        RtpObservation.objects.using(using)
        .filter(alert=True)
        .select_related("table", "paytable_version__paytable")
        .order_by("-observed_at")[:count]
    )
