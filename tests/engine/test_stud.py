"""Seven-card stud, fixed limit: a scenario on a stacked deck for every rule ST-1..ST-13, and
random legal hands as a property test (chips conserved, no card dealt twice, every hand ends)."""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.betting import Action, LegalAction, Rake
from games.engine.cards import parse_card, parse_cards
from games.engine.common import RuleViolation
from games.engine.dealer import Deck
from games.engine.fairness import Shoe
from games.engine.hands import best_hand
from games.engine.stud import (
    Street,
    StudTable,
    apply,
    concede,
    from_json,
    legal_actions,
    showing,
    start_hand,
    to_json,
)
from tests.fixtures.stud_play import (
    TABLE,
    K,
    audit_cards,
    deal,
    eight_players_one_folds,
    kinds,
    of_kind,
    passive,
    play,
    random_hand,
)

SEED = "00" * 31 + "2a"


def options(state) -> dict[str, list[int]]:
    """Legal actions as {kind: [amounts]} (fixed limit: each amount is one entry)."""
    found: dict[str, list[int]] = {}
    for option in legal_actions(state):
        found.setdefault(option.kind.value, []).append(option.max_amount)
    return found


def cards(text: str) -> tuple:
    return tuple(parse_cards(text))


# ST-1 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [1, 9])
def test_st1_two_to_eight_players(players):
    with pytest.raises(RuleViolation, match="2 to 8") as refused:
        start_hand(TABLE, [1000] * players, Deck.stacked([]))
    assert refused.value.rule == "ST-1"


@pytest.mark.parametrize(
    "limits",
    [
        {"ante": 5, "bring_in": 20, "small_bet": 20, "big_bet": 40},  # bring-in not below
        {"ante": 5, "bring_in": 10, "small_bet": 40, "big_bet": 20},
        {"ante": 5, "bring_in": 0, "small_bet": 20, "big_bet": 40},
        {"ante": 0.5, "bring_in": 10, "small_bet": 20, "big_bet": 40},  # money is whole cents
    ],
)
def test_st1_table_limits(limits):
    with pytest.raises(RuleViolation, match="ST-1"):
        StudTable(**limits)


def test_st1_stacks_and_deck():
    with pytest.raises(RuleViolation, match="ST-1"):
        start_hand(TABLE, [1000, 10.5], Deck.stacked([]))
    used, _ = Deck.stacked([]).deal(1)
    with pytest.raises(RuleViolation, match="fresh 52-card deck"):
        start_hand(TABLE, [1000, 1000], used)


# ST-2 ------------------------------------------------------------------------------------------


def test_st2_two_down_then_the_door_card_one_at_a_time_from_the_dealers_left():
    state, events = deal(["As Kd 2c", "Qh Qd 3c", "Jh Td 9s"])
    assert [(h.down, h.up) for h in state.hands] == [
        (cards("As Kd"), cards("2c")),
        (cards("Qh Qd"), cards("3c")),
        (cards("Jh Td"), cards("9s")),
    ]
    (dealt,) = of_kind(events, "deal")
    assert [(c["seat"], c["card"], c["face"], c["position"]) for c in dealt.data["cards"]] == [
        (0, "As", "down", 0), (1, "Qh", "down", 1), (2, "Jh", "down", 2),
        (0, "Kd", "down", 3), (1, "Qd", "down", 4), (2, "Td", "down", 5),
        (0, "2c", "up", 6), (1, "3c", "up", 7), (2, "9s", "up", 8),
    ]  # fmt: skip
    assert kinds(events)[:3] == ["ante", "ante", "ante"]
    assert state.chips[0].committed == TABLE.ante


# ST-3 ------------------------------------------------------------------------------------------


def test_st3_bring_in_ties_are_broken_by_suit():
    """Three deuces showing: clubs is the lowest suit, so the 2c brings in."""
    state, events = deal(["As Kd 2h", "Qh Qd 2c", "Jh Td 2s"])
    assert state.to_act == 1
    assert of_kind(events, "bring_in_seat")[0].data == {"seat": 1, "door_card": "2c"}
    state, _ = deal(["As Kd 2s", "Qh Qd 2h", "Jh Td 2d"])
    assert state.to_act == 2


def test_st3_ace_is_high_for_the_bring_in():
    state, _ = deal(["Ks Kd Ac", "Qh Qd 3s"])
    assert state.to_act == 1


