"""A strategy card for joker draw poker: the best play (``joker_draw_best``) told in a few ranked
rules a player can follow at the table, like a video poker strategy chart.

The card is a rule table of the RTP laboratory (``joker_draw_rtp.Strategy``), so it is played and
measured exactly as any strategy is. ``derive_card`` builds it from a solved best play, decision
by decision, by greedy insertion: from each ``any`` rule it again and again adds the candidate
rule, at the place in the list, that wins the most expected value over every hand the rule
would then decide, until no rule wins ``tolerance`` antes per hand; the best list is then
improved by local search (a rule taken out and the best insertion put in, or another ``any``
last) and rid of the rules that no longer win enough. Rules therefore come ranked as a strategy
chart ranks them: the first that fits decides.

What a rule's action is worth on a hand, in original antes:

- first decision (JD-5): every option's value for every dealt hand, from the solution;
- second decision (JD-6), the hand's own cards the only ones seen (as the solution's table):
  bet ``2 g``, fold ``-2``, the table's own exchange its value; another exchange is valued as
  the better of betting and folding, which it seldom beats when the table prefers another;
- third decision (JD-7): bet ``3 g``, fold ``-3``.

Every hand of the 53-card deck weighs the same at each decision. The card is judged by
``compare``: the card and the table play the same decks, and the difference of their RTPs
comes with its 99% interval (the same decks make it far narrower than either RTP's).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray

from games.engine.cards import RANKS
from games.engine.joker_draw import HAND_SIZE, Paytable
from games.engine.joker_draw_best import (
    DECK,
    FIRST_BET,
    FIRST_FOLD,
    SECOND_BET,
    SECOND_FOLD,
    Solution,
    colex,
    hand_index,
)
from games.engine.joker_draw_rtp import (
    BLOCK_ROUNDS,
    STAGES,
    Condition,
    Hands,
    Player,
    Rule,
    Strategy,
    deal_decks,
    play_rounds,
)

TOLERANCE = 1e-5  # antes per hand: a rule that wins less is not worth a line on the card
MAX_RULES = 40  # per decision
_Z99 = NormalDist().inv_cdf(0.995)


def _rank(letter: str) -> int:
    return RANKS.index(letter) + 2


def _made(at_least: str) -> Condition:
    return Condition("made", at_least=at_least)


_STRONG = ("straight", "flush", "full_house", "four_of_a_kind", "straight_flush", "five_of_a_kind")
_SET_RANKS = (None, *(_rank(letter) for letter in RANKS[1:]))
_DRAWS = ("four_flush", "open_straight", "inside_straight")
_ODD_CARD = ("pair", "two_pair", "three_of_a_kind", "four_of_a_kind")


def _conditions(stage: int) -> list[Condition]:
    """The holdings a card may name at a decision: the laboratory's rule language."""
    made = _STRONG if stage == 0 else ("two_pair", "three_of_a_kind", *_STRONG)
    conditions = [_made(name) for name in made]
    conditions += [
        Condition(hand, min_rank=rank)
        for hand in ("three_of_a_kind", "two_pair", "pair")
        for rank in _SET_RANKS
    ]
    conditions += [Condition(hand) for hand in _DRAWS]
    conditions += [
        Condition("odd_card", at_least=name, min_rank=rank)
        for name in _ODD_CARD
        for rank in _SET_RANKS
    ]
    conditions.append(Condition("full_house_three"))
    conditions += [Condition("straight_flush_draw", cards=4)]
    conditions += [Condition("straight_draw", ranks=ranks) for ranks in range(1, 5)]
    if stage > 0:
        conditions += [
            Condition("pair", min_rank=rank, kicker=_rank(letter))
            for rank in _SET_RANKS
            for letter in "TJQKA"
        ]
    if stage == 0:
        conditions.append(Condition("joker"))
        conditions += [Condition("high_cards", min_rank=_rank(letter)) for letter in "TJQKA"]
        conditions += [Condition("straight_flush_draw", cards=cards) for cards in (2, 3)]
        conditions += [
            Condition("straight_flush_draw", cards=cards, min_rank=_rank(letter))
            for cards in (2, 3)
            for letter in "68TJQK"
        ]
    # The joker makes a pair or a draw of most hands: each holding also with and without it.
    conditions += [
        replace(condition, joker=joker)
        for condition in conditions
        if condition.hand not in ("joker", "three_of_a_kind", "two_pair", "full_house_three")
        for joker in (True, False)
    ]
    return [*conditions, Condition("any")]


