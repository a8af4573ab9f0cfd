"""Drawmaha as the shared code sees it (``TableGame``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from django.urls import URLPattern

from games.drawmaha import limits, replay, tasks, urls
from games.drawmaha.event_words import DRAWMAHA_WORDS
from games.drawmaha.serializers import hand_json
from games.engine import drawmaha
from games.engine.cards import Card
from games.models import Game, Round
from games.peer.event_words import PEER_WORDS
from games.peer.game import PeerTableGame
from games.peer.hands import PeerHand, PeerState

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

    from games.tables.table_game import ReplayReport


class DrawmahaTables(PeerTableGame):
    code = Game.DRAWMAHA
    slug = "drawmaha"
    limit_fields = limits.LIMIT_FIELDS
    default_limits = limits.DEFAULT_LIMITS
    peer = tasks.DRAWMAHA
    event_words = {**PEER_WORDS, **DRAWMAHA_WORDS}

    def limit_problems(self, values: Mapping[str, Any]) -> dict[str, str]:
        return limits.limit_problems(values)

    def recall(
        self, hand: Round, viewer: User | AnonymousUser
    ) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]] | None]:
        return hand_json(hand, viewer), None

    def folded_cards(self, hand: PeerHand[PeerState], seat: int) -> tuple[Card, ...]:
        return cast(drawmaha.DrawmahaState, hand.state).hands[seat]

    def replay(self, round_: Round) -> ReplayReport:
        return replay.replay_drawmaha(round_)

    @property
    def api_urls(self) -> list[URLPattern]:
        return urls.urlpatterns


GAME = DrawmahaTables()
