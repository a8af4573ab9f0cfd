"""The staff's player page over the JSON API: ``GET /api/v1/staff/players/{id}/``, the same as
the page. Pit staff and auditors read; players are refused (403); nothing here writes."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.urls import path
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.http.permissions import HasModelPermission
from casino.reports_database import reports_source, said
from games.staff.players import player, player_file
from games.staff.views import READ_LEDGER, READ_ROUNDS
from payouts.protection.conduct_api import exclusion_json
from payouts.protection.serializers import LimitSerializer
from payouts.protection.statement_api import statement_json

READ_PLAYERS: tuple[type[BasePermission], ...] = (
    IsAuthenticated,
    *(HasModelPermission(perm) for perm in (*READ_LEDGER, *READ_ROUNDS)),
)


class PlayerFile(APIView):
    """One player: the account, the wallets, the statement of the last twelve months, the
    seats at peer tables now and the latest finished rounds and hands with their money."""

    permission_classes = READ_PLAYERS

    @extend_schema(
        responses=inline_serializer(
            "StaffPlayer",
            {
                "id": serializers.IntegerField(),
                "username": serializers.CharField(),
                "wallets": serializers.ListField(child=serializers.DictField()),
                "statement": serializers.DictField(),
                "seats": serializers.ListField(child=serializers.DictField()),
                "recent_rounds": serializers.ListField(child=serializers.DictField()),
                "limits": LimitSerializer(many=True),
                "limit_changes": serializers.ListField(child=serializers.DictField()),
                "exclusions": serializers.ListField(child=serializers.DictField()),
                "reality_checks": serializers.ListField(child=serializers.DictField()),
            },
        )
    )
    def get(self, request: Request, pk: int) -> Response:
        source = reports_source()
        found = player_file(player(pk), reports=source.alias)
        user = found.player
        answer = Response(
            {
                "id": user.pk,
                "username": user.username,
                "is_active": user.is_active,
                "date_joined": user.date_joined,
                "last_login": user.last_login,
                "wallets": [
                    {"currency": w.currency, "balance": f"{w.balance:.2f}"} for w in found.wallets
                ],
                "statement": statement_json(found.statement),
                "seats": [
                    {
                        "table": s.table_id,
                        "table_name": s.table.name,
                        "game": s.table.game,
                        "currency": s.table.currency,
                        "seat": s.number,
                        "status": s.status,
                        "chips": f"{s.chips:.2f}",
                    }
                    for s in found.seats
                ],
                "recent_rounds": [_round(row) for row in found.rounds],
                "limits": LimitSerializer(found.limits, many=True).data,
                "limit_changes": [
                    {
                        "kind": change.limit.kind,
                        "currency": change.limit.currency,
                        "requested_at": change.requested_at,
                        "old_value": _amount(change.old_value),
                        "new_value": _amount(change.new_value),
                        "applies_at": change.applies_at,
                    }
                    for change in found.limit_changes
                ],
                "exclusions": [exclusion_json(row.exclusion) for row in found.conduct.exclusions],
                "reality_checks": [
                    {
                        "session_started_at": check.session_started_at,
                        "due_at": check.due_at,
                        "acknowledged_at": check.acknowledged_at,
                        "minutes": check.minutes,
                        "net_result": check.net_result,
                    }
                    for check in found.conduct.reality_checks
                ],
            }
        )
        return said(answer, source)


def _amount(value: Decimal | None) -> str | None:
    return None if value is None else f"{value:.2f}"


def _round(row: Any) -> dict[str, Any]:
    return {
        "round": row.round.pk,
        "number": row.number,
        "game": row.round.table.game,
        "table": row.round.table.name,
        "currency": row.round.table.currency,
        "status": row.round.status,
        "settled_at": row.round.settled_at,
        "staked": f"{row.money.staked:.2f}",
        "paid": f"{row.money.paid:.2f}",
    }


urlpatterns = [path("players/<int:pk>/", PlayerFile.as_view(), name="staff-player")]
