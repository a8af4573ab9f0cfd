"""What every game engine shares: the rule-violation error, hand-history events and the card
notation used in their JSON."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from games.engine.cards import Card, parse_card


class RuleViolation(ValueError):
    """An action the rules do not allow; ``field`` and ``rule`` say which and why."""

    def __init__(self, message: str, *, field: str, rule: str) -> None:
        super().__init__(f"{message} ({rule})")
        self.message = message
        self.field = field
        self.rule = rule


class OutOfTurn(RuleViolation):
    """An action by a seat whose turn it is not; seats by engine number (the tables number their
    seats their own way, so they word this for people)."""

    def __init__(self, *, to_act: int, acting: int, rule: str, verb: str = "acts") -> None:
        super().__init__(f"seat {to_act} {verb} now, not seat {acting}", field="seat", rule=rule)
        self.to_act = to_act
        self.acting = acting
        self.verb = verb


@dataclass(frozen=True)
class Event:
    """Something that happened, for the hand history: a kind and its facts (JSON-ready)."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


def cards_to_json(cards: Iterable[Card]) -> list[str]:
    return [str(card) for card in cards]


def cards_from_json(texts: Iterable[str]) -> tuple[Card, ...]:
    return tuple(parse_card(text) for text in texts)


def clockwise(seats: Iterable[int], first: int, count: int) -> tuple[int, ...]:
    """`seats` in clockwise order starting at `first`, at a table of `count` seats."""
    return tuple(sorted(seats, key=lambda seat: (seat - first) % count))


def dealt_card_json(card: Card, audit: Mapping[str, Any], **facts: Any) -> dict[str, Any]:
    """One dealt card for the hand history, with its shuffle and deck position (FS-7)."""
    return {
        **facts,
        "card": str(card),
        "shuffle": audit["shuffle"],
        "position": audit["positions"][0],
    }