def _candidates(stage: int) -> list[Rule]:
    """Every holding with every action it may take at the decision (JD-5..JD-7)."""
    rules = []
    for condition in _conditions(stage):
        exchanges = (
            condition.kept != HAND_SIZE if stage == 0 else stage == 1 and condition.kept == 4
        )
        rules += [
            Rule(condition, do)
            for do in ("bet", "fold", "exchange")
            if do != "exchange" or exchanges
        ]
    return rules


@dataclass(frozen=True)
class StageValues:
    """What each candidate rule is worth on each hand of a decision: whether it fits the hand,
    the value of its action there, and the best value the solution gets."""

    rules: list[Rule]
    fits: NDArray[np.bool_]  # (rules, hands)
    value: NDArray[np.float64]  # (rules, hands)
    best: NDArray[np.float64]  # (hands,)


def _values(
    solution: Solution, stage: int, rows: NDArray[np.int64], seen: NDArray[np.int64] | None = None
) -> StageValues:
    """Every candidate's value on the hands `rows` (colex) at `stage`; at the third decision
    betting is valued with every card the box has seen (`seen`, -1 padded)."""
    index = hand_index()
    hands = Hands(index.cards[rows])  # ascending: slot i is bit i of the solution's codes
    rules = _candidates(stage)
    fits = np.zeros((len(rules), len(rows)), bool)
    value = np.zeros((len(rules), len(rows)))
    bits = 1 << np.arange(HAND_SIZE)
    if stage == 0:
        options = solution.first_values(rows)
        best = options.max(axis=1)
    elif stage == 1:
        exchange = _exchange_values(solution, rows)
        bet, fold = 2 * solution.own_bet_values(rows), np.full(len(rows), -2.0)
        best = np.maximum(exchange.max(axis=1), np.maximum(bet, fold))
    else:
        known = index.cards[rows].astype(np.int64) if seen is None else seen
        bet = 3 * solution.values.of(index.level[rows], known)
        fold = np.full(len(rows), -3.0)
        best = np.maximum(bet, fold)
    held = Condition("any"), hands.condition(Condition("any"))
    for number, rule in enumerate(rules):
        if held[0] != rule.when:  # a condition's actions come together: match it once
            held = rule.when, hands.condition(rule.when)
        fits[number], keep = held[1]
        if stage == 0:
            column = {"bet": FIRST_BET, "fold": FIRST_FOLD}.get(rule.do)
            if column is None:
                discards = (~keep * bits).sum(axis=1)
                fits[number] &= discards > 0
                column_values = np.take_along_axis(options, discards[:, None], axis=1)[:, 0]
            else:
                column_values = options[:, column]
            value[number] = column_values
        elif rule.do == "exchange":  # second decision, one card
            slot = np.argmin(keep, axis=1)
            value[number] = exchange[np.arange(len(rows)), slot]
        else:
            value[number] = bet if rule.do == "bet" else fold
    return StageValues(rules, fits, value, best)


def _exchange_values(solution: Solution, rows: NDArray[np.int64]) -> NDArray[np.float64]:
    """The value of exchanging each card (ascending order) of the hands `rows` at the second
    decision, their own cards the only ones seen, as the solution values it (JD-6, JD-7): the
    third decision's max(-3, 3 g) averaged over the 48 cards that may come."""
    index = hand_index()
    cards = index.cards[rows].astype(np.int64)
    values = np.zeros((len(rows), HAND_SIZE))
    for slot in range(HAND_SIZE):
        kept = np.delete(cards, slot, axis=1)
        for card in range(DECK):
            possible = ~(cards == card).any(axis=1)
            # A card of the hand cannot come: its rows value the discarded card, then not count.
            drawn = np.where(possible, card, cards[:, slot])[:, None]
            final = np.sort(np.hstack([kept, drawn]), axis=1)
            bet = solution.values.of(index.level[colex(final)], np.hstack([cards, drawn]))
            values[:, slot] += np.where(possible, np.maximum(-3.0, 3.0 * bet), 0.0)
    return values / (DECK - HAND_SIZE)


def _reached(
    solution: Solution, bet_paytable: Paytable, rounds: int, seed: int
) -> list[tuple[NDArray[np.int64], NDArray[np.int64]]]:
    """The hands the best play takes to the second and third decisions on `rounds` decks, as
    colex rows (one per round, so a hand weighs as often as it comes), with the cards seen."""
    played = play_rounds(deal_decks(seed, rounds), bet_paytable, {}, solution)
    reached = []
    for stage in (1, 2):
        at = played.actions[:, stage] >= 0
        cards = np.sort(played.cards[at, stage].astype(np.int64), axis=1)
        drawn = played.cards[at, 1 : stage + 1, :].reshape(int(at.sum()), -1)
        seen: NDArray[np.int64] = np.sort(
            np.hstack([played.initial[at], drawn]).astype(np.int64), axis=1
        )
        seen[:, 1:][seen[:, 1:] == seen[:, :-1]] = -1  # each card once
        reached.append((colex(cards), seen))
    return reached


