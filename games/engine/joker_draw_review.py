"""A joker draw box's decisions against best play (JD-5..JD-7, JD-11, JD-12).

``review`` reads each decision a box took from the best-play ``Solution`` of its bet paytable:
the value of the option taken and of the best option at the same point, with the same cards
seen (the box's own cards and its discards). What the box gave away is the sum of the
differences; what its decisions should return is the value of the option it closed with, given
everything it had seen: a fold is exact, a bet is the dealer model's expectation. Values are in
original antes, the box's whole net result of ante and bet (the BONUS does not depend on play).

The expectation of a bet uses only the box's own cards, even when the player's other boxes
of the round showed more: it is still the unbiased expectation given what the box saw, which
is what a monitor that compares it with what the table paid needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games.engine.cards import Card
from games.engine.joker_draw_best import Option, Solution

FOLD, BET, EXCHANGE = "fold", "bet", "exchange"


@dataclass(frozen=True)
class Decision:
    """One decision of a box: what it took and what best play takes, with their values."""

    number: int  # 1: on the cards dealt; 2, 3: after the first and second exchange
    taken: Option
    best: Option

    @property
    def loss(self) -> float:
        return self.best.ev - self.taken.ev


@dataclass(frozen=True)
class Review:
    decisions: tuple[Decision, ...]

    @property
    def expected(self) -> float:
        """What the box's decisions should return, net, in original antes."""
        return self.decisions[-1].taken.ev

    @property
    def loss(self) -> float:
        """What the box gave away against best play, in original antes."""
        return sum(decision.loss for decision in self.decisions)


@dataclass(frozen=True)
class Draw:
    """One exchange of a box: the cards it put down and those it drew."""

    discarded: tuple[Card, ...]
    drawn: tuple[Card, ...]


def review(solution: Solution, dealt: Sequence[Card], draws: Sequence[Draw], closed: str) -> Review:
    """The decisions of a box dealt `dealt` that exchanged as `draws` say (at most two, JD-5,
    JD-6) and closed by `closed` ("fold" or "bet", JD-7)."""
    if closed not in (FOLD, BET):
        raise ValueError("closed: a box closes by folding or betting")
    if len(draws) > 2:
        raise ValueError("draws: a box exchanges at most twice (JD-5, JD-6)")
    hand = list(dealt)
    seen: list[Card] = []
    decisions = []
    for number in range(len(draws) + 1):
        options = (
            solution.first_options(hand)
            if number == 0
            else solution.later_options(hand, seen, number)
        )
        if number < len(draws):
            draw = draws[number]
            kept = frozenset(card for card in hand if card not in draw.discarded)
            taken = _option(options, EXCHANGE, kept)
            hand = [*kept, *draw.drawn]
            seen += draw.discarded
        else:
            taken = _option(options, closed, frozenset())
        decisions.append(Decision(number + 1, taken, options[0]))
    return Review(tuple(decisions))


def _option(options: Sequence[Option], action: str, kept: frozenset[Card]) -> Option:
    for option in options:
        if option.action == action and frozenset(option.keep) == kept:
            return option
    raise ValueError(f"{action}: not an option of this decision (JD-5..JD-7)")
