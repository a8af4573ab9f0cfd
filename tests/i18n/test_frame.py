"""The site's frame: error pages in the frame and the visitor's language, where a sign-in
lands, and a menu that shows each user only the links they may follow."""

from __future__ import annotations

import pytest
from django.test import Client, RequestFactory
from django.utils import translation
from django.views import defaults

from tests.fixtures.users import logged_in

FRAME = 'class="site-header"'


def translated(language: str, message: str) -> str:
    with translation.override(language):
        return translation.gettext(message)


@pytest.mark.parametrize("language", ["en", "ru", "sv"])
def test_a_missing_page_is_the_sites_404_in_the_visitors_language(db, language):
    page = Client().get("/no-such-page/", HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 404
    html = page.content.decode()
    assert FRAME in html
    assert f"<h1>{translated(language, 'Page not found')}</h1>" in html


def test_a_table_of_another_player_is_a_styled_404_too(player):
    page = logged_in(player).get("/play/joker-draw/999999/", HTTP_ACCEPT_LANGUAGE="ru")
    assert page.status_code == 404
    assert translated("ru", "Page not found") in page.content.decode()
    assert FRAME in page.content.decode()


def test_a_player_at_a_staff_screen_gets_the_sites_403(player):
    page = logged_in(player).get("/staff/payouts/", HTTP_ACCEPT_LANGUAGE="sv")
    assert page.status_code == 403
    html = page.content.decode()
    assert FRAME in html
    assert translated("sv", "Your role does not open this page.") in html


@pytest.mark.parametrize("language", ["en", "ru", "sv"])
def test_the_500_page_renders_without_the_request_context(language):
    """Django renders it with no context processors and no database: the frame must not need
    the user, the session or the request."""
    request = RequestFactory().get("/play/")
    with translation.override(language):
        page = defaults.server_error(request)
    assert page.status_code == 500
    html = page.content.decode()
    assert FRAME in html
    assert translated(language, "Something went wrong") in html
    assert f'<html lang="{language}">' in html


@pytest.mark.parametrize(
    ("role", "landing"), [("player", "/play/"), ("pit", "/staff/"), ("auditor", "/staff/payouts/")]
)
def test_a_sign_in_lands_on_the_users_first_page(request, role, landing):
    user = request.getfixturevalue(role)
    client = Client()
    signed_in = client.post(
        "/accounts/login/", {"username": user.username, "password": f"{user.username}-pw"}
    )
    assert signed_in.status_code == 302
    assert signed_in["Location"] == landing
    assert client.get(landing).status_code == 200
    # Signed in already, the sign-in page sends them on to the same place.
    assert client.get("/accounts/login/")["Location"] == landing


def test_a_safe_next_wins_and_an_unsafe_one_is_ignored(pit):
    credentials = {"username": pit.username, "password": f"{pit.username}-pw"}
    to_limits = Client().post("/accounts/login/?next=/staff/limits/", credentials)
    assert to_limits["Location"] == "/staff/limits/"
    away = Client().post("/accounts/login/", {**credentials, "next": "https://evil.example/"})
    assert away["Location"] == "/staff/"


def menu(client: Client) -> str:
    html = client.get("/accounts/login/?next=/", follow=True).content.decode()
    return html.split("<nav", 1)[1].split("</nav>", 1)[0]


def test_the_menu_shows_each_role_only_the_links_it_may_follow(player, pit, auditor, admin_user):
    for_player = menu(logged_in(player))
    assert 'href="/play/wallet/"' in for_player
    assert "/staff/" not in for_player
    assert "/admin/" not in for_player

    for_pit = menu(logged_in(pit))
    assert 'href="/staff/"' in for_pit
    assert 'href="/admin/"' in for_pit
    assert "/play/wallet/" not in for_pit  # staff have no wallet to play from

    for_auditor = menu(logged_in(auditor))
    assert 'href="/staff/payouts/"' in for_auditor
    assert 'href="/staff/"' not in for_auditor  # the pit's live tables answer auditors 403
    assert logged_in(auditor).get("/staff/").status_code == 403

    assert 'href="/staff/"' in menu(logged_in(admin_user))
    assert 'href="/accounts/login/"' in menu(Client())
