"""Joker draw poker engine: deal, decisions, the dealer's draw and settlement (JD-1..JD-16)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.cards import ALL_CARDS, Card, parse_cards
from games.engine.fairness import deck_order
from games.engine.hands import evaluate
from games.engine.joker_draw import (
    NO_GAME_LINE,
    NO_GAME_ODDS,
    Action,
    Bet,
    Box,
    BoxStatus,
    Exchange,
    Fold,
    Phase,
    RuleViolation,
    Stake,
    apply,
    dealer_discards,
    dealer_qualifies,
    from_json,
    no_game_odds,
    settle_box,
    start_round,
    to_json,
    top_payout,
)
from tests.fixtures.joker_draw import stacked_deck

D = Decimal
BET_PAYTABLE = {
    "pair": Fraction(1), "two_pair": Fraction(1), "three_of_a_kind": Fraction(1),
    "straight": Fraction(1), "flush": Fraction(1), "full_house": Fraction(2),
    "four_of_a_kind": Fraction(3), "straight_flush": Fraction(5), "royal_flush": Fraction(10),
    "five_of_a_kind": Fraction(20),
}  # fmt: skip
BONUS_PAYTABLE = {
    "straight": Fraction(40), "flush": Fraction(60), "full_house": Fraction(100),
    "four_of_a_kind": Fraction(200), "straight_flush": Fraction(500),
    "royal_flush": Fraction(1000), "five_of_a_kind": Fraction(2000),
}  # fmt: skip


def play(boxes, dealer, then="", antes=None, bonuses=None):
    stakes = [
        Stake(box=n + 1, ante=(antes or {}).get(n + 1, D("0.30")), bonus=(bonuses or {}).get(n + 1))
        for n in range(len(boxes))
    ]
    return start_round(
        stacked_deck(boxes, dealer, then),
        stakes,
        bet_paytable=BET_PAYTABLE,
        bonus_paytable=BONUS_PAYTABLE,
    )


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


# JD-3: the deal -------------------------------------------------------------------------------


def test_deal_is_one_card_at_a_time_boxes_in_order_then_the_dealer():
    """JD-3: with two boxes, box 1 gets deck positions 0, 3, 6, 9, 12 and the dealer 2, 5, ..."""
    deck = list(ALL_CARDS)
    state, events = start_round(
        deck,
        [Stake(1, D("0.30")), Stake(2, D("0.60"))],
        bet_paytable=BET_PAYTABLE,
        bonus_paytable=BONUS_PAYTABLE,
    )
    assert state.boxes[0].cards == tuple(deck[i] for i in (0, 3, 6, 9, 12))
    assert state.boxes[1].cards == tuple(deck[i] for i in (1, 4, 7, 10, 13))
    assert state.dealer_initial == tuple(deck[i] for i in (2, 5, 8, 11, 14))
    assert state.dealt == 15
    assert events[0].kind == "dealt"
    assert events[0].data["positions"] == {
        "1": [0, 3, 6, 9, 12],
        "2": [1, 4, 7, 10, 13],
        "dealer": [2, 5, 8, 11, 14],
    }
    assert state.to_act is state.boxes[0]


def test_a_round_needs_the_53_card_deck_and_one_to_three_boxes():
    """JD-1, JD-16."""
    with pytest.raises(ValueError, match="53-card deck"):
        start_round(list(ALL_CARDS[:52]), [Stake(1, D("0.30"))], bet_paytable={}, bonus_paytable={})
    with pytest.raises(RuleViolation, match="JD-16"):
        start_round(
            list(ALL_CARDS),
            [Stake(n, D("0.30")) for n in (1, 2, 3, 4)],
            bet_paytable={},
            bonus_paytable={},
        )


# JD-4..JD-7: decisions ------------------------------------------------------------------------


def test_boxes_act_in_order_and_each_finishes_before_the_next():
    """JD-4."""
    state, _ = play(["2c 7d 9h Js Kc", "3c 8d Th Qs Ac"], "4c 5d 6h 8s 9c")
    with pytest.raises(RuleViolation, match="box 1 acts first") as refused:
        apply(state, Bet(2))
    assert refused.value.rule == "JD-4"
    state, _ = apply(state, Exchange(1, cards("2c 7d")))
    assert state.to_act.number == 1  # still box 1: it has decisions left
    state, _ = apply(state, Bet(1))
    assert state.to_act.number == 2


def test_exchange_costs_an_ante_and_draws_from_the_top():
    """JD-5: exchanging two cards makes the ante 2A; replacements are the next deck cards."""
    state, _ = play(["2c 7d 9h Js Kc"], "4c 5d 6h 8s 9c", then="Ah As")
    state, events = apply(state, Exchange(1, cards("2c 7d")))
    box = state.boxes[0]
    assert box.cards == cards("Ah As 9h Js Kc")
    assert box.ante == D("0.60")
    assert events[0].data["positions"] == [10, 11]
    assert events[0].data["extra_ante"] == "0.30"


def test_second_exchange_is_exactly_one_card_and_third_decision_is_fold_or_bet():
    """JD-6, JD-7: antes A, 2A, 3A and a bet of twice the current ante (6A after two)."""
    state, _ = play(["2c 7d 9h Js Kc"], "4c 5d 6h 8s 9c", then="Ah As Ad")
    state, _ = apply(state, Exchange(1, cards("2c 7d")))
    with pytest.raises(RuleViolation, match="exactly one card") as refused:
        apply(state, Exchange(1, cards("9h Js")))
    assert refused.value.rule == "JD-6"
    state, _ = apply(state, Exchange(1, cards("9h")))
    assert state.boxes[0].options() == ("fold", "bet")
    assert state.boxes[0].ante == D("0.90")
    with pytest.raises(RuleViolation, match="only fold or bet") as refused:
        apply(state, Exchange(1, cards("Js")))
    assert refused.value.rule == "JD-7"
    state, events = apply(state, Bet(1))
    assert state.boxes[0].bet == D("1.80")
    assert events[0].data == {"box": 1, "bet": "1.80", "ante": "0.90"}


@pytest.mark.parametrize(
    ("discard", "words", "rule"),
    [
        ("", "1 to 5 cards", "JD-5"),
        ("As", "As not in box 1's hand", "JD-5"),
    ],
)
def test_refused_first_exchanges(discard, words, rule):
    state, _ = play(["2c 7d 9h Js Kc"], "4c 5d 6h 8s 9c")
    with pytest.raises(RuleViolation, match=words) as refused:
        apply(state, Exchange(1, cards(discard)))
    assert refused.value.rule == rule
    assert refused.value.field == "cards"


def test_a_card_named_twice_is_refused():
    state, _ = play(["2c 7d 9h Js Kc"], "4c 5d 6h 8s 9c")
    with pytest.raises(RuleViolation, match="named twice"):
        apply(state, Exchange(1, (parse_cards("2c")[0], parse_cards("2c")[0])))


def test_a_closed_box_cannot_act_again():
    state, _ = play(["2c 7d 9h Js Kc", "3c 8d Th Qs Ac"], "4c 5d 6h 8s 9c")
    state, _ = apply(state, Fold(1))
    with pytest.raises(RuleViolation, match="already folded"):
        apply(state, Bet(1))


# JD-8: the dealer ------------------------------------------------------------------------------


def test_when_every_box_folds_the_dealer_does_not_draw():
    """JD-8: only the BONUS is left to settle."""
    state, events = play(["Kc Kd Kh 2s 3c"], "4c 5d 6h 8s 9c", bonuses={1: D("1.00")})
    state, events = apply(state, Fold(1))
    assert state.phase == Phase.SETTLED
    assert [e.kind for e in events] == ["fold", "dealer_reveal", "dealer_hand", "box_settled"]
    assert state.dealer_final == state.dealer_initial
    assert state.results[0].ante == D("-0.30")
    assert state.results[0].bonus == D("-1.00")  # trips is below the lowest BONUS line


def test_dealer_draws_once_from_the_top_after_the_last_box_closes():
    """JD-8, JD-9.4: the dealer keeps the pair of queens and draws three from the top."""
    state, _ = play(["2c 7d 9h Js Kc"], "Qc Qd 2h 7s 9c", then="As Ks Qs")
    state, events = apply(state, Exchange(1, cards("2c")))  # draws As
    state, events = apply(state, Bet(1))
    draw = next(e for e in events if e.kind == "dealer_draw")
    assert draw.data["discarded"] == ["2h", "7s", "9c"]
    assert draw.data["drawn"] == ["Ks", "Qs", "2d"]
    assert draw.data["positions"] == [11, 12, 13]
    assert state.dealer_final == cards("Qc Qd Ks Qs 2d")


# JD-9: the dealer's draw algorithm -----------------------------------------------------------

DEALER_CASES = [
    # (rule, hand, exchanged)
    ("JD-9.0 straight stands", "5c 6d 7h 8s 9c", ""),
    ("JD-9.0 joker straight stands", "JK 6d 7h 8s 9c", ""),
    ("JD-9.0 flush stands", "2h 7h 9h Jh Kh", ""),
    ("JD-9.0 joker flush stands", "JK 7h 9h Jh Kh", ""),
    ("JD-9.0 full house stands", "Qc Qd Qh 3s 3c", ""),
    ("JD-9.0 joker full house stands", "JK Qd Qh 3s 3c", ""),
    ("JD-9.0 four of a kind stands", "9c 9d 9h 9s 3c", ""),
    ("JD-9.0 five of a kind stands", "JK Ac Ad Ah As", ""),
    ("JD-9.0 straight flush stands", "5c 6c 7c 8c 9c", ""),
    ("JD-9.0 two pair keeps both pairs", "As Ah Kd Kc 2s", "2s"),
    ("JD-9.1 three of a kind", "7c 7d 7h 2s 3c", "2s 3c"),
    ("JD-9.1 three of a kind with the joker", "JK 7d 7h 2s 3c", "2s 3c"),
    ("JD-9.1 trips before a four-flush", "JK Ah As Kh Qh", "Kh Qh"),
    ("JD-9.2 four of a suit", "Ah 9h 5h 3h Ks", "Ks"),
    ("JD-9.2 four of a suit even with a pair", "Ah 9h 5h 3h 3s", "3s"),
    ("JD-9.2 four of a suit with the joker", "JK Ah 9h 5h 3s", "3s"),
    ("JD-9.2 four of a suit before an open straight", "5h 6h 7h Kh 8s", "8s"),
    ("JD-9.3 open straight", "2c 3d 4h 5s 9c", "9c"),
    ("JD-9.3 open straight before a pair", "5c 6d 7h 8s 8d", "8d"),
    ("JD-9.3 open straight with the joker", "JK 5c 6d 7h Ks", "Ks"),
    ("JD-9.3 joker, ace and wheel cards", "JK Ac 2d 3h 9s", "9s"),
    ("JD-9.3 of two open sets, the higher straight", "JK 5c 6d 9h Ts", "5c"),
    ("JD-9.3 open beats inside in the same hand", "4c 5d 6h 7s 9c", "9c"),
    ("JD-9.4 pair", "Qc Qd 2h 7s 9c", "2h 7s 9c"),
    ("JD-9.4 pair before an inside straight", "9c Tc Jd Kh Kd", "9c Tc Jd"),
    ("JD-9.4 joker and the highest card", "JK Kc 9d 4h 2s", "9d 4h 2s"),
    ("JD-9.5 inside straight", "8c 9d Jh Qs 2c", "2c"),
    ("JD-9.5 A-2-3-4 is inside", "Ac 2d 3h 4s 9c", "9c"),
    ("JD-9.5 J-Q-K-A is inside", "Jc Qd Kh As 3c", "3c"),
    ("JD-9.5 of two inside sets, the higher straight", "9c Tc Qd Kh As", "9c"),
    ("JD-9.6 nothing: all five", "2c 7d 9h Js Kc", "2c 7d 9h Js Kc"),
]


@pytest.mark.parametrize(
    ("rule", "hand", "exchanged"), DEALER_CASES, ids=[c[0] for c in DEALER_CASES]
)
def test_dealer_draw_algorithm(rule, hand, exchanged):
    assert dealer_discards(parse_cards(hand)) == parse_cards(exchanged)


def test_the_dealer_never_throws_the_joker():
    """JD-9 with HR-6: every hand with the joker keeps it (it is at least a pair)."""
    others = [card for card in ALL_CARDS if not card.is_joker]
    joker = ALL_CARDS[-1]
    for start in range(0, 48, 3):
        hand = [joker, *others[start : start + 4]]
        assert joker not in dealer_discards(hand)


# JD-10..JD-13: settlement ---------------------------------------------------------------------


def a_box(
    hand: str, status=BoxStatus.BET, exchanges=0, ante="0.30", bonus=None, initial=None
) -> Box:
    return Box(
        number=1,
        base_ante=D(ante),
        bonus=D(bonus) if bonus else None,
        initial_cards=cards(initial or hand),
        cards=cards(hand),
        exchanges=exchanges,
        status=status,
    )


@pytest.mark.parametrize(
    ("hand", "qualifies"),
    [("Jc Jd 2h 7s 9c", True), ("Tc Td 2h 7s 9c", False), ("JK Jd 2h 7s 9c", True),
     ("Ac Kd 2h 7s 9c", False), ("2c 2d 3h 3s 9c", True)],
)  # fmt: skip
def test_dealer_game_is_a_pair_of_jacks_or_better(hand, qualifies):
    """JD-10."""
    assert dealer_qualifies(evaluate(parse_cards(hand))) is qualifies


@pytest.mark.parametrize(
    ("exchanges", "ante_total", "won"),
    [(0, "0.30", "0.20"), (1, "0.60", "0.40"), (2, "0.90", "0.60")],
)
def test_no_dealer_game_pays_the_total_ante_2_to_3_and_returns_the_bet(exchanges, ante_total, won):
    """JD-11: 0.30 / 0.60 / 0.90 antes win 0.20 / 0.40 / 0.60; the bet is returned."""
    box = a_box("2c 7d 9h Js Kc", exchanges=exchanges)
    assert box.ante == D(ante_total)
    result = settle_box(box, evaluate(parse_cards("Tc Td 2h 7s 9c")), BET_PAYTABLE, BONUS_PAYTABLE)
    assert (result.ante, result.bet, result.total) == (D(won), D(0), D(won))


def test_dealer_higher_takes_ante_and_bet():
    """JD-11: after one exchange the box lost 0.60 ante and 1.20 bet."""
    result = settle_box(
        a_box("Qc Qd 9h 7s 2c", exchanges=1),
        evaluate(parse_cards("Kc Kd 2h 7d 9c")),
        BET_PAYTABLE,
        {},
    )
    assert (result.ante, result.bet, result.total) == (D("-0.60"), D("-1.20"), D("-1.80"))


@pytest.mark.parametrize(
    ("hand", "line", "bet_won"),
    [
        ("Ac Ad 9h 7s 2c", "pair", "0.60"),
        ("Ac Ad 9h 9s 2c", "two_pair", "0.60"),
        ("Ac Ad Ah 9s 2c", "three_of_a_kind", "0.60"),
        ("5c 6d 7h 8s 9c", "straight", "0.60"),
        ("2h 7h 9h Jh Kh", "flush", "0.60"),
        ("Ac Ad Ah 9s 9c", "full_house", "1.20"),
        ("Ac Ad Ah As 9c", "four_of_a_kind", "1.80"),
        ("5c 6c 7c 8c 9c", "straight_flush", "3.00"),
        ("Tc Jc Qc Kc Ac", "royal_flush", "6.00"),
        ("JK Jc Qc Kc Ac", "royal_flush", "6.00"),
        ("JK Ac Ad Ah As", "five_of_a_kind", "12.00"),
    ],
)
def test_box_higher_wins_ante_1_to_1_and_bet_at_the_paytable_line(hand, line, bet_won):
    """JD-11 with the JD-14 default bet paytable; HR-10's royal line, with and without joker."""
    dealer = evaluate(parse_cards("Jc Jd 2h 7d 3c"))
    result = settle_box(a_box(hand), dealer, BET_PAYTABLE, {})
    assert (result.ante, result.bet, result.bet_line) == (D("0.30"), D(bet_won), line)


