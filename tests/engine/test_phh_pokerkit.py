"""PHH files as PokerKit writes them: random seven-card stud hands played by PokerKit (2 to 8
players, short stacks and all-ins, PokerKit's own showdown and a player now and then mucking a
hand that could win) replay through ``stud_phh.replay`` to PokerKit's finishing stacks, or are
refused for a rule the project deliberately follows differently, and the test checks in the hand
itself that the named rule is the reason."""

from __future__ import annotations

import re
import warnings
from collections import Counter

import pytest

from games.engine import stud_phh
from games.engine.cards import parse_card
from games.engine.common import RuleViolation
from games.engine.stud import StudState
from games.engine.stud_phh import HandHistory, Replay
from tests.fixtures.phh import ALL_IN_ON_THE_ANTES, pokerkit_hand

HANDS = 500


# The rules the project follows differently, each checked against the hand --------------------


def _all_in_on_the_ante_has_the_lowest_door(hand: HandHistory) -> bool:
    """ST-3 (the engine's reading): a player all in on the ante cannot bring in, the lowest door
    card among the players with chips does; PokerKit has the next player bring in instead."""
    doors = {}
    for action in hand.actions:
        words = action.split()
        if words[:2] == ["d", "dh"] and len(words[3]) == 6:
            doors[int(words[2][1:]) - 1] = parse_card(words[3][4:])
    lowest = min(doors, key=doors.__getitem__)  # FS-1 order: the ST-3 order
    return hand.starting_stacks[lowest] <= hand.antes[0]


def _folded_card_dealt_again(hand: HandHistory, refusal: RuleViolation) -> bool:
    """ST-9: the refused deal gives a card that went first to a player who had folded."""
    named = re.search(r"(\w\w) was dealt to (p\d)", refusal.message)
    assert named is not None, refusal
    card, player = named.groups()
    first = next(
        i for i, a in enumerate(hand.actions) if a.startswith(f"d dh {player} ") and card in a
    )
    again = next(
        i for i, a in enumerate(hand.actions) if i > first and a.startswith("d d") and card in a
    )
    return f"{player} f" in hand.actions[first:again]


def _short_all_in_wager(hand: HandHistory) -> bool:
    """Fixed limit after an all-in for less than a full bet or raise: the engine lets the next
    player complete to a full bet only, and never reopens the betting to players who have acted
    (RULES.md is silent; PokerKit raises a full bet on top and reopens). True if the hand has
    such a wager, counted from its actions."""
    left = [stack - hand.antes[0] for stack in hand.starting_stacks]
    bets = [0] * len(left)
    street = 0
    for action in hand.actions:
        words = action.split()
        if words[0] == "d":
            if any(bets):
                street, bets = street + 1, [0] * len(left)
            continue
        seat, verb = int(words[0][1:]) - 1, words[1]
        level = max(bets)
        if verb == "pb":
            target = min(hand.bring_in, bets[seat] + left[seat])
        elif verb == "cc":
            target = min(level, bets[seat] + left[seat])
        elif verb == "cbr":
            target = int(words[2])
            size = hand.small_bet if street < 2 else hand.big_bet
            full = target >= (size if level <= hand.bring_in and street == 0 else level + size)
            if target == bets[seat] + left[seat] and not full:
                return True
        else:
            continue
        left[seat] -= target - bets[seat]
        bets[seat] = target
    return False


def deliberate_difference(hand: HandHistory, refusal: RuleViolation) -> str:
    """The name of the rule that refuses the hand, after checking in the hand that it applies."""
    if refusal.rule == "ST-3":
        assert _all_in_on_the_ante_has_the_lowest_door(hand), refusal
        return "ST-3: no bring-in from a player all in on the ante"
    if refusal.rule == "ST-9":
        assert _folded_card_dealt_again(hand, refusal), refusal
        return "ST-9: folded cards are never used again"
    if refusal.rule == "ST-13":
        assert not hand.extra.get("ante_trimming_status"), refusal
        assert min(hand.starting_stacks) < hand.antes[0], refusal
        return "ST-13: a short ante makes a side pot"
    assert refusal.rule in ("ST-1", "ST-5", "ST-6", "ST-7"), refusal  # the street's limit
    assert "complete to" in refusal.message or "does not reopen" in refusal.message, refusal
    assert _short_all_in_wager(hand), refusal
    return "fixed limit: a short all-in is completed, never reopens"


