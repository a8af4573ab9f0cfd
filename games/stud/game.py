"""Seven-card stud as the shared code sees it (``TableGame``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from django.urls import URLPattern

from games.engine import stud
from games.engine.cards import Card
from games.models import Game, Round
from games.peer.event_words import PEER_WORDS
from games.peer.game import PeerTableGame
from games.peer.hands import PeerHand, PeerState
from games.stud import limits, replay, tasks, urls
from games.stud.event_words import STUD_WORDS
from games.stud.serializers import hand_json, visible_events

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

    from games.tables.table_game import ReplayReport


class SevenCardStudTables(PeerTableGame):
    code = Game.SEVEN_CARD_STUD
    slug = "stud"
    limit_fields = limits.LIMIT_FIELDS
    default_limits = limits.DEFAULT_LIMITS
    peer = tasks.STUD
    event_words = {**PEER_WORDS, **STUD_WORDS}

    def limit_problems(self, values: Mapping[str, Any]) -> dict[str, str]:
        return limits.limit_problems(values)

    def recall(
        self, hand: Round, viewer: User | AnonymousUser
    ) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]] | None]:
        return hand_json(hand, viewer), visible_events(hand, viewer)

    def folded_cards(self, hand: PeerHand[PeerState], seat: int) -> tuple[Card, ...]:
        return cast(stud.StudState, hand.state).hands[seat].cards

    def replay(self, round_: Round) -> ReplayReport:
        return replay.replay_stud(round_)

    @property
    def api_urls(self) -> list[URLPattern]:
        return urls.urlpatterns


GAME = SevenCardStudTables()
