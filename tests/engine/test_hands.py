"""Hand ranking HR-1..HR-10: every category, the joker rules, Omaha's exactly-two rule, errors,
and pokerkit as an oracle for natural hands."""

from __future__ import annotations

import copy
import pickle
from itertools import combinations, pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pokerkit import OmahaHoldemHand, StandardHighHand

from games.engine.cards import JOKER, Card, new_deck, parse_card, parse_cards
from games.engine.hands import (
    CATEGORIES,
    HandValue,
    all_hands,
    best_hand,
    best_omaha,
    category_of_strength,
    evaluate,
    evaluate_batch,
)

NATURAL_DECK = new_deck()
ORACLE = settings(max_examples=300, deadline=None, database=None)


def value(text: str) -> HandValue:
    return evaluate(parse_cards(text))


def sign(number: int) -> int:
    return (number > 0) - (number < 0)


@pytest.mark.parametrize(
    ("hand", "category", "ranks", "name"),
    [
        ("Ac Kd 9h 7s 3c", "high_card", (14, 13, 9, 7, 3), "Ace high"),
        ("Kc Kh 9c 5d 3s", "pair", (13, 9, 5, 3), "Pair of Kings"),
        ("9c 9d 4h 4s Kc", "two_pair", (9, 4, 13), "Two pair, Nines and Fours"),
        ("7c 7d 7h Ks 2c", "three_of_a_kind", (7, 13, 2), "Three of a kind, Sevens"),
        ("5c 6d 7h 8s 9c", "straight", (9,), "Straight, Nine high"),
        ("Th Jh 9h 5h 2h", "flush", (11, 10, 9, 5, 2), "Flush, Jack high"),
        ("Kc Kd Kh 2s 2c", "full_house", (13, 2), "Full house, Kings full of Twos"),
        ("Qc Qd Qh Qs 3c", "four_of_a_kind", (12, 3), "Four of a kind, Queens"),
        ("5s 6s 7s 8s 9s", "straight_flush", (9,), "Straight flush, Nine high"),
        ("Ts Js Qs Ks As", "straight_flush", (14,), "Royal flush"),
        ("Kc Kd Kh Ks JK", "five_of_a_kind", (13,), "Five of a kind, Kings"),
    ],
)
def test_each_category(hand: str, category: str, ranks: tuple[int, ...], name: str) -> None:
    """HR-1 (and HR-6 for five of a kind)."""
    hand_value = value(hand)
    assert hand_value.category == category
    assert hand_value.ranks == ranks
    assert hand_value.name == name
    assert str(hand_value) == name
    assert CATEGORIES[int(category_of_strength(np.array([hand_value.strength]))[0])] == category


def test_categories_rank_in_order_five_of_a_kind_highest() -> None:
    """HR-1 order; HR-6: five of a kind is the highest category, above a royal flush."""
    ladder = [
        value("Ac Kd 9h 7s 3c"),
        value("2c 2d 3h 4s 5c"),
        value("2c 2d 3h 3s 5c"),
        value("2c 2d 2h 3s 4c"),
        value("Ah 2c 3d 4s 5h"),
        value("2h 3h 4h 5h 7h"),
        value("2c 2d 2h 3s 3c"),
        value("2c 2d 2h 2s 3c"),
        value("Ah 2h 3h 4h 5h"),
        value("Ts Js Qs Ks As"),
        value("2c 2d 2h 2s JK"),
    ]
    assert [hand.category for hand in ladder] == [*CATEGORIES[:9], "straight_flush", CATEGORIES[9]]
    assert all(low < high for low, high in pairwise(ladder))
    assert value("2c 2d 2h 2s JK") > value("Ts Js Qs Ks As")


def test_the_wheel_is_the_lowest_straight() -> None:
    """HR-1: A-2-3-4-5 is five high and loses to six high; likewise as a straight flush."""
    wheel = value("Ah 2c 3d 4s 5h")
    assert (wheel.category, wheel.ranks, wheel.name) == ("straight", (5,), "Straight, Five high")
    assert wheel < value("2c 3d 4h 5s 6c") < value("Tc Jd Qh Ks Ac")
    assert wheel > value("Ac Ad Ah Kd 2c")
    assert value("Ah 2h 3h 4h 5h") < value("2s 3s 4s 5s 6s")
    assert not value("Ah 2h 3h 4h 5h").is_royal


