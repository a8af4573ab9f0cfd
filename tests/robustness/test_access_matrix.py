"""Who may reach what: every URL pattern the resolver knows, for every role and anonymous, over
session and token auth; CSRF on session POSTs and forms; sign-in throttling.

The expected status comes from one rule per prefix (``expected_get``, ``expected_post``); a
pattern under a prefix with no rule fails, so a new area of the site must say who may see it.
"""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from payouts.models import LedgerTransaction
from tests.fixtures.routes import Route, allowed_methods, fetch, routes

ROLES = ("anonymous", "player", "pit", "auditor", "admin_user")
STAFF = ("pit", "auditor", "admin_user")
LOGOUT = "/api/v1/auth/logout/"

# The admin's views that only read; an auditor gets 403 from every other one.
_ADMIN_READS = frozenset({"changelist", "change", "history", "chart"})
# The pit's working screens; auditors read the record (rounds, payouts, ledger) only.
_PIT_WORK = (
    "staff:live", "staff:limits", "staff:paytable", "staff:propose", "staff:create-table",
    "staff:table", "staff:compute-rtp",
)  # fmt: skip


def expected_admin(route: Route, role: str, user) -> set[int]:
    if route.name == "admin:logout":
        return {302} if role in ("anonymous", "player") else {405}
    if route.name == "admin:login":
        return {200} if role in ("anonymous", "player") else {302}
    if role in ("anonymous", "player"):
        return {302}  # to the admin login
    if route.name == "admin:autocomplete":
        return {403}  # needs the model and field it completes
    if route.name == "admin:view_on_site":
        return {302, 404}
    model = route.admin_model()
    if model is None:
        return {200}  # the index, an app's list, translations, password change
    opts = model._meta
    readable = user.has_perm(f"{opts.app_label}.view_{opts.model_name}") or user.has_perm(
        f"{opts.app_label}.change_{opts.model_name}"
    )
    if not readable:
        # A page of one object sends a missing object to the index before it asks.
        return {302, 403} if "<" in route.pattern else {403}
    if not route.name:
        return {302}  # the old address of an object's page, sent to the new one
    view = route.name.rsplit("_", 1)[-1]
    if view in _ADMIN_READS:
        return {200, 302}  # 302: a sample object the page sends elsewhere
    if role == "auditor":
        return {403}
    return {200, 302, 403}  # the model's admin decides (the ledger is never deleted)


def expected_get(route: Route, role: str, user=None) -> set[int]:
    path = route.path
    if path == "/api/v1/auth/token/":
        return {405}  # POST only, and open to all
    methods = allowed_methods(route.callback)
    if path.startswith("/api/v1/me/"):  # a player's own seed pair (FS-2) and limits: players only
        if role == "anonymous":
            return {401}
        if role != "player":
            return {403}  # the permission is checked before the method
        return {405} if methods is not None and "GET" not in methods else {200}
    if path.startswith("/api/v1/staff/"):  # the staff API: staff read, players reach nothing
        if role in ("anonymous", "player"):
            return {401} if role == "anonymous" else {403}
        if path.endswith("/rtp/measurements/") and role == "auditor":
            return {403}  # only who may start RTP runs measures on demand, whatever the method
        return {405} if methods is not None and "GET" not in methods else {200}
    if methods is not None and "GET" not in methods:
        if path.startswith("/api/v1/"):
            if role == "anonymous":
                return {401}
            if path.startswith("/api/v1/cage/") and role in ("player", "auditor"):
                return {403}  # the permission is checked before the method
        return {405}  # a form's target: POST only
    if path == "/metrics":
        # Read by address or bearer token, never by role: the test client is on loopback,
        # which may read it by default (strangers: tests/metrics).
        return {200}
    if path == "/" or path.startswith(("/api/schema/", "/api/docs/", "/i18n/js/")):
        return {200}  # the scripts' translations are as public as the scripts
    if path.startswith("/api/v1/"):
        if role == "anonymous":
            return {401}
        if (path == "/api/v1/accounts/" or path.startswith("/api/v1/staff/")) and role == "player":
            return {403}  # the ledger and the audit room are the staff's
        if path.endswith("/phh/"):
            return {400}  # the sample hands are still being played (FS-7)
        if path.endswith("/trainer/"):
            return {400}  # no ?box= asked for: refused before any card is read
        return {200}
    if path.startswith("/admin/"):
        return expected_admin(route, role, user)
    if path.startswith("/accounts/"):
        if route.name.endswith("logout"):
            return {405}
        return {200} if role == "anonymous" else {302}
    if path.startswith("/play/rules/"):
        return {200}  # the rules of the games are public, as a casino's house rules are
    if path.startswith("/play/"):
        if role == "anonymous":
            return {302}
        if path == "/play/breaks/" and role != "player":
            return {403}  # only players take breaks from play
        # Recall shows finished rounds and hands only; the samples are still being played.
        return {200, 404} if "recall/" in path and path != "/play/recall/" else {200}
    if path.startswith("/staff/"):
        if role == "anonymous":
            return {302}
        if role == "player" or (role == "auditor" and route.name.startswith(_PIT_WORK)):
            return {403}
        return {200}
    raise AssertionError(f"No access rule for {path}: add one to expected_get.")


