"""PHH hand histories for seven-card stud (F7S): the 13 WSOP 2023 Event #43 hands replay through
the engine to their recorded finishing stacks; reading and writing round-trip; illegal actions
are refused with the rule; hands the engine plays are recorded and replay identically."""

from __future__ import annotations

import datetime
import re
import tomllib
from dataclasses import replace

import pokerkit
import pytest
from hypothesis import HealthCheck, given, settings

from games.engine import stud_phh
from games.engine.common import RuleViolation
from games.engine.dealer import Deck
from games.engine.stud import start_hand
from games.engine.stud_phh import HandHistory
from tests.fixtures.phh import WSOP_DIR, WSOP_HANDS
from tests.fixtures.stud_play import TABLE, passive, play, random_hand, stud_deck


def wsop_text(name: str) -> str:
    return (WSOP_DIR / name).read_text(encoding="utf-8")


def test_all_wsop_hands_are_listed():
    assert sorted(path.name for path in WSOP_DIR.glob("*.phh")) == sorted(WSOP_HANDS)


@pytest.mark.parametrize("name", WSOP_HANDS)
def test_wsop_hand_replays_to_its_finishing_stacks(name):
    """No hand disagrees with RULES.md: none reaches the ST-8 cap, bets big on fourth street
    (ST-5) or needs ST-9. PokerKit, which wrote the files, agrees on every stack."""
    hand = stud_phh.loads(wsop_text(name))
    result = stud_phh.replay(hand)
    assert result.finishing_stacks == hand.finishing_stacks
    history = pokerkit.HandHistory.loads(wsop_text(name))
    *_, final = history
    assert tuple(final.stacks) == result.finishing_stacks


def test_wsop_showdown_follows_st10():
    """Hand 11: both check the river; p1 acted first (Th showing), so shows first (ST-10), and
    p2, beaten, mucks."""
    result = stud_phh.replay(stud_phh.loads(wsop_text("wsop-2023-43-day5-11_00_35_59.phh")))
    showdown = [e for e in result.events if e.kind in ("showdown", "show", "muck")]
    assert [(e.kind, e.data.get("seat")) for e in showdown] == [
        ("showdown", None),
        ("show", 0),
        ("muck", 1),
    ]
    assert showdown[1].data["hand"] == "Two pair, Tens and Sixes"


@pytest.mark.parametrize("name", WSOP_HANDS)
def test_wsop_hand_round_trips_through_text(name):
    text = wsop_text(name)
    hand = stud_phh.loads(text)
    written = stud_phh.dumps(hand)
    assert stud_phh.loads(written) == hand
    assert tomllib.loads(written) == tomllib.loads(text)


# Illegal actions ----------------------------------------------------------------------------------


def edited(name: str, old: str, new: str) -> HandHistory:
    return edited_hand(stud_phh.loads(wsop_text(name)), old, new)


def edited_hand(hand: HandHistory, old: str, new: str) -> HandHistory:
    assert old in hand.actions
    actions = tuple(new if action == old else action for action in hand.actions)
    return replace(hand, actions=tuple(a for a in actions if a))


HAND_11 = "wsop-2023-43-day5-11_00_35_59.phh"


def test_replay_refuses_a_fifth_bet_with_four_players_in():
    """ST-8: completion, 400,000, 600,000, 800,000 is the cap; a raise to 1,000,000 is refused."""
    hand = edited(HAND_11, "p3 f", "p3 cbr 800000")
    hand = replace(
        hand, actions=tuple("p4 cbr 1000000" if a == "p4 f" else a for a in hand.actions)
    )
    with pytest.raises(RuleViolation, match="cap") as refused:
        stud_phh.replay(hand)
    assert refused.value.rule == "ST-8"


def test_replay_refuses_acting_out_of_turn():
    hand = edited(HAND_11, "p3 cbr 200000", "")
    with pytest.raises(RuleViolation, match="seat 2 acts now, not seat 3") as refused:
        stud_phh.replay(hand)
    assert refused.value.rule == "ST-3"


