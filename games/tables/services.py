"""Table configuration services: limits and paytables under maker-checker, opening and closing.

Every change runs inside a pghistory context carrying who did it and why, so the history the
database triggers record answers an auditor's "who, when, old, new, reason".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pghistory
from django.db import transaction
from django.utils import timezone

from games.joker_draw.rtp_lab import band_problem, house_band
from games.models import Table, TableLimits, TableStatus
from games.tables.limits import (
    GAME_FIELDS,
    joker_draw_bet_stakes,
    joker_draw_bonus_stakes,
    unpayable_stake,
    validate_limits,
)
from payouts.models import ChangeStatus, PaytableKind, PaytableVersion
from payouts.services import ChangeRefused, check_approver

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def create_table(*, name: str, game: str, currency: str, by: User, reason: str) -> Table:
    """A new table starts closed: it opens only once a second staff member approved its limits."""
    with pghistory.context(user=by.pk, reason=reason), transaction.atomic():
        return Table.objects.create(name=name, game=game, currency=currency)


def propose_limits(
    *, table: Table, values: Mapping[str, Any], reason: str, by: User | None
) -> TableLimits:
    fields = GAME_FIELDS[table.game]
    errors = validate_limits(table.game, values)
    if not (reason or "").strip():
        errors["reason"] = "Say why the limits change."
    if errors:
        raise ChangeRefused(errors)
    with pghistory.context(user=getattr(by, "pk", None), reason=reason), transaction.atomic():
        Table.objects.select_for_update().get(pk=table.pk)
        last = table.limits_versions.order_by("-number").values_list("number", flat=True).first()
        return TableLimits.objects.create(
            table=table,
            number=(last or 0) + 1,
            reason=reason.strip(),
            proposed_by=by,
            **{name: values.get(name) for name in fields},
        )


def approve_limits(limits: TableLimits, *, by: User) -> TableLimits:
    """Approve a draft; it is checked again, since the paytables it names may have changed."""
    with pghistory.context(user=by.pk, reason=f"approve {limits}"), transaction.atomic():
        limits = TableLimits.objects.select_for_update().select_related("table").get(pk=limits.pk)
        errors = check_approver(limits, by)
        if limits.status == ChangeStatus.DRAFT:
            values = {name: getattr(limits, name) for name in GAME_FIELDS[limits.table.game]}
            errors = {**validate_limits(limits.table.game, values), **errors}
        if errors:
            raise ChangeRefused(errors)
        _mark_approved(limits, by)
    return limits


def approve_paytable_version(version: PaytableVersion, *, by: User) -> PaytableVersion:
    """Approve a draft paytable version: by a second staff member, and only if every table
    that uses the paytable would still pay every legal stake in whole cents (JD-2, JD-14)."""
    with pghistory.context(user=by.pk, reason=f"approve {version}"), transaction.atomic():
        version = (
            PaytableVersion.objects.select_for_update()
            .select_related("paytable")
            .get(pk=version.pk)
        )
        errors = check_approver(version, by)
        if version.status == ChangeStatus.DRAFT:
            content = _paytable_fits_its_tables(version) or _paytable_rtp_problem(version)
            errors = {**content, **errors}
        if errors:
            raise ChangeRefused(errors)
        _mark_approved(version, by)
    return version


def _paytable_rtp_problem(version: PaytableVersion) -> dict[str, str]:
    """The version's computed RTP must lie in the band of every table that uses the paytable,
    or in the house band when none does yet (JD-14)."""
    kind = version.paytable.kind
    bands = [
        (f"table {limits.table}", low, high)
        for limits in TableLimits.objects.filter(
            status=ChangeStatus.APPROVED, **{f"{kind}_paytable": version.paytable}
        ).select_related("table")
        for low, high in [
            (getattr(limits, f"{kind}_rtp_min_percent"), getattr(limits, f"{kind}_rtp_max_percent"))
        ]
        if low is not None and high is not None
    ]
    return band_problem(version, bands or [house_band(kind)])


def _paytable_fits_its_tables(version: PaytableVersion) -> dict[str, str]:
    bet = version.paytable.kind == PaytableKind.BET
    stakes_of = joker_draw_bet_stakes if bet else joker_draw_bonus_stakes
    field = "bet_paytable" if bet else "bonus_paytable"
    odds = version.odds()
    tables_limits = TableLimits.objects.filter(
        status=ChangeStatus.APPROVED, **{field: version.paytable}
    )
    for limits in tables_limits.select_related("table"):
        values = {name: getattr(limits, name) for name in GAME_FIELDS[limits.table.game]}
        problem = unpayable_stake(stakes_of(values), odds)
        if problem:
            return {"lines": f"At table {limits.table}, {problem} (JD-2)."}
    return {}


def _mark_approved(change: TableLimits | PaytableVersion, by: User) -> None:
    change.status = ChangeStatus.APPROVED
    change.approved_by = by
    change.approved_at = timezone.now()
    change.save(update_fields=["status", "approved_by", "approved_at"])


def set_table_status(table: Table, *, status: str, by: User, reason: str) -> Table:
    if status == TableStatus.OPEN and table.active_limits() is None:
        raise ChangeRefused({"status": "A table opens only once its limits are approved."})
    with pghistory.context(user=by.pk, reason=reason), transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        table.status = status
        table.save(update_fields=["status"])
    return table
