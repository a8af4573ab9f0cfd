"""Joker draw round endpoints: open a round, act on a box, read rounds (recall)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.http.idempotency import idempotent
from casino.http.pagination import NewestRoundsFirst, newest_first_page
from casino.http.permissions import PLAYERS_ACT, acting_user
from casino.whole_numbers import whole_number
from games.joker_draw import services as joker_draw
from games.joker_draw import trainer
from games.joker_draw.serializers import (
    JokerDrawRoundSerializer,
    OpenRoundSerializer,
    RoundActionSerializer,
    TrainerAdviceSerializer,
    round_json,
)
from games.joker_draw.services import BoxRequest
from games.models import Game
from games.tables import selectors
from games.tables.api import IDEMPOTENCY, JSON_ONLY


class JokerDrawRounds(APIView):
    permission_classes = PLAYERS_ACT
    renderer_classes = JSON_ONLY

    @extend_schema(
        parameters=[OpenApiParameter("table", int)],
        responses=newest_first_page(JokerDrawRoundSerializer),
        operation_id="v1_joker_draw_rounds_list",
        summary="Rounds: a player's own, or every round for staff (game recall)",
    )
    def get(self, request: Request) -> Response:
        table_text = request.query_params.get("table")
        table = whole_number(table_text)
        if table_text is not None and table is None:
            raise ValidationError({"table": [_("table must be a table id.")]})
        rounds = selectors.rounds_for(request.user, game=Game.JOKER_DRAW, table=table)
        paginator = NewestRoundsFirst()
        page = paginator.paginate_queryset(rounds, request, view=self) or []
        return paginator.get_paginated_response([round_json(r, request.user) for r in page])

    @extend_schema(
        request=OpenRoundSerializer,
        responses={201: JokerDrawRoundSerializer},
        parameters=[IDEMPOTENCY],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        incoming = OpenRoundSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        play = joker_draw.open_round(
            player=acting_user(request),
            table=data["table"],
            boxes=[
                BoxRequest(box=b["box"], ante=b["ante"], bonus=b.get("bonus"))
                for b in data["boxes"]
            ],
            client_seed=data.get("client_seed"),
        )
        return Response(
            round_json(play.round, request.user, state=play.state),
            status=status.HTTP_201_CREATED,
        )


class JokerDrawRound(APIView):
    renderer_classes = JSON_ONLY

    @extend_schema(responses=JokerDrawRoundSerializer)
    def get(self, request: Request, pk: int) -> Response:
        round_ = selectors.rounds_for(request.user, game=Game.JOKER_DRAW).filter(pk=pk).first()
        if round_ is None:
            raise NotFound(_("No such round."))
        return Response(round_json(round_, request.user))


class JokerDrawRoundActions(APIView):
    permission_classes = PLAYERS_ACT
    renderer_classes = JSON_ONLY

    @extend_schema(
        request=RoundActionSerializer, responses=JokerDrawRoundSerializer, parameters=[IDEMPOTENCY]
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        incoming = RoundActionSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        play = joker_draw.act(
            player=acting_user(request),
            round_id=pk,
            box=data["box"],
            action=data["action"],
            cards=data["cards"],
        )
        return Response(round_json(play.round, request.user, state=play.state))


class JokerDrawTrainer(APIView):
    """On play-money tables, the value of each option of the player's own deciding box."""

    permission_classes = PLAYERS_ACT
    renderer_classes = JSON_ONLY

    @extend_schema(
        parameters=[OpenApiParameter("box", int, required=True)],
        responses=TrainerAdviceSerializer,
        summary="Trainer: every option's expected value for the player's deciding box (FUN)",
    )
    def get(self, request: Request, pk: int) -> Response:
        box = whole_number(request.query_params.get("box"))
        if box is None:
            raise ValidationError({"box": [_("box must be a box number.")]})
        return Response(trainer.advice(player_id=acting_user(request).pk, round_id=pk, box=box))
