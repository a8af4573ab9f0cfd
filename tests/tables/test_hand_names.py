"""Hands named in words from the engine's values (HR-1..HR-10), category by category, and a
part hand of three or four stud cards read as ST-4 reads up cards."""

from __future__ import annotations

import pytest

from games.engine.cards import parse_cards
from games.engine.hands import evaluate
from games.stud.serializers import best_so_far
from games.tables.hand_names import hand_name


@pytest.mark.parametrize(
    ("cards", "name"),
    [
        ("Kh 9c 7d 4s 2h", "King high"),
        ("Jh Jc 7d 4s 2h", "Pair of jacks"),
        ("Jh Jc 7d 7s 2h", "Two pair, jacks and sevens"),
        ("5h 5c 5d Ks 2h", "Three of a kind, fives"),
        ("5h 4c 3d 2s Ah", "Straight, Five high"),  # the wheel (HR-8)
        ("Kh 9h 7h 4h 2h", "Flush, King high"),
        ("9h 9c 9d 4s 4h", "Full house, nines full of fours"),
        ("Qh Qc Qd Qs 2h", "Four of a kind, queens"),
        ("9s 8s 7s 6s 5s", "Straight flush, Nine high"),
        ("As Ks Qs Js Ts", "Royal flush"),
        ("Qh Qc Qd Qs JK", "Five of a kind, queens"),  # HR-6: four of a kind and the joker
    ],
)
def test_each_category_is_named_in_words(cards, name):
    assert hand_name(evaluate(parse_cards(cards))) == name


@pytest.mark.parametrize(
    ("cards", "name"),
    [
        ("Th 9d 2c", "Ten high"),
        ("As Ad Kc", "Pair of aces"),
        ("As Ad Kc Ks", "Two pair, aces and kings"),
        ("7s 7d 7c Ks", "Three of a kind, sevens"),
        ("As Ad Kc Ks Kd", "Full house, kings full of aces"),
    ],
)
def test_a_stud_hand_so_far_is_named_from_three_cards_on(cards, name):
    assert best_so_far(tuple(parse_cards(cards))) == name
