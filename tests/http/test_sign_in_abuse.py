"""A dishonest client against the sign-in throttles and the API's tokens: forged forwarded
addresses, several web processes, other spellings of a user name, tokens that outlive their
session."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import uuid
from datetime import timedelta

import pytest
from django.contrib.auth.backends import ModelBackend
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from casino.http.authentication import token_digest
from casino.models import ApiToken
from tests.fixtures.workers import ROOT, private_broker_url, worker_env

TOKEN = "/api/v1/auth/token/"
WALLETS = "/api/v1/wallets/"


def full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def spellings(name: str, count: int) -> list[str]:
    """``count`` spellings of ``name`` other than itself that the login form reads as ``name``
    or that differ from it only in case: full-width letters and capitals, mixed."""
    forms = [(c, full_width(c), c.upper(), full_width(c.upper())) for c in name]
    found = ["".join(letters) for letters in itertools.product(*forms)]
    return [spelling for spelling in found if spelling != name][:count]


def login(client, username, password, **headers):
    return client.post(TOKEN, {"username": username, "password": password}, **headers).status_code


def test_forged_forwarded_addresses_do_not_reset_the_token_login_count(player):
    """Without a proxy of ours in front, X-Forwarded-For is the client's own writing."""
    client = APIClient()
    codes = [
        login(client, "alice", "guess", HTTP_X_FORWARDED_FOR=f"203.0.113.{attempt}")
        for attempt in range(30)
    ]
    assert codes == [400] * 10 + [429] * 20  # LOGIN_THROTTLE_RATE, 10/min
    assert login(client, "alice", "alice-pw", HTTP_X_FORWARDED_FOR="198.51.100.1") == 429


