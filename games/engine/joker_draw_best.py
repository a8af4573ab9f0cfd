"""Best play of joker draw poker: every decision's value and the best one (JD-5..JD-11a).

A paytable's price is what the player's *best* strategy returns, so this module solves the game
for one box against the dealer: for each of the 2,869,685 five-card hands of the 53-card deck,
the expected value of every legal option at each decision (JD-5, JD-6, JD-7), in original antes.

The value of betting
--------------------
With final hand H, having seen the cards D (the dealt five, every card drawn, every card
discarded: none of them can be the dealer's), a bet with total ante a returns, net (JD-11):
``a * g(H, D)`` where ``g = q * P(no game) + (1 + 2 * odds(H)) * P(win) - 3 * P(lose)``, q the
``no_game`` line (JD-11a) and odds(H) the bet line that pays H (1:1 when unlisted). Folding
returns ``-a`` (JD-12). The probabilities are those of the dealer's final hand (five cards from
the unseen ones, then the fixed draw of JD-9 from the rest), which depend on D.

The dealer model
----------------
The dealer's final hand is estimated from a pool: every one of the 2,869,685 initial dealer
hands, each with ``draws`` independent draws of its replacements (JD-9), so the initial hand is
exact and only the replacements are sampled. A pool entry that touches a card of D cannot happen;
the others are reweighted to the smaller deck (importance sampling: an entry using m cards of the
53 weighs ``prod((53 - i) / (53 - n - i), i < m)`` when n cards are seen). Counting that for every
query would be slow, so the model keeps the effect of removing each card (first order) and each
pair of cards that interact strongly (the same rank, or the joker with a card) at second order,
by the dealer's final hand level; ``g(H, D)`` is the no-removal value plus those effects for the
cards of D. ``exact_bet_value`` counts the pool directly for a given D: the regret estimate
(``regret``) measures the model's decisions against it.

The solution
------------
``solve`` computes, for every hand, the value of the second decision with the box's own five
cards as the only cards seen (stage 2), and from those the first decision's values exactly: the
value of keeping K and drawing is the average of stage 2 over every replacement set, by
inclusion-exclusion over sums of stage-2 values of the hands containing each card subset (as
video poker solvers do). The third decision is taken on the fly with every card seen.
A ``Solution`` holds the first and second decisions per hand, the stage-2 values, and answers
``first_options`` (every option's value for one dealt hand) and ``later_options``.
"""

from __future__ import annotations

import hashlib
import io
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import cache, cached_property
from itertools import combinations, permutations
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

from games.engine import joker_draw
from games.engine.cards import ALL_CARDS, Card
from games.engine.hands import (
    PAIR,
    all_hands,
    category_of_strength,
    evaluate_batch,
)
from games.engine.joker_draw import (
    DEALER_QUALIFIES_FROM_RANK,
    HAND_SIZE,
    NO_GAME_LINE,
    ROYAL_FLUSH,
    Paytable,
    no_game_odds,
)
from games.engine.joker_draw_rtp import (
    BET,
    EXCHANGE,
    FOLD,
    Hands,
    dealer_discards_batch,
    odds_scale,
    ratio_spread99,
)

DECK = len(ALL_CARDS)
JOKER = DECK - 1
HANDS = math.comb(DECK, HAND_SIZE)
SOLVER_VERSION = 2  # part of every solution's digest: a changed method never reuses old tables
# Codes of the first decision: 1..31 exchange the cards whose bits are set (bit i is the i-th
# card of the hand in FS-1 order), then bet and fold. Second: exchange card 0..4, bet, fold.
FIRST_BET, FIRST_FOLD = 32, 33
SECOND_BET, SECOND_FOLD = 5, 6
_BINOMIAL = np.array(
    [[math.comb(n, k) for k in range(HAND_SIZE + 2)] for n in range(DECK + 1)], dtype=np.int64
)
_TOP_RANK_SHIFT = 16


def colex(cards: NDArray[np.integer]) -> NDArray[np.int64]:
    """The colex index of each row of ascending FS-1 positions (any number of columns)."""
    cards = np.asarray(cards, dtype=np.int64)
    return _BINOMIAL[cards, np.arange(1, cards.shape[-1] + 1)].sum(axis=-1)


@dataclass(frozen=True)
class _HandIndex:
    """Every five-card hand, row i the hand of colex index i (ascending positions), its
    strength and its level (the strength's place among every strength a hand can have), and its
    suit class: ``rep``, the colex index of the lowest hand a renaming of the suits makes of it,
    and ``slot_map``, the slot in this hand of the card that is the rep's i-th (JD-14a: suits
    never decide a hand's value, so a hand plays as its rep)."""

    cards: NDArray[np.uint8]
    strength: NDArray[np.int32]
    levels: NDArray[np.int32]  # the distinct strengths, ascending
    level: NDArray[np.int32]
    rep: NDArray[np.int32]
    slot_map: NDArray[np.uint8]

    def level_of(self, strength: NDArray[np.int32]) -> NDArray[np.int32]:
        return np.searchsorted(self.levels, strength).astype(np.int32)

    @cached_property
    def reps(self) -> NDArray[np.int64]:
        """The colex indices of the reps, ascending."""
        return np.unique(self.rep).astype(np.int64)


