"""Drawmaha, pot limit: a scenario on a stacked deck for every rule DM-1..DM-12, and random legal
hands as a property test (chips conserved, no card dealt twice, every hand ends, JSON)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.betting import WAGERS, Action, ActionKind, LegalAction, Rake
from games.engine.cards import Card, parse_cards
from games.engine.common import Event, RuleViolation
from games.engine.dealer import Deck
from games.engine.drawmaha import (
    DrawAction,
    DrawChoice,
    DrawmahaState,
    DrawmahaTable,
    DrawOption,
    Street,
    apply,
    from_json,
    legal_actions,
    start_hand,
    to_json,
)
from games.engine.fairness import Shoe

K = ActionKind
D = DrawChoice
TABLE = DrawmahaTable(small_blind=5, big_blind=10)
SEED = "00" * 31 + "2a"


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


def stacked(hands: Sequence[str], button: int, *rest: str, tops: Sequence[str] = ()) -> Deck:
    """A deck for ``hands`` (by seat) dealt one card at a time from the small blind (DM-2),
    then ``rest`` in dealing order (flop, the draw's cards, turn, river); ``tops`` are the cards
    each DM-7 reshuffle puts on top."""
    parsed = [parse_cards(hand) for hand in hands]
    players = len(parsed)
    small = button if players == 2 else (button + 1) % players
    order = [parsed[(small + k) % players][n] for n in range(5) for k in range(players)]
    for text in rest:
        order += parse_cards(text)
    return Deck.stacked(order, [parse_cards(top) for top in tops])


def deal(
    hands: Sequence[str],
    *rest: str,
    button: int = 0,
    stacks: Sequence[int] | None = None,
    table: DrawmahaTable = TABLE,
    tops: Sequence[str] = (),
) -> tuple[DrawmahaState, list[Event]]:
    deck = stacked(hands, button, *rest, tops=tops)
    return start_hand(table, stacks or [1000] * len(hands), button, deck)


def play(state: DrawmahaState, *moves: str) -> tuple[DrawmahaState, list[Event]]:
    """Moves written "seat kind [amount]" for bets ("2 raise 60"), "seat exchange [cards]" for
    the draw ("1 exchange 2c 7d"; none: stand pat), "seat take" or "seat reject" (DM-6)."""
    events: list[Event] = []
    for move in moves:
        seat, kind, *rest = move.split()
        action: Action | DrawAction
        if kind in D.__members__.values():
            action = DrawAction(int(seat), D(kind), cards(" ".join(rest)))
        else:
            action = Action(int(seat), K(kind), int(rest[0]) if rest else None)
        state, produced = apply(state, action)
        events += produced
    return state, events


def passive(state: DrawmahaState, stop: Street | None = None) -> tuple[DrawmahaState, list[Event]]:
    """Check or call, stand pat in the draw, until street ``stop`` or the end of the hand."""
    events: list[Event] = []
    while state.to_act is not None and state.street != stop:
        if state.street == Street.DRAW:
            action: Action | DrawAction = DrawAction(state.to_act, D.EXCHANGE)
        else:
            kinds = {option.kind for option in legal_actions(state)}
            action = Action(state.to_act, next(k for k in (K.CHECK, K.CALL) if k in kinds))
        state, produced = apply(state, action)
        events += produced
    return state, events


def kinds(events: Sequence[Event]) -> list[str]:
    return [event.kind for event in events]


def of_kind(events: Sequence[Event], kind: str) -> list[Event]:
    return [event for event in events if event.kind == kind]


def options(state: DrawmahaState) -> dict[str, tuple[int, int]]:
    return {
        o.kind.value: (o.min_amount, o.max_amount)
        for o in legal_actions(state)
        if isinstance(o, LegalAction)
    }


def shares(events: Sequence[Event]) -> list[tuple[int, str, dict[str, int]]]:
    return [
        (e.data["pot"], e.data["part"], e.data["shares"]) for e in of_kind(events, "pot_awarded")
    ]


def audit_cards(events: Sequence[Event]) -> None:
    """DM-7: no card is dealt twice, and a reshuffle returns exactly the muck: folded hands and
    the discards and rejected twist cards of players who have their replacements; never a card
    in a hand, on the board, or set aside by a player still waiting."""
    live: dict[Card, int | None] = {}
    waiting: dict[int, set[Card]] = {}
    shown: set[Card] = set()
    muck: set[Card] = set()

    def fresh(text: str) -> Card:
        (card,) = parse_cards(text)
        assert card not in live, f"{card} dealt while in a hand or on the board"
        assert card not in muck, f"{card} dealt from the muck without a reshuffle"
        assert not any(card in aside for aside in waiting.values()), f"{card} dealt from a draw"
        assert card not in shown, f"{card} dealt twice"
        return card

    def give(seat: int, texts: Sequence[str]) -> None:
        for text in texts:
            live[fresh(text)] = seat

    for event in events:
        data = event.data
        if event.kind == "deal":
            for dealt in data["cards"]:
                give(dealt["seat"], [dealt["card"]])
        elif event.kind == "board":
            for dealt in data["cards"]:
                live[fresh(dealt["card"])] = None
        elif event.kind == "fold":
            folded = {card for card, seat in live.items() if seat == data["seat"]}
            muck |= folded
            for card in folded:
                del live[card]
        elif event.kind == "exchange":
            aside = set(cards(" ".join(data["discards"])))
            assert all(live.get(card) == data["seat"] for card in aside)
            for card in aside:
                del live[card]
            waiting[data["seat"]] = aside
        elif event.kind == "twist_shown":
            shown.add(fresh(data["card"]))
        elif event.kind == "twist_rejected":
            (card,) = parse_cards(data["card"])
            shown.discard(card)
            waiting[data["seat"]].add(card)
        elif event.kind in ("twist_taken", "replacements"):
            if event.kind == "twist_taken":
                (card,) = parse_cards(data["card"])
                shown.discard(card)
                live[card] = data["seat"]
            else:
                give(data["seat"], [dealt["card"] for dealt in data["cards"]])
            muck |= waiting.pop(data["seat"])
        elif event.kind == "reshuffle":
            returned = cards(" ".join(data["returned"]))
            assert len(set(returned)) == len(returned)
            assert not set(returned) & set(live), "a card in a hand or on the board was reshuffled"
            assert not any(set(returned) & aside for aside in waiting.values())
            assert set(returned) == muck
            muck.clear()


# DM-1 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [1, 8])
def test_dm1_two_to_seven_players(players):
    with pytest.raises(RuleViolation, match="2 to 7") as refused:
        start_hand(TABLE, [1000] * players, 0, Deck.stacked([]))
    assert refused.value.rule == "DM-1"


@pytest.mark.parametrize(
    ("blinds", "button", "stacks"),
    [((10, 5), 0, [1000, 1000]), ((0, 10), 0, [1000, 1000]), ((5, 10), 2, [1000, 1000]),
     ((5, 10), 0, [1000, 0])],
)  # fmt: skip
def test_dm1_blinds_button_and_stacks(blinds, button, stacks):
    with pytest.raises(RuleViolation) as refused:
        start_hand(DrawmahaTable(*blinds), stacks, button, Deck.stacked([]))
    assert refused.value.rule == "DM-1"


def test_dm1_blinds_left_of_the_button():
    """Button 1 of three: seat 2 posts the small blind, seat 0 the big; seat 1 acts first."""
    state, events = deal(["2c 3c 4c 5c 6c", "2d 3d 4d 5d 6d", "2h 3h 4h 5h 6h"], button=1)
    assert [(e.kind, e.data) for e in events[:2]] == [
        ("small_blind", {"seat": 2, "amount": 5, "all_in": False}),
        ("big_blind", {"seat": 0, "amount": 10, "all_in": False}),
    ]
    assert state.to_act == 1


def test_dm1_heads_up_the_button_posts_the_small_blind_and_acts_first_before_the_flop():
    """Heads-up, button seat 1: it posts the small blind, acts first before the flop and last
    after it (DM-4)."""
    state, events = deal(["2c 3c 4c 5c 6c", "2d 3d 4d 5d 6d"], "7h 8h 9h", button=1)
    assert [e.data["seat"] for e in events[:2]] == [1, 0]
    assert [e.kind for e in events[:2]] == ["small_blind", "big_blind"]
    assert state.to_act == 1
    state, _ = play(state, "1 call", "0 check")
    assert state.street == Street.FLOP
    assert state.to_act == 0
    state, _ = play(state, "0 check")
    assert state.to_act == 1


# DM-2 ------------------------------------------------------------------------------------------


def test_dm2_five_cards_one_at_a_time_from_the_small_blind_before_the_flop():
    state, events = deal(["2c 3c 4c 5c 6c", "2d 3d 4d 5d 6d", "2h 3h 4h 5h 6h"], button=0)
    assert state.hands == (cards("2c 3c 4c 5c 6c"), cards("2d 3d 4d 5d 6d"),
                           cards("2h 3h 4h 5h 6h"))  # fmt: skip
    (dealt,) = of_kind(events, "deal")
    assert [(c["seat"], c["card"], c["position"]) for c in dealt.data["cards"][:6]] == [
        (1, "2d", 0), (2, "2h", 1), (0, "2c", 2), (1, "3d", 3), (2, "3h", 4), (0, "3c", 5),
    ]  # fmt: skip
    assert state.board == ()
    assert kinds(events) == ["small_blind", "big_blind", "deal"]


# DM-3, DM-4 ------------------------------------------------------------------------------------

FOUR = ["2c 3c 4c 5c 6c", "2d 3d 4d 5d 6d", "2h 3h 4h 5h 6h", "2s 3s 4s 5s 6s"]


def test_dm3_first_round_from_the_player_left_of_the_big_blind():
    state, _ = deal(FOUR, button=0)
    assert state.to_act == 3
    assert state.betting.turn_rule == "DM-3"


def test_dm4_flop_without_a_burn_then_first_active_left_of_the_button():
    """Four players, button 0; the small blind (seat 1) folds, so the big blind opens the flop
    betting. The flop is the next three cards: no burn card."""
    state, _ = deal(FOUR, "7c 7d 7h", button=0)
    state, events = play(state, "3 call", "0 call", "1 fold", "2 check")
    assert state.street == Street.FLOP
    assert state.board == cards("7c 7d 7h")
    (board,) = of_kind(events, "board")
    assert board.data == {"street": "flop", "cards": [
        {"card": "7c", "shuffle": 0, "position": 20},
        {"card": "7d", "shuffle": 0, "position": 21},
        {"card": "7h", "shuffle": 0, "position": 22},
    ]}  # fmt: skip
    assert "burn" not in kinds(events)
    assert state.to_act == 2
    assert state.betting.turn_rule == "DM-4"


# DM-5 ------------------------------------------------------------------------------------------


def to_draw(state: DrawmahaState) -> DrawmahaState:
    state, _ = passive(state, stop=Street.DRAW)
    assert state.street == Street.DRAW
    return state


def test_dm5_declarations_in_betting_order_then_replacements_in_the_same_order():
    """Seat 1 folded; the draw goes 2, 3, 0 (button last). Nothing is dealt until every player
    has declared; then seat 2 gets two cards and seat 0 three, in that order."""
    state, _ = deal(FOUR, "7c 7d 7h", "8c 8d 9c 9d 9h", "Tc Td", button=0)
    state, events = play(state, "3 call", "0 call", "1 fold", "2 check", "2 check", "3 check",
                         "0 check")  # fmt: skip
    assert state.street == Street.DRAW
    assert of_kind(events, "draw")[0].data == {"order": [2, 3, 0], "max_cards": 5}
    assert legal_actions(state) == (DrawOption(D.EXCHANGE, max_cards=5),)
    state, events = play(state, "2 exchange 2h 3h", "3 exchange")
    assert "replacements" not in kinds(events)
    assert state.hands[2] == cards("4h 5h 6h")
    with pytest.raises(RuleViolation, match="seat 0 decides now") as refused:
        play(state, "2 exchange 4h")  # a declaration cannot be changed
    assert refused.value.rule == "DM-5"
    state, events = play(state, "0 exchange 2c 3c 4c")
    assert [(e.kind, e.data.get("count")) for e in events[:1]] == [("exchange", 3)]
    assert [
        (e.data["seat"], [(c["card"], c["position"]) for c in e.data["cards"]])
        for e in of_kind(events, "replacements")
    ] == [(2, [("8c", 23), ("8d", 24)]), (0, [("9c", 25), ("9d", 26), ("9h", 27)])]
    assert state.hands[2] == cards("4h 5h 6h 8c 8d")
    assert state.hands[0] == cards("5c 6c 9c 9d 9h")
    assert state.hands[3] == cards(FOUR[3])
    # One draw only: the turn comes and betting starts again.
    assert state.street == Street.TURN
    with pytest.raises(RuleViolation, match="after the betting") as refused:
        play(state, "2 exchange 8c")
    assert refused.value.rule == "DM-5"


def test_dm5_refused_declarations():
    state = to_draw(deal(FOUR, button=0)[0])
    assert state.to_act == 1
    for move, message in (
        ("1 exchange 2c", "own hand"),
        ("1 check", "no betting during the draw"),
        ("1 take", "declare an exchange now"),
    ):
        with pytest.raises(RuleViolation, match=message) as refused:
            play(state, move)
        assert refused.value.rule == "DM-5"
    with pytest.raises(RuleViolation, match="own hand"):
        apply(state, DrawAction(1, D.EXCHANGE, cards("2d") * 2))


def hands_dealt_to(players: int, table: DrawmahaTable = TABLE) -> tuple[DrawmahaState, list[Event]]:
    """A canonical deck's hand for ``players``, checked and called to the draw."""
    state, events = start_hand(table, [1000] * players, 0, Deck.stacked([]))
    state, played = passive(state, stop=Street.DRAW)
    return state, events + played


@pytest.mark.parametrize("players", [6, 7])
def test_dm5_at_most_three_cards_with_six_or_seven_players(players):
    state, _ = hands_dealt_to(players)
    seat = state.to_act
    assert legal_actions(state) == (DrawOption(D.EXCHANGE, max_cards=3),)
    four = " ".join(str(card) for card in state.hands[seat][:4])
    with pytest.raises(RuleViolation, match="at most 3") as refused:
        play(state, f"{seat} exchange {four}")
    assert refused.value.rule == "DM-5"
    three = " ".join(str(card) for card in state.hands[seat][:3])
    state, events = play(state, f"{seat} exchange {three}")
    assert of_kind(events, "exchange")[0].data["count"] == 3


def test_dm5_five_players_may_exchange_all_five():
    state, _ = hands_dealt_to(5)
    seat = state.to_act
    assert legal_actions(state) == (DrawOption(D.EXCHANGE, max_cards=5),)
    state, events = play(state, f"{seat} exchange {' '.join(map(str, state.hands[seat]))}")
    assert of_kind(events, "exchange")[0].data["count"] == 5


def test_dm5_the_draw_limit_is_a_table_setting():
    state, _ = hands_dealt_to(7, DrawmahaTable(5, 10, draw_limit=False))
    assert legal_actions(state) == (DrawOption(D.EXCHANGE, max_cards=5),)


# DM-6 ------------------------------------------------------------------------------------------

HEADS_UP = ["2c 3c 4c 5c 6c", "2d 3d 4d 5d 6d"]
TWIST = ("7c 7d 7h", "Ks Qs Js Ts")


def test_dm6_a_one_card_exchange_is_shown_the_top_card_and_takes_it():
    """Heads-up, button 0: seat 1 draws first. Its one-card exchange turns up the Ks for all to
    see; seat 0 gets nothing until seat 1 decides."""
    state = to_draw(deal(HEADS_UP, *TWIST, button=0)[0])
    state, events = play(state, "1 exchange 2d", "0 exchange 2c 3c")
    assert of_kind(events, "twist_shown")[0].data == {
        "seat": 1, "card": "Ks", "shuffle": 0, "position": 13,
    }  # fmt: skip
    assert "replacements" not in kinds(events)
    assert state.to_act == 1
    assert legal_actions(state) == (
        DrawOption(D.TAKE, card=cards("Ks")[0]),
        DrawOption(D.REJECT, card=cards("Ks")[0]),
    )
    with pytest.raises(RuleViolation, match="take or reject") as refused:
        play(state, "1 exchange 3d")
    assert refused.value.rule == "DM-6"
    state, events = play(state, "1 take")
    assert of_kind(events, "twist_taken")[0].data == {"seat": 1, "card": "Ks"}
    assert state.hands[1] == cards("3d 4d 5d 6d Ks")
    assert state.hands[0] == cards("4c 5c 6c Qs Js")
    assert state.board == cards("7c 7d 7h Ts")


def test_dm6_a_rejected_twist_card_goes_to_the_muck_and_the_next_card_comes_face_down():
    state = to_draw(deal(HEADS_UP, *TWIST, button=0)[0])
    state, events = play(state, "1 exchange 2d", "0 exchange 2c 3c", "1 reject")
    assert of_kind(events, "twist_rejected")[0].data == {"seat": 1, "card": "Ks"}
    first = of_kind(events, "replacements")[0].data
    assert first == {"seat": 1, "cards": [{"seat": 1, "card": "Qs", "shuffle": 0, "position": 14}]}
    assert state.hands[1] == cards("3d 4d 5d 6d Qs")
    assert state.hands[0] == cards("4c 5c 6c Js Ts")
    assert set(cards("Ks 2d 2c 3c")) == set(state.muck)


# DM-7 ------------------------------------------------------------------------------------------

NO_LIMIT = DrawmahaTable(5, 10, draw_limit=False)


def exchange(state: DrawmahaState, seat: int, count: int) -> str:
    return f"{seat} exchange {' '.join(map(str, state.hands[seat][:count]))}"


def test_dm7_the_muck_is_reshuffled_without_the_waiting_players_discards():
    """Seven players, no draw limit, seat 3 folds before the flop: 14 cards are left. Seat 1
    rejects its twist card (2 cards), seats 2 and 4 take five each, so seat 5 gets the last two
    and the deck runs out. The muck then is seat 3's hand, seat 1's discard and rejected card,
    and seats 2 and 4's discards: seat 5's own discards and those of seats 6 and 0, still
    waiting, stay out, as do the board and every hand. The reshuffle puts seat 1's rejected
    card on top: seat 5 gets it."""

    def to_the_draw(deck: Deck) -> tuple[DrawmahaState, list[Event]]:
        state, events = start_hand(NO_LIMIT, [1000] * 7, 0, deck)
        state, folded = play(state, "3 fold")
        state, checked = passive(state, stop=Street.DRAW)
        return state, events + folded + checked

    state, _ = to_the_draw(Deck.stacked([]))
    rejected = state.deck.order[state.deck.dealt]  # the top card: seat 1's twist card
    state, events = to_the_draw(Deck.stacked([], [[rejected]]))
    assert state.draw_order == (1, 2, 4, 5, 6, 0)
    assert state.deck.remaining == 14
    folded = state.hands[3]
    counts = {1: 1, 2: 5, 4: 5, 5: 5, 6: 3, 0: 2}
    aside = {seat: state.hands[seat][:count] for seat, count in counts.items()}
    declarations = [exchange(state, seat, counts[seat]) for seat in state.draw_order]
    state, played = play(state, *declarations, "1 reject")
    events += played
    assert state.street == Street.TURN
    audit_cards(events)
    (reshuffle,) = of_kind(events, "reshuffle")
    returned = set(cards(" ".join(reshuffle.data["returned"])))
    assert returned == {*folded, *aside[1], rejected, *aside[2], *aside[4]}
    assert not returned & {*aside[5], *aside[6], *aside[0]}
    assert not returned & set(state.board[:3])
    assert reshuffle.data["shuffle"] == 1
    fifth = of_kind(events, "replacements")[3].data
    assert fifth["seat"] == 5
    assert [(c["shuffle"], c["position"]) for c in fifth["cards"]] == [
        (0, 50), (0, 51), (1, 0), (1, 1), (1, 2),
    ]  # fmt: skip
    assert fifth["cards"][2]["card"] == str(rejected)
    # The turn comes off the new deck; no card is anywhere twice.
    assert of_kind(events, "board")[-1].data["cards"][0]["shuffle"] == 1
    held = [card for seat in state.in_hand for card in state.hands[seat]] + list(state.board)
    assert len(held) == len(set(held)) == 6 * 5 + 4


def test_dm7_a_twist_rejected_on_the_last_card_is_not_reshuffled_for_its_player():
    """Seven players, no folds: seats 1, 2 and 3 take 5, 5 and 3 cards, leaving one, shown to
    seat 4 as its twist card. Seat 4 rejects it: the deck is empty, so the muck (the 13 discards
    of seats 1 to 3) is reshuffled, without seat 4's discard or the card it just refused."""
    state, events = hands_dealt_to(7, NO_LIMIT)
    counts = {1: 5, 2: 5, 3: 3, 4: 1, 5: 0, 6: 0, 0: 0}
    aside4 = state.hands[4][0]
    state, played = play(state, *(exchange(state, seat, counts[seat]) for seat in state.draw_order))
    events += played
    twist = of_kind(events, "twist_shown")[0].data
    assert (twist["seat"], twist["position"]) == (4, 51)
    assert state.deck.remaining == 0
    state, played = play(state, "4 reject")
    events += played
    audit_cards(events)
    (reshuffle,) = of_kind(events, "reshuffle")
    returned = set(cards(" ".join(reshuffle.data["returned"])))
    assert len(returned) == 13
    assert not returned & set(cards(f"{twist['card']} {aside4}"))
    assert of_kind(events, "replacements")[-1].data["cards"][0]["shuffle"] == 1
    # Seat 4 has its card: now its discard and the card it refused are in the muck.
    assert state.muck == cards(f"{aside4} {twist['card']}")


def test_dm7_reshuffle_from_the_shoe_continues_the_byte_stream():
    """FS-6: on a seeded deck the cards after the reshuffle are those a Shoe gives when it deals
    the 52 and reshuffles the returned cards (FS-7 audit)."""
    state, events = start_hand(NO_LIMIT, [1000] * 7, 3, Deck.shuffled(SEED, "audit", 9))
    state, played = passive(state, stop=Street.DRAW)
    events += played
    state, played = play(state, *(exchange(state, seat, 5) for seat in state.draw_order))
    events += played
    audit_cards(events)
    reshuffle = of_kind(events, "reshuffle")[0]
    shoe = Shoe(SEED, "audit", 9)
    shoe.deal(52)
    shoe.reshuffle(cards(" ".join(reshuffle.data["returned"])))
    after = [
        c for e in of_kind(events, "replacements") for c in e.data["cards"] if c["shuffle"] == 1
    ]
    assert [c["position"] for c in after] == list(range(len(after)))
    assert cards(" ".join(c["card"] for c in after)) == tuple(shoe.deal(len(after)))


def test_dm7_without_the_draw_limit_the_deck_runs_out_three_times():
    """Seven players all exchange five: 35 cards wanted, 14 left after the flop. Each time the
    deck runs out the player served has four of five cards; the new deck is the muck since the
    last reshuffle (the two players served in full), ten cards: the player's fifth, then the
    next two players' ten, and so on. The third deck serves the button and the turn and river."""
    state, events = hands_dealt_to(7, NO_LIMIT)
    order = state.draw_order
    aside = {seat: state.hands[seat] for seat in order}
    state, played = play(state, *(exchange(state, seat, 5) for seat in order))
    events += played
    assert state.street == Street.TURN
    audit_cards(events)
    reshuffles = of_kind(events, "reshuffle")
    returned = [set(cards(" ".join(r.data["returned"]))) for r in reshuffles]
    served = [{*aside[order[n]], *aside[order[n + 1]]} for n in (0, 2, 4)]
    assert returned == served
    assert [r.data["shuffle"] for r in reshuffles] == [1, 2, 3]
    # Who got which card from which deck: four from the old deck, one from the new.
    frames = {
        e.data["seat"]: [c["shuffle"] for c in e.data["cards"]]
        for e in of_kind(events, "replacements")
    }
    assert [frames[seat] for seat in order] == [
        [0] * 5, [0] * 5, [0] * 4 + [1], [1] * 5, [1] * 4 + [2], [2] * 5, [2] * 4 + [3],
    ]  # fmt: skip
    assert state.deck.remaining == 10 - 1 - 1
    state, played = passive(state)
    assert [c["shuffle"] for e in of_kind(played, "board") for c in e.data["cards"]] == [3]
    held = [card for seat in state.in_hand for card in state.hands[seat]] + list(state.board)
    assert len(held) == len(set(held)) == 7 * 5 + 5


@st.composite
def limited_draws(draw: st.DrawFn) -> tuple[int, list[bool], list[tuple[int, bool]]]:
    """Six or seven players with the draw limit on: who folds before the flop (in turn), and
    each remaining player's exchange count and twist answer."""
    players = draw(st.integers(6, 7))
    folds = draw(st.lists(st.booleans(), min_size=players - 2, max_size=players - 2))
    counts = draw(st.lists(st.tuples(st.integers(0, 3), st.booleans()), min_size=players,
                           max_size=players))  # fmt: skip
    return players, folds, counts


@settings(max_examples=60, deadline=None)
@given(limited_draws())
def test_dm7_with_the_draw_limit_the_deck_runs_out_once_at_most(plan):
    """The module's deck arithmetic: six or seven players, three cards each at most, any folds
    and twists: one reshuffle in the whole hand at most, of the muck only."""
    players, folds, counts = plan
    state, events = start_hand(TABLE, [1000] * players, 0, Deck.stacked([]))
    for folding in folds:
        kind = "fold" if folding else next(k for k in ("call", "check") if k in options(state))
        state, played = play(state, f"{state.to_act} {kind}")
        events += played
    state, played = passive(state, stop=Street.DRAW)
    events += played
    wants = dict(zip(state.draw_order, counts, strict=False))
    while state.street == Street.DRAW:
        seat = state.to_act
        count, takes = wants[seat]
        if {o.kind for o in legal_actions(state)} == {D.EXCHANGE}:
            state, played = play(state, exchange(state, seat, count))
        else:
            state, played = play(state, f"{seat} {'take' if takes else 'reject'}")
        events += played
    state, played = passive(state)
    events += played
    assert state.street == Street.OVER
    audit_cards(events)
    assert len(of_kind(events, "reshuffle")) <= 1


@pytest.mark.parametrize(("count", "answer", "street"), [(3, "", "draw"), (1, "reject", "turn")])
def test_dm7_seven_players_at_the_draw_limit_reshuffle_once(count, answer, street):
    """The most seven players can take with the limit: three cards each (21 of 14, then the
    deck of 12 discards serves the rest, the turn and the river), or a rejected twist each
    (14 cards: the draw empties the deck, the turn comes from the reshuffled muck, DM-8)."""
    state, events = hands_dealt_to(7)
    moves = [exchange(state, seat, count) for seat in state.draw_order]
    moves += [f"{seat} {answer}" for seat in state.draw_order if answer]
    state, played = play(state, *moves)
    events += played
    state, played = passive(state)
    events += played
    audit_cards(events)
    (reshuffle,) = of_kind(events, "reshuffle")
    after = kinds(events)[kinds(events).index("reshuffle") + 1]
    assert after == ("replacements" if street == "draw" else "board")
    assert len(reshuffle.data["returned"]) == (12 if street == "draw" else 14)


# DM-8 ------------------------------------------------------------------------------------------


def test_dm8_turn_and_river_one_card_up_each_betting_from_left_of_the_button():
    state, _ = deal(FOUR, "7c 7d 7h", "Tc Td", button=0)
    state, _ = play(state, "3 call", "0 call", "1 fold", "2 check")
    state, events = passive(state, stop=Street.TURN)
    assert of_kind(events, "board")[-1].data == {
        "street": "turn", "cards": [{"card": "Tc", "shuffle": 0, "position": 23}],
    }  # fmt: skip
    assert (state.to_act, state.betting.turn_rule) == (2, "DM-8")
    state, events = play(state, "2 check", "3 check", "0 check")
    assert of_kind(events, "board")[-1].data["cards"] == [
        {"card": "Td", "shuffle": 0, "position": 24}
    ]
    assert state.street == Street.RIVER
    assert state.board == cards("7c 7d 7h Tc Td")
    assert (state.to_act, state.betting.turn_rule) == (2, "DM-8")


# DM-9 ------------------------------------------------------------------------------------------


def test_dm9_pot_sized_raises():
    """Blinds 5/10, three players: the first raise goes to 35 (call 10 into 15, pot 25 more);
    the small blind, 5 in, calls 30 into a pot of 50 and may raise to 35 + 50 + 30 = 115, at
    least by the last raise (25): to 60. The big blind then: 115 + 160 + 105 = 380."""
    state, _ = deal(["2c 3c 4c 5c 6c", "2d 3d 4d 5d 6d", "2h 3h 4h 5h 6h"], "7c 7d 7h")
    assert options(state) == {"fold": (0, 0), "call": (10, 10), "raise": (20, 35)}
    state, _ = play(state, "0 raise 35")
    assert options(state) == {"fold": (0, 0), "call": (35, 35), "raise": (60, 115)}
    with pytest.raises(RuleViolation, match="60 to 115") as refused:
        play(state, "1 raise 116")
    assert refused.value.rule == "DM-9"
    state, _ = play(state, "1 raise 115")
    assert options(state)["raise"] == (195, 380)  # at least the last raise, 80
    state, _ = play(state, "2 call", "0 call")
    # On the flop the least bet is the big blind, the most the pot (345).
    assert options(state) == {"check": (0, 0), "bet": (10, 345)}


# DM-10 -----------------------------------------------------------------------------------------


def test_dm10_the_last_player_takes_the_pot_at_once_without_showing():
    state, _ = deal(["2c 3c 4c 5c 6c", "2d 3d 4d 5d 6d", "2h 3h 4h 5h 6h"])
    state, events = play(state, "0 fold", "1 fold")
    assert state.street == Street.OVER
    assert of_kind(events, "uncalled_bet_returned")[0].data == {"seat": 2, "amount": 5}
    assert shares(events) == [(0, "whole", {"2": 10})]
    assert "show" not in kinds(events)
    assert state.finishing_stacks == (1000, 995, 1005)
    assert legal_actions(state) == ()
    with pytest.raises(RuleViolation, match="over"):
        play(state, "2 check")


def test_dm10_a_fold_after_the_draw_ends_the_hand():
    state, _ = deal(HEADS_UP, *TWIST, button=0)
    state, _ = passive(state, stop=Street.TURN)
    state, events = play(state, "1 bet 20", "0 fold")
    assert shares(events) == [(0, "whole", {"1": 20})]
    assert state.finishing_stacks == (990, 1010)


# DM-11 -----------------------------------------------------------------------------------------

FULL_HOUSE = "As Ad Ac Kd Kc"


def test_dm11_the_draw_half_and_the_omaha_half_go_to_different_players():
    """Seat 0's aces full is the best five cards; seat 1's 5h 6h with the 2h 3h 4h on the board
    is a straight flush, the best Omaha hand."""
    state, _ = deal([FULL_HOUSE, "5h 6h Qc Jd Td"], "2h 3h 4h", "9s 8s")
    state, events = passive(state)
    assert [(e.data["seat"], e.data["draw_hand"], e.data["omaha_hand"])
            for e in of_kind(events, "show")] == [
        (1, "Queen high", "Straight flush, Six high"),
        (0, "Full house, Aces full of Kings", "Pair of Aces"),
    ]  # fmt: skip
    assert [(e.data["part"], e.data["amount"], e.data["shares"], e.data["hand"])
            for e in of_kind(events, "pot_awarded")] == [
        ("draw", 10, {"0": 10}, "Full house, Aces full of Kings"),
        ("omaha", 10, {"1": 10}, "Straight flush, Six high"),
    ]  # fmt: skip
    assert state.finishing_stacks == (1000, 1000)


def test_dm11_one_player_wins_both_halves():
    state, _ = deal([FULL_HOUSE, "2c 3d Qc Jd 4d"], "Kh 7h 2s", "9s 8c")
    state, events = passive(state)
    assert shares(events) == [(0, "draw", {"0": 10}), (0, "omaha", {"0": 10})]
    assert state.finishing_stacks == (1010, 990)


def test_dm11_tied_halves_odd_units_to_the_draw_half_and_nearest_the_buttons_left():
    """Button 0; the small blind folds, leaving a pot of 25: 13 for the draw half, 12 for the
    Omaha half. Seats 0 and 2 hold the same ranks and tie both halves; seat 2 is nearer the
    button's left (seat 1 folded), so it gets the draw half's odd unit: 7 and 6."""
    state, _ = deal(["Ac Kc Qd Jd 9h", "2s 3s 4c 5d 7c", "Ad Kd Qh Jh 9s"], "Ts 6h 8c", "Kh 3c")
    state, _ = play(state, "0 call", "1 fold", "2 check")
    state, events = passive(state)
    assert shares(events) == [
        (0, "draw", {"0": 6, "2": 7}),
        (0, "omaha", {"0": 6, "2": 6}),
    ]
    assert state.finishing_stacks == (1002, 995, 1003)


def test_dm11_a_pot_split_four_ways_in_each_half_with_the_odd_units():
    """Button 0, blinds 5/10; the small blind (seat 1) folds, leaving 45: 23 for the draw half,
    22 for the Omaha half. Seats 0, 2, 3 and 4 hold A-K-Q-J-9 in mixed suits and tie both
    halves; odd units go clockwise from the button's left (2, 3, 4, then 0): 6/6/6/5 and
    6/6/5/5."""
    tied = ["Ac Kd Qh Js 9c", "Ad Kh Qs Jc 9d", "Ah Ks Qc Jd 9h", "As Kc Qd Jh 9s"]
    hands = [tied[0], "2s 3s 5c 8d Tc", *tied[1:]]
    state, _ = deal(hands, "2c 3d 4h", "6d 7s")
    state, _ = play(state, "3 call", "4 call", "0 call", "1 fold", "2 check")
    state, events = passive(state)
    assert shares(events) == [
        (0, "draw", {"2": 6, "3": 6, "4": 6, "0": 5}),
        (0, "omaha", {"2": 6, "3": 6, "4": 5, "0": 5}),
    ]
    assert sum(state.finishing_stacks) == 5 * 1000


# DM-12 -----------------------------------------------------------------------------------------

SIDE_POT = (["As Ad Ac Kd Kc", "5h 6h 8d 9c Tc", "Qs Qd Qc 7d 2c"], "2h 3h 4h", "Js Jd")
SIDE_POT_PLAY = ("0 raise 25", "1 call", "2 call", "1 bet 40", "2 call")


def test_dm12_side_pots_are_each_halved_among_their_players():
    """Seat 0 is all in for 25: the main pot (75) halves 38 draw / 37 Omaha among all three; the
    side pot (80) 40 / 40 between seats 1 and 2. Seat 0's aces full take the main draw half,
    seat 2's queens the side draw half; seat 1's straight flush both Omaha halves."""
    state, _ = deal(*SIDE_POT, stacks=[25, 1000, 1000])
    state, events = play(state, *SIDE_POT_PLAY)
    state, played = passive(state)
    events += played
    assert [(e.data["pot"], e.data["part"], e.data["amount"], e.data["eligible"],
             e.data["shares"]) for e in of_kind(events, "pot_awarded")] == [
        (0, "draw", 38, [0, 1, 2], {"0": 38}),
        (0, "omaha", 37, [0, 1, 2], {"1": 37}),
        (1, "draw", 40, [1, 2], {"2": 40}),
        (1, "omaha", 40, [1, 2], {"1": 40}),
    ]  # fmt: skip
    assert state.finishing_stacks == (38, 1012, 975)


RAKED = DrawmahaTable(5, 10, rake=Rake(Decimal(10), cap=5))


def test_dm12_rake_cap_is_per_hand_over_all_its_pots():
    """DM-12 as ST-13 (its Decision): 10% capped at 5 a hand. The main pot (75) would give 7
    and gives the whole cap, 5; the side pot (80) gives nothing (capped pot by pot it gave 5
    more). Then each pot is halved (70: 35 / 35, 80: 40 / 40)."""
    state, _ = deal(*SIDE_POT, stacks=[25, 1000, 1000], table=RAKED)
    state, events = play(state, *SIDE_POT_PLAY)
    state, played = passive(state)
    events += played
    assert [e.data for e in of_kind(events, "rake")] == [{"pot": 0, "amount": 5}]
    assert shares(events) == [
        (0, "draw", {"0": 35}), (0, "omaha", {"1": 35}),
        (1, "draw", {"2": 40}), (1, "omaha", {"1": 40}),
    ]  # fmt: skip
    assert [result.rake for result in state.results] == [5, 0]
    assert state.rake == 5 == RAKED.rake.cap
    assert sum(state.finishing_stacks) + state.rake == 2025


def test_dm12_no_rake_on_an_uncalled_bet():
    """The raise to 30 nobody calls: 20 goes back first, the pot of 20 gives a rake of 2."""
    state, _ = deal(HEADS_UP, table=RAKED)
    state, events = play(state, "0 raise 30", "1 fold")
    assert kinds(events)[-4:] == ["uncalled_bet_returned", "rake", "pot_awarded", "hand_over"]
    assert of_kind(events, "rake")[0].data == {"pot": 0, "amount": 2}
    assert state.finishing_stacks == (1008, 990)


# JSON and the property test --------------------------------------------------------------------


def test_json_round_trip_through_a_draw_with_a_twist():
    state, _ = deal(HEADS_UP, *TWIST, button=0, table=RAKED)
    snapshots = [state]
    moves = ("0 raise 30", "1 call", "1 check", "0 check", "1 exchange 2d", "0 exchange 2c 3c",
             "1 reject", "1 bet 20", "0 call", "1 check", "0 check")  # fmt: skip
    for move in moves:
        state, _ = play(state, move)
        snapshots.append(state)
    assert state.street == Street.OVER
    for snapshot in snapshots:
        assert from_json(json.loads(json.dumps(to_json(snapshot)))) == snapshot


@st.composite
def random_hand(draw: st.DrawFn) -> tuple[DrawmahaState, list[Event], list[DrawmahaState]]:
    """A whole hand of random legal play: 2 to 7 players, stacks from one chip to deep, any
    button, the draw limit on or off, a seeded shuffle; exchanges lean to many cards so that
    the deck often runs out (DM-7)."""
    players = draw(st.integers(2, 7))
    stacks = draw(st.lists(st.sampled_from([1, 7, 26, 60, 150, 1000]), min_size=players,
                           max_size=players))  # fmt: skip
    table = DrawmahaTable(5, 10, rake=Rake(Decimal(5), cap=draw(st.sampled_from([None, 3]))),
                          draw_limit=draw(st.booleans()))  # fmt: skip
    seed = draw(st.binary(min_size=32, max_size=32)).hex()
    deck = Deck.shuffled(seed, "property", 1)
    state, events = start_hand(table, stacks, draw(st.integers(0, players - 1)), deck)
    states = [state]
    for _ in range(400):
        if state.to_act is None:
            break
        option = draw(st.sampled_from(
            [o for o in legal_actions(state) for _ in range(1 if o.kind == K.FOLD else 4)]
        ))  # fmt: skip
        action: Action | DrawAction
        if isinstance(option, DrawOption):
            count = draw(st.sampled_from([0, 1, option.max_cards, option.max_cards]))
            hand = state.hands[state.to_act]
            chosen = draw(st.permutations(hand))[:count] if option.kind == D.EXCHANGE else ()
            action = DrawAction(state.to_act, option.kind, tuple(chosen))
        else:
            amount = None
            if option.kind in WAGERS:
                amount = draw(st.integers(option.min_amount, option.max_amount))
            action = Action(state.to_act, option.kind, amount)
        state, produced = apply(state, action)
        events += produced
        states.append(state)
    return state, events, states


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_hand())
def test_random_legal_hands(hand):
    """Chips are conserved (stacks + pots + rake), no card is dealt twice and a reshuffle takes
    only the muck (DM-7), every hand ends, and every state survives JSON."""
    state, events, states = hand
    assert state.street == Street.OVER
    total = sum(states[0].starting_stacks)
    for step in states[:-1]:
        assert sum(c.stack + c.committed for c in step.chips) == total
        assert all(c.stack >= 0 for c in step.chips)
    assert sum(state.finishing_stacks) + state.rake == total
    audit_cards(events)
    assert kinds(events)[-1] == "hand_over"
    for step in (states[0], states[len(states) // 2], state):
        assert from_json(json.loads(json.dumps(to_json(step)))) == step
