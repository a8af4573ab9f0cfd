"""Drawmaha endpoints: sit down with a buy-in, leave, see the table, act (bets, the draw's
exchange and the twist's take or reject), and recall finished hands; the views are the peer
games' (games.peer.api)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_view

from games.drawmaha import services as drawmaha
from games.drawmaha.serializers import (
    DrawmahaActionSerializer,
    DrawmahaJoinSerializer,
    hand_history,
    hand_json,
    table_json,
)
from games.engine import drawmaha_phh as phh_drawmaha
from games.models import Game, Round
from games.peer import api as peer_api


# Drawmaha shows every hand at its showdown (DM-11): a finished hand looks the same to each
# of its players, so the viewer changes nothing.
def _phh(hand: Round, viewer: Any) -> str:
    return phh_drawmaha.dumps(hand_history(hand))


def _hand_json(hand: Round, viewer: Any) -> dict[str, Any]:
    return hand_json(hand)


DRAWMAHA = peer_api.PeerApi(
    game=Game.DRAWMAHA,
    name="Drawmaha",
    slug="drawmaha",
    service=drawmaha,
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
    )
)
class DrawmahaTable(peer_api.TableView):
    api = DRAWMAHA


@extend_schema_view(
    post=extend_schema(request=DrawmahaJoinSerializer, operation_id="v1_drawmaha_seats_create")
)
class DrawmahaSeats(peer_api.SeatsView):
    api = DRAWMAHA


@extend_schema_view(
    post=extend_schema(
        summary="Leave: the hand is dead if in one; the stack goes back to the wallet",
        operation_id="v1_drawmaha_leave_create",
    )
)
class DrawmahaLeave(peer_api.LeaveView):
    api = DRAWMAHA


@extend_schema_view(
    post=extend_schema(
        request=DrawmahaActionSerializer,
        summary="Act in the running hand: bet, exchange cards, take or reject the twist",
        operation_id="v1_drawmaha_actions_create",
    )
)
class DrawmahaActions(peer_api.ActionsView):
    api = DRAWMAHA


@extend_schema_view(get=extend_schema(operation_id="v1_drawmaha_hands_list"))
class DrawmahaHands(peer_api.HandsView):
    api = DRAWMAHA


@extend_schema_view(get=extend_schema(operation_id="v1_drawmaha_hand_retrieve"))
class DrawmahaHand(peer_api.HandView):
    api = DRAWMAHA


@extend_schema_view(
    get=extend_schema(
        summary="A finished hand as a PHH file (variant PDM)",
        operation_id="v1_drawmaha_hand_phh_retrieve",
    )
)
class DrawmahaHandHistory(peer_api.HandHistoryView):
    api = DRAWMAHA
