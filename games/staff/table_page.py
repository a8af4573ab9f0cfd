"""A table's staff page: its state, the next step of its lifecycle, its limits' versions and its
history. The page itself and a refused change of its status (which comes back to it with the
errors next to the field) both render it."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games.models import Table, TableStatus
from games.staff.forms import TableStatusForm
from games.tables.history import table_history
from payouts.approvals import ChangeStatus


def next_step(table: Table) -> str:
    """What the table needs next, in the order a new table goes: limits proposed, approved by a
    second person, the table opened; ``running`` once it is open."""
    if table.active_limits() is None:
        drafts = table.limits_versions.filter(status=ChangeStatus.DRAFT)
        return "approve_limits" if drafts.exists() else "propose_limits"
    return "open" if table.status == TableStatus.CLOSED else "running"


def render_table_page(
    request: HttpRequest,
    table: Table,
    status_form: TableStatusForm | None = None,
    *,
    status: int = 200,
) -> HttpResponse:
    versions = table.limits_versions.select_related("proposed_by", "approved_by").order_by(
        "-number"
    )
    to_status = TableStatus.OPEN if table.status == TableStatus.CLOSED else TableStatus.CLOSED
    context = {
        "table": table,
        "step": next_step(table),
        "versions": versions,
        "drafts": [v for v in versions if v.status == ChangeStatus.DRAFT],
        "status_form": status_form or TableStatusForm(initial={"status": to_status}),
        "to_status": to_status,
        "history": table_history(table),
    }
    return render(request, "staff/table.html", context, status=status)
