"""Each role can do exactly what it should, over every endpoint and admin page."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client

from payouts import services
from payouts.models import LedgerTransaction
from tests.fixtures.users import api_client

ROLES = ("anonymous", "player", "pit", "auditor", "admin_user")


@pytest.fixture
def users(player, pit, auditor, admin_user):
    return {
        "anonymous": None,
        "player": player,
        "pit": pit,
        "auditor": auditor,
        "admin_user": admin_user,
    }


@pytest.fixture
def ledger(player, other_player, pit):
    services.deposit(player=player, currency="USD", amount=Decimal("40.00"), reason="cash", by=pit)
    services.deposit(
        player=other_player, currency="USD", amount=Decimal("70.00"), reason="cash", by=pit
    )
    return LedgerTransaction.objects.order_by("id").first()


API_MATRIX = [
    # (method, url, {role: expected status})
    (
        "get",
        "/api/v1/wallets/",
        {"anonymous": 401, "player": 200, "pit": 200, "auditor": 200, "admin_user": 200},
    ),
    (
        "get",
        "/api/v1/wallets/USD/transactions/",
        {"anonymous": 401, "player": 200, "pit": 200, "auditor": 200, "admin_user": 200},
    ),
    (
        "get",
        "/api/v1/accounts/",
        {"anonymous": 401, "player": 403, "pit": 200, "auditor": 200, "admin_user": 200},
    ),
    (
        "get",
        "/api/v1/tables/",
        {"anonymous": 401, "player": 200, "pit": 200, "auditor": 200, "admin_user": 200},
    ),
    (
        "post",
        "/api/v1/cage/deposits/",
        {"anonymous": 401, "player": 403, "pit": 201, "auditor": 403, "admin_user": 201},
    ),
    (
        "post",
        "/api/v1/cage/withdrawals/",
        {"anonymous": 401, "player": 403, "pit": 201, "auditor": 403, "admin_user": 201},
    ),
    # The pit's staff API: staff read, the pit writes (the cage's body names no table: 400).
    (
        "get",
        "/api/v1/staff/tables/",
        {"anonymous": 401, "player": 403, "pit": 200, "auditor": 200, "admin_user": 200},
    ),
    (
        "get",
        "/api/v1/staff/paytable-versions/",
        {"anonymous": 401, "player": 403, "pit": 200, "auditor": 200, "admin_user": 200},
    ),
    (
        "post",
        "/api/v1/staff/tables/",
        {"anonymous": 401, "player": 403, "pit": 400, "auditor": 403, "admin_user": 400},
    ),
    (
        "post",
        "/api/v1/staff/paytable-versions/",
        {"anonymous": 401, "player": 403, "pit": 400, "auditor": 403, "admin_user": 400},
    ),
]


@pytest.mark.parametrize(
    ("method", "url", "expected"), API_MATRIX, ids=[f"{m} {u}" for m, u, _ in API_MATRIX]
)
@pytest.mark.parametrize("role", ROLES)
def test_api_matrix(users, ledger, method, url, expected, role):
    body = {"player": "alice", "currency": "USD", "amount": "1.00", "reason": "cash"}
    client = api_client(users[role])
    if method == "get":
        response = client.get(url)
    else:
        response = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=f"{role}-{url}")
    assert response.status_code == expected[role], response.content


def test_a_player_sees_only_their_own_wallet_and_entries(player, ledger):
    client = api_client(player)
    assert client.get("/api/v1/wallets/").json() == [{"currency": "USD", "balance": "40.00"}]
    entries = client.get("/api/v1/wallets/usd/transactions/").json()["results"]
    assert [(e["amount"], e["balance_after"]) for e in entries] == [("40.00", "40.00")]
    assert client.get("/api/v1/wallets/XYZ/transactions/").status_code == 404


def test_players_see_open_tables_only_and_staff_see_all(player, pit, joker_table, new_closed_table):
    assert [t["name"] for t in api_client(player).get("/api/v1/tables/").json()] == ["Joker 1"]
    assert {t["name"] for t in api_client(pit).get("/api/v1/tables/").json()} == {
        "Joker 1",
        "Stud closed",
    }
    table = api_client(player).get("/api/v1/tables/?game=joker_draw").json()[0]
    assert table["limits"]["min_ante"] == "0.30"
    assert table["limits"]["max_ante"] == "12.00"
    assert table["limits"]["bet_paytable"] == "joker-draw-bet-default"


@pytest.fixture
def new_closed_table(pit):
    from games.tables import services as table_services

    return table_services.create_table(
        name="Stud closed", game="seven_card_stud", currency="USD", by=pit, reason="t"
    )


def test_token_login(player):
    client = api_client(None)
    token = client.post(
        "/api/v1/auth/token/", {"username": "alice", "password": "alice-pw"}, format="json"
    )
    assert token.status_code == 200
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    assert client.get("/api/v1/wallets/").status_code == 200
    wrong = api_client(None).post(
        "/api/v1/auth/token/", {"username": "alice", "password": "nope"}, format="json"
    )
    assert wrong.status_code == 400


ADMIN_MATRIX = [
    ("/admin/", {"player": 302, "pit": 200, "auditor": 200, "admin_user": 200}),
    ("/admin/games/table/", {"player": 302, "pit": 200, "auditor": 200, "admin_user": 200}),
    ("/admin/games/table/add/", {"player": 302, "pit": 200, "auditor": 403, "admin_user": 200}),
    ("/admin/games/tablelimits/", {"player": 302, "pit": 200, "auditor": 200, "admin_user": 200}),
    (
        "/admin/games/tablelimits/add/",
        {"player": 302, "pit": 200, "auditor": 403, "admin_user": 200},
    ),
    ("/admin/payouts/account/", {"player": 302, "pit": 200, "auditor": 200, "admin_user": 200}),
    (
        "/admin/payouts/ledgertransaction/",
        {"player": 302, "pit": 200, "auditor": 200, "admin_user": 200},
    ),
    (
        "/admin/payouts/ledgertransaction/deposit/",
        {"player": 302, "pit": 200, "auditor": 403, "admin_user": 200},
    ),
    (
        "/admin/payouts/ledgertransaction/withdraw/",
        {"player": 302, "pit": 200, "auditor": 403, "admin_user": 200},
    ),
    (
        "/admin/payouts/ledgertransaction/{txn}/reverse/",
        {"player": 302, "pit": 200, "auditor": 403, "admin_user": 200},
    ),
    ("/admin/payouts/paytable/", {"player": 302, "pit": 200, "auditor": 200, "admin_user": 200}),
    (
        "/admin/payouts/paytableversion/add/",
        {"player": 302, "pit": 200, "auditor": 403, "admin_user": 200},
    ),
    ("/admin/pghistory/events/", {"player": 302, "pit": 200, "auditor": 200, "admin_user": 200}),
    ("/admin/games/round/", {"player": 302, "pit": 200, "auditor": 200, "admin_user": 200}),
    ("/admin/games/boxsettlement/", {"player": 302, "pit": 200, "auditor": 200, "admin_user": 200}),
    ("/admin/games/seat/", {"player": 302, "pit": 200, "auditor": 200, "admin_user": 200}),
    (
        "/admin/games/settlementcorrection/",
        {"player": 302, "pit": 200, "auditor": 200, "admin_user": 200},
    ),
    (
        "/admin/payouts/reversalproposal/",
        {"player": 302, "pit": 200, "auditor": 200, "admin_user": 200},
    ),
    ("/admin/auth/user/", {"player": 302, "pit": 403, "auditor": 403, "admin_user": 200}),
]


@pytest.mark.parametrize(("url", "expected"), ADMIN_MATRIX, ids=[u for u, _ in ADMIN_MATRIX])
@pytest.mark.parametrize("role", ["player", "pit", "auditor", "admin_user"])
def test_admin_matrix(users, ledger, joker_table, url, expected, role):
    client = Client()
    client.force_login(users[role])
    response = client.get(url.format(txn=ledger.pk))
    assert response.status_code == expected[role]


def test_nobody_edits_balances_or_entries_in_the_admin(pit, admin_user, ledger):
    for user in (pit, admin_user):
        client = Client()
        client.force_login(user)
        account = ledger.entries.first().account
        page = client.get(f"/admin/payouts/account/{account.pk}/change/")
        assert page.status_code == 200
        assert b'name="balance"' not in page.content
        assert (
            client.post(
                f"/admin/payouts/account/{account.pk}/change/", {"balance": "9"}
            ).status_code
            == 403
        )
        assert (
            client.post(f"/admin/payouts/ledgertransaction/{ledger.pk}/delete/").status_code == 403
        )
