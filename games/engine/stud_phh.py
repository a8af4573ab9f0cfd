"""Hand histories in the PHH format for seven-card stud, variant ``F7S``: read (``loads``),
write (``dumps``), record a hand the stud engine played (``record``) and replay a history through
the engine (``replay``); the format's framing is ``phh``'s.

Stud's actions, as PokerKit writes them: ``d dh pN cards`` deals cards to player N (on third
street two down cards then the door card, later one card), ``d db card`` the common card (ST-9),
``pN pb`` the bring-in, ``pN cbr X`` complete, bet or raise to X (the player's total this
street), ``pN cc`` check or call, ``pN f`` fold, ``pN sm cards`` show, ``pN sm`` muck. Third
street may be dealt a card per action in dealing order, and a card may be unknown (``??``).
Player N is seat N - 1, clockwise from the dealer's left. The user-defined field
``_open_pair_big_bet`` says whether the table allows ST-5's big bet (on when absent, as the
source has it).

A replay reads what PokerKit writes: the hands it shows once players are all in and no more
betting is possible (before the last cards, then again), its own order at the showdown (the
replay shows in the ST-10 order), and a muck of a hand that could still win, which concedes it.
It refuses, naming the rule, a history that deals again a card a player folded (ST-9: PokerKit
reshuffles folded cards when a stud deck runs out) and untrimmed antes (PHH's default) with a
player all in for less than the ante (ST-13: that player wins only what each other put in).

PHH does not record burn cards; a replay burns cards the history never shows.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from games.engine import phh, stud
from games.engine.betting import Action, ActionKind
from games.engine.cards import Card, parse_card
from games.engine.common import Event, RuleViolation, rule_text
from games.engine.dealer import STANDARD_DECK, Deck
from games.engine.phh import Replay, Step, read_cards, read_dealt
from games.engine.rules import StudRule
from games.engine.stud import StudState, StudTable

VARIANT = "F7S"
# ST-5 as the table plays it, a user-defined field; a file without it follows the source (on).
OPEN_PAIR_BIG_BET = "_open_pair_big_bet"
THIRD_STREET_CARDS = 3  # ST-2: two down, the door card up


@dataclass(frozen=True, kw_only=True)
class HandHistory(phh.Hand):
    """One F7S hand: the game's fields, its actions, and any other fields as read (``extra``,
    written back unchanged)."""

    game: ClassVar[str] = "seven-card stud"
    game_fields: ClassVar[Mapping[str, phh.FieldReader]] = {
        "antes": phh.read_amounts,
        "bring_in": phh.read_amount,
        "small_bet": phh.read_amount,
        "big_bet": phh.read_amount,
    }
    written_first: ClassVar[Collection[str]] = ("ante_trimming_status",)  # as PokerKit writes it

    antes: tuple[int, ...]
    bring_in: int
    small_bet: int
    big_bet: int
    variant: str = VARIANT


loads = HandHistory.loads  # PHH text to a hand; ValueError if it is not a complete F7S hand
dumps = HandHistory.dumps  # a hand to PHH text


# Recording an engine hand --------------------------------------------------------------------


def record(state: StudState, events: Iterable[Event]) -> HandHistory:
    """The PHH of a hand the engine played: ``state`` is any state of the hand (its table and
    starting stacks are used), ``events`` every event from ``start_hand`` on."""
    actions: list[str] = []
    for event in events:
        if event.kind == "deal":
            actions += phh.deal_lines(event.data["cards"])
        elif event.kind == "common_card":
            actions.append(f"d db {event.data['card']}")
        elif event.kind == ActionKind.BRING_IN:
            actions.append(f"{phh.player(event.data['seat'])} pb")
        elif (line := phh.action_line(event)) is not None:
            actions.append(line)
    table = state.table
    return HandHistory(
        antes=(table.ante,) * len(state.starting_stacks),
        bring_in=table.bring_in,
        small_bet=table.small_bet,
        big_bet=table.big_bet,
        starting_stacks=state.starting_stacks,
        actions=tuple(actions),
        finishing_stacks=state.finishing_stacks,
        # ST-13: a short ante makes a side pot; ST-5 as the table plays it.
        extra={"ante_trimming_status": True, OPEN_PAIR_BIG_BET: table.open_pair_big_bet},
    )


# Replaying a history through the engine -------------------------------------------------------


def replay(hand: HandHistory) -> Replay[StudState]:
    """Play the history through the stud engine with the cards it records; RuleViolation (with
    the rule) at the first action the rules do not allow, ValueError if the history is
    malformed or its cards are not the ones the engine deals."""
    if len(set(hand.antes)) != 1 or len(hand.antes) != len(hand.starting_stacks):
        raise RuleViolation(
            "the table has one ante for every player", field="antes", rule=StudRule.TABLE
        )
    if not hand.extra.get("ante_trimming_status") and min(hand.starting_stacks) < hand.antes[0]:
        # Untrimmed antes (PHH's default) all go to the first pot, even for a short ante.
        raise RuleViolation(
            "a player all in for less than the ante wins only as much from each other player "
            "(table stakes), so the antes of this hand are trimmed: ante_trimming_status = true",
            field="ante_trimming_status",
            rule=StudRule.SIDE_POTS,
        )
    open_pair_big_bet = phh.read_flag(hand.extra, OPEN_PAIR_BIG_BET, default=True)
    table = StudTable(
        hand.antes[0],
        hand.bring_in,
        hand.small_bet,
        hand.big_bet,
        rake=phh.read_rake(hand.extra),
        open_pair_big_bet=open_pair_big_bet,
    )
    parsed = (phh.read_step(text, len(hand.starting_stacks)) for text in hand.actions)
    steps = [step for step in parsed if step is not None]
    deck, unknown = _recorded_deck(steps, len(hand.starting_stacks))
    state, events = stud.start_hand(table, hand.starting_stacks, deck)
    history = list(events)
    _check_unknown(state, events, unknown)
    undealt = _Dealt()
    undealt.add(events)
    showdown = _Showdown()
    for step in steps:
        checked = len(history)
        seat = step.seat
        if seat is None:
            undealt.match(step, state)
        elif step.verb == "sm" and undealt.pending():
            showdown.all_in_show(state, seat, step, undealt)
        elif undealt.pending():
            raise RuleViolation(
                f"{step.text!r}: the rules deal {undealt.pending()} first",
                field="actions",
                rule=_dealing_rule(state),
            )
        elif step.verb == "sm" and state.street == stud.Street.SHOWDOWN:
            showdown.decide(seat, step)
        else:
            state, events = stud.apply(state, _action(state, seat, step))
            history += events
            undealt.add(events)
        if not undealt.pending():
            state = showdown.play(state, history)
        _check_unknown(state, history[checked:], unknown)
    return Replay(state, tuple(history))


class _Showdown:
    """The history's showdown, played in the engine's order (ST-10). PokerKit shows the hands
    once no more betting is possible (players all in), deals the streets to come and shows again
    the hands that got a down card; it orders that last showdown its own way, so each seat's
    show or muck waits here until the engine asks that seat."""

    def __init__(self) -> None:
        self._decisions: dict[int, Step] = {}
        self._shown: dict[int, frozenset[Card]] = {}

    def all_in_show(self, state: StudState, seat: int, step: Step, undealt: _Dealt) -> None:
        """A show before the last cards are dealt: the player's cards dealt so far, no action
        for the engine, which has already dealt the streets to come. Anywhere else cards are
        shown at the showdown."""
        if state.street != stud.Street.SHOWDOWN or not step.args:
            raise RuleViolation(
                f"{step.text!r}: cards are shown at the showdown, or once every bet is made "
                "with players all in",
                field="actions",
                rule=StudRule.SHOWDOWN_ORDER,
            )
        so_far = frozenset(state.hands[seat].cards) - set(undealt.waiting(seat))
        if step.args != ("-",) and frozenset(read_cards(step.args[0], step.text)) != so_far:
            raise RuleViolation(
                f"{step.text!r}: those are not the player's cards",
                field="actions",
                rule=StudRule.SHOWDOWN_ORDER,
            )
        self._shown[seat] = so_far

    def decide(self, seat: int, step: Step) -> None:
        if seat in self._decisions:
            raise RuleViolation(
                f"{step.text!r}: the player has shown or mucked already",
                field="actions",
                rule=StudRule.SHOWDOWN_ORDER,
            )
        self._decisions[seat] = step

    def play(self, state: StudState, history: list[Event]) -> StudState:
        """Every showdown choice the engine can take now, in its order; a hand shown whole
        before (no card dealt to it face down since) is shown again, as PokerKit leaves it."""
        while state.street == stud.Street.SHOWDOWN and state.to_act is not None:
            seat = state.to_act
            hand = state.hands[seat]
            if seat in self._decisions:
                action = _action(state, seat, self._decisions.pop(seat))
            elif seat in self._shown and self._shown[seat] | set(hand.up) >= set(hand.cards):
                action = Action(seat, ActionKind.SHOW)
            else:
                break
            offered = {option.kind for option in stud.legal_actions(state)}
            if action.kind == ActionKind.MUCK and ActionKind.MUCK not in offered:
                state, events = stud.concede(state, seat)  # a muck gives up a hand that could win
            else:
                state, events = stud.apply(state, action)
            history += events
        return state


_Cards = tuple[Card | None, ...]


def _recorded_deck(steps: Sequence[Step], players: int) -> tuple[Deck, dict[Card, _Unknown]]:
    """A stacked deck that deals what the history records, in the engine's order: third street
    round by round (ST-2), written for each player at once or a card at a time, then per street
    a burn and a card to each player in seat order (ST-4); a street the deck cannot cover comes
    from the ST-9 reshuffle. An unknown card (``??``) is the card the player shows for it, else
    a stand-in the history never shows, returned with the unknown card it stands for."""
    streets: list[dict[int | None, _Cards]] = [{}]
    for step, given in _dealt_once(steps):
        if step.receiver is None:
            streets.append({None: given})
            continue
        current = streets[-1]
        seat = step.receiver
        so_far = current.get(seat, ())
        if len(streets) == 1 and len(so_far) + len(given) <= THIRD_STREET_CARDS:
            current[seat] = so_far + given
            continue
        if len(streets) == 1 or seat in current or None in current:
            streets.append(current := {})
        current[seat] = given
    if set(streets[0]) != set(range(players)) or any(
        len(c) != THIRD_STREET_CARDS for c in streets[0].values()
    ):
        raise ValueError("third street deals three cards to every player (ST-2)")
    known, unknown = _known(streets, _shown(steps))
    third, later = known[0], known[1:]
    order = [third[seat][n] for n in range(THIRD_STREET_CARDS) for seat in range(players)]
    # Whether the deck covers a street depends only on counts: a burn, then a card each.
    plan: list[tuple[tuple[Card, ...], bool]] = []
    size = len(order)
    for number, street in enumerate(later):
        cards = tuple(c for _, dealt in sorted(street.items(), key=_seat_order) for c in dealt)
        covered = None not in street and len(STANDARD_DECK) - size - 1 >= len(cards)
        if not covered and number != len(later) - 1:
            raise ValueError("the deck runs out before seventh street")
        plan.append((cards, covered))
        size += 1 + (len(cards) if covered else 0)
    placed = set(order).union(*(cards for cards, covered in plan if covered))
    recorded = placed.union(*(cards for cards, _ in plan))
    # Burns are cards the history never shows, else cards only the reshuffle deals.
    burns = iter(sorted((c for c in STANDARD_DECK if c not in placed), key=lambda c: c in recorded))
    for cards, covered in plan:
        order += [next(burns), *(cards if covered else ())]
    reshuffle_tops = [cards for cards, covered in plan if not covered]
    return Deck.stacked(order, reshuffle_tops), unknown


@dataclass(frozen=True)
class _Unknown:
    """An unknown card of the history: the ``number``-th card dealt to ``player`` (pN, or
    ``board`` for the common card)."""

    player: str
    number: int


def _shown(steps: Sequence[Step]) -> dict[int, set[Card]]:
    """The known cards each seat shows in the history."""
    shown: dict[int, set[Card]] = {}
    for step in steps:
        if step.seat is not None and step.verb == "sm" and step.args and step.args != ("-",):
            cards = read_dealt(step.args[0], step.text)
            shown.setdefault(step.seat, set()).update(c for c in cards if c is not None)
    return shown


def _known(
    streets: Sequence[Mapping[int | None, _Cards]], shown: Mapping[int, set[Card]]
) -> tuple[list[dict[int | None, tuple[Card, ...]]], dict[Card, _Unknown]]:
    """The streets with every unknown card made known: a player who shows as many cards more
    than the history deals him known has shown his unknown ones (in card order: which down
    card came first changes nothing); any other unknown card gets a stand-in, a card the
    history never shows, named in the second value."""
    dealt: dict[int | None, list[Card | None]] = {}
    for street in streets:
        for seat, cards in street.items():
            dealt.setdefault(seat, []).extend(cards)
    known = {card for cards in dealt.values() for card in cards if card is not None}
    revealed: dict[int | None, list[Card]] = {}
    for seat, held in dealt.items():
        more = sorted(shown.get(seat, set()) - known) if seat is not None else []
        if more and len(more) == held.count(None):
            revealed[seat] = more
            known.update(more)
    stand_ins = iter(sorted(set(STANDARD_DECK) - known))
    unknown: dict[Card, _Unknown] = {}
    counted: dict[int | None, int] = {}
    made_known: list[dict[int | None, tuple[Card, ...]]] = []
    for street in streets:
        made_known.append({})
        for seat, cards in street.items():
            filled = []
            for card in cards:
                counted[seat] = counted.get(seat, 0) + 1
                if card is None and revealed.get(seat):
                    card = revealed[seat].pop(0)
                elif card is None:
                    card = next(stand_ins)
                    label = "board" if seat is None else phh.player(seat)
                    unknown[card] = _Unknown(label, counted[seat])
                filled.append(card)
            made_known[-1][seat] = tuple(filled)
    return made_known, unknown


def _check_unknown(
    state: StudState, events: Iterable[Event], unknown: Mapping[Card, _Unknown]
) -> None:
    """RuleViolation if a result of the ``events`` depends on an unknown card: a door card for
    the bring-in (ST-3), an up card for who acts first (ST-4), a hand's cards at the showdown
    (ST-11). Unknown cards of players who fold and never show decide nothing."""
    for event in events:
        if event.kind == "bring_in_seat":
            cards = [hand.up[0] for hand in state.hands]
            rule, template = (
                StudRule.BRING_IN,
                rule_text(
                    "%(player)s's card %(number)s is unknown (??), but it decides who brings in"
                ),
            )
        elif event.kind == "deal" and event.data["street"] != stud.Street.THIRD:
            cards = [card for seat in state.in_hand for card in state.hands[seat].up]
            rule, template = (
                StudRule.FOURTH_STREET,
                rule_text(
                    "%(player)s's card %(number)s is unknown (??), but it decides who acts first"
                ),
            )
        elif event.kind == "show":
            cards = [*state.hands[event.data["seat"]].cards, *filter(None, [state.common])]
            rule, template = (
                StudRule.CARDS_SPEAK,
                rule_text(
                    "%(player)s's card %(number)s is unknown (??), but the showdown needs it"
                ),
            )
        else:
            continue
        for card in cards:
            if card in unknown:
                raise RuleViolation(
                    template,
                    field="actions",
                    rule=rule,
                    player=unknown[card].player,
                    number=unknown[card].number,
                )


def _dealt_once(steps: Sequence[Step]) -> Iterator[tuple[Step, _Cards]]:
    """The dealing steps with their cards; RuleViolation (ST-9) if one deals a card of a player
    who folded (PokerKit deals those again when a stud deck runs out), ValueError if one deals
    any other card a second time."""
    holder: dict[Card, int | None] = {}
    folded: set[int] = set()
    for step in steps:
        if step.seat is not None:
            if step.verb == "f":
                folded.add(step.seat)
            continue
        cards = read_dealt(step.args[0], step.text)
        for card in cards:
            if card is None:
                continue
            if card not in holder:
                holder[card] = step.receiver
                continue
            seat = holder[card]
            if seat is not None and seat in folded:
                raise RuleViolation(
                    f"{step.text!r}: {card} was dealt to p{seat + 1}, who folded; folded cards "
                    "are never used again (only the burns are reshuffled for the last card)",
                    field="actions",
                    rule=StudRule.LAST_CARD,
                )
            raise ValueError(f"{step.text!r}: the hand history deals {card} twice")
        yield step, cards


def _seat_order(item: tuple[int | None, tuple[Card, ...]]) -> int:
    return -1 if item[0] is None else item[0]


class _Dealt:
    """Cards the engine dealt that the history has not yet recorded, in dealing order."""

    def __init__(self) -> None:
        self._cards: dict[int | None, list[Card]] = {}

    def add(self, events: Iterable[Event]) -> None:
        for event in events:
            if event.kind == "deal":
                for dealt in event.data["cards"]:
                    self._cards.setdefault(dealt["seat"], []).append(parse_card(dealt["card"]))
            elif event.kind == "common_card":
                self._cards.setdefault(None, []).append(parse_card(event.data["card"]))

    def waiting(self, seat: int) -> tuple[Card, ...]:
        """The cards dealt to ``seat`` that the history has not yet recorded."""
        return tuple(self._cards.get(seat, ()))

    def pending(self) -> str:
        return " ".join(
            f"{'board' if seat is None else phh.player(seat)} {''.join(map(str, cards))}"
            for seat, cards in self._cards.items()
            if cards
        )

    def match(self, step: Step, state: StudState) -> None:
        cards = read_dealt(step.args[0], step.text)
        waiting = self._cards.get(step.receiver, [])
        if len(waiting) < len(cards) or any(
            card not in (None, dealt) for card, dealt in zip(cards, waiting, strict=False)
        ):
            raise RuleViolation(
                f"{step.text!r}: the rules deal {''.join(map(str, waiting)) or 'nothing'} there",
                field="actions",
                rule=_dealing_rule(state),
            )
        del waiting[: len(cards)]


def _dealing_rule(state: StudState) -> str:
    if state.deck.reshuffles:  # the deck ran out: the last card
        return StudRule.LAST_CARD
    return StudRule.THIRD_STREET if state.street == stud.Street.THIRD else StudRule.FOURTH_STREET


def _action(state: StudState, seat: int, step: Step) -> Action:
    legal = {option.kind for option in stud.legal_actions(state)}
    if step.verb == "pb":
        return Action(seat, ActionKind.BRING_IN)
    if step.verb == "cbr" and len(step.args) == 1:
        kind = next((k for k in (ActionKind.COMPLETE, ActionKind.BET) if k in legal), None)
        return Action(seat, kind or ActionKind.RAISE, int(step.args[0]))
    if step.verb == "cc":
        return Action(seat, ActionKind.CHECK if ActionKind.CHECK in legal else ActionKind.CALL)
    if step.verb == "f":
        return Action(seat, ActionKind.FOLD)
    if step.verb == "sm" and not step.args:
        return Action(seat, ActionKind.MUCK)
    if step.verb == "sm":
        if step.args != ("-",) and set(read_cards(step.args[0], step.text)) != set(
            state.hands[seat].cards
        ):
            raise RuleViolation(
                f"{step.text!r}: those are not the player's cards",
                field="actions",
                rule=StudRule.SHOWDOWN_ORDER,
            )
        return Action(seat, ActionKind.SHOW)
    raise ValueError(f"cannot read the action {step.text!r}")
