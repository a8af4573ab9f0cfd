"""Joker draw poker, banked against the dealer (JD-1..JD-16), as a state machine.

``start_round(deck, stakes, paytables)`` deals (JD-3) and returns the first state and its events;
``apply(state, action)`` returns the next state and the events the action produced, or raises
``RuleViolation`` naming the field and the rule. States are immutable and serialise to JSON
(``to_json`` / ``from_json``), so a round survives a restart and replays exactly.

Money is ``Decimal``; odds are exact ``Fraction`` s given as data (JD-14). Nothing here knows of
Django, the ledger or time: the game service charges what ``extra_stake`` says and pays what
the results say.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from itertools import combinations
from typing import Any, cast

from games.engine.cards import ALL_CARDS, Card
from games.engine.common import (
    Event,
    RuleViolation,
    cards_from_json,
    cards_to_json,
    rule_text,
)
from games.engine.hands import HandValue, evaluate
from games.engine.rules import JokerDrawRule

HAND_SIZE = 5
MAX_BOXES = 3  # JD-16
MAX_FIRST_EXCHANGE = 5  # JD-5
MAX_EXCHANGES = 2  # JD-5, JD-6: none after the second (JD-7)
DEALER_QUALIFIES_FROM_RANK = 11  # JD-10: a pair of jacks
CENT = Decimal("0.01")
NO_GAME_ODDS = Fraction(2, 3)  # JD-11: the source's, and what a version without the line pays
NO_GAME_LINE = "no_game"  # JD-11a: the bet paytable's line that prices the no-game payment
ROYAL_FLUSH = "royal_flush"
Paytable = Mapping[str, Fraction]


class JokerDrawEvent(StrEnum):
    """What a joker draw round's history records, in the order a round plays."""

    DEALT = "dealt"  # JD-3: every box's cards and the dealer's
    FOLD = "fold"  # a box's decisions (JD-5, JD-6, JD-7)
    BET = "bet"
    EXCHANGE = "exchange"
    DEALER_REVEAL = "dealer_reveal"  # JD-8
    DEALER_DRAW = "dealer_draw"
    DEALER_HAND = "dealer_hand"  # JD-10: whether the dealer qualifies
    BOX_SETTLED = "box_settled"  # JD-11..JD-13


def no_game_odds(bet_paytable: Paytable) -> Fraction:
    """What the total ante is paid when the dealer has no game: the bet paytable's `no_game`
    line, or 2:3 when the version has none (JD-11, JD-11a)."""
    return Fraction(bet_paytable.get(NO_GAME_LINE, NO_GAME_ODDS))


def check_bonus_paytable(bonus_paytable: Paytable) -> None:
    """The no-game line prices the ante against the dealer, so only a bet paytable has it
    (JD-11a, JD-13)."""
    if NO_GAME_LINE in bonus_paytable:
        raise ValueError(
            f"bonus_paytable: the {NO_GAME_LINE} line belongs to a bet paytable only (JD-11a)"
        )


class BoxStatus(StrEnum):
    DECIDING = "deciding"
    BET = "bet"
    FOLDED = "folded"


class Phase(StrEnum):
    DECIDING = "deciding"
    SETTLED = "settled"


@dataclass(frozen=True)
class Stake:
    """What a box puts up before the deal: the ante (JD-2) and an optional BONUS (JD-13)."""

    box: int
    ante: Decimal
    bonus: Decimal | None = None


@dataclass(frozen=True)
class Box:
    number: int
    base_ante: Decimal
    bonus: Decimal | None
    initial_cards: tuple[Card, ...]
    cards: tuple[Card, ...]
    exchanges: int = 0
    status: BoxStatus = BoxStatus.DECIDING
    timed_out: bool = False  # folded by the decision timer, so the player is told why

    @property
    def ante(self) -> Decimal:
        """The total ante: every exchange adds one original ante (JD-5, JD-6)."""
        return self.base_ante * (1 + self.exchanges)

    @property
    def bet(self) -> Decimal | None:
        return 2 * self.ante if self.status == BoxStatus.BET else None

    def options(self) -> tuple[str, ...]:
        if self.status != BoxStatus.DECIDING:
            return ()
        if self.exchanges < MAX_EXCHANGES:  # JD-5 (1 to 5 cards), JD-6 (exactly one); JD-7
            return ("fold", "exchange", "bet")
        return ("fold", "bet")


