"""Drawmaha endpoints: sit down with a buy-in, leave, see the table, act (bets, the draw's
exchange and the twist's take or reject), and recall finished hands."""

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
from games.engine import phh_drawmaha
from payouts.idempotency import idempotent

from . import selectors
from .drawmaha_serializers import (
    DrawmahaActionSerializer,
    DrawmahaJoinSerializer,
    hand_history,
    hand_json,
    table_json,
)
from .models import Game, Round, RoundStatus, Table
from .round_api import IDEMPOTENCY, NewestRoundsFirst
from .services import drawmaha


def _drawmaha_table(request: Request, pk: int) -> Table:
    table = selectors.tables_for(request.user, game=Game.DRAWMAHA).filter(pk=pk).first()
    if table is None:
        raise NotFound("No such Drawmaha table.")
    return table


class DrawmahaTable(APIView):
    @extend_schema(
        responses={200: dict},
        summary="The table as the requester may see it: own cards only, the others' card "
        "counts and exchanges, the board, the pot, whose turn, and the legal actions",
    )
    def get(self, request: Request, pk: int) -> Response:
        drawmaha.catch_up(pk)  # a touch carries the table on: overdue decisions, a due hand
        return Response(table_json(_drawmaha_table(request, pk), request.user))


class DrawmahaSeats(APIView):
    permission_classes = PLAYERS_ACT

    @extend_schema(
        request=DrawmahaJoinSerializer,
        responses={201: dict},
        parameters=[IDEMPOTENCY],
        summary="Sit down: the buy-in moves from the wallet to the table",
        operation_id="v1_drawmaha_seats_create",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        incoming = DrawmahaJoinSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        table = _drawmaha_table(request, pk)
        drawmaha.join(
            player=acting_user(request),
            table=table,
            seat=incoming.validated_data["seat"],
            buy_in=incoming.validated_data["buy_in"],
        )
        return Response(table_json(table, request.user), status=status.HTTP_201_CREATED)


class DrawmahaLeave(APIView):
    permission_classes = PLAYERS_ACT

    @extend_schema(
        request=None,
        responses={200: dict},
        parameters=[IDEMPOTENCY],
        summary="Leave: the hand is dead if in one; the stack goes back to the wallet",
        operation_id="v1_drawmaha_leave_create",
    )
    def post(self, request: Request, pk: int) -> HttpResponse:
        drawmaha.catch_up(pk)  # committed on its own, as for an action
        return self._leave(request, pk)

    @idempotent
    def _leave(self, request: Request, pk: int) -> Response:
        table = _drawmaha_table(request, pk)
        drawmaha.leave(player=acting_user(request), table=table)
        return Response(table_json(table, request.user))


class DrawmahaActions(APIView):
    permission_classes = PLAYERS_ACT

    @extend_schema(
        request=DrawmahaActionSerializer,
        responses={200: dict},
        parameters=[IDEMPOTENCY],
        summary="Act in the running hand: bet, exchange cards, take or reject the twist",
        operation_id="v1_drawmaha_actions_create",
    )
    def post(self, request: Request, pk: int) -> HttpResponse:
        # Decisions that came too late are taken and committed before the request's own
        # transaction, so refusing the late decision does not undo them.
        drawmaha.catch_up(pk)
        return self._act(request, pk)

    @idempotent
    def _act(self, request: Request, pk: int) -> Response:
        incoming = DrawmahaActionSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        table = _drawmaha_table(request, pk)
        drawmaha.act(
            player=acting_user(request),
            table=table,
            action=incoming.validated_data["action"],
            amount=incoming.validated_data.get("amount"),
            cards=incoming.validated_data.get("cards", ()),
            catch_up_first=False,  # done by post(), outside this transaction
        )
        return Response(table_json(table, request.user))


class DrawmahaHands(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("table", int)],
        responses={200: dict},
        summary="Hands: those a player was dealt into, or every hand for staff (recall)",
        operation_id="v1_drawmaha_hands_list",
    )
    def get(self, request: Request) -> Response:
        table = request.query_params.get("table")
        if table is not None and not table.isdigit():
            raise ValidationError({"table": ["table must be a table id."]})
        hands = selectors.rounds_for(
            request.user, game=Game.DRAWMAHA, table=int(table) if table else None
        )
        paginator = NewestRoundsFirst()
        page = paginator.paginate_queryset(hands, request, view=self) or []
        return paginator.get_paginated_response([hand_json(h) for h in page])


class DrawmahaHand(APIView):
    @extend_schema(
        responses={200: dict},
        summary="One hand; its history once it is over",
        operation_id="v1_drawmaha_hand_retrieve",
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(hand_json(_visible_hand(request, pk)))


def _visible_hand(request: Request, pk: int) -> Round:
    hand = selectors.rounds_for(request.user, game=Game.DRAWMAHA).filter(pk=pk).first()
    if hand is None:
        raise NotFound("No such hand.")
    return hand


class DrawmahaHandHistory(APIView):
    @extend_schema(
        responses={(200, "application/toml"): OpenApiResponse(OpenApiTypes.STR)},
        summary="A finished hand as a PHH file (variant PDM)",
        operation_id="v1_drawmaha_hand_phh_retrieve",
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        hand = _visible_hand(request, pk)
        if hand.status != RoundStatus.SETTLED:
            raise ValidationError({"hand": ["The hand is still being played (FS-7)."]})
        text = phh_drawmaha.dumps(hand_history(hand))
        response = HttpResponse(text, content_type="application/toml")
        response["Content-Disposition"] = f'attachment; filename="drawmaha-{hand.pk}.phh"'
        return response
