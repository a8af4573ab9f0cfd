"""A Drawmaha hand as it is stored and read: the hand beside its engine state, the actions a
player may send, the forced bets and the engine's view of a table's limits. The services play
hands with it; the serializers, the selectors and the replay read them."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, cast

from games.engine import drawmaha
from games.engine.betting import ActionKind, Rake
from games.engine.drawmaha import DrawChoice
from games.models import TableLimits
from games.peer.hands import to_cents

BETTING = (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BET, ActionKind.RAISE)
DRAW_CHOICES = tuple(choice.value for choice in DrawChoice)
ACTIONS = tuple(kind.value for kind in BETTING) + DRAW_CHOICES
# DM-1: into the pot before any decision
FORCED = frozenset({drawmaha.DrawmahaEvent.SMALL_BLIND, drawmaha.DrawmahaEvent.BIG_BLIND})


@dataclass(frozen=True)
class Hand:
    """A hand as stored in ``Round.engine_state``: the engine state and, by engine seat (table
    seats in clockwise order), the table seat numbers, the players in them and the ids of their
    sittings (a ``Seat`` row: a player who sits down again is a new sitting)."""

    state: drawmaha.DrawmahaState
    seats: tuple[int, ...]
    players: tuple[int, ...]
    seat_ids: tuple[int, ...]

    @property
    def button(self) -> int:
        """The table seat number of the button."""
        return self.seats[self.state.button]

    def to_json(self) -> dict[str, Any]:
        return {
            "seats": list(self.seats),
            "players": list(self.players),
            "seat_ids": list(self.seat_ids),
            "state": drawmaha.to_json(self.state),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Hand:
        return cls(
            drawmaha.from_json(data["state"]),
            tuple(data["seats"]),
            tuple(data["players"]),
            # Hands settled before seats were told apart by sitting have none; no stack of
            # theirs moves any more.
            tuple(data.get("seat_ids", ())),
        )


def engine_table(limits: TableLimits) -> drawmaha.DrawmahaTable:
    """The engine's view of a Drawmaha table's approved limits (DM-1, DM-5, DM-12)."""
    rake = Rake(
        Decimal(limits.rake_percent or 0),
        None if limits.rake_cap is None else to_cents(limits.rake_cap),
    )
    return drawmaha.DrawmahaTable(
        to_cents(cast(Decimal, limits.small_blind)),
        to_cents(cast(Decimal, limits.big_blind)),
        rake,
        draw_limit=bool(limits.draw_limit),
    )
