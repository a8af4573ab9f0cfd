"""The product in English, Russian and Swedish: the language a request is answered in (the
browser's Accept-Language, the switcher, the user's own choice kept across sessions and read
with the API's token), amounts and dates in the language's format, and refusals whose code
stays the same in every language."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.template import Context, Template
from django.test import Client
from django.utils import translation
from rest_framework.test import APIClient

from casino.models import LanguagePreference
from tests.fixtures.joker_draw import open_round
from tests.fixtures.users import logged_in

LANGUAGES = ("en", "ru", "sv")


def translated(language: str, message: str) -> str:
    with translation.override(language):
        return translation.gettext(message)


@pytest.mark.parametrize("language", LANGUAGES)
def test_accept_language_picks_the_page_language(db, language):
    page = Client().get("/accounts/login/", HTTP_ACCEPT_LANGUAGE=f"{language},en;q=0.5")
    assert page.status_code == 200
    assert page["Content-Language"] == language
    assert f'<html lang="{language}">' in page.content.decode()
    assert f"<h1>{translated(language, 'Sign in')}</h1>" in page.content.decode()


def test_every_language_has_its_own_words():
    """The catalogues are compiled and loaded: each language says it differently."""
    words = {language: translated(language, "Game recall") for language in LANGUAGES}
    assert len(set(words.values())) == 3, words


def test_the_switcher_keeps_a_signed_in_players_language_across_sessions(player):
    client = logged_in(player)
    switched = client.post("/i18n/language/", {"language": "sv", "next": "/play/wallet/"})
    assert switched.status_code == 302
    assert switched["Location"] == "/play/wallet/"
    assert LanguagePreference.objects.get(user=player).language == "sv"
    assert client.get("/play/wallet/")["Content-Language"] == "sv"

    # Another browser, which asks for Russian and has no cookie: the sign-in applies Swedish.
    other = Client(HTTP_ACCEPT_LANGUAGE="ru")
    signed_in = other.post(
        "/accounts/login/", {"username": player.username, "password": f"{player.username}-pw"}
    )
    assert signed_in.status_code == 302
    page = other.get("/play/")
    assert page["Content-Language"] == "sv"
    assert translated("sv", "Sign out") in page.content.decode()


def test_a_visitors_switch_is_a_cookie_and_stores_nothing(db):
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.post("/i18n/language/", {"language": "ru", "next": "/accounts/login/"})
    assert client.get("/accounts/login/")["Content-Language"] == "ru"
    assert not LanguagePreference.objects.exists()


def test_the_switcher_refuses_what_is_not_one_of_our_languages_or_sites(player):
    """A curious player posts a language we do not have, and a `next` on another site."""
    client = logged_in(player)
    client.post("/i18n/language/", {"language": "de", "next": "/play/"})
    assert not LanguagePreference.objects.filter(user=player).exists()
    sent_away = client.post(
        "/i18n/language/", {"language": "ru", "next": "https://evil.example/phish"}
    )
    assert sent_away.status_code == 302
    assert "evil.example" not in sent_away["Location"]
    assert client.get("/i18n/language/").status_code == 405  # a switch is a POST (CSRF)


def test_the_switcher_is_a_form_in_the_frame_of_every_page(player):
    page = logged_in(player).get("/play/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert 'action="/i18n/language/"' in page
    for code, name in (("en", "English"), ("ru", "Русский"), ("sv", "Svenska")):
        assert f'<option value="{code}" lang="{code}"' in page
        assert name in page
    assert '<option value="ru" lang="ru" selected>' in page
    assert f'<label for="frame-language">{translated("ru", "Language")}</label>' in page


def test_the_javascript_catalogue_is_served_per_language_before_the_page_scripts(player):
    page = logged_in(player).get("/play/", HTTP_ACCEPT_LANGUAGE="sv").content.decode()
    catalogue = page.index('src="/i18n/js/sv/"')
    assert catalogue < page.index("play/page")
    script = Client().get("/i18n/js/sv/")
    assert script.status_code == 200
    recomputing = json.dumps("Räknar om…")  # verify.js's "Recomputing…", as the script has it
    assert recomputing in script.content.decode()
    assert recomputing not in Client().get("/i18n/js/ru/").content.decode()
    assert Client().get("/i18n/js/de/").status_code == 404


def stud_seat_refusal(client: APIClient, table_id: int, *, key: str, language: str):
    """A buy-in below the table's range (ST-1), asking for `language`."""
    return client.post(
        f"/api/v1/stud/tables/{table_id}/seats/",
        {"seat": 1, "buy_in": "1.00"},
        format="json",
        HTTP_IDEMPOTENCY_KEY=key,
        HTTP_ACCEPT_LANGUAGE=language,
    )