def test_replay_refuses_a_big_bet_on_fourth_street_without_an_open_pair():
    hand = edited(HAND_11, "p2 cbr 200000", "p2 cbr 400000")
    with pytest.raises(RuleViolation, match="bet to 400000 is not allowed") as refused:
        stud_phh.replay(hand)
    assert refused.value.rule == "ST-1"


def test_replay_refuses_a_completion_to_more_than_the_small_bet():
    hand = edited(HAND_11, "p3 cbr 200000", "p3 cbr 300000")
    with pytest.raises(RuleViolation, match="ST-3"):
        stud_phh.replay(hand)


def test_replay_refuses_showing_other_cards():
    hand = edited(HAND_11, "p1 sm QhTcTh6cKcAh6d", "p1 sm QhTcTh6cKcAhAs")
    with pytest.raises(RuleViolation, match="not the player's cards") as refused:
        stud_phh.replay(hand)
    assert refused.value.rule == "ST-10"


def test_replay_refuses_a_show_while_the_betting_goes_on():
    """ST-10: before the showdown, cards are shown only once no more betting is possible."""
    hand = stud_phh.loads(wsop_text(HAND_11))
    assert hand.actions[13:15] == ("p1 cc", "d dh p1 6c")  # third street's betting is over
    hand = replace(hand, actions=(*hand.actions[:14], "p1 sm QhTcTh", *hand.actions[14:]))
    with pytest.raises(RuleViolation, match="cards are shown at the showdown") as refused:
        stud_phh.replay(hand)
    assert refused.value.rule == "ST-10"


def test_a_muck_concedes_a_hand_that_could_win():
    """PHH's ``pN sm`` without cards gives up the hand: p1's two pair is mucked, so p2's pair of
    jacks takes the pot, as PokerKit computes."""
    hand = edited(HAND_11, "p1 sm QhTcTh6cKcAh6d", "p1 sm")
    hand = replace(hand, actions=(*hand.actions[:-1], "p2 sm JsJc2c4h7h6h9c"))
    result = stud_phh.replay(hand)
    *_, final = pokerkit.HandHistory.loads(stud_phh.dumps(hand))
    assert result.finishing_stacks == tuple(final.stacks)
    assert result.finishing_stacks[1] > stud_phh.loads(wsop_text(HAND_11)).finishing_stacks[1]
    assert [e.kind for e in result.events][-4:-2] == ["muck", "show"]


def test_the_last_hand_in_a_pot_cannot_be_mucked():
    """Someone wins every pot (ST-11): after p1 mucks, p2's is the last hand, and is shown."""
    hand = edited(HAND_11, "p1 sm QhTcTh6cKcAh6d", "p1 sm")
    with pytest.raises(RuleViolation, match="the last hand in a pot is shown") as refused:
        stud_phh.replay(hand)
    assert refused.value.rule == "ST-11"


def test_replay_refuses_dealing_to_a_player_who_folded():
    hand = edited(HAND_11, "d dh p2 4h", "d dh p3 4h")
    with pytest.raises(RuleViolation, match="ST-4"):
        stud_phh.replay(hand)


def test_unknown_cards_a_player_shows_are_read_from_the_show():
    """p1's down cards are ?? when dealt; p1 shows them at the showdown, so the replay knows
    them and the hand ends as recorded."""
    hand = edited(HAND_11, "d dh p1 QhTcTh", "d dh p1 ????Th")
    assert stud_phh.replay(hand).finishing_stacks == hand.finishing_stacks


def test_an_unknown_card_that_decides_a_result_is_refused_by_name():
    """ST-11: a hand at the showdown whose unknown cards are never shown cannot be valued;
    ST-3: an unknown door card could be the lowest."""
    hand = edited(HAND_11, "d dh p1 QhTcTh", "d dh p1 ????Th")
    hand = edited_hand(hand, "p1 sm QhTcTh6cKcAh6d", "p1 sm -")
    with pytest.raises(RuleViolation, match="p1's card 1 is unknown") as refused:
        stud_phh.replay(hand)
    assert (refused.value.rule, refused.value.field) == ("ST-11", "actions")
    hand = edited(HAND_11, "d dh p2 JsJc2c", "d dh p2 JsJc??")
    with pytest.raises(RuleViolation, match="p2's card 3 is unknown") as refused:
        stud_phh.replay(hand)
    assert refused.value.rule == "ST-3"


