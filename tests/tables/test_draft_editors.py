"""Maker-checker (JD-14): whoever changed a draft after it was proposed may not approve it, on any
path (the admin's paytable lines inline, the admin action, the staff pages, the services), for
paytables and for limits; a third staff member may. Every change to a draft is attributed from
the history the database records; a change nobody can be named for blocks every approval."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pghistory
import pytest

from casino.roles import PIT_STAFF
from games.joker_draw import rtp_lab
from games.joker_draw.paytables import approve_paytable_version, propose_paytable_version
from games.models import TableLimits
from games.tables import services as table_services
from payouts.approvals import ChangeRefused, ChangeStatus, draft_editors
from payouts.models import PaytableLine, PaytableVersion
from tests.fixtures.tables import joker_draw_limits
from tests.fixtures.users import logged_in, make_user


@pytest.fixture
def pit3(db):
    return make_user("shift", PIT_STAFF)


@pytest.fixture
def bet_draft(default_paytables, pit) -> PaytableVersion:
    """pit's draft of the bet paytable: the lines in force, the dealer's no game paying 1:3
    (cheaper for the player, so a short best-play run can show it under 100%, JD-11a)."""
    bet = default_paytables["bet"]
    lines = bet.active_version().odds()
    lines["no_game"] = Fraction(1, 3)
    return propose_paytable_version(paytable=bet, lines=lines, reason="promo", by=pit)


def inline_edit(version: PaytableVersion, **odds: int) -> dict[str, str]:
    """The admin change form of ``version`` as posted, with the lines' numerators of ``odds``."""
    lines = list(version.lines.order_by("pk"))
    form = {
        "lines-TOTAL_FORMS": str(len(lines)),
        "lines-INITIAL_FORMS": str(len(lines)),
        "lines-MIN_NUM_FORMS": "0",
        "lines-MAX_NUM_FORMS": "1000",
    }
    for n, line in enumerate(lines):
        form |= {
            f"lines-{n}-id": str(line.pk),
            f"lines-{n}-version": str(version.pk),
            f"lines-{n}-category": line.category,
            f"lines-{n}-odds_numerator": str(odds.get(line.category, line.odds_numerator)),
            f"lines-{n}-odds_denominator": str(line.odds_denominator),
        }
    return form


def approve_in_admin(user, version: PaytableVersion) -> str:
    action = {"action": "approve", "_selected_action": [version.pk]}
    return (
        logged_in(user)
        .post("/admin/payouts/paytableversion/", action, follow=True)
        .content.decode()
    )


def test_who_edits_a_draft_in_the_admin_inline_cannot_approve_it_anywhere(
    bet_draft, pit, pit2, pit3
):
    """pit2 changes pit1's draft lines in the admin inline, then tries to approve it: refused in
    the admin, on the staff page and by the service; pit3 approves."""
    page = logged_in(pit2).post(
        f"/admin/payouts/paytableversion/{bet_draft.pk}/change/", inline_edit(bet_draft, flush=2)
    )
    assert page.status_code == 302
    assert bet_draft.odds()["flush"] == Fraction(2)  # the edit went through, as pit2's
    assert draft_editors(bet_draft) == ({pit2.pk}, False)
    rtp_lab.compute_now(bet_draft, seed=1)  # so that only the separation of duties refuses

    assert "whoever changes a draft cannot approve it" in approve_in_admin(pit2, bet_draft)
    staff = logged_in(pit2).post(f"/staff/paytables/versions/{bet_draft.pk}/approve/")
    assert staff.status_code == 400
    assert "whoever changes a draft cannot approve it" in staff.content.decode()
    with pytest.raises(ChangeRefused, match="separation of duties"):
        approve_paytable_version(bet_draft, by=pit2)
    bet_draft.refresh_from_db()
    assert (bet_draft.status, bet_draft.approved_by) == (ChangeStatus.DRAFT, None)

    approve_in_admin(pit3, bet_draft)
    bet_draft.refresh_from_db()
    assert (bet_draft.status, bet_draft.approved_by) == (ChangeStatus.APPROVED, pit3)