_SUIT_RENAMINGS = np.array(list(permutations(range(4))), dtype=np.int64)


@cache
def hand_index() -> _HandIndex:
    rows = all_hands(jokers=1)
    cards = np.empty_like(rows)
    cards[colex(rows)] = rows
    strength = evaluate_batch(cards)
    levels = np.unique(strength)
    rep = np.empty(HANDS, np.int32)
    slot_map = np.empty((HANDS, HAND_SIZE), np.uint8)
    _suit_classes(cards.astype(np.int64), _SUIT_RENAMINGS, _BINOMIAL, rep, slot_map)
    level = np.searchsorted(levels, strength).astype(np.int32)
    return _HandIndex(cards, strength, levels, level, rep, slot_map)


@numba.njit(cache=True)
def _suit_classes(cards, renamings, binomial, rep, slot_map):  # type: ignore[no-untyped-def]
    """Each hand's rep under the 24 renamings of the suits (the joker keeps its place) and the
    slots of this hand that become the rep's cards, in the rep's order."""
    renamed = np.empty(HAND_SIZE, np.int64)
    order = np.empty(HAND_SIZE, np.int64)
    for row in range(cards.shape[0]):
        best = -1
        for renaming in range(renamings.shape[0]):
            for slot in range(HAND_SIZE):
                card = cards[row, slot]
                renamed[slot] = (
                    card if card == JOKER else (card & ~3) | renamings[renaming, card & 3]
                )
                # insertion sort of the slots by their renamed card
                place = slot
                while place > 0 and renamed[order[place - 1]] > renamed[slot]:
                    order[place] = order[place - 1]
                    place -= 1
                order[place] = slot
            index = 0
            for place in range(HAND_SIZE):
                index += binomial[renamed[order[place]], place + 1]
            if best < 0 or index < best:
                best = index
                for place in range(HAND_SIZE):
                    slot_map[row, place] = order[place]
        rep[row] = best


def _qualifies(strength: NDArray[np.int32]) -> NDArray[np.bool_]:
    """JD-10: a pair of jacks or better."""
    category = category_of_strength(strength)
    top = (strength >> _TOP_RANK_SHIFT) & 0xF
    return (category > PAIR) | ((category == PAIR) & (top >= DEALER_QUALIFIES_FROM_RANK))


# The dealer model -----------------------------------------------------------------------------


def _interacting_pairs() -> list[tuple[int, int]]:
    """Pairs of cards whose joint removal changes the dealer's chances beyond the two single
    effects: two of one rank (the dealer's pairs and sets of it) and the joker with any card."""
    pairs = [(a, b) for a, b in combinations(range(JOKER), 2) if a >> 2 == b >> 2]
    return pairs + [(card, JOKER) for card in range(JOKER)]


PAIRS = tuple(_interacting_pairs())
_GENERIC, _NO_PAIR = len(PAIRS), len(PAIRS) + 1  # rows of the pair effects after PAIRS'


def _pair_index() -> NDArray[np.int32]:
    """The row of the pair effects for two cards: their own, or the generic one."""
    index = np.full((DECK, DECK), _GENERIC, np.int32)
    for number, (a, b) in enumerate(PAIRS):
        index[a, b] = index[b, a] = number
    return index


_PAIR_INDEX = _pair_index()


def removal_weight(seen: int, used: NDArray[np.integer]) -> NDArray[np.float64]:
    """The importance weight of a pool entry that used `used` cards of the full deck when `seen`
    cards are known not to be in it: P(its cards | the smaller deck) / P(its cards | all 53)."""
    used = np.asarray(used, dtype=np.int64)
    top = int(used.max(initial=0))
    factors = np.ones(top + 1)
    for m in range(1, top + 1):
        factors[m] = factors[m - 1] * (DECK - m + 1) / (DECK - seen - m + 1)
    return factors[used]


@dataclass(frozen=True)
class DealerPool:
    """Dealer outcomes: the cards each used (a bit per FS-1 position), how many, and the final
    hand's bin: 0 without a game (JD-10), else 1 + the level of the final hand."""

    used: NDArray[np.uint64]
    count: NDArray[np.uint8]
    bin: NDArray[np.int32]
    bins: int

    def avoiding(self, cards: Iterable[int]) -> NDArray[np.bool_]:
        mask = np.uint64(sum(1 << int(card) for card in set(cards)))
        return (self.used & mask) == 0

    def histogram(self, seen: Sequence[int]) -> NDArray[np.float64]:
        """The dealer's final bins when the cards `seen` are out of the deck: the exact count of
        the pool (entries touching a seen card dropped, the rest reweighted), normalised."""
        rows = self.avoiding(seen)
        weights = removal_weight(len(set(seen)), self.count[rows])
        counts = np.bincount(self.bin[rows], weights=weights, minlength=self.bins)
        return counts / counts.sum()


