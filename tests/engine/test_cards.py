"""Card notation and the canonical deck (FS-1)."""

from __future__ import annotations

import copy
import pickle

import pytest

from games.engine.cards import (
    ALL_CARDS,
    JOKER,
    RANKS,
    SUITS,
    Card,
    new_deck,
    parse_card,
    parse_cards,
)

CANONICAL_52 = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]


def test_every_card_round_trips_through_its_notation() -> None:
    deck = new_deck(jokers=1)
    assert len(deck) == 53
    for card in deck:
        text = str(card)
        assert parse_card(text) is card
        assert Card(text) is card
        assert f"{card}" == text
        assert repr(card) == f"Card({text!r})"


def test_new_deck_is_in_canonical_order() -> None:
    """FS-1: 2c 2d 2h 2s 3c ... As, and the 53-card deck appends JK last."""
    assert [str(card) for card in new_deck()] == CANONICAL_52
    assert [str(card) for card in new_deck(jokers=1)] == [*CANONICAL_52, "JK"]
    assert [card.index for card in new_deck(jokers=1)] == list(range(53))
    assert list(ALL_CARDS) == new_deck(jokers=1)


def test_sorting_cards_gives_canonical_order() -> None:
    """FS-1, FS-6: a reshuffle starts from sorted(cards)."""
    scrambled = parse_cards("JK As 2c Td 2s 9h Tc 2d")
    assert sorted(scrambled) == parse_cards("2c 2d 2s 9h Tc Td As JK")


def test_card_attributes() -> None:
    ace = parse_card("As")
    assert (ace.rank, ace.suit, ace.is_joker, ace.index) == (14, "s", False, 51)
    deuce = parse_card("2c")
    assert (deuce.rank, deuce.suit, deuce.is_joker, deuce.index) == (2, "c", False, 0)
    ten = parse_card("Td")
    assert (ten.rank, ten.suit) == (10, "d")
    assert (JOKER.rank, JOKER.suit, JOKER.is_joker, JOKER.index) == (None, None, True, 52)
    assert str(JOKER) == "JK"
    assert {card.rank for card in new_deck()} == set(range(2, 15))
    assert {card.suit for card in new_deck()} == set(SUITS)
    assert RANKS == "23456789TJQKA"


def test_cards_are_interned_through_copy_and_pickle() -> None:
    for card in ALL_CARDS:
        assert copy.copy(card) is card
        assert copy.deepcopy(card) is card
        assert pickle.loads(pickle.dumps(card)) is card  # noqa: S301 - our own bytes


def test_parse_cards_reads_space_separated_cards() -> None:
    assert [str(card) for card in parse_cards("As Kd JK")] == ["As", "Kd", "JK"]
    assert parse_cards("  Td\t2c ") == [parse_card("Td"), parse_card("2c")]
    assert parse_cards("") == []


@pytest.mark.parametrize("text", ["Ax", "1s", "", "AsKd", "as", "10s", "A", "JKs", "jk", " As"])
def test_bad_card_text_is_refused_naming_it_and_the_notation(text: str) -> None:
    with pytest.raises(ValueError, match="bad card") as caught:
        parse_card(text)
    message = str(caught.value)
    assert repr(text) in message
    assert "23456789TJQKA" in message
    assert "cdhs" in message
    assert "'JK'" in message


def test_glued_cards_are_refused() -> None:
    with pytest.raises(ValueError, match="'AsKd'.*separated by spaces"):
        parse_cards("AsKd Qh")


def test_duplicate_cards_are_refused_naming_the_card() -> None:
    with pytest.raises(ValueError, match="duplicate card Kd"):
        parse_cards("As Kd Qh Kd")
    with pytest.raises(ValueError, match="duplicate card JK"):
        parse_cards("JK 2c JK")


@pytest.mark.parametrize("bad", [None, 5, b"As"])
def test_non_text_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="bad card"):
        parse_card(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="card notation text"):
        parse_cards(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("jokers", [-1, 2, True, "1"])
def test_a_deck_has_no_joker_or_one(jokers: object) -> None:
    with pytest.raises(ValueError, match="jokers must be 0 or 1"):
        new_deck(jokers)  # type: ignore[arg-type]
