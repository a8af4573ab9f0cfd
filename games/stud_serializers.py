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

from games.engine import phh, stud
from games.engine.common import Event, cards_to_json
from games.models import Round, RoundStatus, Seat, SeatStatus, Table
from games.serializers import TableSerializer
from games.services.peer_tables import from_cents
from games.services.stud import ACTIONS, SERVICE_EVENTS, Hand
from payouts.serializers import AmountField


def table_json(table: Table, viewer: Any) -> dict[str, Any]:
    seats = list(
        Seat.objects.filter(table=table)
        .exclude(status=SeatStatus.LEFT)
        .select_related("player")
        .order_by("number")
    )
    running = Round.objects.filter(table=table, status=RoundStatus.DECIDING).first()
    mine = next((s for s in seats if s.player_id == viewer.pk), None)
    return {
        **TableSerializer(table).data,
        "seats": [
            {
                "seat": s.number,
                "player": s.player.username,
                "chips": f"{s.chips:.2f}",
                "status": s.status,
            }
            for s in seats
        ],
        "your_seat": mine.number if mine else None,
        "hand": hand_in_play_json(running, viewer) if running else None,
    }


def hand_in_play_json(round_: Round, viewer: Any) -> dict[str, Any]:
    hand = Hand.from_json(round_.engine_state)
    state = hand.state
    betting = state.street not in (stud.Street.SHOWDOWN, stud.Street.OVER)
    players = []
    for seat, (number, player_id) in enumerate(zip(hand.seats, hand.players, strict=True)):
        cards, chips = state.hands[seat], state.chips[seat]
        open_cards = player_id == viewer.pk or cards.shown
        players.append(
            {
                "seat": number,
                "down": cards_to_json(cards.down) if open_cards else None,
                "down_count": len(cards.down),
                "up": cards_to_json(cards.up),
                "stack": f"{from_cents(chips.stack):.2f}",
                "bet": f"{from_cents(state.betting.bets[seat] if betting else 0):.2f}",
                "in_pot": f"{from_cents(chips.committed):.2f}",
                "folded": chips.folded,
                "all_in": chips.all_in,
            }
        )
    to_act = state.to_act
    yours = to_act is not None and hand.players[to_act] == viewer.pk
    return {
        "id": round_.pk,
        "nonce": round_.nonce,
        "commitment": round_.commitment,
        "client_seed": round_.client_seed,
        "street": state.street.value,
        "common_card": None if state.common is None else str(state.common),
        "pot": f"{from_cents(sum(c.committed for c in state.chips)):.2f}",
        "players": players,
        "to_act": None if to_act is None else hand.seats[to_act],
        "decision_deadline": round_.decision_deadline.isoformat()
        if round_.decision_deadline
        else None,
        "legal_actions": [
            {
                "action": option.kind.value,
                "min_amount": f"{from_cents(option.min_amount):.2f}",
                "max_amount": f"{from_cents(option.max_amount):.2f}",
                "all_in": option.all_in,
            }
            for option in stud.legal_actions(state)
        ]
        if yours
        else [],
    }


def hand_json(round_: Round) -> dict[str, Any]:
    """A stud hand for recall: while it is played, only what the commitment publishes; once
    it is over, the seed and every event."""
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
    hand = Hand.from_json(round_.engine_state)
    data.update(
        server_seed=round_.server_seed,
        settled_at=round_.settled_at.isoformat() if round_.settled_at else None,
        seats=list(hand.seats),
        starting_stacks=[f"{from_cents(s):.2f}" for s in hand.state.starting_stacks],
        finishing_stacks=[f"{from_cents(s):.2f}" for s in hand.state.finishing_stacks or ()],
        rake=f"{from_cents(hand.state.rake):.2f}",
        events=[
            {"sequence": e.sequence, "kind": e.kind, "data": e.data}
            for e in round_.events.order_by("sequence")
        ],
    )
    return data


def hand_history(round_: Round) -> phh.HandHistory:
    """A finished hand in the PHH standard (F7S), with the shuffle's seeds, the rake and the
    table as user-defined fields (PHH: names starting with an underscore)."""
    hand = Hand.from_json(round_.engine_state)
    events = [
        Event(kind, data)
        for kind, data in round_.events.order_by("sequence").values_list("kind", "data")
        if kind not in SERVICE_EVENTS
    ]
    recorded = phh.record(hand.state, events)
    rake = hand.state.table.rake
    extra = {
        **recorded.extra,
        "seats": list(hand.seats),
        "_table": round_.table.name,
        "_table_id": round_.table_id,
        "_hand": round_.nonce,
        "_server_seed": round_.server_seed,
        "_client_seed": round_.client_seed,
        "_commitment": round_.commitment,
        "_rake": hand.state.rake,
        "_rake_percent": str(rake.percent),
        **({} if rake.cap is None else {"_rake_cap": rake.cap}),
        "_currency": round_.table.currency,
    }
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