def test_a_hand_the_paytable_does_not_list_pays_the_bet_1_to_1():
    """JD-11: "a hand the paytable does not list pays the bet 1:1"."""
    result = settle_box(
        a_box("Ac Ad 9h 7s 2c"), evaluate(parse_cards("Jc Jd 2h 7d 3c")), {"flush": Fraction(5)}, {}
    )
    assert (result.bet, result.bet_line) == (D("0.60"), None)


def test_equal_hands_push():
    """JD-11 Decision with HR-9: the joker's pair of kings ties the natural pair of kings."""
    result = settle_box(
        a_box("JK Kd 9h 5s 3c"), evaluate(parse_cards("Kc Kh 9c 5d 3s")), BET_PAYTABLE, {}
    )
    assert (result.ante, result.bet, result.total) == (D(0), D(0), D(0))


def test_a_folded_box_loses_its_total_ante_whatever_the_dealer_holds():
    """JD-12."""
    box = a_box("Ac Ad Ah As 9c", status=BoxStatus.FOLDED, exchanges=2)
    result = settle_box(box, evaluate(parse_cards("2c 3d 5h 7s 9c")), BET_PAYTABLE, {})
    assert (result.ante, result.bet) == (D("-0.90"), D(0))


def test_bonus_pays_on_the_first_five_cards_even_after_a_fold():
    """JD-13: dealt a flush, exchanged it away and folded: the BONUS still pays 60:1."""
    box = a_box(
        "2c 3d 9h 8s 7c",
        status=BoxStatus.FOLDED,
        exchanges=1,
        bonus="0.50",
        initial="2h 7h 9h Jh Kh",
    )
    result = settle_box(box, evaluate(parse_cards("Ac Ad 2h 7d 3c")), BET_PAYTABLE, BONUS_PAYTABLE)
    assert (result.bonus_category, result.bonus_line, result.bonus) == (
        "flush",
        "flush",
        D("30.00"),
    )
    assert result.total == D("29.40")


