"""Poker hands named in the reader's language. The engine names hands in English for the
stored results and the logs; what a player reads comes from here, by the hand's category and
the ranks that decide it (``HandValue.ranks``).

Russian needs a rank in three forms ("туз", "тузы", "пара тузов"), so each rank word has a
context per form; English and Swedish use the same word for two of them."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.text import capfirst
from django.utils.translation import gettext_lazy, pgettext_lazy

from games.engine.hands import HandValue

# A category's name alone, as a paytable line shows it; `royal_flush` is a line of its own
# (HR-10), `high_card` never pays but names a hand.
CATEGORY_NAMES = {
    "high_card": gettext_lazy("High card"),
    "pair": gettext_lazy("Pair"),
    "two_pair": gettext_lazy("Two pair"),
    "three_of_a_kind": gettext_lazy("Three of a kind"),
    "straight": gettext_lazy("Straight"),
    "flush": gettext_lazy("Flush"),
    "full_house": gettext_lazy("Full house"),
    "four_of_a_kind": gettext_lazy("Four of a kind"),
    "straight_flush": gettext_lazy("Straight flush"),
    "royal_flush": gettext_lazy("Royal flush"),
    "five_of_a_kind": gettext_lazy("Five of a kind"),
}

# One card of the rank ("ace high"), cards of the rank ("aces"), and "a pair of" them.
_ONE = {
    2: pgettext_lazy("one card of the rank", "two"),
    3: pgettext_lazy("one card of the rank", "three"),
    4: pgettext_lazy("one card of the rank", "four"),
    5: pgettext_lazy("one card of the rank", "five"),
    6: pgettext_lazy("one card of the rank", "six"),
    7: pgettext_lazy("one card of the rank", "seven"),
    8: pgettext_lazy("one card of the rank", "eight"),
    9: pgettext_lazy("one card of the rank", "nine"),
    10: pgettext_lazy("one card of the rank", "ten"),
    11: pgettext_lazy("one card of the rank", "jack"),
    12: pgettext_lazy("one card of the rank", "queen"),
    13: pgettext_lazy("one card of the rank", "king"),
    14: pgettext_lazy("one card of the rank", "ace"),
}
_MANY = {
    2: pgettext_lazy("cards of the rank", "twos"),
    3: pgettext_lazy("cards of the rank", "threes"),
    4: pgettext_lazy("cards of the rank", "fours"),
    5: pgettext_lazy("cards of the rank", "fives"),
    6: pgettext_lazy("cards of the rank", "sixes"),
    7: pgettext_lazy("cards of the rank", "sevens"),
    8: pgettext_lazy("cards of the rank", "eights"),
    9: pgettext_lazy("cards of the rank", "nines"),
    10: pgettext_lazy("cards of the rank", "tens"),
    11: pgettext_lazy("cards of the rank", "jacks"),
    12: pgettext_lazy("cards of the rank", "queens"),
    13: pgettext_lazy("cards of the rank", "kings"),
    14: pgettext_lazy("cards of the rank", "aces"),
}
_PAIR_OF = {
    2: pgettext_lazy("a pair of", "twos"),
    3: pgettext_lazy("a pair of", "threes"),
    4: pgettext_lazy("a pair of", "fours"),
    5: pgettext_lazy("a pair of", "fives"),
    6: pgettext_lazy("a pair of", "sixes"),
    7: pgettext_lazy("a pair of", "sevens"),
    8: pgettext_lazy("a pair of", "eights"),
    9: pgettext_lazy("a pair of", "nines"),
    10: pgettext_lazy("a pair of", "tens"),
    11: pgettext_lazy("a pair of", "jacks"),
    12: pgettext_lazy("a pair of", "queens"),
    13: pgettext_lazy("a pair of", "kings"),
    14: pgettext_lazy("a pair of", "aces"),
}
_NAMES = {
    "high_card": gettext_lazy("%(rank)s high"),
    "pair": gettext_lazy("Pair of %(pair_of)s"),
    "two_pair": gettext_lazy("Two pair, %(ranks)s and %(second)s"),
    "three_of_a_kind": gettext_lazy("Three of a kind, %(ranks)s"),
    "straight": gettext_lazy("Straight, %(rank)s high"),
    "flush": gettext_lazy("Flush, %(rank)s high"),
    "full_house": gettext_lazy("Full house, %(ranks)s full of %(second)s"),
    "four_of_a_kind": gettext_lazy("Four of a kind, %(ranks)s"),
    "straight_flush": gettext_lazy("Straight flush, %(rank)s high"),
    "five_of_a_kind": gettext_lazy("Five of a kind, %(ranks)s"),
}


def hand_name(value: HandValue) -> str:
    """The hand's name in the active language: "Pair of jacks", "Flush, king high"."""
    if value.is_royal:
        return str(CATEGORY_NAMES["royal_flush"])
    return named(value.category, value.ranks)


def named(category: str, ranks: Sequence[int]) -> str:
    """A hand of ``category`` whose deciding ranks are ``ranks``, highest first: also a part
    hand, such as a stud player's three cards on third street."""
    words = {
        "rank": _ONE[ranks[0]],
        "ranks": _MANY[ranks[0]],
        "pair_of": _PAIR_OF[ranks[0]],
        "second": _MANY[ranks[1]] if len(ranks) > 1 else "",
    }
    return capfirst(str(_NAMES[category]) % words)


def category_name(category: str) -> str:
    """A paytable line's or a hand category's name in the active language."""
    return str(CATEGORY_NAMES[category])