@dataclass(frozen=True)
class BoxResult:
    """A box's settlement; amounts are the player's signed net results."""

    box: int
    category: str
    hand: str
    bet_line: str | None
    bonus_category: str | None
    bonus_line: str | None
    ante: Decimal
    bet: Decimal
    bonus: Decimal

    @property
    def total(self) -> Decimal:
        return self.ante + self.bet + self.bonus


@dataclass(frozen=True)
class Fold:
    box: int
    timed_out: bool = False


@dataclass(frozen=True)
class Exchange:
    box: int
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class Bet:
    box: int


Action = Fold | Exchange | Bet


@dataclass(frozen=True)
class RoundState:
    deck: tuple[Card, ...]
    dealt: int
    boxes: tuple[Box, ...]
    dealer_initial: tuple[Card, ...]
    bet_paytable: tuple[tuple[str, Fraction], ...]
    bonus_paytable: tuple[tuple[str, Fraction], ...]
    dealer_discarded: tuple[Card, ...] = ()
    dealer_final: tuple[Card, ...] = ()
    results: tuple[BoxResult, ...] = ()
    phase: Phase = Phase.DECIDING

    @property
    def to_act(self) -> Box | None:
        """The box whose turn it is: boxes act in order, each to the end (JD-4)."""
        return next((box for box in self.boxes if box.status == BoxStatus.DECIDING), None)

    def box(self, number: int) -> Box:
        for box in self.boxes:
            if box.number == number:
                return box
        raise RuleViolation(
            "there is no box %(box)s in this round",
            field="box",
            rule=JokerDrawRule.BOX_ORDER,
            box=number,
        )

    @property
    def dealer_value(self) -> HandValue | None:
        return evaluate(self.dealer_final) if self.dealer_final else None


# Dealing -------------------------------------------------------------------------------------


def start_round(
    deck: Sequence[Card],
    stakes: Sequence[Stake],
    *,
    bet_paytable: Paytable,
    bonus_paytable: Paytable,
) -> tuple[RoundState, list[Event]]:
    """Deal one card at a time, box by box then the dealer, five times round (JD-3)."""
    deck = tuple(deck)
    if len(deck) != len(ALL_CARDS) or set(deck) != set(ALL_CARDS):
        raise ValueError("joker draw poker is dealt from one 53-card deck with the joker (JD-1)")
    check_bonus_paytable(bonus_paytable)
    numbers = [stake.box for stake in stakes]
    if not 1 <= len(stakes) <= MAX_BOXES:
        raise RuleViolation(
            "a round has 1 to %(most)s boxes",
            field="boxes",
            rule=JokerDrawRule.BOXES_FIT_THE_DECK,
            most=MAX_BOXES,
        )
    if numbers != sorted(set(numbers)) or numbers[0] < 1 or numbers[-1] > MAX_BOXES:
        raise RuleViolation(
            "boxes are numbered 1 to %(most)s, each once, in order",
            field="boxes",
            rule=JokerDrawRule.DEAL,
            most=MAX_BOXES,
        )
    seats = len(stakes) + 1
    hands = [
        tuple(deck[round_ * seats + seat] for round_ in range(HAND_SIZE)) for seat in range(seats)
    ]
    boxes = tuple(
        Box(
            number=stake.box,
            base_ante=stake.ante,
            bonus=stake.bonus,
            initial_cards=hand,
            cards=hand,
        )
        for stake, hand in zip(stakes, hands, strict=False)
    )
    state = RoundState(
        deck=deck,
        dealt=seats * HAND_SIZE,
        boxes=boxes,
        dealer_initial=hands[-1],
        bet_paytable=tuple(bet_paytable.items()),
        bonus_paytable=tuple(bonus_paytable.items()),
    )
    events = [
        Event(
            JokerDrawEvent.DEALT,
            {
                "boxes": {str(box.number): cards_to_json(box.cards) for box in boxes},
                "dealer": cards_to_json(state.dealer_initial),
                # Deck positions of every card, seat by seat, for auditors (JD-3).
                "positions": {
                    **{
                        str(box.number): [round_ * seats + seat for round_ in range(HAND_SIZE)]
                        for seat, box in enumerate(boxes)
                    },
                    "dealer": [round_ * seats + seats - 1 for round_ in range(HAND_SIZE)],
                },
            },
        )
    ]
    return state, events


# Decisions -----------------------------------------------------------------------------------