def test_replay_needs_one_ante():
    hand = stud_phh.loads(wsop_text(HAND_11))
    with pytest.raises(RuleViolation, match="one ante") as refused:
        stud_phh.replay(replace(hand, antes=(50000, 50000, 50000, 50000, 25000)))
    assert refused.value.rule == "ST-1"


def test_loads_refuses_other_variants_and_gaps():
    text = wsop_text(HAND_11)
    with pytest.raises(ValueError, match="F7S"):
        stud_phh.loads(text.replace("'F7S'", "'NT'"))
    with pytest.raises(ValueError, match="lacks bring_in"):
        stud_phh.loads("\n".join(line for line in text.splitlines() if "bring_in" not in line))
    with pytest.raises(ValueError, match=r"small_bet must be whole minor units, got 200000\.5$"):
        stud_phh.loads(text.replace("small_bet = 200000", "small_bet = 200000.5"))
    with pytest.raises(ValueError, match=r"antes must be whole minor units, got NaN"):
        stud_phh.loads(text.replace("antes = [50000,", "antes = [nan,"))


@pytest.mark.parametrize(
    ("variant", "name"),
    [("NT", "no-limit Texas hold'em"), ("PO", "pot-limit Omaha hold'em")],
)
def test_a_hold_em_or_omaha_file_is_named_by_its_variant(variant, name):
    """Such a file has blinds, not a bring-in and bets: its variant is what is wrong with it."""
    text = "\n".join(
        line
        for line in wsop_text(HAND_11).replace("'F7S'", f"'{variant}'").splitlines()
        if not line.startswith(("bring_in", "small_bet", "big_bet"))
    )
    with pytest.raises(ValueError, match=f"variant '{variant}' \\({name}\\) is not F7S"):
        stud_phh.loads(text + "\nblinds_or_straddles = [0, 0, 0, 0, 0]\nmin_bet = 1\n")


# The other forms PHH allows, as PokerKit replays them ---------------------------------------------

AMOUNT_FIELDS = ("antes", "bring_in", "small_bet", "big_bet", "starting_stacks", "finishing_stacks")


def unknown_folded_cards(text: str) -> str:
    """The down cards of every player who folds and never shows written ``??``, as published
    histories and a player's own download have them."""
    hand = stud_phh.loads(text)
    shows = {a.split()[0] for a in hand.actions if a.split()[1:2] == ["sm"]}
    folded = {a.split()[0] for a in hand.actions if a.split()[1:] == ["f"]} - shows
    dealt: dict[str, int] = {}
    actions = []
    for action in hand.actions:
        words = action.split()
        if words[:2] == ["d", "dh"] and words[2] in folded:
            cards = [words[3][i : i + 2] for i in range(0, len(words[3]), 2)]
            first = dealt.get(words[2], 0)
            down = [first + n in (0, 1, 6) for n in range(len(cards))]  # ST-2, ST-7
            action = f"d dh {words[2]} " + "".join(
                "??" if hidden else card for card, hidden in zip(cards, down, strict=True)
            )
        if words[:2] == ["d", "dh"]:
            dealt[words[2]] = dealt.get(words[2], 0) + len(words[3]) // 2
        actions.append(action)
    assert actions != list(hand.actions)  # every WSOP hand has a player who folds
    return stud_phh.dumps(replace(hand, actions=tuple(actions)))


def comments_alone(text: str) -> str:
    """Comment-only actions, PHH's no-ops, before the bring-in and before the last action."""
    hand = stud_phh.loads(text)
    first, actions = len(hand.starting_stacks), list(hand.actions)
    actions.insert(first, "# Burn card 6s is exposed")
    actions.insert(len(actions) - 1, "# the floor is called")
    return stud_phh.dumps(replace(hand, actions=tuple(actions)))


