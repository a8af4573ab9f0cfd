"""Drawmaha (Sviten Special), pot limit (DM-1..DM-12), as a state machine.

``start_hand(table, stacks, button, deck)`` posts the blinds, deals the hands (DM-2) and returns
the first state, with the first player to act (DM-3), and its events; ``apply(state, action)``
returns the next state and the events the action produced, dealing the board and the draw's
replacements itself, or raises ``RuleViolation`` naming the field and the rule.
``legal_actions(state)`` lists what the player to act may do: betting options, or in the draw
an exchange of up to so many cards, then the twist's take or reject. States are immutable and
serialise to JSON (``to_json`` / ``from_json``).

Seats are numbered clockwise; ``button`` is the dealer's seat. Cards speak: at the showdown
every hand still in is shown and judged twice (DM-11), so no player chooses anything there.

Readings of the rules where they leave a choice (RULES.md has no Decision on them):
- DM-7 "runs out": the deck is dealt to its last card, then the muck is reshuffled for the
  cards still owed.
- DM-7: a twist card the current player rejects stays out of a reshuffle until the player has
  the replacement, like the player's own discards: nobody gets back a card they refused.
- DM-8: should the deck be empty for the turn or the river, the muck (every discard, the draw
  being over) is reshuffled as in DM-7.
- A player who may check is not offered to fold (checking costs nothing).

How often DM-7 reshuffles (deck arithmetic, which the tests check on the engine): after the
hands and the flop ``R = 49 - 5n`` cards are left for ``n`` players, at least 14. A player's
draw takes as many cards as it puts in the muck (a rejected twist card is one of each), so each
reshuffled deck holds ``R`` plus the folded hands less the ``p < 5`` cards the player being
served already got from the old deck: at least ten, never empty. With the draw limit on, seven
players want at most 21 cards of 14 + 12 and six at most 18 of 19: one reshuffle at most in a
hand, in the draw (the turn and the river then come from that deck) or for the turn if the draw
took the last card. Without it seven players may want 35 cards, so the deck can run out up to
three times in the draw; every reshuffle takes the muck gathered since the last.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from games.engine import betting
from games.engine.betting import (
    Action,
    BettingRound,
    Chips,
    HandChips,
    LegalAction,
    PeerEvent,
    PotLimit,
    Rake,
)
from games.engine.cards import Card, parse_card
from games.engine.common import (
    Event,
    OutOfTurn,
    RuleViolation,
    cards_from_json,
    cards_to_json,
    clockwise,
    dealt_card_json,
    rule_text,
)
from games.engine.dealer import STANDARD_DECK, Deck, deck_from_json, deck_to_json, positions
from games.engine.hands import HandValue, best_omaha, evaluate
from games.engine.rules import DrawmahaRule

NO_RAKE = Rake()  # DM-12 as ST-13: a table has no rake unless set
MIN_PLAYERS = 2
MAX_PLAYERS = 7  # DM-1
HEADS_UP = 2
HAND_SIZE = 5  # DM-2
FLOP_SIZE = 3  # DM-4
MAX_EXCHANGE = 5  # DM-5
LIMITED_EXCHANGE = 3  # DM-5: with the draw limit on, for a hand dealt to six or seven
LIMITED_FROM_PLAYERS = 6


class Street(StrEnum):
    PREFLOP = "preflop"
    FLOP = "flop"
    DRAW = "draw"
    TURN = "turn"
    RIVER = "river"
    OVER = "over"


class DrawmahaEvent(StrEnum):
    """What a Drawmaha hand's history records beside the peer tables' events (``PeerEvent``)."""

    SMALL_BLIND = "small_blind"  # DM-1
    BIG_BLIND = "big_blind"
    BOARD = "board"  # DM-4, DM-8: the flop, the turn and the river
    DRAW = "draw"  # DM-5: the draw opens, its order and how many cards each may exchange
    EXCHANGE = "exchange"
    TWIST_SHOWN = "twist_shown"  # DM-6
    TWIST_TAKEN = "twist_taken"
    TWIST_REJECTED = "twist_rejected"
    REPLACEMENTS = "replacements"  # DM-5: the cards an exchange gets, face down


class DrawChoice(StrEnum):
    EXCHANGE = "exchange"  # DM-5: set aside 0 (stand pat) to the limit
    TAKE = "take"  # DM-6: keep the twist card shown face up
    REJECT = "reject"  # DM-6: muck it for the next card face down


class PotPart(StrEnum):
    DRAW = "draw"  # DM-11: the best five cards alone (HR-5)
    OMAHA = "omaha"  # DM-11: the best two of five with three of the board (HR-4)
    WHOLE = "whole"  # DM-10: everyone else folded, nobody shows


@dataclass(frozen=True)
class DrawAction:
    """A player's choice in the draw: ``discards`` (exchange only) are the cards set aside."""

    seat: int
    kind: DrawChoice
    discards: tuple[Card, ...] = ()


