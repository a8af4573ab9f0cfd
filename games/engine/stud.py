"""Seven-card stud, fixed limit (ST-1..ST-13), as a state machine.

``start_hand(table, stacks, deck)`` takes the antes, deals third street (ST-2) and returns the
first state, with the bring-in to act (ST-3), and its events; ``apply(state, action)`` returns
the next state and the events the action produced, dealing the next streets itself, or raises
``RuleViolation`` naming the field and the rule. ``legal_actions(state)`` lists what the player
to act may do. States are immutable and serialise to JSON (``to_json`` / ``from_json``).

Seats are numbered clockwise from the dealer's left: seat 0 gets the first card, wins ties
between equal showing hands (ST-4) and gets the odd unit of a split first (ST-11). Stud has no
moving button, so the table seats the players in that order.

Readings of the rules where they leave a choice (RULES.md has no Decision on them):
- ST-7 and ST-9: the burn before seventh street is always made; ST-9 is then checked, so that
  card joins the burns. With seven players at seventh street that leaves six cards for
  seven, and the burns are reshuffled in (ST-9's first form).
- ST-3: a player all in on the ante cannot bring in; the lowest door card among the players
  with chips does.
- A player who may check is not offered to fold (checking costs nothing).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, cast

from games.engine import betting
from games.engine.betting import (
    Action,
    ActionKind,
    BettingRound,
    Chips,
    FixedLimit,
    HandChips,
    LegalAction,
    PeerEvent,
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
from games.engine.hands import (
    FOUR_OF_A_KIND,
    HIGH_CARD,
    PAIR,
    THREE_OF_A_KIND,
    TWO_PAIR,
    HandValue,
    best_hand,
)
from games.engine.rules import StudRule

NO_RAKE = Rake()  # ST-13: a table has no rake unless set
MIN_PLAYERS = 2
MAX_PLAYERS = 8  # ST-1


class Street(StrEnum):
    THIRD = "third"
    FOURTH = "fourth"
    FIFTH = "fifth"
    SIXTH = "sixth"
    SEVENTH = "seventh"
    SHOWDOWN = "showdown"
    OVER = "over"


class StudEvent(StrEnum):
    """What a stud hand's history records beside the peer tables' events (``PeerEvent``)."""

    ANTE = "ante"  # ST-2
    BRING_IN_SEAT = "bring_in_seat"  # ST-3: the lowest door card, who brings in
    COMMON_CARD = "common_card"  # ST-9, ST-12
    SHOWDOWN = "showdown"  # ST-10: the order the hands are shown in
    MUCK = "muck"  # ST-10


_NEXT_STREET = {
    Street.THIRD: Street.FOURTH,
    Street.FOURTH: Street.FIFTH,
    Street.FIFTH: Street.SIXTH,
    Street.SIXTH: Street.SEVENTH,
}
_BETTING_STREETS = frozenset({Street.THIRD, *_NEXT_STREET.values()})


@dataclass(frozen=True)
class StudTable:
    """A table's limits (ST-1), in minor units: ante, bring-in (less than the small bet), the
    small bet (third and fourth streets) and the big bet (fifth street on), and the rake.
    ``open_pair_big_bet``: whether a bet may be big on fourth street with an open pair (ST-5, the
    source's rule); off, fourth street is small bets only, as in the 2023 WSOP rules."""

    ante: int
    bring_in: int
    small_bet: int
    big_bet: int
    rake: Rake = NO_RAKE
    open_pair_big_bet: bool = True

    def __post_init__(self) -> None:
        amounts = (self.ante, self.bring_in, self.small_bet, self.big_bet)
        if any(isinstance(a, bool) or not isinstance(a, int) or a < 0 for a in amounts):
            raise RuleViolation(
                "ante, bring-in and bets are whole minor units, 0 or more",
                field="table",
                rule=StudRule.TABLE,
            )
        if not 0 < self.bring_in < self.small_bet <= self.big_bet:
            raise RuleViolation(
                "the bring-in is less than the small bet, the small bet at most the big bet",
                field="table",
                rule=StudRule.TABLE,
            )


@dataclass(frozen=True)
class StudHand:
    """A seat's cards in dealing order; ``shown`` at showdown: True shown, False mucked."""

    down: tuple[Card, ...] = ()
    up: tuple[Card, ...] = ()
    shown: bool | None = None

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.down + self.up


@dataclass(frozen=True)
class PotResult:
    """A pot as awarded: its amount before the rake, the rake, who could win it and the shares."""

    amount: int
    rake: int
    eligible: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class StudState(HandChips):
    table: StudTable
    starting_stacks: tuple[int, ...]
    hands: tuple[StudHand, ...]
    deck: Deck
    street: Street
    betting: BettingRound
    """The current round (the last one once betting is over); it holds everyone's chips."""
    burns: tuple[Card, ...] = ()
    common: Card | None = None
    showdown_order: tuple[int, ...] = ()
    results: tuple[PotResult, ...] = ()

    @property
    def to_act(self) -> int | None:
        """The seat whose decision the hand waits for: a bet (ST-3, ST-4) or a showdown choice
        (ST-10); None when the hand is over."""
        if self.street == Street.SHOWDOWN:
            return next(s for s in self.showdown_order if self.hands[s].shown is None)
        if self.street == Street.OVER:
            return None
        return self.betting.to_act

    @property
    def finishing_stacks(self) -> tuple[int, ...] | None:
        """Everyone's chips after the hand; None until it is over."""
        return tuple(c.stack for c in self.chips) if self.street == Street.OVER else None

    def value(self, seat: int) -> HandValue:
        """The seat's best five cards (HR-3), of six plus the common card if there is one
        (ST-12)."""
        hand = self.hands[seat]
        return best_hand(hand.cards + ((self.common,) if self.common is not None else ()))


# Dealing -------------------------------------------------------------------------------------


def start_hand(
    table: StudTable, stacks: Sequence[int], deck: Deck
) -> tuple[StudState, list[Event]]:
    """Antes, third street (ST-2) and the bring-in's turn (ST-3)."""
    if not MIN_PLAYERS <= len(stacks) <= MAX_PLAYERS:
        raise RuleViolation(
            "seven-card stud seats %(fewest)s to %(most)s players",
            field="stacks",
            rule=StudRule.TABLE,
            fewest=MIN_PLAYERS,
            most=MAX_PLAYERS,
        )
    if any(isinstance(s, bool) or not isinstance(s, int) or s <= 0 for s in stacks):
        raise RuleViolation(
            "every starting stack is a whole number of minor units above 0",
            field="stacks",
            rule=StudRule.TABLE,
        )
    if set(deck.order) != set(STANDARD_DECK) or deck.dealt or deck.reshuffles:
        raise RuleViolation(
            "stud is dealt from one fresh 52-card deck", field="deck", rule=StudRule.TABLE
        )
    events: list[Event] = []
    chips = tuple(Chips(stack) for stack in stacks)
    for seat in range(len(chips)):
        chips, paid = betting.post(chips, seat, table.ante)
        if paid:
            events.append(
                Event(
                    StudEvent.ANTE, {"seat": seat, "amount": paid, "all_in": chips[seat].stack == 0}
                )
            )
    hands = [StudHand() for _ in stacks]
    dealt = []
    # ST-2: one card at a time clockwise from the dealer's left: down, down, then the door card.
    for face_up in (False, False, True):
        for seat in range(len(hands)):
            audit = positions(deck, 1)
            deck, (card,) = deck.deal(1)
            hands[seat] = _give(hands[seat], card, face_up)
            dealt.append(_dealt_json(seat, card, face_up, audit))
    events.append(Event(PeerEvent.DEAL, {"street": Street.THIRD.value, "cards": dealt}))
    bring_in = _bring_in_seat(hands, chips)
    events.append(
        Event(StudEvent.BRING_IN_SEAT, {"seat": bring_in, "door_card": str(hands[bring_in].up[0])})
    )
    limit = FixedLimit((table.small_bet,), rule=StudRule.BRING_IN, bring_in=table.bring_in)
    round_ = betting.open_round(
        limit,
        chips,
        clockwise(range(len(hands)), bring_in, len(hands)),
        turn_rule=StudRule.BRING_IN,
    )
    state = StudState(
        table=table,
        starting_stacks=tuple(stacks),
        hands=tuple(hands),
        deck=deck,
        street=Street.THIRD,
        betting=round_,
    )
    return _advance(state, events)


def _bring_in_seat(hands: Sequence[StudHand], chips: Sequence[Chips]) -> int:
    """ST-3: the lowest door card, ace high, clubs < diamonds < hearts < spades between equal
    ranks: exactly the canonical card order (FS-1), so the lowest card as an int."""
    with_chips = [seat for seat in range(len(hands)) if chips[seat].stack > 0]
    return min(with_chips or range(len(hands)), key=lambda seat: hands[seat].up[0])


def _give(hand: StudHand, card: Card, face_up: bool) -> StudHand:
    if face_up:
        return replace(hand, up=(*hand.up, card))
    return replace(hand, down=(*hand.down, card))


def _dealt_json(seat: int, card: Card, face_up: bool, audit: Mapping[str, Any]) -> dict[str, Any]:
    return dealt_card_json(card, audit, seat=seat, face="up" if face_up else "down")


def _advance(state: StudState, events: list[Event]) -> tuple[StudState, list[Event]]:
    """Go on until someone has to decide: deal the next streets, then the showdown or the award
    to the last player in the hand."""
    while state.betting.is_over:
        if len(state.in_hand) == 1:
            return _award(state, events)
        if state.street == Street.SEVENTH:
            return _start_showdown(state, events)
        state = _deal_street(state, _NEXT_STREET[state.street], events)
    return state, events


def _deal_street(state: StudState, street: Street, events: list[Event]) -> StudState:
    """ST-4, ST-6, ST-7: burn, then one card to each player in the hand clockwise from the
    dealer's left, face down on seventh street (or the last card by ST-9); then the round."""
    deck, hands = state.deck, list(state.hands)
    audit = positions(deck, 1)
    deck, (burn,) = deck.deal(1)
    events.append(Event(PeerEvent.BURN, {"street": street.value, "card": str(burn), **audit}))
    state = replace(state, burns=(*state.burns, burn))
    live = state.in_hand
    face_up = street != Street.SEVENTH
    common = None
    if deck.remaining < len(live):
        deck, common = _last_card(state, deck, events)
    dealt = []
    if common is None:
        for seat in live:
            audit = positions(deck, 1)
            deck, (card,) = deck.deal(1)
            hands[seat] = _give(hands[seat], card, face_up)
            dealt.append(_dealt_json(seat, card, face_up, audit))
        events.append(Event(PeerEvent.DEAL, {"street": street.value, "cards": dealt}))
    state = replace(state, deck=deck, hands=tuple(hands), street=street, common=common)
    opener = _opener(state)
    round_ = betting.next_round(
        state.betting,
        _limit(state, street),
        clockwise(live, opener, len(hands)),
        turn_rule=StudRule.FOURTH_STREET,
    )
    return replace(state, betting=round_)


def _last_card(state: StudState, deck: Deck, events: list[Event]) -> tuple[Deck, Card | None]:
    """ST-9: the deck cannot give each player a card. The burn cards are shuffled with the rest
    of the deck (FS-6); if that is enough, each player gets the last card from it, else one
    common card is turned up (ST-12). Folded players' cards are never used again."""
    enough = deck.remaining + len(state.burns) >= len(state.in_hand)
    undealt = deck.remaining
    deck = deck.reshuffle(state.burns)
    events.append(
        Event(
            PeerEvent.RESHUFFLE,
            {
                "rule": StudRule.LAST_CARD,
                "form": "last_card" if enough else "common_card",
                "returned": cards_to_json(state.burns),
                "undealt": undealt,
                "shuffle": deck.shuffle_number,
            },
        )
    )
    if enough:
        return deck, None
    audit = positions(deck, 1)
    deck, (common,) = deck.deal(1)
    events.append(Event(StudEvent.COMMON_CARD, {"card": str(common), **audit}))
    return deck, common


def _limit(state: StudState, street: Street) -> FixedLimit:
    table = state.table
    if street == Street.FOURTH:
        if any(_open_pair(state.hands[seat].up) for seat in state.in_hand):
            big = (table.big_bet,) if table.open_pair_big_bet else ()  # the table's ST-5
            return FixedLimit((table.small_bet, *big), rule=StudRule.OPEN_PAIR)
        return FixedLimit((table.small_bet,), rule=StudRule.TABLE)
    return FixedLimit(
        (table.big_bet,),
        rule=StudRule.SEVENTH_STREET if street == Street.SEVENTH else StudRule.BIG_BETS,
    )


def _open_pair(up: Sequence[Card]) -> bool:
    return len({card.rank for card in up}) < len(up)


def showing(up: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    """ST-4: the strength of a player's up cards, comparable between players: a category code
    of ``hands.CATEGORIES`` and its ranks. A player shows at most four cards (ST-9b: a common
    card is no one's), so only pairs, two pair, three and four of a kind count."""
    counts = Counter(card.rank for card in up if card.rank is not None)
    # Bigger sets first, then higher ranks: pair of 9s with K 4 is (9, 13, 4).
    ranked = sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    if shape[0] == 4:
        category = FOUR_OF_A_KIND
    elif shape[0] == 3:
        category = THREE_OF_A_KIND
    elif shape[:2] == [2, 2]:
        category = TWO_PAIR
    else:
        category = PAIR if shape[0] == 2 else HIGH_CARD
    return category, tuple(ranked)


def _opener(state: StudState) -> int:
    """ST-4: the best showing hand acts first; between equals the one nearest the dealer's left
    (the lowest seat, as ``max`` keeps the first of equals). A common card is no one's up card
    (ST-9b): seventh street opens as sixth street did."""
    return max(state.in_hand, key=lambda seat: showing(state.hands[seat].up))


# Betting -------------------------------------------------------------------------------------


def legal_actions(state: StudState) -> tuple[LegalAction, ...]:
    """What the seat to act may do, with amounts; at showdown, show (and muck if the hand can
    no longer win, ST-10)."""
    if state.street == Street.SHOWDOWN:
        seat = state.to_act
        if seat is None:
            return ()
        if _cannot_win(state, seat):
            return (LegalAction(ActionKind.SHOW), LegalAction(ActionKind.MUCK))
        return (LegalAction(ActionKind.SHOW),)
    if state.street == Street.OVER:
        return ()
    return betting.legal_actions(state.betting)


def apply(state: StudState, action: Action) -> tuple[StudState, list[Event]]:
    """The state after the action, with its events; RuleViolation if the rules do not allow it."""
    if state.street == Street.OVER:
        raise RuleViolation("the hand is over", field="action", rule=StudRule.CARDS_SPEAK)
    if state.street == Street.SHOWDOWN:
        return _showdown_choice(state, action)
    round_, event = betting.act(state.betting, action)
    events = [Event(event.kind, {"street": state.street.value, **event.data})]
    return _advance(replace(state, betting=round_), events)


# Showdown and awards -------------------------------------------------------------------------


def _start_showdown(state: StudState, events: list[Event]) -> tuple[StudState, list[Event]]:
    """ST-10: the last to bet or raise on seventh street shows first; if nobody did, the player
    who would have acted first; then clockwise."""
    chips, returned = betting.return_uncalled(state.chips)
    if returned is not None:
        events.append(returned)
    final = state.betting
    first = final.aggressor if final.aggressor is not None else final.order[0]
    order = clockwise(state.in_hand, first, len(state.hands))
    events.append(Event(StudEvent.SHOWDOWN, {"order": list(order)}))
    state = replace(
        state,
        betting=replace(final, chips=chips),
        street=Street.SHOWDOWN,
        showdown_order=order,
    )
    return state, events


def concede(state: StudState, seat: int) -> tuple[StudState, list[Event]]:
    """A hand history's muck of a hand that could still win (PHH's ``pN sm`` with no cards):
    the player gives up every pot. Tables never offer it (there a hand that can win is shown,
    ST-10, ST-11); a replay follows what the history's player did. Someone must still win each
    pot, so the last hand left in one is shown."""
    if state.street != Street.SHOWDOWN:
        raise RuleViolation(
            "a hand is conceded at the showdown", field="kind", rule=StudRule.SHOWDOWN_ORDER
        )
    others = {s for s in state.showdown_order if s != seat and state.hands[s].shown is not False}
    for pot in betting.side_pots(state.chips):
        if seat in pot.eligible and not others & set(pot.eligible):
            raise RuleViolation(
                "the last hand in a pot is shown: someone wins it",
                field="kind",
                rule=StudRule.CARDS_SPEAK,
            )
    return _showdown_choice(state, Action(seat, ActionKind.MUCK), conceding=True)


def _showdown_choice(
    state: StudState, action: Action, *, conceding: bool = False
) -> tuple[StudState, list[Event]]:
    seat = cast(int, state.to_act)  # a showdown always waits for someone (ST-10)
    if action.seat != seat:
        raise OutOfTurn(
            to_act=seat,
            acting=action.seat,
            rule=StudRule.SHOWDOWN_ORDER,
            message=rule_text("seat %(to_act)s shows or mucks now, not seat %(acting)s"),
        )
    if action.kind not in (ActionKind.SHOW, ActionKind.MUCK):
        raise RuleViolation(
            "the betting is over: show or muck", field="kind", rule=StudRule.SHOWDOWN_ORDER
        )
    if action.kind == ActionKind.MUCK and not conceding and not _cannot_win(state, seat):
        raise RuleViolation(
            "a hand that can still win is shown (cards speak)",
            field="kind",
            rule=StudRule.SHOWDOWN_ORDER,
        )
    shown = action.kind == ActionKind.SHOW
    hands = list(state.hands)
    hands[seat] = replace(hands[seat], shown=shown)
    state = replace(state, hands=tuple(hands))
    if shown:
        value = state.value(seat)
        data = {"seat": seat, "cards": cards_to_json(hands[seat].cards), "hand": value.name}
        events = [Event(PeerEvent.SHOW, data)]
    else:
        events = [Event(StudEvent.MUCK, {"seat": seat})]
    if all(state.hands[s].shown is not None for s in state.showdown_order):
        return _award(state, events)
    return state, events


def _cannot_win(state: StudState, seat: int) -> bool:
    """ST-10: every pot the seat could win already has a better hand shown."""
    mine = state.value(seat)
    shown = [s for s in state.showdown_order if state.hands[s].shown]
    for pot in betting.side_pots(state.chips):
        if seat not in pot.eligible:
            continue
        rivals = [state.value(s) for s in shown if s in pot.eligible]
        if not rivals or max(rivals) <= mine:
            return False
    return True


def _award(state: StudState, events: list[Event]) -> tuple[StudState, list[Event]]:
    """Each pot, raked (ST-13), to its best shown hand (ST-11) or to the last player in the hand
    (who never shows, ST-10); ties split with the odd unit nearest the dealer's left."""
    chips, returned = betting.return_uncalled(state.chips)
    if returned is not None:
        events.append(returned)
    stacks = [c.stack for c in chips]
    results = []
    pots = betting.side_pots(chips)
    rakes = state.table.rake.of([pot.amount for pot in pots])
    for number, (pot, rake) in enumerate(zip(pots, rakes, strict=True)):
        if rake:
            events.append(Event(PeerEvent.RAKE, {"pot": number, "amount": rake}))
        if state.street == Street.SHOWDOWN:
            contenders = {s: state.value(s) for s in pot.eligible if state.hands[s].shown}
            best = max(contenders.values())
            winners = [s for s, value in contenders.items() if value == best]
            hand: str | None = best.name
        else:
            winners, hand = list(pot.eligible), None
        # ST-11 Decision: odd units from the dealer's left, which is seat 0.
        shares = betting.split_pot(pot.amount - rake, winners, first_seat=0, seat_count=len(stacks))
        for seat, share in shares.items():
            stacks[seat] += share
        results.append(PotResult(pot.amount, rake, pot.eligible, tuple(sorted(shares.items()))))
        events.append(
            Event(
                PeerEvent.POT_AWARDED,
                {
                    "pot": number,
                    "amount": pot.amount - rake,
                    "rake": rake,
                    "eligible": list(pot.eligible),
                    "shares": {str(seat): share for seat, share in sorted(shares.items())},
                    "hand": hand,
                },
            )
        )
    chips = tuple(replace(c, stack=stack) for c, stack in zip(chips, stacks, strict=True))
    state = replace(
        state,
        betting=replace(state.betting, chips=chips),
        street=Street.OVER,
        results=tuple(results),
    )
    events.append(Event(PeerEvent.HAND_OVER, {"stacks": stacks, "rake": state.rake}))
    return state, events


# JSON ----------------------------------------------------------------------------------------


def to_json(state: StudState) -> dict[str, Any]:
    table = state.table
    return {
        "table": {
            "ante": table.ante,
            "bring_in": table.bring_in,
            "small_bet": table.small_bet,
            "big_bet": table.big_bet,
            "rake": betting.rake_to_json(table.rake),
            "open_pair_big_bet": table.open_pair_big_bet,
        },
        "starting_stacks": list(state.starting_stacks),
        "hands": [
            {"down": cards_to_json(h.down), "up": cards_to_json(h.up), "shown": h.shown}
            for h in state.hands
        ],
        "deck": deck_to_json(state.deck),
        "street": state.street.value,
        "betting": betting.round_to_json(state.betting),
        "burns": cards_to_json(state.burns),
        "common": None if state.common is None else str(state.common),
        "showdown_order": list(state.showdown_order),
        "results": [
            {
                "amount": r.amount,
                "rake": r.rake,
                "eligible": list(r.eligible),
                "shares": betting.shares_to_json(r.shares),
            }
            for r in state.results
        ],
    }


def from_json(data: Mapping[str, Any]) -> StudState:
    table = data["table"]
    return StudState(
        table=StudTable(
            ante=table["ante"],
            bring_in=table["bring_in"],
            small_bet=table["small_bet"],
            big_bet=table["big_bet"],
            rake=betting.rake_from_json(table["rake"]),
            open_pair_big_bet=table.get("open_pair_big_bet", True),  # hands stored before it
        ),
        starting_stacks=tuple(data["starting_stacks"]),
        hands=tuple(
            StudHand(cards_from_json(h["down"]), cards_from_json(h["up"]), h["shown"])
            for h in data["hands"]
        ),
        deck=deck_from_json(data["deck"]),
        street=Street(data["street"]),
        betting=betting.round_from_json(data["betting"]),
        burns=cards_from_json(data["burns"]),
        common=None if data["common"] is None else parse_card(data["common"]),
        showdown_order=tuple(data["showdown_order"]),
        results=tuple(
            PotResult(
                r["amount"],
                r["rake"],
                tuple(r["eligible"]),
                betting.shares_from_json(r["shares"]),
            )
            for r in data["results"]
        ),
    )
