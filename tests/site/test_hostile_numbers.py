"""Numbers a curious player types into an address: a table id or a sitting in superscript or
Arabic-Indic digits, or five thousand digits long. Each is refused (the API, 400 naming the
parameter) or read as no filter (the recall page), never answered with a server error."""

from __future__ import annotations

import pytest

from tests.fixtures.users import api_client, logged_in

NOT_AN_ID = ("²", "1" * 5000, "١", "-1", "")
RECALL_LISTS = ("/api/v1/joker-draw/rounds/", "/api/v1/stud/hands/", "/api/v1/drawmaha/hands/")


@pytest.mark.django_db
@pytest.mark.parametrize("url", RECALL_LISTS)
@pytest.mark.parametrize("table", NOT_AN_ID)
def test_a_table_that_is_no_id_is_refused_naming_it(player, url, table):
    response = api_client(player).get(url, {"table": table})
    assert response.status_code == 400, response.content
    assert "table" in response.json()["errors"]


@pytest.mark.django_db
@pytest.mark.parametrize("url", RECALL_LISTS)
def test_a_table_id_beyond_any_table_lists_nothing(player, url):
    response = api_client(player).get(url, {"table": "9" * 18})
    assert response.status_code == 200
    assert response.json()["results"] == []


@pytest.mark.django_db
@pytest.mark.parametrize("sitting", NOT_AN_ID)
def test_the_recall_page_reads_a_sitting_that_is_no_id_as_every_hand(player, sitting):
    response = logged_in(player).get("/play/recall/", {"game": "stud", "sitting": sitting})
    assert response.status_code == 200
    assert response.context["sitting"] == ""
    assert "sitting" not in response.context["query"]