def test_st3_a_player_all_in_on_the_ante_does_not_bring_in():
    state, events = deal(["As Kd 2c", "Qh Qd 3c", "Jh Td 9s"], stacks=[5, 1000, 1000])
    assert of_kind(events, "ante")[0].data == {"seat": 0, "amount": 5, "all_in": True}
    assert state.to_act == 1
    assert options(state) == {"bring_in": [10], "complete": [20]}


def test_st3_bring_in_or_complete():
    state, _ = deal(["As Kd 5h", "Qh Qd 2c", "Jh Td 9s"])
    assert options(state) == {"bring_in": [10], "complete": [20]}
    with pytest.raises(RuleViolation, match="brings in") as refused:
        play(state, "1 fold")
    assert refused.value.rule == "ST-3"
    state, events = play(state, "1 complete")
    assert of_kind(events, "complete")[0].data == {
        "street": "third", "seat": 1, "amount": 20, "added": 20, "all_in": False,
    }  # fmt: skip
    assert options(state) == {"fold": [0], "call": [20], "raise": [40]}


def test_st3_completion_over_a_bring_in():
    """While only the bring-in is in, the next players call it or complete to the small bet;
    the completion is the round's bet, so the bring-in may then raise."""
    state, _ = deal(["As Kd 5h", "Qh Qd 2c", "Jh Td 9s"])
    state, _ = play(state, "1 bring_in")
    assert options(state) == {"fold": [0], "call": [10], "complete": [20]}
    with pytest.raises(RuleViolation, match="complete, not raise"):
        play(state, "2 raise 30")
    state, _ = play(state, "2 complete", "0 call")
    assert state.to_act == 1
    assert options(state) == {"fold": [0], "call": [20], "raise": [40]}
    state, _ = play(state, "1 raise 40", "2 call", "0 call")
    assert state.street == Street.FOURTH
    assert [c.committed for c in state.chips] == [45, 45, 45]


def test_st3_everyone_folds_to_the_bring_in():
    """The bring-in nobody called goes back (ST-13); the antes are won without showing."""
    state, _ = deal(["As Kd 5h", "Qh Qd 2c", "Jh Td 9s"])
    state, events = play(state, "1 bring_in", "2 fold", "0 fold")
    assert state.street == Street.OVER
    assert of_kind(events, "uncalled_bet_returned")[0].data == {"seat": 1, "amount": 10}
    assert state.finishing_stacks == (995, 1010, 995)
    assert "show" not in kinds(events)


# ST-4 ------------------------------------------------------------------------------------------


def test_st4_burn_then_best_showing_hand_acts_first():
    """Fourth street: a burn, one card up each; the open pair of 4s acts before the K and Q."""
    state, _ = deal(
        ["Ac Ad Kc", "2d 3d 4c", "7h 8h Qs"],
        "5s | 9d 4d Jh",
    )
    state, events = play(state, "1 bring_in", "2 call", "0 call")
    burn, dealt = of_kind(events, "burn")[0], of_kind(events, "deal")[0]
    assert burn.data == {"street": "fourth", "card": "5s", "shuffle": 0, "positions": [9]}
    assert kinds(events).index("burn") < kinds(events).index("deal")
    assert [(c["card"], c["face"], c["position"]) for c in dealt.data["cards"]] == [
        ("9d", "up", 10), ("4d", "up", 11), ("Jh", "up", 12),
    ]  # fmt: skip
    assert state.to_act == 1


def test_st4_equal_showings_nearest_the_dealers_left_acts_first():
    state, _ = deal(["2c 3c Kc", "4d 5d 2h", "7h 8h Kh"], "Ts | 9d 6d 9s")
    state, _ = play(state, "1 bring_in", "2 call", "0 call")
    assert [state.hands[s].up for s in (0, 2)] == [cards("Kc 9d"), cards("Kh 9s")]
    assert state.to_act == 0


def test_st4_four_to_a_straight_flush_does_not_beat_a_pair():
    state, _ = deal(
        ["Ac Kd 5h", "Qc Jd 2c", "4s 9s Th"],
        "As | 6h 2d 3h",
        "Ad | 7h 3s Kc",
        "Ah | 8h 9c Qs",
    )
    state, _ = passive(state, stop=Street.SIXTH)
    assert state.hands[0].up == cards("5h 6h 7h 8h")
    assert state.hands[1].up == cards("2c 2d 3s 9c")
    assert state.to_act == 1


