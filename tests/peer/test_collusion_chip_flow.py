"""The chip-flow signal of the collusion report (house rule of fair play, after UKGC RTS 11;
games.peer.collusion): a signed-rank test of the pair's flow hand by hand, so that many hands
dumped one way are not hidden by one big pot going the other way."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.conf import settings

from games.peer.collusion import HandRead, score_pairs

ANN, BEN = 1, 2


def heads_up(results: list[tuple[int, int]]) -> list[HandRead]:
    """Hands of Ann and Ben alone, each with its results (minor units) and no decisions."""
    return [
        HandRead(number, "seven_card_stud", "Sim", number, "USD", (ANN, BEN), result, ())
        for number, result in enumerate(results, start=1)
    ]


def test_hands_dumped_one_way_are_flagged_behind_a_big_pot_won_back():
    """Ben loses 0.10 to Ann in 30 hands and wins one pot of 10.00 back from her: the chips
    went his way on balance, but the hands went hers 30 to 1. The ranks of the flows by size
    (the 30 equal ones share rank 15.5, the big pot is 31) sum to 465 - 31 = 434 towards Ann,
    over the root of their summed squares (30 x 15.5² + 31², 90.4): 4.80. The flows' amounts
    over the root of their squares would have scored 0.70, the big pot swamping the rest."""
    hands = heads_up([(10, -10)] * 30 + [(-1000, 1000)])
    (pair,) = score_pairs(hands)
    assert (pair.first, pair.second, pair.hands) == (ANN, BEN, 31)
    assert pair.net_chips == Decimal("7.00")  # towards Ben, as the chips went
    assert pair.chip_flow.score == pytest.approx(434 / (30 * 15.5**2 + 31**2) ** 0.5)
    assert pair.chip_flow.score >= settings.COLLUSION_ALERT_SCORE
    assert pair.chip_flow.player == ANN
    assert {ref.round_id for ref in pair.chip_flow.hands} == set(range(1, 21))  # the first 20


def test_flows_as_often_one_way_as_the_other_score_nothing():
    """Equal hands each way, of every size: the signed ranks cancel out."""
    hands = heads_up([(size, -size) for size in range(10, 160, 10)] * 2)
    hands += heads_up([(-size, size) for size in range(10, 160, 10)] * 2)
    (pair,) = score_pairs(hands)
    assert pair.chip_flow.score == 0


def test_too_few_hands_with_a_flow_tell_nothing():
    """Nine hands all one way are too few to tell (``MIN_FLOW_HANDS``); ten are scored."""
    (pair,) = score_pairs(heads_up([(10, -10)] * 9 + [(0, 0)] * 20))
    assert pair.chip_flow.score == 0
    (pair,) = score_pairs(heads_up([(10, -10)] * 10))
    assert pair.chip_flow.score == pytest.approx(10**0.5)
