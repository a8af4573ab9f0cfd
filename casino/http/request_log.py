"""One log line per request, and the request id every line of the request carries.

The first middleware of all: it takes the request id from an incoming ``X-Request-ID`` header
when it is sane (``casino.logs.sane_request_id``: short, of safe characters) or makes one,
binds it for every line logged during the request (and for the Celery tasks the request
queues, ``casino.workers``), answers it in the response's ``X-Request-ID`` header, and once the
response is ready writes the request's line (logger ``casino.requests``): method, path,
status, duration, and where known the user, the table or round of the URL and the stable
``code`` of a refusal.

The health checks' answers (``casino.health``), which a load balancer asks for every second,
are logged at DEBUG when they pass, so they do not drown the other lines; a failing check is
logged at WARNING.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.encoding import escape_uri_path
from django.utils.functional import SimpleLazyObject, empty

from casino import logs

logger = logging.getLogger("casino.requests")

HEADER = "X-Request-ID"
HEALTH_PATHS = frozenset({"/healthz", "/healthz/", "/readyz", "/readyz/"})
# The segment of a URL before its ``<int:pk>`` says what the pk is: a table, or a round (a
# peer game's hand is a round too). The players' pages name their game there instead.
_TABLE_SEGMENTS = frozenset({"tables"})
_ROUND_SEGMENTS = frozenset({"rounds", "hands"})
_TABLE_VIEWS = frozenset({"play:joker-draw", "play:peer-table"})
_ROUND_VIEWS = frozenset({"play:recall-round", "play:recall-hand", "play:hand-summary"})
# A refusal's body is read for its code only when it is small (an error body always is).
_MAX_REFUSAL_BODY = 8192


def subject_of(view_name: str, route: str, kwargs: dict[str, Any]) -> dict[str, int]:
    """``{"table": pk}`` or ``{"round": pk}`` for a URL whose ``pk`` names one, else ``{}``."""
    pk = kwargs.get("pk")
    if not isinstance(pk, int):
        return {}
    before = route.split("<int:pk>", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    if before in _TABLE_SEGMENTS or view_name in _TABLE_VIEWS:
        return {"table": pk}
    if before in _ROUND_SEGMENTS or view_name in _ROUND_VIEWS:
        return {"round": pk}
    return {}


def user_id_of(request: HttpRequest) -> int | None:
    """The signed-in user's id, if the request found out who it is (a session's user not yet
    looked up is left alone: looking it up would cost a query)."""
    user = getattr(request, "user", None)
    if user is None:
        return None
    if isinstance(user, SimpleLazyObject) and user.__dict__.get("_wrapped") is empty:
        return None
    return user.pk if user.is_authenticated else None


def refusal_code(response: HttpResponse) -> str | None:
    """The stable ``code`` of an API refusal (``casino.http.errors``' one error shape), or of
    another error DRF answered (``not_authenticated``, ``permission_denied``, ...)."""
    if response.status_code < 400:
        return None
    data = getattr(response, "data", None)
    if data is None and response.get("Content-Type", "").startswith("application/json"):
        # A refusal built as a plain JsonResponse (casino.http.nul).
        content = getattr(response, "content", b"")
        if len(content) <= _MAX_REFUSAL_BODY:
            try:
                data = json.loads(content)
            except ValueError:
                return None
    if not isinstance(data, dict):
        return None
    code = data.get("code") or getattr(data.get("detail"), "code", None)
    return code if isinstance(code, str) else None


class RequestLogMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        request_id = logs.sane_request_id(request.headers.get(HEADER)) or logs.new_request_id()
        token = logs.bind(request_id=request_id)
        try:
            response = self.get_response(request)
            self.log(request, response, time.perf_counter() - started)
        finally:
            logs.reset(token)
        response[HEADER] = request_id
        return response

    def process_view(
        self,
        request: HttpRequest,
        view: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        # The lines logged inside the view carry its table or round too (reset with the
        # request's context in __call__).
        match = request.resolver_match
        if match is not None:
            logs.bind(**subject_of(match.view_name, match.route, kwargs))

    def log(self, request: HttpRequest, response: HttpResponse, seconds: float) -> None:
        status = response.status_code
        path = escape_uri_path(request.path)  # percent-encoded: no newline reaches a line
        match = request.resolver_match
        fields: dict[str, Any] = {
            "method": request.method,
            "path": path,
            "status": status,
            "duration_ms": round(seconds * 1000, 1),
            "user_id": user_id_of(request),
            "code": refusal_code(response),
            **(subject_of(match.view_name, match.route, match.kwargs) if match else {}),
        }
        if path in HEALTH_PATHS:
            level = logging.DEBUG if status < 400 else logging.WARNING
        else:
            level = logging.ERROR if status >= 500 else logging.INFO
        logger.log(
            level,
            "%s %s %s in %s ms%s",
            request.method,
            path,
            status,
            fields["duration_ms"],
            f" ({fields['code']})" if fields["code"] else "",
            extra={key: value for key, value in fields.items() if value is not None},
        )
