"""The audit room over the JSON API, under /api/v1/staff/, for the casino's other systems:
the rounds and pots of every game with the totals of the filtered set, the ledger (trial
balance, accounts, an account's entries, a transaction), the gaming-day report, the RTP
observations and the players against best play. Auditors and pit staff read, players are
refused (403), and nothing here writes but an on-demand RTP measurement, for those who may
start RTP runs.

The query strings are read by the same forms as the pages, so a filter means the same on both.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from celery.result import AsyncResult
from django.conf import settings
from django.core.paginator import InvalidPage, Paginator
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.http.permissions import HasModelPermission
from casino.reports_database import reports_source, said
from games.joker_draw.box_play import players_against_best_play, rounds_of
from games.joker_draw.selectors import latest_rtp_observations
from games.joker_draw.tasks import observe_rtp
from games.staff.audit_forms import GamingDayForm, LedgerAsOfForm, RoundReviewForm
from games.staff.audit_serializers import (
    AccountEntriesSerializer,
    BestPlayPlayerSerializer,
    GamingDayReportSerializer,
    LedgerAccountsSerializer,
    LedgerTransactionSerializer,
    RoundsReviewSerializer,
    RtpObservationSerializer,
)
from games.staff.review import (
    Money,
    account_entries,
    accounts_as_of,
    review,
    reviewed_rounds,
    round_of,
    total_money,
    transaction_entries,
    trial_balance_as_of,
)
from games.tables import gaming_day
from payouts.models import Account, LedgerTransaction

PAGE_SIZE = 100


def _needs(*perms: str) -> tuple[type[BasePermission], ...]:
    return (IsAuthenticated, *(HasModelPermission(perm) for perm in perms))


READ_ROUNDS = _needs("games.view_boxsettlement", "games.view_round", "games.view_roundevent")
READ_LEDGER = _needs("payouts.view_account", "payouts.view_ledgerentry")
READ_REPORT = _needs("games.view_round", "payouts.view_ledgerentry")
READ_RTP = _needs("payouts.view_rtpobservation", "payouts.view_rtprun")
READ_BEST_PLAY = _needs(
    "games.view_boxplay", "games.view_boxsettlement", "games.view_round", "games.view_roundevent"
)
ADVANTAGE_ROUNDS = 20  # of each advantage player
START_RTP = _needs("payouts.view_rtpobservation", "payouts.add_rtprun")


def _valid(form: Any) -> Any:
    """The form's cleaned data, or the refusal naming each field (400)."""
    if not form.is_valid():
        raise ValidationError({field: list(errors) for field, errors in form.errors.items()})
    return form


def _page(request: Request, items: Any) -> tuple[Any, dict[str, Any]]:
    paginator = Paginator(items, PAGE_SIZE)
    try:
        page = paginator.page(request.query_params.get("page", "1"))
    except InvalidPage:
        last = paginator.num_pages
        raise ValidationError(
            {"page": [_("Pages run from 1 to %(last)s.") % {"last": last}]}
        ) from None
    return page, {"count": paginator.count, "page": page.number, "pages": paginator.num_pages}


def _money(money: Money) -> dict[str, Any]:
    hold = money.hold_percent
    return {
        "staked": f"{money.staked:.2f}",
        "paid": f"{money.paid:.2f}",
        "house_result": f"{money.house:.2f}",
        "rake": f"{money.rake:.2f}",
        "hold_percent": None if hold is None else f"{hold:.2f}",
    }


ROUND_FILTERS = [
    OpenApiParameter("date_from", str, description="First gaming day, YYYY-MM-DD."),
    OpenApiParameter("date_to", str, description="Last gaming day, YYYY-MM-DD."),
    OpenApiParameter("game", str),
    OpenApiParameter("table", int),
    OpenApiParameter("status", str, enum=["settled", "voided"]),
    OpenApiParameter("player", str, description="A player's username."),
    OpenApiParameter("page", int),
]
AS_OF = [
    OpenApiParameter("as_of", str, description="Balances at the end of this gaming day."),
    OpenApiParameter("currency", str),
    OpenApiParameter("kind", str),
    OpenApiParameter("page", int),
]


