"""Seven-card stud endpoints: sit down with a buy-in, leave, see the table, act, and recall
finished hands (JSON, or PHH for download)."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.permissions import PLAYERS_ACT, acting_user
from games.engine import phh
from payouts.idempotency import idempotent

from . import selectors
from .models import Game, Round, RoundStatus, Table
from .round_api import IDEMPOTENCY, NewestRoundsFirst
from .services import stud
from .stud_serializers import (
    JoinSerializer,
    StudActionSerializer,
    hand_history,
    hand_json,
    table_json,
)


def _stud_table(request: Request, pk: int) -> Table:
    table = selectors.tables_for(request.user, game=Game.SEVEN_CARD_STUD).filter(pk=pk).first()
    if table is None:
        raise NotFound("No such seven-card stud table.")
    return table


class StudTable(APIView):
    @extend_schema(
        responses={200: dict},
        summary="The table as the requester may see it: own down cards only, everyone's up "
        "cards, the pot, bets, whose turn, and the legal actions of the player to act",
    )
    def get(self, request: Request, pk: int) -> Response:
        stud.catch_up(pk)  # a touch carries the table on: overdue decisions, a due hand
        return Response(table_json(_stud_table(request, pk), request.user))


class StudSeats(APIView):
    permission_classes = PLAYERS_ACT

    @extend_schema(
        request=JoinSerializer,
        responses={201: dict},
        parameters=[IDEMPOTENCY],
        summary="Sit down: the buy-in moves from the wallet to the table",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        incoming = JoinSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        table = _stud_table(request, pk)
        stud.join(
            player=acting_user(request),
            table=table,
            seat=incoming.validated_data["seat"],
            buy_in=incoming.validated_data["buy_in"],
        )
        return Response(table_json(table, request.user), status=status.HTTP_201_CREATED)


class StudLeave(APIView):
    permission_classes = PLAYERS_ACT

    @extend_schema(
        request=None,
        responses={200: dict},
        parameters=[IDEMPOTENCY],
        summary="Leave: folded if in a hand; the stack goes back to the wallet",
    )
    def post(self, request: Request, pk: int) -> HttpResponse:
        stud.catch_up(pk)  # committed on its own, as for an action
        return self._leave(request, pk)

    @idempotent
    def _leave(self, request: Request, pk: int) -> Response:
        table = _stud_table(request, pk)
        stud.leave(player=acting_user(request), table=table)
        return Response(table_json(table, request.user))


class StudActions(APIView):
    permission_classes = PLAYERS_ACT

    @extend_schema(
        request=StudActionSerializer,
        responses={200: dict},
        parameters=[IDEMPOTENCY],
        summary="Act in the running hand",
    )
    def post(self, request: Request, pk: int) -> HttpResponse:
        # Decisions that came too late are taken and committed before the request's own
        # transaction, so refusing the late decision does not undo them.
        stud.catch_up(pk)
        return self._act(request, pk)

    @idempotent
    def _act(self, request: Request, pk: int) -> Response:
        incoming = StudActionSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        table = _stud_table(request, pk)
        stud.act(
            player=acting_user(request),
            table=table,
            action=incoming.validated_data["action"],
            amount=incoming.validated_data.get("amount"),
            catch_up_first=False,  # done by post(), outside this transaction
        )
        return Response(table_json(table, request.user))


class StudHands(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("table", int)],
        responses={200: dict},
        summary="Hands: those a player was dealt into, or every hand for staff (recall)",
        operation_id="v1_stud_hands_list",
    )
    def get(self, request: Request) -> Response:
        table = request.query_params.get("table")
        if table is not None and not table.isdigit():
            raise ValidationError({"table": ["table must be a table id."]})
        hands = selectors.rounds_for(
            request.user, game=Game.SEVEN_CARD_STUD, table=int(table) if table else None
        )
        paginator = NewestRoundsFirst()
        page = paginator.paginate_queryset(hands, request, view=self) or []
        return paginator.get_paginated_response([hand_json(h) for h in page])


def _visible_hand(request: Request, pk: int) -> Round:
    hand = selectors.rounds_for(request.user, game=Game.SEVEN_CARD_STUD).filter(pk=pk).first()
    if hand is None:
        raise NotFound("No such hand.")
    return hand


class StudHand(APIView):
    @extend_schema(responses={200: dict}, summary="One hand; its history once it is over")
    def get(self, request: Request, pk: int) -> Response:
        return Response(hand_json(_visible_hand(request, pk)))


class StudHandHistory(APIView):
    @extend_schema(
        responses={(200, "application/toml"): OpenApiResponse(OpenApiTypes.STR)},
        summary="A finished hand as a PHH file (variant F7S)",
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        hand = _visible_hand(request, pk)
        if hand.status != RoundStatus.SETTLED:
            raise ValidationError({"hand": ["The hand is still being played (FS-7)."]})
        response = HttpResponse(phh.dumps(hand_history(hand)), content_type="application/toml")
        response["Content-Disposition"] = f'attachment; filename="stud-{hand.pk}.phh"'
        return response
