"""Poker hands, streets and actions named in the player's language. The engine values hands
(``games.engine.hands``) and names them in English for logs and hand histories; the pages and
the API name them here, from the engine's category and deciding ranks, so every language words
them its own way."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy, pgettext

from games.engine.hands import HandValue

ACE = 14

# A category's name alone, as a paytable line or a box's result shows it; `royal_flush` is a
# paytable line of its own (HR-10), `high_card` never pays but names a hand, `no_game` is the bet
# paytable's line for a dealer without a game (JD-11a).
CATEGORY_NAMES: dict[str, Promise] = {
    "no_game": gettext_lazy("No game (dealer does not qualify)"),
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


def category_name(category: str) -> str:
    """A hand category's (or paytable line's) name in the active language."""
    return str(CATEGORY_NAMES.get(category, category.replace("_", " ")))


def _rank(rank: int) -> str:
    """A rank as one card of it ("King high")."""
    names = {
        2: pgettext("card rank", "Two"),
        3: pgettext("card rank", "Three"),
        4: pgettext("card rank", "Four"),
        5: pgettext("card rank", "Five"),
        6: pgettext("card rank", "Six"),
        7: pgettext("card rank", "Seven"),
        8: pgettext("card rank", "Eight"),
        9: pgettext("card rank", "Nine"),
        10: pgettext("card rank", "Ten"),
        11: pgettext("card rank", "Jack"),
        12: pgettext("card rank", "Queen"),
        13: pgettext("card rank", "King"),
        14: pgettext("card rank", "Ace"),
    }
    return names[rank]


def _ranks(rank: int) -> str:
    """A rank as several cards of it ("Pair of kings")."""
    names = {
        2: pgettext("card ranks", "twos"),
        3: pgettext("card ranks", "threes"),
        4: pgettext("card ranks", "fours"),
        5: pgettext("card ranks", "fives"),
        6: pgettext("card ranks", "sixes"),
        7: pgettext("card ranks", "sevens"),
        8: pgettext("card ranks", "eights"),
        9: pgettext("card ranks", "nines"),
        10: pgettext("card ranks", "tens"),
        11: pgettext("card ranks", "jacks"),
        12: pgettext("card ranks", "queens"),
        13: pgettext("card ranks", "kings"),
        14: pgettext("card ranks", "aces"),
    }
    return names[rank]


def rank_name(rank: int, *, several: bool = False) -> str:
    """A rank (2..14) in words: one card of it ("Jack"), or `several` ("jacks")."""
    return _ranks(rank) if several else _rank(rank)


def named(category: str, ranks: Sequence[int]) -> str:
    """A hand of ``category`` (``hands.CATEGORIES``) whose deciding ranks are ``ranks``, highest
    first: also a part hand, such as a stud player's three cards on third street."""
    first = ranks[0]
    second = ranks[1] if len(ranks) > 1 else first
    match category:
        case "high_card":
            return gettext("%(rank)s high") % {"rank": _rank(first)}
        case "pair":
            return gettext("Pair of %(ranks)s") % {"ranks": _ranks(first)}
        case "two_pair":
            return gettext("Two pair, %(high)s and %(low)s") % {
                "high": _ranks(first),
                "low": _ranks(second),
            }
        case "three_of_a_kind":
            return gettext("Three of a kind, %(ranks)s") % {"ranks": _ranks(first)}
        case "straight":
            return gettext("Straight, %(rank)s high") % {"rank": _rank(first)}
        case "flush":
            return gettext("Flush, %(rank)s high") % {"rank": _rank(first)}
        case "full_house":
            return gettext("Full house, %(high)s full of %(low)s") % {
                "high": _ranks(first),
                "low": _ranks(second),
            }
        case "four_of_a_kind":
            return gettext("Four of a kind, %(ranks)s") % {"ranks": _ranks(first)}
        case "straight_flush":
            if first == ACE:
                return gettext("Royal flush")
            return gettext("Straight flush, %(rank)s high") % {"rank": _rank(first)}
        case "five_of_a_kind":
            return gettext("Five of a kind, %(ranks)s") % {"ranks": _ranks(first)}
    raise ValueError(f"no hand category {category!r}")


def hand_name(value: HandValue) -> str:
    """A five-card hand's value in words: "Pair of kings", "Flush, Jack high"."""
    return named(value.category, value.ranks)


def street_name(street: str) -> str:
    """A betting round of stud or Drawmaha, by the engine's name for it."""
    names = {
        "third": pgettext("street", "Third street"),
        "fourth": pgettext("street", "Fourth street"),
        "fifth": pgettext("street", "Fifth street"),
        "sixth": pgettext("street", "Sixth street"),
        "seventh": pgettext("street", "Seventh street"),
        "preflop": pgettext("street", "Before the flop"),
        "flop": pgettext("street", "Flop"),
        "draw": pgettext("street", "The draw"),
        "turn": pgettext("street", "Turn"),
        "river": pgettext("street", "River"),
        "showdown": pgettext("street", "Showdown"),
        "over": pgettext("street", "Hand over"),
    }
    return names.get(street, street)


def action_name(action: str) -> str:
    """A player's decision, by the engine's name for it, as the refusals quote it."""
    names = {
        "fold": pgettext("poker action", "fold"),
        "check": pgettext("poker action", "check"),
        "call": pgettext("poker action", "call"),
        "bring_in": pgettext("poker action", "bring-in"),
        "complete": pgettext("poker action", "complete"),
        "bet": pgettext("poker action", "bet"),
        "raise": pgettext("poker action", "raise"),
        "show": pgettext("poker action", "show"),
        "muck": pgettext("poker action", "muck"),
        "exchange": pgettext("poker action", "exchange"),
        "take": pgettext("poker action", "take the twist card"),
        "reject": pgettext("poker action", "reject the twist card"),
    }
    return names.get(action, action)
