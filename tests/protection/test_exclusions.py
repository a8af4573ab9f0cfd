"""Time-outs (24 hours to 6 weeks) and self-exclusion (6 months to 5 years), UKGC RTS 14: taken
by the player only, never lifted or shortened by anybody; while one is in force every new
round, buy-in, rebuy and deposit is refused (403 ``time_out`` / ``self_excluded`` with
``until``), a round in play may be finished, withdrawals and signing in still work."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.contrib.admin.sites import site
from django.db import ProgrammingError, connection, transaction
from django.test import RequestFactory
from django.utils import timezone

from payouts.protection import conduct
from payouts.protection.models import Exclusion
from tests.fixtures.joker_draw import ROUNDS, act, open_round
from tests.fixtures.ledger import assert_ledger_passes
from tests.fixtures.users import api_client

D = Decimal
EXCLUSIONS = "/api/v1/me/exclusions/"


def take(client, kind, until):
    return client.post(EXCLUSIONS, {"kind": kind, "until": until}, format="json")


def later(**delta) -> str:
    return (timezone.now() + timedelta(**delta)).isoformat()


def test_a_player_takes_a_time_out_and_reads_it(player):
    client = api_client(player)
    taken = take(client, "time_out", later(days=2))
    assert taken.status_code == 201
    (listed,) = client.get(EXCLUSIONS).json()
    assert listed["kind"] == "time_out"
    assert listed["in_force"] is True
    assert listed["until"] == taken.json()["until"]
    assert conduct.exclusion_in_force(player).kind == "time_out"


@pytest.mark.parametrize(
    ("kind", "until", "code"),
    [
        ("time_out", {"hours": 23}, "exclusion_too_short"),
        ("time_out", {"weeks": 6, "hours": 1}, "exclusion_too_long"),
        ("time_out", {"hours": -1}, "exclusion_in_past"),
        ("self_exclusion", {"days": 150}, "exclusion_too_short"),
        ("self_exclusion", {"days": 5 * 366 + 2}, "exclusion_too_long"),
    ],
)
def test_an_exclusion_out_of_its_range_is_refused_naming_until(player, kind, until, code):
    refused = take(api_client(player), kind, later(**until))
    assert refused.status_code == 400
    assert refused.json()["code"] == code
    assert list(refused.json()["errors"]) == ["until"]
    assert not Exclusion.objects.exists()


def test_bad_input_names_its_field(player):
    client = api_client(player)
    assert list(take(client, "holiday", later(days=2)).json()["errors"]) == ["kind"]
    assert list(take(client, "time_out", "next tuesday").json()["errors"]) == ["until"]
    assert list(take(client, "time_out", "2027-02-30").json()["errors"]) == ["until"]
    assert not Exclusion.objects.exists()


def test_a_date_means_until_that_day_is_over(player, settings):
    settings.CASINO_TIME_ZONE = "Europe/Stockholm"
    day = (timezone.now() + timedelta(days=200)).date()
    taken = take(api_client(player), "self_exclusion", day.isoformat()).json()
    midnight = datetime.combine(day + timedelta(days=1), time(), ZoneInfo("Europe/Stockholm"))
    assert taken["until"] == midnight.isoformat()


def test_an_exclusion_can_never_be_shortened_and_a_retry_is_the_same_one(player):
    client = api_client(player)
    until = later(days=365)
    assert take(client, "self_exclusion", until).status_code == 201
    assert take(client, "self_exclusion", until).status_code == 200  # the same, again
    refused = take(client, "time_out", later(days=2))
    assert (refused.status_code, refused.json()["code"]) == (400, "exclusion_cannot_shorten")
    assert take(client, "self_exclusion", later(days=200)).json()["code"] == (
        "exclusion_cannot_shorten"
    )
    assert take(client, "self_exclusion", later(days=400)).status_code == 201  # longer: yes
    assert Exclusion.objects.filter(player=player).count() == 2


def test_nobody_takes_one_for_another_player(player, other_player, pit, auditor, admin_user):
    # A player field is no part of the request: the exclusion is always the sender's own.
    sent = api_client(player).post(
        EXCLUSIONS,
        {"kind": "time_out", "until": later(days=2), "player": other_player.pk},
        format="json",
    )
    assert sent.status_code == 201
    assert not Exclusion.objects.filter(player=other_player).exists()
    for user in (pit, auditor, admin_user):
        staff = api_client(user)
        assert take(staff, "self_exclusion", later(days=365)).status_code == 403
        assert staff.get(EXCLUSIONS).status_code == 403
    assert api_client(None).get(EXCLUSIONS).status_code in (401, 403)
    assert Exclusion.objects.count() == 1
    # And a player reads only their own.
    assert api_client(other_player).get(EXCLUSIONS).json() == []


def test_nobody_lifts_one_not_in_sql_nor_in_the_admin(player, admin_user):
    take(api_client(player), "self_exclusion", later(days=365))
    for statement in (
        "UPDATE protection_exclusion SET until = now()",
        "DELETE FROM protection_exclusion",
    ):
        with (
            pytest.raises(ProgrammingError, match="Cannot update or delete rows"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(statement)
    exclusion = Exclusion.objects.get()
    with pytest.raises(ProgrammingError), transaction.atomic():
        Exclusion.objects.filter(pk=exclusion.pk).update(until=timezone.now())
    request = RequestFactory().get("/admin/")
    request.user = admin_user  # a superuser
    model_admin = site._registry[Exclusion]
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request, exclusion)
    assert not model_admin.has_delete_permission(request, exclusion)
    assert conduct.exclusion_in_force(player) == exclusion


# At the tables and the cage ----------------------------------------------------------------


def test_a_time_out_refuses_a_joker_draw_opening_and_a_deposit_but_not_a_withdrawal(
    funded_player, joker_table, pit
):
    player = funded_player
    client = api_client(player)
    take(client, "time_out", later(days=2))
    refused = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}])
    assert (refused.status_code, refused.json()["code"]) == (403, "time_out")
    assert refused.json()["until"] == Exclusion.objects.get().until.isoformat()
    cage = api_client(pit)
    body = {"player": player.username, "currency": "USD", "amount": "10.00", "reason": "cash"}
    deposit = cage.post("/api/v1/cage/deposits/", body, format="json", HTTP_IDEMPOTENCY_KEY="d")
    assert (deposit.status_code, deposit.json()["code"]) == (403, "time_out")
    withdrawal = cage.post(
        "/api/v1/cage/withdrawals/", body, format="json", HTTP_IDEMPOTENCY_KEY="w"
    )
    assert withdrawal.status_code == 201
    assert client.get("/api/v1/wallets/").json()[0]["balance"] == "90.00"
    signed_in = api_client(None).post(
        "/api/v1/auth/token/", {"username": player.username, "password": "alice-pw"}
    )
    assert signed_in.status_code == 200  # to withdraw and read the statement
    assert_ledger_passes()


def test_a_round_in_play_is_finished_after_a_self_exclusion(funded_player, joker_table):
    client = api_client(funded_player)
    opened = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}])
    assert opened.status_code == 201
    take(client, "self_exclusion", later(days=365))
    played = act(client, opened.json()["id"], "bet-1", box=1, action="bet")
    assert played.status_code == 200, played.json()
    assert played.json()["state"] == "settled"
    again = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}], key="open-2")
    assert (again.status_code, again.json()["code"]) == (403, "self_excluded")
    assert client.get(f"{ROUNDS}{opened.json()['id']}/").status_code == 200
    assert_ledger_passes()
