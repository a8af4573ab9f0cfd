"""What the peer games' tables and hands (seven-card stud, Drawmaha) share over the API: the
seats, the frame of a hand in play and of a hand for recall, and the PHH file's own fields.

Each game's serializers fill in its cards and options; what a viewer may see of them is theirs.
The functions build the answers; the serializers below describe them to the API's schema, and
each game's serializers complete them with its cards.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.utils import timezone
from rest_framework import serializers

from games.engine.betting import ActionKind, LegalAction
from games.engine.common import Event
from games.models import Round, RoundStatus, Seat, SeatStatus, Table
from games.peer.hands import SERVICE_EVENTS, PeerHand, PeerState, from_cents
from games.peer.selectors import PeerTable, shown_server_seed
from games.tables.serializers import TableSerializer
from payouts.serializers import MoneyField

Hand = TypeVar("Hand", bound=PeerHand[PeerState])


def money(minor_units: int) -> str:
    return f"{from_cents(minor_units):.2f}"


def table_json(
    table: Table,
    seated: PeerTable,
    viewer: Any,
    hand_in_play: Callable[[Round, Any], dict[str, Any]],
) -> dict[str, Any]:
    """The table, its ``seated`` players and the running hand as ``viewer`` may see it
    (``hand_in_play``)."""
    seats, running = seated.seats, seated.running
    mine = next((s for s in seats if s.player_id == viewer.pk), None)
    return {
        **TableSerializer(table).data,
        "seats": [
            {
                "seat": s.number,
                "player": s.player.username,
                "chips": f"{s.chips:.2f}",
                "status": s.status,
                "auto_ante": s.auto_ante,
                "sat_out": s.sat_out_at is not None,
            }
            for s in seats
        ],
        "your_seat": mine.number if mine else None,
        "your_sitting": _sitting_json(mine) if mine else None,
        # The next hand's server seed, committed before its antes or blinds (FS-2).
        "next_hand_commitment": seated.next_hand_commitment,
        "hand": hand_in_play(running, viewer) if running else None,
    }


def _sitting_json(seat: Seat) -> dict[str, Any]:
    """The viewer's own sitting: sat out since when, cashed out when unless back, and the
    hands timed out in a row so far."""
    return {
        "seat": seat.number,
        "chips": f"{seat.chips:.2f}",
        "status": seat.status,
        "sat_out_at": seat.sat_out_at.isoformat() if seat.sat_out_at else None,
        "cash_out_at": seat.cash_out_at.isoformat() if seat.cash_out_at else None,
        "timeouts_in_a_row": seat.timeouts_in_a_row,
    }


def _players_json(
    hand: PeerHand[PeerState],
    viewer: Any,
    *,
    betting: bool,
    cards: Callable[[int, bool], dict[str, Any]],
) -> list[dict[str, Any]]:
    """The players of a game's stored ``hand`` in play, by engine seat: the game's ``cards``
    fields of the seat (true: the viewer's own), the chips, and the bet while ``betting``."""
    state = hand.state
    return [
        {
            "seat": number,
            **cards(seat, player_id == viewer.pk),
            "stack": money(chips.stack),
            "bet": money(state.betting.bets[seat] if betting else 0),
            "in_pot": money(chips.committed),
            "folded": chips.folded,
            "all_in": chips.all_in,
        }
        for seat, (number, player_id, chips) in enumerate(
            zip(hand.seats, hand.players, state.chips, strict=True)
        )
    ]


def hand_in_play_json(
    round_: Round,
    hand: PeerHand[PeerState],
    viewer: Any,
    *,
    table_cards: dict[str, Any],
    betting: bool,
    cards: Callable[[int, bool], dict[str, Any]],
    legal_actions: Callable[[], list[dict[str, Any]]],
) -> dict[str, Any]:
    """A game's stored ``hand`` in play as ``viewer`` may see it: the cards on the table, the
    players with their ``cards`` (``_players_json``) and, only for the viewer whose turn it is
    and only in time, the ``legal_actions``. Past the deadline the hand is ``overdue``: the
    player to act may no longer decide, and the timer is about to decide for them."""
    state = hand.state
    to_act = state.to_act
    overdue = round_.out_of_time(timezone.now())
    yours = to_act is not None and hand.players[to_act] == viewer.pk and not overdue
    return {
        "id": round_.pk,
        "nonce": round_.nonce,
        "commitment": round_.commitment,
        "client_seed": round_.client_seed,
        "street": state.street.value,
        **table_cards,
        "pot": money(sum(c.committed for c in state.chips)),
        "players": _players_json(hand, viewer, betting=betting, cards=cards),
        "to_act": None if to_act is None else hand.seats[to_act],
        "decision_deadline": round_.decision_deadline.isoformat()
        if round_.decision_deadline
        else None,
        "overdue": overdue,
        "legal_actions": legal_actions() if yours else [],
    }


def betting_option_json(option: LegalAction) -> dict[str, Any]:
    return {
        "action": option.kind.value,
        "min_amount": money(option.min_amount),
        "max_amount": money(option.max_amount),
        "all_in": option.all_in,
    }


def hand_json(
    round_: Round,
    load_hand: Callable[[dict[str, Any]], Hand],
    viewer: Any,
    table_cards: Callable[[Hand], dict[str, Any]] = lambda hand: {},
) -> dict[str, Any]:
    """A hand for recall: while it is played, only what the commitment publishes; once it is
    over, every event, and the seed as far as ``viewer`` may have it (FS-7b), with the game's
    ``table_cards`` of the hand."""
    data: dict[str, Any] = {
        "id": round_.pk,
        "table": round_.table_id,
        "nonce": round_.nonce,
        "state": round_.status,
        "commitment": round_.commitment,
        "client_seed": round_.client_seed,
        "created_at": round_.created_at.isoformat(),
    }
    if round_.status != RoundStatus.SETTLED:
        return data
    hand = load_hand(round_.engine_state)
    data.update(
        server_seed=shown_server_seed(round_, viewer),
        settled_at=round_.settled_at.isoformat() if round_.settled_at else None,
        seats=list(hand.seats),
        **table_cards(hand),
        starting_stacks=[money(s) for s in hand.state.starting_stacks],
        finishing_stacks=[money(s) for s in hand.state.finishing_stacks or ()],
        rake=money(hand.state.rake),
        events=[
            {"sequence": e.sequence, "kind": e.kind, "data": e.data}
            for e in round_.events.order_by("sequence")
        ],
    )
    return data


def engine_events(round_: Round) -> list[Event]:
    """The hand's history as the engine wrote it, without the services' own events."""
    return [
        Event(kind, data)
        for kind, data in round_.events.order_by("sequence").values_list("kind", "data")
        if kind not in SERVICE_EVENTS
    ]


def history_extra(
    round_: Round,
    hand: PeerHand[PeerState],
    recorded: dict[str, Any],
    viewer: Any,
    **rake_terms: Any,
) -> dict[str, Any]:
    """The PHH file's fields beyond the game's: the seats, the shuffle's seeds (the server seed
    only as far as ``viewer`` may have it, FS-7b), the rake (with the game's ``rake_terms``)
    and the table, user-defined (PHH: names starting with _)."""
    return {
        **recorded,
        "seats": list(hand.seats),
        "_table": round_.table.name,
        "_table_id": round_.table_id,
        "_hand": round_.nonce,
        # Left out until the viewer may have it (FS-7b): TOML has no null.
        **({"_server_seed": seed} if (seed := shown_server_seed(round_, viewer)) else {}),
        "_client_seed": round_.client_seed,
        "_commitment": round_.commitment,
        "_rake": hand.state.rake,
        **rake_terms,
        "_currency": round_.table.currency,
    }


# The answers' shapes: fields an answer holds only in some states are not required.


class PeerSeatSerializer(serializers.Serializer[None]):
    """A seat at a peer table as everyone sees it."""

    seat = serializers.IntegerField()
    player = serializers.CharField()
    chips = MoneyField()
    status = serializers.ChoiceField(choices=SeatStatus.choices)
    auto_ante = serializers.BooleanField()
    sat_out = serializers.BooleanField()


class PeerSittingSerializer(serializers.Serializer[None]):
    """The viewer's own sitting: sat out since when, cashed out when unless back, and the hands
    timed out in a row so far."""

    seat = serializers.IntegerField()
    chips = MoneyField()
    status = serializers.ChoiceField(choices=SeatStatus.choices)
    sat_out_at = serializers.DateTimeField(allow_null=True)
    cash_out_at = serializers.DateTimeField(allow_null=True)
    timeouts_in_a_row = serializers.IntegerField()


class PeerPlayerSerializer(serializers.Serializer[None]):
    """A player of the hand in play, by seat: the chips (the game adds the cards)."""

    seat = serializers.IntegerField()
    stack = MoneyField()
    bet = MoneyField(help_text="The player's bet this betting round.")
    in_pot = MoneyField()
    folded = serializers.BooleanField()
    all_in = serializers.BooleanField()


class BettingOptionSerializer(serializers.Serializer[None]):
    """A legal betting action of the player to act, with the total bets it allows."""

    action = serializers.ChoiceField(choices=[kind.value for kind in ActionKind])
    min_amount = MoneyField()
    max_amount = MoneyField()
    all_in = serializers.BooleanField()


class PeerHandInPlaySerializer(serializers.Serializer[None]):
    """The hand being played as the viewer may see it; the game declares its ``street``, its
    ``players`` with their cards and its ``legal_actions``."""

    id = serializers.IntegerField()
    nonce = serializers.IntegerField()
    commitment = serializers.CharField()
    client_seed = serializers.CharField()
    pot = MoneyField()
    to_act = serializers.IntegerField(allow_null=True, help_text="The seat whose turn it is.")
    decision_deadline = serializers.DateTimeField(allow_null=True)


class PeerTableSerializer(TableSerializer):
    """A peer table, who sits there and the running hand (the game declares ``hand``)."""

    seats = PeerSeatSerializer(many=True)
    your_seat = serializers.IntegerField(allow_null=True)
    your_sitting = PeerSittingSerializer(allow_null=True)
    next_hand_commitment = serializers.CharField(
        allow_null=True, help_text="The next hand's server seed, committed before it (FS-2)."
    )

    class Meta:
        model = Table
        fields = (
            *TableSerializer.Meta.fields,
            "seats",
            "your_seat",
            "your_sitting",
            "next_hand_commitment",
            "hand",
        )


class HandEventSerializer(serializers.Serializer[None]):
    """One event of a finished hand's history; its data is the event kind's own."""

    sequence = serializers.IntegerField()
    kind = serializers.CharField()

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        # Declared as a class attribute, ``data`` would hide the serializer's own.
        return {**super().get_fields(), "data": serializers.DictField()}


class PeerHandSerializer(serializers.Serializer[None]):
    """A hand for recall: while it is played, what the commitment publishes; once it is over,
    its history, and its server seed when the viewer may have it (FS-7b), else null."""

    id = serializers.IntegerField()
    table = serializers.IntegerField()
    nonce = serializers.IntegerField()
    state = serializers.ChoiceField(choices=RoundStatus.choices)
    commitment = serializers.CharField()
    client_seed = serializers.CharField()
    created_at = serializers.DateTimeField()
    server_seed = serializers.CharField(required=False, allow_null=True)
    settled_at = serializers.DateTimeField(required=False, allow_null=True)
    seats = serializers.ListField(child=serializers.IntegerField(), required=False)
    starting_stacks = serializers.ListField(child=MoneyField(), required=False)
    finishing_stacks = serializers.ListField(child=MoneyField(), required=False)
    rake = MoneyField(required=False)
    events = HandEventSerializer(many=True, required=False)