def test_bonus_below_the_lowest_line_loses_and_royal_pays_its_own_line():
    """JD-13, HR-10."""
    dealer = evaluate(parse_cards("Ac Ad 2h 7d 3c"))
    lost = settle_box(a_box("Kc Kd Kh 9s 2c", bonus="1.00"), dealer, BET_PAYTABLE, BONUS_PAYTABLE)
    assert (lost.bonus_line, lost.bonus) == (None, D("-1.00"))
    royal = settle_box(a_box("JK Qh Kh Ah Jh", bonus="1.00"), dealer, BET_PAYTABLE, BONUS_PAYTABLE)
    assert (royal.bonus_line, royal.bonus) == ("royal_flush", D("1000.00"))


def test_a_payout_of_a_fraction_of_a_cent_is_never_rounded():
    """JD-2: configuration validation prevents it; the engine refuses rather than round."""
    with pytest.raises(ValueError, match="fraction of a cent"):
        settle_box(
            a_box("2c 7d 9h Js Kc", ante="0.10"),
            evaluate(parse_cards("Tc Td 2h 7s 9c")),
            BET_PAYTABLE,
            {},
        )


# JD-11a: the no-game payment is the bet paytable's line ------------------------------------


def no_game_round(bet_paytable, ante="0.30"):
    """Box 1 bets a pair of kings; the dealer's 2 3 5 7 9 exchanges all five (JD-9.6) for
    4c 6d 8c Td Qc: queen high, no game (JD-10)."""
    state, _ = start_round(
        stacked_deck(["Kc Kd 4h 7s 9c"], "2c 3d 5h 7c 9d", "4c 6d 8c Td Qc"),
        [Stake(1, D(ante))],
        bet_paytable=bet_paytable,
        bonus_paytable=BONUS_PAYTABLE,
    )
    state, _ = apply(state, Bet(1))
    return state.results[0]


