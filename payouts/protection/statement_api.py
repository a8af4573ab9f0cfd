"""The player's own account statement over the API: ``GET /api/v1/me/statement/?from=&to=`` as
JSON, or as CSV with ``?format=csv`` or ``Accept: text/csv``. Players only, and only their own:
no parameter names anybody else."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.csv_export import csv_response
from casino.http.errors import InputRefused
from casino.http.permissions import OWN_STATEMENT, acting_user
from casino.reports_database import reports_source, said
from payouts.protection.statement import (
    AMOUNTS,
    CSV_COLUMNS,
    CurrencyStatement,
    Figures,
    Statement,
    csv_name,
    csv_rows,
    statement,
)
from payouts.protection.statement_forms import StatementPeriodForm

CSV_TYPE = "text/csv"


def statement_period(query: Any) -> StatementPeriodForm:
    """The period asked for, or the refusal naming the field and its stable code."""
    form = StatementPeriodForm(query)
    if not form.is_valid():
        raise InputRefused(*form.refusal())
    return form


def wants_csv(request: HttpRequest) -> bool:
    return request.GET.get("format") == "csv" or CSV_TYPE in request.headers.get("Accept", "")


def _figures(figures: Figures) -> dict[str, Any]:
    return {
        "from": figures.first_day,
        "to": figures.last_day,
        **{name: f"{getattr(figures, name):.2f}" for name in AMOUNTS},
    }


def _currency(found: CurrencyStatement) -> dict[str, Any]:
    return {
        "currency": found.currency,
        **_figures(found.totals),
        "rows": [_figures(row) for row in found.rows],
    }


def statement_json(found: Statement) -> dict[str, Any]:
    return {
        "from": found.first_day,
        "to": found.last_day,
        "rows_per": found.rows_per.value,
        "gaming_day_starts_at": settings.GAMING_DAY_STARTS_AT,
        "time_zone": settings.CASINO_TIME_ZONE,
        "currencies": [_currency(currency) for currency in found.currencies],
    }


class _CsvAsked(DefaultContentNegotiation):
    """A CSV asked for by ``?format=csv`` or ``Accept: text/csv`` is written by the view
    itself; a refusal of it is still the one JSON error shape."""

    def select_renderer(self, request: Request, renderers: Any, format_suffix: Any = None) -> Any:
        if wants_csv(request._request):
            return renderers[0], renderers[0].media_type
        return super().select_renderer(request, renderers, format_suffix)


FIGURES: dict[str, serializers.Field] = {
    name: serializers.CharField() for name in ("from", "to", *AMOUNTS)
}


class OwnStatement(APIView):
    """The requester's statement per currency: deposits, withdrawals, net deposits, stakes,
    returns, net result, the opening and closing balances, and rows per gaming day (per month
    for a range longer than about three months). Amounts are strings with two places."""

    permission_classes = OWN_STATEMENT
    content_negotiation_class = _CsvAsked

    @extend_schema(
        parameters=[
            OpenApiParameter("from", str, description="First gaming day, YYYY-MM-DD."),
            OpenApiParameter("to", str, description="Last gaming day, YYYY-MM-DD."),
            OpenApiParameter("format", str, enum=["json", "csv"]),
        ],
        responses=inline_serializer(
            "Statement",
            {
                "from": serializers.DateField(),
                "to": serializers.DateField(),
                "rows_per": serializers.ChoiceField(choices=["day", "month"]),
                "gaming_day_starts_at": serializers.CharField(),
                "time_zone": serializers.CharField(),
                "currencies": inline_serializer(
                    "CurrencyStatement",
                    {
                        "currency": serializers.CharField(),
                        **FIGURES,
                        "rows": inline_serializer("StatementRow", FIGURES, many=True),
                    },
                    many=True,
                ),
            },
        ),
    )
    def get(self, request: Request) -> Any:
        first, last = statement_period(request.query_params).period()
        player = acting_user(request)
        source = reports_source()
        found = statement(player, first, last, using=source.alias)
        if wants_csv(request._request):
            return said(
                csv_response(csv_name(first, last), CSV_COLUMNS, csv_rows(found, player)), source
            )
        return said(Response(statement_json(found)), source)