def dealer_pool(draws: int, seed: int, hands: int = HANDS) -> DealerPool:
    """Every initial dealer hand, `draws` times, in a random order of its cards (the order
    decides JD-9's rare ties), with replacements drawn from the 48 other cards; `hands` fewer
    than all takes a random sample of them instead (small pools, for tests)."""
    index = hand_index()
    rng = np.random.Generator(np.random.PCG64(seed))
    sample = np.arange(HANDS) if hands >= HANDS else rng.choice(HANDS, hands, replace=False)
    used_parts, count_parts, bin_parts = [], [], []
    for _ in range(draws):
        for start in range(0, len(sample), 1 << 19):
            initial = rng.permuted(index.cards[sample[start : start + (1 << 19)]], axis=1)
            discard = dealer_discards_batch(initial)
            keys = rng.random((len(initial), DECK), dtype=np.float32)
            np.put_along_axis(keys, initial.astype(np.int64), 2.0, axis=1)
            replacements = np.argsort(keys, axis=1)[:, :HAND_SIZE].astype(np.uint8)
            offsets: NDArray[np.int64] = np.cumsum(discard, axis=1) - discard
            drawn = np.take_along_axis(replacements, offsets, axis=1)
            final = np.where(discard, drawn, initial)
            strength = evaluate_batch(final)
            bits = np.uint64(1) << initial.astype(np.uint64)
            used = np.bitwise_or.reduce(bits, axis=1)
            drawn_bits = np.where(discard, np.uint64(1) << drawn.astype(np.uint64), np.uint64(0))
            used |= np.bitwise_or.reduce(drawn_bits, axis=1)
            used_parts.append(used)
            count_parts.append((HAND_SIZE + discard.sum(axis=1)).astype(np.uint8))
            bin_parts.append(np.where(_qualifies(strength), index.level_of(strength) + 1, 0))
    return DealerPool(
        np.concatenate(used_parts),
        np.concatenate(count_parts),
        np.concatenate(bin_parts).astype(np.int32),
        len(index.levels) + 1,
    )


@dataclass(frozen=True)
class DealerModel:
    """The dealer's final bins with nothing removed, with each card removed and with each
    interacting pair removed (``PAIRS``), as normalised histograms; ``generic`` is the average
    second-order effect of removing two cards that do not interact (it is small, but there are
    many such pairs among eleven seen cards)."""

    none: NDArray[np.float64]  # (bins,)
    single: NDArray[np.float64]  # (53, bins)
    pair: NDArray[np.float64]  # (len(PAIRS), bins)
    generic: NDArray[np.float64]  # (bins,): H(a, b) - H(a) - H(b) + H(none), averaged
    entries: int

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        np.savez_compressed(
            buffer,
            none=self.none,
            single=self.single,
            pair=self.pair,
            generic=self.generic,
            entries=self.entries,
        )
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> DealerModel:
        with np.load(io.BytesIO(data)) as arrays:
            return cls(
                arrays["none"],
                arrays["single"],
                arrays["pair"],
                arrays["generic"],
                int(arrays["entries"]),
            )


GENERIC_PAIRS = 200  # sampled pairs that do not interact, for ``DealerModel.generic``


def build_dealer_model(pool: DealerPool, seed: int) -> DealerModel:
    def histogram(cards: Sequence[int]) -> NDArray[np.float64]:
        rows = pool.avoiding(cards)
        weights = removal_weight(len(cards), pool.count[rows])
        counts = np.bincount(pool.bin[rows], weights=weights, minlength=pool.bins)
        return counts / counts.sum()

    none = histogram([])
    single = np.stack([histogram([card]) for card in range(DECK)])
    pair = np.stack([histogram(cards) for cards in PAIRS])
    rng = np.random.Generator(np.random.PCG64(seed))
    others = [(a, b) for a, b in combinations(range(DECK), 2) if _PAIR_INDEX[a, b] == _GENERIC]
    sample = rng.choice(len(others), GENERIC_PAIRS, replace=False)
    generic = np.mean(
        [histogram(others[i]) - single[others[i][0]] - single[others[i][1]] + none for i in sample],
        axis=0,
    )
    return DealerModel(none, single, pair, generic, len(pool.bin))


# Values of betting ----------------------------------------------------------------------------