def one_card_per_action(text: str) -> str:
    """Third street dealt a card at a time, in dealing order (ST-2)."""
    hand = stud_phh.loads(text)
    players = len(hand.starting_stacks)
    third = [action.split() for action in hand.actions[:players]]
    dealt = [f"d dh {words[2]} {words[3][2 * n : 2 * n + 2]}" for n in range(3) for words in third]
    return stud_phh.dumps(replace(hand, actions=(*dealt, *hand.actions[players:])))


def decimal_amounts(text: str) -> str:
    """Every amount written as a decimal number, ``50000.0``."""
    fields = "|".join(AMOUNT_FIELDS)
    return re.sub(
        rf"(?m)^({fields}) = (.*)$",
        lambda line: f"{line[1]} = " + re.sub(r"\d+", r"\g<0>.0", line[2]),
        text,
    )


FORMS = [unknown_folded_cards, comments_alone, one_card_per_action, decimal_amounts]


@pytest.mark.parametrize("form", FORMS, ids=lambda form: form.__name__)
def test_wsop_hands_in_every_form_replay_to_their_finishing_stacks(form):
    """Each of the 13 hands, rewritten in a form the PHH standard allows, replays here and in
    PokerKit to the recorded stacks."""
    for name in WSOP_HANDS:
        original = wsop_text(name)
        text = form(original)
        assert text != original
        recorded = stud_phh.loads(original).finishing_stacks
        assert stud_phh.replay(stud_phh.loads(text)).finishing_stacks == recorded, name
        *_, final = pokerkit.HandHistory.loads(text)
        assert tuple(final.stacks) == recorded, name


# Writing ------------------------------------------------------------------------------------------


def test_dumps_escapes_strings_and_writes_other_fields():
    hand = HandHistory(
        antes=(5, 5),
        bring_in=10,
        small_bet=20,
        big_bet=40,
        starting_stacks=(1000, 1000),
        actions=('d dh p1 AsKsQs # the "nuts" \\ so far',),
        finishing_stacks=(1000, 1000),
        extra={
            "event": 'Quote " backslash \\ newline \n tab \t bell \x07 del \x7f É',
            "players": ["Ann", "Bo b"],
            "ante_trimming_status": False,
            "time": datetime.time(12, 30),
            "day": 5,
            "seat map": {"first seat": 1},
        },
    )
    text = stud_phh.dumps(hand)
    assert text.splitlines()[:2] == ['variant = "F7S"', "ante_trimming_status = false"]
    assert '["seat map"]\n"first seat" = 1' in text  # written by tomli-w, read by tomllib
    assert "\\u0007" in text
    assert stud_phh.loads(text) == hand


# Recording engine hands ---------------------------------------------------------------------------


def comparable(events):
    """Events without deck positions and burns, which a replay's deck does not share."""
    skipped = {"burn", "reshuffle"}
    kept = []
    for event in events:
        if event.kind in skipped:
            continue
        data = {k: v for k, v in event.data.items() if k not in ("shuffle", "positions")}
        if event.kind == "deal":
            data["cards"] = [{k: c[k] for k in ("seat", "card", "face")} for c in data["cards"]]
        kept.append((event.kind, data))
    return kept


def test_a_common_card_hand_is_recorded_and_replayed():
    """ST-9's common card is written as a board card (``d db``) and replayed from it."""
    state, events = start_hand(TABLE, [1000] * 8, Deck.stacked([]))
    state, played = passive(state)
    events += played
    hand = stud_phh.record(state, events)
    assert f"d db {state.common}" in hand.actions
    result = stud_phh.replay(stud_phh.loads(stud_phh.dumps(hand)))
    assert result.state.common == state.common
    assert result.finishing_stacks == state.finishing_stacks
    assert comparable(result.events) == comparable(events)