def test_suits_never_break_ties() -> None:
    """HR-1, HR-2: the same ranks in other suits are the same value."""
    assert value("Ac Kd 9h 7s 3c") is value("As Kh 9c 7d 3s")
    assert value("Th Jh 9h 5h 2h") is value("Tc Jc 9c 5c 2c")
    assert value("Kc Kh 9c 5d 3s") == value("Kd Ks 9d 5h 3c")
    assert hash(value("Kc Kh 9c 5d 3s")) == hash(value("Kd Ks 9d 5h 3c"))


def test_kickers_decide_within_a_category() -> None:
    """HR-1."""
    assert value("Kc Kh 9c 5d 3s") < value("Kc Kh 9c 5d 4s")
    assert value("9c 9d 4h 4s Kc") < value("9c 9d 5h 5s 2c")
    assert value("Kc Kd Kh 2s 2c") < value("Ac Ad Ah 2s 2c")
    assert value("Kc Kd Kh 3s 3c") > value("Kc Kd Kh 2s 2c")


def test_joker_counts_as_a_deuce_in_a_flush() -> None:
    """HR-7: 4 hearts J 9 5 2 + JK is the flush J-9-5-2-2, below the natural J-9-5-3-2."""
    joker_flush = value("Jh 9h 5h 2h JK")
    assert joker_flush.category == "flush"
    assert joker_flush.ranks == (11, 9, 5, 2, 2)
    assert joker_flush < value("Jc 9c 5c 3c 2c")
    assert joker_flush > value("Tc 9c 5c 3c 2c")
    # Not an ace: the joker as the best card would have made J-A high.
    assert joker_flush < value("Ac Jc 9c 5c 2c")
    assert value("Jh 9h 5h 3h JK").ranks == (11, 9, 5, 3, 2)


def test_joker_makes_the_highest_straight() -> None:
    """HR-8."""
    assert value("JK 5c 6d 7h 8s").ranks == (9,)
    assert value("JK Ac 2d 3h 4s").ranks == (5,)
    assert value("JK Tc Jd Qh Ks").ranks == (14,)
    assert value("JK 2c 3d 4h 5s").ranks == (6,)
    assert value("JK 5c 6d 8h 9s").ranks == (9,)
    assert value("JK Ac Kd Qh Js").ranks == (14,)
    assert value("JK 5c 6d 7h 8s").category == "straight"


def test_a_straight_flush_with_the_joker_is_a_straight() -> None:
    """HR-7, HR-8: the straight flush takes the highest straight, not the deuce."""
    assert value("9h Th Jh Qh JK").ranks == (13,)
    assert value("5h 6h 7h 8h JK").category == "straight_flush"
    assert value("Ah 2h 3h 4h JK").ranks == (5,)
    assert value("2h 3h 4h 6h JK").ranks == (6,)


def test_joker_completes_sets() -> None:
    """HR-6: category first, then ranks."""
    assert value("JK Kh Kc Kd 2s").category == "four_of_a_kind"
    assert value("JK Kh Kc Kd 2s").ranks == (13, 2)
    assert value("JK Kh Kc 2d 2s").ranks == (13, 2)
    assert value("JK Kh Kc 2d 2s").category == "full_house"
    assert value("JK Kh Kc 9d 2s").ranks == (13, 9, 2)
    assert value("JK Kh Kc 9d 2s").category == "three_of_a_kind"
    assert value("JK Kh 9c 9d 2s").category == "three_of_a_kind"
    assert value("JK Kh 9c 9d 2s").ranks == (9, 13, 2)


def test_joker_pairs_the_highest_card() -> None:
    """HR-6 (JD-9.4): JK K 9 5 3 is a pair of kings with 9 5 3."""
    hand_value = value("JK Kh 9c 5d 3s")
    assert hand_value.category == "pair"
    assert hand_value.ranks == (13, 9, 5, 3)


