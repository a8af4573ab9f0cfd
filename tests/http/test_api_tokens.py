"""API tokens at rest and per device: a thief who reads the tokens' table (a backup, a replica,
a support query) cannot sign in with anything in it; each device holds a token of its own, the
player lists them and signs any one out; nobody revokes another's."""

from __future__ import annotations

from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from casino.models import ApiToken

TOKEN = "/api/v1/auth/token/"
WALLETS = "/api/v1/wallets/"
DEVICES = "/play/devices/"


def log_in(device: str = "", **headers: str) -> str:
    body = {"username": "alice", "password": "alice-pw", **({"device": device} if device else {})}
    answer = APIClient().post(TOKEN, body, format="json", headers=headers)
    assert answer.status_code == 200, answer.json()
    return str(answer.json()["token"])


def wallets(token: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client.get(WALLETS).status_code


def site(user: str = "alice") -> Client:
    client = Client()
    client.post("/accounts/login/", {"username": user, "password": f"{user}-pw"})
    return client


def test_the_database_keeps_nothing_a_reader_could_sign_in_with(player):
    token = log_in("phone")
    assert wallets(token) == 200
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM casino_apitoken")
        stored = [str(value) for row in cursor.fetchall() for value in row]
    assert stored
    assert not any(token in value for value in stored)
    # Every value a reader of the table holds, sent as a token, is refused.
    for value in stored:
        assert wallets(value) == 401, value


def test_each_device_holds_its_own_token_and_logs_out_alone(player):
    phone, laptop = log_in("phone"), log_in("laptop")
    assert phone != laptop
    assert wallets(phone) == wallets(laptop) == 200
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {phone}")
    assert client.post("/api/v1/auth/logout/").status_code == 204
    assert wallets(phone) == 401
    assert wallets(laptop) == 200


def test_a_login_without_a_device_name_is_named_by_its_user_agent(player):
    log_in(**{"User-Agent": "CasinoApp/2.1 (Android)"})
    assert ApiToken.objects.get().device == "CasinoApp/2.1 (Android)"


def test_the_player_lists_the_devices_and_signs_one_out(player):
    phone, laptop = log_in("Alice's Pixel"), log_in("Alice's ThinkPad")
    client = site()
    page = client.get(DEVICES).content.decode()
    assert "Alice&#x27;s Pixel" in page
    assert "Alice&#x27;s ThinkPad" in page
    assert phone not in page
    assert laptop not in page
    target = ApiToken.objects.get(device="Alice's Pixel")
    assert client.post(DEVICES, {"token": target.pk}).status_code == 302
    assert wallets(phone) == 401
    assert wallets(laptop) == 200
    assert "Pixel" not in client.get(DEVICES).content.decode()


def test_a_player_cannot_sign_out_anothers_device(player, other_player):
    alices = log_in("alice-phone")
    intruder = site("bob")
    assert "alice-phone" not in intruder.get(DEVICES).content.decode()
    target = ApiToken.objects.get(device="alice-phone")
    assert intruder.post(DEVICES, {"token": target.pk}).status_code == 404
    assert intruder.post(DEVICES, {"token": "x"}).status_code == 404
    assert wallets(alices) == 200


def test_an_expired_token_is_not_listed(player, settings):
    settings.API_TOKEN_TTL = 60
    log_in("Old Nokia")
    ApiToken.objects.update(created=ApiToken.objects.get().created.replace(year=2000))
    log_in("New Pixel")
    page = site().get(DEVICES).content.decode()
    assert "New Pixel" in page
    assert "Old Nokia" not in page