def test_st4_showing_strength():
    def shown(text):
        return showing(parse_cards(text))

    assert shown("4c 4d") > shown("Ac Kd")
    assert shown("Ac Kd 2s") > shown("Ac Qd Js")
    assert shown("9c 9d Ks 4h") > shown("9h 9s Qd Jc")
    assert shown("3c 3d 2s 2h") > shown("Ac Ad Kd Qh")  # two pair over a pair
    assert shown("2c 2d 2s 3h") > shown("Ac Ad Kd Kh")  # trips over two pair
    assert shown("5h 6h 7h 8h") < shown("2c 2d")  # no straights or flushes with four


# ST-5 ------------------------------------------------------------------------------------------

OPEN_PAIR = (["Ac Kd 5h", "Qc Jd 2c", "4s 9s Th"], "As | 5d 3d 8c")


def test_st5_open_pair_on_fourth_street_allows_the_big_bet():
    state, _ = deal(*OPEN_PAIR)
    state, _ = play(state, "1 bring_in", "2 call", "0 call")
    assert state.hands[0].up == cards("5h 5d")
    assert state.to_act == 0
    assert options(state) == {"check": [0], "bet": [20, 40]}
    state, _ = play(state, "0 bet 20")
    assert options(state)["raise"] == [40, 60]
    state, _ = play(state, "1 raise 60")
    assert options(state)["raise"] == [100]
    with pytest.raises(RuleViolation, match="ST-5"):
        play(state, "2 raise 80")


def test_st5_a_big_bet_makes_every_later_raise_big():
    state, _ = deal(*OPEN_PAIR)
    state, _ = play(state, "1 bring_in", "2 call", "0 call", "0 bet 40")
    assert options(state)["raise"] == [80]


def test_st5_a_table_without_the_open_pair_big_bet_bets_small_on_fourth_street():
    """The table's ST-5 setting off (the 2023 WSOP rules): an open pair changes nothing, and a
    big bet is refused naming ST-5; the setting survives the state's JSON."""
    table = replace(TABLE, open_pair_big_bet=False)
    state, _ = deal(*OPEN_PAIR, table=table)
    state, _ = play(state, "1 bring_in", "2 call", "0 call")
    assert options(state) == {"check": [0], "bet": [20]}
    with pytest.raises(RuleViolation, match="only to 20") as refused:
        play(state, "0 bet 40")
    assert refused.value.rule == "ST-5"
    assert from_json(json.loads(json.dumps(to_json(state)))).table.open_pair_big_bet is False
    stored = to_json(state)
    del stored["table"]["open_pair_big_bet"]  # a hand stored before the setting: the source's rule
    assert from_json(stored).table.open_pair_big_bet is True


def test_st5_without_an_open_pair_fourth_street_is_small():
    state, _ = deal(["Ac Kd 5h", "Qc Jd 2c", "4s 9s Th"], "As | 6d 3d 8c")
    state, _ = play(state, "1 bring_in", "2 call", "0 call")
    assert options(state) == {"check": [0], "bet": [20]}
    with pytest.raises(RuleViolation, match="ST-1"):
        play(state, f"{state.to_act} bet 40")


# ST-6, ST-7 -----------------------------------------------------------------------------------

HEADS_UP = (
    ["Ac Kc 2d", "Qh Jh 3s"],
    "4c | 5c 6h",
    "4d | 7d 8s",
    "4h | 9c Ts",
    "4s | Jd Qs",
)


def test_st6_big_bets_from_fifth_street_with_cards_up():
    state, _ = deal(*HEADS_UP)
    state, _ = passive(state, stop=Street.FIFTH)
    assert [h.up for h in state.hands] == [cards("2d 5c 7d"), cards("3s 6h 8s")]
    assert options(state) == {"check": [0], "bet": [40]}
    state, _ = passive(state, stop=Street.SIXTH)
    assert [len(h.up) for h in state.hands] == [4, 4]
    assert options(state) == {"check": [0], "bet": [40]}


def test_st7_seventh_street_burn_one_card_down_big_bets():
    state, _ = deal(*HEADS_UP)
    state, events = passive(state, stop=Street.SEVENTH)
    assert of_kind(events, "burn")[-1].data["card"] == "4s"
    assert [c["face"] for c in of_kind(events, "deal")[-1].data["cards"]] == ["down", "down"]
    assert [h.down for h in state.hands] == [cards("Ac Kc Jd"), cards("Qh Jh Qs")]
    assert options(state) == {"check": [0], "bet": [40]}


# ST-8 ------------------------------------------------------------------------------------------


