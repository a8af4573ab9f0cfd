"""No text the casino reads may hold a NUL character: PostgreSQL stores none, and a NUL that
reached a query would fail it with a 500. So every request is read at the edge, before any
view: its path, its query string's names and values, a form's fields and a JSON body's keys
and strings. One NUL anywhere is refused with 400, code ``nul_character``, naming the field
(the one error shape of ``casino.http.errors``; a page gets the message as text)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _

NUL = "\x00"
CODE = "nul_character"
BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def _in_pairs(pairs: list[tuple[str, str]]) -> str | None:
    """The name of the first field whose name or value holds a NUL."""
    for name, value in pairs:
        if NUL in name or NUL in value:
            return name.replace(NUL, "") or "?"
    return None


def _in_json(value: Any, where: str) -> Iterator[str]:
    if isinstance(value, str):
        if NUL in value:
            yield where
    elif isinstance(value, dict):
        for key, item in value.items():
            name = f"{where}.{key}" if where else str(key)
            if NUL in str(key):
                yield name.replace(NUL, "")
            yield from _in_json(item, name)
    elif isinstance(value, list):
        for number, item in enumerate(value):
            yield from _in_json(item, f"{where}.{number}" if where else str(number))


def nul_field(request: HttpRequest) -> str | None:
    """The field of ``request`` that holds a NUL, if any (``path``, a query parameter, a form
    field, a JSON key path such as ``limits.0.kind``, or ``body``)."""
    if NUL in request.path:
        return "path"
    query = request.META.get("QUERY_STRING", "")
    if "%00" in query or NUL in query:
        return _in_pairs(parse_qsl(query, keep_blank_values=True)) or "query"
    if request.method not in BODY_METHODS:
        return None
    body = request.body
    # The cheap look first: a NUL is a raw byte, a form's %00 or a JSON string's \u0000.
    if b"\x00" not in body and b"%00" not in body and b"\\u0000" not in body:
        return None
    content_type = request.content_type or ""
    if content_type == "application/x-www-form-urlencoded":
        text = body.decode("utf-8", "replace")
        return _in_pairs(parse_qsl(text, keep_blank_values=True)) or "body"
    if content_type.endswith("json"):
        try:
            return next(_in_json(json.loads(body), ""), None)
        except ValueError:  # not JSON: the parser refuses it
            return None
    return "body" if b"\x00" in body else None


class NulCharacterMiddleware:
    """Refuses a request holding a NUL anywhere it could reach the database (``nul_field``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        field = nul_field(request)
        if field is None:
            return self.get_response(request)
        message = _("No text may hold a NUL character.")
        if request.path_info.startswith("/api/"):
            return JsonResponse(
                {"detail": message, "code": CODE, "errors": {field: [message]}}, status=400
            )
        return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
