"""The immutable deck the peer games deal from: a seeded shuffle that reshuffles exactly as the
Shoe does (FS-6), a stacked deck for tests and replays, and JSON."""

from __future__ import annotations

import json

import pytest

from games.engine.cards import parse_cards
from games.engine.dealer import STANDARD_DECK, Deck, deck_from_json, deck_to_json, positions
from games.engine.fairness import Shoe, deck_order

SEED = "ab" * 32


def test_shuffled_deck_is_the_rounds_deck_order():
    deck = Deck.shuffled(SEED, "player", 3)
    assert list(deck.order) == deck_order(SEED, "player", 3)
    deck, cards = deck.deal(5)
    assert list(cards) == deck_order(SEED, "player", 3)[:5]
    assert deck.remaining == 47


def test_fs6_reshuffles_continue_the_shoes_byte_stream():
    """Two reshuffles in a row give what one Shoe making the same calls gives."""
    deck, shoe = Deck.shuffled(SEED, "player", 3), Shoe(SEED, "player", 3)
    deck, first = deck.deal(40)
    assert list(first) == shoe.deal(40)
    deck = deck.reshuffle(first[:6])
    shoe.reshuffle(first[:6])
    deck, second = deck.deal(10)
    assert list(second) == shoe.deal(10)
    deck = deck.reshuffle(second[:3])
    shoe.reshuffle(second[:3])
    deck, third = deck.deal(deck.remaining)
    assert list(third) == shoe.deal(shoe.remaining)
    assert deck.shuffle_number == 2


def test_stacked_deck_reshuffle_puts_named_cards_first_then_canonical_order():
    top = parse_cards("As Kd 2c")
    deck = Deck.stacked(top, [parse_cards("Kd")])
    assert deck.order[:3] == tuple(top)
    assert deck.order[3:] == tuple(c for c in STANDARD_DECK if c not in top)
    deck, _ = deck.deal(50)
    assert positions(deck, 2) == {"shuffle": 0, "positions": [50, 51]}
    undealt = deck.order[50:]
    deck = deck.reshuffle(parse_cards("As Kd"))
    assert deck.order[0] == parse_cards("Kd")[0]
    assert list(deck.order[1:]) == sorted([*parse_cards("As"), *undealt])
    assert positions(deck, 1) == {"shuffle": 1, "positions": [0]}


def test_reshuffle_refuses_cards_still_in_the_deck():
    deck, _ = Deck.shuffled(SEED, "player", 3).deal(10)
    with pytest.raises(ValueError, match="dealt cards"):
        deck.reshuffle([deck.order[20]])
    stacked, _ = Deck.stacked([]).deal(2)
    with pytest.raises(ValueError, match="on top"):
        # As was dealt and not returned: it cannot come out of the reshuffle.
        Deck.stacked(parse_cards("As 2c"), [parse_cards("As")]).deal(2)[0].reshuffle(
            parse_cards("2c")
        )
    with pytest.raises(ValueError, match="each once"):
        stacked.reshuffle(parse_cards("2c") * 2)


def test_stacked_deck_refuses_repeats():
    with pytest.raises(ValueError, match="at most once"):
        Deck.stacked(parse_cards("As") * 2)


def test_json_round_trip():
    deck, dealt = Deck.shuffled(SEED, "player", 3).deal(45)
    deck = deck.reshuffle(dealt[:4])
    for value in (deck, Deck.stacked(parse_cards("As"), [parse_cards("Kd")])):
        assert deck_from_json(json.loads(json.dumps(deck_to_json(value)))) == value
