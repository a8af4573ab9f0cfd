"""What every game engine shares: the rule-violation error, hand-history events and the card
notation used in their JSON."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from games.engine.cards import Card, parse_card


class Amount(int):
    """Money in a refusal's wording, in the game's minor units: each language shows it as money
    where the refusal reaches a player."""


class Seat(int):
    """A seat in a refusal's wording, by the engine's number: the tables name their own seats."""


class RuleViolation(ValueError):
    """An action the rules do not allow; ``field`` and ``rule`` say which and why. ``template``
    names its facts (``%(amount)s``), given as ``params``: ``message`` is it filled in English,
    and where the refusal is answered it is filled in the player's language (the catalogues
    read the templates of ``RuleViolation`` and ``rule_text``)."""

    def __init__(self, message: str, *, field: str, rule: str, **params: Any) -> None:
        self.template = message
        self.params = params
        self.message = message % params if params else message
        self.field = field
        self.rule = rule
        super().__init__(f"{self.message} ({rule})")


def rule_text(template: str) -> str:
    """Marks a refusal's template chosen before ``RuleViolation`` is raised, for the catalogues."""
    return template


class OutOfTurn(RuleViolation):
    """An action by a seat whose turn it is not (``to_act`` and ``acting`` are its parameters)."""

    def __init__(self, *, to_act: int, acting: int, rule: str, message: str | None = None) -> None:
        super().__init__(
            message or rule_text("seat %(to_act)s acts now, not seat %(acting)s"),
            field="seat",
            rule=rule,
            to_act=Seat(to_act),
            acting=Seat(acting),
        )
        self.to_act = to_act
        self.acting = acting


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
