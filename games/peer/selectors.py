"""Read queries over the peer games' tables (seven-card stud, Drawmaha)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db.models import Sum

from games.models import Round, RoundStatus, Seat, SeatStatus, SeedPair, SeedPairStatus, Table


@dataclass(frozen=True)
class PeerTable:
    """What a peer table shows beside its own fields: who sits there, in seat order, the hand
    being played, and the commitment of the next hand's server seed (FS-2)."""

    seats: list[Seat]
    running: Round | None
    next_hand_commitment: str | None


def peer_table(table: Table) -> PeerTable:
    seats = list(
        Seat.objects.filter(table=table)
        .exclude(status=SeatStatus.LEFT)
        .select_related("player")
        .order_by("number")
    )
    running = Round.objects.filter(table=table, status=RoundStatus.DECIDING).first()
    next_pair = SeedPair.objects.filter(table=table, status=SeedPairStatus.CURRENT).first()
    return PeerTable(seats, running, next_pair.commitment if next_pair else None)


def chips_at_tables(player_id: int) -> dict[str, Decimal]:
    """The chips the player holds at peer tables now, by currency (their play session's net
    result counts them as theirs)."""
    held = (
        Seat.objects.filter(player_id=player_id)
        .exclude(status=SeatStatus.LEFT)
        .values("table__currency")
        .annotate(chips=Sum("chips"))
    )
    return {row["table__currency"]: row["chips"] for row in held}


def own_sitting(table: Table, user: Any) -> Seat | None:
    """The user's sitting at the table, while it lasts (None once cashed out)."""
    if not user.is_authenticated:
        return None
    return Seat.objects.filter(table=table, player=user).exclude(status=SeatStatus.LEFT).first()


def peer_dealt_cards(
    round_: Round, events: Iterable[tuple[str, Any]] | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A finished stud or Drawmaha hand's cards off the deck, each with its shuffle and deck
    position, and its reshuffles (ST-9, DM-7) with the cards each returned, for anyone to
    recompute every shuffle from the revealed seed (FS-6, FS-7). Nothing while it is played.
    ``events`` are the hand's (kind, data) as the viewer may see them (default: all): a card
    without its deck position is not listed."""
    if round_.status != RoundStatus.SETTLED:
        return [], []
    dealt: list[dict[str, Any]] = []
    reshuffles: list[dict[str, Any]] = []
    if events is None:
        events = round_.events.order_by("sequence").values_list("kind", "data")
    for kind, data in events:
        if kind == "reshuffle":
            reshuffles.append({"shuffle": data["shuffle"], "returned": data["returned"]})
        else:
            dealt += _audited_cards(data)
    return dealt, reshuffles


def _audited_cards(data: Any) -> Iterator[dict[str, Any]]:
    """The dealt cards an event records with their audit entry (``dealt_card_json``, or a burn
    or common card with ``positions``), wherever in the event they sit."""
    if isinstance(data, dict):
        if "card" in data and "shuffle" in data:
            position = data["position"] if "position" in data else data["positions"][0]
            yield {"shuffle": data["shuffle"], "position": position, "card": data["card"]}
            return
        data = list(data.values())
    if isinstance(data, list):
        for item in data:
            yield from _audited_cards(item)
