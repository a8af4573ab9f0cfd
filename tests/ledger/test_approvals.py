"""Maker-checker (payouts.approvals), the same rule for every kind of change: table limits,
paytable versions, reversals of house funding and settlement corrections. Its proposer cannot
approve a change, neither through the service nor by writing the row; a second staff member
can; a rejected change is never approved."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from games.joker_draw import corrections, paytables
from games.tables import services as table_services
from payouts import approvals
from payouts import services as money
from payouts.approvals import ChangeRefused, ChangeStatus
from tests.fixtures.approvals import (
    Kind,
    propose_correction,
    propose_limits,
    propose_paytable,
    propose_reversal,
)

KINDS = {
    "limits": Kind(propose_limits, table_services.approve_limits, "limits"),
    "paytable": Kind(propose_paytable, paytables.approve_paytable_version, "paytable"),
    "house funding": Kind(propose_reversal, money.approve_house_reversal, "reversal"),
    "correction": Kind(propose_correction, corrections.approve_correction, "correction"),
}


@pytest.mark.parametrize("kind", KINDS.values(), ids=KINDS.keys())
def test_only_a_second_person_approves_a_change_and_nobody_a_rejected_one(
    kind: Kind, request: pytest.FixtureRequest, pit: User, pit2: User
) -> None:
    rejected = kind.propose(request, pit)
    approvals.reject(rejected, by=pit2, comment="not tonight")
    with pytest.raises(ChangeRefused) as late:
        kind.approve(rejected, by=pit2)
    assert late.value.errors == {"status": "Only a draft can be approved; this one is Rejected."}
    rejected.refresh_from_db()
    assert (rejected.status, rejected.approved_by) == (ChangeStatus.REJECTED, None)

    change = kind.propose(request, pit)
    with pytest.raises(ChangeRefused) as own:
        kind.approve(change, by=pit)
    assert own.value.errors == {
        "approved_by": "The staff member who proposed a change cannot approve it "
        "(separation of duties)."
    }
    # A path past the service (raw SQL, a migration, a shell) meets the database's refusal.
    constraint = f"{kind.constraint}_approver_is_not_proposer"
    with pytest.raises(IntegrityError, match=constraint), transaction.atomic():
        type(change)._default_manager.filter(pk=change.pk).update(approved_by=pit)
    change.refresh_from_db()
    assert (change.status, change.approved_by) == (ChangeStatus.DRAFT, None)

    approved = kind.approve(change, by=pit2)
    approved.refresh_from_db()
    assert (approved.status, approved.approved_by) == (ChangeStatus.APPROVED, pit2)