@pytest.fixture(scope="module")
def outcomes() -> list[tuple[HandHistory, Replay[StudState] | None, str]]:
    """Each generated hand as read, its replay if any, and "replayed" or the difference."""
    found: list[tuple[HandHistory, Replay[StudState] | None, str]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns when it deals its reserve of cards
        for seed in range(HANDS):
            text, stacks = pokerkit_hand(seed)
            hand = stud_phh.loads(text)
            assert hand.finishing_stacks == stacks
            try:
                result = stud_phh.replay(hand)
            except RuleViolation as refusal:
                found.append((hand, None, deliberate_difference(hand, refusal)))
                continue
            assert result.finishing_stacks == stacks, f"hand {seed}:\n{text}"
            found.append((hand, result, "replayed"))
    return found


@pytest.mark.slow
def test_pokerkit_hands_replay_to_pokerkit_stacks_or_are_refused_by_a_named_rule(outcomes):
    tally = Counter(outcome for *_, outcome in outcomes)
    assert len(outcomes) == HANDS
    assert tally["replayed"] >= HANDS * 0.6
    assert set(tally) == {
        "replayed",
        "ST-3: no bring-in from a player all in on the ante",
        "ST-9: folded cards are never used again",
        "ST-13: a short ante makes a side pot",
        "fixed limit: a short all-in is completed, never reopens",
    }


@pytest.mark.slow
def test_replayed_pokerkit_hands_cover_the_cases_pokerkit_writes(outcomes):
    """Among the hands that replay: eight players, the common card (``d db``), hands shown early
    with players all in (five or six cards), a muck of a hand that could win, untrimmed antes."""
    replayed = [(hand, result) for hand, result, outcome in outcomes if result is not None]

    def count(test) -> int:
        return sum(1 for hand, _ in replayed if test(hand))

    def shows(hand: HandHistory, sizes: set[int]) -> bool:
        return any(
            a.split()[1] == "sm" and len(a.split()) == 3 and len(a.split()[2]) // 2 in sizes
            for a in hand.actions
            if a[0] == "p"
        )

    assert count(lambda hand: len(hand.starting_stacks) == 8) >= 100
    assert count(lambda hand: any(a.startswith("d db ") for a in hand.actions)) >= 5
    assert count(lambda hand: shows(hand, {5, 6})) >= 20
    assert count(lambda hand: any(a.endswith(" sm") for a in hand.actions)) >= 20
    assert count(lambda hand: not hand.extra["ante_trimming_status"]) >= 10
    assert sum(1 for _, result in replayed if conceded(result)) >= 10


def conceded(result: Replay[StudState]) -> bool:
    """Whether a player mucked a hand better than one that won a pot the player could win."""
    state = result.state
    for event in result.events:
        if event.kind != "muck":
            continue
        seat = event.data["seat"]
        for pot in state.results:
            winners = [s for s, share in pot.shares if share]
            if seat in pot.eligible and state.value(seat) > min(map(state.value, winners)):
                return True
    return False


# What PokerKit writes, one case at a time --------------------------------------------------------


def test_hands_shown_all_in_before_the_last_cards_replay():
    """ST-10: with both players all in on the antes, PokerKit shows the hands at once, deals
    every street and shows again; the early shows are the cards dealt so far. The replay takes
    the last showdown in the rules' order: p2 (ace high showing) first, and p2 mucks."""
    text, stacks = pokerkit_hand(ALL_IN_ON_THE_ANTES)
    hand = stud_phh.loads(text)
    assert hand.actions[2:4] == ("p1 sm 4hKs6d", "p2 sm Tc7cKd")
    result = stud_phh.replay(hand)
    assert result.finishing_stacks == stacks == (10, 0)
    shows = [(e.kind, e.data.get("seat")) for e in result.events if e.kind in ("show", "muck")]
    assert shows == [("muck", 1), ("show", 0)]


def test_an_early_show_of_other_cards_is_refused():
    text, _ = pokerkit_hand(ALL_IN_ON_THE_ANTES)
    with pytest.raises(RuleViolation, match="not the player's cards") as refused:
        stud_phh.replay(stud_phh.loads(text.replace("'p1 sm 4hKs6d'", "'p1 sm 4hKs6c'")))
    assert refused.value.rule == "ST-10"
