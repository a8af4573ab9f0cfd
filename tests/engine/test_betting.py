"""Shared betting: fixed-limit sizing and cap (ST-3, ST-5, ST-8), pot-limit sizing and
reopening (DM-9), uncalled bets, side pots (ST-13, DM-12), odd-unit splits (ST-11, DM-11) and
the rake (ST-13)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from games.engine.betting import (
    Action,
    ActionKind,
    BettingRound,
    Chips,
    FixedLimit,
    LegalAction,
    Pot,
    PotLimit,
    Rake,
    act,
    halve,
    legal_actions,
    next_round,
    open_round,
    return_uncalled,
    round_from_json,
    round_to_json,
    side_pots,
    split_pot,
)
from games.engine.common import RuleViolation

K = ActionKind


def options(round_: BettingRound) -> dict[str, list[tuple[int, int]]]:
    """Legal actions as {kind: [(min, max), ...]} for compact assertions."""
    found: dict[str, list[tuple[int, int]]] = {}
    for option in legal_actions(round_):
        found.setdefault(option.kind.value, []).append((option.min_amount, option.max_amount))
    return found


def run(round_: BettingRound, *moves: str) -> BettingRound:
    """Moves written "seat kind [amount]", e.g. "2 raise 7"."""
    for move in moves:
        seat, kind, *amount = move.split()
        round_, _ = act(round_, Action(int(seat), K(kind), int(amount[0]) if amount else None))
    return round_


def chips(*stacks: int, committed: tuple[int, ...] | None = None) -> tuple[Chips, ...]:
    committed = committed or (0,) * len(stacks)
    return tuple(Chips(stack, put) for stack, put in zip(stacks, committed, strict=True))


# Pot limit (DM-9) ------------------------------------------------------------------------------


def blinds_1_2() -> BettingRound:
    """Three players, small blind 1 (seat 0), big blind 2 (seat 1); seat 2 acts first."""
    return open_round(
        PotLimit(min_bet=2), chips(1000, 1000, 1000), (2, 0, 1), turn_rule="DM-3",
        blinds={0: 1, 1: 2},
    )  # fmt: skip


def test_dm9_pot_limit_after_the_blinds():
    """DM-9: the first raise goes up to 7 (call 2, pot 1 + 2 + 2 = 5 more); the minimum raise is
    the big blind."""
    round_ = blinds_1_2()
    assert round_.to_act == 2
    assert options(round_) == {"fold": [(0, 0)], "call": [(2, 2)], "raise": [(4, 7)]}


def test_dm9_pot_limit_small_blind_facing_a_pot_raise():
    """DM-9: after a raise to 7 the small blind (1 in) calls 6 into a pot of 10 and may raise by
    16: to 23; the minimum raise is the last raise (5): to 12."""
    round_ = run(blinds_1_2(), "2 raise 7")
    assert round_.to_act == 0
    assert options(round_)["raise"] == [(12, 23)]


def test_dm9_big_blind_has_the_option():
    round_ = run(blinds_1_2(), "2 call", "0 call")
    assert round_.to_act == 1
    assert options(round_) == {"check": [(0, 0)], "raise": [(4, 8)]}
    assert run(round_, "1 check").is_over


def postflop(stacks: tuple[int, ...], committed: tuple[int, ...]) -> BettingRound:
    return open_round(
        PotLimit(min_bet=2),
        chips(*stacks, committed=committed),
        tuple(range(len(stacks))),
        turn_rule="DM-4",
    )


def test_dm9_bet_into_a_pot_of_100():
    """DM-9: pot 100, no bet yet: bet from the big blind (2) to the pot (100). After a bet of 50
    the next player raises from 100 (the last bet again) to 250 (pot 150 after calling 50, so
    50 + 50 + 150)."""
    round_ = postflop((950, 950), (50, 50))
    assert options(round_) == {"check": [(0, 0)], "bet": [(2, 100)]}
    round_ = run(round_, "0 bet 50")
    assert options(round_) == {"fold": [(0, 0)], "call": [(50, 50)], "raise": [(100, 250)]}
    with pytest.raises(RuleViolation, match="DM-9") as refused:
        run(round_, "1 raise 251")
    assert refused.value.field == "amount"
    with pytest.raises(RuleViolation, match="DM-9"):
        run(round_, "1 raise 99")


def test_dm9_short_all_in_does_not_reopen_the_betting():
    """DM-9: seat 1's all-in to 70 over a bet of 50 is less than a full raise: seat 2, who has
    not acted, may raise (from 120), but the bettor may only call or fold."""
    round_ = run(postflop((1000, 70, 1000), (40, 30, 30)), "0 bet 50")
    assert legal_actions(round_)[-1] == LegalAction(K.RAISE, 70, 70, all_in=True)
    round_ = run(round_, "1 raise 70")
    assert options(round_)["raise"] == [(120, 70 + (100 + 50 + 70) + 70)]
    round_ = run(round_, "2 call")
    assert round_.to_act == 0
    assert options(round_) == {"fold": [(0, 0)], "call": [(70, 70)]}
    with pytest.raises(RuleViolation, match="does not reopen") as refused:
        run(round_, "0 raise 120")
    assert refused.value.rule == "DM-9"
    assert run(round_, "0 call").is_over


def test_dm9_short_all_ins_adding_up_to_a_full_raise_reopen():
    """Two all-ins of 30 over a bet of 50 raise it by 60, more than a full raise: the bettor may
    raise again, by at least the last full raise (50)."""
    round_ = run(postflop((1000, 80, 110, 1000), (25, 25, 25, 25)), "0 bet 50")
    round_ = run(round_, "1 raise 80", "2 raise 110", "3 call")
    assert round_.to_act == 0
    assert options(round_)["raise"][0][0] == 160


def test_dm9_full_all_in_raise_sets_the_next_minimum():
    round_ = run(postflop((1000, 200, 1000), (50, 50, 0)), "0 bet 40", "1 raise 200")
    assert round_.full_raise == 160
    assert options(round_)["raise"][0][0] == 360


# Fixed limit (ST-3, ST-5, ST-8) ------------------------------------------------------------


def third_street(players: int, *, stacks: int = 1000) -> BettingRound:
    """Seat 0 has the bring-in (10), completion to the small bet (20)."""
    return open_round(
        FixedLimit((20,), rule="ST-3", bring_in=10),
        chips(*([stacks] * players)),
        tuple(range(players)),
        turn_rule="ST-3",
    )


def test_st3_bring_in_or_complete_then_call_or_complete():
    round_ = third_street(3)
    assert options(round_) == {"bring_in": [(10, 10)], "complete": [(20, 20)]}
    round_ = run(round_, "0 bring_in")
    assert options(round_) == {"fold": [(0, 0)], "call": [(10, 10)], "complete": [(20, 20)]}
    round_ = run(round_, "1 complete")
    assert round_.raises == 1
    assert options(round_) == {"fold": [(0, 0)], "call": [(20, 20)], "raise": [(40, 40)]}


def test_st3_completion_reopens_the_betting_to_the_bring_in():
    round_ = run(third_street(3), "0 bring_in", "1 call", "2 complete", "0 raise 40")
    assert round_.current_bet == 40
    assert round_.aggressor == 0


def test_st3_everyone_calling_the_bring_in_closes_the_round():
    assert run(third_street(3), "0 bring_in", "1 call", "2 call").is_over


def test_st8_cap_with_three_players():
    """ST-8: completion (the bet) and three raises; then only call or fold."""
    round_ = run(third_street(3), "0 bring_in", "1 complete", "2 raise 40", "0 raise 60")
    round_ = run(round_, "1 raise 80")
    assert round_.raises == 4
    assert options(round_) == {"fold": [(0, 0)], "call": [(80, 80)]}
    with pytest.raises(RuleViolation, match="cap") as refused:
        run(round_, "2 raise 100")
    assert refused.value.rule == "ST-8"


def test_st8_cap_lifts_when_a_fold_leaves_two():
    round_ = run(third_street(3), "0 bring_in", "1 complete", "2 raise 40", "0 raise 60")
    round_ = run(round_, "1 raise 80", "2 fold")
    assert options(round_)["raise"] == [(100, 100)]


def test_st8_no_cap_heads_up():
    round_ = run(third_street(2), "0 bring_in", "1 complete")
    for n, seat in enumerate([0, 1] * 4):
        round_ = run(round_, f"{seat} raise {40 + 20 * n}")
    assert round_.raises == 9
    assert options(round_)["raise"] == [(200, 200)]


def test_st5_small_or_big_then_big():
    """ST-5: with an open pair a bet and a raise may be small (20) or big (40); once a big bet
    or raise is made, later raises are big."""
    limit = FixedLimit((20, 40), rule="ST-5")
    round_ = open_round(limit, chips(1000, 1000, 1000), (0, 1, 2), turn_rule="ST-4")
    assert options(round_)["bet"] == [(20, 20), (40, 40)]
    round_ = run(round_, "0 bet 20")
    assert options(round_)["raise"] == [(40, 40), (60, 60)]
    round_ = run(round_, "1 raise 60")
    assert options(round_)["raise"] == [(100, 100)]
    with pytest.raises(RuleViolation, match="ST-5"):
        run(round_, "2 raise 80")


def test_fixed_limit_all_in_for_less():
    round_ = open_round(
        FixedLimit((40,), rule="ST-6"), chips(1000, 25, 1000), (0, 1, 2), turn_rule="ST-4"
    )
    round_ = run(round_, "0 bet 40")
    assert legal_actions(round_) == (
        LegalAction(K.FOLD),
        LegalAction(K.CALL, 25, 25, all_in=True),
    )
    round_ = run(round_, "1 call", "2 call")
    assert round_.is_over
    assert round_.chips[1] == Chips(0, 25)


def test_wrong_turn_and_wrong_kind_are_refused():
    round_ = third_street(3)
    with pytest.raises(RuleViolation, match="seat 0 acts now") as refused:
        run(round_, "1 call")
    assert (refused.value.field, refused.value.rule) == ("seat", "ST-3")
    with pytest.raises(RuleViolation, match="brings in") as refused:
        run(round_, "0 fold")
    round_ = run(round_, "0 bring_in")
    with pytest.raises(RuleViolation, match="check is not possible"):
        run(round_, "1 check")
    with pytest.raises(RuleViolation, match="not bet"):
        run(round_, "1 bet 20")


def test_no_betting_against_all_in_players():
    round_ = open_round(
        FixedLimit((20,), rule="ST-1"), chips(1000, 0, 0), (0, 1, 2), turn_rule="ST-4"
    )
    assert round_.is_over


def test_round_json_round_trip():
    round_ = run(third_street(3), "0 bring_in", "1 complete")
    assert round_from_json(json.loads(json.dumps(round_to_json(round_)))) == round_
    pot = run(blinds_1_2(), "2 raise 7")
    assert round_from_json(json.loads(json.dumps(round_to_json(pot)))) == pot


# Uncalled bets, side pots (ST-13, DM-12) ------------------------------------------------------


def test_st13_uncalled_part_goes_back_before_the_pots():
    players = (Chips(0, 30), Chips(0, 60), Chips(415, 85))
    returned, event = return_uncalled(players)
    assert returned[2] == Chips(440, 60)
    assert event is not None
    assert event.data == {"seat": 2, "amount": 25}
    assert return_uncalled(returned)[1] is None


def test_st13_three_all_ins_make_two_side_pots():
    players = (
        Chips(0, 30),
        Chips(0, 60),
        Chips(0, 80),
        Chips(420, 80),
        Chips(485, 15, folded=True),
    )
    assert side_pots(players) == (
        Pot(135, (0, 1, 2, 3)),
        Pot(90, (1, 2, 3)),
        Pot(40, (2, 3)),
    )


def test_dm12_folded_chips_stay_in_the_pots_they_reached():
    players = (Chips(0, 50), Chips(900, 100, folded=True), Chips(900, 100))
    assert side_pots(players) == (Pot(150, (0, 2)), Pot(100, (2,)))


# Splits (ST-11, DM-11) and rake (ST-13) ---------------------------------------------------------


def test_st11_odd_units_go_clockwise_from_the_dealers_left():
    assert split_pot(100, [2, 0, 1], first_seat=0, seat_count=3) == {0: 34, 1: 33, 2: 33}
    assert split_pot(101, [0, 1], first_seat=0, seat_count=5) == {0: 51, 1: 50}


def test_dm11_odd_unit_nearest_the_buttons_left_wraps_around():
    # Button on seat 1: seat 2 is first; winners 0 and 3 are 4th and 1st from there.
    assert split_pot(101, [0, 3], first_seat=2, seat_count=6) == {3: 51, 0: 50}
    assert split_pot(7, [4, 1, 2], first_seat=2, seat_count=6) == {2: 3, 4: 2, 1: 2}


def test_dm11_the_draw_half_gets_the_odd_unit():
    assert halve(101) == (51, 50)
    assert halve(100) == (50, 50)
    draw, omaha = halve(25)
    assert split_pot(draw, [1, 3], first_seat=1, seat_count=4) == {1: 7, 3: 6}
    assert omaha == 12


@pytest.mark.parametrize(
    ("percent", "cap", "pot", "taken"),
    [
        ("5", None, 1000, 50),
        ("5", None, 99, 4),  # rounded down: never more than the percent
        ("10", 25, 1000, 25),
        ("2.5", 300, 1000, 25),
        ("0", None, 1000, 0),
    ],
)
def test_st13_rake_percent_and_cap(percent, cap, pot, taken):
    assert Rake(Decimal(percent), cap).of([pot]) == (taken,)


@pytest.mark.parametrize(
    ("cap", "pots", "taken"),
    [
        (25, [200, 300, 400], (20, 5, 0)),  # the main pot first, then the side pots
        (50, [200, 300, 400], (20, 30, 0)),
        (100, [200, 300, 400], (20, 30, 40)),  # the cap never reached
        (None, [200, 300, 400], (20, 30, 40)),
        (0, [200, 300], (0, 0)),
        (30, [205, 99, 1000], (20, 9, 1)),  # each pot's percent rounded down on its own
    ],
)
def test_st13_rake_cap_is_per_hand_over_all_its_pots(cap, pots, taken):
    """ST-13 Decision: 10% of each pot in turn, main pot first, until the hand's cap."""
    rake = Rake(Decimal(10), cap).of(pots)
    assert rake == taken
    assert cap is None or sum(rake) <= cap


