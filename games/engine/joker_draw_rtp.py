"""Return to player of joker draw poker by simulation, in numpy batches (JD-1..JD-14a).

``simulate(bet_paytable, bonus_paytable, strategy, rounds, seed)`` plays ``rounds`` rounds of one
box against the dealer, ante 1 unit (A) and BONUS 1 unit, and returns a ``Tally``: exact integer
sums that merge across chunks (``chunk_seed`` seeds chunk *i* of a run) and repeat to the last
digit for the same seed. ``summarize`` turns a tally into RTPs with 99% confidence intervals;
``exact_bonus_rtp`` prices a BONUS paytable exactly from the 53-card hand census (JD-14a).

A round is played as the live engine (``games.engine.joker_draw``) plays it, batch by batch:
a fresh 53-card deck (JD-1), of which only the top 21 cards can ever be dealt (10 dealt, at
most 5 + 1 box replacements, at most 5 dealer replacements), dealt box card, dealer card,
alternately (JD-3); the box's decisions by the strategy (JD-5..JD-7), replacements taking the
discarded cards' places from the top of the deck; the dealer's draw by JD-9 unless the box
folded (JD-8); qualification (JD-10); settlement (JD-11, JD-12) and the BONUS on the first five
cards (JD-13). Hands are valued by ``games.engine.hands.evaluate_batch``.

Strategies are data
-------------------
A strategy is a rule table, JSON-able::

    {"first":  [{"when": {"hand": "made", "at_least": "straight"}, "do": "bet"},
                {"when": {"hand": "pair", "min_rank": "J"}, "do": "bet"},
                {"when": {"hand": "four_flush"}, "do": "exchange"},
                {"when": {"hand": "any"}, "do": "exchange"}],
     "second": [...],
     "third":  [...]}

Each decision stage is an ordered list of rules; the first rule whose condition matches the
box's current five cards decides. ``first`` is the first decision (JD-5), ``second`` the one
after a first exchange (JD-6), ``third`` the one after a second exchange (JD-7). A stage is
required exactly when an earlier stage can exchange, and its last rule must be ``any`` so that
every hand is decided.

Conditions (``when``) speak the dealer's language (JD-9); each says which cards it keeps:

=================== ============================================== ==========================
``hand``            matches                                        keeps
=================== ============================================== ==========================
``made``            a hand of category ``at_least`` or better      all five
                    (a category of ``games.engine.hands``)
``three_of_a_kind`` three of a kind [of ``min_rank`` or higher]    the three (JD-9.1)
``two_pair``        two pair [the higher of ``min_rank`` or more]  both pairs (JD-9.0)
``pair``            one pair [of ``min_rank`` or higher]; the      the pair (JD-9.4)
                    joker pairs the highest other card
``four_flush``      four cards of one suit, the joker any suit     those four (JD-9.2)
``open_straight``   four cards that cards of two or more ranks     those four (JD-9.3)
                    complete to a straight
``inside_straight`` four cards that exactly one rank completes     those four (JD-9.5)
                    (inside, A-2-3-4, J-Q-K-A)
``joker``           the joker                                      the joker
``odd_card``        one pair, two pair, three or four of a kind    all but the lowest card
                    [of category ``at_least`` or better] with a    outside the sets
                    card outside its sets
``high_cards``      one to four cards of ``min_rank`` or higher,   those cards
                    the joker counting as one
``full_house_three`` a full house [its three of ``min_rank`` or    the three
                    higher]
``straight_flush_   ``cards`` (2..4) to four cards of one suit     those cards
draw``              within five consecutive ranks, the ace high
                    or low [each of ``min_rank`` or higher], the
                    joker counting as any card; the most such
                    cards, then the highest ranks, are kept
``straight_draw``   four cards to a straight that ``ranks`` (1..4) those four
                    or more ranks complete, the joker counting
                    as any; the four the most ranks complete,
                    then the highest straight, are kept
``any``             every hand                                     nothing (JD-9.6)
=================== ============================================== ==========================

``odd_card`` also takes ``min_rank`` (its (higher) set of that rank or higher), and ``pair``
``kicker`` (a rank letter: the highest card beside the pair of that rank or higher). Every
holding but ``joker`` and ``any`` takes ``joker``: true when the hand must hold the joker,
false when it must not (the joker pairs any card and draws to every straight and flush, so
the same holding often plays otherwise with it).

``min_rank`` is a rank letter (``2``..``9``, ``T``, ``J``, ``Q``, ``K``, ``A``). Where a hand
holds several sets of four of the kind, the one that makes the highest hand of that kind with one
more card is kept, ties going as the live engine breaks them (JD-9). Actions (``do``): ``bet``
(twice the current ante), ``fold``, and ``exchange``, which discards every card the condition
does not keep: at ``first`` it must discard 1 to 5 cards (not ``made``, JD-5), at ``second``
exactly one (``two_pair``, ``odd_card`` and the four-card draws, ``straight_flush_draw`` of 4
cards among them, JD-6; not ``high_cards`` nor a shorter ``straight_flush_draw``, whose count
depends on the hand); ``third`` has no exchange (JD-7). ``joker``, ``high_cards``,
``full_house_three``, ``straight_flush_draw`` and ``straight_draw`` are the player's strategy
card's words (``games.engine.joker_draw_card``), not the dealer's.

The dealer's JD-9 draw is the same machinery: ``DEALER_DRAW`` lists its conditions in rule order
and the first that matches says what the dealer keeps (tested against ``dealer_discards``).

``STAND`` bets at once on the dealt five. ``REFERENCE`` is the documented player strategy.
It buys cards with strong hands, since every exchange raises the ante and so the bet that a
strong hand wins (JD-5, JD-6):

- first decision: bet a straight or better; with three of a kind exchange the other two; with
  two pair, a four-flush or four to an open straight exchange the fifth card; with a pair keep
  it and exchange three; with nothing else bet (exchanging five costs an ante and seldom pays);
- second decision: bet three of a kind or better; with two pair, a four-flush or four to an
  open straight exchange the fifth card; bet a pair of queens or better; fold the rest;
- third decision: bet two pair or better or a pair of queens or better; fold the rest.

It was chosen by simulation over 500,000 rounds each of the shipped paytables (JD-14) against
candidates that bet pairs at once, exchange five on nothing, draw to inside straights, or bet
lower pairs later; it loses the least per round (about 0.38 antes, game RTP about 91%).

Sums are exact
--------------
A round's return to the box is kept in integer units of A / ``scale``, where ``scale`` is the
LCM of the denominators of every odds involved (the no-game line, the paytables' lines), so
tallies are Python ints that merge exactly. Game RTP = total returned / total staked (ante and
bet) is a ratio estimator: the tally keeps sum R, sum S, sum R^2, sum S^2 and sum R*S for its
delta-method interval; the BONUS stake is fixed, so its sum and sum of squares suffice.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from fractions import Fraction
from functools import cache, cached_property
from itertools import combinations
from statistics import NormalDist
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from games.engine.cards import ALL_CARDS, RANKS
from games.engine.hands import (
    CATEGORIES,
    FOUR_OF_A_KIND,
    PAIR,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
    all_hands,
    category_of_strength,
    evaluate_batch,
)
from games.engine.joker_draw import (
    DEALER_QUALIFIES_FROM_RANK,
    HAND_SIZE,
    NO_GAME_LINE,
    ROYAL_FLUSH,
    Paytable,
    check_bonus_paytable,
    no_game_odds,
)

STAGES = ("first", "second", "third")  # JD-5, JD-6, JD-7
ACTIONS = ("fold", "exchange", "bet")
FOLD, EXCHANGE, BET = range(len(ACTIONS))
HAND_CONDITIONS = (
    "made",
    "three_of_a_kind",
    "two_pair",
    "pair",
    "four_flush",
    "open_straight",
    "inside_straight",
    "joker",
    "high_cards",
    "odd_card",
    "straight_flush_draw",
    "straight_draw",
    "full_house_three",
    "any",
)
OUTCOMES = ("folded", "no_game", "dealer_wins", "box_wins", "push")
FOLDED, NO_GAME, DEALER_WINS, BOX_WINS, PUSH = range(len(OUTCOMES))
DECK_DEPTH = 21  # JD-16: 10 dealt + at most 6 box replacements + at most 5 dealer replacements
BLOCK_ROUNDS = 1 << 17  # rounds played at once: about 100 MB of arrays at most

_JOKER = len(ALL_CARDS) - 1
_SETS = {"pair": (PAIR, 2), "two_pair": (TWO_PAIR, 2), "three_of_a_kind": (THREE_OF_A_KIND, 3)}
_FOUR_KINDS = ("four_flush", "open_straight", "inside_straight")
# The hands with cards outside their sets, and the size of their sets (the odd-card holding).
_ODD_CARD_SETS = {"pair": 2, "two_pair": 2, "three_of_a_kind": 3, "four_of_a_kind": 4}
_KEPT = {
    "made": 5,
    "three_of_a_kind": 3,
    "two_pair": 4,
    "pair": 2,
    "joker": 1,
    "high_cards": None,
    "odd_card": 4,  # one to four, as the hand holds them
    "straight_flush_draw": None,  # two to four, as the hand holds them
    "straight_draw": 4,
    "full_house_three": 3,
    "any": 0,
} | dict.fromkeys(_FOUR_KINDS, 4)
# The holdings whose lowest rank `min_rank` may set, and those that cannot say `joker`.
_RANKED = (
    "pair",
    "two_pair",
    "three_of_a_kind",
    "high_cards",
    "odd_card",
    "full_house_three",
    "straight_flush_draw",
)
_JOKERLESS = ("joker", "any")
_DRAW_WINDOWS = 10  # five consecutive ranks: A-2-3-4-5 up to T-J-Q-K-A
_FIVE_BIT_COUNT = np.array([bin(bits).count("1") for bits in range(32)], np.int64)
# A strength's first tie-break rank (games.engine.hands): of the pair, the trips, the top pair.
_TOP_RANK_SHIFT = 16
_ROYAL = STRAIGHT_FLUSH << 4 | 14  # strength >> 16 of the ace-high straight flush (HR-10)
_Z99 = NormalDist().inv_cdf(0.995)


# Strategies ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Condition:
    """A pattern in five cards and the cards it keeps (see the module docstring)."""

    hand: str
    at_least: str | None = None  # `made`: a category name
    min_rank: int | None = None  # sets: the lowest rank of the (higher) set, 2..14
    cards: int | None = None  # `straight_flush_draw`: the fewest cards to the straight flush
    ranks: int | None = None  # `straight_draw`: the fewest ranks that complete the straight
    kicker: int | None = None  # `pair`: the lowest rank of the highest card beside the pair
    joker: bool | None = None  # whether the hand holds the joker; None: either

    @property
    def kept(self) -> int | None:
        """How many cards the condition keeps; None when it depends on the hand."""
        if self.hand == "straight_flush_draw" and self.cards == HAND_SIZE - 1:
            return self.cards
        return _KEPT[self.hand]


@dataclass(frozen=True)
class Rule:
    when: Condition
    do: str  # one of ACTIONS


@dataclass(frozen=True)
class Strategy:
    """A named rule table: per decision stage, rules tried in order (first match decides)."""

    name: str
    first: tuple[Rule, ...]
    second: tuple[Rule, ...] = ()
    third: tuple[Rule, ...] = ()

    def stage(self, index: int) -> tuple[Rule, ...]:
        return (self.first, self.second, self.third)[index]

    def decide(
        self, stage: int, hands: Hands, seen: NDArray[np.int64]
    ) -> tuple[NDArray[np.int8], NDArray[np.bool_]]:
        """Each hand's action (an ``ACTIONS`` index) and the cards it exchanges at `stage`."""
        rules = self.stage(stage)
        chosen, keep = _decide(hands, [rule.when for rule in rules])
        action = np.array([ACTIONS.index(rule.do) for rule in rules], np.int8)[chosen]
        return action, ~keep & (action == EXCHANGE)[:, None]


