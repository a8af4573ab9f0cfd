"""The pit's table lifecycle and paytable review in /staff/: create a table, lead on to its limits,
their approval by a second person and the opening; a table's page with its history; a paytable
version beside the version in force, with its RTP computed on the workers and a progress bar.

Views stay thin: reads go through the selectors, changes through the services, whose refusals
are shown next to the field they name.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from casino.http.permissions import acting_user
from games.joker_draw import rtp_lab
from games.joker_draw.paytable_selectors import (
    latest_run,
    lines_in_rank_order,
    paytable_diff,
    rtp_progress,
)
from games.joker_draw.tasks import dispatch_rtp_run
from games.models import Table
from games.staff.forms import add_refusal
from games.staff.pit_forms import CreateTableForm
from games.staff.table_page import render_table_page
from games.staff.views import (
    APPROVE_PAYTABLES,
    PROPOSE_PAYTABLES,
    READ_RTP,
    RUN_THE_PIT,
    requires,
)
from games.tables import services as table_services
from games.tables.history import paytable_history
from payouts.approvals import ChangeRefused, ChangeStatus
from payouts.models import Paytable, PaytableVersion, RtpRun

START_RTP_RUNS = "payouts.add_rtprun"


# Tables: create, the guided page, history --------------------------------------------------------


@require_http_methods(["GET", "POST"])
@requires(RUN_THE_PIT, "games.add_table")
def create_table(request: HttpRequest) -> HttpResponse:
    form = CreateTableForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        try:
            table = table_services.create_table(**form.cleaned_data, by=acting_user(request))
        except ChangeRefused as refused:
            add_refusal(form, refused.errors)
        else:
            messages.success(
                request,
                _("%(table)s is created, closed. Next: propose its limits.") % {"table": table},
            )
            return redirect("staff:propose-limits", pk=table.pk)
    status = 400 if form.is_bound else 200
    return render(request, "staff/create_table.html", {"form": form}, status=status)


@require_GET
@requires(RUN_THE_PIT)
def table_page(request: HttpRequest, pk: int) -> HttpResponse:
    return render_table_page(request, get_object_or_404(Table, pk=pk))


# Paytables: a version beside the version in force, its RTP, its history ------------------------


@require_GET
@requires(PROPOSE_PAYTABLES)
def paytable_version(request: HttpRequest, pk: int) -> HttpResponse:
    version = get_object_or_404(PaytableVersion.objects.select_related("paytable"), pk=pk)
    return _version_page(request, version)


def _version_page(
    request: HttpRequest, version: PaytableVersion, refusal: str = "", status: int = 200
) -> HttpResponse:
    run = latest_run(version)
    context = {
        "version": version,
        "diff": paytable_diff(version),
        "lines": lines_in_rank_order(version),
        "progress": rtp_progress(run) if run is not None else None,
        "may_approve": version.status == ChangeStatus.DRAFT
        and request.user.has_perm(APPROVE_PAYTABLES),
        "may_compute": request.user.has_perm(START_RTP_RUNS),
        "rtp_refusal": refusal,
    }
    return render(request, "staff/paytable_version.html", context, status=status)


@require_POST
@requires(PROPOSE_PAYTABLES, START_RTP_RUNS)
def compute_rtp(request: HttpRequest, pk: int) -> HttpResponse:
    """Start an RTP run of the version's current lines on the workers (JD-14); the page then
    follows it with the progress endpoint."""
    version = get_object_or_404(PaytableVersion.objects.select_related("paytable"), pk=pk)
    try:
        run = rtp_lab.start_approval_run(
            version, by=acting_user(request), dispatch=dispatch_rtp_run
        )
    except rtp_lab.RtpRefused as refused:
        return _version_page(request, version, str(refused), status=400)
    messages.success(
        request,
        _("RTP run %(run)s started: %(rounds)s rounds on the workers.")
        % {"run": run.pk, "rounds": run.rounds},
    )
    return redirect("staff:paytable-version", pk=version.pk)


@require_GET
@requires(*READ_RTP)
def rtp_run_progress(request: HttpRequest, pk: int) -> JsonResponse:
    """How far a run has come, for the progress bar (read from the stored chunks)."""
    progress = rtp_progress(get_object_or_404(RtpRun, pk=pk))
    return JsonResponse(
        {
            "run": progress.run.pk,
            "status": progress.run.status,
            "chunks_done": progress.chunks_done,
            "chunks": progress.chunks,
            "percent": progress.percent,
            "rtp": progress.rtp,
            "error": progress.error,
        }
    )


@require_GET
@requires(PROPOSE_PAYTABLES)
def paytable_history_page(request: HttpRequest, pk: int) -> HttpResponse:
    paytable = get_object_or_404(Paytable, pk=pk)
    context = {"paytable": paytable, "history": paytable_history(paytable)}
    return render(request, "staff/paytable_history.html", context)
