"""API conventions shared by every endpoint: one error shape, naming the field and the rule.

Every refusal is a JSON body `{"detail": "...", "errors": {"field": ["message (RULE-ID)"]}}`.
"""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from games.tables.rounds import RoundRefused
from payouts.services import ChangeRefused, InsufficientFunds, LedgerError


def _first_message(errors: Any) -> str:
    if isinstance(errors, dict):
        for value in errors.values():
            return _first_message(value)
    if isinstance(errors, list) and errors:
        return _first_message(errors[0])
    return str(errors)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, InsufficientFunds):
        exc = _refusal(status.HTTP_409_CONFLICT, {exc.field: [exc.message]}, exc.code)
    elif isinstance(exc, LedgerError):
        exc = _refusal(status.HTTP_400_BAD_REQUEST, {exc.field: [exc.message]}, exc.code)
    elif isinstance(exc, RoundRefused):
        message = f"{exc.message.rstrip('.')} ({exc.rule})."
        exc = _refusal(exc.status, {exc.field: [message]}, exc.rule)
    elif isinstance(exc, ChangeRefused):
        exc = _refusal(
            status.HTTP_400_BAD_REQUEST, {k: [v] for k, v in exc.errors.items()}, "invalid"
        )
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ValidationError):
        errors = (
            response.data
            if isinstance(response.data, dict)
            else {"non_field_errors": response.data}
        )
        response.data = {"detail": _first_message(errors), "errors": errors}
    return response


def _refusal(status_code: int, errors: dict[str, list[str]], code: str) -> APIException:
    refusal = ValidationError(errors, code=code)
    refusal.status_code = status_code
    return refusal