@dataclass(frozen=True)
class DrawOption:
    """A draw choice open to the player: an exchange of up to ``max_cards``, or the twist's
    take or reject of ``card``."""

    kind: DrawChoice
    max_cards: int = 0
    card: Card | None = None


@dataclass(frozen=True)
class DrawmahaTable:
    """A table's blinds in minor units (DM-1), its rake (DM-12) and whether the draw limit of
    three cards applies to a hand dealt to six or seven players (DM-5, on by default)."""

    small_blind: int
    big_blind: int
    rake: Rake = NO_RAKE
    draw_limit: bool = True

    def __post_init__(self) -> None:
        blinds = (self.small_blind, self.big_blind)
        if any(isinstance(b, bool) or not isinstance(b, int) for b in blinds) or not (
            0 < self.small_blind <= self.big_blind
        ):
            raise RuleViolation(
                "the blinds are whole minor units, the small blind above 0 and at most the big",
                field="table",
                rule=DrawmahaRule.TABLE,
            )


@dataclass(frozen=True)
class Exchange:
    """A seat's draw (DM-5): the cards set aside, the replacements received so far and, for a
    one-card exchange, the twist card shown face up and whether it was taken (DM-6)."""

    seat: int
    discards: tuple[Card, ...]
    received: tuple[Card, ...] = ()
    twist: Card | None = None
    twist_taken: bool | None = None

    @property
    def complete(self) -> bool:
        return len(self.received) == len(self.discards)

    @property
    def mucked(self) -> tuple[Card, ...]:
        """What the exchange leaves in the muck: the discards and a rejected twist card."""
        rejected = (self.twist,) if self.twist is not None and not self.twist_taken else ()
        return self.discards + rejected


@dataclass(frozen=True)
class Award:
    """A pot part as awarded (DM-11, DM-10): its amount, the shares and the winning hand."""

    part: PotPart
    amount: int
    shares: tuple[tuple[int, int], ...]
    hand: str | None = None


@dataclass(frozen=True)
class PotResult:
    """A pot as awarded: its amount before the rake, the rake, who could win it and its parts."""

    amount: int
    rake: int
    eligible: tuple[int, ...]
    awards: tuple[Award, ...]


