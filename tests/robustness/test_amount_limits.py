"""Amounts beyond what the ledger's columns hold (numeric(14, 2): 999999999999.99 at most) are
refused with a 4xx naming the field, and move nothing, wherever money comes in: the API, the
admin's forms and the staff screens; an amount that fits its column but would take a balance
beyond it is refused the same way, never answered with a database error."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client

from games.models import TableLimits
from payouts import services
from payouts.approvals import ChangeStatus
from tests.fixtures.refusals import amount_requests, post, refused, snapshot
from tests.fixtures.users import api_client
from tests.fixtures.world import World

LARGEST = "999999999999.99"
BEYOND = ["1000000000000.00", "9999999999999.99", "1" * 40]


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_cage_deposit_no_balance_can_hold_is_refused_naming_the_amount(world: World):
    """The deposit fits its column, but neither the wallet (which holds money already) nor the
    cage (which owes the house's funding) could hold the sum."""
    before = snapshot()
    body = {"player": world.player.username, "currency": "USD", "amount": LARGEST, "reason": "x"}
    answer = refused(post(api_client(world.pit), "/api/v1/cage/deposits/", body), "amount")
    assert LARGEST in answer["detail"]
    assert snapshot() == before
    with pytest.raises(services.LedgerError) as refusal:
        services.deposit(
            player=world.player, currency="USD", amount=Decimal(LARGEST), reason="x", by=world.pit
        )
    assert (refusal.value.field, refusal.value.code) == ("amount", "max_value")
    assert snapshot() == before


@pytest.mark.parametrize("amount", BEYOND)
def test_every_amount_of_the_api_beyond_its_column_is_refused(world: World, amount):
    before = snapshot()
    player = api_client(world.player)
    stakes = amount_requests(world, amount)
    for number, (url, body, field) in enumerate(stakes):
        answer = refused(post(player, url, body, key=f"big-{number}"), field)
        assert LARGEST in answer["detail"], (url, answer)
    for direction in ("deposits", "withdrawals"):
        body = {"player": world.player.username, "currency": "USD", "amount": amount, "reason": "x"}
        answer = refused(post(api_client(world.pit), f"/api/v1/cage/{direction}/", body), "amount")
        assert LARGEST in answer["detail"]
    assert snapshot() == before


@pytest.mark.parametrize("amount", [LARGEST, *BEYOND])
def test_the_admin_cage_forms_refuse_amounts_no_balance_can_hold(world: World, amount):
    before = snapshot()
    form = {
        "player": world.player.pk,
        "currency": "USD",
        "amount": amount,
        "reason": "cash",
        "idempotency_key": f"big-{amount}",
    }
    for direction in ("deposit", "withdraw"):
        page = signed_in(world.pit).post(f"/admin/payouts/ledgertransaction/{direction}/", form)
        assert page.status_code == 200
        assert list(page.context["form"].errors) == ["amount"], page.context["form"].errors
    assert snapshot() == before


@pytest.mark.parametrize("amount", BEYOND)
def test_limits_beyond_their_columns_are_refused_naming_the_field(world: World, amount):
    """In the admin and on the staff screens, any money limit of a proposal."""
    stud = world.stud_table
    values = {
        "ante": "0.50", "bring_in": "1.00", "small_bet": "4.00", "big_bet": "8.00", "seats": "8",
        "rake_percent": "5.00", "rake_cap": "3.00", "buy_in_min": "50.00",
        "buy_in_max": "500.00", "action_timeout_seconds": "30", "reason": "bigger",
    }  # fmt: skip
    for field in ("ante", "rake_cap", "buy_in_max"):
        screen = signed_in(world.pit).post(
            f"/staff/limits/tables/{stud.pk}/propose/", {**values, field: amount}
        )
        assert screen.status_code == 400
        assert field in screen.context["form"].errors
        page = signed_in(world.pit).post(
            "/admin/games/tablelimits/add/", {**values, "table": stud.pk, field: amount}
        )
        assert page.status_code == 200
        assert field in page.context["adminform"].form.errors
    assert not TableLimits.objects.filter(table=stud, status=ChangeStatus.DRAFT).exists()


@pytest.mark.parametrize("amount", BEYOND)
def test_payout_review_amounts_beyond_their_column_are_refused_naming_the_field(
    world: World, amount
):
    for field in ("min_amount", "max_amount"):
        page = signed_in(world.auditor).get("/staff/payouts/", {field: amount})
        assert page.status_code == 400
        assert field in page.context["form"].errors
        export = signed_in(world.auditor).get("/staff/payouts.csv", {field: amount})
        assert export.status_code == 400
        assert export.content.decode().startswith(f"{field}:")


@pytest.mark.parametrize("amount", BEYOND)
def test_the_ledger_refuses_amounts_beyond_its_columns_whoever_calls_it(world: World, amount):
    """A caller that skips the forms (a task, a command) gets the same refusal, not a crash."""
    before = snapshot()
    for move in (services.deposit, services.withdraw):
        with pytest.raises(services.LedgerError) as refusal:
            move(
                player=world.player,
                currency="USD",
                amount=Decimal(amount),
                reason="x",
                by=world.pit,
            )
        assert (refusal.value.field, refusal.value.code) == ("amount", "max_value")
        assert LARGEST in refusal.value.message
    assert snapshot() == before
