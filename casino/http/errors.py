"""API conventions shared by every endpoint: one error shape, naming the field and the rule.

Every refusal is a JSON body
`{"detail": "...", "code": "RULE-ID", "errors": {"field": ["message (RULE-ID)"]}}`: the messages
in the request's language, the code the same in every language, for programs to read.
"""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


class Refused(Exception):
    """A request refused by a rule of the product, wherever it was refused (a game, the ledger,
    a maker-checker step): the API answers it with ``status``, the messages by field, and the
    stable ``code``."""

    status: int = status.HTTP_400_BAD_REQUEST
    code: str

    def messages(self) -> dict[str, list[str]]:
        raise NotImplementedError

    def extra(self) -> dict[str, Any]:
        """Fields the body carries beside ``detail``, ``code`` and ``errors`` (when a limit
        resets, until when a player is excluded, ...)."""
        return {}


class InputRefused(Refused):
    """Input refused where it is read, before any rule of a game or the ledger sees it: a day
    outside the calendar, a cursor that is not ours, a character no text may hold. Names the
    field and the stable ``code``."""

    def __init__(self, field: str, code: str, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.field, self.code, self.message, self.status = field, code, message, status

    def messages(self) -> dict[str, list[str]]:
        return {self.field: [self.message]}


def _first_message(errors: Any) -> str:
    if isinstance(errors, dict):
        for value in errors.values():
            return _first_message(value)
    if isinstance(errors, list) and errors:
        return _first_message(errors[0])
    return str(errors)


def _first_code(codes: Any) -> str:
    """The stable code of a refusal: the first one its fields carry ("invalid" when none)."""
    if isinstance(codes, dict):
        for value in codes.values():
            return _first_code(value)
    if isinstance(codes, list) and codes:
        return _first_code(codes[0])
    return codes if isinstance(codes, str) else "invalid"


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    extra: dict[str, Any] = {}
    if isinstance(exc, Refused):
        extra = exc.extra()
        exc = _refusal(exc.status, exc.messages(), exc.code)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ValidationError):
        errors = (
            response.data
            if isinstance(response.data, dict)
            else {"non_field_errors": response.data}
        )
        response.data = {
            "detail": _first_message(errors),
            "code": _first_code(exc.get_codes()),
            "errors": errors,
            **extra,
        }
    return response


def _refusal(status_code: int, errors: dict[str, list[str]], code: str) -> APIException:
    refusal = ValidationError(errors, code=code)
    refusal.status_code = status_code
    return refusal
