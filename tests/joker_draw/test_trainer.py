"""The trainer (FUN tables only): every option's expected value for the player's own deciding
box, from the best play, reckoned with the cards that box has held and nothing else. And
everyone it must refuse: a real-money table, another player's round, a settled round, a box
not deciding, a guessed round id, a stranger."""

from __future__ import annotations

from decimal import Decimal

import pytest

from games.engine.cards import parse_cards
from games.joker_draw import best_play
from games.models import Game, Round, TableStatus
from games.tables import services as table_services
from payouts.services import deposit, fund_house
from tests.fixtures.joker_draw import ROUNDS, act, open_round
from tests.fixtures.refusals import refused, snapshot
from tests.fixtures.tables import joker_draw_limits
from tests.fixtures.users import api_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def fun_table(pit, pit2, default_paytables):
    table = table_services.create_table(
        name="Joker FUN", game=Game.JOKER_DRAW, currency="FUN", by=pit, reason="test"
    )
    limits = table_services.propose_limits(
        table=table, values=joker_draw_limits(default_paytables), reason="test", by=pit
    )
    table_services.approve_limits(limits, by=pit2)
    fund_house(currency="FUN", amount=Decimal("10000.00"), reason="play money", by=pit)
    return table_services.set_table_status(table, status=TableStatus.OPEN, by=pit2, reason="t")


def funded(user, pit, currency="FUN"):
    deposit(player=user, currency=currency, amount=Decimal("50.00"), reason="chips", by=pit)
    return api_client(user)


def trainer(client, round_id, box="1"):
    return client.get(f"{ROUNDS}{round_id}/trainer/", {"box": box})


def solution(round_id):
    version = Round.objects.get(pk=round_id).bet_paytable_version
    return best_play.solution_for(version.odds())


def test_the_trainer_gives_every_option_of_the_first_decision_best_first(
    fun_table, player, pit
):  # JD-5
    client = funded(player, pit)
    opened = open_round(client, fun_table, [{"box": 1, "ante": "0.30"}]).json()
    before = snapshot()
    answer = trainer(client, opened["id"])
    assert answer.status_code == 200, answer.content
    body = answer.json()
    cards = parse_cards(" ".join(opened["boxes"][0]["cards"]))
    assert body == {
        "round": opened["id"],
        "box": 1,
        "exchanges": 0,
        **best_play.first_advice(solution(opened["id"]), cards),
    }
    assert len(body["options"]) == 33  # bet, fold and 31 sets of cards to exchange
    evs = [option["ev"] for option in body["options"]]
    assert evs == sorted(evs, reverse=True)
    assert snapshot() == before  # advice only: the decision stays the player's request


def test_after_an_exchange_the_trainer_reckons_with_every_card_the_box_held(
    fun_table, player, pit
):  # JD-6, JD-7
    client = funded(player, pit)
    opened = open_round(client, fun_table, [{"box": 1, "ante": "0.30"}]).json()
    dealt = opened["boxes"][0]["cards"]
    after = act(client, opened["id"], "x1", box=1, action="exchange", cards=dealt).json()
    current = after["boxes"][0]["cards"]
    body = trainer(client, opened["id"]).json()
    expected = best_play.later_advice(
        solution(opened["id"]), parse_cards(" ".join(current)), parse_cards(" ".join(dealt)), 1
    )
    assert body == {"round": opened["id"], "box": 1, "exchanges": 1, **expected}
    assert {option["action"] for option in body["options"]} == {"bet", "fold", "exchange"}
    act(client, opened["id"], "x2", box=1, action="exchange", cards=[current[0]])
    third = trainer(client, opened["id"]).json()
    assert third["exchanges"] == 2
    assert {option["action"] for option in third["options"]} == {"bet", "fold"}  # JD-7


def test_a_real_money_table_has_no_trainer(joker_table, player, pit):
    client = funded(player, pit, "USD")
    opened = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}]).json()
    body = refused(trainer(client, opened["id"]), "round", status=403)
    assert body["code"] == "trainer-fun-only"


def test_another_players_round_is_no_round(fun_table, player, other_player, pit):  # JD-4
    opened = open_round(funded(player, pit), fun_table, [{"box": 1, "ante": "0.30"}]).json()
    body = refused(trainer(funded(other_player, pit), opened["id"]), "round", status=404)
    assert body["code"] == "JD-4"
    assert "cards" not in str(body)


def test_a_guessed_round_id_is_no_round(fun_table, player, pit):
    client = funded(player, pit)
    opened = open_round(client, fun_table, [{"box": 1, "ante": "0.30"}]).json()
    refused(trainer(client, opened["id"] + 1000), "round", status=404)


def test_a_settled_round_has_no_trainer(fun_table, player, pit):  # JD-8
    client = funded(player, pit)
    opened = open_round(client, fun_table, [{"box": 1, "ante": "0.30"}]).json()
    act(client, opened["id"], "f", box=1, action="fold", cards=[])
    body = refused(trainer(client, opened["id"]), "round", status=409)
    assert body["code"] == "JD-8"


@pytest.mark.parametrize(("box", "status"), [("2", 409), ("0", 409), ("one", 400), ("", 400)])
def test_only_the_deciding_box_is_advised(fun_table, player, pit, box, status):  # JD-4
    client = funded(player, pit)
    opened = open_round(client, fun_table, [{"box": 1, "ante": "0.30"}]).json()
    refused(trainer(client, opened["id"], box), "box", status=status)


def test_strangers_and_staff_get_no_advice(fun_table, player, pit):
    opened = open_round(funded(player, pit), fun_table, [{"box": 1, "ante": "0.30"}]).json()
    assert trainer(api_client(None), opened["id"]).status_code in (401, 403)
    assert trainer(api_client(pit), opened["id"]).status_code in (403, 404)


def test_only_a_play_money_table_page_offers_the_trainer(fun_table, joker_table, player):
    from tests.fixtures.users import logged_in

    client = logged_in(player)
    fun = client.get(f"/play/joker-draw/{fun_table.pk}/").content.decode()
    usd = client.get(f"/play/joker-draw/{joker_table.pk}/").content.decode()
    assert 'id="trainer-toggle"' in fun
    assert 'type="checkbox" id="trainer-toggle"' in fun
    assert "checked" not in fun.split('id="trainer-toggle"')[1].split(">")[0]  # opt-in
    assert "trainer" not in usd
