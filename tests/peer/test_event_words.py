"""Every kind of event a peer hand's history can hold, whether its engine, the house or the pit
records it, has its words in its game or is kept out of the told history on purpose: a new kind
without words fails here, not on a player's page."""

from __future__ import annotations

import random
from decimal import Decimal
from enum import StrEnum

import pytest

from games.drawmaha.game import GAME as DRAWMAHA
from games.engine import drawmaha, stud
from games.engine.betting import WAGERS, Action, LegalAction, PeerEvent, Rake
from games.engine.common import Event
from games.engine.dealer import Deck
from games.engine.drawmaha import DrawAction, DrawChoice, DrawmahaEvent
from games.engine.stud import StudEvent
from games.peer.game import PeerTableGame
from games.peer.hands import HouseEvent
from games.stud.game import GAME as STUD
from games.tables.voids import PitEvent

KINDS: dict[PeerTableGame, tuple[type[StrEnum], ...]] = {
    STUD: (PeerEvent, StudEvent, HouseEvent, PitEvent),
    DRAWMAHA: (PeerEvent, DrawmahaEvent, HouseEvent, PitEvent),
}
HANDS = 40
RAKE = Rake(Decimal(5))


@pytest.mark.parametrize("game", KINDS, ids=lambda game: game.slug)
def test_every_kind_of_event_has_its_words_or_is_silent_on_purpose(game):
    kinds = [kind for enum in KINDS[game] for kind in enum]
    # No two enums of a game name the same kind: one's words would hide the other's.
    assert len(set(kinds)) == len(kinds)
    assert set(game.event_words) == set(kinds)
    assert all(words is None or callable(words) for words in game.event_words.values())


def _shuffled(rng: random.Random) -> Deck:
    return Deck.shuffled(rng.randbytes(32).hex(), "words", 1)


def _amount(rng: random.Random, option: LegalAction) -> int | None:
    return rng.randint(option.min_amount, option.max_amount) if option.kind in WAGERS else None


def _stud_hand(rng: random.Random) -> list[Event]:
    table = stud.StudTable(ante=5, bring_in=10, small_bet=20, big_bet=40, rake=RAKE)
    stacks = [rng.choice([7, 60, 1000]) for _ in range(rng.randint(2, 8))]
    state, events = stud.start_hand(table, stacks, _shuffled(rng))
    while state.to_act is not None:
        option = rng.choice(stud.legal_actions(state))
        state, more = stud.apply(state, Action(state.to_act, option.kind, _amount(rng, option)))
        events += more
    return events


def _drawmaha_hand(rng: random.Random) -> list[Event]:
    table = drawmaha.DrawmahaTable(small_blind=1, big_blind=2, rake=RAKE)
    stacks = [rng.choice([9, 80, 1000]) for _ in range(rng.randint(2, 7))]
    state, events = drawmaha.start_hand(table, stacks, 0, _shuffled(rng))
    while (seat := state.to_act) is not None:
        option = rng.choice(drawmaha.legal_actions(state))
        action: Action | DrawAction
        if isinstance(option, LegalAction):
            action = Action(seat, option.kind, _amount(rng, option))
        elif option.kind == DrawChoice.EXCHANGE:
            count = rng.randint(0, option.max_cards)
            action = DrawAction(seat, option.kind, tuple(rng.sample(state.hands[seat], count)))
        else:
            action = DrawAction(seat, option.kind)
        state, more = drawmaha.apply(state, action)
        events += more
    return events


@pytest.mark.parametrize(("game", "play"), [(STUD, _stud_hand), (DRAWMAHA, _drawmaha_hand)])
def test_the_engines_record_only_kinds_their_game_words(game, play):
    rng = random.Random(game.slug)
    recorded = {event.kind for _ in range(HANDS) for event in play(rng)}
    assert recorded <= set(game.event_words), recorded - set(game.event_words)
    # Each kind comes from its enum, never a string typed again.
    assert all(isinstance(kind, StrEnum) for kind in recorded)
