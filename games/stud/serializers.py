"""What a seven-card stud table and its hands look like over the API, to whom.

While a hand is played each player sees their own down cards only, and everyone's up cards;
nobody, staff included, sees another player's down cards, the deck or the server seed. Cards
shown at the showdown are open to all. Once the hand is over its history and the seed are open
to its players and to staff, so anyone can recompute the deck (FS-7); the history shows a
player every hand that reached the showdown but no folded hand (ST-10, ``withheld_seats``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from games.engine import stud, stud_phh
from games.engine.betting import PeerEvent
from games.engine.cards import Card
from games.engine.common import Event, cards_to_json
from games.engine.hands import CATEGORIES, best_hand
from games.models import Round, RoundStatus, Table
from games.peer import serializers as peer_serializers
from games.peer.hands import SERVICE_EVENTS, UNKNOWN_CARD
from games.peer.selectors import PeerTable
from games.stud.hand import ACTIONS, Hand
from games.tables.hand_names import hand_name, named
from games.tables.selectors import is_staff_member
from payouts.serializers import AmountField

HAND_SIZE = 5  # HR-3: a poker hand is five cards


def table_json(table: Table, seated: PeerTable, viewer: Any) -> dict[str, Any]:
    return peer_serializers.table_json(table, seated, viewer, hand_in_play_json)


def hand_in_play_json(round_: Round, viewer: Any) -> dict[str, Any]:
    hand = Hand.from_json(round_.engine_state)
    state = hand.state

    def cards(seat: int, own: bool) -> dict[str, Any]:
        held = state.hands[seat]
        open_cards = own or held.shown
        common = () if state.common is None else (state.common,)
        return {
            "down": cards_to_json(held.down) if open_cards else None,
            "down_count": len(held.down),
            "up": cards_to_json(held.up),
            # The best hand so far of the cards the viewer sees of this seat, in words.
            "hand": best_so_far(held.cards + common) if open_cards else None,
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


def best_so_far(cards: tuple[Card, ...]) -> str:
    """A stud hand in words: the best five of five or more cards (HR-3), or what three or four
    cards make (ST-4's reading of up cards: pairs, two pair, three or four of a kind)."""
    if len(cards) >= HAND_SIZE:
        return hand_name(best_hand(cards))
    category, ranks = stud.showing(cards)
    return named(CATEGORIES[category], ranks)


def hand_json(round_: Round, viewer: Any) -> dict[str, Any]:
    """A stud hand for recall (``peer_serializers.hand_json``) as ``viewer`` may see it, with
    every player's ``hands``: cards withheld by ``withheld_seats`` are ``None`` in ``hands``
    and ``??`` (the PHH standard's unknown card) in the events."""
    data = peer_serializers.hand_json(round_, Hand.from_json, viewer)
    if round_.status != RoundStatus.SETTLED:
        return data
    hand = Hand.from_json(round_.engine_state)
    state = hand.state
    shown_after = set(round_.shown_hands.values_list("seat", flat=True))
    withheld = withheld_seats(round_, hand, viewer, shown_after=shown_after)
    data["events"] = [
        {**event, "data": _visible(event["kind"], event["data"], withheld)}
        for event in data["events"]
    ]
    data["hands"] = [
        {
            "seat": number,
            "up": cards_to_json(held.up),
            "down": None if seat in withheld else cards_to_json(held.down),
            "folded": state.chips[seat].folded,
            "showdown": None if held.shown is None else ("shown" if held.shown else "mucked"),
            "shown_after_the_hand": number in shown_after,
        }
        for seat, (number, held) in enumerate(zip(hand.seats, state.hands, strict=True))
    ]
    return data


def withheld_seats(
    round_: Round, hand: Hand, viewer: Any, *, shown_after: set[int] | None = None
) -> frozenset[int]:
    """The engine seats whose down cards ``viewer`` does not see in the finished hand (ST-10).
    Staff and auditors see every card. A player of the hand sees their own cards and every
    hand that reached the showdown, shown or mucked (source 002: a hand that was not shown
    can be seen by requesting the hand history), and an uncalled winner's hand once its
    winner chose to show it; folded hands are never shown. ``shown_after``: the seats shown
    after the hand, when the caller has read them already."""
    if is_staff_member(viewer):
        return frozenset()
    if shown_after is None:
        shown_after = set(round_.shown_hands.values_list("seat", flat=True))
    reached_showdown = set(hand.state.showdown_order)
    return frozenset(
        seat
        for seat, (number, player) in enumerate(zip(hand.seats, hand.players, strict=True))
        if player != viewer.pk and seat not in reached_showdown and number not in shown_after
    )


def _visible(kind: str, data: dict[str, Any], withheld: frozenset[int]) -> dict[str, Any]:
    """An event with the withheld seats' down cards as ``??``, without their deck positions."""
    if kind != PeerEvent.DEAL or not withheld:
        return data
    return {
        **data,
        "cards": [
            {"seat": dealt["seat"], "face": dealt["face"], "card": UNKNOWN_CARD}
            if dealt["seat"] in withheld and dealt["face"] == "down"
            else dealt
            for dealt in data["cards"]
        ],
    }


def visible_events(round_: Round, viewer: Any) -> list[tuple[str, dict[str, Any]]]:
    """A finished hand's history as (kind, data) pairs, as ``viewer`` may see it."""
    withheld = withheld_seats(round_, Hand.from_json(round_.engine_state), viewer)
    return [
        (kind, _visible(kind, data, withheld))
        for kind, data in round_.events.order_by("sequence").values_list("kind", "data")
    ]


def hand_history(round_: Round, viewer: Any) -> stud_phh.HandHistory:
    """A finished hand in the PHH standard (F7S) as ``viewer`` may see it (``withheld_seats``:
    unknown cards are ``??``), with the shuffle's seeds, the rake and the table as
    user-defined fields (PHH: names starting with an underscore)."""
    hand = Hand.from_json(round_.engine_state)
    events = [
        Event(kind, data)
        for kind, data in visible_events(round_, viewer)
        if kind not in SERVICE_EVENTS
    ]
    recorded = stud_phh.record(hand.state, events)
    rake = hand.state.table.rake
    extra = peer_serializers.history_extra(
        round_,
        hand,
        dict(recorded.extra),
        viewer,
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


class RebuySerializer(serializers.Serializer[None]):
    amount = AmountField(
        help_text=_("The chips to add; the stack after them is within the buy-in.")
    )


class AutoAnteSerializer(serializers.Serializer[None]):
    on = serializers.BooleanField(
        help_text=_("Post the ante automatically; off, the player sits out until it is on.")
    )


class StudPlayerSerializer(peer_serializers.PeerPlayerSerializer):
    """A player of the stud hand in play: the up cards, and the down cards and the best hand so
    far only to the player themself or once shown (else null)."""

    down = serializers.ListField(child=serializers.CharField(), allow_null=True)
    down_count = serializers.IntegerField()
    up = serializers.ListField(child=serializers.CharField())
    hand = serializers.CharField(allow_null=True)


class StudHandInPlaySerializer(peer_serializers.PeerHandInPlaySerializer):
    street = serializers.ChoiceField(choices=[street.value for street in stud.Street])
    common_card = serializers.CharField(allow_null=True)
    players = StudPlayerSerializer(many=True)
    legal_actions = peer_serializers.BettingOptionSerializer(many=True)


class StudTableSerializer(peer_serializers.PeerTableSerializer):
    hand = StudHandInPlaySerializer(allow_null=True)


class StudHandCardsSerializer(serializers.Serializer[None]):
    """A player's cards in a finished hand; the down cards null where they are withheld
    (ST-10)."""

    seat = serializers.IntegerField()
    up = serializers.ListField(child=serializers.CharField())
    down = serializers.ListField(child=serializers.CharField(), allow_null=True)
    folded = serializers.BooleanField()
    showdown = serializers.ChoiceField(choices=["shown", "mucked"], allow_null=True)
    shown_after_the_hand = serializers.BooleanField()


class StudHandSerializer(peer_serializers.PeerHandSerializer):
    hands = StudHandCardsSerializer(many=True, required=False)