def test_st8_cap_of_a_bet_and_three_raises_with_three_players():
    state, _ = deal(["As Kd 5h", "Qh Qd 2c", "Jh Td 9s"])
    state, _ = play(state, "1 bring_in", "2 complete", "0 raise 40", "1 raise 60", "2 raise 80")
    assert options(state) == {"fold": [0], "call": [80]}
    with pytest.raises(RuleViolation, match="cap") as refused:
        play(state, "0 raise 100")
    assert refused.value.rule == "ST-8"


def test_st8_no_cap_heads_up():
    state, _ = deal(*HEADS_UP)
    state, _ = passive(state, stop=Street.FIFTH)
    state, _ = play(state, "1 bet 40", *(f"{n % 2} raise {80 + 40 * n}" for n in range(7)))
    assert state.betting.raises == 8
    assert options(state)["raise"] == [360]


# ST-9, ST-12 -----------------------------------------------------------------------------------


def test_st9_common_card_with_eight_players_at_seventh_street():
    """48 cards dealt and 3 burns leave one card: it is burnt, the four burns are not enough for
    eight players, so they are shuffled and one common card is turned up (ST-9); every hand is
    its six cards plus the common card (ST-12)."""
    state, events = start_hand(TABLE, [1000] * 8, Deck.stacked([]))
    state, played = passive(state)
    events += played
    audit_cards(events)
    burns = [parse_card(e.data["card"]) for e in of_kind(events, "burn")]
    (reshuffle,) = of_kind(events, "reshuffle")
    assert reshuffle.data["form"] == "common_card"
    assert reshuffle.data["undealt"] == 0
    assert sorted(parse_cards(" ".join(reshuffle.data["returned"]))) == sorted(burns)
    assert state.common in burns
    assert of_kind(events, "common_card")[0].data == {
        "card": str(state.common), "shuffle": 1, "positions": [0],
    }  # fmt: skip
    assert all(len(hand.cards) == 6 for hand in state.hands)
    for seat, hand in enumerate(state.hands):
        assert state.value(seat) == best_hand((*hand.cards, state.common))
    every = [card for hand in state.hands for card in hand.cards] + [state.common]
    assert len(set(every)) == len(every) == 49
    assert sum(state.finishing_stacks) == 8000


def test_st9_common_card_from_the_shoe_is_auditable():
    """The reshuffle continues the round's byte stream (FS-6): replaying the same deals and
    reshuffle on a Shoe gives the same common card (FS-7)."""
    state, events = start_hand(TABLE, [1000] * 8, Deck.shuffled(SEED, "audit", 7))
    state, played = passive(state)
    events += played
    audit_cards(events)
    burns = [parse_card(e.data["card"]) for e in of_kind(events, "burn")]
    shoe = Shoe(SEED, "audit", 7)
    shoe.deal(52)
    shoe.reshuffle(burns)
    assert shoe.deal(1) == [state.common]


def test_st9_last_card_from_the_discards_when_they_suffice():
    """Seven players at seventh street: after the burn six cards are left for seven, so the rest
    of the deck and the four burns are shuffled together and each player gets a card from
    them (ST-9, first form): nobody plays a common card."""
    state, events = start_hand(TABLE, [1000] * 7, Deck.stacked([]))
    state, played = passive(state)
    events += played
    audit_cards(events)
    (reshuffle,) = of_kind(events, "reshuffle")
    assert reshuffle.data["form"] == "last_card"
    assert reshuffle.data["undealt"] == 6
    assert len(reshuffle.data["returned"]) == 4
    assert state.common is None
    assert all(len(hand.down) == 3 for hand in state.hands)
    seventh = of_kind(events, "deal")[-1].data["cards"]
    assert [c["shuffle"] for c in seventh] == [1] * 7
    pool = set(reshuffle.data["returned"]) | {c["card"] for c in seventh}
    assert {c["card"] for c in seventh} <= pool


def test_st9_a_fold_on_sixth_street_leaves_four_cards_for_seven_players():
    """Eight players, one folds on sixth street: after the burn the deck is empty and the four
    burns cannot give seven players a card, so one common card is turned up (ST-9, second
    form). The six folded cards are not reshuffled: they are never used again."""
    state, events, folder = eight_players_one_folds(Street.SIXTH)
    audit_cards(events)
    (reshuffle,) = of_kind(events, "reshuffle")
    burns = [parse_card(e.data["card"]) for e in of_kind(events, "burn")]
    assert reshuffle.data["form"] == "common_card"
    assert reshuffle.data["undealt"] == 0
    assert sorted(parse_cards(" ".join(reshuffle.data["returned"]))) == sorted(burns)
    assert state.common in burns
    assert all(len(state.hands[seat].cards) == 6 for seat in state.in_hand)
    assert not set(state.hands[folder].cards) & {state.common}


