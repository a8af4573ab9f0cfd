"""The pit's tasks in Chromium, each from a fresh sign-in, in English, Russian and Swedish at
desktop and phone widths: a table created, its limits proposed, approved by a second person and
the table opened; a paytable version proposed, compared and approved after its RTP is computed
with a progress bar; the live pit's rounds with their stakes and countdown. Text is asserted as
the catalogue translates it; every screen is saved in each language and width."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from django.utils import formats, translation
from playwright.sync_api import Page, expect

from games.joker_draw import rtp_lab
from games.joker_draw import services as joker_draw
from games.models import Game, Table, TableLimits, TableStatus
from games.tables.table_game import game_of
from payouts.approvals import ChangeStatus
from payouts.models import PaytableVersion, RtpRun
from tests.fixtures.browser import COMBOS, EVERY_COMBO, in_language, sign_in

D = Decimal


def amount(language: str, value: Decimal) -> str:
    """An amount as the page shows it in ``language`` (a decimal comma in Russian and Swedish)."""
    with translation.override(language):
        return formats.localize(value)


def shot(screenshot: Any, page: Page, name: str, language: str, width: int) -> None:
    screenshot(page, f"pit-{name}-{language}-{width}")


@pytest.mark.parametrize(("language", "width"), COMBOS)
def test_a_table_is_created_given_limits_approved_by_another_and_opened(
    open_page, pit, pit2, language, width, screenshot
):
    maker = open_page(language, width)
    sign_in(maker, pit, "/staff/")
    maker.goto("/staff/tables/new/")
    maker.locator("#id_name").fill("Stud 5")
    maker.locator("#id_game").select_option(Game.SEVEN_CARD_STUD)
    maker.locator("#id_reason").fill("a new stud table")
    maker.locator("#create-table-form button[type=submit]").click()
    # Led straight on to the limits.
    table = Table.objects.get(name="Stud 5")
    expect(maker).to_have_url(re.compile(rf"/staff/limits/tables/{table.pk}/propose/$"))
    for name, value in game_of(Game.SEVEN_CARD_STUD).default_limits.items():
        if isinstance(value, bool):  # a rule switch: ST-5's open pair
            maker.locator(f"#id_{name}").set_checked(value)
        else:
            maker.locator(f"#id_{name}").fill(str(value))
    maker.locator("#limits-form #id_reason").fill("house limits")
    maker.locator("#limits-form button[type=submit]").click()
    expect(maker).to_have_url(re.compile(rf"/staff/tables/{table.pk}/$"))
    expect(maker.locator(".next-step")).to_have_attribute("data-step", "approve_limits")
    expect(maker.locator(".next-step")).to_contain_text(
        in_language(language, "You proposed them: another pit staff member approves them.")
    )
    shot(screenshot, maker, "table-awaiting-approval", language, width)

    draft = TableLimits.objects.get(table=table)
    checker = open_page(language, width)
    sign_in(checker, pit2, "/staff/")
    checker.goto(f"/staff/tables/{table.pk}/")
    # The checker may approve or reject (with a reason); they approve.
    expect(checker.locator(".next-step")).to_contain_text(in_language(language, "Why reject it"))
    checker.locator(f".next-step form[action$='/limits/{draft.pk}/approve/'] button").click()
    expect(checker.locator(".next-step")).to_have_attribute("data-step", "open")
    # The reason box is not shown as an error before it is used.
    reason = checker.locator("#table-status-form #id_reason")
    assert reason.evaluate("box => getComputedStyle(box).backgroundColor") == "rgb(255, 255, 255)"
    checker.locator("#table-status-form button[type=submit]").click()
    # An empty reason is refused, next to the box (the browser's own check first).
    assert reason.evaluate("box => box.matches(':user-invalid')")
    reason.fill("evening shift")
    checker.locator("#table-status-form button[type=submit]").click()
    expect(checker.locator(".next-step")).to_have_attribute("data-step", "running")
    table.refresh_from_db()
    assert table.status == TableStatus.OPEN
    assert TableLimits.objects.get(table=table).approved_by == pit2
    # The history reads who did what, from what to what, and why.
    history = checker.locator("#history table")
    expect(history).to_contain_text("evening shift")
    expect(history).to_contain_text("house limits")
    expect(history).to_contain_text(in_language(language, "status"))
    shot(screenshot, checker, "table-open-with-history", language, width)


@pytest.mark.parametrize(("language", "width"), COMBOS)
def test_a_paytable_version_is_proposed_compared_computed_and_approved(
    open_page, default_paytables, pit, pit2, language, width, screenshot
):
    bonus = default_paytables["bonus"]
    in_force = bonus.active_version()
    maker = open_page(language, width)
    sign_in(maker, pit, "/staff/")
    maker.goto(f"/staff/paytables/{bonus.pk}/propose/")
    top = max(in_force.odds(), key=lambda category: in_force.odds()[category])
    maker.locator(f"#id_{top}").fill("1000:1")
    maker.locator("#id_reason").fill("a bigger jackpot")
    maker.locator("#paytable-form button[type=submit]").click()
    version = PaytableVersion.objects.get(paytable=bonus, status=ChangeStatus.DRAFT)
    expect(maker).to_have_url(re.compile(rf"/staff/paytables/versions/{version.pk}/$"))

    checker = open_page(language, width)
    sign_in(checker, pit2, "/staff/")
    checker.goto(f"/staff/paytables/versions/{version.pk}/")
    changed = checker.locator(f'tr[data-category="{top}"]')
    expect(changed).to_have_attribute("data-change", "changed")
    expect(changed).to_contain_text(in_language(language, "changed"))
    expect(checker.locator('[data-rtp="proposed"]')).to_have_text(
        in_language(language, "not computed")
    )
    shot(screenshot, checker, "paytable-diff", language, width)

    checker.locator("#rtp-run button[type=submit]").click()
    expect(checker.locator("#rtp-run")).to_have_attribute("data-status", "running")
    expect(checker.locator("#rtp-progress")).to_have_attribute("value", "0")
    shot(screenshot, checker, "rtp-running", language, width)
    # What the workers do; the page follows the stored chunks and shows the result.
    rtp_lab.run_in_process(RtpRun.objects.get(paytable_version=version))
    expect(checker.locator("#rtp-run")).to_have_attribute("data-status", "done")
    expect(checker.locator("#rtp-progress")).to_have_attribute("value", "100")
    expect(checker.locator('[data-rtp="proposed"]')).to_contain_text("%")
    checker.get_by_role(
        "button", name=in_language(language, "Approve v%(number)s") % {"number": 2}
    ).click()
    version.refresh_from_db()
    assert (version.status, version.approved_by) == (ChangeStatus.APPROVED, pit2)


@pytest.mark.parametrize(("language", "width"), COMBOS)
def test_the_live_pit_shows_each_round_with_its_stakes_and_countdown(
    open_page, joker_table, funded_player, pit, language, width, screenshot
):
    boxes = [joker_draw.BoxRequest(1, D("0.60"), D("0.30"))]
    round_ = joker_draw.open_round(player=funded_player, table=joker_table, boxes=boxes).round
    page = open_page(language, width)
    sign_in(page, pit, "/staff/")
    row = page.locator(f'.round-in-play[data-round="{round_.pk}"]')
    expect(row.locator(".stakes")).to_contain_text(amount(language, D("0.60")))
    expect(row.locator(".stakes")).to_contain_text(amount(language, D("0.30")))
    expect(row.locator(".countdown")).to_have_text(re.compile(r"\d"))
    expect(page.locator("table.bankroll")).to_contain_text("USD")
    # The reason box of every table is not shown as an error before it is used.
    reason = page.locator(f'tr[data-table="{joker_table.pk}"] input[name="reason"]')
    assert reason.evaluate("box => getComputedStyle(box).backgroundColor") == "rgb(255, 255, 255)"
    shot(screenshot, page, "live", language, width)


def test_every_pit_screen_in_every_language_and_width(
    open_page, joker_table, default_paytables, pit, screenshot
):
    """One sweep: each new screen of the pit saved in the three languages at both widths."""
    version = default_paytables["bet"].active_version()
    screens = {
        "new-table": "/staff/tables/new/",
        "table": f"/staff/tables/{joker_table.pk}/",
        "paytable-version": f"/staff/paytables/versions/{version.pk}/",
        "paytable-history": f"/staff/paytables/{version.paytable_id}/history/",
    }
    for language, width in EVERY_COMBO:
        page = open_page(language, width)
        sign_in(page, pit, "/staff/")
        for name, url in screens.items():
            page.goto(url)
            expect(page.locator("h1")).to_be_visible()
            shot(screenshot, page, name, language, width)
