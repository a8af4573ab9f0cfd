"""Helpers for playing seven-card stud hands in tests: stacked decks, scripted and passive play,
random legal play for property tests, and a card audit of a hand's events."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from games.engine.betting import WAGERS, Action, ActionKind
from games.engine.cards import Card, parse_cards
from games.engine.common import Event
from games.engine.dealer import Deck
from games.engine.stud import Street, StudState, StudTable, apply, legal_actions, start_hand

K = ActionKind
TABLE = StudTable(ante=5, bring_in=10, small_bet=20, big_bet=40)


def stud_deck(third: Sequence[str], *streets: str, tops: Sequence[str] = ()) -> Deck:
    """A deck for ``third`` (per seat "down down door") dealt round by round (ST-2), then each
    street written "burn | cards of the players still in, in seat order"; ``tops`` are the
    cards an ST-9 reshuffle puts on top."""
    hands = [parse_cards(hand) for hand in third]
    order = [hand[n] for n in range(3) for hand in hands]
    for street in streets:
        burn, cards = street.split("|")
        order += parse_cards(burn) + parse_cards(cards)
    return Deck.stacked(order, [parse_cards(top) for top in tops])


def deal(
    third: Sequence[str],
    *streets: str,
    stacks: Sequence[int] | None = None,
    table: StudTable = TABLE,
    tops: Sequence[str] = (),
) -> tuple[StudState, list[Event]]:
    deck = stud_deck(third, *streets, tops=tops)
    return start_hand(table, stacks or [1000] * len(third), deck)


def play(state: StudState, *moves: str) -> tuple[StudState, list[Event]]:
    """Moves written "seat kind [amount]", e.g. "2 raise 60"."""
    events: list[Event] = []
    for move in moves:
        seat, kind, *amount = move.split()
        state, produced = apply(
            state, Action(int(seat), K(kind), int(amount[0]) if amount else None)
        )
        events += produced
    return state, events


def passive(state: StudState, stop: Street | None = None) -> tuple[StudState, list[Event]]:
    """Bring in, then check or call, and show at the showdown, until the betting of street
    ``stop`` begins or the hand is over."""
    events: list[Event] = []
    while state.to_act is not None and state.street != stop:
        kinds = {option.kind for option in legal_actions(state)}
        kind = next(k for k in (K.BRING_IN, K.CHECK, K.CALL, K.SHOW) if k in kinds)
        state, produced = apply(state, Action(state.to_act, kind))
        events += produced
    return state, events


def kinds(events: Sequence[Event]) -> list[str]:
    return [event.kind for event in events]


def of_kind(events: Sequence[Event], kind: str) -> list[Event]:
    return [event for event in events if event.kind == kind]


def audit_cards(events: Sequence[Event]) -> None:
    """ST-9: no card is dealt twice, no card in a live hand is reshuffled and no folded card is
    used again. Follows every card through the hand's events: a card dealt or burnt must be
    neither in a live hand, nor a folded one, nor among the burns; a reshuffle returns exactly
    the burns."""
    live: dict[Card, int | None] = {}
    burns: set[Card] = set()
    folded: set[Card] = set()

    def fresh(text: str) -> Card:
        (card,) = parse_cards(text)
        assert card not in live, f"{card} dealt while in a live hand"
        assert card not in folded, f"{card} dealt again after its player folded"
        assert card not in burns, f"{card} dealt again from the burns"
        return card

    for event in events:
        if event.kind == "deal":
            for dealt in event.data["cards"]:
                live[fresh(dealt["card"])] = dealt["seat"]
        elif event.kind == "common_card":
            live[fresh(event.data["card"])] = None
        elif event.kind == "burn":
            burns.add(fresh(event.data["card"]))
        elif event.kind == "fold":
            hand = {card for card, seat in live.items() if seat == event.data["seat"]}
            folded |= hand
            for card in hand:
                del live[card]
        elif event.kind == "reshuffle":
            returned = set(parse_cards(" ".join(event.data["returned"])))
            assert not returned & set(live), "a live card was reshuffled"
            assert not returned & folded, "a folded card was reshuffled"
            assert returned == burns
            burns.clear()


EVERY_TABLE_SIZE = st.integers(2, 8)  # ST-1


@st.composite
def random_hand(
    draw: st.DrawFn, players: st.SearchStrategy[int] = EVERY_TABLE_SIZE
) -> tuple[StudState, list[Event], list[StudState]]:
    """A whole hand of random legal play: 2 to 8 players (or as ``players`` draws), stacks from
    one chip to deep, a seeded shuffle. Returns the final state, every event and every state on
    the way."""
    seats = draw(players)
    stacks = draw(st.lists(st.sampled_from([1, 7, 26, 60, 150, 1000]), min_size=seats,
                           max_size=seats))  # fmt: skip
    ante = draw(st.sampled_from([0, 5]))
    table = StudTable(ante=ante, bring_in=10, small_bet=20, big_bet=40)
    seed = draw(st.binary(min_size=32, max_size=32)).hex()
    state, events = start_hand(table, stacks, Deck.shuffled(seed, "property", 1))
    states = [state]
    for _ in range(400):
        if state.to_act is None:
            break
        # Fold is drawn a quarter as often as other choices, so more hands reach seventh street.
        options = [o for o in legal_actions(state) for _ in range(1 if o.kind == K.FOLD else 4)]
        option = draw(st.sampled_from(options))
        amount = None
        if option.kind in WAGERS:
            amount = draw(st.integers(option.min_amount, option.max_amount))
        state, produced = apply(state, Action(state.to_act, option.kind, amount))
        events += produced
        states.append(state)
    return state, events, states


def eight_players_one_folds(
    street: Street, tops: Sequence[Sequence[Card]] = ()
) -> tuple[StudState, list[Event], int]:
    """Eight players on the canonical stacked deck (``tops``: what its reshuffle puts on top),
    checking and calling; when the betting of ``street`` begins, the first to act bets and the
    next player folds, the others call. The hand stops when seventh street's betting begins;
    returns its state, its events and the seat that folded."""
    state, events = start_hand(TABLE, [1000] * 8, Deck.stacked([], tops))
    state, played = passive(state, stop=street)
    events += played
    opener = state.betting.order[0]  # the first to act as the round opens
    folder = (opener + 1) % 8
    wager = "bring_in" if street == Street.THIRD else "bet 40"
    moves = [f"{opener} {wager}", f"{folder} fold"]
    moves += [f"{(folder + n) % 8} call" for n in range(1, 7)]
    state, played = play(state, *moves)
    events += played
    state, played = passive(state, stop=Street.SEVENTH)
    return state, events + played, folder
