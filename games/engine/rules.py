"""The rules of the house's games by their ids, each game's an enum: a refusal cites its rule by
member, never by a string typed again. The values are the ids of the rulebook (the README's
rules sections), which the API returns as a refusal's ``code`` and the tests cite.
"""

from __future__ import annotations

from enum import StrEnum


class FairShuffleRule(StrEnum):
    """The provably fair shuffle every game deals from."""

    SEEDS_COMMITTED = "FS-2"
    SEED_REVEALED = "FS-7"


class JokerDrawRule(StrEnum):
    """Joker draw poker, banked: boxes against the dealer."""

    TABLE = "JD-1"  # the game itself: a table of it, its limits
    STAKES = "JD-2"
    DEAL = "JD-3"
    BOX_ORDER = "JD-4"
    FIRST_DECISION = "JD-5"
    SECOND_DECISION = "JD-6"
    THIRD_DECISION = "JD-7"
    DEALER_TURN = "JD-8"
    BONUS = "JD-13"
    PAYTABLES = "JD-14"
    BOXES_PER_PLAYER = "JD-15"
    BOXES_FIT_THE_DECK = "JD-16"


class StudRule(StrEnum):
    """Seven-card stud, fixed limit."""

    TABLE = "ST-1"  # the game itself: its table, its players, its limits
    THIRD_STREET = "ST-2"
    BRING_IN = "ST-3"
    FOURTH_STREET = "ST-4"
    OPEN_PAIR = "ST-5"
    BIG_BETS = "ST-6"
    SHORT_ALL_IN = "ST-6b"
    SEVENTH_STREET = "ST-7"
    RAISE_CAP = "ST-8"
    LAST_CARD = "ST-9"
    SHOWDOWN_ORDER = "ST-10"
    CARDS_SPEAK = "ST-11"
    SIDE_POTS = "ST-13"


class DrawmahaRule(StrEnum):
    """Drawmaha, pot limit: half the pot to the best Omaha hand, half to the best draw."""

    TABLE = "DM-1"  # the game itself: its table, its players, its blinds
    DEAL = "DM-2"
    FIRST_ROUND = "DM-3"
    FLOP = "DM-4"
    DRAW = "DM-5"
    ONE_CARD_TWIST = "DM-6"
    RESHUFFLE = "DM-7"
    TURN = "DM-8"
    POT_LIMIT = "DM-9"
    SHOWDOWN = "DM-11"
    SIDE_POTS = "DM-12"
