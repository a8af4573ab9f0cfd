"""Drawmaha endpoints: sit down with a buy-in, leave, see the table, act (bets, the draw's
exchange and the twist's take or reject), and recall finished hands; the views are the peer
games' (games.peer.api)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.request import Request
from rest_framework.response import Response

from casino.http.idempotency import idempotent
from casino.http.pagination import newest_first_page
from games.drawmaha.serializers import (
    DrawmahaActionSerializer,
    DrawmahaHandSerializer,
    DrawmahaJoinSerializer,
    DrawmahaTableSerializer,
    hand_history,
    hand_json,
    table_json,
)
from games.drawmaha.tasks import DRAWMAHA
from games.engine import drawmaha_phh
from games.models import Round
from games.peer import api as peer_api
from games.tables.api import IDEMPOTENCY


# Drawmaha shows every hand at its showdown (DM-11): a finished hand looks the same to each
# of its players, so the viewer changes nothing.
def _phh(hand: Round, viewer: Any) -> str:
    return drawmaha_phh.dumps(hand_history(hand, viewer))


def _hand_json(hand: Round, viewer: Any) -> dict[str, Any]:
    return hand_json(hand, viewer)


DRAWMAHA_API = peer_api.PeerApi(
    service=DRAWMAHA,
    act=DRAWMAHA.act,
    name=gettext_lazy("Drawmaha"),
    slug="drawmaha",
    join_serializer=DrawmahaJoinSerializer,
    action_serializer=DrawmahaActionSerializer,
    table_json=table_json,
    hand_json=_hand_json,
    phh=_phh,
)


@extend_schema_view(
    get=extend_schema(
        summary="The table as the requester may see it: own cards only, the others' card "
        "counts and exchanges, the board, the pot, whose turn, and the legal actions",
        responses=DrawmahaTableSerializer,
    )
)
class DrawmahaTable(peer_api.TableView):
    api = DRAWMAHA_API


@extend_schema_view(
    post=extend_schema(
        request=DrawmahaJoinSerializer,
        responses={201: DrawmahaTableSerializer},
        operation_id="v1_drawmaha_seats_create",
    )
)
class DrawmahaSeats(peer_api.SeatsView):
    api = DRAWMAHA_API


@extend_schema_view(
    post=extend_schema(
        summary="Leave: the hand is dead if in one; the stack goes back to the wallet",
        operation_id="v1_drawmaha_leave_create",
    )
)
class DrawmahaLeave(peer_api.LeaveView):
    api = DRAWMAHA_API

    @extend_schema(request=None, responses=DrawmahaTableSerializer, parameters=[IDEMPOTENCY])
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        return self.leave(request, pk)


@extend_schema_view(
    post=extend_schema(
        summary="I'm back: a player sat out for running out of time is dealt in again from "
        "the next hand",
        operation_id="v1_drawmaha_back_create",
    )
)
class DrawmahaBack(peer_api.BackView):
    api = DRAWMAHA_API

    @extend_schema(request=None, responses=DrawmahaTableSerializer, parameters=[IDEMPOTENCY])
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        return self.back(request, pk)


@extend_schema_view(
    post=extend_schema(
        request=DrawmahaActionSerializer,
        summary="Act in the running hand: bet, exchange cards, take or reject the twist",
        operation_id="v1_drawmaha_actions_create",
    )
)
class DrawmahaActions(peer_api.ActionsView):
    api = DRAWMAHA_API

    @extend_schema(responses=DrawmahaTableSerializer, parameters=[IDEMPOTENCY])
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        return self.act(request, pk)


@extend_schema_view(
    get=extend_schema(
        operation_id="v1_drawmaha_hands_list", responses=newest_first_page(DrawmahaHandSerializer)
    )
)
class DrawmahaHands(peer_api.HandsView):
    api = DRAWMAHA_API


@extend_schema_view(
    get=extend_schema(operation_id="v1_drawmaha_hand_retrieve", responses=DrawmahaHandSerializer)
)
class DrawmahaHand(peer_api.HandView):
    api = DRAWMAHA_API


@extend_schema_view(
    get=extend_schema(
        summary="A finished hand as a PHH file (variant PDM)",
        operation_id="v1_drawmaha_hand_phh_retrieve",
    )
)
class DrawmahaHandHistory(peer_api.HandHistoryView):
    api = DRAWMAHA_API