def test_joker_hand_ties_the_equal_natural_hand() -> None:
    """HR-9: no "natural beats wild" either way."""
    assert value("JK Kh 9c 5d 3s") is value("Kc Kh 9c 5d 3s")
    assert value("JK Ts Js Qs Ks") is value("Ah Kh Qh Jh Th")
    assert value("Jh 9h 5h 3h JK") is value("Jc 9c 5c 3c 2c")
    assert value("JK 5c 6d 7h 8s") is value("5c 6d 7h 8s 9c")


def test_royal_flush_with_and_without_the_joker() -> None:
    """HR-10: ace-high straight flush, joker or not."""
    assert value("Ts Js Qs Ks As").is_royal
    assert value("Ts Js Qs Ks JK").is_royal
    assert value("Ts Js Qs JK As").is_royal
    assert not value("9s Ts Js Qs Ks").is_royal
    assert not value("Ts Js Qs Ks Ac").is_royal
    assert not value("2s Js Qs Ks As").is_royal
    assert not value("Kc Kd Kh Ks JK").is_royal


def test_best_hand_takes_the_best_five_of_seven() -> None:
    """HR-3."""
    assert best_hand(parse_cards("As Ks Qs Js 2c 3d Ts")).is_royal
    assert best_hand(parse_cards("9c 9d 9h 4s 4c Kd 2h")).name == "Full house, Nines full of Fours"
    assert best_hand(parse_cards("2c 3d 4h 5s 9c Kd 6h")).ranks == (6,)
    assert best_hand(parse_cards("Ac Kd 9h 7s 3c 2d")) is value("Ac Kd 9h 7s 3c")
    assert best_hand(parse_cards("Ac Kd 9h 7s 3c")) is value("Ac Kd 9h 7s 3c")
    assert best_hand(parse_cards("Kh Kc 9d 5s 3c 2d JK")) is value("Kh Kc Kd 9s 5c")


def test_omaha_flush_needs_two_suited_hole_cards_and_three_on_the_board() -> None:
    """HR-4: four hearts in the hand and one heart on the board is no flush; four hearts on the
    board and one in the hand is no flush."""
    four_hearts_in_hand = best_omaha(parse_cards("Ah Kh Qh Jh"), parse_cards("2h 7c 8d 9s 3c"))
    assert four_hearts_in_hand.category == "high_card"
    two_on_board = best_omaha(parse_cards("Ah Kh Qh Jh"), parse_cards("2h 7h 8d 9s 3c"))
    assert two_on_board.category == "high_card"
    four_on_board = best_omaha(parse_cards("Ah 3c 4d 9s"), parse_cards("2h 5h 8h Jh Kc"))
    assert four_on_board.category == "high_card"
    assert best_omaha(parse_cards("Ah Qh 4d 9s"), parse_cards("2h 5h 8h Jh Kc")).ranks == (
        14,
        12,
        11,
        8,
        5,
    )


def test_omaha_board_straight_plays_only_with_two_hole_cards() -> None:
    """HR-4: a straight on the board alone does not count."""
    board = parse_cards("5c 6d 7h 8s 9c")
    assert best_omaha(parse_cards("Ac Ad Kc Kd"), board).name == "Pair of Aces"
    assert best_omaha(parse_cards("Tc Jd 2c 2d"), board).name == "Straight, Jack high"
    # One hole card that fits is not enough: the second must be played too.
    assert best_omaha(parse_cards("Tc 2h 3c 3d"), board).name == "Pair of Threes"


def test_omaha_takes_five_hole_cards_and_short_boards() -> None:
    """HR-4 for Drawmaha: five hole cards; the board may still be three or four cards."""
    assert best_omaha(parse_cards("Ac Ad Kc Qd 2s"), parse_cards("As Kh Ks")).name == (
        "Full house, Aces full of Kings"
    )
    assert best_omaha(parse_cards("2c 7d 9h Js Qc"), parse_cards("Ac Ad Ah As")).name == (
        "Three of a kind, Aces"
    )


