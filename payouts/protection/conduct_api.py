"""The player's own reality checks and exclusions, under /api/v1/me/. Only players have them:
staff and auditors get 403, and nobody acts for another player (there is no player field)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any, cast
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.gaming_day import FIRST_GAMING_DAY, LAST_GAMING_DAY
from casino.http.permissions import PLAYERS_ONLY, acting_user
from payouts.protection import conduct, selectors
from payouts.protection.models import REALITY_CHECK_CHOICES, Exclusion, ExclusionKind


def parse_until(value: str) -> datetime:
    """An ISO 8601 date-time (without an offset: the casino's time zone), or a date: until
    that day is over in the casino's time zone."""
    zone = ZoneInfo(settings.CASINO_TIME_ZONE)
    try:
        # A date first: Python reads "2027-06-01" as a date-time at midnight too.
        day = parse_date(value)
        moment = None if day else parse_datetime(value)
    except ValueError:
        moment = day = None
    if moment is None and day is None:
        raise serializers.ValidationError(
            _("Give an ISO 8601 date-time or date, e.g. 2027-06-01T18:00:00Z or 2027-06-01."),
            code="invalid",
        )
    # The calendar's own ends have no whole day in every time zone.
    if not FIRST_GAMING_DAY <= (day or cast(datetime, moment).date()) <= LAST_GAMING_DAY:
        raise serializers.ValidationError(
            _("Give a day from %(first)s to %(last)s.")
            % {"first": FIRST_GAMING_DAY.isoformat(), "last": LAST_GAMING_DAY.isoformat()},
            code="date_out_of_range",
        )
    if moment is None:
        moment = datetime.combine(cast(date, day) + timedelta(days=1), time(), tzinfo=zone)
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment, zone)


class ExclusionRequest(serializers.Serializer[None]):
    kind = serializers.ChoiceField(choices=ExclusionKind.choices)
    until = serializers.CharField()

    def validate_until(self, value: str) -> datetime:
        return parse_until(value)


class RealityCheckChoice(serializers.Serializer[None]):
    minutes = serializers.ChoiceField(choices=REALITY_CHECK_CHOICES)


class ExclusionOut(serializers.Serializer[None]):
    """How an exclusion reads (the schema's description; ``exclusion_json`` writes it)."""

    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=ExclusionKind.choices)
    starts_at = serializers.DateTimeField()
    until = serializers.DateTimeField()
    in_force = serializers.BooleanField()


class RealityCheckOut(serializers.Serializer[None]):
    """The session and its reality check (the schema's description; ``reality_check_json``)."""

    started_at = serializers.DateTimeField(allow_null=True)
    minutes = serializers.IntegerField()
    net_result = serializers.DictField(child=serializers.CharField())
    due = serializers.BooleanField()
    next_due_at = serializers.DateTimeField(allow_null=True)
    reality_check_minutes = serializers.IntegerField()


def exclusion_json(exclusion: Exclusion) -> dict[str, Any]:
    return {
        "id": exclusion.pk,
        "kind": exclusion.kind,
        "starts_at": exclusion.starts_at.isoformat(),
        "until": exclusion.until.isoformat(),
        "in_force": exclusion.starts_at <= timezone.now() < exclusion.until,
    }


class Exclusions(APIView):
    """``GET``: the player's own time-outs and self-exclusions, newest first. ``POST``
    ``{"kind": "time_out" | "self_exclusion", "until": ...}``: take one (201; the same one
    again, 200). None can be lifted or shortened, by anybody."""

    permission_classes = PLAYERS_ONLY

    @extend_schema(responses=ExclusionOut(many=True))
    def get(self, request: Request) -> Response:
        rows = selectors.exclusions_of(acting_user(request))
        return Response([exclusion_json(row) for row in rows])

    @extend_schema(request=ExclusionRequest, responses={200: ExclusionOut, 201: ExclusionOut})
    def post(self, request: Request) -> Response:
        form = ExclusionRequest(data=request.data)
        form.is_valid(raise_exception=True)
        exclusion, new = conduct.take_exclusion(
            player=acting_user(request),
            kind=form.validated_data["kind"],
            until=form.validated_data["until"],
        )
        return Response(
            exclusion_json(exclusion), status=status.HTTP_201_CREATED if new else status.HTTP_200_OK
        )


def reality_check_json(player: Any) -> dict[str, Any]:
    session = conduct.current_session(player)
    if session is None:
        return {
            "started_at": None,
            "minutes": 0,
            "net_result": {},
            "due": False,
            "next_due_at": None,
            "reality_check_minutes": selectors.reality_check_minutes(player),
        }
    return session.as_json()


class RealityCheckView(APIView):
    """``GET``: the session in progress (started_at, minutes, net_result per currency), whether
    a reality check is due and when the next one falls. ``POST``: acknowledge the one due (a
    second time changes nothing). ``PUT {"minutes": 30}``: the interval between checks."""

    permission_classes = PLAYERS_ONLY

    @extend_schema(responses=RealityCheckOut)
    def get(self, request: Request) -> Response:
        return Response(reality_check_json(acting_user(request)))

    @extend_schema(request=None, responses=RealityCheckOut)
    def post(self, request: Request) -> Response:
        player = acting_user(request)
        conduct.acknowledge_reality_check(player=player)
        return Response(reality_check_json(player))

    @extend_schema(request=RealityCheckChoice, responses=RealityCheckOut)
    def put(self, request: Request) -> Response:
        form = RealityCheckChoice(data=request.data)
        form.is_valid(raise_exception=True)
        player = acting_user(request)
        conduct.choose_reality_check(player=player, minutes=form.validated_data["minutes"])
        return Response(reality_check_json(player))