@dataclass(frozen=True)
class DrawmahaState(HandChips):
    table: DrawmahaTable
    button: int
    starting_stacks: tuple[int, ...]
    hands: tuple[tuple[Card, ...], ...]
    """By seat: the cards the player holds (without any set aside for the draw)."""
    board: tuple[Card, ...]
    deck: Deck
    street: Street
    betting: BettingRound
    """The current round (the last one once betting is over); it holds everyone's chips."""
    exchanges: tuple[Exchange, ...] = ()
    """The draw's declarations so far, in draw order (DM-5)."""
    muck: tuple[Card, ...] = ()
    """The cards a reshuffle would take now (DM-7): folded hands and the discards and rejected
    twist cards of players who have their replacements, less those already reshuffled."""
    results: tuple[PotResult, ...] = ()

    @property
    def draw_order(self) -> tuple[int, ...]:
        """DM-5: the players in the hand in betting order from the button's left, the button
        last; the betting after the flop goes in this order too (DM-4, DM-8)."""
        return clockwise(self.in_hand, self.button + 1, len(self.hands))

    @property
    def to_act(self) -> int | None:
        """The seat whose decision the hand waits for: a bet, an exchange (DM-5) or a twist
        (DM-6); None when the hand is over."""
        if self.street == Street.DRAW:
            order = self.draw_order
            if len(self.exchanges) < len(order):
                return order[len(self.exchanges)]
            pending = _pending_twist(self)
            return None if pending is None else pending[0].seat
        if self.street == Street.OVER:
            return None
        return self.betting.to_act

    @property
    def max_exchange(self) -> int:
        """DM-5: five cards, or three when the hand was dealt to six or seven and the table's
        draw limit is on."""
        limited = self.table.draw_limit and len(self.hands) >= LIMITED_FROM_PLAYERS
        return LIMITED_EXCHANGE if limited else MAX_EXCHANGE

    @property
    def finishing_stacks(self) -> tuple[int, ...] | None:
        """Everyone's chips after the hand; None until it is over."""
        return tuple(c.stack for c in self.chips) if self.street == Street.OVER else None

    def draw_value(self, seat: int) -> HandValue:
        """HR-5: the player's five cards alone."""
        return evaluate(self.hands[seat])

    def omaha_value(self, seat: int) -> HandValue:
        """HR-4: exactly two of the player's five cards with exactly three of the board."""
        return best_omaha(self.hands[seat], self.board)


# Dealing -------------------------------------------------------------------------------------


def start_hand(
    table: DrawmahaTable, stacks: Sequence[int], button: int, deck: Deck
) -> tuple[DrawmahaState, list[Event]]:
    """The blinds (DM-1), five cards to each player (DM-2) and the first betting round (DM-3)."""
    players = len(stacks)
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise RuleViolation(
            "Drawmaha seats %(fewest)s to %(most)s players",
            field="stacks",
            rule=DrawmahaRule.TABLE,
            fewest=MIN_PLAYERS,
            most=MAX_PLAYERS,
        )
    if any(isinstance(s, bool) or not isinstance(s, int) or s <= 0 for s in stacks):
        raise RuleViolation(
            "every starting stack is a whole number of minor units above 0",
            field="stacks",
            rule=DrawmahaRule.TABLE,
        )
    if isinstance(button, bool) or not isinstance(button, int) or not 0 <= button < players:
        raise RuleViolation(
            "the button is one of seats 0 to %(last)s",
            field="button",
            rule=DrawmahaRule.TABLE,
            last=players - 1,
        )
    if set(deck.order) != set(STANDARD_DECK) or deck.dealt or deck.reshuffles:
        raise RuleViolation(
            "Drawmaha is dealt from one fresh 52-card deck", field="deck", rule=DrawmahaRule.TABLE
        )
    # DM-1: heads-up the button posts the small blind.
    small = button if players == HEADS_UP else (button + 1) % players
    big = (small + 1) % players
    chips = tuple(Chips(stack) for stack in stacks)
    round_ = betting.open_round(
        PotLimit(table.big_blind),
        chips,
        clockwise(range(players), big + 1, players),
        turn_rule=DrawmahaRule.FIRST_ROUND,
        blinds={small: table.small_blind, big: table.big_blind},
    )
    events = [
        Event(
            kind, {"seat": seat, "amount": round_.bets[seat], "all_in": round_.chips[seat].all_in}
        )
        for kind, seat in ((DrawmahaEvent.SMALL_BLIND, small), (DrawmahaEvent.BIG_BLIND, big))
    ]
    hands: list[tuple[Card, ...]] = [()] * players
    dealt = []
    # DM-2: one card at a time clockwise from the small blind, hands before the flop.
    for _ in range(HAND_SIZE):
        for seat in clockwise(range(players), small, players):
            audit = positions(deck, 1)
            deck, (card,) = deck.deal(1)
            hands[seat] = (*hands[seat], card)
            dealt.append(dealt_card_json(card, audit, seat=seat))
    events.append(Event(PeerEvent.DEAL, {"street": Street.PREFLOP.value, "cards": dealt}))
    state = DrawmahaState(
        table=table,
        button=button,
        starting_stacks=tuple(stacks),
        hands=tuple(hands),
        board=(),
        deck=deck,
        street=Street.PREFLOP,
        betting=round_,
    )
    return _advance(state, events)


