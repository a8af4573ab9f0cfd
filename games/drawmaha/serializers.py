"""What a Drawmaha table and its hands look like over the API, to whom.

While a hand is played each player sees their own cards only; of the others, how many cards
they hold and how many they exchanged in the draw (DM-5), and a twist card once it is shown face
up to be taken or rejected, or taken (DM-6). The board is open to all. Nobody, staff included,
sees another player's cards, the deck or the server seed while the hand is played; once it is
over its whole history and the seed are open to its players and to staff (FS-7).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rest_framework import serializers

from games.drawmaha.hand import ACTIONS, Hand
from games.engine import drawmaha, drawmaha_phh
from games.engine.betting import LegalAction
from games.engine.common import cards_to_json
from games.engine.drawmaha import DrawOption
from games.engine.hands import best_omaha, evaluate
from games.models import Round, Table
from games.peer import serializers as peer_serializers
from games.peer.selectors import PeerTable
from games.tables.hand_names import hand_name
from payouts.serializers import AmountField, MoneyField


def table_json(table: Table, seated: PeerTable, viewer: Any) -> dict[str, Any]:
    return peer_serializers.table_json(table, seated, viewer, hand_in_play_json)


def hand_in_play_json(round_: Round, viewer: Any) -> dict[str, Any]:
    hand = Hand.from_json(round_.engine_state)
    state = hand.state
    exchanges = {exchange.seat: exchange for exchange in state.exchanges}

    def cards(seat: int, own: bool) -> dict[str, Any]:
        held = state.hands[seat]
        exchange = exchanges.get(seat)
        # A twist card is shown while the player decides and kept if taken; rejected, mucked.
        twist = exchange.twist if exchange and exchange.twist_taken is not False else None
        # The two readings of the viewer's own five cards (DM-11): alone, and with the flop.
        whole = own and len(held) == drawmaha.HAND_SIZE
        flopped = whole and len(state.board) >= drawmaha.FLOP_SIZE
        return {
            "cards": cards_to_json(held) if own else None,
            "draw_hand": hand_name(evaluate(held)) if whole else None,
            "omaha_hand": hand_name(best_omaha(held, state.board)) if flopped else None,
            "card_count": len(held),
            "exchanged": None if exchange is None else len(exchange.discards),
            "twist": None if twist is None else str(twist),
        }

    return peer_serializers.hand_in_play_json(
        round_,
        hand,
        viewer,
        table_cards={"button": hand.button, "board": cards_to_json(state.board)},
        betting=state.street not in (drawmaha.Street.DRAW, drawmaha.Street.OVER),
        cards=cards,
        legal_actions=lambda: [_option_json(o) for o in drawmaha.legal_actions(state)],
    )


def _option_json(option: LegalAction | DrawOption) -> dict[str, Any]:
    """A betting option with its pot-limit amounts (DM-9), or a draw choice (DM-5, DM-6)."""
    if isinstance(option, LegalAction):
        return peer_serializers.betting_option_json(option)
    if option.kind == drawmaha.DrawChoice.EXCHANGE:
        return {"action": option.kind.value, "max_cards": option.max_cards}
    return {"action": option.kind.value, "card": str(option.card)}


def hand_json(round_: Round, viewer: Any) -> dict[str, Any]:
    """A Drawmaha hand for recall (``peer_serializers.hand_json``) as ``viewer`` may have it,
    with its button and board."""
    return peer_serializers.hand_json(
        round_,
        Hand.from_json,
        viewer,
        lambda hand: {"button": hand.button, "board": cards_to_json(hand.state.board)},
    )


class DrawmahaJoinSerializer(serializers.Serializer[None]):
    seat = serializers.IntegerField(min_value=1, max_value=drawmaha.MAX_PLAYERS)
    buy_in = AmountField()


class DrawmahaActionSerializer(serializers.Serializer[None]):
    action = serializers.ChoiceField(choices=ACTIONS)
    amount = AmountField(
        required=False,
        allow_null=True,
        help_text="A bet or raise: the player's total bet this round after it (pot limit).",
    )
    cards = serializers.ListField(
        child=serializers.CharField(max_length=2),
        required=False,
        max_length=drawmaha.MAX_EXCHANGE,
        help_text="An exchange: the cards set aside, such as ['As', 'Td']; none to stand pat.",
    )


def hand_history(round_: Round, viewer: Any) -> drawmaha_phh.DrawmahaHandHistory:
    """A finished hand in the PHH standard (variant PDM), with the shuffle's seeds (as far as
    ``viewer`` may have them), the rake and the table as user-defined fields (PHH: names
    starting with an underscore)."""
    hand = Hand.from_json(round_.engine_state)
    recorded = drawmaha_phh.record(hand.state, peer_serializers.engine_events(round_))
    extra = peer_serializers.history_extra(round_, hand, dict(recorded.extra), viewer)
    return replace(recorded, extra=extra)


class DrawmahaPlayerSerializer(peer_serializers.PeerPlayerSerializer):
    """A player of the Drawmaha hand in play: the cards and their readings (DM-11) only to the
    player themself (else null); to all, how many cards they hold and exchanged, and a twist
    card shown or taken (DM-5, DM-6)."""

    cards = serializers.ListField(child=serializers.CharField(), allow_null=True)
    draw_hand = serializers.CharField(allow_null=True)
    omaha_hand = serializers.CharField(allow_null=True)
    card_count = serializers.IntegerField()
    exchanged = serializers.IntegerField(allow_null=True)
    twist = serializers.CharField(allow_null=True)


class DrawmahaOptionSerializer(serializers.Serializer[None]):
    """A legal action of the player to act: a bet with its pot-limit amounts (DM-9), an
    exchange of up to ``max_cards`` (DM-5), or taking or rejecting the twist ``card`` (DM-6)."""

    action = serializers.ChoiceField(choices=ACTIONS)
    min_amount = MoneyField(required=False)
    max_amount = MoneyField(required=False)
    all_in = serializers.BooleanField(required=False)
    max_cards = serializers.IntegerField(required=False)
    card = serializers.CharField(required=False)


class DrawmahaHandInPlaySerializer(peer_serializers.PeerHandInPlaySerializer):
    street = serializers.ChoiceField(choices=[street.value for street in drawmaha.Street])
    button = serializers.IntegerField()
    board = serializers.ListField(child=serializers.CharField())
    players = DrawmahaPlayerSerializer(many=True)
    legal_actions = DrawmahaOptionSerializer(many=True)


class DrawmahaTableSerializer(peer_serializers.PeerTableSerializer):
    hand = DrawmahaHandInPlaySerializer(allow_null=True)


class DrawmahaHandSerializer(peer_serializers.PeerHandSerializer):
    button = serializers.IntegerField(required=False)
    board = serializers.ListField(child=serializers.CharField(), required=False)