def extra_stake(state: RoundState, action: Action) -> Decimal:
    """What the action costs the player beyond what is already staked (for the ledger)."""
    box = state.box(action.box)
    if isinstance(action, Exchange):
        return box.base_ante
    if isinstance(action, Bet):
        return 2 * box.ante
    return Decimal(0)


def apply(state: RoundState, action: Action) -> tuple[RoundState, list[Event]]:
    """The state after a box's decision, with its events; settles when the last box closes."""
    if state.phase != Phase.DECIDING:
        raise RuleViolation("the round is over", field="action", rule=JokerDrawRule.DEALER_TURN)
    box = state.box(action.box)
    turn = state.to_act
    if box.status != BoxStatus.DECIDING:
        raise RuleViolation(
            rule_text("box %(box)s has already folded")
            if box.status == BoxStatus.FOLDED
            else rule_text("box %(box)s has already bet"),
            field="box",
            rule=JokerDrawRule.THIRD_DECISION,
            box=box.number,
        )
    if turn is None or turn.number != box.number:
        raise RuleViolation(
            "box %(box)s acts first: boxes act in order",
            field="box",
            rule=JokerDrawRule.BOX_ORDER,
            box=turn.number if turn else "-",
        )
    events: list[Event]
    if isinstance(action, Fold):
        box = replace(box, status=BoxStatus.FOLDED, timed_out=action.timed_out)
        events = [
            Event(
                JokerDrawEvent.FOLD,
                {"box": box.number, "ante": _money(box.ante), "timed_out": action.timed_out},
            )
        ]
    elif isinstance(action, Bet):
        box = replace(box, status=BoxStatus.BET)
        events = [
            Event(
                JokerDrawEvent.BET,
                {"box": box.number, "bet": _money(2 * box.ante), "ante": _money(box.ante)},
            )
        ]
    else:
        state, box, events = _exchange(state, box, action.cards)
    state = replace(state, boxes=tuple(box if b.number == box.number else b for b in state.boxes))
    if state.to_act is None:
        state, closing = _finish(state)
        events += closing
    return state, events


def _exchange(
    state: RoundState, box: Box, cards: Sequence[Card]
) -> tuple[RoundState, Box, list[Event]]:
    if box.exchanges >= 2:
        raise RuleViolation(
            "after two exchanges the box may only fold or bet",
            field="action",
            rule=JokerDrawRule.THIRD_DECISION,
        )
    discards = tuple(cards)
    if len(set(discards)) != len(discards):
        raise RuleViolation(
            "a card is named twice", field="cards", rule=JokerDrawRule.FIRST_DECISION
        )
    strangers = [str(card) for card in discards if card not in box.cards]
    if strangers:
        raise RuleViolation(
            "%(cards)s not in box %(box)s's hand",
            field="cards",
            rule=JokerDrawRule.FIRST_DECISION,
            cards=", ".join(strangers),
            box=box.number,
        )
    if box.exchanges == 0 and not 1 <= len(discards) <= MAX_FIRST_EXCHANGE:
        raise RuleViolation(
            "the first exchange is of 1 to 5 cards",
            field="cards",
            rule=JokerDrawRule.FIRST_DECISION,
        )
    if box.exchanges == 1 and len(discards) != 1:
        raise RuleViolation(
            "the second exchange is of exactly one card",
            field="cards",
            rule=JokerDrawRule.SECOND_DECISION,
        )
    start = state.dealt
    drawn = state.deck[start : start + len(discards)]
    # Replacements take the discarded cards' places, so the hand keeps its order on screen.
    replacements = iter(drawn)
    new_cards = tuple(next(replacements) if card in discards else card for card in box.cards)
    box = replace(box, cards=new_cards, exchanges=box.exchanges + 1)
    event = Event(
        JokerDrawEvent.EXCHANGE,
        {
            "box": box.number,
            "number": box.exchanges,
            "discarded": cards_to_json(discards),
            "drawn": cards_to_json(drawn),
            "positions": list(range(start, start + len(drawn))),
            "extra_ante": _money(box.base_ante),
            "ante": _money(box.ante),
        },
    )
    return replace(state, dealt=start + len(drawn)), box, [event]


# Dealer and settlement -----------------------------------------------------------------------


