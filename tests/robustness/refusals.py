"""What the robustness tests send and check where money comes in: the API requests that carry
an amount, the one shape of a refusal, and a snapshot of everything a request could change."""

from __future__ import annotations

import json
from typing import Any

from rest_framework.test import APIClient

from games.models import Round, RoundEvent, Seat
from payouts.models import Account, LedgerTransaction
from tests.robustness.conftest import World


def snapshot() -> tuple:
    """Everything a request could change: balances, ledger, rounds, their histories, seats."""
    return (
        tuple(Account.objects.order_by("pk").values_list("pk", "balance")),
        LedgerTransaction.objects.count(),
        tuple(Round.objects.order_by("pk").values_list("pk", "status", "engine_state")),
        RoundEvent.objects.count(),
        tuple(Seat.objects.order_by("pk").values_list("pk", "status", "chips")),
    )


def refused(response, field: str, *, status: int = 400) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["detail"]
    assert field in json.dumps(body.get("errors", body)), body
    return body


def post(client: APIClient, url: str, body: dict, key: str = "k"):
    return client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=key)


def amount_requests(world: World, amount: Any) -> list[tuple[str, dict, str]]:
    """(URL, body, field) of every API request a player sends an amount in, carrying ``amount``."""
    return [
        (
            "/api/v1/joker-draw/rounds/",
            {"table": world.joker_table.pk, "boxes": [{"box": 1, "ante": amount}]},
            "ante",
        ),
        (
            "/api/v1/joker-draw/rounds/",
            {"table": world.joker_table.pk, "boxes": [{"box": 1, "ante": "0.30", "bonus": amount}]},
            "bonus",
        ),
        (
            f"/api/v1/stud/tables/{world.stud_table.pk}/seats/",
            {"seat": 5, "buy_in": amount},
            "buy_in",
        ),
        (
            f"/api/v1/drawmaha/tables/{world.drawmaha_table.pk}/seats/",
            {"seat": 5, "buy_in": amount},
            "buy_in",
        ),
        (
            f"/api/v1/stud/tables/{world.stud_table.pk}/actions/",
            {"action": "bet", "amount": amount},
            "amount",
        ),
        (
            f"/api/v1/drawmaha/tables/{world.drawmaha_table.pk}/actions/",
            {"action": "raise", "amount": amount},
            "amount",
        ),
    ]
