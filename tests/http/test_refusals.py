"""A refusal carries a kind and a code, no HTTP status: the API's one handler decides the status
from the kind, and a page reads the same refusal the same way."""

from __future__ import annotations

import pytest
from rest_framework.exceptions import NotFound
from rest_framework.test import APIRequestFactory

from casino.http.errors import STATUS_OF_KIND, exception_handler, status_of
from casino.refusals import FieldRefused, Kind
from games.engine.rules import JokerDrawRule
from games.tables.rounds import RoundRefused


def test_every_kind_of_refusal_has_its_status():
    assert set(STATUS_OF_KIND) == set(Kind)
    assert len(set(STATUS_OF_KIND.values())) == len(Kind)  # no two kinds read alike


@pytest.mark.parametrize(
    ("kind", "status"),
    [
        (Kind.INVALID, 400),
        (Kind.FORBIDDEN, 403),
        (Kind.NOT_FOUND, 404),
        (Kind.CONFLICT, 409),
    ],
)
def test_the_handler_answers_a_refusal_by_its_kind_with_its_code_and_field(kind, status):
    refused = RoundRefused(
        "The round is over.", field="action", rule=JokerDrawRule.DEALER_TURN, kind=kind
    )
    context = {"request": APIRequestFactory().post("/"), "view": None}
    response = exception_handler(refused, context)
    assert response is not None
    assert (response.status_code, status_of(refused)) == (status, status)
    assert response.data["code"] == "JD-8"
    assert response.data["errors"] == {"action": ["The round is over (JD-8)."]}


def test_a_refusal_is_invalid_unless_it_says_otherwise():
    refused = FieldRefused("No.", field="amount", code="ledger")
    assert (refused.kind, status_of(refused), refused.messages()) == (
        Kind.INVALID,
        400,
        {"amount": ["No."]},
    )


def test_other_errors_keep_the_frameworks_answer():
    response = exception_handler(NotFound(), {"request": None, "view": None})
    assert response is not None
    assert response.status_code == 404
