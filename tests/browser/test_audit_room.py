"""The audit room in Chromium, in English, Russian and Swedish at a desktop and a phone's width:
an auditor signs in afresh and reads the gaming-day report, the rounds and pots of every game,
and the ledger from the trial balance down to a round; and a sweep saves every audit screen in
each language at both widths for reviewers."""

from __future__ import annotations

import csv
from decimal import Decimal

import pytest
from django.utils import timezone, translation
from playwright.sync_api import expect

from casino.gaming_day import gaming_day_of
from games.models import Round
from games.tables import gaming_day
from payouts.models import Account
from tests.fixtures.browser import COMBOS, EVERY_COMBO, sign_in

D = Decimal


@pytest.mark.parametrize(("lang", "width"), COMBOS)
def test_an_auditor_reads_the_day_the_rounds_and_the_ledger_down_to_a_round(
    lang, width, settled_boxes, auditor, open_page, live_server, screenshot, tmp_path
):
    page = open_page(lang, width)
    today = gaming_day_of(timezone.now())
    sign_in(page, auditor, "/staff/gaming-day/")
    (row,) = gaming_day.daily_rows(today, today)
    report = page.locator("#gaming-day-day tbody tr")
    expect(report).to_have_count(1)
    expect(report.first).to_have_attribute("data-flag", row.flag.value)
    with translation.override(lang):
        expect(report.first).to_contain_text(str(row.flag.label))
    # The chart is drawn: an image that loaded, not an empty frame.
    expect(page.locator("#gaming-day-chart")).to_have_js_property("complete", True)
    assert page.locator("#gaming-day-chart").evaluate("img => img.naturalWidth") > 0
    expect(page.locator("#id_date")).to_have_value(today.isoformat())
    screenshot(page, f"audit-gaming-day-{lang}-{width}")
    with page.expect_download() as download:
        page.locator("#gaming-day-csv").click()
    path = tmp_path / "day.csv"
    download.value.save_as(path)
    with path.open(newline="") as file:
        (line,) = list(csv.DictReader(file))
    assert (D(line["handle"]), D(line["win"])) == (row.handle, row.win)

    # The rounds and pots: filtered to one player, with the totals of what is shown.
    page.goto("/staff/payouts/rounds/")
    expect(page.locator("#rounds tbody tr")).to_have_count(8)
    page.locator("#id_player").fill("ben")
    page.locator("#round-filters button[type=submit]").click()
    expect(page.locator("#rounds tbody tr")).to_have_count(4)
    screenshot(page, f"audit-rounds-{lang}-{width}")

    # The ledger: a kind of the trial balance, an account, a transaction, its round.
    page.goto("/staff/ledger/accounts/")
    page.locator("#trial-balance a[href*='kind=player_wallet']").click()
    ann = Account.objects.get(owner__username="ann")
    page.locator(f"tr[data-account='{ann.pk}'] a").click()
    expect(page.locator("#entries tbody tr").first).to_be_visible()
    screenshot(page, f"audit-account-{lang}-{width}")
    page.locator("#entries tbody tr").first.locator("a").click()  # her newest: a round's
    expect(page.locator("#transaction-round a")).to_be_visible()
    round_id = int(page.locator("#transaction-round a").get_attribute("href").split("/")[-2])
    assert Round.objects.get(pk=round_id).player == ann.owner
    screenshot(page, f"audit-transaction-{lang}-{width}")
    page.locator("#transaction-round a").click()
    expect(page).to_have_url(f"{live_server.url}/staff/rounds/{round_id}/")
    page.context.close()


def test_every_audit_screen_in_each_language_at_both_widths(
    settled_boxes, auditor, open_page, screenshot
):
    ann = Account.objects.get(owner__username="ann")
    transaction_id = ann.entries.order_by("id").last().transaction_id
    screens = {
        "gaming-day": "/staff/gaming-day/",
        "rounds": "/staff/payouts/rounds/",
        "ledger": "/staff/ledger/accounts/",
        "account": f"/staff/ledger/accounts/{ann.pk}/",
        "transaction": f"/staff/ledger/transactions/{transaction_id}/",
        "rtp": "/staff/rtp/",
    }
    for lang, width in EVERY_COMBO:
        page = open_page(lang, width)
        sign_in(page, auditor, "/staff/rtp/")
        expect(page.locator("#rtp-empty")).to_be_visible()  # no blank chart
        for name, url in screens.items():
            page.goto(url)
            expect(page.locator("nav.staff-nav")).to_be_visible()
            # An auditor's menu leads only where an auditor may go.
            expect(page.locator("nav.staff-nav a[href='/staff/']")).to_have_count(0)
            screenshot(page, f"audit-sweep-{name}-{lang}-{width}")
        page.context.close()
