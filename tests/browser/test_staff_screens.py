"""The staff screens in Chromium against the live server: an auditor filters the payouts and
downloads the CSV, a pit staff member changes a limit that the player's table then enforces,
the live view, voiding a hand, actual against theoretical RTP, and a player kept out (403).
Each main page is saved as a screenshot for reviewers."""

from __future__ import annotations

import csv
import re
from decimal import Decimal

from playwright.sync_api import expect

from games.joker_draw.rtp_monitor import observe_rtp
from games.models import BoxSettlement, Round, RoundStatus, TableLimits
from games.stud.tasks import STUD as stud
from games.tables import seeds
from games.tables.history import label_of
from payouts import services as money
from payouts.approvals import ChangeStatus
from tests.fixtures.tables import make_stud_table
from tests.fixtures.users import make_user

D = Decimal


def test_an_auditor_filters_the_payouts_and_downloads_them_as_csv(
    settled_boxes, auditor, signed_in, screenshot, tmp_path
):
    page = signed_in(auditor)
    page.goto("/staff/payouts/")
    expect(page.locator("#payouts tbody tr")).to_have_count(8)
    screenshot(page, "staff-payouts-review")

    # Ben's boxes at or above the median of his results: some of his boxes, none of Ann's.
    results = sorted(
        BoxSettlement.objects.filter(player__username="ben").values_list("total_result", flat=True)
    )
    threshold = results[len(results) // 2]
    page.get_by_label("Player").fill("ben")
    page.get_by_label("Min amount").fill(str(threshold))
    page.get_by_role("button", name="Filter").click()
    expected = list(
        BoxSettlement.objects.filter(player__username="ben", total_result__gte=threshold)
        .select_related("bet_paytable_version__paytable")
        .order_by("-settled_at", "-round_id")
    )
    assert 0 < len(expected) < 8
    expect(page.locator("#payouts tbody tr")).to_have_count(len(expected))
    screenshot(page, "staff-payouts-filtered")

    with page.expect_download() as download:
        page.locator("#csv-export").click()
    path = tmp_path / "payouts.csv"
    download.value.save_as(path)
    with path.open(newline="") as file:
        rows = list(csv.DictReader(file))
    assert [(int(r["round"]), r["player"]) for r in rows] == [
        (box.round_id, "ben") for box in expected
    ]
    for row, box in zip(rows, expected, strict=True):
        assert row["total_result"] == f"{box.total_result:.2f}"
        assert row["bet_staked"] == f"{box.bet_staked:.2f}"
        assert row["bet_paytable_version"] == str(box.bet_paytable_version)
        assert row["category"] == box.category

    page.get_by_role("link", name=str(expected[0].round_id), exact=True).click()
    expect(page.locator("#replay-check")).to_contain_text("match")
    # The seed shows, and checks against the commitment, once ben rotates his pair (FS-7).
    expect(page.locator("#commitment-check")).to_contain_text("once the seed pair is rotated")
    seeds.rotate(expected[0].player)
    page.reload()
    expect(page.locator("#commitment-check")).to_contain_text("matches the commitment")
    screenshot(page, "staff-round-detail")

    page.get_by_role("link", name="Ledger reconciliation").click()
    expect(page.locator("#ledger-verdict")).to_contain_text("The ledger reconciles")
    screenshot(page, "staff-ledger-reconciliation")

    observe_rtp()  # the nightly job
    page.get_by_role("link", name="RTP", exact=True).click()
    expect(page.locator("#rtp-observations tbody tr")).to_have_count(2)  # bet and BONUS
    expect(page.locator("#rtp-observations")).to_contain_text("95.7229")
    chart = page.get_by_role("img", name=re.compile("actual RTP"))
    expect(chart).to_be_visible()
    assert chart.evaluate("image => image.naturalWidth") > 0
    screenshot(page, "staff-rtp")


def test_a_limit_changed_by_pit_staff_is_enforced_at_the_players_table(
    joker_table, pit, pit2, player, signed_in, screenshot
):
    """JD-2: the maximum ante lowered to 3.00 through the staff screens; the player's table
    then refuses an ante of 6.00 it accepted before."""
    money.deposit(player=player, currency="USD", amount=D("100.00"), reason="cash", by=pit)
    proposer = signed_in(pit)
    proposer.goto("/staff/limits/")
    proposer.get_by_role("link", name=f"Propose new limits for {joker_table.name}").click()
    proposer.get_by_label(label_of("max_ante")).fill("3.00")
    proposer.get_by_label("Reason").fill("lower stakes tonight")
    screenshot(proposer, "staff-propose-limits")
    proposer.get_by_role("button", name="Propose").click()
    expect(proposer.get_by_text("proposed; another pit staff member approves it")).to_be_visible()
    draft = TableLimits.objects.get(table=joker_table, status=ChangeStatus.DRAFT)
    # The proposal lands on the table's page; the limits side by side offer the approval.
    proposer.goto("/staff/limits/")
    proposer.get_by_role("button", name=f"Approve v{draft.number}").click()
    expect(proposer.get_by_role("alert")).to_contain_text("separation of duties")
    screenshot(proposer, "staff-limits-own-approval-refused")

    proposer.get_by_role("link", name="Paytables").click()
    expect(proposer.get_by_role("heading", name="Paytables")).to_be_visible()
    screenshot(proposer, "staff-paytables")

    approver = signed_in(pit2)
    approver.goto("/staff/limits/")
    approver.get_by_role("button", name=f"Approve v{draft.number}").click()
    expect(approver.get_by_text(f"{draft} approved")).to_be_visible()
    screenshot(approver, "staff-limits")
    assert joker_table.active_limits().max_ante == D("3.00")

    table_page = signed_in(player)
    table_page.goto(f"/play/joker-draw/{joker_table.pk}/")
    table_page.get_by_label("Ante").first.fill("6.00")
    table_page.get_by_role("button", name="Deal").click()
    expect(table_page.locator("#stake-error")).to_contain_text(re.compile(r"3\.00.*JD-2"))
    screenshot(table_page, "player-table-limit-enforced")
    assert not Round.objects.filter(table=joker_table).exists()


def test_the_live_view_follows_the_tables_and_voids_a_hand(
    pit, pit2, settings, signed_in, screenshot
):
    settings.STUD_HAND_PAUSE_SECONDS = 0
    table = make_stud_table(pit, pit2)
    page = signed_in(pit)
    page.goto("/staff/")
    row = page.locator(f'tr[data-table="{table.pk}"]')
    expect(row).to_contain_text("nobody")
    players = [make_user(name, "player") for name in ("ann", "ben")]
    for number, user in enumerate(players, start=1):
        money.deposit(player=user, currency="USD", amount=D("100.00"), reason="cash", by=pit)
        stud.join(player=user, table=table, seat=number, buy_in=D("60.00"))
    hand = Round.objects.get(table=table, status=RoundStatus.DECIDING)
    # No reload: the page polls its tables and shows the new hand.
    expect(row).to_contain_text(f"hand {hand.nonce}: Third street, pot 1.00")
    expect(row).to_contain_text("seat 2: ben 59.50")
    screenshot(page, "staff-live-tables")

    row.get_by_role("link", name=re.compile(f"hand {hand.nonce}")).click()
    page.get_by_label("Reason").fill("deck found incomplete")
    page.get_by_role("button", name="Void the round").click()
    expect(page.get_by_text("is voided; its stakes are returned")).to_be_visible()
    expect(page.get_by_text("Voided: deck found incomplete")).to_be_visible()
    screenshot(page, "staff-round-voided")
    hand.refresh_from_db()
    assert hand.status == RoundStatus.VOIDED

    # With players seated a plain close is refused, naming them; "after this hand" closes it
    # and cashes them out.
    page.goto("/staff/")
    page.get_by_label(f"Reason for {table.name}").fill("end of shift")
    row.get_by_role("button", name="Close").click()
    expect(page.get_by_role("alert")).to_contain_text(
        "Players are seated: seat 1: ann, seat 2: ben."
    )
    table.refresh_from_db()
    assert table.status == "open"

    page.goto("/staff/")
    page.get_by_label(f"Reason for {table.name}").fill("end of shift")
    row.get_by_label("after this hand: cash out the seated players").check()
    row.get_by_role("button", name="Close").click()
    expect(page.locator("[data-status]")).to_have_attribute("data-status", "closed")
    page.goto("/staff/")
    expect(row).to_contain_text("Closed")
    table.refresh_from_db()
    assert table.status == "closed"


def test_a_player_cannot_open_the_staff_pages(player, signed_in, screenshot):
    page = signed_in(player)
    for url in ("/staff/", "/staff/payouts/", "/staff/ledger/", "/staff/limits/"):
        response = page.goto(url)
        assert response is not None
        assert response.status == 403, url
    screenshot(page, "player-staff-403")