class Player(Protocol):
    """What plays the box's decisions in the laboratory: a rule table (``Strategy``) or a
    solved best play. ``seen`` holds, per hand, every card the box has held (-1 pads)."""

    @property
    def name(self) -> str: ...

    def decide(
        self, stage: int, hands: Hands, seen: NDArray[np.int64]
    ) -> tuple[NDArray[np.int8], NDArray[np.bool_]]: ...


def strategy_from_table(name: str, table: Mapping[str, Any]) -> Strategy:
    """The strategy a rule table describes; ValueError naming the field for a bad table."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError("name: a strategy needs a name")
    if not isinstance(table, Mapping):
        raise ValueError("table: a strategy is an object of decision stages")
    unknown = sorted(set(table) - set(STAGES))
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown stage; the stages are {', '.join(STAGES)}")
    stages: list[tuple[Rule, ...]] = []
    for index, stage in enumerate(STAGES):
        # A stage is played only after an exchange at the stage before it (JD-6, JD-7).
        needed = index == 0 or any(rule.do == "exchange" for rule in stages[-1])
        if stage not in table:
            if needed:
                raise ValueError(
                    f"{stage}: missing; the {STAGES[index - 1]} stage can exchange"
                    if index
                    else "first: missing; every strategy decides the first decision (JD-5)"
                )
            stages.append(())
            continue
        if not needed:
            raise ValueError(
                f"{stage}: never played, as the {STAGES[index - 1]} stage never exchanges"
            )
        stages.append(_rules_from_table(stage, index, table[stage]))
    return Strategy(name, *stages)


def _rules_from_table(stage: str, index: int, rules: Any) -> tuple[Rule, ...]:
    if not isinstance(rules, list) or not rules:
        raise ValueError(f"{stage}: a non-empty list of rules")
    parsed: list[Rule] = []
    for number, rule in enumerate(rules):
        where = f"{stage}[{number}]"
        if not isinstance(rule, Mapping) or set(rule) != {"when", "do"}:
            raise ValueError(f"{where}: a rule is an object with exactly 'when' and 'do'")
        condition = _condition_from_table(f"{where}.when", rule["when"])
        action = rule["do"]
        if action not in ACTIONS:
            raise ValueError(f"{where}.do: {action!r} is not one of {', '.join(ACTIONS)}")
        if action == "exchange":
            _check_exchange(f"{where}.do", index, condition)
        if condition.hand == "any" and number != len(rules) - 1:
            raise ValueError(f"{where}.when: 'any' matches every hand, so it must come last")
        parsed.append(Rule(condition, action))
    if parsed[-1].when.hand != "any":
        raise ValueError(f"{stage}[{len(rules) - 1}].when: the last rule must be 'any'")
    return tuple(parsed)


def _check_exchange(where: str, index: int, condition: Condition) -> None:
    if index == 2:
        raise ValueError(f"{where}: the third decision is fold or bet only (JD-7)")
    if condition.kept is None:  # keeps one to four: an exchange of the first decision only
        if index == 1:
            raise ValueError(
                f"{where}: '{condition.hand}' exchanges one to four cards; "
                "the second exchange is of exactly one card (JD-6)"
            )
        return
    discarded = HAND_SIZE - condition.kept
    if index == 0 and discarded == 0:
        raise ValueError(f"{where}: '{condition.hand}' keeps all five cards (JD-5: 1 to 5)")
    if index == 1 and discarded != 1:
        raise ValueError(
            f"{where}: '{condition.hand}' exchanges {discarded} cards; "
            "the second exchange is of exactly one card (JD-6)"
        )


def _condition_from_table(where: str, when: Any) -> Condition:
    if not isinstance(when, Mapping) or "hand" not in when:
        raise ValueError(f"{where}: a condition is an object with 'hand'")
    hand = when["hand"]
    if hand not in HAND_CONDITIONS:
        raise ValueError(f"{where}.hand: {hand!r} is not one of {', '.join(HAND_CONDITIONS)}")
    allowed = (
        {"hand"}
        | ({"at_least"} if hand in ("made", "odd_card") else set())
        | ({"min_rank"} if hand in _RANKED else set())
        | ({"cards"} if hand == "straight_flush_draw" else set())
        | ({"ranks"} if hand == "straight_draw" else set())
        | ({"kicker"} if hand == "pair" else set())
        | ({"joker"} if hand not in _JOKERLESS else set())
    )
    extra = sorted(set(when) - allowed)
    if extra:
        raise ValueError(f"{where}.{extra[0]}: not a parameter of '{hand}'")
    at_least = when.get("at_least")
    if hand == "made" and at_least not in CATEGORIES:
        raise ValueError(f"{where}.at_least: {at_least!r} is not one of {', '.join(CATEGORIES)}")
    if hand == "odd_card" and at_least is not None and at_least not in _ODD_CARD_SETS:
        raise ValueError(
            f"{where}.at_least: {at_least!r} is not one of {', '.join(_ODD_CARD_SETS)}"
        )
    min_rank = when.get("min_rank")
    if hand == "high_cards" and min_rank is None:
        raise ValueError(f"{where}.min_rank: 'high_cards' needs the lowest rank it keeps")
    if min_rank is not None:
        if not isinstance(min_rank, str) or len(min_rank) != 1 or min_rank not in RANKS:
            raise ValueError(f"{where}.min_rank: {min_rank!r} is not a rank letter of {RANKS}")
        min_rank = RANKS.index(min_rank) + 2
    cards = when.get("cards")
    if hand == "straight_flush_draw" and (
        not isinstance(cards, int) or isinstance(cards, bool) or not 2 <= cards <= HAND_SIZE - 1
    ):
        raise ValueError(f"{where}.cards: 'straight_flush_draw' needs 2, 3 or 4 cards")
    ranks = when.get("ranks")
    if hand == "straight_draw" and (
        not isinstance(ranks, int) or isinstance(ranks, bool) or not 1 <= ranks <= 4
    ):
        raise ValueError(f"{where}.ranks: 'straight_draw' needs 1 to 4 ranks")
    kicker = when.get("kicker")
    if kicker is not None:
        if not isinstance(kicker, str) or len(kicker) != 1 or kicker not in RANKS:
            raise ValueError(f"{where}.kicker: {kicker!r} is not a rank letter of {RANKS}")
        kicker = RANKS.index(kicker) + 2
    joker = when.get("joker")
    if joker is not None and not isinstance(joker, bool):
        raise ValueError(f"{where}.joker: true (the hand holds the joker) or false")
    return Condition(hand, at_least, min_rank, cards, ranks, kicker, joker)


def strategy_to_table(strategy: Strategy) -> dict[str, Any]:
    """The rule table of a strategy, JSON-able; ``strategy_from_table`` reads it back."""
    table: dict[str, Any] = {}
    for index, stage in enumerate(STAGES):
        rules = strategy.stage(index)
        if rules:
            table[stage] = [{"when": _condition_to_table(r.when), "do": r.do} for r in rules]
    return table


def _condition_to_table(condition: Condition) -> dict[str, str | int | bool]:
    table: dict[str, str | int | bool] = {"hand": condition.hand}
    if condition.at_least is not None:
        table["at_least"] = condition.at_least
    if condition.min_rank is not None:
        table["min_rank"] = RANKS[condition.min_rank - 2]
    if condition.cards is not None:
        table["cards"] = condition.cards
    if condition.ranks is not None:
        table["ranks"] = condition.ranks
    if condition.kicker is not None:
        table["kicker"] = RANKS[condition.kicker - 2]
    if condition.joker is not None:
        table["joker"] = condition.joker
    return table


STAND = strategy_from_table("stand", {"first": [{"when": {"hand": "any"}, "do": "bet"}]})
REFERENCE = strategy_from_table(
    "reference",
    {
        "first": [
            {"when": {"hand": "made", "at_least": "straight"}, "do": "bet"},
            {"when": {"hand": "three_of_a_kind"}, "do": "exchange"},
            {"when": {"hand": "two_pair"}, "do": "exchange"},
            {"when": {"hand": "four_flush"}, "do": "exchange"},
            {"when": {"hand": "open_straight"}, "do": "exchange"},
            {"when": {"hand": "pair"}, "do": "exchange"},
            {"when": {"hand": "any"}, "do": "bet"},
        ],
        "second": [
            {"when": {"hand": "made", "at_least": "three_of_a_kind"}, "do": "bet"},
            {"when": {"hand": "two_pair"}, "do": "exchange"},
            {"when": {"hand": "pair", "min_rank": "Q"}, "do": "bet"},
            {"when": {"hand": "four_flush"}, "do": "exchange"},
            {"when": {"hand": "open_straight"}, "do": "exchange"},
            {"when": {"hand": "any"}, "do": "fold"},
        ],
        "third": [
            {"when": {"hand": "made", "at_least": "two_pair"}, "do": "bet"},
            {"when": {"hand": "pair", "min_rank": "Q"}, "do": "bet"},
            {"when": {"hand": "any"}, "do": "fold"},
        ],
    },
)

DEALER_DRAW: tuple[Condition, ...] = (
    Condition("made", at_least="straight"),  # JD-9.0: stand pat
    Condition("two_pair"),  # JD-9.0: keep both pairs
    Condition("three_of_a_kind"),  # JD-9.1
    Condition("four_flush"),  # JD-9.2
    Condition("open_straight"),  # JD-9.3
    Condition("pair"),  # JD-9.4
    Condition("inside_straight"),  # JD-9.5
    Condition("any"),  # JD-9.6
)
"""The dealer's draw (JD-9) as conditions in rule order: the first match says what is kept."""