class RoundsReview(APIView):
    """Finished rounds of every game, newest first: their money, players and winners, with the
    totals of the whole filtered set (staked, paid, house result, hold %)."""

    permission_classes = READ_ROUNDS

    @extend_schema(
        parameters=ROUND_FILTERS,
        responses=RoundsReviewSerializer,
    )
    def get(self, request: Request) -> Response:
        form = _valid(RoundReviewForm(request.query_params))
        source = reports_source()
        rounds = reviewed_rounds(**form.filters(), using=source.alias)
        page, paging = _page(request, rounds)
        results = [
            {
                "round": row.round.pk,
                "number": row.number,
                "game": row.round.table.game,
                "table": row.round.table.name,
                "currency": row.round.table.currency,
                "status": row.round.status,
                "void_reason": row.round.void_reason,
                "settled_at": row.round.settled_at,
                "players": row.players,
                **_money(row.money),
                "winners": [
                    {
                        "what": w.what,
                        "player": w.player,
                        "amount": f"{w.amount:.2f}",
                        "hand": w.hand,
                    }
                    for w in row.winners
                ],
            }
            for row in review(list(page.object_list), using=source.alias)
        ]
        totals = _money(total_money(rounds))
        return said(Response({**paging, "totals": totals, "results": results}), source)


class TrialBalance(APIView):
    """Per currency and account kind, the ledger's balances now or at the end of a gaming day."""

    permission_classes = READ_LEDGER

    @extend_schema(
        parameters=AS_OF[:1],
        responses=inline_serializer(
            "TrialBalanceRow",
            {
                "currency": serializers.CharField(),
                "kind": serializers.CharField(),
                "balance": serializers.CharField(),
            },
            many=True,
        ),
    )
    def get(self, request: Request) -> Response:
        form = _valid(LedgerAsOfForm(request.query_params))
        return Response(
            [
                {"currency": b.currency, "kind": b.kind, "balance": f"{b.balance:.2f}"}
                for b in trial_balance_as_of(form.moment())
            ]
        )


class Accounts(APIView):
    """Accounts of a currency and kind with their balances now or at the end of a gaming day."""

    permission_classes = READ_LEDGER

    @extend_schema(
        parameters=AS_OF,
        responses=LedgerAccountsSerializer,
    )
    def get(self, request: Request) -> Response:
        form = _valid(LedgerAsOfForm(request.query_params))
        data = form.cleaned_data
        accounts = accounts_as_of(form.moment(), currency=data["currency"], kind=data["kind"])
        page, paging = _page(request, accounts)
        results = [
            {
                "id": a.pk,
                "currency": a.currency,
                "kind": a.kind,
                "owner": a.owner.username if a.owner else None,
                "balance": f"{a.balance_then:.2f}",
            }
            for a in page.object_list
        ]
        return Response({**paging, "results": results})


class AccountEntries(APIView):
    """One account's entries, newest first, each with the balance after it."""

    permission_classes = READ_LEDGER

    @extend_schema(
        parameters=[AS_OF[0], AS_OF[3]],
        responses=AccountEntriesSerializer,
    )
    def get(self, request: Request, pk: int) -> Response:
        account = get_object_or_404(Account, pk=pk)
        form = _valid(LedgerAsOfForm(request.query_params))
        page, paging = _page(request, account_entries(account, form.moment()))
        results = [
            {
                "id": e.pk,
                "transaction": e.transaction_id,
                "kind": e.transaction.kind,
                "reference": e.transaction.reference,
                "reason": e.transaction.reason,
                "created_at": e.created_at,
                "amount": f"{e.amount:.2f}",
                "balance_after": f"{e.balance_after:.2f}",
            }
            for e in page.object_list
        ]
        return Response({**paging, "results": results})


