"""Pit staff's admin screens do what the services do, with the same refusals."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from games.joker_draw import rtp_lab
from games.models import TableLimits
from payouts import services
from payouts.models import LedgerTransaction, PaytableVersion, RtpRunStatus, TransactionKind
from tests.fixtures.users import logged_in


def test_cage_deposit_form_posts_once_however_often_it_is_submitted(pit, player):
    client = logged_in(pit)
    form = {
        "player": player.pk,
        "currency": "USD",
        "amount": "20.00",
        "reason": "cash",
        "idempotency_key": "form-1",
    }
    first = client.post("/admin/payouts/ledgertransaction/deposit/", form)
    assert first.status_code == 302
    second = client.post("/admin/payouts/ledgertransaction/deposit/", form)
    assert second.status_code == 302
    assert second["Location"] == first["Location"]
    assert LedgerTransaction.objects.filter(kind=TransactionKind.DEPOSIT).count() == 1
    assert services.wallet(player, "USD").balance == Decimal("20.00")


def test_cage_withdrawal_form_refuses_more_than_the_wallet_holds(pit, player):
    client = logged_in(pit)
    form = {
        "player": player.pk,
        "currency": "USD",
        "amount": "5.00",
        "reason": "cash",
        "idempotency_key": "w-1",
    }
    page = client.post("/admin/payouts/ledgertransaction/withdraw/", form)
    assert page.status_code == 200
    assert b"Insufficient funds" in page.content
    assert not LedgerTransaction.objects.exists()


def test_reverse_form_posts_an_opposite_transaction(pit, player):
    original = services.deposit(
        player=player, currency="USD", amount=Decimal("20.00"), reason="cash", by=pit
    )
    response = logged_in(pit).post(
        f"/admin/payouts/ledgertransaction/{original.pk}/reverse/", {"reason": "wrong player"}
    )
    assert response.status_code == 302
    assert LedgerTransaction.objects.get(reverses=original).reason == "wrong player"
    assert services.wallet(player, "USD").balance == Decimal("0.00")


def test_proposing_limits_in_the_admin_shows_the_rule_broken(pit, joker_table, default_paytables):
    form = {
        "table": joker_table.pk,
        "reason": "new limits",
        "min_ante": "0.50",
        "max_ante": "12.00",
        "ante_step": "0.30",
        "bonus_min": "0.30",
        "bonus_max": "6.00",
        "boxes_per_round": "1",
        "decision_timeout_seconds": "60",
        "bet_rtp_min_percent": "85.00",
        "bet_rtp_max_percent": "99.80",
        "bonus_rtp_min_percent": "85.00",
        "bonus_rtp_max_percent": "99.50",
        "bet_paytable": default_paytables["bet"].pk,
        "bonus_paytable": default_paytables["bonus"].pk,
        "draw_limit": "unknown",
    }
    page = logged_in(pit).post("/admin/games/tablelimits/add/", form)
    assert page.status_code == 200
    assert b"0.50 is not a whole multiple of the ante step 0.30 (JD-2)." in page.content
    assert TableLimits.objects.filter(table=joker_table).count() == 1
    form["min_ante"] = "0.60"
    assert logged_in(pit).post("/admin/games/tablelimits/add/", form).status_code == 302
    draft = TableLimits.objects.get(table=joker_table, number=2)
    assert draft.status == "draft"
    assert draft.proposed_by == pit


def test_the_proposer_cannot_approve_in_the_admin_but_a_colleague_can(
    pit, pit2, joker_table, default_paytables
):
    from games.tables import services as table_services
    from tests.fixtures.tables import joker_draw_limits

    draft = table_services.propose_limits(
        table=joker_table,
        values=joker_draw_limits(default_paytables, max_ante=Decimal("24.00")),
        reason="r",
        by=pit,
    )
    action = {"action": "approve", "_selected_action": [draft.pk]}
    page = logged_in(pit).post("/admin/games/tablelimits/", action, follow=True)
    assert b"separation of duties" in page.content
    draft.refresh_from_db()
    assert draft.status == "draft"
    logged_in(pit2).post("/admin/games/tablelimits/", action, follow=True)
    draft.refresh_from_db()
    assert draft.status == "approved"
    assert draft.approved_by == pit2


def test_paytable_version_drafted_in_the_admin_is_approved_by_a_colleague(
    pit, pit2, default_paytables
):
    bet = default_paytables["bet"]
    form = {
        "paytable": bet.pk,
        "reason": "promo",
        # A pair's bet at 1:2 and the dealer's no game at 1:3: cheap enough that a short
        # best-play run shows the house ahead (JD-11a, JD-14).
        "lines-TOTAL_FORMS": "2",
        "lines-INITIAL_FORMS": "0",
        "lines-MIN_NUM_FORMS": "0",
        "lines-MAX_NUM_FORMS": "1000",
        "lines-0-category": "pair",
        "lines-0-odds_numerator": "1",
        "lines-0-odds_denominator": "2",
        "lines-1-category": "no_game",
        "lines-1-odds_numerator": "1",
        "lines-1-odds_denominator": "3",
    }
    assert logged_in(pit).post("/admin/payouts/paytableversion/add/", form).status_code == 302
    draft = PaytableVersion.objects.get(paytable=bet, number=2)
    assert draft.proposed_by == pit
    action = {"action": "approve", "_selected_action": [draft.pk]}
    logged_in(pit).post("/admin/payouts/paytableversion/", action)
    assert bet.active_version().number == 1
    refused = logged_in(pit2).post("/admin/payouts/paytableversion/", action, follow=True)
    assert b"compute its RTP first (JD-14)" in refused.content
    assert bet.active_version().number == 1
    rtp_lab.compute_now(draft, seed=1)
    logged_in(pit2).post("/admin/payouts/paytableversion/", action)
    assert bet.active_version() == draft


def test_a_no_game_line_edited_in_the_admin_obeys_the_whole_cent_rule(pit, joker_table):
    """JD-2, JD-11a: the admin's lines are refused as a proposal's are: 1:7 on a table whose
    antes step by 0.30 would pay fractions of a cent, and nothing is saved."""
    bet = joker_table.active_limits().bet_paytable
    form = {
        "paytable": bet.pk,
        "reason": "odd",
        "lines-TOTAL_FORMS": "1",
        "lines-INITIAL_FORMS": "0",
        "lines-MIN_NUM_FORMS": "0",
        "lines-MAX_NUM_FORMS": "1000",
        "lines-0-category": "no_game",
        "lines-0-odds_numerator": "1",
        "lines-0-odds_denominator": "7",
    }
    refused = logged_in(pit).post("/admin/payouts/paytableversion/add/", form)
    assert refused.status_code == 200
    assert "a total ante of 0.30 at the no-game odds 1:7" in refused.content.decode()
    assert not bet.versions.filter(number=2).exists()
    form["lines-0-odds_denominator"] = "2"
    assert logged_in(pit).post("/admin/payouts/paytableversion/add/", form).status_code == 302
    assert bet.versions.get(number=2).odds() == {"no_game": Fraction(1, 2)}


def test_compute_rtp_button_starts_a_run_and_the_result_shows(
    pit, auditor, player, default_paytables, django_capture_on_commit_callbacks, settings
):
    version = default_paytables["bet"].active_version()
    page = f"/admin/payouts/paytableversion/{version.pk}/change/"
    shown = logged_in(pit).get(page)
    assert b"Compute RTP" in shown.content
    finished = version.rtp_runs.get()
    assert rtp_lab.describe(finished).encode() in shown.content
    chart = f"/admin/payouts/rtprun/{finished.pk}/chart.png"
    assert shown.content.count(chart.encode()) == 1
    with django_capture_on_commit_callbacks() as dispatched:
        response = logged_in(pit).post(f"/admin/payouts/paytableversion/{version.pk}/compute-rtp/")
    assert response.status_code == 302
    started = version.rtp_runs.exclude(pk=finished.pk).get()
    assert (started.requested_by, started.rounds) == (pit, settings.RTP_APPROVAL_MIN_ROUNDS)
    assert len(dispatched) == 1  # the chunks go to the workers once the run is committed
    assert b"Compute RTP" not in logged_in(auditor).get(page).content
    refused = logged_in(auditor).post(f"/admin/payouts/paytableversion/{version.pk}/compute-rtp/")
    assert refused.status_code == 403
    assert version.rtp_runs.count() == 2
    progress = logged_in(pit).get(page).content
    assert f"run {started.pk} Running: 0 of 1 chunks".encode() in progress
    assert rtp_lab.describe(finished).encode() in progress  # the last result stays in view
    started.status, started.result = RtpRunStatus.FAILED, {"error": "ValueError: <odd> tally"}
    started.save(update_fields=["status", "result"])
    failure = logged_in(pit).get(page).content
    assert f"run {started.pk} failed: ValueError: &lt;odd&gt; tally".encode() in failure
    assert rtp_lab.describe(finished).encode() in failure
    png = logged_in(auditor).get(chart)
    assert png["Content-Type"] == "image/png"
    assert png.content.startswith(b"\x89PNG")
    assert logged_in(player).get(chart).status_code == 302  # to the admin's login


@pytest.mark.parametrize("user_fixture", ["pit", "auditor"])
def test_history_of_changes_is_visible_to_staff(request, user_fixture, joker_table):
    page = logged_in(request.getfixturevalue(user_fixture)).get("/admin/pghistory/events/")
    assert page.status_code == 200
    assert b"TableEvent" in page.content


def test_a_transaction_page_for_an_id_that_is_no_number_is_not_a_server_error(pit, player):
    """A hand-typed or mangled address: the admin's own answer for a missing object (a redirect
    with a message), never a 500; a real transaction's page still offers its reversal."""
    client = logged_in(pit)
    missing = client.get("/admin/payouts/ledgertransaction/abc/change/")
    assert missing.status_code == 302
    deposit = services.deposit(
        player=player, currency="USD", amount=Decimal("5.00"), reason="cash", by=pit
    )
    page = client.get(f"/admin/payouts/ledgertransaction/{deposit.pk}/change/")
    assert b"reverse/" in page.content
