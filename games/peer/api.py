"""The peer games' endpoints (seven-card stud, Drawmaha): sit down with a buy-in, leave, see the
table, act, and recall finished hands (JSON, or PHH for download).

A game's API module subclasses these views with its ``PeerApi`` and the schema of its own
(summaries, request bodies, the shapes of its tables and hands); the views hold no docstrings
because the schema would show them.
Leaving and acting are decisions: the game's module gives them their ``post``, which runs
``leave`` or ``act`` as one idempotent request. No view catches a table up: what is overdue is
the timers' (``PeerGame.catch_up``), and a look at the table changes nothing, it shows a
decision out of time as ``overdue`` until the timer takes it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from django.http import HttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.http.idempotency import idempotent
from casino.http.pagination import NewestRoundsFirst
from casino.http.permissions import PLAYERS_ACT, acting_user
from casino.http.throttling import client_address
from casino.whole_numbers import whole_number
from games.models import Round, RoundStatus, Table
from games.peer.selectors import PeerTable, peer_table
from games.peer.services import PeerGame
from games.tables import selectors
from games.tables.api import IDEMPOTENCY

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


@dataclass(frozen=True)
class PeerApi:
    """What one peer game's endpoints differ by."""

    service: PeerGame[Any, Any]  # the game's tables: joining, leaving, coming back
    act: Callable[..., Round]  # the game's decision, by the action serializer's fields
    name: StrOrPromise  # the game in refusals: "No such seven-card stud table."
    slug: str  # the game in file names: "stud-12.phh"
    join_serializer: type[serializers.Serializer[None]]
    # Its fields are the keywords of ``act``.
    action_serializer: type[serializers.Serializer[None]]
    table_json: Callable[[Table, PeerTable, Any], dict[str, Any]]
    hand_json: Callable[[Round, Any], dict[str, Any]]  # a hand as the viewer may see it
    phh: Callable[[Round, Any], str]  # a finished hand in the PHH standard, likewise


class PeerView(APIView):
    api: ClassVar[PeerApi]

    def table(self, request: Request, pk: int) -> Table:
        table = selectors.tables_for(request.user, game=self.api.service.game).filter(pk=pk).first()
        if table is None:
            raise NotFound(_("No such %(game)s table.") % {"game": self.api.name})
        return table

    def hand(self, request: Request, pk: int) -> Round:
        hand = selectors.rounds_for(request.user, game=self.api.service.game).filter(pk=pk).first()
        if hand is None:
            raise NotFound(_("No such hand."))
        return hand

    def table_json(self, request: Request, table: Table) -> dict[str, Any]:
        """The table as the requester may see it (the game's serializer hides the others'
        cards)."""
        return self.api.table_json(table, peer_table(table), request.user)


class TableView(PeerView):
    def get(self, request: Request, pk: int) -> Response:
        return Response(self.table_json(request, self.table(request, pk)))


class SeatsView(PeerView):
    permission_classes = PLAYERS_ACT

    @extend_schema(
        parameters=[IDEMPOTENCY],
        summary="Sit down: the buy-in moves from the wallet to the table",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        incoming = self.api.join_serializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        table = self.table(request, pk)
        self.api.service.join(
            player=acting_user(request),
            table=table,
            seat=incoming.validated_data["seat"],
            buy_in=incoming.validated_data["buy_in"],
            client_address=client_address(request) or "",
        )
        return Response(self.table_json(request, table), status=status.HTTP_201_CREATED)


class LeaveView(PeerView):
    permission_classes = PLAYERS_ACT

    def leave(self, request: Request, pk: int) -> Response:
        table = self.table(request, pk)
        self.api.service.leave(player=acting_user(request), table=table)
        return Response(self.table_json(request, table))


class BackView(PeerView):
    permission_classes = PLAYERS_ACT

    def back(self, request: Request, pk: int) -> Response:
        table = self.table(request, pk)
        self.api.service.come_back(player=acting_user(request), table=table)
        return Response(self.table_json(request, table))


class ActionsView(PeerView):
    permission_classes = PLAYERS_ACT

    def act(self, request: Request, pk: int) -> Response:
        incoming = self.api.action_serializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        table = self.table(request, pk)
        self.api.act(
            player=acting_user(request),
            table=table,
            client_address=client_address(request) or "",
            **incoming.validated_data,
        )
        return Response(self.table_json(request, table))


class HandsView(PeerView):
    @extend_schema(
        parameters=[OpenApiParameter("table", int)],
        summary="Hands: those a player was dealt into, or every hand for staff (recall)",
    )
    def get(self, request: Request) -> Response:
        table_text = request.query_params.get("table")
        table = whole_number(table_text)
        if table_text is not None and table is None:
            raise ValidationError({"table": [_("table must be a table id.")]})
        hands = selectors.rounds_for(request.user, game=self.api.service.game, table=table)
        paginator = NewestRoundsFirst()
        page = paginator.paginate_queryset(hands, request, view=self) or []
        return paginator.get_paginated_response([self.api.hand_json(h, request.user) for h in page])


class HandView(PeerView):
    @extend_schema(summary="One hand; its history once it is over")
    def get(self, request: Request, pk: int) -> Response:
        return Response(self.api.hand_json(self.hand(request, pk), request.user))


class HandHistoryView(PeerView):
    @extend_schema(responses={(200, "application/toml"): OpenApiResponse(OpenApiTypes.STR)})
    def get(self, request: Request, pk: int) -> HttpResponse:
        hand = self.hand(request, pk)
        if hand.status != RoundStatus.SETTLED:
            raise ValidationError({"hand": [_("The hand is still being played (FS-7).")]})
        response = HttpResponse(self.api.phh(hand, request.user), content_type="application/toml")
        response["Content-Disposition"] = f'attachment; filename="{self.api.slug}-{hand.pk}.phh"'
        return response
