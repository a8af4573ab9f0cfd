"""What a player reads about a settled joker draw box: every settlement line in words, with
the rule and the paytable line that moved the money (JD-10..JD-13). Rounds are played on the
engine with stacked decks, so each outcome is certain."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from games.engine import joker_draw
from games.joker_draw import explain
from tests.fixtures.joker_draw import stacked_deck

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
BONUS = {"straight": Fraction(40), "flush": Fraction(60), "full_house": Fraction(100)}


def play(
    box: str, dealer: str, *actions: joker_draw.Action, then="", bonus=None, bet=BET
) -> list[str]:
    """One box with an ante of 0.30 against the dealer, who draws from `then` (JD-8)."""
    deck = stacked_deck([box], dealer, then)
    state, _ = joker_draw.start_round(
        deck,
        [joker_draw.Stake(1, Decimal("0.30"), Decimal(bonus) if bonus else None)],
        bet_paytable=bet,
        bonus_paytable=BONUS,
    )
    for action in actions:
        state, _ = joker_draw.apply(state, action)
    assert state.phase == joker_draw.Phase.SETTLED
    return explain.box_lines(state.boxes[0], state.results[0], state)


def test_paytable_lines_are_named_in_words_not_by_their_codes():  # JD-14
    assert explain.line_name("royal_flush") == "Royal flush"
    assert explain.line_name("three_of_a_kind") == "Three of a kind"


def test_a_fold_says_the_ante_is_lost():  # JD-12
    lines = play("2c 5d 8h Ts Kc", "Ac Ad 4h 7s 9c", joker_draw.Fold(1))
    assert lines == ["Folded: ante 0.30 lost."]


def test_a_box_out_of_time_says_it_was_folded_by_the_timer():  # JD-4, JD-12
    lines = play("2c 5d 8h Ts Kc", "Ac Ad 4h 7s 9c", joker_draw.Fold(1, timed_out=True))
    assert lines == ["Timed out: box folded, ante 0.30 lost."]


def test_a_dealer_without_a_game_pays_the_ante_two_to_three_and_returns_the_bet():  # JD-10, JD-11
    # The dealer's 2 3 5 7 9 exchanges all five (JD-9.6) for 4c 6d 8c Td Qc: queen high.
    lines = play("Kc Kd 4h 7s 9c", "2c 3d 5h 7c 9d", joker_draw.Bet(1), then="4c 6d 8c Td Qc")
    assert lines == ["Dealer does not qualify: ante pays 2:3 (0.20 won), bet returned."]


def test_a_dealer_without_a_game_names_the_odds_of_the_no_game_line_it_paid():  # JD-11a
    bet = {**BET, joker_draw.NO_GAME_LINE: Fraction(1, 2)}
    lines = play(
        "Kc Kd 4h 7s 9c", "2c 3d 5h 7c 9d", joker_draw.Bet(1), then="4c 6d 8c Td Qc", bet=bet
    )
    assert lines == ["Dealer does not qualify: ante pays 1:2 (0.15 won), bet returned."]


def test_the_no_game_line_is_named_in_words():  # JD-11a
    assert explain.line_name("no_game") == "No game (dealer does not qualify)"


def test_a_higher_dealer_hand_takes_ante_and_bet():  # JD-11
    # The dealer's three aces exchange two (JD-9.1) for 2c 4d.
    lines = play("Kc Kd 4h 7s 9c", "Ac Ad Ah 3s 5d", joker_draw.Bet(1), then="2c 4d")
    assert lines == ["Dealer's Three of a kind, aces beats your Pair of kings: ante and bet lost."]


def test_a_winning_box_names_the_paytable_line_that_paid_its_bet():  # JD-11, JD-14
    # Four queens stand against the dealer's three aces: the bet pays 3:1 on 0.60.
    lines = play("Qc Qd Qh Qs 9c", "Ac Ad Ah 3s 5d", joker_draw.Bet(1), then="2c 4d")
    assert lines == [
        "Your Four of a kind, queens beats the dealer's Three of a kind, aces: ante pays 1:1 "
        "(0.30 won), bet pays 3:1 by the Four of a kind line (1.80 won)."
    ]


def test_a_winning_hand_the_paytable_does_not_list_is_paid_one_to_one():  # JD-11
    without_trips = {line: odds for line, odds in BET.items() if line != "three_of_a_kind"}
    # The dealer keeps the jacks (JD-9.4) and draws 3c 5h 8d: a pair of jacks has a game.
    lines = play(
        "Kc Kd Ks 7s 9c", "Jc Jd 4h 7c 2d", joker_draw.Bet(1), then="3c 5h 8d", bet=without_trips
    )
    assert lines[0].endswith("bet pays 1:1 (0.60 won): the paytable does not list this hand."), (
        lines
    )


def test_equal_hands_push():  # JD-11, HR-9
    # Both hold the same straight; the dealer stands on it (JD-9.0).
    lines = play("5c 6d 7h 8s 9c", "5d 6h 7s 8c 9d", joker_draw.Bet(1))
    assert lines == ["Equal hands, Straight, Nine high each: ante and bet returned."]


def test_the_bonus_line_names_the_first_five_cards_line_or_the_loss():  # JD-13
    # A flush as dealt pays 60:1 on 0.10 even though the box folds afterwards.
    paid = play("2h 7h 9h Jh Kh", "Ac Ad 4h 7s 9c", joker_draw.Fold(1), bonus="0.10")
    assert paid == [
        "Folded: ante 0.30 lost.",
        "BONUS: your first five cards pay 60:1 by the Flush line (6.00 won).",
    ]
    lost = play("2c 5d 8h Ts Kc", "Ac Ad 4h 7s 9c", joker_draw.Fold(1), bonus="0.10")
    assert lost[1] == "BONUS: your first five cards, King high, pay nothing: 0.10 lost."
