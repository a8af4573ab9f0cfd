"""What a peer game's stored hand is (seven-card stud, Drawmaha), for the services that play it
and for the serializers and selectors that read it: the hand's shape, the events the services
write around the engine's own, and the engine's money in minor units.
"""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum
from typing import Any, Protocol, TypeVar

from games.engine.betting import BettingRound, Chips
from payouts.models import CENT


class HouseEvent(StrEnum):
    """What the house records in a peer hand's history around the engine's own events: not
    replayed, but kept in the history."""

    HAND_OPENED = "hand_opened"
    TIMED_OUT = "timed_out"
    LEFT_TABLE = "left_table"
    # A player out of time on the table's number of hands in a row, sat out from the next hand.
    SAT_OUT = "sat_out"


SERVICE_EVENTS = frozenset(HouseEvent)
UNKNOWN_CARD = "??"  # the PHH standard's card nobody may see


def to_cents(amount: Decimal) -> int:
    """Money to the engine's integer minor units, exactly (a fraction of a cent is an error)."""
    value = amount / CENT
    if value != value.to_integral_value():
        raise ValueError(f"{amount} is not a whole number of cents")
    return int(value)


def from_cents(minor_units: int) -> Decimal:
    return (Decimal(minor_units) * CENT).quantize(CENT)


class PeerState(Protocol):
    """What the shared code reads of a peer game's engine state, by engine seat."""

    @property
    def betting(self) -> BettingRound: ...

    @property
    def chips(self) -> tuple[Chips, ...]: ...

    @property
    def in_hand(self) -> tuple[int, ...]: ...

    @property
    def to_act(self) -> int | None: ...

    @property
    def street(self) -> StrEnum: ...

    @property
    def starting_stacks(self) -> tuple[int, ...]: ...

    @property
    def finishing_stacks(self) -> tuple[int, ...] | None: ...

    @property
    def rake(self) -> int: ...


State = TypeVar("State", bound=PeerState, covariant=True)


class PeerHand(Protocol[State]):
    """A hand as a peer game stores it in ``Round.engine_state``: the engine ``state`` and, by
    engine seat, the table ``seats``, the ``players`` in them and the ``seat_ids`` of their
    sittings (a ``Seat`` row: a player who sits down again is a new sitting)."""

    @property
    def state(self) -> State: ...

    @property
    def seats(self) -> tuple[int, ...]: ...

    @property
    def players(self) -> tuple[int, ...]: ...

    @property
    def seat_ids(self) -> tuple[int, ...]: ...

    def to_json(self) -> dict[str, Any]: ...
