"""The best-play solver of joker draw poker (JD-5..JD-11a): its exact parts against brute force
on small cases, the shipped table against its paytable, and its play in the laboratory."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from games.engine import joker_draw_best as best
from games.engine import joker_draw_regret as regret
from games.engine import joker_draw_rtp as lab
from games.engine.cards import ALL_CARDS, parse_cards
from games.engine.hands import category_of_strength, evaluate_batch

SHIPPED = Path(__file__).resolve().parents[2] / "fixtures" / "best_play"
# The shipped default bet paytable (fixtures/paytables.json), no-game line included (JD-11a).
LINES = {
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
    "no_game": Fraction(2, 3),
}


@pytest.fixture(scope="module")
def model() -> best.DealerModel:
    return best.DealerModel.from_bytes((SHIPPED / "dealer_model.npz").read_bytes())


@pytest.fixture(scope="module")
def solution(model: best.DealerModel) -> best.Solution:
    digest = best.paytable_digest(LINES, model)
    data = (SHIPPED / f"{digest}.npz").read_bytes()
    return best.Solution.from_bytes(data, best.bet_values(model, LINES), digest)


def positions(text: str) -> list[int]:
    return sorted(card.index for card in parse_cards(text))


def level(cards: list[int]) -> int:
    return int(best.hand_index().level[best.colex(np.array([sorted(cards)]))[0]])


def test_every_hand_has_its_colex_row_and_strength() -> None:
    # JD-14a: the 53-card census, by category, from the index the solver uses.
    index = best.hand_index()
    assert len(index.cards) == best.HANDS == 2_869_685
    sample = np.random.default_rng(3).choice(best.HANDS, 500, replace=False)
    assert (best.colex(index.cards[sample]) == sample).all()
    assert (evaluate_batch(index.cards[sample]) == index.strength[sample]).all()
    counts = np.bincount(category_of_strength(index.strength), minlength=10)
    assert counts.tolist()[-4:] == [6552, 3120, 204, 13]


def test_removal_weights_are_the_smaller_decks_odds() -> None:
    # An entry that used m cards is as likely among 53 - n cards as its weight says.
    for seen in (1, 5, 11):
        weights = best.removal_weight(seen, np.arange(11))
        for used in range(11):
            full = 1 / math.perm(best.DECK, used)
            smaller = 1 / math.perm(best.DECK - seen, used)
            assert weights[used] == pytest.approx(smaller / full)


def test_the_second_decision_is_the_best_of_its_options_by_enumeration(
    solution: best.Solution,
) -> None:
    # JD-6, JD-7: fold -2, bet 2g, or one card out: the mean over the 48 unseen cards of the
    # third decision, max(-3, 3g), the discarded card seen too.
    values = solution.values
    for row in np.random.default_rng(11).choice(best.HANDS, 12, replace=False):
        hand = best.hand_index().cards[row].astype(int).tolist()
        unseen = [card for card in range(best.DECK) if card not in hand]
        options = []
        for out in hand:
            kept = [card for card in hand if card != out]
            finals = [[*kept, card] for card in unseen]
            bets = values.of(
                np.array([level(final) for final in finals]),
                np.array([[*final, out] for final in finals]),
            )
            options.append(float(np.maximum(-3, 3 * bets).mean()))
        options.append(2 * float(values.of(np.array([level(hand)]), np.array([hand]))[0]))
        options.append(-2.0)
        assert solution.second_value[row] == pytest.approx(max(options), abs=1e-5)
        code = int(solution.second_code[row])
        assert options[code] == pytest.approx(max(options), abs=1e-5)  # ties go either way


@pytest.mark.parametrize("kept", [4, 3, 2])
def test_an_exchange_is_worth_the_mean_over_every_replacement_set(
    solution: best.Solution, kept: int
) -> None:
    # JD-5: keeping K of the dealt five, the box draws 5 - K of the 48 unseen cards.
    hand = positions("Kh Kd 7c 4s 2d")
    unseen = [card for card in range(best.DECK) if card not in hand]
    row = best.colex(np.array([hand]))
    table = solution.first_values(row)[0]
    for keep in combinations(hand, kept):
        finals = np.array([sorted([*keep, *drawn]) for drawn in combinations(unseen, 5 - kept)])
        expected = solution.second_value[best.colex(finals)].astype(np.float64).mean()
        code = sum(1 << slot for slot, card in enumerate(hand) if card not in keep)
        assert table[code] == pytest.approx(expected, rel=1e-9, abs=1e-9)
        assert len(finals) == math.comb(48, 5 - kept)


def test_the_first_decision_offers_every_legal_option(solution: best.Solution) -> None:
    options = solution.first_options(parse_cards("Kh Kd 7c 4s 2d"))
    assert len(options) == 33  # fold, bet, and 31 sets of 1 to 5 cards to exchange (JD-5)
    assert [o.ev for o in options] == sorted((o.ev for o in options), reverse=True)
    fold = next(o for o in options if o.action == "fold")
    assert fold.ev == -1.0  # JD-12: the ante is lost
    bet = next(o for o in options if o.action == "bet")
    cards = positions("Kh Kd 7c 4s 2d")
    g = solution.values.of(np.array([level(cards)]), np.array([cards]))[0]
    assert bet.ev == pytest.approx(g)  # JD-11: a bet of twice the ante
    # A pair of kings keeps the pair and draws three.
    assert options[0].action == "exchange"
    assert sorted(map(str, options[0].keep)) == ["Kd", "Kh"]


def test_a_hand_of_nothing_folds_rather_than_bets(solution: best.Solution) -> None:
    # The reference strategy bets such hands; best play loses one ante instead of about 1.1.
    options = {o.action: o for o in solution.first_options(parse_cards("2c 5d 8h Js 3c"))}
    assert options["fold"].ev > options["bet"].ev
    assert solution.first_options(parse_cards("2c 5d 8h Js 3c"))[0].action == "fold"


def test_a_table_belongs_to_its_paytable(model: best.DealerModel) -> None:
    digest = best.paytable_digest(LINES, model)
    other = {**LINES, "flush": Fraction(2)}
    data = (SHIPPED / f"{digest}.npz").read_bytes()
    with pytest.raises(ValueError, match="digest"):
        best.Solution.from_bytes(
            data, best.bet_values(model, other), best.paytable_digest(other, model)
        )


def test_a_paytable_without_the_no_game_line_is_priced_as_2_to_3(
    model: best.DealerModel,
) -> None:
    # JD-11a: a version without the line pays 2:3; 1:2 is another price.
    without = {line: odds for line, odds in LINES.items() if line != "no_game"}
    assert best.paytable_digest(without, model) == best.paytable_digest(LINES, model)
    half = {**LINES, "no_game": Fraction(1, 2)}
    assert best.paytable_digest(half, model) != best.paytable_digest(LINES, model)
    richer = best.bet_values(model, {**LINES, "no_game": Fraction(1)})
    poorer = best.bet_values(model, half)
    assert (richer.base > poorer.base).all()  # the dealer fails to qualify at every level


def test_the_laboratory_plays_the_tables_first_decisions(solution: best.Solution) -> None:
    decks = lab.deal_decks(5, 400)
    played = lab.play_rounds(decks, LINES, {}, solution)
    for row in range(0, 400, 40):
        cards = [ALL_CARDS[i] for i in played.cards[row, 0]]
        top = solution.first_options(cards)[0]
        action = lab.ACTIONS[played.actions[row, 0]]
        assert action == top.action
        if action == "exchange":
            kept = {
                ALL_CARDS[i]
                for i, out in zip(played.cards[row, 0], played.discards[row, 0], strict=True)
                if not out
            }
            assert kept == set(top.keep)


def test_best_play_beats_the_reference_strategy_on_the_same_rounds(
    solution: best.Solution,
) -> None:
    # The same decks for both (one seed): the difference is the strategies', not the cards'.
    rounds = 30_000
    best_play = lab.summarize(lab.simulate(LINES, {}, solution, rounds, 17))
    typical = lab.summarize(lab.simulate(LINES, {}, lab.REFERENCE, rounds, 17))
    assert best_play.game_rtp > typical.game_rtp + 5


def test_the_engine_check_plays_the_live_round_code(solution: best.Solution) -> None:
    rtp, (low, high) = best.engine_check(solution, LINES, 300, 2)
    assert low < rtp < high
    assert 60 < rtp < 140


def test_the_regret_counts_the_pool_without_the_model(solution: best.Solution) -> None:
    # The precise values of the regret are the pool's own count for the seen cards.
    pool = best.dealer_pool(1, 5, hands=40_000)
    precise = regret._Precise(pool, regret._pool_cards(pool), LINES)
    hand = positions("Qh Qd 9c 5s 2d")
    seen = [*hand, *positions("Ac 3h")]
    now, after = precise.values(seen)
    assert now[level(hand)] == pytest.approx(
        best.exact_bet_value(pool, LINES, level_strength(hand), seen)
    )
    card = positions("Kc")[0]
    assert after[card, level(hand)] == pytest.approx(
        best.exact_bet_value(pool, LINES, level_strength(hand), [*seen, card])
    )
    measured = regret.measure(solution, pool, LINES, 6, 3)
    assert set(measured["stages"]) == {"first", "second", "third"}
    later = [measured["stages"][name] for name in ("second", "third")]
    assert all(stage["decisions"] == 6 and stage["mean_antes"] >= 0 for stage in later)
    assert measured["rtp_points"] >= 0


def test_a_dealer_pool_of_several_draws_deals_each_hand_once_per_draw() -> None:
    # Each draw of the pool deals the same sample of initial hands again, with fresh
    # replacements (JD-9): its outcomes are the sample times the draws, every one five cards.
    pool = best.dealer_pool(3, 11, hands=2_000)
    assert len(pool.used) == len(pool.count) == len(pool.bin) == 6_000
    assert set(np.unique(pool.count)) <= set(range(5, 11))
    assert (pool.bin >= 0).all()
    assert (pool.bin < pool.bins).all()


def level_strength(cards: list[int]) -> int:
    return int(best.hand_index().strength[best.colex(np.array([sorted(cards)]))[0]])
