"""Table configuration services: limits under maker-checker, opening and closing.

Every change runs inside a pghistory context carrying who did it and why, so the history the
database triggers record answers an auditor's "who, when, old, new, reason".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pghistory
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from casino.refusals import Kind
from games.models import Table, TableLimits, TableStatus
from games.tables import live
from games.tables.limits import validate_limits
from games.tables.table_game import all_games, game_of
from payouts import approvals
from payouts.approvals import ChangeRefused
from payouts.models import Currency

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def create_table(*, name: str, game: str, currency: str, by: User, reason: str) -> Table:
    """A new table starts closed: it opens only once a second staff member approved its limits."""
    name, reason = (name or "").strip(), (reason or "").strip()
    errors = {}
    if not name:
        errors["name"] = _("Name the table.")
    elif len(name) > Table._meta.get_field("name").max_length:  # type: ignore[operator]
        errors["name"] = _("A table's name is at most 80 characters.")
    elif Table.objects.filter(name=name).exists():
        errors["name"] = _("There is a table called %(name)s already.") % {"name": name}
    if game not in {registered.code for registered in all_games()}:
        errors["game"] = _("%(game)s is not a game of the house.") % {"game": game}
    if currency not in Currency.values:
        errors["currency"] = _("%(currency)s is not a currency of the ledger.") % {
            "currency": currency
        }
    if not reason:
        errors["reason"] = _("Say why the table is created (kept in its history).")
    if errors:
        raise ChangeRefused(errors)
    try:
        with pghistory.context(user=by.pk, reason=reason), transaction.atomic():
            return Table.objects.create(name=name, game=game, currency=currency)
    except IntegrityError:  # created by someone else since the check above
        raise ChangeRefused(
            {"name": _("There is a table called %(name)s already.") % {"name": name}}
        ) from None


def propose_limits(
    *, table: Table, values: Mapping[str, Any], reason: str, by: User | None
) -> TableLimits:
    fields = game_of(table.game).limit_fields
    errors = validate_limits(table.game, values)
    if not (reason or "").strip():
        errors["reason"] = _("Say why the limits change.")
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
    locked = TableLimits.objects.select_for_update().select_related("table")
    return approvals.approve(limits, by=by, locked=locked, problems=_limits_problems)


def _limits_problems(limits: TableLimits) -> ChangeRefused | None:
    values = {name: getattr(limits, name) for name in game_of(limits.table.game).limit_fields}
    errors = validate_limits(limits.table.game, values)
    return ChangeRefused(errors) if errors else None


class PlayersSeated(ChangeRefused):
    """A table with players seated is closed only "after this hand" (``cash_out_seated``),
    which cashes them out: the refusal lists them, so pit staff know whom the close moves."""

    code = "players_seated"
    kind = Kind.CONFLICT

    def __init__(self, seated: list[str]) -> None:
        super().__init__(
            {
                "status": _(
                    "Players are seated: %(players)s. Close after this hand to cash them out, "
                    "or wait until they leave."
                )
                % {"players": ", ".join(seated)}
            }
        )
        self.seated = seated


def set_table_status(
    table: Table, *, status: str, by: User, reason: str, cash_out_seated: bool = False
) -> Table:
    """Open or close the table, saying why: the reason is shown to its players and kept with
    who and when in the table's history. A peer table with players seated closes only with
    ``cash_out_seated`` ("close after this hand"): no new hand is dealt, the hand in play is
    played out, then every seat is cashed out. A closed banked table opens no new rounds and
    lets those in play finish (or time out)."""
    reason = (reason or "").strip()
    if not reason:
        raise ChangeRefused({"reason": _("Say why the table opens or closes.")})
    if status == TableStatus.OPEN and table.active_limits() is None:
        raise ChangeRefused({"status": _("A table opens only once its limits are approved.")})
    game = game_of(table.game)
    with pghistory.context(user=by.pk, reason=reason), transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        closing = status == TableStatus.CLOSED
        seated = game.seated(table) if closing else []
        if seated and not cash_out_seated:
            raise PlayersSeated(seated)
        table.status = status
        table.status_reason = reason
        table.status_changed_at = timezone.now()
        table.save(update_fields=["status", "status_reason", "status_changed_at"])
        if closing:
            game.cash_out_closed(table)
        live.table_changed(table.pk)
    return table
