"""Poker hand ranking (HR-1..HR-10), one hand at a time and in numpy batches.

Every five-card hand has a ``HandValue``: an ``int`` strength, ``category << 20`` plus the
tie-break ranks four bits each, most significant first, so comparing values compares hands.
Values are interned, so equal hands (HR-2, HR-9) share one object, and the batch evaluator
returns the very same strengths.

The tables are built at import from rank multisets, not by enumerating hands: 5-rank multisets
and 4-rank multisets plus the joker for hands not all of one suit; 5 distinct ranks and 4
distinct ranks plus the joker for suited hands. Adding five cards (see ``games.engine.cards``)
gives a suit-code sum, which picks the suited or the unsuited table, and a rank-weight sum, which
is the key in it: a hand is one sum and two lookups, or a few array gathers in a batch.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from itertools import combinations, combinations_with_replacement, permutations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from games.engine.cards import ALL_CARDS, RANK_WEIGHTS, SUIT_BITS, SUIT_CODES, Card, parse_card

CATEGORIES: tuple[str, ...] = (
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "five_of_a_kind",
)
"""Category names, weakest first; a category's code (``category_of_strength``) is its index."""
(
    HIGH_CARD,
    PAIR,
    TWO_PAIR,
    THREE_OF_A_KIND,
    STRAIGHT,
    FLUSH,
    FULL_HOUSE,
    FOUR_OF_A_KIND,
    STRAIGHT_FLUSH,
    FIVE_OF_A_KIND,
) = range(len(CATEGORIES))

_CATEGORY_SHIFT = 20  # five 4-bit tie-break ranks fit below the category
_TIE_BREAK_COUNTS = (5, 4, 3, 3, 1, 5, 2, 2, 1, 1)  # tie-break ranks per category
_ACE = 14
_JACK = 11
_DEUCE = 2
_RANKS_DOWN = tuple(range(_ACE, 1, -1))
_WEIGHT = dict(zip(range(2, 15), RANK_WEIGHTS[:13], strict=True))
_JOKER_WEIGHT = RANK_WEIGHTS[13]
_SUIT_MASK = (1 << SUIT_BITS) - 1
_RANK_NAMES = {
    2: ("Two", "Twos"),
    3: ("Three", "Threes"),
    4: ("Four", "Fours"),
    5: ("Five", "Fives"),
    6: ("Six", "Sixes"),
    7: ("Seven", "Sevens"),
    8: ("Eight", "Eights"),
    9: ("Nine", "Nines"),
    10: ("Ten", "Tens"),
    11: ("Jack", "Jacks"),
    12: ("Queen", "Queens"),
    13: ("King", "Kings"),
    14: ("Ace", "Aces"),
}

_NAMES = (
    "{one} high",
    "Pair of {many}",
    "Two pair, {many} and {second}",
    "Three of a kind, {many}",
    "Straight, {one} high",
    "Flush, {one} high",
    "Full house, {many} full of {second}",
    "Four of a kind, {many}",
    "Straight flush, {one} high",
    "Five of a kind, {many}",
)


class HandValue(int):
    """The value of a five-card hand: an ``int`` strength, so ``<``, ``==`` and hashing compare
    hands (suits never break ties, HR-1) and a batch of strengths is a plain int array.

    ``HandValue(strength)`` returns the interned value for a strength from ``evaluate_batch``.
    ``ranks`` are the ranks that decide ties within the category, in order: pair of kings with
    9 5 3 is ``(13, 9, 5, 3)``, a straight its top card, the wheel ``(5,)``.
    """

    __slots__ = ()

    def __new__(cls, strength: int) -> HandValue:
        try:
            return _VALUES[strength]
        except (KeyError, TypeError):
            raise ValueError(f"no five-card hand has strength {strength!r}") from None

    @property
    def strength(self) -> int:
        return int(self)

    @property
    def category(self) -> str:
        return CATEGORIES[self >> _CATEGORY_SHIFT]

    @property
    def ranks(self) -> tuple[int, ...]:
        count = _TIE_BREAK_COUNTS[self >> _CATEGORY_SHIFT]
        return tuple(self >> (16 - 4 * place) & 0xF for place in range(count))

    @property
    def is_royal(self) -> bool:
        """Ace-high straight flush, joker or not (HR-10)."""
        return self >> 16 == (STRAIGHT_FLUSH << 4 | _ACE)

    @property
    def name(self) -> str:
        """Readable name: "Pair of Kings", "Flush, Jack high", "Royal flush"."""
        if self.is_royal:
            return "Royal flush"
        ranks = self.ranks
        one, many = _RANK_NAMES[ranks[0]]
        second = _RANK_NAMES[ranks[1]][1] if len(ranks) > 1 else ""
        return _NAMES[self >> _CATEGORY_SHIFT].format(one=one, many=many, second=second)

    def __str__(self) -> str:
        return self.name

    def __format__(self, spec: str) -> str:
        return format(self.name, spec)

    def __repr__(self) -> str:
        return f"HandValue({int(self):#x}: {self.name})"

    def __reduce__(self) -> tuple[type[HandValue], tuple[int]]:
        return HandValue, (int(self),)