def test_adding_or_deleting_a_draft_line_counts_as_a_change(bet_draft, pit2, pit3):
    with pghistory.context(user=pit2.pk):
        PaytableLine.objects.filter(version=bet_draft, category="pair").delete()
    rtp_lab.compute_now(bet_draft, seed=1)
    with pytest.raises(ChangeRefused, match="whoever changes a draft cannot approve it"):
        approve_paytable_version(bet_draft, by=pit2)
    assert approve_paytable_version(bet_draft, by=pit3).approved_by == pit3


def test_a_change_to_the_versions_own_fields_counts(bet_draft, pit2, pit3):
    with pghistory.context(user=pit2.pk):
        PaytableVersion.objects.filter(pk=bet_draft.pk).update(reason="a better reason")
    rtp_lab.compute_now(bet_draft, seed=1)
    with pytest.raises(ChangeRefused, match="whoever changes a draft cannot approve it"):
        approve_paytable_version(bet_draft, by=pit2)
    approve_paytable_version(bet_draft, by=pit3)


def test_the_proposers_own_later_edit_leaves_a_colleague_free_to_approve(bet_draft, pit, pit2):
    page = logged_in(pit).post(
        f"/admin/payouts/paytableversion/{bet_draft.pk}/change/", inline_edit(bet_draft, flush=2)
    )
    assert page.status_code == 302
    rtp_lab.compute_now(bet_draft, seed=1)
    assert approve_paytable_version(bet_draft, by=pit2).approved_by == pit2


# pghistory's context lasts to the end of the database transaction: a change nobody is named for
# is one made in a transaction of its own, as it would be outside the tests.
@pytest.mark.django_db(transaction=True)
def test_a_change_nobody_is_named_for_blocks_every_approval(bet_draft, pit2, pit3):
    PaytableLine.objects.filter(version=bet_draft, category="flush").update(odds_numerator=3)
    rtp_lab.compute_now(bet_draft, seed=1)
    for colleague in (pit2, pit3):
        with pytest.raises(ChangeRefused, match="the history does not name"):
            approve_paytable_version(bet_draft, by=colleague)


@pytest.fixture
def limits_draft(joker_table, default_paytables, pit) -> TableLimits:
    return table_services.propose_limits(
        table=joker_table,
        values=joker_draw_limits(default_paytables, max_ante=Decimal("24.00")),
        reason="higher limit",
        by=pit,
    )


def test_who_changes_a_limits_draft_cannot_approve_it_anywhere(limits_draft, pit2, pit3):
    with pghistory.context(user=pit2.pk):
        TableLimits.objects.filter(pk=limits_draft.pk).update(max_ante=Decimal("30.00"))
    action = {"action": "approve", "_selected_action": [limits_draft.pk]}
    admin = logged_in(pit2).post("/admin/games/tablelimits/", action, follow=True)
    assert "whoever changes a draft cannot approve it" in admin.content.decode()
    staff = logged_in(pit2).post(f"/staff/limits/{limits_draft.pk}/approve/")
    assert staff.status_code == 400
    assert "whoever changes a draft cannot approve it" in staff.content.decode()
    limits_draft.refresh_from_db()
    assert limits_draft.status == ChangeStatus.DRAFT

    logged_in(pit3).post("/admin/games/tablelimits/", action)
    limits_draft.refresh_from_db()
    assert (limits_draft.status, limits_draft.approved_by) == (ChangeStatus.APPROVED, pit3)
    assert limits_draft.max_ante == Decimal("30.00")


@pytest.mark.django_db(transaction=True)
def test_an_unattributed_change_to_limits_blocks_approval(limits_draft, pit2):
    TableLimits.objects.filter(pk=limits_draft.pk).update(max_ante=Decimal("30.00"))
    with pytest.raises(ChangeRefused, match="the history does not name"):
        table_services.approve_limits(limits_draft, by=pit2)