def test_hand_values_are_interned_ints() -> None:
    royal = value("Ts Js Qs Ks As")
    assert HandValue(royal.strength) is royal
    assert HandValue(int(royal)) is royal
    assert pickle.loads(pickle.dumps(royal)) is royal  # noqa: S301 - our own bytes
    assert copy.deepcopy(royal) is royal
    assert f"{royal}" == "Royal flush"
    assert "Royal flush" in repr(royal)
    with pytest.raises(ValueError, match="no five-card hand has strength 123"):
        HandValue(123)


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        (parse_cards("As Kd Qh Jc Tc 9s"), "evaluate needs exactly 5 cards, got 6"),
        (parse_cards("As Kd Qh Jc"), "evaluate needs exactly 5 cards, got 4"),
        ([JOKER, JOKER, *parse_cards("As Kd Qh")], "two jokers"),
        (parse_cards("As Kd Qh Jc") + parse_cards("As"), "duplicate card As"),
        (parse_cards("2s 3s 4s 5s") + parse_cards("2s"), "duplicate card 2s"),
        ([parse_card("3c")] * 5, "duplicate card 3c"),
        ([JOKER] * 5, "two jokers"),
        (["As", "Kd", "Qh", "Jc", "Ax"], "bad card 'Ax'"),
        (["As", "Kd", "Qh", "Jc", "Tc"], "got the text 'As': use parse_card"),
        ("As Kd Qh Jc Tc", "got the text 'As Kd Qh Jc Tc': use parse_cards"),
        ([*parse_cards("As Kd Qh Jc"), None], "takes Card objects, got None"),
        ([0, 1, 2, 3, 4], "takes Card objects, got 0"),
        ([40, 44, 48, 49, 50], "takes Card objects, got 40"),
        (None, "takes a sequence of Card objects, got None"),
    ],
)
def test_evaluate_refuses_what_is_not_a_hand(cards: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate(cards)  # type: ignore[arg-type]


def test_best_hand_and_omaha_refuse_bad_input() -> None:
    with pytest.raises(ValueError, match="best_hand needs 5 to 7 cards, got 8"):
        best_hand(parse_cards("As Kd Qh Jc Tc 9s 8s 7s"))
    with pytest.raises(ValueError, match="best_hand needs 5 to 7 cards, got 4"):
        best_hand(parse_cards("As Kd Qh Jc"))
    with pytest.raises(ValueError, match="best_hand: duplicate card Kd"):
        best_hand([*parse_cards("As Kd Qh Jc Tc"), parse_card("Kd")])
    with pytest.raises(ValueError, match="best_omaha needs 4 to 5 hole cards, got 3"):
        best_omaha(parse_cards("As Kd Qh"), parse_cards("2c 3c 4c"))
    with pytest.raises(ValueError, match="best_omaha needs 3 to 5 board cards, got 6"):
        best_omaha(parse_cards("As Kd Qh Jh"), parse_cards("2c 3c 4c 5c 6c 7c"))
    with pytest.raises(ValueError, match="best_omaha: duplicate card 2c"):
        best_omaha(parse_cards("As Kd Qh 2c"), parse_cards("2c 3c 4c"))
    with pytest.raises(ValueError, match="best_omaha: bad card 'Ax'"):
        best_omaha(["As", "Kd", "Qh", "Ax"], parse_cards("2c 3c 4c"))  # type: ignore[list-item]


def test_batch_matches_per_hand_on_examples() -> None:
    hands = ["Ac Kd 9h 7s 3c", "Jh 9h 5h 2h JK", "Kc Kd Kh Ks JK", "JK Ac 2d 3h 4s"]
    positions = np.array([[card.index for card in parse_cards(hand)] for hand in hands])
    assert evaluate_batch(positions).tolist() == [value(hand).strength for hand in hands]
    assert evaluate_batch(positions.astype(np.int64)).dtype == np.int32
    assert evaluate_batch(np.empty((0, 5), dtype=np.uint8)).shape == (0,)
    assert all_hands().shape == (2_598_960, 5)


@pytest.mark.parametrize(
    ("hands", "message"),
    [
        (np.zeros((3, 4), dtype=np.uint8), r"needs an \(N, 5\) integer array"),
        (np.zeros(5, dtype=np.uint8), r"needs an \(N, 5\) integer array"),
        (np.zeros((2, 5), dtype=np.float64), r"needs an \(N, 5\) integer array"),
        (np.array([[0, 1, 2, 3, 53]]), "card positions must be 0..52"),
        (np.array([[0, 1, 2, 3, -1]]), "card positions must be 0..52"),
        (np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 3]]), r"row 1 repeats a card: \[0, 1, 2, 3, 3\]"),
        (np.array([[52, 1, 2, 3, 52]]), "row 0 repeats a card"),
    ],
)
def test_batch_refuses_bad_arrays(hands: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate_batch(hands)


# pokerkit as an oracle for natural hands (it has no joker).

five_cards = st.lists(st.sampled_from(NATURAL_DECK), min_size=5, max_size=5, unique=True)


def pokerkit_text(cards: list[Card]) -> str:
    return "".join(map(str, cards))


@ORACLE
@given(five_cards, five_cards)
def test_five_card_order_matches_pokerkit(first: list[Card], second: list[Card]) -> None:
    """HR-1, HR-2 against an independent evaluator."""
    ours = sign(evaluate(first) - evaluate(second))
    theirs_first = StandardHighHand(pokerkit_text(first))
    theirs_second = StandardHighHand(pokerkit_text(second))
    assert ours == (theirs_first > theirs_second) - (theirs_first < theirs_second)


@ORACLE
@given(st.permutations(NATURAL_DECK))
def test_best_of_seven_order_matches_pokerkit(deck: list[Card]) -> None:
    """HR-3 against an independent evaluator: two seven-card hands."""
    first, second = deck[:7], deck[7:14]
    ours = sign(best_hand(first) - best_hand(second))
    theirs_first = StandardHighHand.from_game(pokerkit_text(first))
    theirs_second = StandardHighHand.from_game(pokerkit_text(second))
    assert ours == (theirs_first > theirs_second) - (theirs_first < theirs_second)


@ORACLE
@given(st.permutations(NATURAL_DECK))
def test_omaha_order_matches_pokerkit(deck: list[Card]) -> None:
    """HR-4 against an independent evaluator: two players' four hole cards, one shared board."""
    first, second, board = deck[:4], deck[4:8], deck[8:13]
    ours = sign(best_omaha(first, board) - best_omaha(second, board))
    theirs_first = OmahaHoldemHand.from_game(pokerkit_text(first), pokerkit_text(board))
    theirs_second = OmahaHoldemHand.from_game(pokerkit_text(second), pokerkit_text(board))
    assert ours == (theirs_first > theirs_second) - (theirs_first < theirs_second)


# A brute-force oracle for the joker: try every card in its place (HR-6, HR-8), except that a
# flush takes the joker as a deuce (HR-7).


def joker_by_substitution(four: list[Card]) -> tuple[str, tuple[int, ...]]:
    ranks = sorted((card.rank or 0 for card in four), reverse=True)
    if len(set(ranks)) == 1:
        return "five_of_a_kind", (ranks[0],)  # no fifth natural card: HR-6 says so directly
    best = max(evaluate([*four, card]) for card in NATURAL_DECK if card not in four)
    if best.category == "flush":
        return "flush", (*ranks, 2)
    return best.category, best.ranks


@ORACLE
@given(st.lists(st.sampled_from(NATURAL_DECK), min_size=4, max_size=4, unique=True))
def test_joker_matches_substitution(four: list[Card]) -> None:
    """HR-6..HR-8 against trying all 48 stand-ins."""
    hand_value = evaluate([*four, JOKER])
    assert (hand_value.category, hand_value.ranks) == joker_by_substitution(four)


def test_every_suited_joker_hand_matches_substitution() -> None:
    """HR-7, HR-8 on all four suited cards plus the joker, where the flush rule matters."""
    for suit in "cdhs":
        suited = [card for card in NATURAL_DECK if card.suit == suit]
        for four in combinations(suited, 4):
            hand_value = evaluate([*four, JOKER])
            assert (hand_value.category, hand_value.ranks) == joker_by_substitution(list(four))
