"""The strategy card of the shipped bet paytable: derived from its best play, played on fresh
rounds beside the best play as its shipped measurement says, shown on the rules page in every
language, for the paytable in force at the table."""

from __future__ import annotations

import json

import numpy as np
import pytest
from django.test import Client

from games.engine.joker_draw_card import agreement, compare
from games.engine.joker_draw_rtp import REFERENCE, strategy_to_table
from games.joker_draw import best_play, strategy_card
from games.joker_draw.paytable_selectors import version_named
from games.management.commands.load_paytables import parse_odds
from games.models import TableStatus
from games.tables import services as table_services
from tests.fixtures.users import logged_in

pytestmark = pytest.mark.django_db

DEFAULT_BET = {
    line: parse_odds(odds)
    for line, odds in json.loads((best_play.SHIPPED.parent / "paytables.json").read_text())[
        "paytables"
    ][0]["lines"].items()
}


@pytest.fixture
def shipped():
    solution = best_play.solution_for(DEFAULT_BET)
    found = strategy_card.card_for(DEFAULT_BET)
    assert solution is not None, "the default bet paytable's best play is shipped"
    assert found is not None, "and so is its strategy card"
    return solution, *found


def test_fresh_rounds_confirm_the_shipped_measurement_of_the_card(shipped):
    """The card and the best play on the same fresh decks (not the ones the card was measured
    on when shipped): the shipped difference lies in the fresh difference's 99% interval, and
    the card beats the reference strategy by far on those decks."""
    solution, card, measured = shipped
    fresh = compare(DEFAULT_BET, card, solution, 40_000, 2027)
    low, high = fresh.difference_ci99
    assert low <= measured["difference"] <= high, fresh
    assert compare(DEFAULT_BET, card, REFERENCE, 40_000, 2027).difference_ci99[0] > 4


def test_the_shipped_measurement_is_precise(shipped):
    _, _, measured = shipped
    assert measured["rounds"] >= 1_000_000
    low, high = measured["difference_ci99"]
    assert low < measured["difference"] < high
    assert high - low < 0.8
    assert measured["difference"] == pytest.approx(
        measured["card_rtp"] - measured["best_rtp"], abs=1e-3
    )


def test_the_card_does_what_the_table_does_on_most_hands(shipped):
    solution, card, _ = shipped
    rows = np.arange(0, len(solution.first_code), 101)
    shares = agreement(solution, card, rows)
    assert set(shares) == {stage for stage in strategy_to_table(card)}
    assert shares["first"] > 0.9


def page(client: Client, query: str = "", language: str = "en") -> str:
    response = client.get(f"/play/rules/joker-draw/{query}", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize(
    ("language", "title", "first"),
    [
        ("en", "Strategy card", "First decision, on the five cards dealt"),
        ("ru", "Карточка стратегии", "Первое решение, на пяти сданных картах"),
        ("sv", "Strategikort", "Första beslutet, på de fem utdelade korten"),
    ],
)
def test_the_rules_page_shows_the_tables_card_in_every_language(
    shipped, player, joker_table, language, title, first
):
    _, card, _ = shipped
    shown = page(logged_in(player), f"?table={joker_table.pk}", language)
    assert title in shown
    assert first in shown
    assert shown.count("<li>", shown.index(first)) >= len(card.first)
    assert "Joker 1" in shown


def test_the_rules_page_words_every_rule_of_the_card(shipped, player, joker_table):
    _, card, _ = shipped
    [shown] = strategy_card.cards_in_force([("Joker 1", joker_table.active_limits())])
    assert [len(decision["rules"]) for decision in shown["decisions"]] == [
        len(card.stage(index)) for index in range(3) if card.stage(index)
    ]
    everything = page(logged_in(player))
    for decision in shown["decisions"]:
        for rule in decision["rules"]:
            assert rule.replace("'", "&#x27;") in everything
    assert shown["decisions"][0]["rules"][-1].startswith("Anything else: ")


def test_a_table_the_visitor_cannot_see_has_no_card(shipped, player, pit2, joker_table):
    client = logged_in(player)
    for query in ("?table=999999", "?table=x", "?table="):
        assert client.get(f"/play/rules/joker-draw/{query}").status_code == 404
    table_services.set_table_status(joker_table, status=TableStatus.CLOSED, by=pit2, reason="t")
    assert client.get(f"/play/rules/joker-draw/?table={joker_table.pk}").status_code == 404
    assert "Strategy card" not in page(logged_in(player))


def test_the_command_names_the_bet_paytable(default_paytables):
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="--paytable"):
        call_command(
            "strategy_card", paytable=version_named("joker-draw-bonus-example").paytable.name
        )
