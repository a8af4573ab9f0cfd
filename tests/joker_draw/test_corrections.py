"""Settlement corrections (games.joker_draw.corrections): a settled round is put right by a
correction one pit staff member proposes and a second approves, which the payout review, the
export and the replay show; a round in play is voided, not corrected."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command

from games.joker_draw import corrections
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import SettlementCorrection
from games.tables.replay import replay_round
from payouts.approvals import ChangeRefused, ChangeStatus
from payouts.models import AccountKind, LedgerTransaction, TransactionKind
from tests.fixtures.joker_draw import lost_round
from tests.fixtures.ledger import assert_ledger_passes
from tests.fixtures.peer import balance, house
from tests.fixtures.users import logged_in

D = Decimal


def test_a_settlement_correction_is_proposed_by_one_and_approved_by_another(
    funded_player, joker_table, pit, pit2, auditor
):
    round_ = lost_round(funded_player, joker_table)
    wallet, bankroll = balance(funded_player), house(AccountKind.HOUSE_BANKROLL)
    proposed = logged_in(pit).post(
        f"/staff/rounds/{round_.pk}/corrections/",
        {"box_1": "0.30", "reason": "the fold was the table's fault"},
    )
    assert proposed.status_code == 302
    correction = SettlementCorrection.objects.get(round=round_)
    assert (correction.amounts, correction.status) == ({"1": "0.30"}, ChangeStatus.DRAFT)
    assert balance(funded_player) == wallet

    own = logged_in(pit).post(f"/staff/corrections/{correction.pk}/approve/")
    assert own.status_code == 400
    assert "separation of duties" in own.content.decode()
    action = {"action": "approve", "_selected_action": [correction.pk]}
    admin = logged_in(pit).post("/admin/games/settlementcorrection/", action, follow=True)
    assert "separation of duties" in admin.content.decode()
    with pytest.raises(ChangeRefused, match="separation of duties"):
        corrections.approve_correction(correction, by=pit)
    assert balance(funded_player) == wallet

    assert logged_in(pit2).post(f"/staff/corrections/{correction.pk}/approve/").status_code == 302
    correction.refresh_from_db()
    assert (correction.status, correction.approved_by) == (ChangeStatus.APPROVED, pit2)
    assert correction.transaction.reference == f"round:{round_.pk}:correction:{correction.pk}"
    assert correction.transaction.kind == TransactionKind.CORRECTION
    assert balance(funded_player) == wallet + D("0.30")
    assert house(AccountKind.HOUSE_BANKROLL) == bankroll - D("0.30")

    report = replay_round(round_)
    assert report.ok, report.mismatches
    assert len(report.corrections) == 1
    assert "box 1 +0.30" in report.corrections[0]
    out = StringIO()
    call_command("replay_round", round_.pk, stdout=out)
    assert "CORRECTED correction" in out.getvalue()
    review = logged_in(auditor).get("/staff/payouts/").content.decode()
    assert "0.30 (approved correction)" in review
    assert "box 1: 0.30" in logged_in(auditor).get(f"/staff/rounds/{round_.pk}/").content.decode()
    # The export says what was paid, as the review does: the box's result and its correction.
    export = logged_in(auditor).get("/staff/payouts.csv")
    (row,) = csv.DictReader(io.StringIO(b"".join(export.streaming_content).decode()))
    assert (row["round"], row["total_result"], row["correction"]) == (
        str(round_.pk),
        "-0.30",
        "0.30",
    )
    assert_ledger_passes()


def test_a_correction_changed_by_a_colleague_is_approved_by_a_third(
    funded_player, joker_table, pit, pit2, admin_user
):
    import pghistory

    round_ = lost_round(funded_player, joker_table)
    correction = corrections.propose_correction(
        round_, amounts={1: D("0.30")}, reason="misread", by=pit
    )
    with pghistory.context(user=pit2.pk):
        SettlementCorrection.objects.filter(pk=correction.pk).update(amounts={"1": "30.00"})
    with pytest.raises(ChangeRefused, match="whoever changes a draft cannot approve it"):
        corrections.approve_correction(correction, by=pit2)
    corrections.approve_correction(correction, by=admin_user)
    assert balance(funded_player) == D("99.70") + D("30.00")


def test_a_second_correction_waits_until_the_first_is_decided(
    funded_player, joker_table, pit, pit2
):
    """A form sent twice proposes one correction: a round with a draft waiting takes no other,
    so one approver's pass over the list cannot pay the player twice."""
    round_ = lost_round(funded_player, joker_table)
    first = corrections.propose_correction(round_, amounts={1: D("0.30")}, reason="r", by=pit)
    with pytest.raises(ChangeRefused) as refused:
        corrections.propose_correction(round_, amounts={1: D("0.30")}, reason="r", by=pit)
    assert "already waiting" in refused.value.errors["round"]
    assert list(SettlementCorrection.objects.values_list("pk", flat=True)) == [first.pk]
    corrections.approve_correction(first, by=pit2)
    # Once decided, a further correction may be proposed (and needs its own approval).
    second = corrections.propose_correction(round_, amounts={1: D("0.10")}, reason="r2", by=pit)
    assert second.status == ChangeStatus.DRAFT


