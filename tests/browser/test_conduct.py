"""Player protection in Chromium, in English, Russian and Swedish: the reality check's notice at
the joker draw table, acknowledged by keyboard with the focus held in it; a time-out taken on
the breaks page, after which the table offers no stakes."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from payouts.protection.models import Exclusion, PlaySession, RealityCheck
from payouts.services import deposit
from tests.fixtures.browser import COMBOS, EVERY_COMBO, in_language

INSIDE_THE_NOTICE = "document.getElementById('reality-check').contains(document.activeElement)"


@pytest.fixture
def an_hour_played(player, pit):
    """``player`` with money, an hour into a session whose reality check is due."""
    deposit(player=player, currency="USD", amount=Decimal("100.00"), reason="cage", by=pit)
    now = timezone.now()
    PlaySession.objects.create(
        player=player,
        started_at=now - timedelta(minutes=61),
        last_stake_at=now - timedelta(minutes=1),
        reality_check_due_at=now - timedelta(minutes=1),
    )
    return player


@pytest.mark.parametrize(("language", "width"), COMBOS)
def test_the_reality_check_is_acknowledged_by_keyboard_at_the_joker_table(
    open_page, an_hour_played, joker_table, language, width
):
    page = open_page(language, width, an_hour_played)
    page.goto(f"/play/joker-draw/{joker_table.pk}/")
    notice = page.get_by_role("alertdialog", name=in_language(language, "Reality check"))
    expect(notice).to_be_visible()
    expect(notice.locator('[data-testid="reality-check-minutes"]')).to_contain_text("61")
    go_on = notice.get_by_role("button", name=in_language(language, "Continue playing"))
    expect(go_on).to_be_focused()
    for _ in range(4):  # the button and three links: the focus comes round, never leaves
        page.keyboard.press("Tab")
        assert page.evaluate(INSIDE_THE_NOTICE)
    expect(go_on).to_be_focused()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(notice).to_be_hidden()
    check = RealityCheck.objects.get(player=an_hour_played)
    assert check.minutes == 61


@pytest.mark.parametrize(("language", "width"), COMBOS)
def test_a_time_out_taken_on_the_breaks_page_closes_the_table(
    open_page, player, joker_table, screenshot, language, width
):
    page = open_page(language, width, player)
    page.goto("/play/breaks/")
    page.get_by_label(in_language(language, "How long")).select_option("24h")
    page.get_by_role("button", name=in_language(language, "Continue"), exact=True).click()
    expect(page.get_by_test_id("break-confirm")).to_be_visible()
    screenshot(page, f"breaks-confirm-{language}-{width}")
    page.get_by_label(in_language(language, "I understand that nobody can end it early.")).check()
    page.get_by_role("button", name=in_language(language, "Start my break")).click()
    expect(page.get_by_test_id("on-break")).to_be_visible()
    exclusion = Exclusion.objects.get(player=player)
    assert timedelta(hours=23, minutes=59) < exclusion.until - exclusion.starts_at
    page.goto(f"/play/joker-draw/{joker_table.pk}/")
    expect(page.get_by_test_id("on-break")).to_be_visible()
    expect(page.locator("#stake-form")).to_be_hidden()


def test_the_breaks_page_and_the_notice_in_every_look(
    open_page, an_hour_played, joker_table, screenshot
):
    """One sweep of screenshots: the breaks page and the reality check's notice, in each
    language at each width (the notice is left unacknowledged)."""
    for language, width in EVERY_COMBO:
        page = open_page(language, width, an_hour_played)
        page.goto("/play/breaks/")
        heading = page.get_by_role("heading", level=1)
        expect(heading).to_have_text(in_language(language, "Breaks from play"))
        screenshot(page, f"breaks-{language}-{width}")
        page.goto(f"/play/joker-draw/{joker_table.pk}/")
        expect(page.get_by_role("alertdialog")).to_be_visible()
        screenshot(page, f"reality-check-{language}-{width}")
        page.context.close()
