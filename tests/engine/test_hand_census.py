"""Every five-card hand, counted by category against the census in JD-14a, with the batch
evaluator, and the per-hand evaluator checked against the batch on all 2,869,685 hands."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from numpy.typing import NDArray

from games.engine.cards import ALL_CARDS, JOKER, parse_cards
from games.engine.hands import (
    CATEGORIES,
    all_hands,
    category_of_strength,
    evaluate,
    evaluate_batch,
)

pytestmark = pytest.mark.slow

ROYAL = evaluate(parse_cards("Ts Js Qs Ks As"))

# JD-14a, five cards, the joker fully wild (HR-6, HR-8).
NATURAL_CENSUS = {
    "straight_flush": 40,
    "four_of_a_kind": 624,
    "full_house": 3_744,
    "flush": 5_108,
    "straight": 10_200,
    "three_of_a_kind": 54_912,
    "two_pair": 123_552,
    "pair": 1_098_240,
    "high_card": 1_302_540,
    "five_of_a_kind": 0,
}
JOKER_CENSUS = {
    "five_of_a_kind": 13,
    "straight_flush": 204,
    "four_of_a_kind": 3_120,
    "full_house": 6_552,
    "flush": 7_804,
    "straight": 20_532,
    "three_of_a_kind": 137_280,
    "two_pair": 123_552,
    "pair": 1_268_088,
    "high_card": 1_302_540,
}


@pytest.fixture(scope="module")
def joker_deck_hands() -> NDArray[np.uint8]:
    return all_hands(jokers=1)


@pytest.fixture(scope="module")
def strengths(joker_deck_hands: NDArray[np.uint8]) -> NDArray[np.int32]:
    return evaluate_batch(joker_deck_hands)


def census(strengths: NDArray[np.int32]) -> dict[str, int]:
    counts = np.bincount(category_of_strength(strengths), minlength=len(CATEGORIES))
    return {name: int(count) for name, count in zip(CATEGORIES, counts, strict=True)}


def test_the_census_covers_every_hand_once(joker_deck_hands: NDArray[np.uint8]) -> None:
    assert joker_deck_hands.shape == (2_869_685, 5)
    assert (np.diff(joker_deck_hands.astype(np.int16), axis=1) > 0).all()
    natural = joker_deck_hands[joker_deck_hands[:, 4] != JOKER.index]
    assert np.array_equal(natural, all_hands())
    assert len(natural) == 2_598_960


def test_natural_census(joker_deck_hands: NDArray[np.uint8], strengths: NDArray[np.int32]) -> None:
    """JD-14a, 52 cards: counts by category, 4 royal flushes, 7,462 distinct hand values."""
    natural = strengths[joker_deck_hands[:, 4] != JOKER.index]
    assert len(natural) == 2_598_960
    assert census(natural) == NATURAL_CENSUS
    assert int((natural == ROYAL).sum()) == 4
    assert len(np.unique(natural)) == 7_462


def test_joker_deck_census(
    joker_deck_hands: NDArray[np.uint8], strengths: NDArray[np.int32]
) -> None:
    """JD-14a, 53 cards: counts by category, 24 royal flushes of which 4 natural (HR-10)."""
    assert census(strengths) == JOKER_CENSUS
    royal = strengths == ROYAL
    assert int(royal.sum()) == 24
    assert int((royal & (joker_deck_hands[:, 4] != JOKER.index)).sum()) == 4


def test_per_hand_evaluator_agrees_with_batch_on_every_hand(
    strengths: NDArray[np.int32],
) -> None:
    """All 2,869,685 hands of the joker deck, in the same order as all_hands."""
    per_hand = np.fromiter(
        map(evaluate, combinations(ALL_CARDS, 5)), dtype=np.int32, count=len(strengths)
    )
    mismatches = np.flatnonzero(per_hand != strengths)
    assert mismatches.size == 0, f"first mismatch at hand {mismatches[:1]}"