def derive_stage(
    values: StageValues, tolerance: float = TOLERANCE, max_rules: int = MAX_RULES
) -> tuple[Rule, ...]:
    """The ranked rules of one decision, by greedy insertion (see the module): grown from each
    ``any`` rule in turn (folding the rest may win where betting it does not, once the hands
    worth betting have rules of their own), the list worth most kept and then improved by
    exchanging one rule at a time for the insertion worth most."""
    stage = _Stage(values, tolerance * values.fits.shape[1])
    lists = [
        stage.grow([start], max_rules)
        for start, rule in enumerate(values.rules)
        if rule.when.hand == "any"
    ]
    chosen = stage.improve(max(lists, key=stage.total), max_rules)
    return tuple(values.rules[number] for number in chosen)


class _Stage:
    """The greedy search over one decision's candidates; each candidate's hands are kept as
    indices, since most holdings fit few of the hands."""

    def __init__(self, values: StageValues, least_gain: float) -> None:
        self.values = values
        self.least_gain = least_gain
        self.members = [np.flatnonzero(fits) for fits in values.fits]
        self.last = {n for n, rule in enumerate(values.rules) if rule.when.hand == "any"}

    def decided(self, chosen: list[int]) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """Each hand's place in `chosen` (the first rule that fits it) and its value there."""
        count = self.values.fits.shape[1]
        decided_by = np.full(count, len(chosen), np.int64)
        current = np.zeros(count)
        for place in reversed(range(len(chosen))):
            hands = self.members[chosen[place]]
            decided_by[hands] = place
            current[hands] = self.values.value[chosen[place]][hands]
        return decided_by, current

    def total(self, chosen: list[int]) -> float:
        return float(self.decided(chosen)[1].sum())

    def best_insertion(self, chosen: list[int]) -> tuple[float, int, int]:
        """The gain, rule and place of the candidate worth most inserted into `chosen`."""
        decided_by, current = self.decided(chosen)
        best_gain, best_rule, best_place = 0.0, -1, -1
        for number, hands in enumerate(self.members):
            if number in chosen or number in self.last or not len(hands):
                continue
            gain = self.values.value[number][hands] - current[hands]
            by_place = np.bincount(decided_by[hands], weights=gain, minlength=len(chosen))
            from_place = np.cumsum(by_place[::-1])[::-1]  # inserted at place p: rules p.. lose
            place = int(np.argmax(from_place))
            if from_place[place] > best_gain:
                best_gain, best_rule, best_place = float(from_place[place]), number, place
        return best_gain, best_rule, best_place

    def grow(self, chosen: list[int], max_rules: int) -> list[int]:
        """`chosen` with the best insertion added again and again while it wins enough."""
        chosen = list(chosen)
        while len(chosen) < max_rules:
            gain, rule, place = self.best_insertion(chosen)
            if gain <= self.least_gain:
                break
            chosen.insert(place, rule)
        return chosen

    def improve(self, chosen: list[int], max_rules: int) -> list[int]:
        """Local search: a rule taken out and the best insertion put in (maybe itself, at
        another place), then growth, while that wins enough; the ``any`` rule stays last."""
        total = self.total(chosen)
        improved = True
        while improved:
            improved = False
            for trial in self._neighbours(chosen):
                trial = self.grow(trial, max_rules)
                trial_total = self.total(trial)
                if trial_total > total + self.least_gain:
                    chosen, total, improved = trial, trial_total, True
                    break
        return self.prune(chosen)

    def prune(self, chosen: list[int]) -> list[int]:
        """`chosen` without the rules that win too little where they stand (some decide no
        hand once rules above them took their hands)."""
        place = 0
        while place < len(chosen) - 1:
            trial = chosen[:place] + chosen[place + 1 :]
            if self.total(trial) >= self.total(chosen) - self.least_gain:
                chosen = trial
            else:
                place += 1
        return chosen

    def _neighbours(self, chosen: list[int]) -> Iterator[list[int]]:
        """The lists one step from `chosen`: another ``any`` rule last, or a rule taken out
        and the best insertion put in its stead."""
        for last in sorted(self.last - {chosen[-1]}):
            yield [*chosen[:-1], last]
        for place in range(len(chosen) - 1):
            trial = chosen[:place] + chosen[place + 1 :]
            _, rule, at = self.best_insertion(trial)
            if rule >= 0:
                trial.insert(at, rule)
            yield trial