# Money-moving and game endpoints, POSTed with an empty body and a fresh Idempotency-Key.
def expected_post(route: Route, role: str) -> set[int]:
    path = route.path
    if path == "/api/v1/auth/token/":
        return {400}  # no credentials given
    if role == "anonymous":
        return {401}
    if path == LOGOUT:
        return {204}  # anyone signed in may log out
    if path.startswith("/api/v1/cage/"):
        return {400} if role in ("pit", "admin_user") else {403}
    if path.startswith("/api/v1/staff/"):  # the pit writes; auditors read only
        if role not in ("pit", "admin_user"):
            return {403}
        if path.endswith("/rtp/measurements/"):
            return {202}  # an RTP measurement on demand: nothing to send
        if path.endswith("/rtp-runs/"):
            return {201}  # nothing to send: a run as long as approval needs
        if path.endswith("/approve/"):
            return {409}  # the sample limits and paytable versions are approved already
        return {400}  # no reason, no name, no lines
    if role != "player":
        return {403}  # only players play: staff and auditors move no stakes
    if path.endswith("/leave/"):
        return {200}  # the sample player is seated: an empty body is a whole request
    if path.endswith("/back/"):
        # A whole request too ("I'm back"): 200 while the sample player is seated, 409 once
        # the leave before it has cashed the seat out.
        return {200, 409}
    if path.endswith("/show/"):
        return {409}  # a whole request too, but the sample hand is still being played (ST-10)
    if path == "/api/v1/me/seeds/rotate/":
        return {409}  # the sample player's round is unfinished: its seed stays secret (FS-7)
    if path == "/api/v1/me/reality-check/":
        return {200}  # an acknowledgement is a whole request: with none due it changes nothing
    return {400}


def _api_posts() -> list[Route]:
    posts = [
        r
        for r in routes()
        if r.path.startswith("/api/v1/")
        and "post" in getattr(getattr(r.callback, "cls", None), "http_method_names", ())
        and hasattr(r.callback.cls, "post")
    ]
    # The logout last: it revokes the token the others are sent with.
    return sorted(posts, key=lambda r: r.path == LOGOUT)


def _client(world, role: str, *, token: bool) -> Client:
    user = None if role == "anonymous" else getattr(world, role)
    if token:
        api = APIClient()
        if user is not None:
            api.credentials(HTTP_AUTHORIZATION=f"Token {world.token(user)}")
        return api
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.parametrize("role", ROLES)
def test_every_page_and_endpoint_answers_each_role_as_its_rule_says(world, sample_ids, role):
    client = _client(world, role, token=False)
    wrong = []
    for route in routes():
        url = route.url(sample_ids)
        if url is None:
            continue
        response = fetch(client, url)
        expected = expected_get(route, role, None if role == "anonymous" else getattr(world, role))
        if response.status_code not in expected:
            wrong.append(f"GET {url}: {response.status_code}, expected {sorted(expected)}")
        elif response.status_code == 302 and role == "anonymous" and "logout" not in url:
            assert "login" in response["Location"], url
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("role", ROLES)
def test_every_api_endpoint_answers_token_auth_as_session_auth(world, sample_ids, role):
    client = _client(world, role, token=True)
    for route in routes():
        url = route.url(sample_ids)
        if url is None or not route.path.startswith("/api/v1/"):
            continue
        assert client.get(url).status_code in expected_get(route, role), url