def _strength(category: int, ranks: tuple[int, ...]) -> int:
    strength = category << _CATEGORY_SHIFT
    for place, rank in enumerate(ranks):
        strength |= rank << (16 - 4 * place)
    return strength


def _straight_top(ranks: tuple[int, ...]) -> int:
    """Top card of the straight made by five distinct ranks, highest first; 0 if none.

    The wheel A-2-3-4-5 is the lowest straight, five high (HR-1).
    """
    if ranks[0] - ranks[4] == 4:
        return ranks[0]
    if ranks == (_ACE, 5, 4, 3, 2):
        return 5
    return 0


def _without(*ranks: int) -> tuple[int, ...]:
    return tuple(rank for rank in _RANKS_DOWN if rank not in ranks)


def _unsuited_hands() -> Iterator[tuple[tuple[int, ...], int]]:
    """(ranks, strength) for each multiset of five ranks in cards not all of one suit (HR-1)."""
    for five in combinations(_RANKS_DOWN, 5):
        top = _straight_top(five)
        yield five, _strength(STRAIGHT, (top,)) if top else _strength(HIGH_CARD, five)
    for pair in _RANKS_DOWN:
        for kickers in combinations(_without(pair), 3):
            yield (pair, pair, *kickers), _strength(PAIR, (pair, *kickers))
    for high, low in combinations(_RANKS_DOWN, 2):
        for kicker in _without(high, low):
            yield (high, high, low, low, kicker), _strength(TWO_PAIR, (high, low, kicker))
    for trips in _RANKS_DOWN:
        for side_cards in combinations(_without(trips), 2):
            yield (
                (trips, trips, trips, *side_cards),
                _strength(THREE_OF_A_KIND, (trips, *side_cards)),
            )
    for big, small in permutations(_RANKS_DOWN, 2):
        yield (big, big, big, small, small), _strength(FULL_HOUSE, (big, small))
        yield (big, big, big, big, small), _strength(FOUR_OF_A_KIND, (big, small))


def _suited_hands() -> Iterator[tuple[tuple[int, ...], int]]:
    """(ranks, strength) for each set of five ranks in one suit (HR-1)."""
    for five in combinations(_RANKS_DOWN, 5):
        top = _straight_top(five)
        yield five, _strength(STRAIGHT_FLUSH, (top,)) if top else _strength(FLUSH, five)


def _suited_joker_hands() -> Iterator[tuple[tuple[int, ...], int]]:
    """(ranks, strength) for each set of four ranks in one suit plus the joker."""
    for four in combinations(_RANKS_DOWN, 4):
        # HR-8: a straight flush is a straight, so the joker makes the highest one it can ...
        top = max(
            _straight_top(tuple(sorted((*four, rank), reverse=True))) for rank in _without(*four)
        )
        if top:
            yield four, _strength(STRAIGHT_FLUSH, (top,))
        else:
            # ... and otherwise, HR-7, it counts as a deuce in the flush.
            yield four, _strength(FLUSH, tuple(sorted((*four, _DEUCE), reverse=True)))


def _weight(ranks: Iterable[int]) -> int:
    return sum(map(_WEIGHT.__getitem__, ranks))


def _enter(table: dict[int, int], key: int, strength: int) -> None:
    if key in table:
        raise RuntimeError(f"card rank weights collide on key {key}: fix RANK_WEIGHTS")
    table[key] = strength