@pytest.mark.parametrize(
    ("odds", "won"),
    [
        (Fraction(1, 2), D("0.45")),
        (Fraction(1), D("0.90")),
        (Fraction(3, 2), D("1.35")),
    ],
)
def test_a_dealer_without_a_game_pays_the_total_ante_at_the_no_game_line(odds, won):
    """JD-11a: the house's line prices the no-game payment on the total ante, here 3A after
    two exchanges (JD-6); the bet is returned."""
    deck = stacked_deck(["Kc Kd 4h 7s 9c"], "2c 3d 5h 7c 9d", "2h 3h 4c 6d 8c Td Qc")
    state, _ = start_round(
        deck,
        [Stake(1, D("0.30"))],
        bet_paytable={**BET_PAYTABLE, NO_GAME_LINE: odds},
        bonus_paytable=BONUS_PAYTABLE,
    )
    state, _ = apply(state, Exchange(1, cards("4h")))
    state, _ = apply(state, Exchange(1, cards("2h")))
    state, events = apply(state, Bet(1))
    assert state.boxes[0].ante == D("0.90")  # JD-6: 3A
    assert not dealer_qualifies(state.dealer_value)
    result = state.results[0]
    assert (result.ante, result.bet, result.bet_line) == (won, D(0), None)
    assert events[-1].data["ante"] == f"{won:.2f}"


