"""The audit room's screens: the rounds and pots of every game with their totals, the
gaming-day report with its chart, the ledger drilled down from the trial balance to an account,
its entries, a transaction and its round (balances as of a chosen gaming day), and RTP
observations started on demand. Each view has its CSV, whose file name says the filter and the
day it was made.

Auditors and pit staff read; only who may start an RTP run starts an observation.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any
from uuid import UUID

from celery.result import AsyncResult
from django.conf import settings
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from casino import charts
from casino.csv_export import csv_response
from casino.reports_database import reports_source, said
from games.joker_draw.tasks import observe_rtp
from games.staff.audit_forms import (
    GamingDayForm,
    LedgerAsOfForm,
    RoundReviewForm,
    current_gaming_day,
)
from games.staff.review import (
    ReviewedRound,
    account_entries,
    accounts_as_of,
    review,
    reviewed_rounds,
    round_of,
    total_money,
    transaction_entries,
    trial_balance_as_of,
)
from games.staff.views import READ_LEDGER, READ_ROUNDS, READ_RTP, REVIEW_PAYOUTS, requires
from games.tables import gaming_day
from payouts.models import Account, LedgerTransaction

ROUNDS_PER_PAGE = 50
ENTRIES_PER_PAGE = 100
START_RTP_RUNS = "payouts.add_rtprun"
READ_REPORTS = (*READ_ROUNDS, *READ_LEDGER)


def csv_name(what: str, filters: Iterable[str] = ()) -> str:
    """``what``, the filters set and the day the file was made: a name that says what it holds."""
    parts = [what, *filters, f"made-{timezone.localdate().isoformat()}"]
    return "_".join(slugify(part) for part in parts if part) + ".csv"


def _bad_filters(form: Any) -> HttpResponse:
    errors = "; ".join(f"{field}: {' '.join(map(str, e))}" for field, e in form.errors.items())
    return HttpResponse(errors, status=400, content_type="text/plain; charset=utf-8")


# The rounds and pots of every game ----------------------------------------------------------


@require_GET
@requires(REVIEW_PAYOUTS, *READ_ROUNDS)
def rounds_review(request: HttpRequest) -> HttpResponse:
    form = RoundReviewForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        return render(request, "staff/rounds_review.html", {"form": form}, status=400)
    source = reports_source()
    rounds = reviewed_rounds(**(form.filters() if form.is_bound else {}), using=source.alias)
    page = Paginator(rounds, ROUNDS_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": form,
        "page": page,
        "rows": review(list(page.object_list), using=source.alias),
        "totals": total_money(rounds),
        "query": query.urlencode(),
        "csv_url": f"{reverse('staff:rounds-review-csv')}?{query.urlencode()}",
        "reports_source": source,
    }
    return said(render(request, "staff/rounds_review.html", context), source)


ROUND_CSV_COLUMNS = (
    "round", "game", "table", "currency", "status", "settled_at", "players", "staked", "paid",
    "house_result", "rake", "winners",
)  # fmt: skip


def round_csv_row(row: ReviewedRound) -> list[object]:
    r = row.round
    winners = "; ".join(f"{w.what} {w.player} {w.amount} {w.hand}".strip() for w in row.winners)
    return [
        row.number, r.table.game, r.table.name, r.table.currency, r.status,
        r.settled_at.isoformat() if r.settled_at else "", " ".join(row.players),
        row.money.staked, row.money.paid, row.money.house, row.money.rake, winners,
    ]  # fmt: skip


def reviewed_rows(rounds: Any) -> Iterable[ReviewedRound]:
    """The rounds reviewed a few hundred at a time, for a streamed export, on their database."""
    chunk: list[Any] = []
    for round_ in rounds.iterator(chunk_size=500):
        chunk.append(round_)
        if len(chunk) == 500:
            yield from review(chunk, using=rounds.db)
            chunk = []
    yield from review(chunk, using=rounds.db)


@require_GET
@requires(REVIEW_PAYOUTS, *READ_ROUNDS)
def rounds_review_csv(request: HttpRequest) -> HttpResponseBase:
    form = RoundReviewForm(request.GET)
    if not form.is_valid():
        return _bad_filters(form)
    source = reports_source()
    rows = reviewed_rows(reviewed_rounds(**form.filters(), using=source.alias))
    return said(
        csv_response(
            csv_name("rounds", form.describe()), ROUND_CSV_COLUMNS, map(round_csv_row, rows)
        ),
        source,
    )


# The gaming-day report ----------------------------------------------------------------------


@require_GET
@requires(*READ_REPORTS)
def gaming_day_report(request: HttpRequest) -> HttpResponse:
    # Without a day asked for, the current one, shown in the form.
    form = GamingDayForm(request.GET or {"date": current_gaming_day().isoformat()})
    if not form.is_valid():
        return render(request, "staff/gaming_day.html", {"form": form}, status=400)
    day: date = form.cleaned_data["date"]
    source = reports_source()
    report = gaming_day.report(day, using=source.alias)
    periods = [
        (period, gaming_day.PERIOD_LABELS[period], report[period]) for period in gaming_day.Period
    ]
    query = f"date={day.isoformat()}"
    context = {
        "form": form,
        "day": day,
        "periods": periods,
        "csv_url": f"{reverse('staff:gaming-day-csv')}?{query}",
        "chart_url": f"{reverse('staff:gaming-day-chart')}?{query}",
        "min_rounds": settings.GAMING_DAY_MIN_ROUNDS,
        "starts_at": settings.GAMING_DAY_STARTS_AT,
        "time_zone": settings.CASINO_TIME_ZONE,
        "reports_source": source,
    }
    return said(render(request, "staff/gaming_day.html", context), source)


@require_GET
@requires(*READ_REPORTS)
def gaming_day_csv(request: HttpRequest) -> HttpResponseBase:
    form = GamingDayForm(request.GET)
    if not form.is_valid():
        return _bad_filters(form)
    first, last = form.cleaned_data["date"], form.cleaned_data["to"]
    source = reports_source()
    rows = gaming_day.daily_rows(first, last, using=source.alias)
    name = csv_name("gaming-day", [first.isoformat(), last.isoformat()])
    return said(csv_response(name, gaming_day.CSV_COLUMNS, map(gaming_day.csv_row, rows)), source)


@require_GET
@requires(*READ_REPORTS)
def gaming_day_chart(request: HttpRequest) -> HttpResponse:
    """Each table's hold over the gaming day beside its expected interval and its theoretical
    hold; a peer table's hold is its rake. One gaming day, as the page shows it: a column per
    table and day of a year would keep a web worker drawing for minutes."""
    form = GamingDayForm(request.GET)
    if not form.is_valid():
        return _bad_filters(form)
    day = form.cleaned_data["date"]
    source = reports_source()
    rows = gaming_day.daily_rows(day, day, using=source.alias)
    return said(HttpResponse(hold_chart_png(rows), content_type="image/png"), source)


def hold_chart_png(rows: list[gaming_day.GamingDayRow]) -> bytes:
    figure = charts.figure(max(6.0, 1.3 * len(rows) + 2), 4.5)
    axes = figure.subplots()
    for position, row in enumerate(rows):
        hold = row.hold_percent
        if hold is None:
            continue
        outside = row.flag == gaming_day.Flag.OUTSIDE
        axes.bar([position], [float(hold)], color="#b00020" if outside else "#1f4e9c", width=0.5)
        if row.expected_hold is not None:
            low, high = row.expected_hold
            axes.vlines(position, float(low), float(high), color="#0a6b2b", linewidth=3)
        if row.theoretical_win is not None and row.handle:
            expected = float(row.theoretical_win / row.handle * 100)
            axes.plot([position - 0.3, position + 0.3], [expected] * 2, color="#0a6b2b")
    axes.set_xticks(
        range(len(rows)), [f"{r.gaming_day}\n{r.table} {r.currency}" for r in rows], fontsize=8
    )
    axes.set_xlim(-0.7, max(len(rows), 1) - 0.3)
    axes.set_ylabel(_("Hold %"))
    axes.set_title(_("Hold per table and gaming day; green: the expected 95% interval"))
    return charts.png(figure)


# The ledger, drilled down -------------------------------------------------------------------


@require_GET
@requires(*READ_LEDGER)
def ledger_accounts(request: HttpRequest) -> HttpResponse:
    form = LedgerAsOfForm(request.GET)
    if not form.is_valid():
        return render(request, "staff/ledger_accounts.html", {"form": form}, status=400)
    moment = form.moment()
    data = form.cleaned_data
    accounts = accounts_as_of(moment, currency=data["currency"], kind=data["kind"])
    page = Paginator(accounts, ENTRIES_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": form,
        "page": page,
        "query": query.urlencode(),
        "as_of": data["as_of"],
        "balances": trial_balance_as_of(moment),
        "csv_url": f"{reverse('staff:ledger-accounts-csv')}?{query.urlencode()}",
        "trial_csv_url": f"{reverse('staff:ledger-trial-balance-csv')}?{query.urlencode()}",
    }
    return render(request, "staff/ledger_accounts.html", context)


def _as_of_words(form: LedgerAsOfForm) -> list[str]:
    data = form.cleaned_data
    words = [data["currency"], data["kind"]]
    if data["as_of"]:
        words.append(f"as-of-{data['as_of'].isoformat()}")
    return words


@require_GET
@requires(*READ_LEDGER)
def trial_balance_csv(request: HttpRequest) -> HttpResponseBase:
    form = LedgerAsOfForm(request.GET)
    if not form.is_valid():
        return _bad_filters(form)
    rows = [[b.currency, b.kind, b.balance] for b in trial_balance_as_of(form.moment())]
    name = csv_name("trial-balance", _as_of_words(form))
    return csv_response(name, ("currency", "kind", "balance"), rows)


@require_GET
@requires(*READ_LEDGER)
def ledger_accounts_csv(request: HttpRequest) -> HttpResponseBase:
    form = LedgerAsOfForm(request.GET)
    if not form.is_valid():
        return _bad_filters(form)
    data = form.cleaned_data
    accounts = accounts_as_of(form.moment(), currency=data["currency"], kind=data["kind"])
    rows = (
        [a.pk, a.currency, a.kind, a.owner.username if a.owner else "", a.balance_then]  # type: ignore[attr-defined]
        for a in accounts.iterator(chunk_size=500)
    )
    name = csv_name("accounts", _as_of_words(form))
    return csv_response(name, ("account", "currency", "kind", "owner", "balance"), rows)


@require_GET
@requires(*READ_LEDGER)
def ledger_account(request: HttpRequest, pk: int) -> HttpResponse:
    account = get_object_or_404(Account.objects.select_related("owner"), pk=pk)
    form = LedgerAsOfForm(request.GET)
    if not form.is_valid():
        return render(request, "staff/ledger_account.html", {"form": form}, status=400)
    entries = account_entries(account, form.moment())
    page = Paginator(entries, ENTRIES_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": form,
        "account": account,
        "page": page,
        "query": query.urlencode(),
        "csv_url": f"{reverse('staff:ledger-account-csv', args=[pk])}?{query.urlencode()}",
    }
    return render(request, "staff/ledger_account.html", context)


ENTRY_CSV_COLUMNS = ("entry", "transaction", "kind", "reference", "reason", "created_at",
                     "amount", "balance_after")  # fmt: skip


@require_GET
@requires(*READ_LEDGER)
def ledger_account_csv(request: HttpRequest, pk: int) -> HttpResponseBase:
    account = get_object_or_404(Account, pk=pk)
    form = LedgerAsOfForm(request.GET)
    if not form.is_valid():
        return _bad_filters(form)
    rows = (
        [
            e.pk,
            e.transaction_id,
            e.transaction.kind,
            e.transaction.reference or "",
            e.transaction.reason,
            e.created_at.isoformat(),
            e.amount,
            e.balance_after,  # type: ignore[attr-defined]
        ]
        for e in account_entries(account, form.moment()).iterator(chunk_size=500)
    )
    name = csv_name(f"account-{pk}", _as_of_words(form))
    return csv_response(name, ENTRY_CSV_COLUMNS, rows)


@require_GET
@requires(*READ_LEDGER)
def ledger_transaction(request: HttpRequest, pk: int) -> HttpResponse:
    posted = get_object_or_404(LedgerTransaction.objects.select_related("created_by"), pk=pk)
    context = {
        "posted": posted,
        "entries": transaction_entries(posted),
        "round": round_of(posted),
        "may_read_rounds": request.user.has_perms(READ_ROUNDS),
    }
    return render(request, "staff/ledger_transaction.html", context)


@require_GET
@requires(*READ_LEDGER)
def ledger_transaction_csv(request: HttpRequest, pk: int) -> HttpResponseBase:
    posted = get_object_or_404(LedgerTransaction, pk=pk)
    rows = (
        [
            e.pk,
            e.account_id,
            e.account.kind,
            e.account.owner.username if e.account.owner else "",
            e.currency,
            e.amount,
        ]
        for e in transaction_entries(posted)
    )
    return csv_response(
        csv_name(f"transaction-{pk}"),
        ("entry", "account", "kind", "owner", "currency", "amount"),
        rows,
    )


# RTP observations on demand ------------------------------------------------------------------


@require_POST
@requires(START_RTP_RUNS, *READ_RTP)
def observe_rtp_now(request: HttpRequest) -> HttpResponse:
    """Measure actual against theoretical RTP now, on a worker; the page follows the task."""
    task = observe_rtp.delay()
    return redirect(f"{reverse('staff:rtp')}?task={task.id}")


@require_GET
@requires(*READ_RTP)
def observation_progress(request: HttpRequest, task_id: UUID) -> HttpResponse:
    """Where an on-demand observation is: waiting, running, done (with its alerts) or failed."""
    result = AsyncResult(str(task_id))
    context = {"state": result.state, "alerts": result.result if result.successful() else None}
    return render(request, "staff/_observation_progress.html", context)
