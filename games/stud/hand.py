"""A seven-card stud hand as it is stored and read: the hand beside its engine state, the
actions a player may send, the forced bets and the engine's view of a table's limits. The
services play hands with it; the serializers, the selectors and the replay read them."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, cast

from games.engine import stud
from games.engine.betting import ActionKind, Rake
from games.models import TableLimits
from games.peer.hands import to_cents

ACTIONS = tuple(kind.value for kind in ActionKind)
FORCED = frozenset({stud.StudEvent.ANTE})  # forced bets into the pot before any decision (ST-2)


@dataclass(frozen=True)
class Hand:
    """A hand as stored in ``Round.engine_state``: the engine state and, by engine seat (seat 0
    is the dealer's left, ST-2), the table seat numbers, the players in them and the ids of their
    sittings (a ``Seat`` row: a player who sits down again is a new sitting)."""

    state: stud.StudState
    seats: tuple[int, ...]
    players: tuple[int, ...]
    seat_ids: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "seats": list(self.seats),
            "players": list(self.players),
            "seat_ids": list(self.seat_ids),
            "state": stud.to_json(self.state),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Hand:
        return cls(
            stud.from_json(data["state"]),
            tuple(data["seats"]),
            tuple(data["players"]),
            # Hands settled before seats were told apart by sitting have none; no stack of
            # theirs moves any more.
            tuple(data.get("seat_ids", ())),
        )


def engine_table(limits: TableLimits) -> stud.StudTable:
    """The engine's view of a stud table's approved limits (ST-1, ST-5, ST-13)."""
    amounts = (limits.ante, limits.bring_in, limits.small_bet, limits.big_bet)
    ante, bring_in, small_bet, big_bet = (to_cents(cast(Decimal, a)) for a in amounts)
    rake = Rake(
        Decimal(limits.rake_percent or 0),
        None if limits.rake_cap is None else to_cents(limits.rake_cap),
    )
    return stud.StudTable(
        ante,
        bring_in,
        small_bet,
        big_bet,
        rake,
        open_pair_big_bet=limits.open_pair_big_bet is not False,
    )