def test_st9_a_fold_to_the_bring_in_never_gives_its_cards_to_live_players():
    """Eight players, one folds on third street: the three undealt cards and the four burns
    serve seven players (ST-9, first form), and none of the folded cards is dealt again. The
    stacked reshuffle puts its pool in canonical order, where the folded low cards would come
    first if they were in it."""
    state, events, folder = eight_players_one_folds(Street.THIRD)
    audit_cards(events)
    (reshuffle,) = of_kind(events, "reshuffle")
    returned = set(parse_cards(" ".join(reshuffle.data["returned"])))
    assert reshuffle.data["form"] == "last_card"
    assert reshuffle.data["undealt"] == 3
    assert returned == {parse_card(e.data["card"]) for e in of_kind(events, "burn")}
    assert len(returned) == 4
    seventh = {parse_card(c["card"]) for c in of_kind(events, "deal")[-1].data["cards"]}
    assert len(seventh) == 7
    assert not seventh & set(state.hands[folder].cards)
    assert state.common is None


def test_st9_a_folded_card_cannot_be_stacked_into_the_reshuffle():
    """A reshuffle can only put on top cards it shuffles: a folded door card is not one."""
    state, _, folder = eight_players_one_folds(Street.THIRD)
    door = state.hands[folder].up[0]
    with pytest.raises(ValueError, match="not all of them are among the reshuffled cards"):
        eight_players_one_folds(Street.THIRD, tops=[[door]])


def test_st9b_seventh_street_with_a_common_card_opens_as_sixth_street():
    """ST-9b: the common card counts in every hand's value but not in the showing hands. Here
    it would pair seat 1's up cards (6h 3c 8c 4h with 3h) over seat 6's ace-king; seat 6,
    first on sixth street, is first again on seventh."""
    deck = Deck.shuffled(SEED, "opener", 2)
    state, _ = start_hand(TABLE, [1000] * 8, deck)
    state, _ = passive(state, stop=Street.SIXTH)
    assert state.to_act == 6
    state, _ = passive(state, stop=Street.SEVENTH)
    assert state.common == parse_card("3h")
    assert state.hands[1].up == cards("6h 3c 8c 4h")
    assert showing((*state.hands[1].up, state.common)) > showing(state.hands[6].up)
    assert state.to_act == 6
    assert state.betting.order[0] == 6
    assert state.value(1) == best_hand((*state.hands[1].cards, state.common))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_hand(players=st.just(8)))
def test_st9_eight_player_hands_never_reuse_folded_cards(hand):
    """ST-9 over random eight-player hands: no card a player folded is dealt again (nor any card
    twice), and the last card is a common card exactly when the rest of the deck plus the burns
    cannot give every live player a card. Counted from the events alone."""
    _, events, _ = hand
    audit_cards(events)
    dealt = burns = 0
    live = set(range(8))
    for event in events:
        if event.kind == "deal":
            dealt += len(event.data["cards"])
        elif event.kind == "burn":
            burns += 1
        elif event.kind == "fold":
            live.discard(event.data["seat"])
        elif event.kind == "reshuffle":
            undealt = 52 - dealt - burns
            assert undealt < len(live)
            assert event.data["undealt"] == undealt
            assert len(event.data["returned"]) == burns
            expected = "common_card" if undealt + burns < len(live) else "last_card"
            assert event.data["form"] == expected
            assert bool(of_kind(events, "common_card")) == (expected == "common_card")
            break
    else:
        assert not of_kind(events, "common_card")
        # Without a reshuffle the deck served every player who reached seventh street.
        seventh = [e for e in events if e.kind == "deal" and e.data["street"] == "seventh"]
        assert all(c["shuffle"] == 0 for e in seventh for c in e.data["cards"])


# ST-10 -----------------------------------------------------------------------------------------

SHOWDOWN = (
    ["Ah Ad Kc", "3c 3d 5h", "4c 9h 6s"],
    "5c | 2s 8s 2d",
    "5d | 7c Th 8c",
    "5s | 9d Qd Jh",
    "6c | Jc 4s Td",
)
TO_SEVENTH = ("1 bring_in", "2 call", "0 call", *(f"{s} check" for s in [0, 1, 2] * 3))


