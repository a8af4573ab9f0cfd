"""Input at the edges of what a field can hold, where each once answered 500 (a traceback with
DEBUG on): days at the calendar's ends, pagination cursors a client wrote itself and a NUL
character in any text. Each is refused with 400 in the one error shape, naming the field and a
stable code, and changes nothing."""

from __future__ import annotations

import base64
from decimal import Decimal

import pytest

from payouts import services as money
from payouts.models import LedgerTransaction
from tests.fixtures.refusals import post, refused, snapshot
from tests.fixtures.users import api_client, logged_in

D = Decimal


def forged(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# Days at the calendar's ends ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "field", "code"),
    [
        ("to=0001-01-02", "from", "statement_too_old"),  # 30 days back from it: before the calendar
        ("to=0001-01-01", "to", "min_value"),
        ("from=0001-01-01&to=0001-01-02", "from", "min_value"),
        ("to=9999-12-31", "to", "max_value"),
    ],
)
def test_a_statement_at_the_calendars_ends_is_refused(player, query, field, code):
    body = refused(api_client(player).get(f"/api/v1/me/statement/?{query}"), field)
    assert body["code"] == code


@pytest.mark.parametrize("query", ["to=0001-01-01", "to=0001-01-02", "from=9999-12-31"])
def test_the_statement_page_at_the_calendars_ends_says_what_is_wrong(player, query):
    page = logged_in(player).get(f"/play/statement/?{query}")
    assert page.status_code == 400
    assert 'class="error" role="alert"' in page.content.decode()


@pytest.mark.parametrize(
    "until", ["9999-12-31", "9999-12-31T23:59:59-05:00", "0001-01-01", "0001-01-01T00:00:00+05:00"]
)
def test_an_exclusion_until_the_calendars_ends_is_refused(player, until):
    client = api_client(player)
    body = refused(
        post(client, "/api/v1/me/exclusions/", {"kind": "time_out", "until": until}), "until"
    )
    assert body["code"] == "date_out_of_range"
    assert client.get("/api/v1/me/exclusions/").json() == []


@pytest.mark.parametrize(
    "query", ["to=0001-01-01", "to=0001-01-02", "to=9999-12-30", "to=9999-12-31", "from=0001-01-01"]
)
def test_the_fair_play_report_at_the_calendars_ends(auditor, query):
    """A day the calendar holds whole is reported on (the default period counted back stops at
    the calendar's first day); one it does not is refused, on the page, the CSV and the API."""
    whole = query in ("to=0001-01-02", "to=9999-12-30")
    page = logged_in(auditor).get(f"/staff/fair-play/?{query}")
    assert page.status_code == (200 if whole else 400)
    assert logged_in(auditor).get(f"/staff/fair-play.csv?{query}").status_code == (
        200 if whole else 400
    )
    answer = api_client(auditor).get(f"/api/v1/staff/fair-play/?{query}")
    assert answer.status_code == (200 if whole else 400), answer.content
    if not whole:
        assert answer.json()["code"] in ("min_value", "max_value")


@pytest.mark.parametrize("query", ["to=0001-01-01", "to=0001-01-02", "to=9999-12-31"])
def test_a_players_statement_csv_for_staff_at_the_calendars_ends_is_refused(player, auditor, query):
    answer = logged_in(auditor).get(f"/staff/players/{player.pk}/statement.csv?{query}")
    assert answer.status_code == 400


# Cursors a client wrote itself ------------------------------------------------------------------

CURSOR_LISTS = [
    "/api/v1/wallets/USD/transactions/",
    "/api/v1/joker-draw/rounds/",
    "/api/v1/stud/hands/",
    "/api/v1/drawmaha/hands/",
]


@pytest.mark.parametrize("url", CURSOR_LISTS)
@pytest.mark.parametrize(
    "cursor",
    [forged("p=abc"), forged("p=1.5"), forged("p=-1"), forged("p=" + "9" * 30), "not base64!"],
)
def test_a_forged_cursor_is_refused(funded_player, url, cursor):
    body = refused(api_client(funded_player).get(url, {"cursor": cursor}), "cursor")
    assert body["code"] == "invalid_cursor"


def test_a_cursor_of_the_list_itself_pages_on(funded_player, pit):
    for number in range(55):
        money.deposit(
            player=funded_player, currency="USD", amount=D("1.00"), reason=f"{number}", by=pit
        )
    client = api_client(funded_player)
    first = client.get("/api/v1/wallets/USD/transactions/").json()
    second = client.get(first["next"]).json()
    assert len(first["results"]) == 50
    assert len(second["results"]) == 6  # the 55 deposits and the funding
    assert (
        client.get("/api/v1/wallets/USD/transactions/", {"cursor": forged("p=1")}).status_code
        == 200
    )


# NUL -------------------------------------------------------------------------------------------


def test_a_nul_in_a_staff_search_is_refused(pit):
    page = logged_in(pit).get("/staff/players/", {"q": "play\x00er"})
    assert page.status_code == 400
    body = refused(
        api_client(pit).get("/api/v1/staff/paytable-versions/", {"paytable": "bet\x00"}), "paytable"
    )
    assert body["code"] == "nul_character"


def test_a_nul_in_a_cage_deposits_player_is_refused_and_moves_nothing(player, pit):
    before, transactions = snapshot(), LedgerTransaction.objects.count()
    body = {
        "player": f"{player.username}\x00",
        "currency": "USD",
        "amount": "5.00",
        "reason": "cash",
    }
    answer = refused(post(api_client(pit), "/api/v1/cage/deposits/", body), "player")
    assert answer["code"] == "nul_character"
    assert (snapshot(), LedgerTransaction.objects.count()) == (before, transactions)


def test_a_nul_in_a_form_or_a_nested_json_field_is_named(player, pit):
    """A page's form field (the sign-in form) and a JSON list's item (the limits) name where."""
    page = logged_in(player).post("/play/limits/", {"loss_day_USD": "5\x00"})
    assert page.status_code == 400
    limits = {"limits": [{"kind": "loss_day", "currency": "USD\x00", "value": "5.00"}]}
    answer = api_client(player).put(
        "/api/v1/me/limits/", limits, format="json", HTTP_IDEMPOTENCY_KEY="nul"
    )
    assert refused(answer, "limits.0.currency")["code"] == "nul_character"
