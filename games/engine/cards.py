"""Playing cards: notation, the canonical deck order (FS-1) and the card encoding.

Notation: rank ``23456789TJQKA`` then suit ``cdhs`` (``As``, ``Td``, ``2c``); the joker is ``JK``.

A ``Card`` is an ``int`` built for fast hand evaluation (``games.engine.hands``):

    value = RANK_WEIGHTS[rank] << SUIT_BITS | SUIT_CODES[suit]

with the joker as a fourteenth rank and a fifth suit code. Adding five cards gives, above
``SUIT_BITS``, a weight sum that is different for every multiset of ranks a hand can hold (and
never equal to that of an impossible one: a rank five times, two jokers), and below it a suit-code
sum that tells whether the five share one suit, the joker matching any. Both were found once by
a search; ``hands`` re-checks them when it builds its tables. Five cards add up to less than
2**27, so evaluation stays in small-int arithmetic (and fits numpy's int32).

As the weights grow with rank and the suit codes follow ``c < d < h < s``, ordering cards as ints
is the FS-1 canonical order: ``sorted(cards)`` puts cards in canonical order.

There are exactly 53 ``Card`` objects (interned): ``parse_card``, ``Card(text)``, copying and
unpickling all return them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

RANKS = "23456789TJQKA"
SUITS = "cdhs"
JOKER_TEXT = "JK"

RANK_WEIGHTS = (1, 2, 7, 32, 109, 367, 927, 2287, 5734, 12906, 27317, 44677, 94546, 147032)
"""Evaluation weight of each rank, deuce to ace, then the joker. None is 0, so a handful of
small ints (FS-1 positions passed by mistake) never adds up to a hand."""
SUIT_CODES = (1, 2, 12, 13, 7)
"""Evaluation code of each suit, c d h s, then the joker."""
SUIT_BITS = 7  # five suit codes sum to less than 2**7
_ALLOWED = (
    f"a card is a rank from {RANKS} followed by a suit from {SUITS} (e.g. 'As', 'Td'), "
    f"or '{JOKER_TEXT}' for the joker; cards in a list are separated by spaces"
)


class Card(int):
    """One of the 53 interned cards; an ``int`` carrying the evaluation encoding.

    ``rank`` is 2..14 (ace = 14) and ``None`` for the joker, so code that does rank arithmetic
    has to decide what the joker means instead of silently treating it as a number.
    ``suit`` is ``'c' | 'd' | 'h' | 's'``, ``None`` for the joker. ``index`` is the FS-1
    canonical position 0..52 (the joker is 52).
    """

    rank: int | None
    suit: str | None
    index: int
    is_joker: bool
    _text: str

    def __new__(cls, text: str) -> Card:
        # Card("As") returns the interned card, never a new object.
        return parse_card(text)

    @classmethod
    def _make(cls, value: int, text: str) -> Card:
        card = int.__new__(cls, value)
        card._text = text
        card.is_joker = text == JOKER_TEXT
        card.rank = None if card.is_joker else RANKS.index(text[0]) + 2
        card.suit = None if card.is_joker else text[1]
        return card

    def __str__(self) -> str:
        return self._text

    def __format__(self, spec: str) -> str:
        return format(self._text, spec)

    def __repr__(self) -> str:
        return f"Card({self._text!r})"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # Pickle and copy by notation so every process keeps one object per card.
        return parse_card, (self._text,)


def _build_deck() -> tuple[Card, ...]:
    cards = [
        Card._make(RANK_WEIGHTS[rank] << SUIT_BITS | SUIT_CODES[suit], RANKS[rank] + SUITS[suit])
        for rank in range(len(RANKS))
        for suit in range(len(SUITS))
    ]
    cards.append(Card._make(RANK_WEIGHTS[-1] << SUIT_BITS | SUIT_CODES[-1], JOKER_TEXT))
    for index, card in enumerate(cards):
        card.index = index
    return tuple(cards)


ALL_CARDS: tuple[Card, ...] = _build_deck()
"""The 53 cards in FS-1 canonical order: ``ALL_CARDS[card.index] is card``."""
JOKER: Card = ALL_CARDS[-1]
_BY_TEXT = {str(card): card for card in ALL_CARDS}


def parse_card(text: str) -> Card:
    """The card written ``text`` (``'As'``, ``'JK'``); ValueError naming the bad text otherwise."""
    try:
        return _BY_TEXT[text]
    except (KeyError, TypeError):
        raise ValueError(f"bad card {text!r}: {_ALLOWED}") from None


def parse_cards(text: str) -> list[Card]:
    """Cards written space-separated (``'As Kd JK'``); ``''`` is no cards.

    Raises ValueError for a bad card or a card written twice, naming it.
    """
    if not isinstance(text, str):
        raise ValueError(f"expected card notation text such as 'As Kd JK', got {text!r}")
    cards = [parse_card(word) for word in text.split()]
    _reject_duplicates(cards)
    return cards


def new_deck(jokers: int = 0) -> list[Card]:
    """A fresh deck in FS-1 canonical order: ``2c 2d 2h 2s 3c ... As``, then ``JK`` if asked."""
    if jokers not in (0, 1) or isinstance(jokers, bool):
        raise ValueError(f"jokers must be 0 or 1, got {jokers!r}")
    return list(ALL_CARDS[: 52 + jokers])


def _reject_duplicates(cards: Iterable[Card]) -> None:
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise ValueError(f"duplicate card {card}: each card is in the deck once")
        seen.add(card)