class TransactionDetail(APIView):
    """One ledger transaction: its entries and the round it was posted for."""

    permission_classes = READ_LEDGER

    @extend_schema(responses=LedgerTransactionSerializer)
    def get(self, request: Request, pk: int) -> Response:
        posted = get_object_or_404(LedgerTransaction.objects.select_related("created_by"), pk=pk)
        round_ = round_of(posted)
        return Response(
            {
                "id": posted.pk,
                "kind": posted.kind,
                "reason": posted.reason,
                "reference": posted.reference,
                "created_at": posted.created_at,
                "created_by": posted.created_by.username if posted.created_by else None,
                "round": round_.pk if round_ else None,
                "entries": [
                    {
                        "id": e.pk,
                        "account": e.account_id,
                        "kind": e.account.kind,
                        "owner": e.account.owner.username if e.account.owner else None,
                        "currency": e.currency,
                        "amount": f"{e.amount:.2f}",
                    }
                    for e in transaction_entries(posted)
                ],
            }
        )


def _report_row(row: gaming_day.GamingDayRow) -> dict[str, Any]:
    def money(value: Any) -> str | None:
        return None if value is None else f"{value:.2f}"

    return {
        "gaming_day": row.gaming_day,
        "table": row.table,
        "table_id": row.table_id,
        "game": row.game,
        "currency": row.currency,
        "rounds": row.rounds,
        "players": row.players,
        "handle": money(row.handle),
        "win": money(row.win),
        "hold_percent": money(row.hold_percent),
        "theoretical_win": money(row.theoretical_win),
        "expected_hold_percent": [money(v) for v in row.expected_hold]
        if row.expected_hold
        else None,
        "rake": money(row.rake),
        "flag": row.flag.value,
    }


class GamingDayReport(APIView):
    """Each gaming day from ``date`` to ``to`` (default: the current gaming day), and the month
    and year to date of the last one, per table, game and currency."""

    permission_classes = READ_REPORT

    @extend_schema(
        parameters=[OpenApiParameter("date", str), OpenApiParameter("to", str)],
        responses=GamingDayReportSerializer,
    )
    def get(self, request: Request) -> Response:
        form = _valid(GamingDayForm(request.query_params))
        first, last = form.cleaned_data["date"], form.cleaned_data["to"]
        source = reports_source()
        month, year = last.replace(day=1), last.replace(month=1, day=1)
        using = source.alias
        response = Response(
            {
                "gaming_day_starts_at": settings.GAMING_DAY_STARTS_AT,
                "time_zone": settings.CASINO_TIME_ZONE,
                "days": [_report_row(r) for r in gaming_day.daily_rows(first, last, using=using)],
                "month_to_date": [
                    _report_row(r) for r in gaming_day.period_rows(month, last, using=using)
                ],
                "year_to_date": [
                    _report_row(r) for r in gaming_day.period_rows(year, last, using=using)
                ],
            }
        )
        return said(response, source)


class RtpObservations(APIView):
    """The newest actual-against-theoretical RTP of every table and paytable version. An
    interval from fewer boxes than the alert needs is not given: not enough data."""

    permission_classes = READ_RTP

    @extend_schema(responses=RtpObservationSerializer(many=True))
    def get(self, request: Request) -> Response:
        least = settings.RTP_OBSERVATION_MIN_BOXES

        def percent(value: Any) -> str | None:
            return None if value is None else str(value)

        source = reports_source()
        response = Response(
            [
                {
                    "table": o.table.name,
                    "table_id": o.table_id,
                    "paytable_version": str(o.paytable_version),
                    "kind": o.kind,
                    "boxes": o.boxes,
                    "staked": f"{o.staked:.2f}",
                    "returned": f"{o.returned:.2f}",
                    "actual_rtp": percent(o.actual_rtp),
                    "interval": [percent(o.interval_low), percent(o.interval_high)]
                    if o.boxes >= least and o.interval_low is not None
                    else None,
                    "enough_data": o.boxes >= least,
                    "theoretical_rtp": percent(o.theoretical_rtp),
                    "decisions_taken": {
                        "boxes": o.assessed_boxes,
                        "actual_rtp": percent(o.assessed_rtp),
                        "expected_rtp": percent(o.decisions_rtp),
                        "interval": [percent(o.decisions_low), percent(o.decisions_high)]
                        if o.assessed_boxes >= least and o.decisions_low is not None
                        else None,
                    }
                    if o.kind == "bet"
                    else None,
                    "best_play": [percent(o.best_play_low), percent(o.best_play_high)]
                    if o.best_play_low is not None
                    else None,
                    "typical_rtp": percent(o.typical_rtp),
                    "alert": o.alert,
                    "observed_at": o.observed_at,
                }
                for o in latest_rtp_observations(using=source.alias)
            ]
        )
        return said(response, source)


