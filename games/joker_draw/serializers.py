"""What a joker draw round looks like over the API, to whom.

Before settlement nobody sees the deck, and only the round's own player sees the box cards;
afterwards every card and the results are open to the player and to staff. The server seed is
shown once the player rotates the round's seed pair (FS-7): then anyone can recompute the deck.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.engine import joker_draw
from games.engine.hands import evaluate
from games.joker_draw import explain
from games.models import Round, RoundStatus
from games.tables.hand_names import hand_name
from payouts.models import PaytableVersion
from payouts.serializers import AmountField, MoneyField

JOKER_DRAW_ACTIONS = ["fold", "bet", "exchange"]  # a box's decisions


def _version(version: PaytableVersion | None) -> dict[str, Any] | None:
    if version is None:
        return None
    return {"id": version.pk, "paytable": version.paytable.name, "version": version.number}


def round_json(
    round_: Round, viewer: Any, *, state: joker_draw.RoundState | None = None
) -> dict[str, Any]:
    """The round as `viewer` may see it. `state` is its engine state when the caller holds it
    as objects (a service's result), else it is read from the stored form."""
    if state is None:
        state = joker_draw.from_json(round_.engine_state)
    settled = round_.status == RoundStatus.SETTLED
    shows_cards = settled or viewer.pk == round_.player_id
    to_act = state.to_act if round_.status == RoundStatus.DECIDING else None
    results = {result.box: result for result in state.results}
    boxes = []
    for box in state.boxes:
        shown: dict[str, Any] = {
            "box": box.number,
            "cards": [str(card) for card in box.cards] if shows_cards else None,
            "ante": f"{box.ante:.2f}",
            "bet": f"{box.bet:.2f}" if box.bet is not None else None,
            "bonus": f"{box.bonus:.2f}" if box.bonus is not None else None,
            "exchanges": box.exchanges,
            "status": box.status.value,
        }
        if shows_cards:
            # The hand named while the player decides, in the reader's language.
            shown["hand_name"] = hand_name(evaluate(box.cards))
        if settled:
            result = results[box.number]
            shown.update(
                initial_cards=[str(card) for card in box.initial_cards],
                category=result.category,
                hand=result.hand,
                bet_line=result.bet_line,
                bonus_line=result.bonus_line,
                result={
                    "ante": f"{result.ante:.2f}",
                    "bet": f"{result.bet:.2f}",
                    "bonus": f"{result.bonus:.2f}",
                    "total": f"{result.total:.2f}",
                },
                explanation=explain.box_lines(box, result, state),
            )
        boxes.append(shown)
    data: dict[str, Any] = {
        "id": round_.pk,
        "table": round_.table_id,
        "player": round_.player.username if round_.player else None,
        "state": round_.status,
        "commitment": round_.commitment,
        "client_seed": round_.client_seed,
        "nonce": round_.nonce,
        "paytable_version": {
            "bet": _version(round_.bet_paytable_version),
            "bonus": _version(round_.bonus_paytable_version),
        },
        "to_act": {"box": to_act.number, "options": list(to_act.options())} if to_act else None,
        "decision_deadline": round_.decision_deadline.isoformat()
        if to_act and round_.decision_deadline
        else None,
        "boxes": boxes,
        "created_at": round_.created_at.isoformat(),
    }
    if settled:
        dealer = state.dealer_value
        assert dealer is not None  # noqa: S101 - a settled round has the dealer's final hand
        data.update(
            settled_at=round_.settled_at.isoformat() if round_.settled_at else None,
            dealer={
                "cards": [str(card) for card in state.dealer_initial],
                "discarded": [str(card) for card in state.dealer_discarded],
                "final": [str(card) for card in state.dealer_final],
                "category": dealer.category,
                "hand": dealer.name,
                "hand_name": hand_name(dealer),
                "qualifies": joker_draw.dealer_qualifies(dealer),
            },
        )
    # Shown with the round's seed pair once rotated, never before the round is over (FS-7).
    server_seed = round_.revealed_server_seed() if round_.is_over else None
    if server_seed:
        data["server_seed"] = server_seed
    if round_.status == RoundStatus.VOIDED:
        data["void_reason"] = round_.void_reason
        data["explanation"] = explain.voided_line()
    return data


class BoxStakeSerializer(serializers.Serializer[None]):
    box = serializers.IntegerField(min_value=1, max_value=joker_draw.MAX_BOXES)
    ante = AmountField()
    bonus = AmountField(required=False, allow_null=True)


class OpenRoundSerializer(serializers.Serializer[None]):
    table = serializers.IntegerField()
    client_seed = serializers.CharField(
        max_length=64,
        required=False,
        allow_blank=False,
        help_text="Your client seed from this round on (as PUT /api/v1/me/seeds/ sets it).",
    )
    boxes = BoxStakeSerializer(many=True, allow_empty=False)


class RoundActionSerializer(serializers.Serializer[None]):
    box = serializers.IntegerField(min_value=1, max_value=joker_draw.MAX_BOXES)
    action = serializers.ChoiceField(choices=JOKER_DRAW_ACTIONS)
    cards = serializers.ListField(
        child=serializers.CharField(max_length=2), required=False, max_length=5, default=list
    )


# The answers' shapes: fields an answer holds only in some states are not required.


class PaytableVersionRefSerializer(serializers.Serializer[None]):
    """The paytable version a round is paid by."""

    id = serializers.IntegerField()
    paytable = serializers.CharField()
    version = serializers.IntegerField()


class RoundPaytablesSerializer(serializers.Serializer[None]):
    bet = PaytableVersionRefSerializer(allow_null=True)
    bonus = PaytableVersionRefSerializer(allow_null=True)


class BoxResultSerializer(serializers.Serializer[None]):
    """A settled box's net results for the player, signed."""

    ante = MoneyField()
    bet = MoneyField()
    bonus = MoneyField()
    total = MoneyField()


class JokerDrawBoxSerializer(serializers.Serializer[None]):
    """A box as the viewer may see it: its cards and their hand only to the round's player
    before settlement (else null and left out); its settlement once the round is settled."""

    box = serializers.IntegerField()
    cards = serializers.ListField(child=serializers.CharField(), allow_null=True)
    ante = MoneyField()
    bet = MoneyField(allow_null=True)
    bonus = MoneyField(allow_null=True)
    exchanges = serializers.IntegerField()
    status = serializers.ChoiceField(choices=[status.value for status in joker_draw.BoxStatus])
    hand_name = serializers.CharField(required=False)
    initial_cards = serializers.ListField(child=serializers.CharField(), required=False)
    category = serializers.CharField(required=False)
    hand = serializers.CharField(required=False)
    bet_line = serializers.CharField(required=False, allow_null=True)
    bonus_line = serializers.CharField(required=False, allow_null=True)
    result = BoxResultSerializer(required=False)
    explanation = serializers.ListField(child=serializers.CharField(), required=False)


class BoxToActSerializer(serializers.Serializer[None]):
    box = serializers.IntegerField()
    options = serializers.ListField(child=serializers.ChoiceField(choices=JOKER_DRAW_ACTIONS))


class DealerHandSerializer(serializers.Serializer[None]):
    """The dealer's hand of a settled round: dealt, discarded, final, and whether it
    qualifies."""

    cards = serializers.ListField(child=serializers.CharField())
    discarded = serializers.ListField(child=serializers.CharField())
    final = serializers.ListField(child=serializers.CharField())
    category = serializers.CharField()
    hand = serializers.CharField()
    hand_name = serializers.CharField()
    qualifies = serializers.BooleanField()


class JokerDrawRoundSerializer(serializers.Serializer[None]):
    """A round as the viewer may see it: the dealer once settled, the server seed once the
    round's seed pair is rotated (FS-7), the void's reason once voided."""

    id = serializers.IntegerField()
    table = serializers.IntegerField()
    player = serializers.CharField(allow_null=True)
    state = serializers.ChoiceField(choices=RoundStatus.choices)
    commitment = serializers.CharField()
    client_seed = serializers.CharField()
    nonce = serializers.IntegerField()
    paytable_version = RoundPaytablesSerializer()
    to_act = BoxToActSerializer(allow_null=True)
    decision_deadline = serializers.DateTimeField(allow_null=True)
    boxes = JokerDrawBoxSerializer(many=True)
    created_at = serializers.DateTimeField()
    settled_at = serializers.DateTimeField(required=False, allow_null=True)
    dealer = DealerHandSerializer(required=False)
    server_seed = serializers.CharField(required=False)
    void_reason = serializers.CharField(required=False)
    explanation = serializers.CharField(required=False)


class TrainerOptionSerializer(serializers.Serializer[None]):
    """An option with its expected value in original antes; an exchange with the cards it
    keeps."""

    action = serializers.ChoiceField(choices=JOKER_DRAW_ACTIONS)
    keep = serializers.ListField(child=serializers.CharField(), required=False)
    ev = serializers.FloatField()


class TrainerAdviceSerializer(serializers.Serializer[None]):
    """The trainer's advice for a deciding box: the best option first."""

    round = serializers.IntegerField()
    box = serializers.IntegerField()
    exchanges = serializers.IntegerField()
    decision = serializers.ChoiceField(choices=JOKER_DRAW_ACTIONS)
    keep = serializers.ListField(child=serializers.CharField(), required=False)
    options = TrainerOptionSerializer(many=True)