@pytest.mark.parametrize("role", ROLES)
def test_every_api_post_refuses_whoever_may_not_send_it(world, sample_ids, role):
    posts = _api_posts()
    assert len(posts) >= 10  # cage, joker draw, stud and Drawmaha seats, leave and actions
    client = _client(world, role, token=True)
    for number, route in enumerate(posts):
        url = route.url(sample_ids)
        before = LedgerTransaction.objects.count()
        response = client.post(url, {}, format="json", HTTP_IDEMPOTENCY_KEY=f"m-{number}")
        if response.status_code >= 400:  # a refusal changes nothing
            assert LedgerTransaction.objects.count() == before, url
        expected = expected_post(route, role)
        assert response.status_code in expected, (url, response.status_code, response.content)
        if response.status_code == 204:
            continue
        assert response["Content-Type"].startswith("application/json"), url
        if response.status_code >= 400:
            assert response.json()["detail"], url


def test_session_posts_need_the_csrf_token(world):
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.player)
    url = f"/api/v1/joker-draw/rounds/{world.open_round.pk}/actions/"
    response = client.post(
        url, {"box": 1, "action": "fold"}, content_type="application/json", HTTP_IDEMPOTENCY_KEY="c"
    )
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
    token = APIClient()  # a token is no cookie: no CSRF token needed
    token.credentials(HTTP_AUTHORIZATION=f"Token {world.token(world.player)}")
    ok = token.post(url, {"box": 1, "action": "fold"}, format="json", HTTP_IDEMPOTENCY_KEY="c")
    assert ok.status_code == 200


@pytest.mark.parametrize("login", ["/accounts/login/", "/admin/login/"])
def test_login_forms_need_the_csrf_token(player, login):
    response = Client(enforce_csrf_checks=True).post(
        login, {"username": "alice", "password": "alice-pw"}
    )
    assert response.status_code == 403


def test_the_token_login_is_throttled_per_user_and_address(player, other_player, settings):
    settings.LOGIN_THROTTLE_RATE = "3/min"
    client = APIClient()
    wrong = {"username": "alice", "password": "guess"}
    assert [client.post("/api/v1/auth/token/", wrong).status_code for _ in range(3)] == [400] * 3
    throttled = client.post("/api/v1/auth/token/", {"username": "alice", "password": "alice-pw"})
    assert throttled.status_code == 429
    assert "throttled" in throttled.json()["detail"]
    # Another user name from the same address is counted apart.
    bob = client.post("/api/v1/auth/token/", {"username": "bob", "password": "bob-pw"})
    assert bob.status_code == 200


@pytest.mark.parametrize("login", ["/accounts/login/", "/admin/login/"])
def test_login_forms_refuse_after_repeated_failures_only(player, pit, settings, login):
    settings.LOGIN_FORM_MAX_FAILURES = 3
    client = Client()
    user = "pitboss" if login.startswith("/admin/") else "alice"
    password = f"{user}-pw"
    # Successes do not count: signing in and out again is never throttled.
    for _ in range(4):
        assert client.post(login, {"username": user, "password": password}).status_code == 302
        client.logout()
    for _ in range(3):
        failed = client.post(login, {"username": user, "password": "guess"})
        assert failed.status_code == 200  # the form again, with its error
    refused = client.post(login, {"username": user, "password": password})
    assert refused.status_code == 429
    assert "Too many failed sign-ins" in refused.content.decode()
    other = client.post(login, {"username": "someone-else", "password": "guess"})
    assert other.status_code == 200
