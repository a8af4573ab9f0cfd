"""API conventions shared by every endpoint: one error shape, naming the field and the rule.

Every refusal is a JSON body
`{"detail": "...", "code": "RULE-ID", "errors": {"field": ["message (RULE-ID)"]}}`: the messages
in the request's language, the code the same in every language, for programs to read. The
domain raises ``casino.refusals.Refused`` and knows no status: the kind of a refusal decides it
here, once.
"""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from casino.refusals import FieldRefused, Kind, Refused

STATUS_OF_KIND: dict[Kind, int] = {
    Kind.INVALID: status.HTTP_400_BAD_REQUEST,
    Kind.CONFLICT: status.HTTP_409_CONFLICT,
    Kind.NOT_FOUND: status.HTTP_404_NOT_FOUND,
    Kind.FORBIDDEN: status.HTTP_403_FORBIDDEN,
}


def status_of(refused: Refused) -> int:
    """The HTTP status of a refusal, by its kind: for the API and for the pages alike."""
    return STATUS_OF_KIND[refused.kind]


class InputRefused(FieldRefused):
    """Input refused where it is read, before any rule of a game or the ledger sees it: a day
    outside the calendar, a cursor that is not ours, a character no text may hold. Names the
    field and the stable ``code``."""

    def __init__(self, field: str, code: str, message: str) -> None:
        super().__init__(message, field=field, code=code)


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
        exc = _refusal(status_of(exc), exc.messages(), exc.code)
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