def test_a_bet_paytable_without_the_line_pays_the_sources_two_to_three():  # JD-11, JD-11a
    assert no_game_odds(BET_PAYTABLE) == NO_GAME_ODDS == Fraction(2, 3)
    assert no_game_round(BET_PAYTABLE).ante == D("0.20")
    assert no_game_round({**BET_PAYTABLE, NO_GAME_LINE: Fraction(1)}).ante == D("0.30")


def test_the_no_game_line_is_not_a_hand_and_pays_no_bet():  # JD-11, JD-11a
    """A line above every hand's must not pay a winning box's bet: a hand the paytable does
    not list still pays 1:1."""
    paytable = {NO_GAME_LINE: Fraction(5), "two_pair": Fraction(2)}
    dealer = evaluate(parse_cards("Jc Jd 2h 7d 3c"))
    result = settle_box(a_box("Kc Kd 4h 7s 9c"), dealer, paytable, BONUS_PAYTABLE)
    assert (result.ante, result.bet, result.bet_line) == (D("0.30"), D("0.60"), None)


def test_a_bonus_paytable_with_a_no_game_line_is_refused_naming_it():  # JD-11a, JD-13
    with pytest.raises(ValueError, match=r"^bonus_paytable: the no_game line .*\(JD-11a\)"):
        start_round(
            list(ALL_CARDS),
            [Stake(1, D("0.30"))],
            bet_paytable=BET_PAYTABLE,
            bonus_paytable={**BONUS_PAYTABLE, NO_GAME_LINE: Fraction(1)},
        )


