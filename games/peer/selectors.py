"""Read queries over the peer games' tables (seven-card stud, Drawmaha), and a finished hand's
pots and the hands that won them, for every page and report that names them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, cast

from django.db.models import Sum
from django.utils.translation import gettext

from casino.roles import AUDITOR
from games.engine.betting import PeerEvent
from games.engine.drawmaha import DrawmahaState
from games.engine.hands import HandValue
from games.engine.stud import StudState
from games.models import Round, RoundStatus, Seat, SeatStatus, SeedPair, SeedPairStatus, Table
from games.peer.hands import PeerState


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


def shown_server_seed(round_: Round, viewer: Any) -> str | None:
    """A hand's server seed as ``viewer`` may have it. A peer hand's seed recomputes the folded
    hands that ST-10 keeps hidden (FS-7b): once the hand is over it goes at once to auditors,
    and to a player dealt into it once that player has left the table (every hand played there
    becomes verifiable then); to nobody else, pit staff included. A joker draw round's is its
    player's seed pair's (FS-7)."""
    seed = round_.revealed_server_seed()
    if seed is None or round_.player_id is not None:
        return seed
    if not viewer.is_authenticated:
        return None
    if viewer.groups.filter(name=AUDITOR).exists():
        return seed
    if viewer.pk not in round_.engine_state.get("players", ()):
        return None
    left = Seat.objects.filter(
        table_id=round_.table_id,
        player=viewer,
        status=SeatStatus.LEFT,
        left_at__gte=round_.created_at,
    )
    return seed if left.exists() else None


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
        if kind == PeerEvent.RESHUFFLE:
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


def pot_name(number: int) -> str:
    return gettext("Main pot") if number == 0 else gettext("Side pot %(n)s") % {"n": number}


def pot_part_name(number: int, part: str | None) -> str:
    """A pot, or the half of it a Drawmaha award is for (DM-11)."""
    pot = pot_name(number)
    if part == "draw":
        return gettext("%(pot)s, draw half") % {"pot": pot}
    if part == "omaha":
        return gettext("%(pot)s, Omaha half") % {"pot": pot}
    return pot


def awarded_hand(state: PeerState, part: str | None, seat: int) -> HandValue:
    """The hand a pot (or its half, DM-11) was awarded to at the showdown: stud's best five
    (HR-3), Drawmaha's draw or Omaha reading."""
    if isinstance(state, DrawmahaState):
        return state.draw_value(seat) if part == "draw" else state.omaha_value(seat)
    return cast(StudState, state).value(seat)