def _build_tables() -> tuple[dict[int, int], dict[int, int]]:
    """Strength by rank-weight sum, for hands not all of one suit and for suited hands."""
    unsuited: dict[int, int] = {}
    suited: dict[int, int] = {}
    for ranks, strength in _unsuited_hands():
        _enter(unsuited, _weight(ranks), strength)
    for ranks, strength in _suited_hands():
        _enter(suited, _weight(ranks), strength)
    naturals = dict(unsuited)
    for four in combinations_with_replacement(_RANKS_DOWN, 4):
        key = _weight(four)
        if four[0] == four[3]:
            # HR-6: four of a kind plus the joker is five of a kind.
            strength = _strength(FIVE_OF_A_KIND, (four[0],))
        else:
            # HR-6: the joker is whichever rank makes the best hand, category first then ranks.
            strength = max(naturals[key + _WEIGHT[rank]] for rank in _RANKS_DOWN)
        _enter(unsuited, key + _JOKER_WEIGHT, strength)
    for ranks, strength in _suited_joker_hands():
        _enter(suited, _weight(ranks) + _JOKER_WEIGHT, strength)
    # Repeated cards (a rank five times, two jokers) must miss both tables, not alias a hand.
    impossible = [5 * weight for weight in _WEIGHT.values()] + [
        jokers * _JOKER_WEIGHT + _weight(others)
        for jokers in range(2, 6)
        for others in combinations_with_replacement(_RANKS_DOWN, 5 - jokers)
    ]
    if not (unsuited.keys().isdisjoint(impossible) and suited.keys().isdisjoint(impossible)):
        raise RuntimeError("an impossible hand has a hand's key: fix RANK_WEIGHTS")
    return unsuited, suited


def _one_suit_sums() -> frozenset[int]:
    """Suit-code sums of five cards of one suit, the joker matching any; no mix of suits adds
    up to one of them."""
    *suits, joker = SUIT_CODES
    one_suit = {5 * code for code in suits} | {4 * code + joker for code in suits}
    mixed = {
        sum(codes) + joker * (len(codes) == 4)
        for size in (4, 5)
        for codes in combinations_with_replacement(suits, size)
        if len(set(codes)) > 1
    }
    if one_suit & mixed:
        raise RuntimeError("suit code sums cannot tell a flush: fix SUIT_CODES")
    return frozenset(one_suit)


_UNSUITED_STRENGTHS, _SUITED_STRENGTHS = _build_tables()
_VALUES = {
    strength: int.__new__(HandValue, strength)
    for strength in {*_UNSUITED_STRENGTHS.values(), *_SUITED_STRENGTHS.values()}
}
_UNSUITED = {key: _VALUES[strength] for key, strength in _UNSUITED_STRENGTHS.items()}
_SUITED = {key: _VALUES[strength] for key, strength in _SUITED_STRENGTHS.items()}
_ONE_SUIT_SUMS = _one_suit_sums()
# The table for each suit-code sum (the low SUIT_BITS of five cards added up).
_TABLE_BY_SUITS = [
    _SUITED if suits in _ONE_SUIT_SUMS else _UNSUITED for suits in range(1 << SUIT_BITS)
]
_CARD_SET = frozenset(ALL_CARDS)
_PAIR = PAIR << _CATEGORY_SHIFT


def evaluate(cards: Sequence[Card]) -> HandValue:
    """Value of exactly five distinct cards, at most one of them the joker (HR-1, HR-6..HR-9).

    ValueError saying what is wrong otherwise: a count other than five, a repeated card or two
    jokers, text (parse it with ``parse_cards`` first) or other objects. The fast path does not
    check the type of items that are ints (Cards are ints); small ints such as FS-1 positions
    never add up to a hand and are refused.
    """
    try:
        a, b, c, d, e = cards
        total = a + b + c + d + e
        value = _TABLE_BY_SUITS[total & _SUIT_MASK][total >> SUIT_BITS]
        # A repeated card misses the suited table (its ranks are all distinct) and shows as a
        # repeated rank in the unsuited one, so high cards, half of all hands, skip the set.
        if value < _PAIR or len({a, b, c, d, e}) == 5:
            return value
    except (TypeError, ValueError, KeyError):
        pass
    raise _invalid(cards, "evaluate", "exactly 5 cards", range(5, 6))