def test_behind_our_proxy_the_address_it_saw_is_counted(player, settings):
    """With NUM_PROXIES=1 the last address in X-Forwarded-For is the one our proxy saw; what
    the client wrote before it changes nothing."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    client = APIClient()
    forged = [
        login(client, "alice", "guess", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}, 192.0.2.7")
        for n in range(12)
    ]
    assert forged == [400] * 10 + [429] * 2
    # Another client behind the same proxy is counted apart.
    assert login(client, "alice", "alice-pw", HTTP_X_FORWARDED_FOR="192.0.2.8") == 200


@pytest.mark.parametrize("login_form", ["/accounts/login/", "/admin/login/"])
def test_forged_forwarded_addresses_do_not_reset_the_login_form_count(player, pit, login_form):
    user = "pitboss" if login_form.startswith("/admin/") else "alice"
    client = Client()
    codes = [
        client.post(
            login_form,
            {"username": user, "password": "guess"},
            HTTP_X_FORWARDED_FOR=f"203.0.113.{attempt}",
        ).status_code
        for attempt in range(8)
    ]
    assert codes == [200] * 5 + [429] * 3  # LOGIN_FORM_MAX_FAILURES, 5


@pytest.mark.parametrize("login_form", ["/accounts/login/", "/admin/login/"])
def test_other_spellings_of_a_user_name_are_locked_out_with_it(player, pit, login_form):
    """The login form reads a full-width name as the plain one (Unicode NFKC), so it must count
    as the plain one: 40 spellings are 40 attempts at one account, and while that account is
    locked no spelling of it signs in."""
    user = "pitboss" if login_form.startswith("/admin/") else "alice"
    client = Client()
    names = spellings(user, 40)
    assert len(set(names)) == 40
    codes = [
        client.post(login_form, {"username": name, "password": "guess"}).status_code
        for name in names
    ]
    assert codes == [200] * 5 + [429] * 35
    right = f"{user}-pw"
    assert client.post(login_form, {"username": user, "password": right}).status_code == 429
    assert (
        client.post(login_form, {"username": full_width(user), "password": right}).status_code
        == 429
    )
    assert "_auth_user_id" not in client.session


def test_other_spellings_count_with_the_plain_name_at_the_token_login(player):
    client = APIClient()
    codes = [login(client, name, "guess") for name in spellings("alice", 12)]
    assert codes == [400] * 10 + [429] * 2
    assert login(client, "alice", "alice-pw") == 429


def test_two_web_processes_count_together_in_redis(db):
    """Two separate processes, configured as `make run` configures the web server (REDIS_URL
    set, no CACHE_URL), take their turns at one user name: the second one sees the first one's
    attempts, so the rate holds across processes."""
    username = f"target-{uuid.uuid4().hex[:8]}"  # nothing counted under it before
    env = {
        key: value
        for key, value in worker_env(REDIS_URL=private_broker_url()).items()
        if key != "CACHE_URL"
    }
    script = (
        "import django, json, sys; django.setup();"
        "from django.test import Client; client = Client();"
        "print(json.dumps([client.post('/api/v1/auth/token/',"
        " {'username': sys.argv[1], 'password': 'guess'}).status_code for _ in range(7)]))"
    )

    def attempts() -> list[int]:
        done = subprocess.run(  # noqa: S603 - our own interpreter and script
            [sys.executable, "-c", script, username],
            cwd=ROOT,
            env={**env, "DJANGO_SETTINGS_MODULE": "casino.settings"},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return json.loads(done.stdout.strip().splitlines()[-1])

    assert attempts() == [400] * 7
    assert attempts() == [400] * 3 + [429] * 4


def test_logging_out_revokes_the_api_token(player):
    client = APIClient()
    token = client.post(TOKEN, {"username": "alice", "password": "alice-pw"}).json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get(WALLETS).status_code == 200
    assert client.post("/api/v1/auth/logout/").status_code == 204
    assert client.get(WALLETS).status_code == 401
    assert not ApiToken.objects.filter(digest=token_digest(token)).exists()


def test_signing_out_of_the_site_revokes_the_api_token(player):
    api = APIClient()
    token = api.post(TOKEN, {"username": "alice", "password": "alice-pw"}).json()["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    site = Client()
    assert (
        site.post("/accounts/login/", {"username": "alice", "password": "alice-pw"}).status_code
        == 302
    )
    assert site.post("/accounts/logout/").status_code == 302
    assert api.get(WALLETS).status_code == 401
    # A new login hands out a new token.
    fresh = APIClient().post(TOKEN, {"username": "alice", "password": "alice-pw"}).json()
    assert fresh["token"] != token
    api.credentials(HTTP_AUTHORIZATION=f"Token {fresh['token']}")
    assert api.get(WALLETS).status_code == 200


def test_a_token_expires_after_its_lifetime(player, settings):
    settings.API_TOKEN_TTL = 3600
    client = APIClient()
    issued = client.post(TOKEN, {"username": "alice", "password": "alice-pw"}).json()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issued['token']}")
    assert client.get(WALLETS).status_code == 200
    ApiToken.objects.filter(digest=token_digest(issued["token"])).update(
        created=timezone.now() - timedelta(seconds=3601)
    )
    expired = client.get(WALLETS)
    assert expired.status_code == 401
    assert "expired" in expired.json()["detail"]
    # Logging in again gives a new token, not the expired one back.
    again = APIClient().post(TOKEN, {"username": "alice", "password": "alice-pw"}).json()
    assert again["token"] != issued["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {again['token']}")
    assert client.get(WALLETS).status_code == 200


@pytest.mark.parametrize("login_form", ["/accounts/login/", "/admin/login/"])
def test_guesses_sent_at_once_each_take_their_place_before_the_password_is_checked(
    player, pit, login_form, monkeypatch
):
    """Ten guesses in flight together (each arrives while the one before is being checked):
    every one is counted before its password is, so no more than LOGIN_FORM_MAX_FAILURES (5)
    passwords are ever checked, however many requests a client sends at once."""
    user = "pitboss" if login_form.startswith("/admin/") else "alice"
    checked: list[str] = []
    answers: list[int] = []
    check_password = ModelBackend.authenticate

    def one_more_guess_while_checking(backend, request, username=None, password=None, **extra):
        checked.append(password)
        if len(checked) + len(answers) < 10:
            guess = {"username": user, "password": f"guess-{len(checked)}"}
            answers.append(Client().post(login_form, guess).status_code)
        return check_password(backend, request, username=username, password=password, **extra)

    monkeypatch.setattr(ModelBackend, "authenticate", one_more_guess_while_checking)
    answers.append(Client().post(login_form, {"username": user, "password": "guess-0"}).status_code)
    assert len(checked) == 5
    assert sorted(answers) == [200] * 5 + [429]
