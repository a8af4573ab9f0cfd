"""Maker-checker: a change one staff member proposes takes effect only once a different one
approves it (separation of duties).

Table limits, paytable versions, reversals of house funding and settlement corrections are such
changes: each is a `MakerCheckerChange`, declares `approver_is_not_proposer` among its
constraints, and is approved through `approve` and rejected through `reject`. The rule holds
twice: `check_approver` refuses the proposer, and anyone who changed the draft since, in words;
the database refuses an approver who is the proposer, whatever path wrote the row.

Every step runs inside a pghistory context carrying who took it and why, so the history the
database triggers record answers an auditor's "who, when, old, new, reason".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

import pghistory
from django.apps import apps
from django.conf import settings
from django.db import models, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from casino.refusals import Kind, Refused

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class ChangeStatus(models.TextChoices):
    DRAFT = "draft", gettext_lazy("Draft (awaiting approval)")
    APPROVED = "approved", gettext_lazy("Approved")
    REJECTED = "rejected", gettext_lazy("Rejected")


class MakerCheckerChange(models.Model):
    """A configuration change that a second staff member must approve (separation of duties)."""

    status = models.CharField(
        verbose_name=gettext_lazy("status"),
        max_length=10,
        choices=ChangeStatus.choices,
        default=ChangeStatus.DRAFT,
    )
    reason = models.CharField(verbose_name=gettext_lazy("reason"), max_length=500)
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=gettext_lazy("proposed by"),
        null=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    proposed_at = models.DateTimeField(verbose_name=gettext_lazy("proposed at"), auto_now_add=True)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=gettext_lazy("approved by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    approved_at = models.DateTimeField(
        verbose_name=gettext_lazy("approved at"), null=True, blank=True
    )

    class Meta:
        abstract = True

    def part_events(self) -> Iterable[Any]:
        """The history events of the rows the change is made of besides its own (none here): a
        change to one of them is a change to the draft."""
        return ()


def approver_is_not_proposer(prefix: str) -> models.CheckConstraint:
    """The database's half of the rule, for the change whose constraints are named ``prefix``
    (a constraint's name is unique in the database)."""
    return models.CheckConstraint(
        condition=Q(approved_by__isnull=True) | ~Q(approved_by=F("proposed_by")),
        name=f"{prefix}_approver_is_not_proposer",
    )


class ChangeRefused(Refused):
    """A maker-checker step refused; `errors` maps fields to messages. A kind of refusal with a
    name of its own (a round no longer in play) says so by ``code`` and ``kind``."""

    code = "invalid"

    def __init__(
        self, errors: dict[str, str], *, code: str | None = None, kind: Kind | None = None
    ) -> None:
        self.errors = errors
        super().__init__("; ".join(self.lines()))
        if code is not None:
            self.code = code
        if kind is not None:
            self.kind = kind

    def lines(self) -> list[str]:
        """Each refused field with its message, as a page lists them."""
        return [f"{field}: {message}" for field, message in self.errors.items()]

    def messages(self) -> dict[str, list[str]]:
        return {field: [message] for field, message in self.errors.items()}


Change = TypeVar("Change", bound=MakerCheckerChange)


def _no_problems(change: MakerCheckerChange) -> ChangeRefused | None:
    return None


def _no_effect(change: MakerCheckerChange) -> tuple[str, ...]:
    return ()


def approve(
    change: Change,
    *,
    by: User,
    locked: QuerySet[Change] | None = None,
    problems: Callable[[Change], ChangeRefused | None] = _no_problems,
    takes_effect: Callable[[Change], Iterable[str]] = _no_effect,
) -> Change:
    """Approve a draft: by anyone but who proposed it or changed it since.

    ``locked`` is what the approval locks, read afresh (the change's row by default).
    ``problems`` is the kind's own check of the draft as it stands under that lock: a refusal
    of the approver names the draft's problems too; when the approver may approve, the draft's
    refusal stands as it is (its code included). ``takes_effect`` then does what the approval
    does (posts its money) and names the fields it set, saved with the approval.
    """
    with pghistory.context(user=by.pk, reason=f"approve {change}"), transaction.atomic():
        rows = locked if locked is not None else type(change)._default_manager.select_for_update()
        change = rows.get(pk=change.pk)
        errors = check_approver(change, by)
        problem = problems(change) if change.status == ChangeStatus.DRAFT else None
        if errors:
            raise ChangeRefused({**(problem.errors if problem else {}), **errors})
        if problem:
            raise problem
        mark_approved(change, by, *takes_effect(change))
    return change


def reject(change: Change, *, by: User, comment: str) -> Change:
    """Reject a draft, saying why: it never takes effect, and nobody can approve it later. The
    comment is kept with who rejected it in the change's history."""
    comment = (comment or "").strip()
    if not comment:
        raise ChangeRefused({"comment": _("Say why the change is rejected.")})
    with pghistory.context(user=by.pk, reason=comment), transaction.atomic():
        change = type(change)._default_manager.select_for_update().get(pk=change.pk)
        if change.status != ChangeStatus.DRAFT:
            raise ChangeRefused(
                {
                    "status": _("Only a draft can be rejected; this one is %(status)s.")
                    % {"status": change.get_status_display()}
                }
            )
        change.status = ChangeStatus.REJECTED
        change.save(update_fields=["status"])
    return change


def check_approver(change: MakerCheckerChange, by: User) -> dict[str, str]:
    """Whether ``by`` may approve ``change``: a draft, neither proposed nor changed by them since.

    Who changed a draft is read from the history the database triggers record for every path
    (admin forms and inlines, staff pages, services, raw SQL): no path can leave a change out.
    """
    if change.status != ChangeStatus.DRAFT:
        return {
            "status": _("Only a draft can be approved; this one is %(status)s.")
            % {"status": change.get_status_display()}
        }
    if change.proposed_by_id == by.pk:
        return {
            "approved_by": _(
                "The staff member who proposed a change cannot approve it (separation of duties)."
            )
        }
    editors, unattributed = draft_editors(change)
    if by.pk in editors:
        return {
            "approved_by": _(
                "You changed this draft after it was proposed: whoever changes a "
                "draft cannot approve it (separation of duties)."
            )
        }
    if unattributed:
        return {
            "approved_by": _(
                "This draft was changed by someone the history does not name, so "
                "nobody can be shown to be a second person; propose a new version "
                "(separation of duties)."
            )
        }
    return {}


def draft_editors(change: MakerCheckerChange) -> tuple[set[int], bool]:
    """Everyone who changed ``change`` (or one of its parts, such as a paytable version's lines)
    after it was proposed, by user id, and whether any such change names nobody.

    The proposal is the context of the draft's insert event: its parts are written in it too.
    """
    event_model = apps.get_model(change._meta.app_label, f"{change._meta.object_name}Event")
    events = list(event_model.objects.filter(pgh_obj_id=change.pk).select_related("pgh_context"))
    proposal = next((e.pgh_context_id for e in events if e.pgh_label == "insert"), None)
    events += change.part_events()
    editors: set[int] = set()
    unattributed = False
    for event in events:
        if proposal is not None and event.pgh_context_id == proposal:
            continue
        user = event.pgh_context.metadata.get("user") if event.pgh_context else None
        if user is None:
            unattributed = True
        else:
            editors.add(int(user))
    return editors, unattributed


def mark_approved(change: MakerCheckerChange, by: User, *also: str) -> None:
    """Record the approval of a draft that `check_approver` let `by` approve, with the fields
    ``also`` its effect set, in one write (one event in its history)."""
    change.status = ChangeStatus.APPROVED
    change.approved_by = by
    change.approved_at = timezone.now()
    change.save(update_fields=[*also, "status", "approved_by", "approved_at"])