# Batch machinery -----------------------------------------------------------------------------

_BINOMIAL = np.array(
    [[math.comb(n, k) for k in range(HAND_SIZE + 1)] for n in range(len(ALL_CARDS))],
    dtype=np.int64,
)


@dataclass(frozen=True)
class _Fours:
    """For every four-card set of the deck, by colex index: the highest hand one more card
    makes of each draw kind (0 if none), the card that makes it, and the highest without that
    card, so the hand's own fifth card can be left out; and how many ranks make a straight."""

    flush_best: NDArray[np.int32]
    flush_card: NDArray[np.uint8]
    flush_second: NDArray[np.int32]
    straight_best: NDArray[np.int32]
    straight_card: NDArray[np.uint8]
    straight_second: NDArray[np.int32]
    straight_ranks: NDArray[np.uint8]


def _colex(sorted_cards: NDArray[np.uint8]) -> NDArray[np.int64]:
    """Colex index of each row of ascending card positions."""
    columns = np.arange(sorted_cards.shape[1])
    return _BINOMIAL[sorted_cards, columns + 1].sum(axis=1)


@cache  # built on first use, in a fraction of a second
def _fours() -> _Fours:
    fours = np.array(list(combinations(range(len(ALL_CARDS)), 4)), dtype=np.uint8)
    fours[_colex(fours)] = fours.copy()
    size = len(fours)
    naturals = fours != _JOKER
    suits = np.where(naturals, (fours & 3).astype(np.int8), -1)
    # The suit all naturals share, the joker matching any (JD-9.2); -1 if they do not.
    top_suit = suits.max(axis=1)
    one_suit = np.where(naturals, suits == top_suit[:, None], True).all(axis=1)
    common_suit = np.where(one_suit, top_suit, -1)
    # Only naturals of distinct ranks within five consecutive ones (the ace also low) can be
    # four cards to a straight; evaluating just those and the four-flushes saves most of the work.
    ranks = (fours >> 2).astype(np.int16)
    high = np.where(naturals, ranks, -1).max(axis=1)
    low = np.where(naturals, ranks, 99).min(axis=1)
    wheel = (~naturals | (ranks <= 3) | (ranks == 12)).all(axis=1)
    distinct = np.ones(size, bool)
    for one, other in combinations(range(4), 2):
        distinct &= ~(naturals[:, one] & (ranks[:, one] == ranks[:, other]))
    draws = np.flatnonzero(one_suit | (distinct & ((high - low <= 4) | wheel)))
    best = {kind: np.zeros(size, np.int32) for kind in ("flush", "straight")}
    card = {kind: np.zeros(size, np.uint8) for kind in ("flush", "straight")}
    second = {kind: np.zeros(size, np.int32) for kind in ("flush", "straight")}
    rank_bits = np.zeros(size, np.int32)
    for fifth in range(_JOKER):  # the joker never completes a draw: it is in the four if dealt
        rows = draws[(fours[draws] != fifth).all(axis=1)]
        hands = np.column_stack((fours[rows], np.full(len(rows), fifth, np.uint8)))
        strength = evaluate_batch(hands)
        category = category_of_strength(strength)
        made = {
            "flush": np.where(common_suit[rows] == fifth & 3, strength, 0),
            "straight": np.where(
                (category == STRAIGHT) | (category == STRAIGHT_FLUSH), strength, 0
            ),
        }
        rank_bits[rows] |= (made["straight"] > 0).astype(np.int32) << (fifth >> 2)
        for kind, value in made.items():
            top, runner_up = best[kind][rows], second[kind][rows]
            higher = value > top
            second[kind][rows] = np.where(higher, top, np.maximum(runner_up, value))
            best[kind][rows] = np.where(higher, value, top)
            card[kind][rows] = np.where(higher, fifth, card[kind][rows])
    completing = np.unpackbits(rank_bits.view(np.uint8).reshape(size, 4), axis=1).sum(axis=1)
    return _Fours(
        best["flush"],
        card["flush"],
        second["flush"],
        best["straight"],
        card["straight"],
        second["straight"],
        completing.astype(np.uint8),
    )