DERIVED_ROUNDS = 300_000  # rounds of best play whose later decisions the card learns from


def derive_card(
    solution: Solution,
    bet_paytable: Paytable,
    name: str = "card",
    rows: NDArray[np.int64] | None = None,
    tolerance: float = TOLERANCE,
    rounds: int = DERIVED_ROUNDS,
    seed: int = 1,
) -> Strategy:
    """The strategy card of a solved best play: the first decision learnt over the hands `rows`
    (colex; every thirteenth hand of the deck by default), the later ones over the hands the best
    play reaches on `rounds` rounds; each only as far as the decision before it exchanges."""
    rows = np.arange(0, len(hand_index().cards), 13) if rows is None else np.asarray(rows)
    later = _reached(solution, bet_paytable, rounds, seed)
    stages = [derive_stage(_values(solution, 0, rows), tolerance)]
    for stage in (1, 2):
        if not any(rule.do == "exchange" for rule in stages[-1]):
            stages.append(())
            continue
        reached, seen = later[stage - 1]
        stages.append(derive_stage(_values(solution, stage, reached, seen), tolerance))
    return Strategy(name, *stages)


def agreement(solution: Solution, card: Strategy, rows: NDArray[np.int64]) -> dict[str, float]:
    """Per decision, the share of the hands `rows` on which the card does what the table does
    (the second and third decisions as the table's, with the hand's own cards seen)."""
    index = hand_index()
    hands = Hands(index.cards[rows])
    shares = {}
    bits = 1 << np.arange(HAND_SIZE)
    empty = np.zeros((len(rows), 0), np.int64)
    for stage, name in enumerate(STAGES):
        if not card.stage(stage):
            continue
        action, discard = card.decide(stage, hands, empty)
        if stage == 0:
            code = np.select(
                [action == 2, action == 0], [FIRST_BET, FIRST_FOLD], (discard * bits).sum(axis=1)
            )
            table = solution.first_code[rows]
        elif stage == 1:
            code = np.select(
                [action == 2, action == 0], [SECOND_BET, SECOND_FOLD], np.argmax(discard, axis=1)
            )
            table = solution.second_code[rows]
        else:
            code = action
            table = np.where(solution.own_bet_values(rows) > -1, 2, 0)
        shares[name] = float((code == table).mean())
    return shares


@dataclass(frozen=True)
class Comparison:
    """Two players on the same decks: their game RTPs (percent) and the difference's 99%
    interval (first minus second, points)."""

    rounds: int
    first_rtp: float
    second_rtp: float
    difference: float
    difference_ci99: tuple[float, float]


def compare(
    bet_paytable: Paytable,
    first: Player,
    second: Player,
    rounds: int,
    seed: int,
) -> Comparison:
    """Play both players on the same `rounds` decks shuffled from `seed` (no BONUS). Each RTP is
    total returned / total staked; the difference's interval is the delta method's, round by
    round: the per-round linear part of each ratio, the second's subtracted from the first's."""
    if rounds < 2:
        raise ValueError(f"rounds: a comparison needs at least 2 rounds, got {rounds}")
    rng = np.random.Generator(np.random.PCG64(seed))
    sides: list[list[NDArray[np.float64]]] = [[], []]
    for start in range(0, rounds, BLOCK_ROUNDS):
        decks = deal_decks(int(rng.integers(2**63)), min(BLOCK_ROUNDS, rounds - start))
        for side, player in enumerate((first, second)):
            played = play_rounds(decks, bet_paytable, {}, player)
            sides[side].append(np.stack([played.returned / played.scale, played.staked]))
    rtps, linear = [], np.zeros(rounds)
    for side, parts in enumerate(sides):
        returned, staked = np.concatenate(parts, axis=1)
        ratio = float(returned.sum() / staked.sum())
        rtps.append(100 * ratio)
        linear += (1 - 2 * side) * (returned - ratio * staked) / staked.mean()
    spread = 100 * _Z99 * float(linear.std(ddof=1)) / math.sqrt(rounds)
    difference = rtps[0] - rtps[1]
    return Comparison(
        rounds,
        round(rtps[0], 4),
        round(rtps[1], 4),
        round(difference, 4),
        (round(difference - spread, 4), round(difference + spread, 4)),
    )