# A whole round, and its JSON form -------------------------------------------------------------


def test_a_whole_round_settles_every_box_and_survives_json():
    state, _ = play(
        ["Ac Ad 9h 7s 2c", "2s 7d 9s Js Kc", "5c 6c 7c 8c Kd"],
        "Qc Qd 3h 4s 5d",
        then="2d 2h 3c 3d",
        bonuses={1: D("0.30")},
        antes={2: D("0.60")},
    )
    state = from_json(to_json(state))
    state, _ = apply(state, Bet(1))
    state, _ = apply(state, Fold(2, timed_out=True))
    state, events = apply(state, Exchange(3, cards("Kd")))
    state = from_json(to_json(state))
    state, events = apply(state, Bet(3))
    assert state.phase == Phase.SETTLED
    assert state.boxes[2].cards == cards("5c 6c 7c 8c 2d")
    assert state.dealer_final == cards("Qc Qd 2h 3c 3d")  # JD-9.4 kept the queens
    # Two pair qualifies (JD-10) and beats the aces and the seven-high hand (JD-11).
    assert [(r.box, r.ante, r.bet, r.bonus) for r in state.results] == [
        (1, D("-0.30"), D("-0.60"), D("-0.30")),
        (2, D("-0.60"), D(0), D(0)),
        (3, D("-0.60"), D("-1.20"), D(0)),
    ]
    assert from_json(to_json(state)) == state
    assert sum(1 for e in events if e.kind == "box_settled") == 3