def bet_odds_by_level(bet_paytable: Paytable) -> NDArray[np.float64]:
    """The odds a bet is paid at when the box's hand of each level wins (JD-11)."""
    levels = hand_index().levels
    category = category_of_strength(levels)
    from games.engine.hands import CATEGORIES

    odds = np.array([float(bet_paytable.get(CATEGORIES[code], Fraction(1))) for code in category])
    if ROYAL_FLUSH in bet_paytable:
        royal = (levels >> _TOP_RANK_SHIFT) == (8 << 4 | 14)
        odds[royal] = float(bet_paytable[ROYAL_FLUSH])
    return odds


def _bet_values(histograms: NDArray[np.float64], odds: NDArray[np.float64], q: float) -> NDArray:
    """g per level (last axis) for each histogram (leading axes): the net of a bet of one ante
    with a hand of that level, the dealer's bins distributed as the histogram."""
    no_game = histograms[..., :1]
    games = histograms[..., 1:]
    below = np.cumsum(games, axis=-1) - games  # the dealer's qualifying hands below the level
    above = 1 - no_game - below - games
    return q * no_game + (1 + 2 * odds) * below - 3 * above


@dataclass(frozen=True)
class BetValues:
    """g(H, D) for one bet paytable: ``base`` for no card seen, ``single`` and ``pair`` the
    effects of removing a card and the second-order effects of an interacting pair, by level;
    then come the generic effect of any other pair and a row of zeros (no pair)."""

    base: NDArray[np.float64]
    single: NDArray[np.float64]
    pair: NDArray[np.float64]

    def of(self, level: NDArray[np.integer], seen: NDArray[np.integer]) -> NDArray[np.float64]:
        """g of hands of `level` (n,) with the cards `seen` (n, k; -1 pads) out of the deck."""
        value = np.empty(len(level))
        _bet_values_of(
            np.asarray(level, dtype=np.int64),
            np.asarray(seen, dtype=np.int64),
            self.base,
            self.single,
            self.pair,
            _PAIR_INDEX,
            value,
        )
        return value


@numba.njit(cache=True)
def _bet_values_of(level, seen, base, single, pair, pair_index, value):  # type: ignore[no-untyped-def]
    for row in range(level.shape[0]):
        at = level[row]
        total = base[at]
        for column in range(seen.shape[1]):
            card = seen[row, column]
            if card < 0:
                continue
            total += single[card, at]
            for other in range(column):
                if seen[row, other] >= 0:
                    total += pair[pair_index[card, seen[row, other]], at]
        value[row] = total


def bet_values(model: DealerModel, bet_paytable: Paytable) -> BetValues:
    odds = bet_odds_by_level(bet_paytable)
    q = float(no_game_odds(bet_paytable))
    base = _bet_values(model.none, odds, q)
    # The dealer's odds do not depend on which suit was removed: each effect is averaged over
    # its suit class, which takes sampling noise out and makes every hand play as its rep.
    single = _by_class(_bet_values(model.single, odds, q) - base, _card_class)
    pair = _bet_values(model.pair, odds, q) - base
    pair -= np.array([single[a] + single[b] for a, b in PAIRS])
    pair = _by_class(pair, lambda number: _pair_class(*PAIRS[number]))
    generic = _bet_values(model.none + model.generic, odds, q) - base
    return BetValues(base, single, np.vstack([pair, generic, np.zeros_like(base)]))


def _card_class(card: int) -> int:
    return card >> 2  # a rank, or 13 for the joker


def _pair_class(a: int, b: int) -> tuple[int, int]:
    return (_card_class(a), _card_class(b))


def _by_class(effects: NDArray[np.float64], key: Callable[[int], object]) -> NDArray[np.float64]:
    """Each row replaced by the mean of the rows of its class."""
    classes: dict[object, list[int]] = {}
    for row in range(len(effects)):
        classes.setdefault(key(row), []).append(row)
    averaged = np.empty_like(effects)
    for rows in classes.values():
        averaged[rows] = effects[rows].mean(axis=0)
    return averaged


def exact_bet_value(
    pool: DealerPool, bet_paytable: Paytable, strength: int, seen: Sequence[int]
) -> float:
    """g(H, D) counted on a pool for one hand, without the model's approximation."""
    odds = bet_odds_by_level(bet_paytable)
    level = int(hand_index().level_of(np.array([strength]))[0])
    values = _bet_values(pool.histogram(seen), odds, float(no_game_odds(bet_paytable)))
    return float(values[level])


# The solution ---------------------------------------------------------------------------------


def hand_bet_values(values: BetValues) -> NDArray[np.float64]:
    """g of every hand with its own five cards as the only ones seen, by colex index: counted
    for the reps, which every other hand of a suit class shares."""
    index = hand_index()
    reps = index.reps
    of_reps = values.of(index.level[reps], index.cards[reps].astype(np.int64))
    return of_reps[np.searchsorted(reps, index.rep)]