def _deal(
    state: DrawmahaState, count: int, events: list[Event], **facts: Any
) -> tuple[DrawmahaState, tuple[Card, ...], list[dict[str, Any]]]:
    """``count`` cards off the top; when the deck runs out, the muck becomes the new deck
    (DM-7, FS-6) and the dealing goes on from it. Returns the cards and their audit entries."""
    deck, muck = state.deck, state.muck
    cards: list[Card] = []
    dealt = []
    for _ in range(count):
        if deck.remaining == 0:
            deck = deck.reshuffle(muck)
            events.append(
                Event(
                    PeerEvent.RESHUFFLE,
                    {
                        "rule": DrawmahaRule.RESHUFFLE,
                        "returned": cards_to_json(muck),
                        "shuffle": deck.shuffle_number,
                    },
                )
            )
            muck = ()
        audit = positions(deck, 1)
        deck, (card,) = deck.deal(1)
        cards.append(card)
        dealt.append(dealt_card_json(card, audit, **facts))
    return replace(state, deck=deck, muck=muck), tuple(cards), dealt


def _advance(state: DrawmahaState, events: list[Event]) -> tuple[DrawmahaState, list[Event]]:
    """Go on until someone has to decide: deal the board, run the draw's dealing, then the
    award to the last player in the hand (DM-10) or the showdown (DM-11)."""
    while True:
        if len(state.in_hand) == 1:
            return _award(state, events)
        if state.street == Street.DRAW:
            if state.to_act is not None:
                return state, events
            state = _deal_board(state, Street.TURN, 1, events)
        elif not state.betting.is_over:
            return state, events
        elif state.street == Street.PREFLOP:
            state = _deal_board(state, Street.FLOP, FLOP_SIZE, events)
        elif state.street == Street.FLOP:
            state = replace(state, street=Street.DRAW)
            events.append(
                Event(
                    DrawmahaEvent.DRAW,
                    {"order": list(state.draw_order), "max_cards": state.max_exchange},
                )
            )
        elif state.street == Street.TURN:
            state = _deal_board(state, Street.RIVER, 1, events)
        else:
            return _award(state, events)


def _deal_board(
    state: DrawmahaState, street: Street, count: int, events: list[Event]
) -> DrawmahaState:
    """DM-4, DM-8: cards face up on the board, no burn card; then the betting round from the
    first active player left of the button."""
    state, cards, dealt = _deal(state, count, events)
    events.append(Event(DrawmahaEvent.BOARD, {"street": street.value, "cards": dealt}))
    round_ = betting.next_round(
        state.betting,
        PotLimit(state.table.big_blind),
        state.draw_order,
        turn_rule=DrawmahaRule.FLOP if street == Street.FLOP else DrawmahaRule.TURN,
    )
    return replace(state, board=state.board + cards, street=street, betting=round_)


# Actions -------------------------------------------------------------------------------------


def legal_actions(state: DrawmahaState) -> tuple[LegalAction | DrawOption, ...]:
    """What the seat to act may do: betting options with their amounts (DM-9), or in the draw
    an exchange (DM-5) or the twist's take or reject (DM-6)."""
    if state.street == Street.OVER:
        return ()
    if state.street != Street.DRAW:
        return betting.legal_actions(state.betting)
    pending = _pending_twist(state)
    if pending is None:
        return (DrawOption(DrawChoice.EXCHANGE, max_cards=state.max_exchange),)
    card = pending[1]
    return (DrawOption(DrawChoice.TAKE, card=card), DrawOption(DrawChoice.REJECT, card=card))