def best_hand(cards: Sequence[Card]) -> HandValue:
    """Best five of five to seven distinct cards, at most one the joker (HR-3)."""
    try:
        hand = tuple(cards)
        valid = 5 <= len(hand) <= 7 and len(_CARD_SET.intersection(hand)) == len(hand)
    except TypeError:
        valid = False
    if not valid:
        raise _invalid(cards, "best_hand", "5 to 7 cards", range(5, 8))
    return max(map(_lookup, map(sum, combinations(hand, 5))))


def strong_holding(cards: Sequence[Card]) -> bool:
    """Whether a holding is ahead of most others with as many cards: two pair or better in
    five cards, three of a kind or better in six or seven, and with fewer than five (early
    stud streets) three of a kind, two pair or a pair of jacks or better. The collusion report
    asks it of a folded hand: such a fold is rare."""
    hand = tuple(cards)
    if len(hand) >= 5:
        needed = TWO_PAIR if len(hand) == 5 else THREE_OF_A_KIND
        return best_hand(hand) >> _CATEGORY_SHIFT >= needed
    ranks = [card.rank for card in hand if card.rank is not None]
    pairs = sorted({rank for rank in ranks if ranks.count(rank) >= 2}, reverse=True)
    return (
        any(ranks.count(rank) >= 3 for rank in ranks)
        or len(pairs) >= 2
        or bool(pairs and pairs[0] >= _JACK)
    )


def best_omaha(hole: Sequence[Card], board: Sequence[Card]) -> HandValue:
    """Best hand of exactly two of the four or five hole cards and exactly three of the three to
    five board cards (HR-4): a flush or straight on the board alone does not play."""
    try:
        hole_cards, board_cards = tuple(hole), tuple(board)
        both = hole_cards + board_cards
        valid = (
            4 <= len(hole_cards) <= 5
            and 3 <= len(board_cards) <= 5
            and len(_CARD_SET.intersection(both)) == len(both)
        )
    except TypeError:
        valid = False
    if not valid:
        raise _invalid_omaha(hole, board)
    threes = [sum(three) for three in combinations(board_cards, 3)]
    return max(_lookup(sum(two) + three) for two in combinations(hole_cards, 2) for three in threes)


def _lookup(total: int) -> HandValue:
    """The value of five distinct cards (already checked) that add up to ``total``."""
    return _TABLE_BY_SUITS[total & _SUIT_MASK][total >> SUIT_BITS]


def _invalid(cards: object, caller: str, needed: str, counts: range) -> ValueError:
    """The ValueError saying why ``cards`` is not a hand (the slow path, after a failure)."""
    items = _items(cards, caller, needed, counts)
    return items if isinstance(items, ValueError) else _invalid_items(items, caller)


def _invalid_omaha(hole: object, board: object) -> ValueError:
    items: list[object] = []
    for part, cards, counts in (("hole", hole, range(4, 6)), ("board", board, range(3, 6))):
        needed = f"{counts.start} to {counts.stop - 1} {part} cards"
        part_items = _items(cards, "best_omaha", needed, counts)
        if isinstance(part_items, ValueError):
            return part_items
        items += part_items
    return _invalid_items(items, "best_omaha")


def _items(cards: object, caller: str, needed: str, counts: range) -> list[object] | ValueError:
    """The items of ``cards``, or the error if it is not a collection of the right size."""
    if isinstance(cards, str):
        return ValueError(f"{caller} takes Card objects, got the text {cards!r}: use parse_cards")
    if not isinstance(cards, Iterable):
        return ValueError(f"{caller} takes a sequence of Card objects, got {cards!r}")
    items = list(cards)
    if len(items) not in counts:
        return ValueError(f"{caller} needs {needed}, got {len(items)}")
    return items


def _invalid_items(items: list[object], caller: str) -> ValueError:
    texts = [item for item in items if isinstance(item, str)]
    for text in texts:
        try:
            parse_card(text)
        except ValueError as error:
            return ValueError(f"{caller}: {error}")
    if texts:
        return ValueError(f"{caller} takes Card objects, got the text {texts[0]!r}: use parse_card")
    seen: set[object] = set()
    for item in items:
        if not isinstance(item, Card):
            return ValueError(f"{caller} takes Card objects, got {item!r}")
        if item in seen:
            if item.is_joker:
                return ValueError(f"{caller}: two jokers; a hand holds at most one")
            return ValueError(f"{caller}: duplicate card {item}")
        seen.add(item)
    return ValueError(f"{caller}: not a valid hand: {items!r}")


