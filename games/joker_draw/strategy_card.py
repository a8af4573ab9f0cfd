"""The strategy card of a bet paytable, for players: the best play told in ranked rules
(``games.engine.joker_draw_card``), read from the file shipped beside the paytable's solution,
and worded in the player's language for the rules page.

A card file (``fixtures/best_play/<digest>.card.json``) holds the rule table and how it was
measured: the card and the best play on the same rounds, their RTPs and the difference's 99%
interval. ``python manage.py strategy_card`` writes it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine.joker_draw import Paytable
from games.engine.joker_draw_rtp import Condition, Rule, Strategy, strategy_from_table
from games.joker_draw import best_play
from games.joker_draw.selectors import paytables_in_force
from games.models import TableLimits
from games.tables.hand_names import category_name, named, rank_name

# The decisions as the rules page names them (JD-5, JD-6, JD-7).
STAGE_TITLES = (
    gettext_lazy("First decision, on the five cards dealt"),
    gettext_lazy("After a first exchange"),
    gettext_lazy("After a second exchange"),
)


def card_file(digest: str) -> Path:
    return best_play.SHIPPED / f"{digest}.card.json"


@lru_cache(maxsize=8)
def _read(path: Path, modified: float) -> tuple[Strategy, dict[str, Any]]:
    data = json.loads(path.read_text())
    return strategy_from_table(data["name"], data["card"]), data["measured"]


def card_for(bet_paytable: Paytable) -> tuple[Strategy, dict[str, Any]] | None:
    """The strategy card of these bet lines and its measurement, or None when none is shipped."""
    path = card_file(best_play.digest_of(bet_paytable))
    if not path.is_file():
        return None
    return _read(path, path.stat().st_mtime)


def write_card(digest: str, card: Strategy, measured: dict[str, Any], table: Any) -> Path:
    path = card_file(digest)
    path.write_text(
        json.dumps({"name": card.name, "card": table, "measured": measured}, indent=1) + "\n"
    )
    return path


def _holding(condition: Condition) -> str:
    """What a rule looks for in the hand, in the player's words, with its kicker and whether
    the hand holds the joker."""
    holding = _held(condition)
    if condition.kicker is not None:
        holding = _("%(holding)s, the highest other card %(rank)s or higher") % {
            "holding": holding,
            "rank": rank_name(condition.kicker).lower(),
        }
    if condition.joker is True:
        return _("%(holding)s, with the joker") % {"holding": holding}
    if condition.joker is False:
        return _("%(holding)s, without the joker") % {"holding": holding}
    return holding


def _held(condition: Condition) -> str:
    rank = condition.min_rank
    match condition.hand:
        case "made":
            return _("%(hand)s or better") % {"hand": category_name(condition.at_least or "")}
        case "three_of_a_kind" | "pair" if rank:
            return _("%(hand)s or higher") % {"hand": named(condition.hand, [rank])}
        case "three_of_a_kind":
            return _("Three of a kind")
        case "two_pair" if rank:
            return _("Two pair, the higher of %(ranks)s or higher") % {
                "ranks": rank_name(rank, several=True)
            }
        case "two_pair":
            return _("Two pair")
        case "pair":
            return _("A pair")
        case "four_flush":
            return _("Four cards of one suit")
        case "open_straight":
            return _("Four cards to a straight open at both ends")
        case "inside_straight":
            return _("Four cards to a straight that only one rank completes")
        case "joker":
            return _("The joker")
        case "odd_card" if rank:
            return _(
                "%(hand)s or better up to four of a kind, of %(ranks)s or higher, "
                "with a card outside it"
            ) % {
                "hand": category_name(condition.at_least or "pair"),
                "ranks": rank_name(rank, several=True),
            }
        case "odd_card":
            return _("%(hand)s or better up to four of a kind, with a card outside it") % {
                "hand": category_name(condition.at_least or "pair")
            }
        case "full_house_three":
            return _("A full house")
        case "straight_flush_draw":
            cards = {
                2: _("Two cards to a straight flush"),
                3: _("Three cards to a straight flush"),
                4: _("Four cards to a straight flush"),
            }[condition.cards or 2]
            if rank:
                return _("%(cards)s, %(ranks)s or higher (the joker counts as any card)") % {
                    "cards": cards,
                    "ranks": rank_name(rank, several=True),
                }
            return _("%(cards)s (the joker counts as any card)") % {"cards": cards}
        case "straight_draw":
            return {
                1: _("Four cards to a straight (the joker counts as any card)"),
                2: _(
                    "Four cards to a straight that two or more ranks complete "
                    "(the joker counts as any card)"
                ),
                3: _(
                    "Four cards to a straight that three or more ranks complete "
                    "(the joker counts as any card)"
                ),
                4: _(
                    "Four cards to a straight that four ranks complete "
                    "(the joker counts as any card)"
                ),
            }[condition.ranks or 1]
        case "high_cards":
            return _("Cards of %(rank)s or higher (the joker counts as one)") % {
                "rank": rank_name(rank or 2)
            }
    return _("Anything else")


def _action(rule: Rule) -> str:
    """What the rule does, in the player's words."""
    if rule.do == "bet":
        return _("bet")
    if rule.do == "fold":
        return _("fold")
    return {
        "three_of_a_kind": _("keep the three, exchange the other two"),
        "two_pair": _("keep both pairs, exchange the fifth card"),
        "pair": _("keep the pair, exchange the other three"),
        "four_flush": _("keep the four, exchange the fifth card"),
        "open_straight": _("keep the four, exchange the fifth card"),
        "inside_straight": _("keep the four, exchange the fifth card"),
        "straight_draw": _("keep the four, exchange the fifth card"),
        "straight_flush_draw": _("keep them, exchange the rest"),
        "full_house_three": _("keep the three of a kind, exchange the pair"),
        "joker": _("keep the joker, exchange the other four"),
        "high_cards": _("keep them, exchange the rest"),
        "odd_card": _("exchange the lowest card outside it"),
    }.get(rule.when.hand, _("exchange all five cards"))


def card_words(card: Strategy) -> list[dict[str, Any]]:
    """Each decision of the card with its ranked rules as sentences, for the rules page."""
    return [
        {
            "title": str(STAGE_TITLES[index]),
            "rules": [
                _("%(holding)s: %(action)s.")
                % {"holding": _holding(rule.when), "action": _action(rule)}
                for rule in card.stage(index)
            ],
        }
        for index in range(3)
        if card.stage(index)
    ]


def cards_in_force(tables: Iterable[tuple[str, TableLimits]]) -> list[dict[str, Any]]:
    """The strategy card of each bet paytable version in force at these tables (by name, with
    their limits in force), with the names of the tables that play it; a version without a
    shipped card is left out."""
    by_version: dict[int, dict[str, Any]] = {}
    for name, limits in tables:
        for paytable in paytables_in_force(limits):
            if paytable.kind != "bet":
                continue
            entry = by_version.setdefault(
                paytable.version.pk, {"odds": dict(paytable.lines), "tables": []}
            )
            entry["tables"].append(name)
    shown = []
    for entry in by_version.values():
        found = card_for(entry["odds"])
        if found is not None:
            shown.append({"tables": entry["tables"], "decisions": card_words(found[0])})
    return shown
