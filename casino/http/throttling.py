"""Sign-in throttling: guessing passwords is slowed down per address and user name.

The API's token login counts every attempt (a client logs in once and keeps its token); the
site's and the admin's login forms count failed attempts only, so a player who signs in and
out does not lock themselves out. Both keep their counters in the default cache (Redis
whenever there is one, so every web process shares them) and take their limits from the
settings.

The address is the connection's own unless ``NUM_PROXIES`` proxies of ours stand in front and
add it to ``X-Forwarded-For``: a header a client writes itself must not give it a fresh count.
The user name is counted as the login form reads it (Unicode NFKC, as Django's form normalises
it, and case-folded), so ``ｐｌａｙｅｒ4`` or ``Player4`` is counted with ``player4``.
"""

from __future__ import annotations

import contextlib
import hashlib
import unicodedata
from collections.abc import Callable
from typing import cast

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils.translation import ngettext
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle
from rest_framework.views import APIView


def counted_username(username: object) -> str:
    """The one spelling every form of a user name is counted under."""
    return unicodedata.normalize("NFKC", str(username or "")).strip().casefold()[:150]


def client_address(request: HttpRequest | Request) -> str:
    """The client's address: the connection's, or the one our ``NUM_PROXIES`` proxies saw."""
    # DRF's reading of NUM_PROXIES; it needs the request's META only, which both kinds have.
    return BaseThrottle().get_ident(cast(Request, request))


def _client_key(scope: str, request: HttpRequest | Request, username: object) -> str:
    digest = hashlib.sha256(
        f"{client_address(request)}\n{counted_username(username)}".encode()
    ).hexdigest()
    return f"throttle:{scope}:{digest}"


class TokenLoginThrottle(SimpleRateThrottle):
    """Token logins per address and user name, at ``LOGIN_THROTTLE_RATE`` (e.g. "10/min")."""

    scope = "login"

    def get_rate(self) -> str | None:
        return settings.LOGIN_THROTTLE_RATE

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        username = request.data.get("username") if hasattr(request.data, "get") else None
        return _client_key(self.scope, request, username)


class LoginFormThrottleMiddleware:
    """Refuses a sign-in form with 429 after ``LOGIN_FORM_MAX_FAILURES`` failed attempts from
    one address for one user name within ``LOGIN_FORM_FAILURE_WINDOW`` seconds.

    The login views answer a failure by showing the form again (200) and a success with a
    redirect, so the count is kept from the status of their response.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # The API signs in with its own throttle (TokenLoginThrottle) and has no forms.
        if (
            request.method != "POST"
            or request.path_info.startswith("/api/")
            or not _is_login_form(request.path_info)
        ):
            return self.get_response(request)
        key = _client_key("login-form", request, request.POST.get("username"))
        window = settings.LOGIN_FORM_FAILURE_WINDOW
        # Every attempt takes its place in the count before its password is checked (one
        # atomic increment), so guesses sent all at once cannot all pass a count read first.
        cache.add(key, 0, timeout=window)
        if cache.incr(key) > settings.LOGIN_FORM_MAX_FAILURES:
            return HttpResponse(
                ngettext(
                    "Too many failed sign-ins. Try again in %(minutes)s minute.",
                    "Too many failed sign-ins. Try again in %(minutes)s minutes.",
                    window // 60 or 1,
                )
                % {"minutes": window // 60 or 1},
                status=429,
                content_type="text/plain",
                headers={"Retry-After": str(window)},
            )
        response = self.get_response(request)
        if 300 <= response.status_code < 400:  # signed in: the count starts again
            cache.delete(key)
        elif response.status_code != 200:  # refused before any password was checked
            with contextlib.suppress(ValueError):  # the count may have expired meanwhile
                cache.decr(key)
        return response


def _is_login_form(path: str) -> bool:
    try:
        match = resolve(path)
    except Resolver404:
        return False
    return match.view_name in settings.LOGIN_FORM_VIEWS
