"""The strategy card's machinery: the holdings it adds to the laboratory's rule language (joker,
high cards), the greedy ranking of rules and the paired comparison of two players on the same
decks. The card of the shipped paytable against its best play is in
tests/joker_draw/test_strategy_card.py."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import numpy as np
import pytest

from games.engine.cards import ALL_CARDS, parse_cards
from games.engine.joker_draw_card import StageValues, compare, derive_stage
from games.engine.joker_draw_rtp import (
    REFERENCE,
    STAND,
    Condition,
    Hands,
    Rule,
    simulate,
    strategy_from_table,
    strategy_to_table,
    summarize,
)

BET = {
    "pair": Fraction(1),
    "two_pair": Fraction(1),
    "three_of_a_kind": Fraction(1),
    "straight": Fraction(1),
    "flush": Fraction(1),
    "full_house": Fraction(2),
    "four_of_a_kind": Fraction(3),
    "straight_flush": Fraction(5),
    "royal_flush": Fraction(10),
    "five_of_a_kind": Fraction(20),
}


def held(condition: Condition, text: str) -> list[str] | None:
    """The cards the condition keeps of this hand, or None when it does not fit."""
    cards = parse_cards(text)
    match, keep = Hands(np.array([[card.index for card in cards]], np.uint8)).condition(condition)
    return [str(c) for c, k in zip(cards, keep[0], strict=True) if k] if match[0] else None


def test_the_joker_holding_keeps_the_joker_alone():
    assert held(Condition("joker"), "2c JK 8h Ts 5d") == ["JK"]
    assert held(Condition("joker"), "2c 3d 8h Ts 5d") is None


@pytest.mark.parametrize(
    ("text", "rank", "kept"),
    [
        ("2c JK 8h Ts 5d", 10, ["JK", "Ts"]),
        ("2c JK 8h Ts 5d", 14, ["JK"]),
        ("Ac Kd Qh Js 9c", 11, ["Ac", "Kd", "Qh", "Js"]),
        ("Ac Kd Qh Js 9c", 9, None),  # all five: nothing to exchange (JD-5)
        ("2c 3d 5h 7s 8c", 10, None),  # none
    ],
)
def test_high_cards_keep_one_to_four_cards_of_the_rank_or_higher(text, rank, kept):
    assert held(Condition("high_cards", min_rank=rank), text) == kept


@pytest.mark.parametrize(
    ("text", "at_least", "kept"),
    [
        ("Kh 4c Kd 9s 7d", "pair", ["Kh", "Kd", "9s", "7d"]),  # the lowest odd card goes
        ("Kh 4c JK 9s 7d", "pair", ["Kh", "JK", "9s", "7d"]),  # the joker pairs the king
        ("8c 8d 8h Ad 2s", "pair", ["8c", "8d", "8h", "Ad"]),
        ("8c 8d 8h Ad 2s", "four_of_a_kind", None),
        ("6c 6d 6h 6s As", "four_of_a_kind", ["6c", "6d", "6h", "6s"]),
        ("5c 5d 9h 9s Qd", "two_pair", ["5c", "5d", "9h", "9s"]),
        ("5c 5d 9h 9s 9d", "pair", None),  # a full house has no odd card
        ("2c 5d 8h Ts Kc", "pair", None),
        ("9c Tc Jc Qc Kc", "pair", None),
    ],
)
def test_the_odd_card_holding_exchanges_the_lowest_card_outside_the_sets(text, at_least, kept):
    assert held(Condition("odd_card", at_least=at_least), text) == kept


@pytest.mark.parametrize(
    ("condition", "text", "kept"),
    [
        # The joker counts as any card of the suit; the most cards of the highest ranks stay.
        (Condition("straight_flush_draw", cards=3), "2c 8h Th Kh JK", ["Th", "Kh", "JK"]),
        (Condition("straight_flush_draw", cards=3), "2h 4h 6h 8h Kd", ["4h", "6h", "8h"]),
        (Condition("straight_flush_draw", cards=3), "Ac 2c 4c 9h 7d", ["Ac", "2c", "4c"]),
        (Condition("straight_flush_draw", cards=3), "9s Ts Js Qs Kd", ["9s", "Ts", "Js", "Qs"]),
        (Condition("straight_flush_draw", cards=3), "2c 8h Th Kh 5d", None),
        (Condition("straight_flush_draw", cards=4), "Ac 2c 4c JK 7d", ["Ac", "2c", "4c", "JK"]),
        (Condition("straight_flush_draw", cards=4), "Ac 2c 4c 9h 7d", None),
        (Condition("straight_flush_draw", cards=3), "Ac 2c 4c 3c JK", None),  # made
        (Condition("straight_flush_draw", cards=2, min_rank=13), "2c 9h Th Kh Ah", ["Kh", "Ah"]),
        (
            Condition("straight_flush_draw", cards=2, min_rank=10),
            "2c 9h Th Kh Ah",
            ["Th", "Kh", "Ah"],
        ),
        # The four that the most ranks complete, not the highest straight (JD-9.3's).
        (Condition("straight_draw", ranks=4), "6s 7d 8h Js JK", ["6s", "7d", "8h", "JK"]),
        (Condition("straight_draw", ranks=3), "7h 9h Jd As JK", None),
        (Condition("straight_draw", ranks=2), "7h 9h Jd As JK", ["7h", "9h", "Jd", "JK"]),
        (Condition("straight_draw", ranks=1), "5c 6d 8h 9s Kd", ["5c", "6d", "8h", "9s"]),
        (Condition("full_house_three"), "4c 4h 8d 8h 8s", ["8d", "8h", "8s"]),
        (Condition("full_house_three"), "Jd Js Kc Ks JK", ["Kc", "Ks", "JK"]),
        (Condition("full_house_three", min_rank=9), "4c 4h 8d 8h 8s", None),
        (Condition("full_house_three"), "4c 4h 8d 8h 9s", None),
        (Condition("odd_card", min_rank=11), "Kh 4c Kd 9s 7d", ["Kh", "Kd", "9s", "7d"]),
        (Condition("odd_card", min_rank=11), "Th 4c Td 9s 7d", None),
        (Condition("pair", kicker=12), "Jc Jd 4h 8s Kd", ["Jc", "Jd"]),
        (Condition("pair", kicker=12), "Jc Jd 4h 8s Td", None),
        (Condition("pair", joker=True), "Th 4c JK 9s 7d", ["Th", "JK"]),
        (Condition("pair", joker=False), "Th 4c JK 9s 7d", None),
        (Condition("pair", joker=False), "Th 4c Td 9s 7d", ["Th", "Td"]),
        (Condition("four_flush", joker=True), "2s 7s 8s 9d JK", ["2s", "7s", "8s", "JK"]),
        (Condition("four_flush", joker=False), "2s 7s 8s 9d JK", None),
    ],
)
def test_the_cards_holdings_keep_what_they_say(condition, text, kept):
    assert held(condition, text) == kept


def test_straight_flush_draws_match_a_plain_count_on_random_hands():
    """Per suit and five consecutive ranks (the ace also low), the cards held plus the joker."""
    rng = random.Random(11)
    rows = np.array([rng.sample(range(len(ALL_CARDS)), 5) for _ in range(3000)], np.uint8)
    match, keep = Hands(rows).condition(Condition("straight_flush_draw", cards=3))
    for row, fits, kept in zip(rows, match, keep, strict=True):
        cards = [ALL_CARDS[i] for i in row]
        joker = sum(card.is_joker for card in cards)
        most = max(
            sum(
                card.suit == suit
                and (low <= (card.rank or 0) <= low + 4 or low == 1 == card.rank % 13)
                for card in cards
                if not card.is_joker
            )
            + joker
            for suit in {card.suit for card in cards if not card.is_joker}
            for low in range(1, 11)
        )
        assert fits == (3 <= most <= 4)
        if fits:
            assert kept.sum() == most


def test_high_cards_match_a_plain_count_on_random_hands():
    rng = random.Random(5)
    rows = np.array([rng.sample(range(len(ALL_CARDS)), 5) for _ in range(3000)], np.uint8)
    match, keep = Hands(rows).condition(Condition("high_cards", min_rank=12))
    for row, fits, kept in zip(rows, match, keep, strict=True):
        high = [ALL_CARDS[i].is_joker or (ALL_CARDS[i].rank or 0) >= 12 for i in row]
        assert fits == (1 <= sum(high) <= 4)
        if fits:
            assert list(kept) == high


def rule(hand: str, do: str, **when: object) -> dict:
    return {"when": {"hand": hand, **when}, "do": do}


CARD = {
    "first": [
        rule("made", "bet", at_least="straight"),
        rule("pair", "exchange", min_rank="J"),
        rule("full_house_three", "exchange"),
        rule("straight_flush_draw", "exchange", cards=2, min_rank="T"),
        rule("joker", "exchange"),
        rule("high_cards", "exchange", min_rank="Q"),
        rule("any", "bet"),
    ],
    "second": [
        rule("odd_card", "exchange", at_least="two_pair"),
        rule("odd_card", "exchange", at_least="pair", min_rank="K", joker=False),
        rule("straight_flush_draw", "exchange", cards=4, joker=True),
        rule("straight_draw", "exchange", ranks=3),
        rule("four_flush", "exchange"),
        rule("pair", "bet", min_rank="J", kicker="Q"),
        rule("any", "bet"),
    ],
    "third": [rule("any", "fold")],
}


def test_cards_with_the_new_holdings_round_trip_through_json():
    card = strategy_from_table("card", CARD)
    assert strategy_to_table(card) == json.loads(json.dumps(CARD))


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            {"first": [rule("high_cards", "exchange"), rule("any", "bet")]},
            r"^first\[0\]\.when\.min_rank",
        ),
        (
            {"first": [rule("joker", "exchange", min_rank="Q"), rule("any", "bet")]},
            r"^first\[0\]\.when\.min_rank: not a parameter of 'joker'",
        ),
        (
            {
                "first": [rule("any", "exchange")],
                "second": [rule("high_cards", "exchange", min_rank="Q"), rule("any", "bet")],
            },
            r"^second\[0\]\.do: 'high_cards' exchanges one to four cards.*JD-6",
        ),
        (
            {"first": [rule("odd_card", "exchange", at_least="flush"), rule("any", "bet")]},
            r"^first\[0\]\.when\.at_least: 'flush' is not one of pair",
        ),
        (
            {
                "first": [rule("any", "exchange")],
                "second": [rule("joker", "exchange"), rule("any", "bet")],
            },
            r"^second\[0\]\.do: 'joker' exchanges 4 cards.*JD-6",
        ),
        (
            {"first": [rule("straight_flush_draw", "exchange"), rule("any", "bet")]},
            r"^first\[0\]\.when\.cards: 'straight_flush_draw' needs 2, 3 or 4",
        ),
        (
            {"first": [rule("straight_draw", "exchange", ranks=5), rule("any", "bet")]},
            r"^first\[0\]\.when\.ranks: 'straight_draw' needs 1 to 4",
        ),
        (
            {"first": [rule("pair", "exchange", kicker="X"), rule("any", "bet")]},
            r"^first\[0\]\.when\.kicker: 'X' is not a rank letter",
        ),
        (
            {"first": [rule("two_pair", "exchange", kicker="Q"), rule("any", "bet")]},
            r"^first\[0\]\.when\.kicker: not a parameter of 'two_pair'",
        ),
        (
            {"first": [rule("pair", "exchange", joker="yes"), rule("any", "bet")]},
            r"^first\[0\]\.when\.joker: true",
        ),
        (
            {"first": [rule("joker", "exchange", joker=True), rule("any", "bet")]},
            r"^first\[0\]\.when\.joker: not a parameter of 'joker'",
        ),
        (
            {
                "first": [rule("any", "exchange")],
                "second": [rule("straight_flush_draw", "exchange", cards=3), rule("any", "bet")],
            },
            r"^second\[0\]\.do: 'straight_flush_draw' exchanges one to four cards.*JD-6",
        ),
        (
            {
                "first": [rule("any", "exchange")],
                "second": [rule("full_house_three", "exchange"), rule("any", "bet")],
            },
            r"^second\[0\]\.do: 'full_house_three' exchanges 2 cards.*JD-6",
        ),
    ],
)
def test_bad_uses_of_the_new_holdings_are_refused_naming_the_field(table, message):
    with pytest.raises(ValueError, match=message):
        strategy_from_table("bad", table)


def test_greedy_ranking_puts_each_rule_where_it_wins_most():
    """Ten hands: rule A fits 0-3 (worth 1 each), B fits 2-7 (worth 0.5), C wins next to
    nothing; betting anything is worth 0, folding -1. A comes first; B goes after A, where it
    wins 2, not before it, where it would take hands 2 and 3 from A; C is left off."""
    fits = np.zeros((5, 10), bool)
    value = np.zeros((5, 10))
    fits[0, 0:4], value[0, 0:4] = True, 1.0
    fits[1, 2:8], value[1, 2:8] = True, 0.5
    fits[2, 9], value[2, 9] = True, 1e-9
    fits[3:] = True
    value[4] = -1.0
    rules = [
        Rule(Condition("pair"), "bet"),
        Rule(Condition("two_pair"), "bet"),
        Rule(Condition("joker"), "exchange"),
        Rule(Condition("any"), "bet"),
        Rule(Condition("any"), "fold"),
    ]
    values = StageValues(rules, fits, value, value.max(axis=0))
    assert derive_stage(values) == (rules[0], rules[1], rules[3])
    assert derive_stage(values, max_rules=2) == (rules[0], rules[3])


def test_the_ranking_exchanges_a_broad_rule_for_two_narrow_ones_worth_more():
    """Ten hands, betting anything worth 0: X fits them all (worth 1 each), Y the first five
    and Z the last five (1.9 each). Greedy insertion takes X first (10 over 9.5), then Y
    before it; taking X out again and putting Z in wins more (19 over 14.5), and with room
    for more rules X is left off once Y and Z take every hand it would decide."""
    fits = np.zeros((4, 10), bool)
    value = np.zeros((4, 10))
    fits[0], value[0] = True, 1.0
    fits[1, :5], value[1, :5] = True, 1.9
    fits[2, 5:], value[2, 5:] = True, 1.9
    fits[3] = True
    rules = [
        Rule(Condition("pair"), "bet"),
        Rule(Condition("two_pair"), "bet"),
        Rule(Condition("three_of_a_kind"), "bet"),
        Rule(Condition("any"), "bet"),
    ]
    values = StageValues(rules, fits, value, value.max(axis=0))
    for chosen in (derive_stage(values, max_rules=3), derive_stage(values)):
        assert len(chosen) == 3
        assert {*chosen[:2]} == {rules[1], rules[2]}  # they share no hand: either order
        assert chosen[2] == rules[3]


def test_a_comparison_plays_both_on_the_laboratorys_decks():
    """The same seed deals what `simulate` deals: each side's RTP is the laboratory's; a
    player against itself differs by nothing, and the paired interval holds the difference."""
    measured = compare(BET, REFERENCE, STAND, 3000, 8)
    assert measured.first_rtp == summarize(simulate(BET, {}, REFERENCE, 3000, 8)).game_rtp
    assert measured.second_rtp == summarize(simulate(BET, {}, STAND, 3000, 8)).game_rtp
    low, high = measured.difference_ci99
    assert low < measured.difference < high
    assert measured.difference == pytest.approx(measured.first_rtp - measured.second_rtp, abs=1e-3)
    same = compare(BET, REFERENCE, REFERENCE, 3000, 8)
    assert same.difference == 0
    assert same.difference_ci99 == (0.0, 0.0)
    with pytest.raises(ValueError, match="^rounds"):
        compare(BET, REFERENCE, STAND, 1, 8)
