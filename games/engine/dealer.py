"""The deck a peer game deals from, as an immutable value: dealing and reshuffling (FS-6) return a
new ``Deck``, so a game's state stays frozen and serialises to JSON.

A deck is either shuffled from the round's seeds (FS-2..FS-5), and then every reshuffle is made
by ``fairness.Shoe`` on the same byte stream (FS-6), replayed from the seeds and the earlier
reshuffles so that nothing but the seeds is kept; or stacked, a fixed order for tests and
hand-history replays, whose reshuffles put the returned cards and the rest in canonical order
(FS-1), after any cards the test or the history names to come first.

Positions for the audit trail count from the top of the order in use: ``shuffle`` 0 is the
deck as first shuffled, ``shuffle`` k the order after the k-th reshuffle.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from games.engine.cards import ALL_CARDS, Card
from games.engine.common import cards_from_json, cards_to_json
from games.engine.fairness import Shoe, deck_order

STANDARD_DECK = ALL_CARDS[:52]


@dataclass(frozen=True)
class ShoeSeeds:
    """What the shuffle is made from (FS-2, FS-3); the server seed stays secret until FS-7."""

    server_seed_hex: str
    client_seed: str
    nonce: int


@dataclass(frozen=True)
class Reshuffle:
    """An earlier reshuffle: how many cards had been dealt off the order then in use, and the
    cards returned to it."""

    dealt: int
    returned: tuple[Card, ...]


@dataclass(frozen=True)
class Deck:
    order: tuple[Card, ...]
    """The cards in the order in use, top first, dealt ones included."""
    dealt: int = 0
    """How many cards of ``order`` are dealt."""
    seeds: ShoeSeeds | None = None
    """The seeds of a shuffled deck; None for a stacked one."""
    reshuffles: tuple[Reshuffle, ...] = ()
    stacked_tops: tuple[tuple[Card, ...], ...] = ()
    """A stacked deck only: for each reshuffle to come, the cards it puts on top."""

    @classmethod
    def shuffled(cls, server_seed_hex: str, client_seed: str, nonce: int) -> Deck:
        """The 52-card deck shuffled by FS-5 from the round's seeds."""
        seeds = ShoeSeeds(server_seed_hex, client_seed, nonce)
        return cls(order=tuple(deck_order(server_seed_hex, client_seed, nonce)), seeds=seeds)

    @classmethod
    def stacked(cls, top: Iterable[Card], reshuffle_tops: Iterable[Iterable[Card]] = ()) -> Deck:
        """A fixed 52-card deck: ``top`` first, then every other card in canonical order.
        ``reshuffle_tops`` names, for each reshuffle in turn, the cards it puts on top."""
        cards = tuple(top)
        if len(set(cards)) != len(cards) or not set(cards) <= set(STANDARD_DECK):
            raise ValueError("a stacked deck names each of the 52 cards at most once")
        rest = tuple(card for card in STANDARD_DECK if card not in set(cards))
        return cls(order=cards + rest, stacked_tops=tuple(tuple(t) for t in reshuffle_tops))

    @property
    def remaining(self) -> int:
        return len(self.order) - self.dealt

    @property
    def shuffle_number(self) -> int:
        """0 for the first shuffle, k after the k-th reshuffle: the positions' frame."""
        return len(self.reshuffles)

    def deal(self, count: int) -> tuple[Deck, tuple[Card, ...]]:
        """The next ``count`` cards off the top, and the deck without them."""
        if count < 0 or count > self.remaining:
            raise ValueError(f"cannot deal {count} cards: {self.remaining} left")
        cards = self.order[self.dealt : self.dealt + count]
        return replace(self, dealt=self.dealt + count), cards

    def reshuffle(self, returned: Iterable[Card]) -> Deck:
        """The undealt cards and ``returned`` (dealt cards) shuffled together (FS-6)."""
        cards = tuple(returned)
        undealt = self.order[self.dealt :]
        if len(set(cards)) != len(cards) or set(cards) & set(undealt):
            raise ValueError("a reshuffle returns dealt cards, each once")
        if self.seeds is None:
            order = self._stacked_reshuffle(cards, undealt)
        else:
            order = self._seeded_reshuffle(self.seeds, cards)
        return replace(
            self,
            order=order,
            dealt=0,
            reshuffles=(*self.reshuffles, Reshuffle(self.dealt, cards)),
        )

    def _seeded_reshuffle(self, seeds: ShoeSeeds, returned: tuple[Card, ...]) -> tuple[Card, ...]:
        shoe = Shoe(seeds.server_seed_hex, seeds.client_seed, seeds.nonce)
        # Replaying the earlier deals and reshuffles brings the byte stream to where it was.
        for earlier in self.reshuffles:
            shoe.deal(earlier.dealt)
            shoe.reshuffle(earlier.returned)
        shoe.deal(self.dealt)
        shoe.reshuffle(returned)
        return tuple(shoe.deal(shoe.remaining))

    def _stacked_reshuffle(
        self, returned: tuple[Card, ...], undealt: tuple[Card, ...]
    ) -> tuple[Card, ...]:
        # Every card of a stacked deck starts in it, so any card not undealt was dealt.
        if not set(returned) <= set(STANDARD_DECK):
            raise ValueError("a reshuffle returns only cards dealt from this deck")
        pool = set(returned) | set(undealt)
        index = len(self.reshuffles)
        tops = self.stacked_tops[index] if index < len(self.stacked_tops) else ()
        if not set(tops) <= pool:
            raise ValueError(
                f"the stacked reshuffle puts {' '.join(cards_to_json(tops))} on top, "
                "but not all of them are among the reshuffled cards"
            )
        return tuple(tops) + tuple(sorted(pool - set(tops)))


def deck_to_json(deck: Deck) -> dict[str, Any]:
    return {
        "order": cards_to_json(deck.order),
        "dealt": deck.dealt,
        "seeds": None
        if deck.seeds is None
        else {
            "server_seed_hex": deck.seeds.server_seed_hex,
            "client_seed": deck.seeds.client_seed,
            "nonce": deck.seeds.nonce,
        },
        "reshuffles": [
            {"dealt": r.dealt, "returned": cards_to_json(r.returned)} for r in deck.reshuffles
        ],
        "stacked_tops": [cards_to_json(tops) for tops in deck.stacked_tops],
    }


def deck_from_json(data: Mapping[str, Any]) -> Deck:
    seeds = data["seeds"]
    return Deck(
        order=cards_from_json(data["order"]),
        dealt=data["dealt"],
        seeds=None if seeds is None else ShoeSeeds(**seeds),
        reshuffles=tuple(
            Reshuffle(r["dealt"], cards_from_json(r["returned"])) for r in data["reshuffles"]
        ),
        stacked_tops=tuple(cards_from_json(tops) for tops in data["stacked_tops"]),
    )


def positions(deck: Deck, count: int) -> dict[str, Any]:
    """Where the next ``count`` cards come from, for the audit trail."""
    start = deck.dealt
    return {"shuffle": deck.shuffle_number, "positions": list(range(start, start + count))}
