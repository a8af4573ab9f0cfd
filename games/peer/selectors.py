"""Read queries over the peer games' tables (seven-card stud, Drawmaha)."""

from __future__ import annotations

from dataclasses import dataclass

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