class Hands:
    """A batch of five-card hands (rows of FS-1 positions, in the live engine's hand order)
    and, computed once on demand, what the conditions need to know of them."""

    def __init__(self, cards: NDArray[np.uint8]) -> None:
        self.cards = cards
        self.strength = evaluate_batch(cards)
        self.category = category_of_strength(self.strength)
        self.top_rank = (self.strength >> _TOP_RANK_SHIFT) & 0xF
        self._draws: dict[int, tuple[NDArray[np.int64], NDArray[np.bool_]]] = {}

    def condition(self, condition: Condition) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
        """Which hands match and, for each, which of its cards the condition keeps."""
        match, keep = self._holding(condition)
        if condition.joker is not None:
            _, _, has_joker = self._rank_counts
            match = match & (has_joker == condition.joker)
        return match, keep

    def _holding(self, condition: Condition) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
        rows = len(self.cards)
        if condition.hand == "any":
            return np.ones(rows, bool), np.zeros((rows, HAND_SIZE), bool)
        if condition.hand == "made":
            at_least = CATEGORIES.index(condition.at_least or "")
            return self.category >= at_least, np.ones((rows, HAND_SIZE), bool)
        if condition.hand in _SETS:
            category, size = _SETS[condition.hand]
            match = self.category == category
            if condition.min_rank is not None:
                match &= self.top_rank >= condition.min_rank
            if condition.kicker is not None:  # a pair's strength ranks its kickers next
                match &= (self.strength >> _TOP_RANK_SHIFT - 4) & 0xF >= condition.kicker
            return match, self._sets(size)
        if condition.hand == "joker":
            joker = self.cards == _JOKER
            return joker.any(axis=1), joker
        if condition.hand == "odd_card":
            match, keep = self._odd_card(condition.at_least or "pair")
            if condition.min_rank is not None:
                match = match & (self.top_rank >= condition.min_rank)
            return match, keep
        if condition.hand == "full_house_three":
            match = self.category == CATEGORIES.index("full_house")
            if condition.min_rank is not None:
                match &= self.top_rank >= condition.min_rank
            return match, match[:, None] & self._sets(3)
        if condition.hand == "straight_draw":
            return self._straight_draw(condition.ranks or 1)
        if condition.hand == "straight_flush_draw":
            return self._straight_flush_draw(condition.cards or 2, condition.min_rank or 2)
        if condition.hand == "high_cards":
            ranks, _, _ = self._rank_counts
            high = (ranks < 0) | (ranks + 2 >= (condition.min_rank or 0))
            held = high.sum(axis=1)
            return (held >= 1) & (held < HAND_SIZE), high
        return self._best_four(condition.hand)

    @cached_property
    def _rank_counts(self) -> tuple[NDArray[np.int8], NDArray[np.int8], NDArray[np.bool_]]:
        """Each card's rank (-1 for the joker), how many cards of the hand share it, and
        whether the hand holds the joker."""
        joker = self.cards == _JOKER
        ranks = np.where(joker, -1, (self.cards >> 2).astype(np.int8))
        count = np.zeros(ranks.shape, np.int8)
        for slot in range(HAND_SIZE):
            count += ranks == ranks[:, slot : slot + 1]
        return ranks, np.where(joker, 0, count).astype(np.int8), joker.any(axis=1)

    def _sets(self, size: int) -> NDArray[np.bool_]:
        """The cards of the hand's sets of `size`, the joker joining the highest rank one card
        short of a set (JD-9.0, JD-9.1, JD-9.4; as the live engine's `_keep_paired`)."""
        ranks, count, has_joker = self._rank_counts
        short = (count == size - 1) & has_joker[:, None]
        top_short = np.where(short, ranks, -1).max(axis=1)
        return (count >= size) | (short & (ranks == top_short[:, None])) | (ranks < 0)

    def _odd_card(self, at_least: str) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
        """Hands of `at_least` or better up to four of a kind with a card outside their sets;
        all but the lowest such card are kept (the first of equal ranks, in hand order)."""
        has_odd, keep = self._odd_cards
        match = (
            (self.category >= CATEGORIES.index(at_least))
            & (self.category <= FOUR_OF_A_KIND)
            & (self.category != STRAIGHT)
            & (self.category != CATEGORIES.index("flush"))
            & (self.category != CATEGORIES.index("full_house"))
            & has_odd
        )
        return match, match[:, None] & keep

    @cached_property
    def _odd_cards(self) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
        """Whether each hand has a card outside its sets, and all but the lowest such card."""
        sets = np.zeros(self.cards.shape, bool)
        for name, size in _ODD_CARD_SETS.items():
            rows = self.category == CATEGORIES.index(name)
            sets[rows] = self._sets(size)[rows]
        ranks, _, _ = self._rank_counts
        odd = ~sets
        drop = np.argmin(np.where(odd, ranks.astype(np.int16), 99), axis=1)
        has_odd = np.asarray(odd.any(axis=1), dtype=bool)
        kept: NDArray[np.bool_] = np.arange(HAND_SIZE)[None, :] != drop[:, None]
        return has_odd, kept

    def _straight_flush_draw(
        self, cards: int, min_rank: int
    ) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
        """Hands with `cards` to four cards of one suit within five consecutive ranks (the ace
        high or low), each of `min_rank` or higher, the joker counting as any; the most such
        cards are kept, of the highest five ranks, then of the first suit, among equals."""
        most, kept = self._straight_flush_cards(min_rank)
        match = (most >= cards) & (most < HAND_SIZE)
        return match, match[:, None] & kept

    def _straight_flush_cards(self, min_rank: int) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """The most cards to a straight flush of `min_rank` or higher, and those cards."""
        if min_rank in self._draws:
            return self._draws[min_rank]
        ranks, _, has_joker = self._rank_counts
        rank = ranks.astype(np.int64) + 2
        natural = (ranks >= 0) & (rank >= min_rank)
        # Each card's bit at its rank, the ace's also at 1 (low); per suit, the bits it holds.
        bits = np.where(natural, (1 << rank) | np.where(rank == 14, 2, 0), 0)
        suit = (self.cards & 3).astype(np.int64)
        held = np.stack([np.where(suit == s, bits, 0).sum(axis=1) for s in range(4)], axis=1)
        # Cards per suit (columns) and window of five ranks from `low` (rows, highest first).
        lows = np.arange(_DRAW_WINDOWS, 0, -1)
        count = _FIVE_BIT_COUNT[(held[:, None, :] >> lows[None, :, None]) & 0b11111]
        count = count.reshape(len(self.cards), -1) + has_joker[:, None]
        best = np.argmax(count, axis=1)  # the first of equals: the highest window, first suit
        low, best_suit = lows[best // 4], best % 4
        most = count[np.arange(len(self.cards)), best]
        window = 0b11111 << low[:, None]
        kept = (suit == best_suit[:, None]) & ((bits & window) != 0) | (ranks < 0)
        self._draws[min_rank] = most, kept
        return most, kept

    @cached_property
    def _fours(self) -> NDArray[np.int64]:
        """Per hand slot, the colex index of the four other cards: a card's place among the
        four is its place in the hand, less one if it lies above the card left out."""
        cards = self.cards.astype(np.int64)
        place = np.zeros(cards.shape, np.int64)
        for slot in range(HAND_SIZE):
            place += cards > cards[:, slot : slot + 1]
        stays = _BINOMIAL[cards, place + 1]
        moves_down = _BINOMIAL[cards, place]
        below = cards[:, None, :] < cards[:, :, None]  # [row, left out, other card]
        return np.where(below, stays[:, None, :], moves_down[:, None, :]).sum(axis=2) - moves_down

    def _straight_draw(self, ranks: int) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
        """Hands with four cards to a straight that `ranks` or more ranks complete, the joker
        counting as any; the four that the most ranks complete are kept, then the four that
        make the highest straight, ties going as in ``_best_four``."""
        tables = _fours()
        four = self._fours
        completing = tables.straight_ranks[four].astype(np.int64)
        own = tables.straight_card[four] == self.cards
        value = np.where(own, tables.straight_second[four], tables.straight_best[four])
        slots = np.arange(HAND_SIZE)
        score = (completing << 32 | value.astype(np.int64)) * HAND_SIZE + slots
        drop = np.argmax(score, axis=1)
        match = completing.max(axis=1) >= ranks
        return match, match[:, None] & (slots[None, :] != drop[:, None])

    def _best_four(self, kind: str) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
        """The hand's four cards of `kind` that make the highest hand of that kind with one more
        card (JD-9); ties keep the set the live engine's `_best_four` finds first."""
        tables = _fours()
        four = self._fours
        if kind == "four_flush":
            best, card, second = tables.flush_best, tables.flush_card, tables.flush_second
            value = np.where(card[four] == self.cards, second[four], best[four])
        else:
            best, card, second = tables.straight_best, tables.straight_card, tables.straight_second
            ranks = tables.straight_ranks[four]
            draws = ranks >= 2 if kind == "open_straight" else ranks == 1
            value = np.where(draws, np.where(card[four] == self.cards, second[four], best[four]), 0)
        slots = np.arange(HAND_SIZE)
        # Highest value first; among equal ones the live engine keeps the first four-card set of
        # `combinations`, which is the one leaving out the card in the last place.
        drop = np.argmax(value.astype(np.int64) * HAND_SIZE + slots, axis=1)
        match = value.max(axis=1) > 0
        keep = match[:, None] & (slots[None, :] != drop[:, None])
        return match, keep


def _decide(
    hands: Hands, conditions: Sequence[Condition]
) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """The index of the first matching condition of each hand, and the cards it keeps."""
    rows = len(hands.cards)
    chosen = np.full(rows, -1, np.int64)
    keep = np.zeros((rows, HAND_SIZE), bool)
    for index, condition in enumerate(conditions):
        match, kept = hands.condition(condition)
        take = match & (chosen < 0)
        chosen[take] = index
        keep[take] = kept[take]
    return chosen, keep


def dealer_discards_batch(hands: NDArray[np.uint8]) -> NDArray[np.bool_]:
    """Which cards of each hand (rows of FS-1 positions, in hand order) the dealer exchanges
    (JD-9): ``DEALER_DRAW`` run by the strategies' machinery, as the live ``dealer_discards``."""
    _, keep = _decide(Hands(np.asarray(hands, dtype=np.uint8)), DEALER_DRAW)
    return ~keep


def _draw(
    cards: NDArray[np.uint8],
    discard: NDArray[np.bool_],
    deck: NDArray[np.uint8],
    dealt: NDArray[np.int64],
) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """The hands after the exchange, and the cards dealt from each deck after it: replacements
    from the top of the deck take the discarded cards' places, in hand order (JD-4)."""
    offsets: NDArray[np.int64] = np.cumsum(discard, axis=1) - discard
    drawn = np.take_along_axis(deck, dealt[:, None] + offsets, axis=1)
    return np.where(discard, drawn, cards), dealt + discard.sum(axis=1)


# Playing rounds ------------------------------------------------------------------------------


def deal_decks(seed: int, rounds: int) -> NDArray[np.uint8]:
    """The decks of `rounds` rounds as rows of FS-1 positions, top card first: the top
    DECK_DEPTH cards are a uniform draw without replacement from PCG64(seed), the rest follow
    in no particular order (JD-1)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    decks = np.tile(np.arange(len(ALL_CARDS), dtype=np.uint8), (rounds, 1))
    rows = np.arange(rounds)
    for place in range(DECK_DEPTH):  # Fisher-Yates, only as deep as a round can deal
        other = rng.integers(place, len(ALL_CARDS), size=rounds)
        top = decks[rows, place]
        decks[rows, place] = decks[rows, other]
        decks[rows, other] = top
    return decks


@dataclass(frozen=True)
class Rounds:
    """Every round of a batch in detail, one row per round (cards as FS-1 positions): what
    ``simulate`` tallies, and what a replay through the live engine compares."""

    initial: NDArray[np.uint8]  # the box's first five (JD-13)
    cards: NDArray[np.uint8]  # (rounds, 3, 5): the box's cards at each decision
    actions: NDArray[np.int8]  # (rounds, 3): ACTIONS index per stage, -1 where not played
    discards: NDArray[np.bool_]  # (rounds, 3, 5): the exchanged cards at each decision
    final: NDArray[np.uint8]  # the box's final five
    dealer_initial: NDArray[np.uint8]
    dealer_discards: NDArray[np.bool_]  # none where the box folded (JD-8)
    dealer_final: NDArray[np.uint8]
    exchanges: NDArray[np.int64]
    outcome: NDArray[np.int64]  # OUTCOMES index
    staked: NDArray[np.int64]  # ante + bet, in A
    returned: NDArray[np.int64]  # what ante and bet return, in A / scale
    bonus_returned: NDArray[np.int64]  # what the BONUS of 1 A returns, in A / scale
    final_strength: NDArray[np.int32]
    dealer_strength: NDArray[np.int32]
    scale: int


def _qualifies(strength: NDArray[np.int32]) -> NDArray[np.bool_]:
    """JD-10: a game is a pair of jacks or better (the live engine's `dealer_qualifies`)."""
    category = category_of_strength(strength)
    pair_rank = (strength >> _TOP_RANK_SHIFT) & 0xF
    return (category > PAIR) | ((category == PAIR) & (pair_rank >= DEALER_QUALIFIES_FROM_RANK))


def odds_scale(bet_paytable: Paytable, bonus_paytable: Paytable) -> int:
    """The LCM of the denominators of every odds a round can pay (JD-11, JD-13, JD-14)."""
    check_bonus_paytable(bonus_paytable)
    odds = [
        no_game_odds(bet_paytable),
        *_check_paytable(bet_paytable),
        *_check_paytable(bonus_paytable),
    ]
    return math.lcm(*(Fraction(value).denominator for value in odds))


def _check_paytable(paytable: Paytable) -> list[Fraction]:
    for line, odds in paytable.items():
        if line not in CATEGORIES and line not in (ROYAL_FLUSH, NO_GAME_LINE):
            raise ValueError(f"{line}: not a paytable line (JD-14)")
        if not isinstance(odds, Fraction | int) or odds < 0:
            raise ValueError(f"{line}: odds are a non-negative Fraction (JD-14), got {odds!r}")
    return [Fraction(odds) for odds in paytable.values()]


def _odds_by_strength(
    strength: NDArray[np.int32], paytable: Paytable, scale: int, unlisted: Fraction | None
) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """Each hand's paytable odds times `scale`, and whether a line lists it: `royal_flush`
    for a royal flush when listed (HR-10), else its category's line (JD-11, JD-13)."""
    by_category = np.array(
        [int(paytable.get(name, unlisted or 0) * scale) for name in CATEGORIES], dtype=np.int64
    )
    listed = np.array([name in paytable for name in CATEGORIES])
    category = category_of_strength(strength)
    odds, paid = by_category[category], listed[category]
    if ROYAL_FLUSH in paytable:
        royal = (strength >> _TOP_RANK_SHIFT) == _ROYAL
        odds = np.where(royal, int(paytable[ROYAL_FLUSH] * scale), odds)
        paid = paid | royal
    return odds, paid


def _seen(deck: NDArray[np.uint8], dealt: NDArray[np.int64]) -> NDArray[np.int64]:
    """Every card the box has held, per round: the dealt five, then what it drew from the
    cards after the deal (JD-3, JD-4), -1 padding the rest."""
    drawn = np.arange(2 * HAND_SIZE, DECK_DEPTH - HAND_SIZE)
    later = np.where(drawn < dealt[:, None], deck[:, drawn].astype(np.int64), -1)
    return np.column_stack([deck[:, 0 : 2 * HAND_SIZE : 2].astype(np.int64), later])


def play_rounds(
    decks: NDArray[np.uint8], bet_paytable: Paytable, bonus_paytable: Paytable, strategy: Player
) -> Rounds:
    """Play one box against the dealer on each deck, ante and BONUS of 1 A each."""
    scale = odds_scale(bet_paytable, bonus_paytable)
    count = len(decks)
    deck = np.ascontiguousarray(decks[:, :DECK_DEPTH])
    box = deck[:, 0 : 2 * HAND_SIZE : 2].copy()  # JD-3: box card, dealer card, alternately
    dealer_initial = deck[:, 1 : 2 * HAND_SIZE : 2].copy()
    dealt = np.full(count, 2 * HAND_SIZE, np.int64)
    cards = np.zeros((count, len(STAGES), HAND_SIZE), np.uint8)
    actions = np.full((count, len(STAGES)), -1, np.int8)
    discards = np.zeros((count, len(STAGES), HAND_SIZE), bool)
    exchanges = np.zeros(count, np.int64)
    deciding = np.ones(count, bool)
    first = Hands(box)
    for stage in range(len(STAGES)):  # JD-5, JD-6, JD-7
        rows = np.flatnonzero(deciding)
        if not len(rows):
            break
        hands = first if stage == 0 else Hands(box[rows])
        action, discard = strategy.decide(stage, hands, _seen(deck[rows], dealt[rows]))
        cards[rows, stage] = box[rows]
        actions[rows, stage] = action
        exchanging = action == EXCHANGE
        discards[rows, stage] = discard
        swap = rows[exchanging]
        box[swap], dealt[swap] = _draw(box[swap], discard[exchanging], deck[swap], dealt[swap])
        exchanges[swap] += 1
        deciding[rows[~exchanging]] = False
    folded = (actions == FOLD).any(axis=1)
    # JD-8: the dealer draws once by JD-9 unless the box folded.
    drawing = np.flatnonzero(~folded)
    dealer_final = dealer_initial.copy()
    dealer_discards = np.zeros((count, HAND_SIZE), bool)
    dealer_discards[drawing] = dealer_discards_batch(dealer_initial[drawing])
    dealer_final[drawing], _ = _draw(
        dealer_initial[drawing], dealer_discards[drawing], deck[drawing], dealt[drawing]
    )
    final_strength = evaluate_batch(box)
    dealer_strength = evaluate_batch(dealer_final)
    ante = 1 + exchanges  # JD-5, JD-6: every exchange adds one original ante
    staked = np.where(folded, ante, 3 * ante)  # the bet is twice the ante (JD-5..JD-7)
    outcome = np.select(
        [
            folded,
            ~_qualifies(dealer_strength),
            dealer_strength > final_strength,
            final_strength > dealer_strength,
        ],
        [FOLDED, NO_GAME, DEALER_WINS, BOX_WINS],
        PUSH,
    )
    bet_odds, _ = _odds_by_strength(final_strength, bet_paytable, scale, Fraction(1))
    returned = ante * np.select(  # JD-11, JD-12, per original ante
        [outcome == FOLDED, outcome == NO_GAME, outcome == DEALER_WINS, outcome == BOX_WINS],
        [
            0,
            int((3 + no_game_odds(bet_paytable)) * scale),  # ante back and paid, bet back
            0,
            4 * scale + 2 * bet_odds,  # ante back and paid 1:1, bet back and paid
        ],
        3 * scale,  # push: ante and bet back
    )
    bonus_odds, bonus_paid = _odds_by_strength(first.strength, bonus_paytable, scale, None)
    bonus_returned = np.where(bonus_paid, scale + bonus_odds, 0)  # JD-13
    return Rounds(
        initial=deck[:, 0 : 2 * HAND_SIZE : 2],
        cards=cards,
        actions=actions,
        discards=discards,
        final=box,
        dealer_initial=dealer_initial,
        dealer_discards=dealer_discards,
        dealer_final=dealer_final,
        exchanges=exchanges,
        outcome=outcome,
        staked=staked,
        returned=returned,
        bonus_returned=bonus_returned,
        final_strength=final_strength,
        dealer_strength=dealer_strength,
        scale=scale,
    )


# Tallies -------------------------------------------------------------------------------------

_SUMS = (
    "rounds",
    "staked",
    "staked_sq",
    "returned",
    "returned_sq",
    "returned_staked",
    "bonus_rounds",
    "bonus_returned",
    "bonus_returned_sq",
    "dealer_qualified",
)
_COUNTS = ("outcomes", "player_categories", "dealer_categories")


@dataclass
class Tally:
    """Exact integer sums over rounds of one box (ante and BONUS of 1 A each).

    Stakes (S: ante plus bet) are in A; returns (R: what ante and bet give back, B: what the
    BONUS gives back) in A / ``scale``. ``player_categories`` counts the final hands of boxes
    that did not fold, ``dealer_categories`` the dealer's final hands in those rounds (the
    dealer draws only then, JD-8), ``decisions`` every stage's actions. ``bonus_rounds`` is 0
    when no BONUS paytable was given.
    """

    scale: int
    rounds: int = 0
    staked: int = 0
    staked_sq: int = 0
    returned: int = 0
    returned_sq: int = 0
    returned_staked: int = 0
    bonus_rounds: int = 0
    bonus_returned: int = 0
    bonus_returned_sq: int = 0
    dealer_qualified: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    player_categories: dict[str, int] = field(default_factory=dict)
    dealer_categories: dict[str, int] = field(default_factory=dict)
    decisions: dict[str, dict[str, int]] = field(default_factory=dict)

    def merge(self, other: Tally) -> Tally:
        """The tally of both sets of rounds; exact, so merging in any order gives one result."""
        if other.scale != self.scale:
            raise ValueError(
                f"scale: tallies in units of 1/{self.scale} and 1/{other.scale} A do not merge "
                "(different paytables)"
            )
        merged = Tally(
            self.scale, **{name: getattr(self, name) + getattr(other, name) for name in _SUMS}
        )
        for name in _COUNTS:
            setattr(merged, name, _add(getattr(self, name), getattr(other, name)))
        merged.decisions = {
            stage: _add(self.decisions.get(stage, {}), other.decisions.get(stage, {}))
            for stage in STAGES
            if stage in self.decisions or stage in other.decisions
        }
        return merged

    def to_json(self) -> dict[str, Any]:
        return {
            "scale": self.scale,
            **{name: getattr(self, name) for name in _SUMS},
            **{name: dict(getattr(self, name)) for name in _COUNTS},
            "decisions": {stage: dict(counts) for stage, counts in self.decisions.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Tally:
        expected = {item.name for item in fields(cls)}
        if set(data) != expected:
            wrong = sorted(set(data) ^ expected)
            raise ValueError(f"{wrong[0]}: not the field set of a tally")
        for name in ("scale", *_SUMS):
            if not isinstance(data[name], int) or isinstance(data[name], bool):
                raise ValueError(f"{name}: a tally's sums are integers")
        tally = cls(data["scale"], **{name: data[name] for name in _SUMS})
        for name in _COUNTS:
            setattr(tally, name, {key: int(n) for key, n in data[name].items()})
        tally.decisions = {
            stage: {action: int(n) for action, n in counts.items()}
            for stage, counts in data["decisions"].items()
        }
        return tally


def _add(first: Mapping[str, int], second: Mapping[str, int]) -> dict[str, int]:
    return {key: first.get(key, 0) + second.get(key, 0) for key in sorted({*first, *second})}


def _counts(codes: NDArray[Any], names: Sequence[str]) -> dict[str, int]:
    counts = np.bincount(codes, minlength=len(names))
    return {name: int(n) for name, n in zip(names, counts, strict=True) if n}


def _sums(
    values: NDArray[np.int64], weights: NDArray[np.int64] | None = None
) -> tuple[int, int, int]:
    """Exact sum of values, of their squares and of values times weights (0..15), in Python
    ints: a round's values are few distinct numbers, so count each once."""
    keys = values << 4 if weights is None else values << 4 | weights
    distinct, counts = np.unique(keys, return_counts=True)
    total = square = product = 0
    for key, count in zip(distinct.tolist(), counts.tolist(), strict=True):
        value, weight = key >> 4, key & 15
        total += count * value
        square += count * value * value
        product += count * value * weight
    return total, square, product


def tally_rounds(rounds: Rounds, bonus: bool) -> Tally:
    """The tally of a batch of played rounds; `bonus` says whether a BONUS was staked."""
    played = rounds.outcome != FOLDED
    returned, returned_sq, returned_staked = _sums(rounds.returned, rounds.staked)
    staked, staked_sq, _ = _sums(rounds.staked)
    bonus_returned, bonus_returned_sq, _ = _sums(rounds.bonus_returned) if bonus else (0, 0, 0)
    dealer_strength = rounds.dealer_strength[played]
    dealer_categories = category_of_strength(dealer_strength)
    qualified = _qualifies(dealer_strength)
    return Tally(
        scale=rounds.scale,
        rounds=len(rounds.outcome),
        staked=staked,
        staked_sq=staked_sq,
        returned=returned,
        returned_sq=returned_sq,
        returned_staked=returned_staked,
        bonus_rounds=len(rounds.outcome) if bonus else 0,
        bonus_returned=bonus_returned,
        bonus_returned_sq=bonus_returned_sq,
        dealer_qualified=int(qualified.sum()),
        outcomes=_counts(rounds.outcome, OUTCOMES),
        player_categories=_counts(category_of_strength(rounds.final_strength[played]), CATEGORIES),
        dealer_categories=_counts(dealer_categories, CATEGORIES),
        decisions={
            stage: _counts(actions[actions >= 0], ACTIONS)
            for stage, actions in zip(STAGES, rounds.actions.T, strict=True)
            if (actions >= 0).any()
        },
    )


def simulate(
    bet_paytable: Paytable, bonus_paytable: Paytable, strategy: Player, rounds: int, seed: int
) -> Tally:
    """Play `rounds` rounds of one box by `strategy` on decks shuffled by PCG64(seed); the
    same arguments give the same tally. An empty `bonus_paytable` means no BONUS is staked."""
    if rounds < 1:
        raise ValueError(f"rounds: at least 1, got {rounds}")
    rng = np.random.Generator(np.random.PCG64(seed))
    tally = Tally(odds_scale(bet_paytable, bonus_paytable))
    for start in range(0, rounds, BLOCK_ROUNDS):
        block_seed = int(rng.integers(2**63))
        decks = deal_decks(block_seed, min(BLOCK_ROUNDS, rounds - start))
        played = play_rounds(decks, bet_paytable, bonus_paytable, strategy)
        tally = tally.merge(tally_rounds(played, bool(bonus_paytable)))
    return tally


def chunk_seed(run_seed: int, chunk_index: int) -> int:
    """The seed of chunk `chunk_index` of a run: independent streams by numpy's SeedSequence."""
    sequence = np.random.SeedSequence(run_seed, spawn_key=(chunk_index,))
    return int(sequence.generate_state(2, np.uint64).astype(object).dot([1 << 64, 1]))


# Summaries -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RtpSummary:
    """What a tally says, for people: RTPs in percent with 99% confidence intervals, and
    frequencies (0..1). The game RTP is total returned / total staked, ante and bet (its
    interval by the delta method); the BONUS RTP is per unit of BONUS, None without one.
    ``player_categories`` are over boxes that did not fold, ``dealer_categories`` and the
    qualification rate over the rounds the dealer drew (JD-8, JD-10); ``outcomes`` and
    ``decisions`` are per round; ``average_stake`` is ante plus bet per round in antes."""

    rounds: int
    game_rtp: float
    game_ci99: tuple[float, float]
    bonus_rtp: float | None
    bonus_ci99: tuple[float, float] | None
    player_categories: dict[str, float]
    dealer_categories: dict[str, float]
    dealer_qualification_rate: float
    outcomes: dict[str, float]
    decisions: dict[str, dict[str, float]]
    average_stake: float

    def to_json(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "game_rtp": self.game_rtp,
            "game_ci99": list(self.game_ci99),
            "bonus_rtp": self.bonus_rtp,
            "bonus_ci99": None if self.bonus_ci99 is None else list(self.bonus_ci99),
            "player_categories": self.player_categories,
            "dealer_categories": self.dealer_categories,
            "dealer_qualification_rate": self.dealer_qualification_rate,
            "outcomes": self.outcomes,
            "decisions": self.decisions,
            "average_stake": self.average_stake,
        }


def _percent(value: Fraction | float) -> float:
    return round(float(value) * 100, 4)


def _frequencies(counts: Mapping[str, int], names: Sequence[str], total: int) -> dict[str, float]:
    return {name: counts.get(name, 0) / total if total else 0.0 for name in names}


def ratio_spread99(
    n: int,
    *,
    returned: Fraction,
    staked: Fraction,
    returned_sq: Fraction,
    staked_sq: Fraction,
    returned_staked: Fraction,
) -> float:
    """Half the width of the 99% interval of the RTP sum R / sum S over `n` rounds (or boxes)
    whose stakes differ, from the sums of R, S, R^2, S^2 and R*S: the delta method for a ratio
    of means, Var(R/S) ~ sum((r - ratio*s)^2) / ((n - 1) * n * mean(s)^2)."""
    ratio = returned / staked
    residual = returned_sq - 2 * ratio * returned_staked + ratio * ratio * staked_sq
    mean_s = staked / n
    return _Z99 * math.sqrt(max(0.0, float(residual / ((n - 1) * n * mean_s * mean_s))))


def summarize(tally: Tally) -> RtpSummary:
    """RTPs and frequencies of a tally of at least two rounds."""
    n = tally.rounds
    if n < 2:
        raise ValueError(f"rounds: an interval needs at least 2 rounds, the tally has {n}")
    scale = tally.scale
    mean_s = Fraction(tally.staked, n)
    ratio = Fraction(tally.returned, scale) / tally.staked
    spread = ratio_spread99(
        n,
        returned=Fraction(tally.returned, scale),
        staked=Fraction(tally.staked),
        returned_sq=Fraction(tally.returned_sq, scale * scale),
        staked_sq=Fraction(tally.staked_sq),
        returned_staked=Fraction(tally.returned_staked, scale),
    )
    bonus_rtp = bonus_ci99 = None
    if tally.bonus_rounds >= 2:
        m = tally.bonus_rounds
        mean_b = Fraction(tally.bonus_returned, m * scale)
        var_b = (Fraction(tally.bonus_returned_sq, scale * scale) - m * mean_b * mean_b) / (m - 1)
        bonus_spread = _Z99 * math.sqrt(float(var_b / m))
        bonus_rtp = _percent(mean_b)
        bonus_ci99 = (
            _percent(float(mean_b) - bonus_spread),
            _percent(float(mean_b) + bonus_spread),
        )
    played = n - tally.outcomes.get("folded", 0)
    return RtpSummary(
        rounds=n,
        game_rtp=_percent(ratio),
        game_ci99=(_percent(float(ratio) - spread), _percent(float(ratio) + spread)),
        bonus_rtp=bonus_rtp,
        bonus_ci99=bonus_ci99,
        player_categories=_frequencies(tally.player_categories, CATEGORIES, played),
        dealer_categories=_frequencies(tally.dealer_categories, CATEGORIES, played),
        dealer_qualification_rate=tally.dealer_qualified / played if played else 0.0,
        outcomes=_frequencies(tally.outcomes, OUTCOMES, n),
        decisions={
            stage: _frequencies(counts, ACTIONS, n) for stage, counts in tally.decisions.items()
        },
        average_stake=float(mean_s),
    )


# The exact BONUS price -----------------------------------------------------------------------


@cache
def _census() -> tuple[dict[str, int], int]:
    """Hands of the 53-card deck by category, and how many are royal flushes (JD-14a)."""
    strengths = evaluate_batch(all_hands(jokers=1))
    counts = np.bincount(category_of_strength(strengths), minlength=len(CATEGORIES))
    royals = int(((strengths >> _TOP_RANK_SHIFT) == _ROYAL).sum())
    return {name: int(n) for name, n in zip(CATEGORIES, counts, strict=True)}, royals


def exact_bonus_rtp(bonus_paytable: Paytable) -> Fraction:
    """The BONUS paytable's exact return per unit staked over every five-card hand of the
    53-card deck (JD-13, JD-14a): a listed line returns the stake and its odds."""
    check_bonus_paytable(bonus_paytable)
    _check_paytable(bonus_paytable)
    counts, royals = _census()
    returned = Fraction(0)
    for name, count in counts.items():
        if name == "straight_flush" and ROYAL_FLUSH in bonus_paytable:
            returned += royals * (1 + Fraction(bonus_paytable[ROYAL_FLUSH]))
            count -= royals
        if name in bonus_paytable:
            returned += count * (1 + Fraction(bonus_paytable[name]))
    return returned / sum(counts.values())
