"""A player's own protection over the API, under /api/v1/me/. Views only translate HTTP."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.http.idempotency import HEADER, idempotent
from casino.http.permissions import OWN_PLAY_ONLY, acting_user
from payouts.protection import limits
from payouts.protection.serializers import LimitSerializer, LimitsRequestSerializer

LIMITS = inline_serializer(
    "PlayerLimits",
    {
        "limits": LimitSerializer(many=True),
        "cooling_off_hours": serializers.IntegerField(
            help_text="a raise or removal applies this long after it was asked for"
        ),
    },
)


def limits_json(request: Request) -> dict[str, object]:
    states = limits.limits_of(acting_user(request))
    return {
        "limits": LimitSerializer(states, many=True).data,
        "cooling_off_hours": settings.PROTECTION_COOLING_OFF_HOURS,
    }


class MyLimits(APIView):
    """The signed-in player's limits: deposits and losses per day, week and month and the
    maximum stake in each wallet's currency, and the session time limit."""

    permission_classes = OWN_PLAY_ONLY

    @extend_schema(responses={200: LIMITS}, summary="Your limits, what is pending and what is used")
    def get(self, request: Request) -> Response:
        return Response(limits_json(request))

    @extend_schema(
        request=LimitsRequestSerializer,
        responses={200: LIMITS},
        parameters=[OpenApiParameter(HEADER, str, OpenApiParameter.HEADER, required=True)],
        summary="Set or remove limits: lower at once, higher or removed after the cooling-off",
    )
    @idempotent
    def put(self, request: Request) -> Response:
        incoming = LimitsRequestSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        player = acting_user(request)
        for asked in incoming.validated_data["limits"]:
            limits.set_limit(
                player=player,
                kind=asked["kind"],
                currency=asked.get("currency", ""),
                value=asked["value"],
            )
        return Response(limits_json(request))
