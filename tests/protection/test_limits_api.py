"""GET and PUT /api/v1/me/limits/: each limit with its value, what is pending and from when,
what is used and whether it is near; bad input named by field; only the player's own."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from payouts import services
from payouts.protection import limits as protection
from payouts.protection.models import LimitChange, PlayerLimit
from payouts.services import deposit
from tests.fixtures.clock import clock_at
from tests.fixtures.refusals import refused
from tests.fixtures.users import api_client, logged_in

D = Decimal
URL = "/api/v1/me/limits/"


def put(client, limits, key="limits-1"):
    return client.put(URL, {"limits": limits}, format="json", HTTP_IDEMPOTENCY_KEY=key)


def limit(body, kind, currency="USD"):
    return next(
        item for item in body["limits"] if item["kind"] == kind and item["currency"] == currency
    )


def test_a_player_reads_every_limit_with_what_is_used(funded_player, pit):
    client = api_client(funded_player)
    assert (
        put(client, [{"kind": "deposit_day", "currency": "USD", "value": "120.00"}]).status_code
        == 200
    )
    body = client.get(URL).json()
    assert body["cooling_off_hours"] == 24
    assert {item["kind"] for item in body["limits"]} == {
        "deposit_day", "deposit_week", "deposit_month", "loss_day", "loss_week", "loss_month",
        "max_stake", "session_time",
    }  # fmt: skip
    day = limit(body, "deposit_day")
    # The funding deposit of 100.00 counts: 83% of 120.00 is near.
    assert (day["value"], day["used"], day["near"], day["pending"]) == (
        "120.00",
        "100.00",
        True,
        False,
    )
    assert datetime.fromisoformat(day["resets_at"]) > timezone.now()
    assert limit(body, "loss_day")["value"] is None
    assert limit(body, "session_time", "")["value"] is None


def test_raising_is_pending_for_the_cooling_off_and_lowering_cancels_it(funded_player):
    client = api_client(funded_player)
    put(client, [{"kind": "loss_day", "currency": "USD", "value": "50.00"}], key="a")
    now = timezone.now()
    with clock_at(now):
        body = put(
            client, [{"kind": "loss_day", "currency": "USD", "value": "80.00"}], key="b"
        ).json()
    raised = limit(body, "loss_day")
    assert (raised["value"], raised["pending"], raised["pending_value"]) == ("50.00", True, "80.00")
    assert datetime.fromisoformat(raised["applies_at"]) == now + timedelta(hours=24)
    with clock_at(now + timedelta(hours=24, seconds=1)):
        assert limit(client.get(URL).json(), "loss_day")["value"] == "80.00"
    # Lowered again before the raise applied: at once, and the raise is gone.
    body = put(client, [{"kind": "loss_day", "currency": "USD", "value": "40.00"}], key="c").json()
    lowered = limit(body, "loss_day")
    assert (lowered["value"], lowered["pending"], lowered["applies_at"]) == ("40.00", False, None)
    with clock_at(now + timedelta(days=2)):
        assert limit(client.get(URL).json(), "loss_day")["value"] == "40.00"


def test_removing_a_limit_waits_out_the_cooling_off(funded_player, settings):
    settings.PROTECTION_COOLING_OFF_HOURS = 48
    client = api_client(funded_player)
    put(client, [{"kind": "session_time", "value": "90"}], key="a")
    now = timezone.now()
    with clock_at(now):
        body = put(client, [{"kind": "session_time", "value": None}], key="b").json()
    removal = limit(body, "session_time", "")
    assert (removal["value"], removal["pending"], removal["pending_value"]) == ("90.00", True, None)
    with clock_at(now + timedelta(hours=47)):
        assert limit(client.get(URL).json(), "session_time", "")["value"] == "90.00"
    with clock_at(now + timedelta(hours=48)):
        assert limit(client.get(URL).json(), "session_time", "")["value"] is None


@pytest.mark.parametrize(
    ("item", "field"),
    [
        ({"kind": "loss_day", "currency": "USD", "value": "-1.00"}, "value"),
        ({"kind": "loss_day", "currency": "USD", "value": 10.5}, "value"),
        ({"kind": "loss_day", "currency": "USD", "value": "1e3"}, "value"),
        ({"kind": "loss_day", "currency": "USD", "value": "10.001"}, "value"),
        ({"kind": "loss_day", "currency": "USD", "value": "9" * 20}, "value"),
        ({"kind": "loss_day", "currency": "USD", "value": "NaN"}, "value"),
        ({"kind": "loss_year", "currency": "USD", "value": "10.00"}, "kind"),
        ({"kind": "loss_day", "currency": "FUN", "value": "10.00"}, "currency"),
        ({"kind": "loss_day", "currency": "EUR", "value": "10.00"}, "currency"),
        ({"kind": "loss_day", "value": "10.00"}, "currency"),
        ({"kind": "session_time", "value": "90.50"}, "value"),
        ({"kind": "session_time", "value": "100000"}, "value"),
    ],
)
def test_bad_input_is_refused_naming_the_field_and_changes_nothing(funded_player, item, field):
    client = api_client(funded_player)
    refused(put(client, [item]), field)
    assert not PlayerLimit.objects.exists()
    assert not LimitChange.objects.exists()


def test_a_refused_item_changes_none_of_the_others(funded_player):
    client = api_client(funded_player)
    good = {"kind": "loss_day", "currency": "USD", "value": "10.00"}
    refused(
        put(client, [good, {"kind": "loss_day", "currency": "FUN", "value": "1.00"}]), "currency"
    )
    assert not PlayerLimit.objects.exists()


def test_a_replay_with_the_same_key_changes_nothing_more(funded_player):
    client = api_client(funded_player)
    put(client, [{"kind": "loss_day", "currency": "USD", "value": "50.00"}], key="a")
    raise_ = [{"kind": "loss_day", "currency": "USD", "value": "90.00"}]
    first = put(client, raise_, key="b")
    later = timezone.now() + timedelta(hours=1)
    with clock_at(later):
        again = put(client, raise_, key="b")
    assert again.content == first.content
    assert again.headers["Idempotent-Replayed"] == "true"
    assert LimitChange.objects.count() == 2  # the replay did not push the raise back an hour
    other = put(client, [{"kind": "loss_day", "currency": "USD", "value": "1.00"}], key="b")
    assert other.status_code == 409
    assert put(client, raise_, key="").status_code == 400


def test_staff_and_strangers_neither_read_nor_set_a_players_limits(
    funded_player, other_player, pit, auditor, admin_user
):
    put(api_client(funded_player), [{"kind": "loss_day", "currency": "USD", "value": "50.00"}])
    for staff in (pit, auditor, admin_user):
        client = api_client(staff)
        assert client.get(URL).status_code == 403
        body = {"limits": [{"kind": "loss_day", "currency": "USD", "value": "5000.00"}],
                "player": funded_player.username}  # fmt: skip
        answer = client.put(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="x")
        assert answer.status_code == 403
    assert api_client(None).get(URL).status_code in (401, 403)
    # Another player reads and writes only their own: the first player's limit is not theirs.
    bob = api_client(other_player)
    assert all(item["value"] is None for item in bob.get(URL).json()["limits"])
    body = {"limits": [{"kind": "loss_day", "currency": "USD", "value": "999.00"}],
            "player": funded_player.username}  # fmt: skip
    bob.put(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="x")
    mine = PlayerLimit.objects.get(player=funded_player)
    assert (mine.value, mine.pending_value) == (D("50.00"), None)


def test_a_refusal_at_the_table_names_the_limit_and_when_it_resets(funded_player, joker_table):
    client = api_client(funded_player)

    def open_round(boxes, key):
        return client.post(
            "/api/v1/joker-draw/rounds/",
            {"table": joker_table.pk, "boxes": boxes},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key,
        )

    put(client, [{"kind": "loss_day", "currency": "USD", "value": "0.50"}], key="l")
    body = refused(
        open_round([{"box": 1, "ante": "0.30", "bonus": "0.30"}], "a"), "boxes", status=409
    )
    assert (body["code"], body["limit"]) == (
        "loss_limit",
        {"kind": "loss_day", "currency": "USD", "value": "0.50"},
    )
    assert datetime.fromisoformat(body["resets_at"]) > timezone.now()
    put(client, [{"kind": "max_stake", "currency": "USD", "value": "0.20"}], key="m")
    body = refused(open_round([{"box": 1, "ante": "0.30"}], "b"), "boxes", status=409)
    assert (body["code"], body["limit"]["kind"]) == ("max_stake", "max_stake")
    assert "resets_at" not in body


def test_a_cage_deposit_over_the_limit_is_refused_over_the_api(funded_player, pit):
    put(api_client(funded_player), [{"kind": "deposit_week", "currency": "USD", "value": "150.00"}])
    answer = api_client(pit).post(
        "/api/v1/cage/deposits/",
        {"player": funded_player.username, "currency": "USD", "amount": "50.01", "reason": "cash"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="d",
    )
    body = refused(answer, "amount", status=409)
    assert (body["code"], body["limit"]["kind"]) == ("deposit_limit", "deposit_week")
    deposit(player=funded_player, currency="USD", amount=D("50.00"), reason="cash", by=pit)


def test_the_api_keeps_a_stake_within_the_limits_set_on_the_page(funded_player, joker_table):
    page = logged_in(funded_player)
    form = {"max_stake-USD": "0.90", "loss_day-USD": ""}
    assert page.post("/play/limits/", form).status_code == 302
    assert limits_in_force(funded_player)["max_stake"] == D("0.90")
    shown = page.get("/play/limits/").content.decode()
    assert "0.90" in shown
    # A raise on the page waits out the cooling-off, and the page says until when.
    assert page.post("/play/limits/", {"max_stake-USD": "5.00"}).status_code == 302
    assert limits_in_force(funded_player)["max_stake"] == D("0.90")
    assert "applies at" in page.get("/play/limits/").content.decode()
    # Bad input comes back next to the field and changes nothing.
    answer = page.post("/play/limits/", {"max_stake-USD": "-1", "loss_day-USD": "10"})
    assert answer.status_code == 200
    assert "max_stake-USD" in answer.content.decode()
    assert limits_in_force(funded_player)["loss_day"] is None


def test_staff_get_no_limits_form(pit):
    answer = logged_in(pit).get("/play/limits/")
    assert answer.status_code == 200
    assert b'name="max_stake-USD"' not in answer.content
    logged_in(pit).post("/play/limits/", {"max_stake-USD": "1.00"})
    assert not PlayerLimit.objects.exists()


def limits_in_force(player) -> dict[str, Decimal | None]:
    return {
        state.kind: state.value
        for state in protection.limits_of(player)
        if state.currency in ("USD", "")
    }


def test_the_lobby_and_the_tables_tell_the_player_near_a_limit(funded_player, joker_table):
    page = logged_in(funded_player)
    assert b'data-testid="limits-notice"' not in page.get("/play/").content
    # The funding deposit of 100.00 is 80% of 125.00: near.
    protection.set_limit(
        player=funded_player, kind="deposit_day", currency="USD", value=D("125.00")
    )
    for url in ("/play/", f"/play/joker-draw/{joker_table.pk}/", "/play/limits/"):
        shown = page.get(url).content.decode()
        assert 'data-testid="limits-notice"' in shown, url
        assert "80% of your deposit limit per day" in shown, url
    protection.set_limit(player=funded_player, kind="loss_day", currency="USD", value=D("1.00"))
    assert "loss limit per day" not in page.get("/play/").content.decode()


def test_the_notice_costs_one_query_for_a_player_without_limits(
    funded_player, django_assert_num_queries
):
    with django_assert_num_queries(1):
        assert protection.near_limits(funded_player) == []


def test_the_admin_shows_limits_and_their_history_to_read_only(funded_player, auditor, admin_user):
    protection.set_limit(player=funded_player, kind="loss_day", currency="USD", value=D("9.00"))
    row = PlayerLimit.objects.get()
    for user in (auditor, admin_user):
        page = logged_in(user)
        assert page.get("/admin/protection/playerlimit/").status_code == 200
        shown = page.get(f"/admin/protection/playerlimit/{row.pk}/change/")
        assert shown.status_code == 200
        assert b"9.00" in shown.content
        assert page.get("/admin/protection/playerlimit/add/").status_code == 403
        page.post(f"/admin/protection/playerlimit/{row.pk}/delete/", {"post": "yes"})
        page.post(f"/admin/protection/playerlimit/{row.pk}/change/", {"value": "1000.00"})
    row.refresh_from_db()
    assert row.value == D("9.00")
    assert logged_in(funded_player).get("/admin/protection/playerlimit/").status_code == 302


def test_the_admin_cage_shows_a_deposit_limit_and_a_resubmitted_form_posts_once(pit, player):
    services.wallet(player, "USD")
    protection.set_limit(player=player, kind="deposit_day", currency="USD", value=D("20.00"))
    client = logged_in(pit)
    form = {
        "player": player.pk,
        "currency": "USD",
        "amount": "20.00",
        "reason": "cash",
        "idempotency_key": "form-1",
    }
    first = client.post("/admin/payouts/ledgertransaction/deposit/", form)
    # Submitted twice: the second is answered by the first, not refused for the limit.
    assert (
        client.post("/admin/payouts/ledgertransaction/deposit/", form)["Location"]
        == first["Location"]
    )
    over = client.post(
        "/admin/payouts/ledgertransaction/deposit/",
        {**form, "amount": "0.01", "idempotency_key": "form-2"},
    )
    assert over.status_code == 200
    assert "deposit limit per day" in over.content.decode()
    assert services.wallet(player, "USD").balance == D("20.00")