def test_st10_the_river_bettor_shows_first_then_clockwise():
    state, _ = deal(*SHOWDOWN)
    state, events = play(state, *TO_SEVENTH, "0 check", "1 bet 40", "2 call", "0 call")
    assert state.street == Street.SHOWDOWN
    assert of_kind(events, "showdown")[0].data == {"order": [1, 2, 0]}
    assert state.to_act == 1
    assert legal_actions(state) == (LegalAction(K.SHOW),)
    state, events = play(state, "1 show")
    assert of_kind(events, "show")[0].data == {
        "seat": 1, "cards": ["3c", "3d", "4s", "5h", "8s", "Th", "Qd"], "hand": "Pair of Threes",
    }  # fmt: skip
    # Seat 2 (jack high) cannot beat the shown threes and may muck; seat 0 (aces) must show.
    assert {o.kind for o in legal_actions(state)} == {K.SHOW, K.MUCK}
    state, events = play(state, "2 muck")
    assert of_kind(events, "muck")[0].data == {"seat": 2}
    with pytest.raises(RuleViolation, match="can still win") as refused:
        play(state, "0 muck")
    assert refused.value.rule == "ST-10"
    state, events = play(state, "0 show")
    assert state.street == Street.OVER
    assert of_kind(events, "pot_awarded")[0].data["shares"] == {"0": 165}
    assert state.finishing_stacks == (1110, 945, 945)


def test_st10_after_checks_the_first_to_act_shows_first():
    state, _ = deal(*SHOWDOWN)
    state, events = play(state, *TO_SEVENTH, "0 check", "1 check", "2 check")
    assert of_kind(events, "showdown")[0].data == {"order": [0, 1, 2]}
    state, _ = play(state, "0 show")
    assert {o.kind for o in legal_actions(state)} == {K.SHOW, K.MUCK}
    with pytest.raises(RuleViolation, match="seat 1 shows or mucks now"):
        play(state, "2 muck")
    with pytest.raises(RuleViolation, match="show or muck"):
        play(state, "1 check")
    state, events = play(state, "1 muck", "2 muck")
    assert state.finishing_stacks == (1030, 985, 985)


def test_st10_an_uncalled_winner_never_shows():
    state, _ = deal(*SHOWDOWN)
    state, events = play(state, "1 bring_in", "2 call", "0 call", "0 bet 20", "1 fold", "2 fold")
    assert state.street == Street.OVER
    assert "show" not in kinds(events)
    assert "showdown" not in kinds(events)
    assert of_kind(events, "uncalled_bet_returned")[0].data == {"seat": 0, "amount": 20}
    assert state.finishing_stacks == (1030, 985, 985)
    with pytest.raises(RuleViolation, match="over"):
        apply(state, Action(0, K.SHOW))


def test_a_replayed_muck_concedes_a_hand_that_could_win_but_not_the_last_one():
    """A hand history's muck (PHH) gives up a hand the table would show (cards speak, ST-10):
    seat 0's aces and seat 1's threes concede; seat 2's is the last hand, shown, and wins the
    pot, which someone must (ST-11)."""
    state, _ = deal(*SHOWDOWN)
    with pytest.raises(RuleViolation, match="at the showdown") as refused:
        concede(state, state.to_act)
    assert refused.value.rule == "ST-10"
    state, _ = play(state, *TO_SEVENTH, "0 check", "1 check", "2 check")
    assert legal_actions(state) == (LegalAction(K.SHOW),)  # the table offers no muck
    state, events = concede(state, 0)
    assert of_kind(events, "muck")[0].data == {"seat": 0}
    state, _ = concede(state, 1)
    with pytest.raises(RuleViolation, match="the last hand in a pot is shown") as refused:
        concede(state, 2)
    assert refused.value.rule == "ST-11"
    state, events = play(state, "2 show")
    assert of_kind(events, "pot_awarded")[0].data["shares"] == {"2": 45}
    assert state.finishing_stacks == (985, 985, 1030)


# ST-11 -----------------------------------------------------------------------------------------


