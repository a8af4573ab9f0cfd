"""The player's account statement in Chromium, in English, Russian and Swedish at alternating
widths: the last 30 days by default, a longer period picked in the form, and its CSV link."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone, translation
from playwright.sync_api import expect

from casino.gaming_day import gaming_day_of
from casino.templatetags.money import money
from payouts.services import deposit
from tests.fixtures.browser import COMBOS, HEIGHTS, in_language
from tests.fixtures.clock import clock_at

D = Decimal


def shown(language: str, amount: str) -> str:
    with translation.override(language):
        return money(D(amount), "USD")


@pytest.mark.parametrize(("language", "width"), COMBOS)
def test_a_player_reads_the_statement_picks_a_period_and_downloads_it(
    open_page, player, pit, language, width, screenshot
):
    today = gaming_day_of(timezone.now())
    with clock_at(timezone.now() - timedelta(days=40)):
        deposit(player=player, currency="USD", amount=D("1000.00"), reason="cash", by=pit)
    deposit(player=player, currency="USD", amount=D("25.50"), reason="cash", by=pit)
    page = open_page(language, width, player, height=HEIGHTS[width])
    page.goto("/play/")
    page.get_by_role("link", name=in_language(language, "Statement")).click()
    expect(
        page.get_by_role("heading", name=in_language(language, "Account statement"))
    ).to_be_visible()
    totals = page.get_by_test_id("statement-totals")

    def usd(figure: str):
        return totals.locator(f"[data-currency=USD][data-figure={figure}]")

    expect(usd("deposits")).to_have_text(shown(language, "25.50"))
    expect(usd("closing_balance")).to_have_text(shown(language, "1025.50"))
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, f"statement-{language}-{width}")

    first = today - timedelta(days=45)
    page.get_by_label(in_language(language, "From gaming day")).fill(first.isoformat())
    page.get_by_role("button", name=in_language(language, "Show")).click()
    expect(usd("deposits")).to_have_text(shown(language, "1025.50"))
    expect(usd("opening_balance")).to_have_text(shown(language, "0.00"))
    assert f"from={first.isoformat()}" in page.url
    screenshot(page, f"statement-period-{language}-{width}")

    link = page.get_by_role("link", name=in_language(language, "Download as CSV"))
    href = link.get_attribute("href") or ""
    assert f"from={first.isoformat()}&to={today.isoformat()}&format=csv" in href
    response = page.request.get(href)
    assert response.status == 200
    assert response.headers["content-type"].startswith("text/csv")
    total = next(line for line in response.text().splitlines() if ",total," in line)
    assert total.startswith("alice,USD,total,")
    assert ",1025.50," in total


@pytest.mark.parametrize("language", ["en", "ru", "sv"])
def test_the_statement_and_the_staff_player_page_at_each_width(
    open_page, player, pit, auditor, language, screenshot
):
    deposit(player=player, currency="USD", amount=D("25.50"), reason="cash", by=pit)
    pages = {
        "player": open_page(language, 1280, player),
        "auditor": open_page(language, 1280, auditor),
    }
    for width, height in HEIGHTS.items():
        page = pages["player"]
        page.set_viewport_size({"width": width, "height": height})
        page.goto("/play/statement/")
        expect(page.get_by_test_id("statement-totals")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        screenshot(page, f"statement-sweep-{language}-{width}")
        page = pages["auditor"]
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"/staff/players/{player.pk}/")
        expect(page.get_by_test_id("statement-totals")).to_contain_text(shown(language, "25.50"))
        screenshot(page, f"staff-player-{language}-{width}")