def apply(state: DrawmahaState, action: Action | DrawAction) -> tuple[DrawmahaState, list[Event]]:
    """The state after the action, with its events; RuleViolation if the rules do not allow it."""
    if state.street == Street.OVER:
        raise RuleViolation("the hand is over", field="action", rule=DrawmahaRule.SHOWDOWN)
    if state.street == Street.DRAW:
        if not isinstance(action, DrawAction):
            raise RuleViolation("no betting during the draw", field="kind", rule=DrawmahaRule.DRAW)
        return _draw_choice(state, action)
    if not isinstance(action, Action):
        raise RuleViolation(
            "the draw comes after the betting on the flop", field="kind", rule=DrawmahaRule.DRAW
        )
    round_, event = betting.act(state.betting, action)
    events = [Event(event.kind, {"street": state.street.value, **event.data})]
    if event.kind == PeerEvent.FOLD:
        # DM-7: a folded hand goes to the muck, from which the draw may be reshuffled.
        state = replace(state, muck=state.muck + state.hands[action.seat])
    return _advance(replace(state, betting=round_), events)


def _draw_choice(state: DrawmahaState, action: DrawAction) -> tuple[DrawmahaState, list[Event]]:
    # In the draw the hand waits either for a declaration or for a twist decision.
    pending = _pending_twist(state)
    rule = DrawmahaRule.DRAW if pending is None else DrawmahaRule.ONE_CARD_TWIST
    if state.to_act is None:
        raise RuleViolation("nobody decides in the draw now", field="action", rule=rule)
    if action.seat != state.to_act:
        raise OutOfTurn(
            to_act=state.to_act,
            acting=action.seat,
            rule=rule,
            message=rule_text("seat %(to_act)s decides now, not seat %(acting)s"),
        )
    if (pending is None) != (action.kind == DrawChoice.EXCHANGE):
        raise RuleViolation(
            rule_text("declare an exchange now, not %(action)s")
            if pending is None
            else rule_text("take or reject the twist card now, not %(action)s"),
            field="kind",
            rule=rule,
            action=action.kind,
        )
    if pending is None:
        return _declare(state, action.seat, action.discards)
    return _twist(state, *pending, take=action.kind == DrawChoice.TAKE)


def _pending_twist(state: DrawmahaState) -> tuple[Exchange, Card] | None:
    """The exchange waiting for its player to take or reject the card shown (DM-6), if any."""
    for exchange in state.exchanges:
        if exchange.twist is not None and exchange.twist_taken is None:
            return exchange, exchange.twist
    return None


def _declare(
    state: DrawmahaState, seat: int, discards: tuple[Card, ...]
) -> tuple[DrawmahaState, list[Event]]:
    """DM-5: the player sets the cards aside, for good; once all have declared, the
    replacements are dealt in the same order."""
    hand = state.hands[seat]
    if len(set(discards)) != len(discards) or not set(discards) <= set(hand):
        raise RuleViolation(
            "the cards to exchange are different cards of the player's own hand",
            field="discards",
            rule=DrawmahaRule.DRAW,
        )
    if len(discards) > state.max_exchange:
        raise RuleViolation(
            "at most %(most)s cards may be exchanged in this hand",
            field="discards",
            rule=DrawmahaRule.DRAW,
            most=state.max_exchange,
        )
    hands = list(state.hands)
    hands[seat] = tuple(card for card in hand if card not in discards)
    state = replace(
        state,
        hands=tuple(hands),
        exchanges=(*state.exchanges, Exchange(seat, tuple(discards))),
    )
    events = [
        Event(
            DrawmahaEvent.EXCHANGE,
            {"seat": seat, "count": len(discards), "discards": cards_to_json(discards)},
        )
    ]
    if len(state.exchanges) == len(state.draw_order):
        state = _deal_replacements(state, events)
    return _advance(state, events)


