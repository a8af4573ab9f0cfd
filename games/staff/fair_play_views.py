"""The fair-play report (``/staff/fair-play/``): auditors and pit staff read the collusion
signals of every pair over a period, with its CSV; auditors store alerts now ("Run now", the
nightly check's work for the period shown) and mark an alert reviewed with a note."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_POST

from casino.csv_export import csv_response
from casino.http.errors import status_of
from casino.http.permissions import acting_user
from casino.reports_database import reports_source, said
from games.models import CollusionAlert
from games.peer import alerts
from games.peer.collusion import PairSignals, Signal
from games.staff.audit_views import _bad_filters, csv_name
from games.staff.fair_play import (
    CSV_COLUMNS,
    FairPlayForm,
    HandLink,
    behind,
    csv_row,
    hand_links,
    open_alerts,
    recent_reviews,
    report,
)
from games.staff.views import READ_ROUNDS, requires
from games.tables.rounds import RoundRefused

READ_FAIR_PLAY = ("games.view_collusionalert", *READ_ROUNDS)
REVIEW_ALERTS = "games.review_collusionalert"
PAIRS_SHOWN = 200

SIGNAL_NAMES: dict[str, Promise] = {
    "chip_flow": gettext_lazy("Chip flow"),
    "soft_play": gettext_lazy("Soft play"),
    "strong_folds": gettext_lazy("Strong hands folded"),
}


@dataclass(frozen=True)
class SignalRow:
    name: str
    label: Promise
    signal: Signal
    player: str | None
    hands: list[HandLink]


@dataclass(frozen=True)
class PairRow:
    pair: PairSignals
    signals: list[SignalRow]


def _row(pair: PairSignals) -> PairRow:
    names = {pair.first.pk: pair.first.username, pair.second.pk: pair.second.username}
    return PairRow(
        pair,
        [
            SignalRow(
                name,
                label,
                signal,
                names.get(signal.player) if signal.player is not None else None,
                hand_links(behind(pair, signal)),
            )
            for name, label in SIGNAL_NAMES.items()
            if (signal := getattr(pair, name)) is not None
        ],
    )


def _period_query(form: FairPlayForm) -> str:
    first, last = form.days()
    return urlencode({"from": first.isoformat(), "to": last.isoformat()})


@require_GET
@requires(*READ_FAIR_PLAY)
def fair_play(request: HttpRequest) -> HttpResponse:
    return _page(request, FairPlayForm(request.GET))


def _page(
    request: HttpRequest,
    form: FairPlayForm,
    *,
    refusal: RoundRefused | None = None,
    alert_id: int | None = None,
) -> HttpResponse:
    """The report; a refused review is shown at its alert, with the refusal's status."""
    context: dict[str, object] = {
        "form": form,
        "threshold": settings.COLLUSION_ALERT_SCORE,
        "alerts": open_alerts(),
        "reviewed": recent_reviews(),
        "refusal": refusal,
        "refused_alert": alert_id,
    }
    if not form.is_valid():
        return render(request, "staff/fair_play.html", context, status=400)
    # The alerts above are the primary's, as a review changes them; the pairs are the report's.
    source = reports_source()
    pairs = report(form, using=source.alias)
    query = _period_query(form)
    context |= {
        "reports_source": source,
        "rows": [_row(pair) for pair in pairs[:PAIRS_SHOWN]],
        "pairs_count": len(pairs),
        "flagged_count": sum(pair.flagged for pair in pairs),
        "query": query,
        "csv_url": f"{reverse('staff:fair-play-csv')}?{query}",
    }
    page = render(
        request, "staff/fair_play.html", context, status=status_of(refusal) if refusal else 200
    )
    return said(page, source)


@require_GET
@requires(*READ_FAIR_PLAY)
def fair_play_csv(request: HttpRequest) -> HttpResponseBase:
    form = FairPlayForm(request.GET)
    if not form.is_valid():
        return _bad_filters(form)
    first, last = form.days()
    source = reports_source()
    name = csv_name("fair-play", [f"from-{first}", f"to-{last}"])
    return said(
        csv_response(name, CSV_COLUMNS, map(csv_row, report(form, using=source.alias))), source
    )


@require_POST
@requires(*READ_FAIR_PLAY, REVIEW_ALERTS)
def run_now(request: HttpRequest) -> HttpResponse:
    """The nightly check's work now, for the period shown."""
    form = FairPlayForm(request.POST)
    if not form.is_valid():
        return _bad_filters(form)
    start, end = form.bounds()
    raised = len(alerts.raise_alerts(start=start, end=end))
    messages.success(
        request,
        ngettext("%(count)s alert raised.", "%(count)s alerts raised.", raised) % {"count": raised},
    )
    return redirect(f"{reverse('staff:fair-play')}?{_period_query(form)}")


@require_POST
@requires(*READ_FAIR_PLAY, REVIEW_ALERTS)
def review(request: HttpRequest, pk: int) -> HttpResponse:
    alert = get_object_or_404(CollusionAlert, pk=pk)
    try:
        alerts.review_alert(
            alert_id=alert.pk, by=acting_user(request), note=request.POST.get("note", "")
        )
    except RoundRefused as refused:
        return _page(request, FairPlayForm({}), refusal=refused, alert_id=alert.pk)
    messages.success(request, _("Alert on %(pair)s marked reviewed.") % {"pair": alert})
    return redirect(reverse("staff:fair-play"))
