"""Seven-card stud endpoints: sit down with a buy-in, rebuy, switch the automatic ante, leave,
see the table, act, recall finished hands (JSON, or PHH for download) and show a hand won
uncalled; the views are the peer games' (games.peer.api)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.request import Request
from rest_framework.response import Response

from casino.http.idempotency import idempotent
from casino.http.pagination import newest_first_page
from casino.http.permissions import PLAYERS_ACT, acting_user
from casino.http.throttling import client_address
from games.engine import stud_phh
from games.models import Round
from games.peer import api as peer_api
from games.stud import services as stud
from games.stud.serializers import (
    AutoAnteSerializer,
    JoinSerializer,
    RebuySerializer,
    StudActionSerializer,
    StudHandSerializer,
    StudTableSerializer,
    hand_history,
    hand_json,
    table_json,
)
from games.stud.tasks import STUD
from games.tables.api import IDEMPOTENCY


def _phh(hand: Round, viewer: Any) -> str:
    return stud_phh.dumps(hand_history(hand, viewer))


STUD_API = peer_api.PeerApi(
    service=STUD,
    act=STUD.act,
    name=gettext_lazy("seven-card stud"),
    slug="stud",
    join_serializer=JoinSerializer,
    action_serializer=StudActionSerializer,
    table_json=table_json,
    hand_json=hand_json,
    phh=_phh,
)


@extend_schema_view(
    get=extend_schema(
        summary="The table as the requester may see it: own down cards only, everyone's up "
        "cards, the pot, bets, whose turn, and the legal actions of the player to act",
        responses=StudTableSerializer,
    )
)
class StudTable(peer_api.TableView):
    api = STUD_API


@extend_schema_view(
    post=extend_schema(request=JoinSerializer, responses={201: StudTableSerializer})
)
class StudSeats(peer_api.SeatsView):
    api = STUD_API


@extend_schema_view(
    post=extend_schema(summary="Leave: folded if in a hand; the stack goes back to the wallet")
)
class StudLeave(peer_api.LeaveView):
    api = STUD_API

    @extend_schema(request=None, responses=StudTableSerializer, parameters=[IDEMPOTENCY])
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        return self.leave(request, pk)


@extend_schema_view(
    post=extend_schema(
        summary="I'm back: a player sat out for running out of time is dealt in again from "
        "the next hand",
        operation_id="v1_stud_back_create",
    )
)
class StudBack(peer_api.BackView):
    api = STUD_API

    @extend_schema(request=None, responses=StudTableSerializer, parameters=[IDEMPOTENCY])
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        return self.back(request, pk)


@extend_schema_view(
    post=extend_schema(request=StudActionSerializer, summary="Act in the running hand")
)
class StudActions(peer_api.ActionsView):
    api = STUD_API

    @extend_schema(responses=StudTableSerializer, parameters=[IDEMPOTENCY])
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        return self.act(request, pk)


@extend_schema_view(
    get=extend_schema(
        operation_id="v1_stud_hands_list", responses=newest_first_page(StudHandSerializer)
    )
)
class StudHands(peer_api.HandsView):
    api = STUD_API


@extend_schema_view(get=extend_schema(responses=StudHandSerializer))
class StudHand(peer_api.HandView):
    api = STUD_API


@extend_schema_view(get=extend_schema(summary="A finished hand as a PHH file (variant F7S)"))
class StudHandHistory(peer_api.HandHistoryView):
    api = STUD_API


@extend_schema_view(
    post=extend_schema(
        request=RebuySerializer,
        responses=StudTableSerializer,
        parameters=[IDEMPOTENCY],
        summary="Rebuy between hands: chips from the wallet; the stack after it is within the "
        "table's buy-in (no short buys)",
    )
)
class StudRebuy(peer_api.PeerView):
    permission_classes = PLAYERS_ACT
    api = STUD_API

    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        incoming = RebuySerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        table = self.table(request, pk)
        STUD.rebuy(
            player=acting_user(request),
            table=table,
            amount=incoming.validated_data["amount"],
            client_address=client_address(request) or "",
        )
        return Response(self.table_json(request, table))


@extend_schema_view(
    post=extend_schema(
        request=AutoAnteSerializer,
        responses=StudTableSerializer,
        summary="Switch the automatic ante on or off: off, the player sits out (no ante, no "
        "cards) until it is on again",
    )
)
class StudAutoAnte(peer_api.PeerView):
    permission_classes = PLAYERS_ACT
    api = STUD_API

    def post(self, request: Request, pk: int) -> Response:
        incoming = AutoAnteSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        table = self.table(request, pk)
        on = incoming.validated_data["on"]
        STUD.set_auto_ante(player=acting_user(request), table=table, on=on)
        return Response(self.table_json(request, table))


@extend_schema_view(
    post=extend_schema(
        request=None,
        responses=StudHandSerializer,
        summary="Show a hand won uncalled (ST-10): its cards join the history its players see",
    )
)
class StudShowHand(peer_api.PeerView):
    permission_classes = PLAYERS_ACT
    api = STUD_API

    def post(self, request: Request, pk: int) -> Response:
        hand = self.hand(request, pk)
        stud.show_won_hand(player=acting_user(request), hand=hand)
        return Response(STUD_API.hand_json(hand, request.user))