def test_an_api_refusal_keeps_its_code_in_every_language(funded_player, stud_table):
    client = APIClient()
    client.force_authenticate(funded_player)
    bodies = {}
    for language in LANGUAGES:
        response = stud_seat_refusal(client, stud_table.pk, key=language, language=language)
        assert response.status_code == 400, response.content
        bodies[language] = response.json()
    assert {body["code"] for body in bodies.values()} == {"ST-1"}
    assert len({body["detail"] for body in bodies.values()}) == 3, bodies
    limits = stud_table.active_limits()
    with translation.override("ru"):
        expected = translation.gettext("The buy-in must be from %(low)s to %(high)s.") % {
            "low": limits.buy_in_min,
            "high": limits.buy_in_max,
        }
    assert bodies["ru"]["errors"]["buy_in"] == [f"{expected.rstrip('.')} (ST-1)."]


def test_the_api_answers_a_token_in_its_users_language(funded_player, stud_table):
    LanguagePreference.objects.create(user=funded_player, language="sv")
    token = APIClient().post(
        "/api/v1/auth/token/",
        {"username": funded_player.username, "password": f"{funded_player.username}-pw"},
        format="json",
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    # The user's choice wins over the header the integrator's program sends.
    refused = stud_seat_refusal(client, stud_table.pk, key="first", language="ru")
    assert refused.json()["code"] == "ST-1"
    with translation.override("sv"):
        start = translation.gettext("The buy-in must be from %(low)s to %(high)s.").split("%")[0]
    assert refused.json()["detail"].startswith(start)
    assert refused["Content-Language"] == "sv"
    # Without a choice of their own, the header decides.
    LanguagePreference.objects.filter(user=funded_player).delete()
    again = stud_seat_refusal(client, stud_table.pk, key="second", language="ru")
    assert again["Content-Language"] == "ru"
    assert again.json()["code"] == "ST-1"


@pytest.mark.parametrize(
    ("language", "amount", "date"),
    [
        ("en", "1,234,567.50 USD", "Dec. 1, 2026"),
        ("ru", "1\xa0234\xa0567,50 USD", "1 декабря 2026 г."),
        ("sv", "1\xa0234\xa0567,50 USD", "1 december 2026"),
    ],
)
def test_amounts_and_dates_in_the_languages_format(language, amount, date):
    page = Template("{% load money %}{{ amount|money:'USD' }}|{{ when|date }}|{{ small|money }}")
    context = Context(
        {
            "amount": Decimal("1234567.5"),
            "when": datetime(2026, 12, 1, 20, 0, tzinfo=UTC),
            "small": Decimal("-0.3"),
        }
    )
    with translation.override(language):
        shown_amount, shown_date, small = page.render(context).split("|")
    assert shown_amount == amount
    assert shown_date == date
    assert small == ("-0.30" if language == "en" else "-0,30")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_engines_refusal_comes_in_the_requests_language(funded_player, joker_table, language):
    """The engine speaks English and knows no Django: its message is translated where the game
    hands it to the API, its rule stays the code (JD-5)."""
    client = APIClient()
    client.force_authenticate(funded_player)
    opened = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}])
    assert opened.status_code == 201, opened.content
    refused = client.post(
        f"/api/v1/joker-draw/rounds/{opened.json()['id']}/actions/",
        {"box": 1, "action": "exchange", "cards": ["As", "As"]},
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"twice-{language}",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert refused.status_code == 400, refused.content
    assert refused.json()["code"] == "JD-5"
    assert refused.json()["detail"] == f"{translated(language, 'a card is named twice')} (JD-5)."
