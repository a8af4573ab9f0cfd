"""What a seven-card stud table and its hands look like over the API, to whom.

While a hand is played each player sees their own down cards only, and everyone's up cards;
nobody, staff included, sees another player's down cards, the deck or the server seed. Cards
shown at the showdown are open to all. Once the hand is over its whole history and the seed
are open to its players and to staff, so anyone can recompute the deck (FS-7).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rest_framework import serializers

from games import peer_serializers
from games.engine import phh, stud
from games.engine.common import cards_to_json
from games.models import Round, Table
from games.services.stud import ACTIONS, Hand
from payouts.serializers import AmountField


def table_json(table: Table, viewer: Any) -> dict[str, Any]:
    return peer_serializers.table_json(table, viewer, hand_in_play_json)


def hand_in_play_json(round_: Round, viewer: Any) -> dict[str, Any]:
    hand = Hand.from_json(round_.engine_state)
    state = hand.state

    def cards(seat: int, own: bool) -> dict[str, Any]:
        held = state.hands[seat]
        open_cards = own or held.shown
        return {
            "down": cards_to_json(held.down) if open_cards else None,
            "down_count": len(held.down),
            "up": cards_to_json(held.up),
        }

    return peer_serializers.hand_in_play_json(
        round_,
        hand,
        viewer,
        table_cards={"common_card": None if state.common is None else str(state.common)},
        betting=state.street not in (stud.Street.SHOWDOWN, stud.Street.OVER),
        cards=cards,
        legal_actions=lambda: [
            peer_serializers.betting_option_json(option) for option in stud.legal_actions(state)
        ],
    )


def hand_json(round_: Round) -> dict[str, Any]:
    """A stud hand for recall (``peer_serializers.hand_json``)."""
    return peer_serializers.hand_json(round_, Hand.from_json)


def hand_history(round_: Round) -> phh.HandHistory:
    """A finished hand in the PHH standard (F7S), with the shuffle's seeds, the rake and the
    table as user-defined fields (PHH: names starting with an underscore)."""
    hand = Hand.from_json(round_.engine_state)
    recorded = phh.record(hand.state, peer_serializers.engine_events(round_))
    rake = hand.state.table.rake
    extra = peer_serializers.history_extra(
        round_,
        hand,
        dict(recorded.extra),
        _rake_percent=str(rake.percent),
        **({} if rake.cap is None else {"_rake_cap": rake.cap}),
    )
    return replace(recorded, extra=extra)


class JoinSerializer(serializers.Serializer[None]):
    seat = serializers.IntegerField(min_value=1, max_value=stud.MAX_PLAYERS)
    buy_in = AmountField()


class StudActionSerializer(serializers.Serializer[None]):
    action = serializers.ChoiceField(choices=ACTIONS)
    amount = AmountField(
        required=False,
        allow_null=True,
        help_text="A bet, completion or raise: the player's total bet this street after it.",
    )
