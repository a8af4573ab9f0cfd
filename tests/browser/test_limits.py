"""The player's limits page in Chromium, in English, Russian and Swedish at 1280 and 390 px: a
player sets a maximum stake on the page and the joker draw table refuses a higher stake, naming
the limit; screenshots of the page with a pending raise and the 80% notice in every language
and width."""

from __future__ import annotations

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from games.models import Round
from payouts.protection import limits
from payouts.protection.models import LimitKind
from payouts.services import deposit
from tests.fixtures.browser import COMBOS, EVERY_COMBO, in_language


@pytest.fixture
def funded(player, pit):
    deposit(player=player, currency="USD", amount=Decimal("100.00"), reason="cage", by=pit)
    return player


@pytest.mark.parametrize(("language", "width"), COMBOS)
def test_a_maximum_stake_set_on_the_page_is_refused_at_the_table_by_name(
    open_page, funded, joker_table, language, width
):
    page = open_page(language, width, funded)
    page.goto("/play/limits/")
    page.locator('input[name="max_stake-USD"]').fill("0.20")
    page.locator("form.panel button[type=submit]").click()
    expect(page.get_by_role("status")).to_contain_text(
        in_language(language, "Your limits are saved.")
    )
    assert limits.in_force(funded, LimitKind.MAX_STAKE, "USD") == Decimal("0.20")

    page.goto(f"/play/joker-draw/{joker_table.pk}/")
    deal = page.locator("#stake-form button[type=submit]")
    expect(deal).to_be_enabled()
    deal.click()
    label = in_language(language, "maximum stake per round or hand")
    expect(page.locator("#stake-error")).to_contain_text(label)
    assert not Round.objects.filter(player=funded).exists()


@pytest.mark.parametrize(("language", "width"), EVERY_COMBO)
def test_the_limits_page_in_every_language_and_width(
    open_page, funded, language, width, screenshot
):
    limits.set_limit(
        player=funded, kind=LimitKind.DEPOSIT_DAY, currency="USD", value=Decimal("110.00")
    )
    limits.set_limit(
        player=funded, kind=LimitKind.LOSS_WEEK, currency="USD", value=Decimal("50.00")
    )
    limits.set_limit(
        player=funded, kind=LimitKind.LOSS_WEEK, currency="USD", value=Decimal("80.00")
    )
    page = open_page(language, width, funded)
    page.goto("/play/limits/")
    notice = page.get_by_test_id("limits-notice")
    expect(notice).to_contain_text(in_language(language, "deposit limit per day"))
    expect(page.get_by_test_id("limit-loss_week-USD")).to_contain_text("80")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, f"limits-{language}-{width}")
