"""A draft the second person will not approve is rejected on the staff page beside its
Approve button, with a comment saying why: table limits, paytable versions and settlement
corrections. A rejected draft never takes effect, nobody can approve it later, and the comment
stays in its history."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth.models import User

from casino.roles import AUDITOR
from payouts.approvals import ChangeStatus, MakerCheckerChange
from tests.fixtures.approvals import propose_correction, propose_limits, propose_paytable
from tests.fixtures.users import logged_in, make_user


@dataclass(frozen=True)
class Screen:
    propose: Callable[[pytest.FixtureRequest, User], Any]
    prefix: str  # the change's address under /staff/
    page: Callable[[Any], str]  # where its Approve and Reject buttons are, from the draft


SCREENS = {
    "limits": Screen(propose_limits, "limits", lambda d: "/staff/limits/"),
    "paytable": Screen(propose_paytable, "paytables/versions", lambda d: "/staff/paytables/"),
    "correction": Screen(
        propose_correction, "corrections", lambda d: f"/staff/rounds/{d.round_id}/"
    ),
}


def history_reasons(change: MakerCheckerChange) -> list[str]:
    event_model = apps.get_model(change._meta.app_label, f"{change._meta.object_name}Event")
    events = event_model.objects.filter(pgh_obj_id=change.pk).select_related("pgh_context")
    return [e.pgh_context.metadata.get("reason") for e in events if e.pgh_context]


@pytest.mark.parametrize("screen", SCREENS.values(), ids=SCREENS.keys())
def test_a_second_person_rejects_a_draft_with_a_comment_and_it_never_takes_effect(
    screen: Screen, request: pytest.FixtureRequest, pit: User, pit2: User
) -> None:
    draft = screen.propose(request, pit)
    reject = f"/staff/{screen.prefix}/{draft.pk}/reject/"
    page = logged_in(pit2).get(screen.page(draft)).content.decode()
    assert f'action="{reject}"' in page
    assert 'name="comment"' in page

    silent = logged_in(pit2).post(reject, {"comment": "   "})
    assert silent.status_code == 400
    assert "Say why the change is rejected." in silent.content.decode()
    draft.refresh_from_db()
    assert draft.status == ChangeStatus.DRAFT

    done = logged_in(pit2).post(reject, {"comment": "the floor manager said no"})
    assert done.status_code == 302
    draft.refresh_from_db()
    assert (draft.status, draft.approved_by) == (ChangeStatus.REJECTED, None)
    assert "the floor manager said no" in history_reasons(draft)

    late = logged_in(pit2).post(f"/staff/{screen.prefix}/{draft.pk}/approve/")
    assert late.status_code == 400
    assert "this one is Rejected" in late.content.decode()
    again = logged_in(pit2).post(reject, {"comment": "twice"})
    assert again.status_code == 400
    draft.refresh_from_db()
    assert draft.status == ChangeStatus.REJECTED


@pytest.mark.parametrize("screen", SCREENS.values(), ids=SCREENS.keys())
def test_an_auditor_cannot_reject_a_draft(
    screen: Screen, request: pytest.FixtureRequest, pit: User
) -> None:
    draft = screen.propose(request, pit)
    auditor = make_user("reader", AUDITOR)
    refused = logged_in(auditor).post(
        f"/staff/{screen.prefix}/{draft.pk}/reject/", {"comment": "I only read"}
    )
    assert refused.status_code == 403
    draft.refresh_from_db()
    assert draft.status == ChangeStatus.DRAFT