class BestPlayPlayers(APIView):
    """Each player's joker draw boxes against best play, per currency, closest to best play
    first: what they gave away per round (in the currency) and per original ante (in antes),
    and whether they are advantage players; these with their latest rounds and replays."""

    permission_classes = READ_BEST_PLAY

    @extend_schema(responses=BestPlayPlayerSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(
            [
                {
                    "player": play.username,
                    "player_id": play.player_id,
                    "currency": play.currency,
                    "rounds": play.rounds,
                    "boxes": play.boxes,
                    "given_away": str(play.given_away),
                    "per_round": str(play.per_round),
                    "per_ante": str(play.per_ante),
                    "advantage_player": play.advantage,
                    "rounds_played": [
                        {
                            "round": assessed.round_id,
                            "table": assessed.table,
                            "settled_at": assessed.settled_at,
                            "boxes": assessed.boxes,
                            "given_away": str(assessed.given_away),
                            "replay": reverse("staff:round", args=[assessed.round_id]),
                        }
                        for assessed in rounds_of(play.player_id, play.currency, ADVANTAGE_ROUNDS)
                    ]
                    if play.advantage
                    else [],
                }
                for play in players_against_best_play()
            ]
        )


class MeasureRtp(APIView):
    """Measure actual against theoretical RTP now, on a worker (202 with the task to follow)."""

    permission_classes = START_RTP

    @extend_schema(
        request=None,
        responses={202: inline_serializer("RtpMeasurement", {"task": serializers.CharField()})},
    )
    def post(self, request: Request) -> Response:
        task = observe_rtp.delay()
        return Response({"task": task.id}, status=status.HTTP_202_ACCEPTED)


class MeasurementProgress(APIView):
    """Where a measurement is: PENDING, STARTED, SUCCESS (with its alerts) or FAILURE."""

    permission_classes = READ_RTP

    @extend_schema(
        responses=inline_serializer(
            "RtpMeasurementProgress",
            {"state": serializers.CharField(), "alerts": serializers.IntegerField(allow_null=True)},
        )
    )
    def get(self, request: Request, task_id: str) -> Response:
        try:
            task = UUID(task_id)
        except ValueError:
            raise ValidationError({"task_id": [_("A measurement's task is a UUID.")]}) from None
        result = AsyncResult(str(task))
        alerts = result.result if result.successful() else None
        return Response({"state": result.state, "alerts": alerts})


urlpatterns = [
    path("payouts/rounds/", RoundsReview.as_view(), name="audit-rounds"),
    path("ledger/trial-balance/", TrialBalance.as_view(), name="audit-trial-balance"),
    path("ledger/accounts/", Accounts.as_view(), name="audit-accounts"),
    path("ledger/accounts/<int:pk>/entries/", AccountEntries.as_view(), name="audit-entries"),
    path("ledger/transactions/<int:pk>/", TransactionDetail.as_view(), name="audit-transaction"),
    path("gaming-day/", GamingDayReport.as_view(), name="audit-gaming-day"),
    path("rtp/observations/", RtpObservations.as_view(), name="audit-rtp-observations"),
    path("rtp/measurements/", MeasureRtp.as_view(), name="audit-rtp-measure"),
    path("best-play/players/", BestPlayPlayers.as_view(), name="audit-best-play-players"),
    path(
        "rtp/measurements/<str:task_id>/",
        MeasurementProgress.as_view(),
        name="audit-rtp-measurement",
    ),
]