def _finish(state: RoundState) -> tuple[RoundState, list[Event]]:
    """Every box is closed: the dealer reveals and draws once unless all folded (JD-8)."""
    events: list[Event] = [
        Event(JokerDrawEvent.DEALER_REVEAL, {"cards": cards_to_json(state.dealer_initial)})
    ]
    dealer_final = state.dealer_initial
    if any(box.status == BoxStatus.BET for box in state.boxes):
        discards = tuple(dealer_discards(list(state.dealer_initial)))
        start = state.dealt
        drawn = iter(state.deck[start : start + len(discards)])
        dealer_final = tuple(
            next(drawn) if card in discards else card for card in state.dealer_initial
        )
        events.append(
            Event(
                JokerDrawEvent.DEALER_DRAW,
                {
                    "discarded": cards_to_json(discards),
                    "drawn": cards_to_json(state.deck[start : start + len(discards)]),
                    "positions": list(range(start, start + len(discards))),
                    "final": cards_to_json(dealer_final),
                },
            )
        )
        state = replace(state, dealt=start + len(discards), dealer_discarded=discards)
    state = replace(state, dealer_final=dealer_final)
    dealer = evaluate(dealer_final)
    qualifies = dealer_qualifies(dealer)
    events.append(
        Event(
            JokerDrawEvent.DEALER_HAND,
            {"category": dealer.category, "hand": dealer.name, "qualifies": qualifies},
        )
    )
    results = tuple(
        settle_box(box, dealer, dict(state.bet_paytable), dict(state.bonus_paytable))
        for box in state.boxes
    )
    events += [Event(JokerDrawEvent.BOX_SETTLED, result_json(result)) for result in results]
    return replace(state, results=results, phase=Phase.SETTLED), events


def dealer_qualifies(dealer: HandValue) -> bool:
    """JD-10: a game is a pair of jacks or better after the exchange."""
    if dealer.category == "high_card":
        return False
    return dealer.category != "pair" or dealer.ranks[0] >= DEALER_QUALIFIES_FROM_RANK


def paytable_line(value: HandValue, paytable: Paytable) -> str | None:
    """The line that pays a hand: `royal_flush` when listed for an ace-high straight flush
    (HR-10), else its category's line, else None."""
    if value.is_royal and ROYAL_FLUSH in paytable:
        return ROYAL_FLUSH
    return value.category if value.category in paytable else None


def settle_box(
    box: Box, dealer: HandValue, bet_paytable: Paytable, bonus_paytable: Paytable
) -> BoxResult:
    """JD-11 (a box that bet), JD-12 (a folded box) and JD-13 (BONUS)."""
    value = evaluate(box.cards)
    bet_line: str | None = None
    if box.status == BoxStatus.FOLDED:
        ante, bet = -box.ante, Decimal(0)
    else:
        staked_bet = 2 * box.ante
        if not dealer_qualifies(dealer):
            ante, bet = _pay(box.ante, no_game_odds(bet_paytable)), Decimal(0)
        elif dealer > value:
            ante, bet = -box.ante, -staked_bet
        elif value > dealer:
            bet_line = paytable_line(value, bet_paytable)
            odds = bet_paytable[bet_line] if bet_line else Fraction(1)  # unlisted hands pay 1:1
            ante, bet = box.ante, _pay(staked_bet, odds)
        else:
            ante, bet = Decimal(0), Decimal(0)  # equal hands push (JD-11 Decision)
    bonus_category = bonus_line = None
    bonus = Decimal(0)
    if box.bonus:
        first_five = evaluate(box.initial_cards)
        bonus_category = first_five.category
        bonus_line = paytable_line(first_five, bonus_paytable)
        bonus = _pay(box.bonus, bonus_paytable[bonus_line]) if bonus_line else -box.bonus
    return BoxResult(
        box=box.number,
        category=value.category,
        hand=value.name,
        bet_line=bet_line,
        bonus_category=bonus_category,
        bonus_line=bonus_line,
        ante=ante,
        bet=bet,
        bonus=bonus,
    )


def _pay(stake: Decimal, odds: Fraction) -> Decimal:
    exact = Fraction(stake) * odds
    won = Decimal(exact.numerator) / Decimal(exact.denominator)
    if won != won.quantize(CENT):
        # Table and paytable validation (JD-2) make this unreachable; never round money silently.
        raise ValueError(f"{stake} at {odds} pays {won}, a fraction of a cent (JD-2)")
    return won.quantize(CENT)


