"""The collusion report finds planted colluders among honest players (UKGC RTS 11; the house's
fair-play check, games.peer.collusion), and does not flag the honest ones.

A simulated session per seed: six players at a seven-card stud table play HANDS hands on the
engine (the same engine the services play on), each hand stored as the services store it
(``Hand.to_json`` and the events' JSON) and read back by the report's own reader
(``read_hand``), then scored (``score_pairs``) at the default threshold. Four honest players
decide at random, folding strong cards rarely; a planted pair, the colluder and its partner,
play the same way against the others. Two kinds of pair, each in sessions of its own:

- soft play: while the partner is in the hand the colluder never bets or raises and folds to
  every bet of the partner, strong cards too; the partner plays honestly;
- chip dumping: while the partner is in the hand the colluder puts chips in whatever its cards
  (raises the partner's bring-in and bets, bets when nobody has, calls the others to stay in)
  and folds when the partner raises its bet or bets on seventh street; the partner raises
  each bet of the colluder, and otherwise plays honestly.

Measured at the default threshold of 4.0 over HANDS = 150 hands a session (seeded: the test is
deterministic), "honest pairs" being every pair but the planted one, 14 a session, honest
players with a colluder included:

- soft play, 10 seeds: the pair flagged in 10 of 10 (100%) by its soft-play score (4.23 to
  5.95); its chip flow 0.02 to 3.44 and strong folds 0.79 to 2.81 flag it in none. Honest
  pairs flagged: 0 of 140 (0%; their highest score on any signal 2.92).
- chip dumping, 15 seeds: the pair flagged by its chip flow in 14 of 15 (93%; 3.81 to 5.95);
  its soft play (0 to 0.44) and strong folds (0.85 to 1.71) flag it in none. Honest pairs
  flagged: 1 of 210 (0.5%: an honest player and the colluder, who loses to everybody while it
  dumps, chip flow 4.08).
- The chip flow as it was scored before, the flows' amounts over the root of their squares,
  flagged the dumpers in 13 of the 15 seeds (24 of 30 over 30 seeds, 80%); the signed ranks
  flag them in 28 of 30 (93%), and 4 of 420 honest pairs (1.0%, each with a colluder).

The test asserts the bounds: the planted pair flagged (by the signal named for it) in at least
90% of the seeds, at most 5% of honest pairs flagged.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.conf import settings

from games.engine import stud
from games.engine.betting import Action, ActionKind
from games.engine.dealer import Deck
from games.engine.hands import strong_holding
from games.peer.collusion import HandRead, read_hand, score_pairs
from games.staff.fair_play import SIGNALS
from games.stud.hand import Hand
from games.stud.tasks import STUD

HANDS = 150
PLAYERS = (1, 2, 3, 4, 5, 6)
COLLUDER, PARTNER = 5, 6  # the one who gives, the one given to
TABLE = stud.StudTable(ante=10, bring_in=20, small_bet=50, big_bet=100)
STACK = 10_000


@dataclass
class Betting:
    """What a player sees of the street being bet: the seat whose bet or raise it faces (None
    when nobody has bet) and the seats that have bet or raised on it."""

    street: str | None = None
    facing: int | None = None
    aggressors: set[int] = field(default_factory=set)

    def follow(self, kind: str, data: dict[str, Any]) -> None:
        if data.get("street") not in (None, self.street):
            self.street, self.facing, self.aggressors = data["street"], None, set()
        if kind in ("bring_in", "complete", "bet", "raise"):
            self.facing = data["seat"]
        if kind in ("complete", "bet", "raise"):
            self.aggressors.add(data["seat"])


# A colluder's decision: the generator, the hand, its seat, its partner's seat, the street.
Strategy = Callable[[random.Random, stud.StudState, int, int, Betting], Action]


def honest(rng: random.Random, state: stud.StudState, seat: int) -> Action:
    """Random play that keeps strong cards (``strong_holding``) far more often than others."""
    kinds = {option.kind for option in stud.legal_actions(state)}
    strong = strong_holding(state.hands[seat].cards)
    if ActionKind.SHOW in kinds:
        return Action(seat, ActionKind.SHOW)
    if ActionKind.BRING_IN in kinds:
        kind = ActionKind.COMPLETE if rng.random() < 0.2 else ActionKind.BRING_IN
        return Action(seat, kind)
    opening = next((k for k in (ActionKind.BET, ActionKind.COMPLETE) if k in kinds), None)
    if ActionKind.CHECK in kinds:
        aggressive = opening is not None and rng.random() < (0.6 if strong else 0.3)
        return Action(seat, opening if aggressive and opening else ActionKind.CHECK)
    raising = ActionKind.RAISE if ActionKind.RAISE in kinds else opening
    roll = rng.random()
    if strong:
        if raising is not None and roll < 0.3:
            return Action(seat, raising)
        return Action(seat, ActionKind.FOLD if roll > 0.98 else ActionKind.CALL)
    if roll < 0.35:
        return Action(seat, ActionKind.FOLD)
    if raising is not None and roll < 0.45:
        return Action(seat, raising)
    return Action(seat, ActionKind.CALL)


def spares(
    rng: random.Random, state: stud.StudState, seat: int, partner: int, play: Betting
) -> Action:
    """Soft play: honest, but while the partner is in the hand no bet or raise, and a fold to
    each of the partner's bets, whatever the cards."""
    if partner not in state.in_hand:
        return honest(rng, state, seat)
    kinds = {option.kind for option in stud.legal_actions(state)}
    if ActionKind.SHOW in kinds:
        return Action(seat, ActionKind.SHOW)
    if play.facing == partner and ActionKind.FOLD in kinds:
        return Action(seat, ActionKind.FOLD)
    for kind in (ActionKind.BRING_IN, ActionKind.CHECK, ActionKind.CALL):
        if kind in kinds:
            return Action(seat, kind)
    return honest(rng, state, seat)