@pytest.mark.parametrize(
    ("amounts", "reason", "field"),
    [
        ({1: D("0.30")}, " ", "reason"),
        ({2: D("0.30")}, "r", "amounts.2"),
        ({1: D("0")}, "r", "amounts.1"),
        ({1: D("0.305")}, "r", "amounts.1"),
        ({}, "r", "amounts"),
    ],
)
def test_a_correction_names_a_box_of_the_round_an_amount_and_a_reason(
    amounts, reason, field, funded_player, joker_table, pit
):
    round_ = lost_round(funded_player, joker_table)
    with pytest.raises(ChangeRefused) as refused:
        corrections.propose_correction(round_, amounts=amounts, reason=reason, by=pit)
    assert field in refused.value.errors
    assert not SettlementCorrection.objects.exists()


def test_a_round_in_play_is_voided_not_corrected(funded_player, joker_table, pit):
    round_ = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    with pytest.raises(ChangeRefused) as refused:
        corrections.propose_correction(round_, amounts={1: D("0.30")}, reason="r", by=pit)
    assert "a round in play is voided" in refused.value.errors["round"]


def test_a_correction_taking_back_more_than_the_wallet_holds_is_refused(
    funded_player, joker_table, pit, pit2
):
    round_ = lost_round(funded_player, joker_table)
    correction = corrections.propose_correction(
        round_, amounts={1: D("-500.00")}, reason="paid twice", by=pit
    )
    posted = LedgerTransaction.objects.count()
    with pytest.raises(ChangeRefused) as refused:
        corrections.approve_correction(correction, by=pit2)
    assert "Insufficient funds" in refused.value.errors["amounts"]
    correction.refresh_from_db()
    assert correction.status == ChangeStatus.DRAFT
    assert LedgerTransaction.objects.count() == posted


def test_only_pit_staff_propose_and_approve_corrections_on_the_staff_pages(
    funded_player, joker_table, pit, auditor
):
    round_ = lost_round(funded_player, joker_table)
    form = {"box_1": "0.30", "reason": "misread"}
    for outsider in (funded_player, auditor):
        page = logged_in(outsider).post(f"/staff/rounds/{round_.pk}/corrections/", form)
        assert page.status_code == 403
    correction = corrections.propose_correction(
        round_, amounts={1: D("0.30")}, reason="misread", by=pit
    )
    for outsider in (funded_player, auditor):
        page = logged_in(outsider).post(f"/staff/corrections/{correction.pk}/approve/")
        assert page.status_code == 403
    correction.refresh_from_db()
    assert correction.status == ChangeStatus.DRAFT


def test_a_refused_proposal_on_the_staff_page_is_a_400_naming_the_field(
    funded_player, joker_table, pit
):
    round_ = lost_round(funded_player, joker_table)
    page = logged_in(pit).post(
        f"/staff/rounds/{round_.pk}/corrections/", {"box_1": "0.00", "reason": "misread"}
    )
    assert page.status_code == 400
    assert "must be a non-zero amount in whole cents" in page.content.decode()
    assert not SettlementCorrection.objects.exists()