def test_st13_rake_is_validated():
    with pytest.raises(ValueError, match="Decimal"):
        Rake(5.0)
    with pytest.raises(ValueError, match="cap"):
        Rake(Decimal(5), -1)


def test_amounts_are_whole_units_and_only_for_wagers():
    round_ = run(third_street(3), "0 bring_in")
    with pytest.raises(RuleViolation, match="takes no amount") as refused:
        act(round_, Action(1, K.FOLD, 0))
    assert refused.value.field == "amount"
    with pytest.raises(RuleViolation, match="whole minor units"):
        act(round_, Action(1, K.CALL, 10.0))


def test_a_fold_when_a_check_is_free_is_allowed_but_not_offered():
    """A dead hand (a player who leaves the table) folds at the turn even with no bet to call;
    the option is not offered to players who stay."""
    round_ = run(third_street(3), "0 bring_in", "1 call", "2 call")
    later = next_round(round_, FixedLimit((20,), rule="ST-4"), (0, 1, 2), turn_rule="ST-4")
    assert ActionKind.FOLD not in {option.kind for option in legal_actions(later)}
    folded, event = act(later, Action(later.to_act, ActionKind.FOLD))
    assert event.kind == "fold"
    assert folded.chips[later.to_act].folded


def short_all_in_bet(all_in: int) -> BettingRound:
    """Fifth street (big bet 40): seat 0 checks, seat 1 bets all in for ``all_in``."""
    round_ = open_round(
        FixedLimit((40,), rule="ST-6"), chips(1000, all_in, 1000), (0, 1, 2), turn_rule="ST-4"
    )
    return run(round_, "0 check", f"1 bet {all_in}")