def dumps(
    rng: random.Random, state: stud.StudState, seat: int, partner: int, play: Betting
) -> Action:
    """Chip dumping: honest, but while the partner is in the hand the colluder puts chips in
    whatever its cards (raises the partner's bring-in and bets, bets when nobody has, calls the
    others to stay in) and folds to the partner's raise of its own bet, or to the partner's bet
    on seventh street."""
    if partner not in state.in_hand:
        return honest(rng, state, seat)
    kinds = {option.kind for option in stud.legal_actions(state)}
    if ActionKind.SHOW in kinds:
        return Action(seat, ActionKind.SHOW)
    if play.facing == partner and (seat in play.aggressors or state.street == stud.Street.SEVENTH):
        return Action(seat, ActionKind.FOLD)
    wanted = (ActionKind.RAISE, ActionKind.COMPLETE) if play.facing == partner else ()
    for kind in (*wanted, ActionKind.BET, ActionKind.COMPLETE, ActionKind.CALL):
        if kind in kinds:
            return Action(seat, kind)
    return honest(rng, state, seat)


def receives(
    rng: random.Random, state: stud.StudState, seat: int, partner: int, play: Betting
) -> Action:
    """The dumper's partner: honest, but raises each bet of the colluder (so that it may fold)."""
    kinds = {option.kind for option in stud.legal_actions(state)}
    if play.facing == partner and ActionKind.RAISE in kinds:
        return Action(seat, ActionKind.RAISE)
    return honest(rng, state, seat)


def plays_honestly(
    rng: random.Random, state: stud.StudState, seat: int, partner: int, play: Betting
) -> Action:
    return honest(rng, state, seat)


# The planted pairs: the colluder's strategy, then the partner's.
SOFT_PLAY = (spares, plays_honestly)
CHIP_DUMPING = (dumps, receives)


def play_hand(
    rng: random.Random,
    seed: int,
    number: int,
    players: tuple[int, ...],
    colluders: tuple[Strategy, Strategy],
) -> HandRead:
    deck = Deck.shuffled(f"{seed:064x}", "simulation", number)
    state, events = stud.start_hand(TABLE, [STACK] * len(players), deck)
    events = list(events)
    play = Betting()
    colluder, partner = players.index(COLLUDER), players.index(PARTNER)
    strategies = {colluder: (colluders[0], partner), partner: (colluders[1], colluder)}
    while state.to_act is not None:
        seat = state.to_act
        if seat in strategies:
            strategy, other = strategies[seat]
            action = strategy(rng, state, seat, other, play)
        else:
            action = honest(rng, state, seat)
        state, new = stud.apply(state, action)
        for event in new:
            play.follow(event.kind, event.data)
        events.extend(new)
    hand = Hand(state, tuple(range(1, len(players) + 1)), players, ())
    # Stored and read back as the services store a hand and its history.
    stored = Hand.from_json(json.loads(json.dumps(hand.to_json())))
    history: list[tuple[str, Any]] = [
        (event.kind, json.loads(json.dumps(event.data))) for event in events
    ]
    results, decisions = read_hand(stored, history, STUD.folded_cards)
    return HandRead(number, "seven_card_stud", "Sim", number, "USD", players, results, decisions)


def session(seed: int, colluders: tuple[Strategy, Strategy]) -> list[HandRead]:
    rng = random.Random(seed)
    hands = []
    for number in range(1, HANDS + 1):
        players = list(PLAYERS)
        rng.shuffle(players)  # seats change as players come and go
        hands.append(play_hand(rng, seed, number, tuple(players), colluders))
    return hands


@pytest.mark.slow
@pytest.mark.parametrize(
    ("colluders", "caught_by", "seeds"),
    [
        pytest.param(SOFT_PLAY, SIGNALS, 10, id="soft-play"),
        pytest.param(CHIP_DUMPING, ("chip_flow",), 15, id="chip-dumping"),
    ],
)
def test_planted_colluders_are_flagged_and_honest_pairs_are_not(colluders, caught_by, seeds):
    threshold = settings.COLLUSION_ALERT_SCORE
    colluders_found, honest_flagged, honest_pairs = 0, 0, 0
    for seed in range(seeds):
        for pair in score_pairs(session(seed, colluders)):
            if (pair.first, pair.second) == (COLLUDER, PARTNER):
                score = max(getattr(pair, signal).score for signal in caught_by)
                colluders_found += score >= threshold
            else:
                honest_pairs += 1
                score = max(getattr(pair, signal).score for signal in SIGNALS)
                honest_flagged += score >= threshold
    assert honest_pairs == seeds * 14
    assert colluders_found >= 0.9 * seeds
    assert honest_flagged <= 0.05 * honest_pairs
