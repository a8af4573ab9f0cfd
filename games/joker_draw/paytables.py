"""The joker draw's paytables under maker-checker: a new version is proposed as a draft, and a
second staff member approves it only if it pays every table that uses it (JD-2, JD-14).

Every change runs inside a pghistory context carrying who did it and why, so the history the
database triggers record answers an auditor's "who, when, old, new, reason".
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING

import pghistory
from django.db import transaction
from django.utils.translation import gettext as _

from games.engine.joker_draw import NO_GAME_LINE, no_game_odds
from games.joker_draw.limits import (
    LIMIT_FIELDS,
    bet_stakes,
    bonus_stakes,
    hand_lines,
    unpayable_no_game,
    unpayable_stake,
)
from games.joker_draw.rtp_lab import band_problem, house_band
from games.models import TableLimits
from payouts import approvals
from payouts.approvals import ChangeRefused, ChangeStatus
from payouts.models import Paytable, PaytableCategory, PaytableKind, PaytableLine, PaytableVersion

if TYPE_CHECKING:
    from django.contrib.auth.models import User

NO_GAME_FIELD = f"lines.{NO_GAME_LINE}"


class NoGameUnpayable(ChangeRefused):
    """A no-game line that would pay some legal total ante a fraction of a cent (JD-2,
    JD-11a): refused with a code of its own, so an integrator knows which line to change."""

    code = "no_game_not_whole_cents"


def no_game_in_bonus(paytable: Paytable, lines: Mapping[str, Fraction]) -> dict[str, str]:
    """Only a bet paytable has a no-game line (JD-11a)."""
    if paytable.kind == PaytableKind.BONUS and NO_GAME_LINE in lines:
        return {
            NO_GAME_FIELD: _(
                "The no-game line belongs to a bet paytable only: the BONUS is paid on the "
                "first five cards, whatever the dealer holds (JD-11a, JD-13)."
            )
        }
    return {}


def unpayable_no_game_line(paytable: Paytable, lines: Mapping[str, Fraction]) -> dict[str, str]:
    """The bet paytable's no-game odds must pay a whole cent on every total ante (A, 2A, 3A)
    of every table that uses the paytable (JD-2, JD-11a); a version without the line pays the
    source's 2:3."""
    if paytable.kind != PaytableKind.BET:
        return {}
    tables_limits = TableLimits.objects.filter(status=ChangeStatus.APPROVED, bet_paytable=paytable)
    for limits in tables_limits.select_related("table"):
        values = {name: getattr(limits, name) for name in LIMIT_FIELDS}
        problem = unpayable_no_game(values, no_game_odds(lines))
        if problem:
            return {
                NO_GAME_FIELD: _("At table %(table)s, %(problem)s (JD-2, JD-11a).")
                % {"table": limits.table, "problem": problem}
            }
    return {}


def propose_paytable_version(
    *, paytable: Paytable, lines: dict[str, Fraction], reason: str, by: User | None
) -> PaytableVersion:
    errors: dict[str, str] = {}
    if not lines:
        errors["lines"] = _("A paytable version needs at least one line (JD-14).")
    for category, odds in lines.items():
        if category not in PaytableCategory.values:
            errors[f"lines.{category}"] = _("%(category)r is not a hand category (JD-14).") % {
                "category": category
            }
        elif odds <= 0:
            errors[f"lines.{category}"] = _("Odds must be above zero (JD-14).")
    if not (reason or "").strip():
        errors["reason"] = _("Say why the paytable changes.")
    errors.update(no_game_in_bonus(paytable, lines))
    if errors:
        raise ChangeRefused(errors)
    unpayable = unpayable_no_game_line(paytable, lines)
    if unpayable:
        raise NoGameUnpayable(unpayable)
    with pghistory.context(user=getattr(by, "pk", None), reason=reason), transaction.atomic():
        Paytable.objects.select_for_update().get(pk=paytable.pk)
        last = paytable.versions.order_by("-number").values_list("number", flat=True).first() or 0
        version = PaytableVersion.objects.create(
            paytable=paytable, number=last + 1, reason=reason.strip(), proposed_by=by
        )
        PaytableLine.objects.bulk_create(
            PaytableLine(
                version=version,
                category=category,
                odds_numerator=odds.numerator,
                odds_denominator=odds.denominator,
            )
            for category, odds in lines.items()
        )
    return version


def approve_paytable_version(version: PaytableVersion, *, by: User) -> PaytableVersion:
    """Approve a draft paytable version: by a second staff member, and only if every table
    that uses the paytable would still pay every legal stake in whole cents (JD-2, JD-14)."""
    # Lock order: the paytable and the version, then the lines. Every write of a line takes its
    # version's row FOR SHARE first (the trigger ``approved_paytable_lines_are_frozen``), so no
    # line changes between this lock and the commit: what is priced is approved.
    locked = PaytableVersion.objects.select_for_update().select_related("paytable")
    return approvals.approve(version, by=by, locked=locked, problems=_paytable_problems)


def _paytable_problems(version: PaytableVersion) -> ChangeRefused | None:
    unpayable = unpayable_no_game_line(version.paytable, version.odds())
    if unpayable:
        return NoGameUnpayable(unpayable)
    content = _paytable_fits_its_tables(version) or _paytable_rtp_problem(version)
    return ChangeRefused(content) if content else None


def _paytable_rtp_problem(version: PaytableVersion) -> dict[str, str]:
    """The version's computed RTP must lie in the band of every table that uses the paytable,
    or in the house band when none does yet (JD-14)."""
    kind = version.paytable.kind
    bands = [
        (_("table %(table)s") % {"table": limits.table}, low, high)
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
    stakes_of = bet_stakes if bet else bonus_stakes
    field = "bet_paytable" if bet else "bonus_paytable"
    odds = version.odds()
    no_game = no_game_in_bonus(version.paytable, odds)
    if no_game:
        return no_game
    tables_limits = TableLimits.objects.filter(
        status=ChangeStatus.APPROVED, **{field: version.paytable}
    )
    for limits in tables_limits.select_related("table"):
        values = {name: getattr(limits, name) for name in LIMIT_FIELDS}
        problem = unpayable_stake(stakes_of(values), hand_lines(odds))
        if problem:
            return {
                "lines": _("At table %(table)s, %(problem)s (JD-2).")
                % {"table": limits.table, "problem": problem}
            }
    return {}