def top_payout(
    stakes: Iterable[Stake], *, bet_paytable: Paytable, bonus_paytable: Paytable
) -> Decimal:
    """The most the house can pay on these stakes beyond returning them: per box, the total
    ante after two exchanges (3A, JD-5..7) paid at the larger of 1:1 and the no-game line
    (JD-11, JD-11a), the bet on it (6A) at the bet paytable's top hand line (1:1 at least:
    unlisted hands pay 1:1), and the BONUS at its top line (JD-13). Rounded up to the cent:
    what it covers is never short."""
    top_ante = max(Fraction(1), no_game_odds(bet_paytable))
    top_bet = max(
        [Fraction(1), *(odds for line, odds in bet_paytable.items() if line != NO_GAME_LINE)]
    )
    top_bonus = max(bonus_paytable.values(), default=Fraction(0))
    exact = Fraction(0)
    for stake in stakes:
        ante = Fraction(stake.ante) * (1 + MAX_EXCHANGES)
        exact += ante * top_ante + 2 * ante * top_bet + Fraction(stake.bonus or 0) * top_bonus
    cents = -(-exact // Fraction(CENT))
    return Decimal(cents) * CENT


# The dealer's draw (JD-9) --------------------------------------------------------------------

_STANDING_CATEGORIES = frozenset(
    {"straight", "flush", "full_house", "four_of_a_kind", "straight_flush", "five_of_a_kind"}
)


def dealer_discards(cards: list[Card]) -> list[Card]:
    """The cards the dealer exchanges, in hand order; empty when the dealer stands (JD-9).

    The first rule that matches decides; the joker is wild throughout (HR-6).
    """
    hand = list(cards)
    value = evaluate(hand)
    if value.category in _STANDING_CATEGORIES:  # JD-9.0
        return []
    if value.category == "two_pair":  # JD-9.0: keep both pairs
        return _all_but(hand, _keep_paired(hand, 2))
    if value.category == "three_of_a_kind":  # JD-9.1
        return _all_but(hand, _keep_paired(hand, 3))
    for kind in ("four_flush", "open_straight"):  # JD-9.2, JD-9.3
        keep = _best_four(hand, kind)
        if keep is not None:
            return _all_but(hand, keep)
    if value.category == "pair":  # JD-9.4, the joker with the highest other card included
        return _all_but(hand, _keep_paired(hand, 2))
    keep = _best_four(hand, "inside_straight")  # JD-9.5
    if keep is not None:
        return _all_but(hand, keep)
    return hand  # JD-9.6


def _all_but(hand: list[Card], keep: Iterable[Card]) -> list[Card]:
    kept = set(keep)
    return [card for card in hand if card not in kept]


def _keep_paired(hand: list[Card], size: int) -> list[Card]:
    """The cards of the hand's sets of `size` (a pair, two pairs, trips); the joker joins the
    highest rank that makes the set (HR-6)."""
    naturals = [card for card in hand if not card.is_joker]
    counts: dict[int, int] = {}
    for card in naturals:
        rank = cast(int, card.rank)  # naturals have ranks
        counts[rank] = counts.get(rank, 0) + 1
    has_joker = len(naturals) < len(hand)
    wanted = {rank for rank, n in counts.items() if n >= size}
    keep = [card for card in naturals if card.rank in wanted]
    if has_joker:
        # The joker raises the highest rank that is one short of the set to a set.
        short = [rank for rank, n in counts.items() if n == size - 1]
        if short:
            top = max(short)
            keep += [card for card in naturals if card.rank == top]
        keep += [card for card in hand if card.is_joker]
    return keep


def _best_four(hand: list[Card], kind: str) -> tuple[Card, ...] | None:
    """Of the hand's four-card sets that are of `kind`, the one that can make the highest hand
    of that kind with one more card (JD-9: "keep the set that makes the highest possible hand")."""
    best: tuple[HandValue, tuple[Card, ...]] | None = None
    for four in combinations(hand, 4):
        made = _completions(four, hand, kind)
        if made is None:
            continue
        if best is None or made > best[0]:
            best = (made, four)
    return best[1] if best else None


def _completions(four: tuple[Card, ...], hand: list[Card], kind: str) -> HandValue | None:
    """The highest hand of `kind` that one more card makes of `four`, if `four` is of `kind`.

    four_flush: four cards of one suit (the joker counts as any suit);
    open_straight / inside_straight: completed to a straight by cards of two or more ranks,
    or of exactly one rank (A-2-3-4 and J-Q-K-A are inside).
    """
    if kind == "four_flush":
        suits = {card.suit for card in four if not card.is_joker}
        if len(suits) != 1:
            return None
        made = [
            evaluate([*four, card])
            for card in ALL_CARDS
            if card not in hand and not card.is_joker and card.suit in suits
        ]
        return max(made)
    if not _may_make_straight(four):
        return None
    completing_ranks: set[int] = set()
    best: HandValue | None = None
    for card in ALL_CARDS:
        if card in hand or card.is_joker or card.rank is None:
            continue
        value = evaluate([*four, card])
        if value.category in ("straight", "straight_flush"):
            completing_ranks.add(card.rank)
            best = value if best is None else max(best, value)
    if best is None:
        return None
    is_open = len(completing_ranks) >= 2
    return best if is_open == (kind == "open_straight") else None


def _may_make_straight(four: tuple[Card, ...]) -> bool:
    """Whether one more card can make a straight of `four`: its naturals are of distinct ranks
    within five consecutive ranks, the ace also low (HR-1). Most sets fail this, which spares
    evaluating them with every card of the deck."""
    ranks = [card.rank for card in four if card.rank is not None]
    if len(set(ranks)) != len(ranks):
        return False
    return max(ranks) - min(ranks) <= 4 or set(ranks) <= {14, 2, 3, 4, 5}


# JSON ----------------------------------------------------------------------------------------


def _money(amount: Decimal | None) -> str | None:
    return None if amount is None else f"{amount:.2f}"


def _odds(paytable: Iterable[tuple[str, Fraction]]) -> list[list[Any]]:
    return [[line, odds.numerator, odds.denominator] for line, odds in paytable]


def result_json(result: BoxResult) -> dict[str, Any]:
    return {
        "box": result.box,
        "category": result.category,
        "hand": result.hand,
        "bet_line": result.bet_line,
        "bonus_category": result.bonus_category,
        "bonus_line": result.bonus_line,
        "ante": _money(result.ante),
        "bet": _money(result.bet),
        "bonus": _money(result.bonus),
        "total": _money(result.total),
    }


def to_json(state: RoundState) -> dict[str, Any]:
    return {
        "deck": cards_to_json(state.deck),
        "dealt": state.dealt,
        "boxes": [
            {
                "number": box.number,
                "base_ante": _money(box.base_ante),
                "bonus": _money(box.bonus),
                "initial_cards": cards_to_json(box.initial_cards),
                "cards": cards_to_json(box.cards),
                "exchanges": box.exchanges,
                "status": box.status.value,
                # Only when set: states stored before the flag read the same.
                **({"timed_out": True} if box.timed_out else {}),
            }
            for box in state.boxes
        ],
        "dealer_initial": cards_to_json(state.dealer_initial),
        "dealer_discarded": cards_to_json(state.dealer_discarded),
        "dealer_final": cards_to_json(state.dealer_final),
        "bet_paytable": _odds(state.bet_paytable),
        "bonus_paytable": _odds(state.bonus_paytable),
        "results": [result_json(result) for result in state.results],
        "phase": state.phase.value,
    }


def from_json(data: Mapping[str, Any]) -> RoundState:
    def money(text: str | None) -> Decimal | None:
        return None if text is None else Decimal(text)

    return RoundState(
        deck=cards_from_json(data["deck"]),
        dealt=data["dealt"],
        boxes=tuple(
            Box(
                number=box["number"],
                base_ante=Decimal(box["base_ante"]),
                bonus=money(box["bonus"]),
                initial_cards=cards_from_json(box["initial_cards"]),
                cards=cards_from_json(box["cards"]),
                exchanges=box["exchanges"],
                status=BoxStatus(box["status"]),
                timed_out=box.get("timed_out", False),
            )
            for box in data["boxes"]
        ),
        dealer_initial=cards_from_json(data["dealer_initial"]),
        dealer_discarded=cards_from_json(data["dealer_discarded"]),
        dealer_final=cards_from_json(data["dealer_final"]),
        bet_paytable=tuple((line, Fraction(n, d)) for line, n, d in data["bet_paytable"]),
        bonus_paytable=tuple((line, Fraction(n, d)) for line, n, d in data["bonus_paytable"]),
        results=tuple(
            BoxResult(
                box=r["box"],
                category=r["category"],
                hand=r["hand"],
                bet_line=r["bet_line"],
                bonus_category=r["bonus_category"],
                bonus_line=r["bonus_line"],
                ante=Decimal(r["ante"]),
                bet=Decimal(r["bet"]),
                bonus=Decimal(r["bonus"]),
            )
            for r in data["results"]
        ),
        phase=Phase(data["phase"]),
    )