@pytest.mark.parametrize("all_in", [19, 20, 25])
def test_st6b_facing_a_short_all_in_bet_the_next_player_calls_or_completes(all_in):
    round_ = short_all_in_bet(all_in)
    assert round_.raises == 0
    assert options(round_) == {"fold": [(0, 0)], "call": [(all_in, all_in)], "complete": [(40, 40)]}


def test_st6b_a_short_all_in_bet_under_half_a_bet_does_not_reopen_to_the_checker():
    round_ = run(short_all_in_bet(19), "2 call")
    assert options(round_) == {"fold": [(0, 0)], "call": [(19, 19)]}
    with pytest.raises(RuleViolation, match="less than half a full bet") as refused:
        run(round_, "0 complete 40")
    assert refused.value.rule == "ST-6b"


@pytest.mark.parametrize("all_in", [20, 25])
def test_st6b_a_short_all_in_bet_of_half_a_bet_or_more_reopens_to_the_checker(all_in):
    round_ = run(short_all_in_bet(all_in), "2 call")
    assert options(round_)["complete"] == [(40, 40)]
    round_ = run(round_, "0 complete 40")
    assert (round_.raises, round_.to_act) == (1, 2)


def test_st6b_an_odd_bet_is_halved_upwards():
    """A full bet of 25: 12 is under half of it, 13 is half or more."""
    for all_in, reopened in ((12, False), (13, True)):
        round_ = open_round(
            FixedLimit((25,), rule="ST-6"), chips(1000, all_in, 1000), (0, 1, 2), turn_rule="ST-4"
        )
        round_ = run(round_, "0 check", f"1 bet {all_in}", "2 call")
        assert ("complete" in options(round_)) is reopened