def _second_decision(
    values: BetValues, hand_values: NDArray[np.float64], rows: NDArray[np.int64]
) -> tuple[NDArray[np.float64], NDArray[np.uint8]]:
    """The value of the second decision (total ante 2) for the hands of `rows` (colex indices),
    their own cards the only ones seen, and its best code: exchange one card (its value the
    average over the 48 unseen cards of the third decision, max(-3, 3g), the discarded card
    seen too), bet (2g) or fold (-2); the first best in that order (JD-6, JD-7)."""
    index = hand_index()
    hands = np.ascontiguousarray(index.cards[rows], dtype=np.int64)
    value = np.empty(len(hands))
    code = np.empty(len(hands), np.uint8)
    _second_kernel(
        hands,
        index.level,
        hand_values,
        values.single,
        values.pair,
        _PAIR_INDEX,
        _BINOMIAL,
        value,
        code,
    )
    return value, code


@numba.njit(cache=True)
def _second_kernel(  # type: ignore[no-untyped-def]
    hands, level_of, hand_values, single, pair, pair_index, binomial, value, code
):
    """``_second_decision`` hand by hand, compiled: about 240 bet values per hand."""
    kept = np.empty(HAND_SIZE - 1, np.int64)
    for row in range(hands.shape[0]):
        hand = hands[row]
        own = 0
        for slot in range(HAND_SIZE):
            own += binomial[hand[slot], slot + 1]
        best = -np.inf
        best_code = SECOND_FOLD
        for slot in range(HAND_SIZE):
            discarded = hand[slot]
            place = 0
            for other in range(HAND_SIZE):
                if other != slot:
                    kept[place] = hand[other]
                    place += 1
            total = 0.0
            for card in range(DECK):
                if (
                    card == hand[0]
                    or card == hand[1]
                    or card == hand[2]
                    or card == hand[3]
                    or card == hand[4]
                ):
                    continue
                final = 0
                column = 0
                placed = False
                for held in kept:
                    if not placed and card < held:
                        final += binomial[card, column + 1]
                        column += 1
                        placed = True
                    final += binomial[held, column + 1]
                    column += 1
                if not placed:
                    final += binomial[card, column + 1]
                level = level_of[final]
                bet = hand_values[final] + single[discarded, level]
                bet += pair[pair_index[discarded, card], level]
                for held in kept:
                    bet += pair[pair_index[discarded, held], level]
                total += max(-3.0, 3.0 * bet)
            exchange = total / (DECK - HAND_SIZE)
            if exchange > best:
                best = exchange
                best_code = slot
        bet = 2.0 * hand_values[own]
        if bet > best:
            best = bet
            best_code = SECOND_BET
        if best < -2.0:
            best = -2.0
            best_code = SECOND_FOLD
        value[row] = best
        code[row] = best_code


def _subset_sums(second: NDArray[np.float64]) -> list[NDArray[np.float64]]:
    """For every card subset T of 0..5 cards (by size, then colex index): the sum of the
    second decision's value over every hand containing T."""
    sums = [np.zeros(math.comb(DECK, size)) for size in range(HAND_SIZE + 1)]
    _add_subsets(hand_index().cards.astype(np.int64), second, _BINOMIAL, *sums)
    return sums


@numba.njit(cache=True)
def _add_subsets(cards, second, binomial, s0, s1, s2, s3, s4, s5):  # type: ignore[no-untyped-def]
    sums = (s0, s1, s2, s3, s4, s5)
    for row in range(cards.shape[0]):
        value = second[row]
        for mask in range(1 << HAND_SIZE):
            index = 0
            size = 0
            for slot in range(HAND_SIZE):
                if mask >> slot & 1:
                    size += 1
                    index += binomial[cards[row, slot], size]
            if size == 0:
                s0[0] += value
            elif size == 1:
                s1[index] += value
            elif size == 2:
                s2[index] += value
            elif size == 3:
                s3[index] += value
            elif size == 4:
                s4[index] += value
            else:
                s5[index] += value
    return sums


_MASK_SIZE = np.array([bin(mask).count("1") for mask in range(1 << HAND_SIZE)])
_MASK_COLUMNS = [[slot for slot in range(HAND_SIZE) if mask >> slot & 1] for mask in range(32)]