def test_st11_cards_speak_and_the_odd_unit_goes_nearest_the_dealers_left():
    """Seats 0 and 2 both hold a nine-high straight: the 85 pot splits 43 to seat 0 (nearer the
    dealer's left) and 42 to seat 2."""
    state, _ = deal(
        ["5c 6d 7h", "Ac Ad 4c", "5d 6h 7s"],
        "Tc | 8s Ks 8c",
        "Td | 9c 9d",
        "Th | Kd Kh",
        "Ts | 2h 2s",
    )
    state, _ = play(state, "1 bring_in", "2 call", "0 call", "1 check", "2 bet 20", "0 call")
    state, events = play(state, "1 fold")
    assert state.to_act == 0  # fifth street: equal showings, seat 0 is nearer the dealer's left
    state, events = passive(state)
    awarded = of_kind(events, "pot_awarded")
    assert [(e.data["shares"], e.data["hand"]) for e in awarded] == [
        ({"0": 43, "2": 42}, "Straight, Nine high")
    ]
    assert [e.data["hand"] for e in of_kind(events, "show")] == ["Straight, Nine high"] * 2
    assert state.finishing_stacks == (1008, 985, 1007)


# ST-13 -----------------------------------------------------------------------------------------


def test_st13_three_way_all_in_two_side_pots_and_an_odd_unit():
    """Seats 0, 1, 2 all in for 30, 60 and 80; seat 3 covers; seat 4 folds its bring-in.
    Main pot 135 (odd, seat 4's 15 in it) splits between the two straights, 68 to seat 0;
    the first side pot (90) goes to seat 1's straight, the second (40) to seat 2's two pair,
    as seat 3's aces are mucked. Seat 3's 5 nobody called is returned unraked."""
    state, _ = deal(
        ["5c 6d 7h", "5d 6h 7s", "Jc Jd Qc", "Ac Ad Th", "Ks Qs 2c"],
        "Tc | 8s 8c Qd 4h",
        "Td | 9c 9d 4s 6c",
        "Ts | Kd Kh 2h 8d",
        "Js | 3h 3d 3s 2s",
        stacks=[30, 60, 80, 500, 500],
    )
    state, events = play(
        state, "4 bring_in", "0 complete", "1 raise 40", "2 raise 60", "3 raise 80", "4 fold",
        "0 call", "1 call", "2 call",
    )  # fmt: skip
    assert [c.committed for c in state.chips] == [30, 60, 80, 80, 15]
    assert of_kind(events, "uncalled_bet_returned")[0].data == {"seat": 3, "amount": 5}
    assert of_kind(events, "showdown")[0].data == {"order": [2, 3, 0, 1]}
    state, events = play(state, "2 show", "3 muck", "0 show", "1 show")
    assert [(e.data["amount"], e.data["eligible"], e.data["shares"]) for e in events
            if e.kind == "pot_awarded"] == [
        (135, [0, 1, 2, 3], {"0": 68, "1": 67}),
        (90, [1, 2, 3], {"1": 90}),
        (40, [2, 3], {"2": 40}),
    ]  # fmt: skip
    assert state.finishing_stacks == (68, 157, 40, 420, 485)


RAKED = StudTable(ante=5, bring_in=10, small_bet=20, big_bet=40, rake=Rake(Decimal(10), cap=20))
HEADS_UP_BETTING = ("0 bring_in", "1 complete", "0 call", "1 bet 20", "0 call")


def test_st13_rake_is_capped():
    """A called pot of 330 at 10% would give 33: the cap takes 20."""
    state, _ = deal(*HEADS_UP, table=RAKED)
    moves = (*HEADS_UP_BETTING, *(m for _ in range(3) for m in ("1 bet 40", "0 call")))
    state, events = play(state, *moves, "1 show", "0 muck")
    assert of_kind(events, "rake")[0].data == {"pot": 0, "amount": 20}
    assert of_kind(events, "pot_awarded")[0].data["amount"] == 310
    assert state.rake == 20
    assert state.finishing_stacks == (835, 1145)


