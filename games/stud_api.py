"""Seven-card stud endpoints: sit down with a buy-in, leave, see the table, act, and recall
finished hands (JSON, or PHH for download); the views are the peer games' (games.peer_api)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view

from games.engine import phh

from . import peer_api
from .models import Game, Round
from .services import stud
from .stud_serializers import (
    JoinSerializer,
    StudActionSerializer,
    hand_history,
    hand_json,
    table_json,
)


def _phh(hand: Round) -> str:
    return phh.dumps(hand_history(hand))


STUD = peer_api.PeerApi(
    game=Game.SEVEN_CARD_STUD,
    name="seven-card stud",
    slug="stud",
    service=stud,
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
    )
)
class StudTable(peer_api.TableView):
    api = STUD


@extend_schema_view(post=extend_schema(request=JoinSerializer))
class StudSeats(peer_api.SeatsView):
    api = STUD


@extend_schema_view(
    post=extend_schema(summary="Leave: folded if in a hand; the stack goes back to the wallet")
)
class StudLeave(peer_api.LeaveView):
    api = STUD


@extend_schema_view(
    post=extend_schema(request=StudActionSerializer, summary="Act in the running hand")
)
class StudActions(peer_api.ActionsView):
    api = STUD


@extend_schema_view(get=extend_schema(operation_id="v1_stud_hands_list"))
class StudHands(peer_api.HandsView):
    api = STUD


class StudHand(peer_api.HandView):
    api = STUD


@extend_schema_view(get=extend_schema(summary="A finished hand as a PHH file (variant F7S)"))
class StudHandHistory(peer_api.HandHistoryView):
    api = STUD