def _first_options(
    sums: Sequence[NDArray[np.float64]], hand_values: NDArray[np.float64], rows: NDArray[np.int64]
) -> NDArray[np.float64]:
    """Every first-decision option's value for the hands `rows` (colex indices): columns 1..31
    exchange the cards of the mask's bits (keeping the others), then bet and fold (JD-5).
    Keeping K, the draw averages the second decision over the hands that contain K and none of
    the discards X: by inclusion-exclusion, the sum over Y within X of (-1)^|Y| S(K + Y)."""
    cards = hand_index().cards[rows].astype(np.int64)
    count = len(rows)
    contained = np.empty((count, 32))  # by mask of the cards in T
    for mask in range(32):
        columns = _MASK_COLUMNS[mask]
        subset = colex(cards[:, columns]) if columns else np.zeros(count, np.int64)
        contained[:, mask] = sums[len(columns)][subset]
    # Moebius over supersets: f(K) = sum over T containing K of (-1)^|T - K| S(T).
    for bit in range(HAND_SIZE):
        for mask in range(32):
            if not mask >> bit & 1:
                contained[:, mask] -= contained[:, mask | 1 << bit]
    options = np.empty((count, FIRST_FOLD + 1))
    options[:, 0] = -np.inf  # exchanging no card is refused (JD-5)
    for discard in range(1, 32):
        keep = 31 ^ discard
        options[:, discard] = contained[:, keep] / math.comb(DECK - HAND_SIZE, _MASK_SIZE[discard])
    options[:, FIRST_BET] = hand_values[rows]
    options[:, FIRST_FOLD] = -1.0
    return options


def paytable_digest(bet_paytable: Paytable, model: DealerModel) -> str:
    """What a solution belongs to: the bet lines and the no-game odds (JD-11a: a paytable without
    the line pays 2:3, the same as one that says so), the dealer model and the solver's method; a
    solution is used only for the digest it was made for."""
    lines = sorted(
        (line, str(Fraction(odds))) for line, odds in bet_paytable.items() if line != NO_GAME_LINE
    )
    text = repr((SOLVER_VERSION, lines, str(no_game_odds(bet_paytable)), model.entries))
    return hashlib.sha256(text.encode() + model.none.tobytes()).hexdigest()


@dataclass(frozen=True)
class Option:
    """One option of a decision and its expected net result in original antes."""

    action: str  # fold, bet or exchange
    keep: tuple[Card, ...]  # the cards kept, when exchanging
    ev: float


@dataclass(frozen=True)
class Solution:
    """The best play of one bet paytable: per hand (colex index) the first decision's code and
    the second decision's value and code with the hand's own cards seen (see the module)."""

    digest: str
    values: BetValues
    second_value: NDArray[np.float32]
    second_code: NDArray[np.uint8]
    first_code: NDArray[np.uint8]

    @cached_property
    def _sums(self) -> list[NDArray[np.float64]]:
        return _subset_sums(self.second_value.astype(np.float64))

    @cached_property
    def _hand_values(self) -> NDArray[np.float64]:
        return hand_bet_values(self.values)

    def own_bet_values(self, rows: NDArray[np.int64]) -> NDArray[np.float64]:
        """g of the hands `rows` (colex) with their own five cards the only ones seen."""
        return self._hand_values[rows]

    def first_values(self, rows: NDArray[np.int64]) -> NDArray[np.float64]:
        """Every first-decision option's value (columns as ``_first_options``) of hands by colex."""
        return _first_options(self._sums, self._hand_values, rows)

    def first_options(self, cards: Sequence[Card]) -> list[Option]:
        """Every legal option of the first decision (JD-5) for five dealt cards, best first."""
        hand = _sorted_hand(cards)
        values = self.first_values(colex(np.array([[c.index for c in hand]])))[0]
        options = [Option("bet", (), float(values[FIRST_BET])), Option("fold", (), -1.0)]
        for discard in range(1, 32):
            keep = tuple(card for slot, card in enumerate(hand) if not discard >> slot & 1)
            options.append(Option("exchange", keep, float(values[discard])))
        return sorted(options, key=lambda option: -option.ev)

    def later_options(
        self, cards: Sequence[Card], seen: Iterable[Card], exchanges: int
    ) -> list[Option]:
        """Every legal option of the second (after one exchange) or third decision (after two),
        with every card the box has seen out of the dealer's reach (JD-6, JD-7), best first."""
        if exchanges not in (1, 2):
            raise ValueError("exchanges: the later decisions come after one or two exchanges")
        hand = _sorted_hand(cards)
        seen_positions = sorted({card.index for card in [*seen, *hand]})
        ante = 1 + exchanges
        options = [
            Option("bet", (), ante * self._bet(hand, seen_positions)),
            Option("fold", (), -float(ante)),
        ]
        if exchanges == 1:
            unseen = [position for position in range(DECK) if position not in seen_positions]
            for slot in range(HAND_SIZE):
                kept = [card.index for card in hand if card is not hand[slot]]
                finals = np.sort(np.array([[*kept, card] for card in unseen]), axis=1)
                seen_after = np.array([[*seen_positions, card] for card in unseen])
                level = hand_index().level[colex(finals)]
                bet = self.values.of(level, seen_after)
                ev = float(np.maximum(-3, 3 * bet).mean())
                options.append(
                    Option("exchange", tuple(c for c in hand if c is not hand[slot]), ev)
                )
        return sorted(options, key=lambda option: -option.ev)

    def _bet(self, hand: Sequence[Card], seen: Sequence[int]) -> float:
        level = hand_index().level[colex(np.array([[card.index for card in hand]]))]
        return float(self.values.of(level, np.array([seen]))[0])

    def third_bets(
        self, final: NDArray[np.integer], seen: NDArray[np.integer]
    ) -> NDArray[np.bool_]:
        """Whether to bet at the third decision: g(H, D) > -1, with every seen card (JD-7)."""
        level = hand_index().level[colex(np.sort(final, axis=1))]
        return self.values.of(level, seen) > -1

    name = "best"

    def decide(
        self, stage: int, hands: Hands, seen: NDArray[np.int64]
    ) -> tuple[NDArray[np.int8], NDArray[np.bool_]]:
        """The laboratory's player (``joker_draw_rtp.Player``): the first and second decisions
        from the tables, the third on the fly with every card the box has seen."""
        cards = hands.cards.astype(np.int64)
        order = np.argsort(cards, axis=1)
        rows = colex(np.take_along_axis(cards, order, axis=1))
        discard_sorted = np.zeros(cards.shape, bool)
        if stage == 0:
            return first_decision(hands.cards, self.first_code[rows])
        if stage == 1:
            code = self.second_code[rows]
            action = np.select([code == SECOND_FOLD, code == SECOND_BET], [FOLD, BET], EXCHANGE)
            discard_sorted = (code[:, None] == np.arange(HAND_SIZE)) & (action == EXCHANGE)[:, None]
        else:
            action = np.where(self.third_bets(cards, seen), BET, FOLD)
        discard = np.zeros(cards.shape, bool)
        np.put_along_axis(discard, order, discard_sorted, axis=1)
        return action.astype(np.int8), discard

    def to_bytes(self) -> bytes:
        """The reps' values and decisions: every other hand's follow from its rep's."""
        reps = hand_index().reps
        buffer = io.BytesIO()
        np.savez_compressed(
            buffer,
            digest=np.array(self.digest),
            second_value=self.second_value[reps],
            second_code=self.second_code[reps],
            first_code=self.first_code[reps],
        )
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes, values: BetValues, digest: str) -> Solution:
        """A stored solution, refused unless it was made for `digest` (the paytable and model)."""
        with np.load(io.BytesIO(data)) as arrays:
            stored = str(arrays["digest"])
            if stored != digest:
                raise ValueError(
                    f"digest: this best-play table was solved for {stored[:12]}, "
                    f"not for this paytable ({digest[:12]})"
                )
            return assemble(
                digest,
                values,
                arrays["second_value"],
                arrays["second_code"],
                arrays["first_code"],
            )