def test_replay_refuses_a_common_card_when_the_burns_suffice():
    """ST-9: seven players at seventh street get the last card from the rest of the deck and
    the burns; a history turning up a common card instead is refused."""
    state, events = start_hand(TABLE, [1000] * 7, Deck.stacked([]))
    state, played = passive(state)
    hand = stud_phh.record(state, events + played)
    seventh = [action for action in hand.actions if action.startswith("d dh ")][-7:]
    at = hand.actions.index(seventh[0])
    actions = [a for a in hand.actions if a not in seventh]
    actions.insert(at, f"d db {seventh[0].split()[3]}")
    with pytest.raises(RuleViolation, match="the rules deal nothing there") as refused:
        stud_phh.replay(replace(hand, actions=tuple(actions)))
    assert refused.value.rule == "ST-9"


def test_a_short_ante_is_recorded_trimmed_and_untrimmed_antes_are_refused():
    """ST-13: a player all in for less than the ante makes a side pot. The casino writes its
    antes trimmed (``ante_trimming_status = true``), and PokerKit agrees on the stacks; PHH's
    default, untrimmed, would put every ante in the main pot, so such a hand is refused."""
    state, events = start_hand(TABLE, [3, 1000, 1000], Deck.stacked([]))
    state, played = passive(state)
    events += played
    hand = stud_phh.record(state, events)
    assert hand.extra["ante_trimming_status"] is True
    result = stud_phh.replay(stud_phh.loads(stud_phh.dumps(hand)))
    *_, final = pokerkit.HandHistory.loads(stud_phh.dumps(hand))
    assert result.finishing_stacks == state.finishing_stacks == tuple(final.stacks)
    untrimmed = replace(hand, extra={**hand.extra, "ante_trimming_status": False})
    with pytest.raises(RuleViolation, match="less than the ante") as refused:
        stud_phh.replay(untrimmed)
    assert (refused.value.rule, refused.value.field) == ("ST-13", "ante_trimming_status")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_hand())
def test_engine_hands_record_and_replay(hand):
    state, events, _ = hand
    recorded = stud_phh.record(state, events)
    result = stud_phh.replay(stud_phh.loads(stud_phh.dumps(recorded)))
    assert result.finishing_stacks == state.finishing_stacks == recorded.finishing_stacks
    assert comparable(result.events) == comparable(events)


def open_pair_hand(bet: int) -> tuple[HandHistory, tuple[int, ...] | None]:
    """Seat 0 bets ``bet`` on fourth street with its open fives, then everyone checks and calls."""
    deck = stud_deck(["Ac Kd 5h", "Qc Jd 2c", "4s 9s Th"], "As | 5d 3d 8c")
    state, events = start_hand(TABLE, [1000] * 3, deck)
    state, played = play(state, "1 bring_in", "2 call", "0 call", f"0 bet {bet}")
    events += played
    state, played = passive(state)
    return stud_phh.record(state, [*events, *played]), state.finishing_stacks


def test_an_open_pair_big_bet_replays_here_and_not_in_pokerkit():
    """ST-5 on (the source): the small bet replays here and in PokerKit; the big bet replays
    here only (PokerKit follows the 2023 WSOP rules and cannot play it). With the table's ST-5
    off, the big bet is refused here too, naming ST-5."""
    small, stacks = open_pair_hand(20)
    *_, final = pokerkit.HandHistory.loads(stud_phh.dumps(small))
    assert tuple(final.stacks) == stacks
    big, stacks = open_pair_hand(40)
    text = stud_phh.dumps(big)
    assert stud_phh.replay(stud_phh.loads(text)).finishing_stacks == stacks
    with pytest.raises(KeyError):
        list(pokerkit.HandHistory.loads(text))
    off = replace(big, extra={**big.extra, "_open_pair_big_bet": False})
    with pytest.raises(RuleViolation, match="only to 20") as refused:
        stud_phh.replay(stud_phh.loads(stud_phh.dumps(off)))
    assert refused.value.rule == "ST-5"