def test_st13_rake_cap_is_per_hand_over_all_its_side_pots():
    """ST-13 Decision: the three-way all-in above at 10% with a cap of 20 a hand. The main pot
    (135) gives 13, the first side pot (90) the 7 left of the cap, the second (40) nothing:
    20 in all, where capping each pot on its own would take 13 + 9 + 4 = 26."""
    state, _ = deal(
        ["5c 6d 7h", "5d 6h 7s", "Jc Jd Qc", "Ac Ad Th", "Ks Qs 2c"],
        "Tc | 8s 8c Qd 4h",
        "Td | 9c 9d 4s 6c",
        "Ts | Kd Kh 2h 8d",
        "Js | 3h 3d 3s 2s",
        stacks=[30, 60, 80, 500, 500],
        table=RAKED,
    )
    state, _ = play(
        state, "4 bring_in", "0 complete", "1 raise 40", "2 raise 60", "3 raise 80", "4 fold",
        "0 call", "1 call", "2 call",
    )  # fmt: skip
    state, events = play(state, "2 show", "3 muck", "0 show", "1 show")
    assert [e.data for e in of_kind(events, "rake")] == [
        {"pot": 0, "amount": 13},
        {"pot": 1, "amount": 7},
    ]
    assert [(e.data["amount"], e.data["rake"], e.data["shares"]) for e in events
            if e.kind == "pot_awarded"] == [
        (122, 13, {"0": 61, "1": 61}),
        (83, 7, {"1": 83}),
        (40, 0, {"2": 40}),
    ]  # fmt: skip
    assert state.rake == 20 == RAKED.rake.cap
    assert [result.rake for result in state.results] == [13, 7, 0]
    assert state.finishing_stacks == (61, 144, 40, 420, 485)
    assert sum(state.finishing_stacks) + state.rake == 30 + 60 + 80 + 500 + 500


def test_st13_no_rake_on_an_uncalled_bet():
    """The unanswered 40 goes back before the pot (90) is raked: 9, not 13."""
    state, _ = deal(*HEADS_UP, table=RAKED)
    state, events = play(state, *HEADS_UP_BETTING, "1 bet 40", "0 fold")
    assert kinds(events)[-4:] == ["uncalled_bet_returned", "rake", "pot_awarded", "hand_over"]
    assert of_kind(events, "rake")[0].data == {"pot": 0, "amount": 9}
    assert state.finishing_stacks == (955, 1036)
    assert sum(state.finishing_stacks) + state.rake == 2000


# JSON and the property test --------------------------------------------------------------------


def test_json_round_trip_through_a_hand():
    state, _ = deal(*SHOWDOWN, table=RAKED)
    snapshots = [state]
    for move in (*TO_SEVENTH, "0 check", "1 bet 40", "2 call", "0 call", "1 show", "2 muck"):
        state, _ = play(state, move)
        snapshots.append(state)
    state, _ = play(state, "0 show")
    snapshots.append(state)
    for snapshot in snapshots:
        assert from_json(json.loads(json.dumps(to_json(snapshot)))) == snapshot


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_hand())
def test_random_legal_hands(hand):
    """Chips are conserved (stacks + pots + rake), no card is dealt twice or reshuffled from a
    live hand, every hand ends, and every state survives JSON."""
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


# ST-6b: short all-ins in fixed limit ----------------------------------------------------------


def short_all_in_raise(raised_to: int):
    """Seat 0 (2c) brings in for 10, seat 1 completes to 20, seat 2 raises all in to
    ``raised_to`` (a full raise is to 40) and seat 0 calls: seat 1, who has acted, is next."""
    state, _ = deal(["As Ah 2c", "Ks Kh Kd", "Qs Qc Qh"], stacks=[1000, 1000, 5 + raised_to])
    state, events = play(state, "0 bring_in", "1 complete", f"2 raise {raised_to}", "0 call")
    assert events[2].data["all_in"] is True
    assert state.to_act == 1
    return state


def test_st6b_an_all_in_raise_under_half_a_bet_does_not_reopen():
    """Seat 2 raises 9 over 20, under half the small bet (10): seat 1 may only call or fold."""
    state = short_all_in_raise(29)
    assert {option.kind for option in legal_actions(state)} == {K.FOLD, K.CALL}
    with pytest.raises(RuleViolation, match="less than half a full bet") as refused:
        play(state, "1 raise 49")
    assert (refused.value.rule, refused.value.field) == ("ST-6b", "kind")
    state, _ = play(state, "1 call")
    assert state.street == Street.FOURTH


@pytest.mark.parametrize("raised_to", [30, 35])
def test_st6b_an_all_in_raise_of_half_a_bet_or_more_reopens(raised_to):
    """A raise of exactly half the small bet (10 over 20), or more (15): seat 1 may raise a full
    bet over it, and seat 0 then may too."""
    state = short_all_in_raise(raised_to)
    assert legal_actions(state)[-1] == LegalAction(K.RAISE, raised_to + 20, raised_to + 20)
    state, _ = play(state, f"1 raise {raised_to + 20}")
    assert state.betting.raises == 2  # the short all-in is no raise towards the ST-8 cap
    assert legal_actions(state)[-1].kind == K.RAISE
