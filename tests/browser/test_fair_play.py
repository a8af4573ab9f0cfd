"""Fair play in Chromium, in English, Russian and Swedish at a desktop's and a phone's width:
an auditor signs in, follows the staff frame's alert banner to the fair-play report, follows a
hand behind the flagged pair to its replay, comes back and marks the alert reviewed; and a
sweep saves the report in each language at both widths for reviewers."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone, translation
from django.utils.translation import ngettext
from playwright.sync_api import expect

from games.models import CollusionAlert
from games.peer import alerts
from tests.fixtures.browser import COMBOS, EVERY_COMBO, in_language, sign_in
from tests.fixtures.peer import dump_chips

DUMPED_HANDS = 10


@pytest.fixture
def alert(players, stud_table, settings):
    """Ann and Ben dumped chips over DUMPED_HANDS hands, and the check raised an alert."""
    ann, ben, _cal = players
    dump_chips(stud_table, ann, ben, DUMPED_HANDS, settings)
    settings.COLLUSION_ALERT_SCORE = 2.5
    now = timezone.now()
    (raised,) = alerts.raise_alerts(start=now - timedelta(hours=1), end=now)
    return raised


@pytest.mark.parametrize(("lang", "width"), COMBOS)
def test_an_auditor_follows_the_alert_to_a_hand_and_reviews_it(
    lang, width, alert, auditor, open_page, live_server, screenshot
):
    page = open_page(lang, width)
    sign_in(page, auditor, "/staff/payouts/rounds/")
    banner = page.locator("#collusion-alerts")
    with translation.override(lang):
        expected = ngettext(
            "%(counter)s collusion alert waits for review.",
            "%(counter)s collusion alerts wait for review.",
            1,
        ) % {"counter": 1}
    heading = in_language(lang, "Fair play at the peer tables")
    review = in_language(lang, "Mark reviewed")
    expect(banner).to_have_text(expected)
    screenshot(page, f"fair-play-banner-{lang}-{width}")

    banner.get_by_role("link").click()
    expect(page).to_have_url(re.compile(r"/staff/fair-play/#alerts$"))
    expect(page.get_by_role("heading", name=heading)).to_be_visible()
    expect(page.locator(f"#open-alerts tr[data-alert='{alert.pk}']")).to_be_visible()
    expect(page.locator("tr[data-pair='ann-ben']")).to_have_attribute("data-flagged", "yes")
    screenshot(page, f"fair-play-report-{lang}-{width}")

    first_hand = page.locator("tr.hands-behind a.replay").first
    href = first_hand.get_attribute("href")
    first_hand.click()
    expect(page).to_have_url(f"{live_server.url}{href}")
    expect(page.locator("#replay-check")).to_be_visible()
    screenshot(page, f"fair-play-hand-{lang}-{width}")

    page.go_back()
    page.locator(f"#note-{alert.pk}").fill("Two accounts of one household; both closed.")
    page.get_by_role("button", name=review).click()
    expect(page.locator("#collusion-alerts")).to_have_count(0)
    expect(page.locator("#reviewed-alerts")).to_contain_text("Two accounts of one household")
    alert.refresh_from_db()
    assert alert.reviewed_by == auditor
    page.context.close()


def test_the_fair_play_report_in_each_language_at_both_widths(
    players, auditor, open_page, screenshot
):
    """A cheap sweep: an open alert (stored as the check stores one) and an empty period."""
    ann, ben, _cal = players
    now = timezone.now()
    CollusionAlert.objects.create(
        period_start=now - timedelta(days=7),
        period_end=now,
        currency="USD",
        first_player=ann,
        second_player=ben,
        hands=150,
        chip_flow_score=Decimal("1.20"),
        soft_play_score=Decimal("5.03"),
        strong_folds_score=Decimal("2.10"),
        net_chips=Decimal("-31.50"),
    )
    for lang, width in EVERY_COMBO:
        page = open_page(lang, width)
        sign_in(page, auditor, "/staff/fair-play/")
        heading = in_language(lang, "Fair play at the peer tables")
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
        expect(page.locator("#open-alerts tbody tr[data-alert]")).to_have_count(1)
        expect(page.locator("#collusion-alerts")).to_be_visible()
        screenshot(page, f"fair-play-sweep-{lang}-{width}")
        page.context.close()