# Batch evaluation: the same card ints and tables as arrays, indexed by FS-1 position.
_BATCH_CARDS = np.array(ALL_CARDS, dtype=np.int32)
_BATCH_TABLE_SIZE = 4 * RANK_WEIGHTS[12] + _JOKER_WEIGHT + 1
# Where each suit-code sum's table starts in the batch table: the suited half comes second.
_BATCH_OFFSET_BY_SUITS = np.array(
    [_BATCH_TABLE_SIZE * (table is _SUITED) for table in _TABLE_BY_SUITS], dtype=np.int32
)


@cache  # built on first use: 4 MB that per-hand callers never need
def _batch_table() -> NDArray[np.int32]:
    """Strengths indexed by suited-half offset plus rank-weight sum; -1 where no hand."""
    table = np.full(2 * _BATCH_TABLE_SIZE, -1, dtype=np.int32)
    for offset, strengths in ((0, _UNSUITED_STRENGTHS), (_BATCH_TABLE_SIZE, _SUITED_STRENGTHS)):
        table[np.fromiter(strengths, dtype=np.int64) + offset] = list(strengths.values())
    return table


def evaluate_batch(hands: ArrayLike) -> NDArray[np.int32]:
    """Strengths (as ``HandValue``'s int) of an (N, 5) array of FS-1 card positions (52 = joker).

    ValueError for a wrong shape, a position outside 0..52 or a row repeating a card.
    """
    array = np.asarray(hands)
    if array.ndim != 2 or array.shape[1] != 5 or array.dtype.kind not in "iu":
        raise ValueError(
            "evaluate_batch needs an (N, 5) integer array of card positions, "
            f"got shape {array.shape} of {array.dtype}"
        )
    if array.size == 0:
        return np.empty(0, dtype=np.int32)
    if array.min() < 0 or array.max() >= len(ALL_CARDS):
        raise ValueError("evaluate_batch: card positions must be 0..52 (52 is the joker)")
    columns = np.ascontiguousarray(array.T, dtype=np.uint8)
    distinct = np.logical_and.reduce(
        [columns[first] != columns[second] for first, second in combinations(range(5), 2)]
    )
    if not distinct.all():
        row = int(np.argmin(distinct))
        raise ValueError(f"evaluate_batch: row {row} repeats a card: {columns[:, row].tolist()}")
    total = _BATCH_CARDS.take(columns[0])
    for column in columns[1:]:
        total += _BATCH_CARDS.take(column)
    offset = _BATCH_OFFSET_BY_SUITS.take(total & _SUIT_MASK)
    total >>= SUIT_BITS
    total += offset
    return _batch_table().take(total)


def category_of_strength(strengths: ArrayLike) -> NDArray[np.uint8]:
    """Category codes (indices into ``CATEGORIES``) of an array of strengths."""
    return (np.asarray(strengths) >> _CATEGORY_SHIFT).astype(np.uint8)


def all_hands(jokers: int = 0) -> NDArray[np.uint8]:
    """Every five-card hand of the deck as an (N, 5) array of FS-1 positions, in the order of
    ``itertools.combinations`` over the canonical deck: the exact census used to price
    paytables (JD-14) and to test the evaluator."""
    if jokers not in (0, 1) or isinstance(jokers, bool):
        raise ValueError(f"jokers must be 0 or 1, got {jokers!r}")
    size = 52 + jokers
    # rows: every k-combination in lexicographic order; starts[f]: first row whose first card
    # is >= f. A (k+1)-combination is a first card f followed by a k-combination starting > f.
    rows = np.arange(size, dtype=np.uint8)[:, np.newaxis]
    starts = np.arange(size + 1)
    for _ in range(4):
        blocks = []
        for first in range(size):
            tails = rows[starts[first + 1] :]
            blocks.append(np.column_stack((np.full(len(tails), first, np.uint8), tails)))
        starts = np.concatenate(([0], np.cumsum([len(block) for block in blocks])))
        rows = np.concatenate(blocks)
    return rows
