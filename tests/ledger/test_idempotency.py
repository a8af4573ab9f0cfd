"""Idempotency-Key on money-moving requests: one effect, the same response, 409 on a new body."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from django.db import connection

from payouts import services
from payouts.models import LedgerTransaction, TransactionKind
from tests.fixtures.users import api_client

URL = "/api/v1/cage/deposits/"


def body(amount: str = "25.00") -> dict[str, str]:
    return {"player": "alice", "currency": "USD", "amount": amount, "reason": "cash at the cage"}


def test_a_repeat_returns_the_first_response_and_moves_nothing(player, pit):
    client = api_client(pit)
    first = client.post(URL, body(), format="json", HTTP_IDEMPOTENCY_KEY="dep-1")
    assert first.status_code == 201
    for _ in range(4):
        again = client.post(URL, body(), format="json", HTTP_IDEMPOTENCY_KEY="dep-1")
        assert again.status_code == 201
        assert again.content == first.content
        assert again["Idempotent-Replayed"] == "true"
    assert services.wallet(player, "USD").balance == Decimal("25.00")
    assert LedgerTransaction.objects.filter(kind=TransactionKind.DEPOSIT).count() == 1


def test_the_same_key_with_another_body_is_a_conflict(player, pit):
    client = api_client(pit)
    client.post(URL, body(), format="json", HTTP_IDEMPOTENCY_KEY="dep-1")
    conflict = client.post(URL, body("26.00"), format="json", HTTP_IDEMPOTENCY_KEY="dep-1")
    assert conflict.status_code == 409
    assert "Idempotency-Key" in conflict.json()["detail"]
    assert services.wallet(player, "USD").balance == Decimal("25.00")


def test_a_money_moving_request_without_a_key_is_refused(player, pit):
    response = api_client(pit).post(URL, body(), format="json")
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["errors"]
    assert not LedgerTransaction.objects.exists()


def test_keys_belong_to_their_user(player, pit, pit2):
    api_client(pit).post(URL, body(), format="json", HTTP_IDEMPOTENCY_KEY="same")
    second = api_client(pit2).post(URL, body(), format="json", HTTP_IDEMPOTENCY_KEY="same")
    assert second.status_code == 201
    assert "Idempotent-Replayed" not in second
    assert services.wallet(player, "USD").balance == Decimal("50.00")


def test_a_refused_request_stores_nothing_and_can_be_retried(player, pit):
    client = api_client(pit)
    refused = client.post(
        "/api/v1/cage/withdrawals/", body("5.00"), format="json", HTTP_IDEMPOTENCY_KEY="wd-1"
    )
    assert refused.status_code == 409
    assert "Insufficient funds" in refused.json()["detail"]
    client.post(URL, body("5.00"), format="json", HTTP_IDEMPOTENCY_KEY="dep-2")
    retried = client.post(
        "/api/v1/cage/withdrawals/", body("5.00"), format="json", HTTP_IDEMPOTENCY_KEY="wd-1"
    )
    assert retried.status_code == 201


@pytest.mark.django_db(transaction=True)
def test_parallel_retries_of_one_key_have_one_effect(player, pit):
    start = threading.Barrier(5)

    def send(_: int) -> tuple[int, bytes]:
        start.wait()
        try:
            response = api_client(pit).post(
                URL, body(), format="json", HTTP_IDEMPOTENCY_KEY="dep-par"
            )
            return response.status_code, response.content
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=5) as pool:
        results = list(pool.map(send, range(5)))
    assert {status for status, _ in results} == {201}
    assert len({content for _, content in results}) == 1
    assert LedgerTransaction.objects.filter(kind=TransactionKind.DEPOSIT).count() == 1
    assert services.wallet(player, "USD").balance == Decimal("25.00")


@pytest.mark.parametrize("amount", ["1e9", "-0.30", "0.3000001", "NaN", "1" * 400, 10.5, ""])
def test_malformed_amounts_are_refused_naming_the_field(player, pit, amount):
    response = api_client(pit).post(
        URL, {**body(), "amount": amount}, format="json", HTTP_IDEMPOTENCY_KEY=f"bad-{amount!s:.50}"
    )
    assert response.status_code == 400
    assert "amount" in response.json()["errors"]
    assert not LedgerTransaction.objects.exists()