def _deal_replacements(state: DrawmahaState, events: list[Event]) -> DrawmahaState:
    """DM-5: replacements in draw order, until a one-card exchange needs the player to take or
    reject the card shown (DM-6)."""
    for exchange in state.exchanges:
        if exchange.complete:
            continue
        if len(exchange.discards) == 1:
            # DM-6: the top card is shown face up; the player decides.
            state, (card,), (shown,) = _deal(state, 1, events, seat=exchange.seat)
            events.append(Event(DrawmahaEvent.TWIST_SHOWN, shown))
            return _replace_exchange(state, replace(exchange, twist=card))
        state, cards, dealt = _deal(state, len(exchange.discards), events, seat=exchange.seat)
        events.append(Event(DrawmahaEvent.REPLACEMENTS, {"seat": exchange.seat, "cards": dealt}))
        state = _receive(state, exchange, cards)
    return state


def _twist(
    state: DrawmahaState, exchange: Exchange, card: Card, *, take: bool
) -> tuple[DrawmahaState, list[Event]]:
    """DM-6: the twist card taken, or mucked and the next card dealt face down."""
    exchange = replace(exchange, twist_taken=take)
    state = _replace_exchange(state, exchange)
    events = [
        Event(
            DrawmahaEvent.TWIST_TAKEN if take else DrawmahaEvent.TWIST_REJECTED,
            {"seat": exchange.seat, "card": str(card)},
        )
    ]
    if take:
        state = _receive(state, exchange, (card,))
    else:
        state, cards, dealt = _deal(state, 1, events, seat=exchange.seat)
        events.append(Event(DrawmahaEvent.REPLACEMENTS, {"seat": exchange.seat, "cards": dealt}))
        state = _receive(state, exchange, cards)
    return _advance(_deal_replacements(state, events), events)


def _receive(state: DrawmahaState, exchange: Exchange, cards: tuple[Card, ...]) -> DrawmahaState:
    """The player has the replacements: the discards (and a rejected twist card) join the muck,
    which may now be reshuffled for the players after (DM-7)."""
    done = replace(exchange, received=cards)
    state = _replace_exchange(state, done)
    hands = list(state.hands)
    hands[done.seat] += cards
    return replace(state, hands=tuple(hands), muck=state.muck + done.mucked)


def _replace_exchange(state: DrawmahaState, exchange: Exchange) -> DrawmahaState:
    exchanges = tuple(exchange if e.seat == exchange.seat else e for e in state.exchanges)
    return replace(state, exchanges=exchanges)


# Showdown and awards -------------------------------------------------------------------------


def _award(state: DrawmahaState, events: list[Event]) -> tuple[DrawmahaState, list[Event]]:
    """Each pot, raked (DM-12, ST-13), to the last player in the hand unshown (DM-10), or in
    halves to the best draw hand and the best Omaha hand (DM-11); ties split with the odd unit
    nearest the button's left."""
    chips, returned = betting.return_uncalled(state.chips)
    if returned is not None:
        events.append(returned)
    players = len(state.hands)
    showdown = len(state.in_hand) > 1
    if showdown:
        for seat in clockwise(state.in_hand, state.button + 1, players):
            events.append(
                Event(
                    PeerEvent.SHOW,
                    {
                        "seat": seat,
                        "cards": cards_to_json(state.hands[seat]),
                        "draw_hand": state.draw_value(seat).name,
                        "omaha_hand": state.omaha_value(seat).name,
                    },
                )
            )
    stacks = [c.stack for c in chips]
    results = []
    awards: tuple[Award, ...]
    pots = betting.side_pots(chips)
    rakes = state.table.rake.of([pot.amount for pot in pots])
    for number, (pot, rake) in enumerate(zip(pots, rakes, strict=True)):
        if rake:
            events.append(Event(PeerEvent.RAKE, {"pot": number, "amount": rake}))
        if showdown:
            draw_half, omaha_half = betting.halve(pot.amount - rake)
            awards = (
                _award_part(state, pot.eligible, PotPart.DRAW, draw_half, state.draw_value),
                _award_part(state, pot.eligible, PotPart.OMAHA, omaha_half, state.omaha_value),
            )
        else:
            (winner,) = pot.eligible
            awards = (Award(PotPart.WHOLE, pot.amount - rake, ((winner, pot.amount - rake),)),)
        for award in awards:
            for seat, share in award.shares:
                stacks[seat] += share
            events.append(
                Event(
                    PeerEvent.POT_AWARDED,
                    {
                        "pot": number,
                        "part": award.part.value,
                        "amount": award.amount,
                        "rake": rake,
                        "eligible": list(pot.eligible),
                        "shares": {str(seat): share for seat, share in award.shares},
                        "hand": award.hand,
                    },
                )
            )
        results.append(PotResult(pot.amount, rake, pot.eligible, awards))
    chips = tuple(replace(c, stack=stack) for c, stack in zip(chips, stacks, strict=True))
    state = replace(
        state,
        betting=replace(state.betting, chips=chips),
        street=Street.OVER,
        results=tuple(results),
    )
    events.append(Event(PeerEvent.HAND_OVER, {"stacks": stacks, "rake": state.rake}))
    return state, events