def first_decision(
    hands: NDArray[np.integer], codes: NDArray[np.integer]
) -> tuple[NDArray[np.int8], NDArray[np.bool_]]:
    """The laboratory's actions and discards (in each hand's own order) for first-decision
    codes, whose bits name cards in ascending FS-1 order."""
    order = np.argsort(hands, axis=1)
    codes = np.asarray(codes, dtype=np.int64)
    action = np.select([codes == FIRST_FOLD, codes == FIRST_BET], [FOLD, BET], EXCHANGE)
    bits = np.where(codes < FIRST_BET, codes, 0)[:, None]
    discard = np.zeros(hands.shape, bool)
    np.put_along_axis(discard, order, (bits >> np.arange(HAND_SIZE)) & 1 == 1, axis=1)
    return action.astype(np.int8), discard


def _sorted_hand(cards: Sequence[Card]) -> tuple[Card, ...]:
    hand = tuple(sorted(cards, key=lambda card: card.index))
    if len(set(hand)) != HAND_SIZE:
        raise ValueError("cards: a hand is five different cards")
    return hand


CHUNK_REPS = 1 << 15  # the second decision of this many suit classes is one chunk of work


def chunk_count() -> int:
    return -(-len(hand_index().reps) // CHUNK_REPS)


def second_decision_chunk(
    values: BetValues, hand_values: NDArray[np.float64], index: int
) -> tuple[NDArray[np.float32], NDArray[np.uint8]]:
    """The second decision's values and codes of chunk `index` of the reps (``CHUNK_REPS`` of
    them, fewer at the end): one unit of work, for a worker."""
    reps = hand_index().reps[index * CHUNK_REPS : (index + 1) * CHUNK_REPS]
    value, code = _second_decision(values, hand_values, reps)
    return value.astype(np.float32), code


def _broadcast_codes(rep_codes: NDArray[np.integer], first: bool) -> NDArray[np.uint8]:
    """Every hand's code from its rep's: the rep's slots renamed to this hand's (``slot_map``)."""
    index = hand_index()
    codes = np.asarray(rep_codes, dtype=np.int64)[np.searchsorted(index.reps, index.rep)]
    slot_map = index.slot_map.astype(np.int64)
    if first:
        bits = np.where(codes < FIRST_BET, codes, 0)
        mapped = np.zeros(HANDS, np.int64)
        for slot in range(HAND_SIZE):
            mapped |= ((bits >> slot) & 1) << slot_map[:, slot]
        return np.where(codes < FIRST_BET, mapped, codes).astype(np.uint8)
    slots = np.take_along_axis(slot_map, np.minimum(codes, HAND_SIZE - 1)[:, None], axis=1)
    return np.where(codes < HAND_SIZE, slots[:, 0], codes).astype(np.uint8)


def assemble(
    digest: str,
    values: BetValues,
    rep_value: NDArray[np.float32],
    rep_second: NDArray[np.uint8],
    rep_first: NDArray[np.uint8] | None = None,
) -> Solution:
    """The solution from every rep's second decision (and first, when already known): every
    hand's decisions, and the first decision where it is not known."""
    index = hand_index()
    second_value = np.asarray(rep_value, np.float32)[np.searchsorted(index.reps, index.rep)]
    second_code = _broadcast_codes(rep_second, first=False)
    if rep_first is None:
        partial = Solution(digest, values, second_value, second_code, np.zeros(0, np.uint8))
        rep_first = np.argmax(partial.first_values(index.reps), axis=1).astype(np.uint8)
    solution = Solution(
        digest, values, second_value, second_code, _broadcast_codes(rep_first, first=True)
    )
    return solution


def solve(
    model: DealerModel,
    bet_paytable: Paytable,
    run: Callable[
        [Callable[[int], tuple[NDArray[np.float32], NDArray[np.uint8]]], Sequence[int]],
        list[tuple[NDArray[np.float32], NDArray[np.uint8]]],
    ]
    | None = None,
) -> Solution:
    """The best play of `bet_paytable` against `model`; `run` maps the chunk function over the
    chunks' indices (in-process by default; a caller may spread them over workers)."""
    values = bet_values(model, bet_paytable)
    hand_values = hand_bet_values(values)

    def chunk(index: int) -> tuple[NDArray[np.float32], NDArray[np.uint8]]:
        return second_decision_chunk(values, hand_values, index)

    chunks = range(chunk_count())
    parts = run(chunk, chunks) if run else [chunk(index) for index in chunks]
    return assemble(
        paytable_digest(bet_paytable, model),
        values,
        np.concatenate([value for value, _ in parts]),
        np.concatenate([code for _, code in parts]),
    )


def engine_check(
    solution: Solution, bet_paytable: Paytable, rounds: int, seed: int
) -> tuple[float, tuple[float, float]]:
    """The solution's game RTP (percent, with its 99% interval) played through the live
    engine's own round code (``joker_draw.start_round`` and ``apply``), one box on fresh decks:
    a check of the laboratory's simulator, not a second copy of it."""
    rng = np.random.Generator(np.random.PCG64(seed))
    ante = Decimal(odds_scale(bet_paytable, {}))  # every payment whole (JD-2); RTP has no unit
    sums = [Fraction(0)] * 5  # returned, staked, returned^2, staked^2, returned*staked
    for _ in range(rounds):
        deck = [ALL_CARDS[i] for i in rng.permutation(DECK)]
        state, _events = joker_draw.start_round(
            deck, [joker_draw.Stake(1, ante)], bet_paytable=bet_paytable, bonus_paytable={}
        )
        while state.to_act is not None:
            box = state.to_act
            seen = {*box.initial_cards, *box.cards, *_drawn(state)}
            if box.exchanges == 0:
                option = solution.first_options(box.cards)[0]
            else:
                option = solution.later_options(box.cards, seen, box.exchanges)[0]
            if option.action == "exchange":
                action: joker_draw.Action = joker_draw.Exchange(
                    1, tuple(card for card in box.cards if card not in option.keep)
                )
            elif option.action == "bet":
                action = joker_draw.Bet(1)
            else:
                action = joker_draw.Fold(1)
            state, _events = joker_draw.apply(state, action)
        (result,) = state.results
        final = state.boxes[0]
        staked = Fraction(final.ante + (final.bet or 0))
        returned = staked + Fraction(result.ante + result.bet)
        for index, value in enumerate(
            (returned, staked, returned**2, staked**2, returned * staked)
        ):
            sums[index] += value
    rtp = sums[0] / sums[1]
    spread = ratio_spread99(
        rounds,
        returned=sums[0],
        staked=sums[1],
        returned_sq=sums[2],
        staked_sq=sums[3],
        returned_staked=sums[4],
    )
    return float(rtp) * 100, ((float(rtp) - spread) * 100, (float(rtp) + spread) * 100)


def _drawn(state: Any) -> list[Card]:
    """The cards dealt from the deck after the deal: the one box's replacements so far."""
    return list(state.deck[2 * HAND_SIZE : state.dealt])