# What a round can cost the house at most (the bankroll's hold, HB-1) ---------------------------


def test_the_top_payout_is_three_antes_the_bet_at_the_top_line_and_the_bonus_at_its_top():
    """JD-5..7: two exchanges make the ante 3A and the bet 6A; JD-11: the ante pays 1:1 (a
    no-game's 2:3 is less); JD-13: the BONUS at its top line."""
    stakes = [Stake(1, D("0.30"), D("6.00")), Stake(2, D("1.20"))]
    top = top_payout(stakes, bet_paytable=BET_PAYTABLE, bonus_paytable=BONUS_PAYTABLE)
    assert top == D("0.90") + D("1.80") * 20 + D("6.00") * 2000 + D("3.60") + D("7.20") * 20


def test_the_top_payout_covers_a_no_game_line_above_1_to_1_and_no_bet_at_it():
    """HB-1, JD-11a: a no-game line of 3:2 pays the 3A ante more than 1:1 does; it pays no
    bet, so the bet's top stays the top hand line."""
    bet = {**BET_PAYTABLE, NO_GAME_LINE: Fraction(3, 2)}
    top = top_payout([Stake(1, D("0.30"))], bet_paytable=bet, bonus_paytable={})
    assert top == D("1.35") + D("1.80") * 20
    generous = {"pair": Fraction(1), NO_GAME_LINE: Fraction(50)}
    assert top_payout([Stake(1, D("0.30"))], bet_paytable=generous, bonus_paytable={}) == (
        D("0.90") * 50 + D("1.80")
    )


def test_the_top_payout_pays_the_bet_1_to_1_at_least_and_rounds_up_to_the_cent():
    # A hand the paytable does not list pays the bet 1:1 (JD-11), above a 2:3 line.
    low = {"pair": Fraction(2, 3)}
    assert top_payout([Stake(1, D("0.30"))], bet_paytable=low, bonus_paytable={}) == D("2.70")
    # 0.01 at 1:3 is a third of a cent: the hold never falls short of a payout.
    third = {"pair": Fraction(1, 3)}
    bonus = top_payout([Stake(1, D("0.30"), D("0.01"))], bet_paytable=low, bonus_paytable=third)
    assert bonus == D("2.71")


@given(
    seed=st.integers(0, 2**32 - 1),
    antes=st.lists(st.sampled_from([D("0.30"), D("0.60"), D("12.00")]), min_size=1, max_size=3),
    bonuses=st.lists(st.sampled_from([None, D("0.30"), D("6.00")]), min_size=3, max_size=3),
    choices=st.lists(st.integers(0, 5), min_size=9, max_size=9),
)
@settings(max_examples=300, deadline=None)
def test_no_round_ever_pays_more_than_its_top_payout(seed, antes, bonuses, choices):
    stakes = [Stake(n + 1, ante, bonuses[n]) for n, ante in enumerate(antes)]
    deck = deck_order(f"{seed:064x}", "bound", 1, jokers=1)
    state, _ = start_round(deck, stakes, bet_paytable=BET_PAYTABLE, bonus_paytable=BONUS_PAYTABLE)
    moves = iter(choices)
    while state.phase == Phase.DECIDING:
        box = state.to_act
        assert box is not None
        choice = next(moves)
        if "exchange" in box.options() and choice >= 2:
            # Exchange the last 1..3 cards (exactly one on the second exchange, JD-6).
            count = 1 if box.exchanges else min(choice - 1, 3)
            action: Action = Exchange(box.number, box.cards[-count:])
        else:
            action = Bet(box.number) if choice % 2 else Fold(box.number)
        state, _ = apply(state, action)
    won = sum((result.total for result in state.results), D(0))
    assert won <= top_payout(stakes, bet_paytable=BET_PAYTABLE, bonus_paytable=BONUS_PAYTABLE)
