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

from games.engine import drawmaha, phh_drawmaha
from games.engine.betting import LegalAction
from games.engine.common import Event, cards_to_json
from games.engine.drawmaha import DrawOption
from games.models import Round, RoundStatus, Seat, SeatStatus, Table
from games.serializers import TableSerializer
from games.services.drawmaha import ACTIONS, SERVICE_EVENTS, Hand
from games.services.peer_tables import from_cents
from payouts.serializers import AmountField


def _money(minor_units: int) -> str:
    return f"{from_cents(minor_units):.2f}"


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
    exchanges = {exchange.seat: exchange for exchange in state.exchanges}
    betting = state.street not in (drawmaha.Street.DRAW, drawmaha.Street.OVER)
    players = []
    for seat, (number, player_id) in enumerate(zip(hand.seats, hand.players, strict=True)):
        cards, chips = state.hands[seat], state.chips[seat]
        exchange = exchanges.get(seat)
        # A twist card is shown while the player decides and kept if taken; rejected, mucked.
        twist = exchange.twist if exchange and exchange.twist_taken is not False else None
        players.append(
            {
                "seat": number,
                "cards": cards_to_json(cards) if player_id == viewer.pk else None,
                "card_count": len(cards),
                "exchanged": None if exchange is None else len(exchange.discards),
                "twist": None if twist is None else str(twist),
                "stack": _money(chips.stack),
                "bet": _money(state.betting.bets[seat] if betting else 0),
                "in_pot": _money(chips.committed),
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
        "button": hand.button,
        "board": cards_to_json(state.board),
        "pot": _money(sum(c.committed for c in state.chips)),
        "players": players,
        "to_act": None if to_act is None else hand.seats[to_act],
        "decision_deadline": round_.decision_deadline.isoformat()
        if round_.decision_deadline
        else None,
        "legal_actions": [_option_json(o) for o in drawmaha.legal_actions(state)] if yours else [],
    }


def _option_json(option: LegalAction | DrawOption) -> dict[str, Any]:
    """A betting option with its pot-limit amounts (DM-9), or a draw choice (DM-5, DM-6)."""
    if isinstance(option, LegalAction):
        return {
            "action": option.kind.value,
            "min_amount": _money(option.min_amount),
            "max_amount": _money(option.max_amount),
            "all_in": option.all_in,
        }
    if option.kind == drawmaha.DrawChoice.EXCHANGE:
        return {"action": option.kind.value, "max_cards": option.max_cards}
    return {"action": option.kind.value, "card": str(option.card)}


def hand_json(round_: Round) -> dict[str, Any]:
    """A Drawmaha hand for recall: while it is played, only what the commitment publishes; once
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
        button=hand.button,
        board=cards_to_json(hand.state.board),
        starting_stacks=[_money(s) for s in hand.state.starting_stacks],
        finishing_stacks=[_money(s) for s in hand.state.finishing_stacks or ()],
        rake=_money(hand.state.rake),
        events=[
            {"sequence": e.sequence, "kind": e.kind, "data": e.data}
            for e in round_.events.order_by("sequence")
        ],
    )
    return data


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


def hand_history(round_: Round) -> phh_drawmaha.DrawmahaHandHistory:
    """A finished hand in the PHH standard (variant PDM), with the shuffle's seeds, the rake and
    the table as user-defined fields (PHH: names starting with an underscore)."""
    hand = Hand.from_json(round_.engine_state)
    events = [
        Event(kind, data)
        for kind, data in round_.events.order_by("sequence").values_list("kind", "data")
        if kind not in SERVICE_EVENTS
    ]
    recorded = phh_drawmaha.record(hand.state, events)
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
        "_currency": round_.table.currency,
    }
    return replace(recorded, extra=extra)