def _award_part(
    state: DrawmahaState,
    eligible: Sequence[int],
    part: PotPart,
    amount: int,
    value_of: Callable[[int], HandValue],
) -> Award:
    values = {seat: value_of(seat) for seat in eligible}
    best = max(values.values())
    winners = [seat for seat, value in values.items() if value == best]
    shares = betting.split_pot(
        amount, winners, first_seat=state.button + 1, seat_count=len(state.hands)
    )
    return Award(part, amount, tuple(sorted(shares.items())), best.name)


# JSON ----------------------------------------------------------------------------------------


def to_json(state: DrawmahaState) -> dict[str, Any]:
    table = state.table
    return {
        "table": {
            "small_blind": table.small_blind,
            "big_blind": table.big_blind,
            "rake": betting.rake_to_json(table.rake),
            "draw_limit": table.draw_limit,
        },
        "button": state.button,
        "starting_stacks": list(state.starting_stacks),
        "hands": [cards_to_json(hand) for hand in state.hands],
        "board": cards_to_json(state.board),
        "deck": deck_to_json(state.deck),
        "street": state.street.value,
        "betting": betting.round_to_json(state.betting),
        "exchanges": [
            {
                "seat": e.seat,
                "discards": cards_to_json(e.discards),
                "received": cards_to_json(e.received),
                "twist": None if e.twist is None else str(e.twist),
                "twist_taken": e.twist_taken,
            }
            for e in state.exchanges
        ],
        "muck": cards_to_json(state.muck),
        "results": [
            {
                "amount": r.amount,
                "rake": r.rake,
                "eligible": list(r.eligible),
                "awards": [
                    {
                        "part": a.part.value,
                        "amount": a.amount,
                        "shares": betting.shares_to_json(a.shares),
                        "hand": a.hand,
                    }
                    for a in r.awards
                ],
            }
            for r in state.results
        ],
    }


def from_json(data: Mapping[str, Any]) -> DrawmahaState:
    table = data["table"]
    return DrawmahaState(
        table=DrawmahaTable(
            small_blind=table["small_blind"],
            big_blind=table["big_blind"],
            rake=betting.rake_from_json(table["rake"]),
            draw_limit=table["draw_limit"],
        ),
        button=data["button"],
        starting_stacks=tuple(data["starting_stacks"]),
        hands=tuple(cards_from_json(hand) for hand in data["hands"]),
        board=cards_from_json(data["board"]),
        deck=deck_from_json(data["deck"]),
        street=Street(data["street"]),
        betting=betting.round_from_json(data["betting"]),
        exchanges=tuple(
            Exchange(
                seat=e["seat"],
                discards=cards_from_json(e["discards"]),
                received=cards_from_json(e["received"]),
                twist=None if e["twist"] is None else parse_card(e["twist"]),
                twist_taken=e["twist_taken"],
            )
            for e in data["exchanges"]
        ),
        muck=cards_from_json(data["muck"]),
        results=tuple(
            PotResult(
                r["amount"],
                r["rake"],
                tuple(r["eligible"]),
                tuple(
                    Award(
                        PotPart(a["part"]),
                        a["amount"],
                        betting.shares_from_json(a["shares"]),
                        a["hand"],
                    )
                    for a in r["awards"]
                ),
            )
            for r in data["results"]
        ),
    )
