"""How much a best-play solution gives away: its regret, measured on sampled decisions.

The solution decides with a model of the dealer (``joker_draw_best``: removal effects of single
cards and of pairs) and, at the first and second decisions, from tables that count only the
box's own five cards as seen. Here decisions are sampled from rounds the solution itself plays
(``joker_draw_rtp.play_rounds``), and at each one every option is valued more precisely, with
every card the box has seen:

- the third decision (bet or fold, JD-7) and the second (fold, bet, or each of the five one-card
  exchanges averaged over every replacement card, JD-6) are counted directly on an independent
  pool of dealer outcomes, without the model: an entry that touches a seen card is dropped, the
  others reweighted (``joker_draw_best.removal_weight``);
- at the first decision (JD-5), the table's choice and its next best options are each played
  out to the end on the same completions of the deck (the dealer's own five cards and every
  later card, as the live rules deal and settle them), the later decisions by the solution:
  the best of them is picked on half the completions and compared with the table's choice on
  the other half, so the noise of the pick does not count as regret.

A decision's regret is the precise value of the best option less that of the option taken. The
estimate, in RTP points, is the sum over the second and third decisions of the mean regret per
round (the mean per decision times the decisions per round) over the mean stake per round, with
a standard error from the spread of the sampled regrets; the first decision's check is reported
beside it as a lower bound (its completions are few, so it says little). The precise values
carry the pool's own sampling error, which makes a regret estimate lean high: a noisy value can
only make some other option look better than the one taken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

from games.engine.joker_draw import HAND_SIZE, Paytable, no_game_odds
from games.engine.joker_draw_best import (
    DECK,
    DealerPool,
    Solution,
    _bet_values,
    bet_odds_by_level,
    colex,
    first_decision,
    hand_index,
    removal_weight,
)
from games.engine.joker_draw_rtp import (
    BET,
    EXCHANGE,
    FOLD,
    STAGES,
    Hands,
    deal_decks,
    play_rounds,
)

FIRST_CANDIDATES = 3  # the table's choice and its next best options, played out
FIRST_ROUNDS = 400  # completions of the deck each is played out on


@dataclass(frozen=True)
class StageRegret:
    decisions: int
    per_round: float  # how many decisions of this stage a round takes
    mean: float  # antes per decision
    standard_error: float
    disagreements: int  # decisions where the precise best is another option

    def to_json(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "per_round": round(self.per_round, 5),
            "mean_antes": round(self.mean, 6),
            "standard_error": round(self.standard_error, 6),
            "disagreements": self.disagreements,
        }


def _pool_cards(pool: DealerPool) -> NDArray[np.int8]:
    """Each entry's cards as FS-1 positions, -1 padding to ten."""
    bits = np.unpackbits(pool.used.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    cards = np.full((len(pool.used), 2 * HAND_SIZE), -1, np.int8)
    rows, positions = np.nonzero(bits[:, :DECK])
    place = np.arange(len(rows)) - np.searchsorted(rows, rows)
    cards[rows, place] = positions
    return cards


@numba.njit(cache=True)
def _counts(used, cards, count, bins, seen_mask, weights_now, weights_next, nbins):  # type: ignore[no-untyped-def]
    """The pool's weighted bins avoiding the seen cards (weights for them), and, for the next
    card r to be seen too, the same weighted bins (weights for one more card) of the entries
    that hold r, per r: the bins avoiding r as well are ``after - holding[r]``."""
    now = np.zeros(nbins)
    after = np.zeros(nbins)
    holding = np.zeros((DECK, nbins))
    for entry in range(used.shape[0]):
        if used[entry] & seen_mask:
            continue
        used_cards = count[entry]
        bin_ = bins[entry]
        now[bin_] += weights_now[used_cards]
        weight = weights_next[used_cards]
        after[bin_] += weight
        for slot in range(cards.shape[1]):
            card = cards[entry, slot]
            if card >= 0:
                holding[card, bin_] += weight
    return now, after, holding


class _Precise:
    """Bet values counted on a pool for one set of seen cards (and one more)."""

    def __init__(self, pool: DealerPool, cards: NDArray[np.int8], bet_paytable: Paytable) -> None:
        self.pool = pool
        self.cards = cards
        self.odds = bet_odds_by_level(bet_paytable)
        self.q = float(no_game_odds(bet_paytable))

    def values(self, seen: list[int]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """g by level with `seen` out of the deck, and per card r not seen, g by level with r
        out as well (rows for seen cards are meaningless)."""
        mask = np.uint64(sum(1 << card for card in seen))
        levels = np.arange(int(self.pool.count.max()) + 1)
        now, after, holding = _counts(
            self.pool.used,
            self.cards,
            self.pool.count,
            self.pool.bin,
            mask,
            removal_weight(len(seen), levels),
            removal_weight(len(seen) + 1, levels),
            self.pool.bins,
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            histograms_after = after[None, :] - holding
            histograms_after /= histograms_after.sum(axis=1, keepdims=True)
        return (
            _bet_values(now / now.sum(), self.odds, self.q),
            _bet_values(histograms_after, self.odds, self.q),
        )


def _level(cards: list[int]) -> int:
    return int(hand_index().level[colex(np.array([sorted(cards)]))[0]])


def _third(
    precise: _Precise, hand: list[int], seen: list[int], took_bet: bool
) -> tuple[float, bool]:
    now, _ = precise.values(seen)
    bet = 3 * float(now[_level(hand)])
    best = max(bet, -3.0)
    return best - (bet if took_bet else -3.0), (bet > -3.0) != took_bet


def _second(
    precise: _Precise, hand: list[int], seen: list[int], taken: int, discarded: int
) -> tuple[float, bool]:
    now, after = precise.values(seen)
    values = {BET: 2 * float(now[_level(hand)]), FOLD: -2.0}
    unseen = [card for card in range(DECK) if card not in seen]
    exchanges = {}
    for card in hand:
        kept = [other for other in hand if other != card]
        total = 0.0
        for replacement in unseen:
            level = _level([*kept, replacement])
            total += max(-3.0, 3 * float(after[replacement, level]))
        exchanges[card] = total / len(unseen)
    chosen = exchanges[discarded] if taken == EXCHANGE else values[taken]
    best = max([*values.values(), *exchanges.values()])
    return best - chosen, best > chosen


class _Forced:
    """The solution's play with its first decision forced, per round, to a given code."""

    name = "forced"

    def __init__(self, solution: Solution, codes: NDArray[np.int64]) -> None:
        self.solution = solution
        self.codes = codes

    def decide(
        self, stage: int, hands: Hands, seen: NDArray[np.int64]
    ) -> tuple[NDArray[np.int8], NDArray[np.bool_]]:
        if stage:
            return self.solution.decide(stage, hands, seen)
        return first_decision(hands.cards, self.codes)


def _first(
    solution: Solution, bet_paytable: Paytable, hands: NDArray[np.uint8], rng: np.random.Generator
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The first decision's regret for each dealt hand (in its dealt order): the table's choice
    against its next ``FIRST_CANDIDATES - 1`` options, each played out on the same
    ``FIRST_ROUNDS`` completions of the deck (the dealer's five and every later card): the best
    of them chosen on half the completions and compared with the table's on the other half."""
    count = len(hands)
    order = np.argsort(hands, axis=1)
    rows = colex(np.take_along_axis(hands.astype(np.int64), order, axis=1))
    table = solution.first_values(rows)
    candidates = np.argsort(-table, axis=1)[:, :FIRST_CANDIDATES]  # the table's choice first
    decks = _completions(hands, rng)
    nets = np.empty((count, FIRST_CANDIDATES, FIRST_ROUNDS))
    for column in range(FIRST_CANDIDATES):
        codes = np.repeat(candidates[:, column], FIRST_ROUNDS)
        played = play_rounds(decks, bet_paytable, {}, _Forced(solution, codes))
        net = played.returned / played.scale - played.staked
        nets[:, column] = net.reshape(count, FIRST_ROUNDS)
    half = FIRST_ROUNDS // 2
    picked = np.argmax(nets[:, :, :half].mean(axis=2), axis=1)
    later = nets[:, :, half:].mean(axis=2)
    regret = later[np.arange(count), picked] - later[:, 0]
    return regret, picked != 0


def _completions(hands: NDArray[np.uint8], rng: np.random.Generator) -> NDArray[np.uint8]:
    """``FIRST_ROUNDS`` decks per hand: the hand at the box's places (JD-3), the other 48
    cards in a fresh random order."""
    count = len(hands)
    rows = count * FIRST_ROUNDS
    dealt = np.repeat(hands, FIRST_ROUNDS, axis=0)
    keys = rng.random((rows, DECK), dtype=np.float32)
    np.put_along_axis(keys, dealt.astype(np.int64), 2.0, axis=1)
    rest = np.argsort(keys, axis=1)[:, : DECK - HAND_SIZE].astype(np.uint8)
    decks = np.empty((rows, DECK), np.uint8)
    box_places = np.arange(0, 2 * HAND_SIZE, 2)
    other_places = np.setdiff1d(np.arange(DECK), box_places)
    decks[:, box_places] = dealt
    decks[:, other_places] = rest
    return decks


def measure(
    solution: Solution,
    pool: DealerPool,
    bet_paytable: Paytable,
    decisions: int,
    seed: int,
) -> dict[str, Any]:
    """The regret of `solution` on `decisions` sampled decisions per stage (see the module)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    cards = _pool_cards(pool)
    precise = _Precise(pool, cards, bet_paytable)
    rounds_needed = decisions * 8  # enough rounds for the rarest stage, the third
    decks = deal_decks(int(rng.integers(2**63)), rounds_needed)
    played = play_rounds(decks, bet_paytable, {}, solution)
    staked = float(played.staked.mean())
    stages: dict[str, StageRegret] = {}
    for stage, name in enumerate(STAGES):
        reached = np.flatnonzero(played.actions[:, stage] >= 0)
        sample = rng.choice(reached, min(decisions, len(reached)), replace=False)
        if stage == 0:
            first, firsts_differ = _first(solution, bet_paytable, played.cards[sample, 0], rng)
            stages[name] = _stage(
                first, int(firsts_differ.sum()), len(reached) / len(played.actions)
            )
            continue
        regrets: list[float] = []
        disagreements = 0
        for row in sample:
            hand = played.cards[row, stage].astype(int).tolist()
            seen = _seen_before(played, row, stage)
            action = int(played.actions[row, stage])
            if stage == 1:
                out = np.flatnonzero(played.discards[row, stage])
                discarded = hand[int(out[0])] if len(out) else -1
                regret, differs = _second(precise, hand, seen, action, discarded)
            else:
                regret, differs = _third(precise, hand, seen, action == BET)
            regrets.append(regret)
            disagreements += differs
        stages[name] = _stage(np.array(regrets), disagreements, len(reached) / len(played.actions))
    # The later decisions are valued precisely: their regrets add up to the estimate. The first
    # decision's split-sample check is a lower bound, as noisy as its completions are few.
    later = [stages[name] for name in STAGES[1:]]
    per_round = sum(s.mean * s.per_round for s in later)
    error = math.sqrt(sum((s.standard_error * s.per_round) ** 2 for s in later))
    opening = stages[STAGES[0]]
    return {
        "stages": {name: s.to_json() for name, s in stages.items()},
        "antes_per_round": round(per_round, 6),
        "rtp_points": round(100 * per_round / staked, 4),
        "rtp_points_standard_error": round(100 * error / staked, 4),
        "first_decision_lower_bound_rtp_points": round(100 * opening.mean / staked, 4),
        "first_decision_standard_error": round(100 * opening.standard_error / staked, 4),
        "staked_per_round": round(staked, 4),
        "pool_entries": len(pool.used),
        "seed": seed,
    }


def _stage(values: NDArray[np.float64], disagreements: int, per_round: float) -> StageRegret:
    return StageRegret(
        decisions=len(values),
        per_round=per_round,
        mean=float(values.mean()),
        standard_error=float(values.std(ddof=1) / math.sqrt(len(values))),
        disagreements=disagreements,
    )


def _seen_before(played: Any, row: int, stage: int) -> list[int]:
    """Every card the box has held up to this decision."""
    seen: set[int] = set()
    for earlier in range(stage + 1):
        seen.update(played.cards[row, earlier].astype(int).tolist())
    return sorted(seen)
