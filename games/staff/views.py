"""The pit staff's screens (the live tables, opening and closing, voiding a round, limits and
paytables) and the auditors' (payouts review with its CSV export, round detail with the
replay check, ledger reconciliation).

Views stay thin: reads go through the selectors, every change through the services, whose
refusals are shown on the form that caused them (a 4xx naming the field and the rule).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from functools import wraps
from typing import Any

from celery.result import AsyncResult
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db import DEFAULT_DB_ALIAS
from django.db.models import F, Sum
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy
from django.views.decorators.http import require_GET, require_POST

from casino.csv_export import csv_response
from casino.http.errors import status_of
from casino.http.permissions import acting_user
from casino.reports_database import reports_source, said
from games.engine import fairness
from games.engine.cards import parse_cards
from games.engine.hands import evaluate
from games.engine.joker_draw import BoxStatus
from games.joker_draw import corrections
from games.joker_draw.box_play import round_decisions
from games.joker_draw.paytable_selectors import lines_in_rank_order
from games.joker_draw.paytables import approve_paytable_version, propose_paytable_version
from games.joker_draw.rtp_lab import rtp_comparison_png
from games.joker_draw.selectors import (
    approved_corrections,
    box_settlements,
    latest_rtp_observations,
    rtp_alerts,
)
from games.models import (
    BoxSettlement,
    Round,
    RoundStatus,
    SettlementCorrection,
    Table,
    TableLimits,
)
from games.peer.selectors import shown_server_seed
from games.staff.forms import (
    CorrectionForm,
    PayoutFilterForm,
    PaytableVersionForm,
    TableStatusForm,
    VoidForm,
    add_refusal,
    limits_form,
)
from games.staff.table_page import render_table_page
from games.tables import services as table_services
from games.tables.hand_names import hand_name
from games.tables.history import label_of
from games.tables.replay import replay_round
from games.tables.selectors import (
    holdings,
    live_tables,
    round_ledger_entries,
    top_payout,
)
from games.tables.table_game import game_of
from games.tables.voids import void_round
from payouts import approvals
from payouts.approvals import ChangeRefused, ChangeStatus
from payouts.models import CENT, AccountKind, Paytable, PaytableVersion
from payouts.selectors import (
    bankrolls,
    check_ledger,
    ledger_snapshot,
    recent_ledger_reports,
    trial_balance,
)

# What each screen needs, from the roles' permissions (casino.roles).
RUN_THE_PIT = "games.open_close_table"
VOID_ROUNDS = "games.void_round"
PROPOSE_LIMITS, APPROVE_LIMITS = "games.add_tablelimits", "games.approve_tablelimits"
PROPOSE_CORRECTIONS = "games.add_settlementcorrection"
APPROVE_CORRECTIONS = "games.approve_settlementcorrection"
PROPOSE_PAYTABLES = "payouts.add_paytableversion"
APPROVE_PAYTABLES = "payouts.approve_paytableversion"
REVIEW_PAYOUTS = "games.view_boxsettlement"
READ_ROUNDS = ("games.view_round", "games.view_roundevent")
READ_BOX_PLAY = "games.view_boxplay"
READ_LEDGER = ("payouts.view_account", "payouts.view_ledgerentry")

PAYOUTS_PER_PAGE = 50
ZERO = Decimal("0.00")
View = Callable[..., HttpResponseBase]


def requires(*perms: str) -> Callable[[View], View]:
    """Anonymous visitors are sent to sign in; signed-in users without the permissions get 403."""

    def decorate(view: View) -> View:
        @wraps(view)
        @login_required
        def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if not request.user.has_perms(perms):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return guarded

    return decorate


# The pit: live tables, open and close, void -----------------------------------------------------


@require_GET
@requires(RUN_THE_PIT)
def live(request: HttpRequest) -> HttpResponse:
    return render(request, "staff/live.html", _live_context())


@require_GET
@requires(RUN_THE_PIT)
def live_fragment(request: HttpRequest) -> HttpResponse:
    """The tables and the bankroll alone, which the live page fetches every few seconds and
    swaps in."""
    return render(request, "staff/_live_tables.html", _live_context())


@require_POST
@requires(RUN_THE_PIT)
def table_status(request: HttpRequest, pk: int) -> HttpResponse:
    table = get_object_or_404(Table, pk=pk)
    form = TableStatusForm(request.POST)
    if form.is_valid():
        try:
            table_services.set_table_status(
                table,
                status=form.cleaned_data["status"],
                by=acting_user(request),
                reason=form.cleaned_data["reason"],
                cash_out_seated=form.cleaned_data["cash_out_seated"],
            )
        except ChangeRefused as refused:
            add_refusal(form, refused.errors)
        else:
            table.refresh_from_db()
            messages.success(
                request,
                _("%(table)s is %(status)s.")
                % {"table": table, "status": table.get_status_display()},
            )
            return redirect("staff:table", pk=table.pk)
    # The refusal next to the field it concerns, on the table's page (the live page refreshes).
    return render_table_page(request, table, form, status=400)


def _live_context() -> dict[str, Any]:
    houses = bankrolls()  # one read for the bankroll table and the tables' top payouts
    return {
        "tables": live_tables(houses),
        "bankrolls": houses.values(),
        "holdings": holdings(houses),
        "alert_percent": settings.BANKROLL_ALERT_PERCENT,
    }


@require_POST
@requires(VOID_ROUNDS, *READ_ROUNDS)
def void(request: HttpRequest, pk: int) -> HttpResponse:
    round_ = get_object_or_404(Round, pk=pk)
    form = VoidForm(request.POST)
    if form.is_valid():
        try:
            void_round(round_, by=acting_user(request), reason=form.cleaned_data["reason"])
        except ChangeRefused as refused:
            add_refusal(form, refused.errors)
            return _round_page(request, round_, form, status=status_of(refused))
        messages.success(
            request, _("%(round)s is voided; its stakes are returned.") % {"round": round_}
        )
        return redirect("staff:round", pk=round_.pk)
    return _round_page(request, round_, form, status=400)


@require_POST
@requires(PROPOSE_CORRECTIONS, *READ_ROUNDS)
def propose_correction(request: HttpRequest, pk: int) -> HttpResponse:
    round_ = get_object_or_404(Round, pk=pk)
    form = _correction_form(round_, request.POST)
    if form.is_valid():
        try:
            corrections.propose_correction(
                round_,
                amounts=form.amounts(),
                reason=form.cleaned_data["reason"],
                by=acting_user(request),
            )
        except ChangeRefused as refused:
            add_refusal(form, refused.errors)
        else:
            messages.success(
                request, _("The correction is proposed; another staff member approves it.")
            )
            return redirect("staff:round", pk=round_.pk)
    return _round_page(request, round_, VoidForm(), correction_form=form, status=400)


@require_POST
@requires(APPROVE_CORRECTIONS, *READ_ROUNDS)
def approve_correction(request: HttpRequest, pk: int) -> HttpResponse:
    correction = get_object_or_404(SettlementCorrection.objects.select_related("round"), pk=pk)
    try:
        corrections.approve_correction(correction, by=acting_user(request))
    except ChangeRefused as refused:
        return _correction_refused(request, correction, refused)
    messages.success(
        request, _("Correction %(number)s is approved and posted.") % {"number": correction.pk}
    )
    return redirect("staff:round", pk=correction.round_id)


@require_POST
@requires(APPROVE_CORRECTIONS, *READ_ROUNDS)
def reject_correction(request: HttpRequest, pk: int) -> HttpResponse:
    correction = get_object_or_404(SettlementCorrection.objects.select_related("round"), pk=pk)
    refused = _reject(request, correction)
    if refused is not None:
        return _correction_refused(request, correction, refused)
    return redirect("staff:round", pk=correction.round_id)


def _correction_refused(
    request: HttpRequest, correction: SettlementCorrection, refused: ChangeRefused
) -> HttpResponse:
    return _round_page(
        request,
        correction.round,
        VoidForm(),
        refusal=_("correction %(number)s: %(refusal)s")
        % {"number": correction.pk, "refusal": refused},
        status=400,
    )


def _reject(request: HttpRequest, change: approvals.MakerCheckerChange) -> ChangeRefused | None:
    """Reject a draft with the comment the form sent (a second person's "no", or its proposer
    withdrawing it); the refusal, if any."""
    try:
        approvals.reject(change, by=acting_user(request), comment=request.POST.get("comment", ""))
    except ChangeRefused as refused:
        return refused
    messages.success(request, _("%(change)s rejected: it never takes effect.") % {"change": change})
    return None


def _correction_form(round_: Round, data: Any = None) -> CorrectionForm:
    boxes = round_.box_settlements.order_by("box").values_list("box", flat=True)
    return CorrectionForm(boxes, data)


# Round detail ----------------------------------------------------------------------------------


@require_GET
@requires(*READ_ROUNDS)
def round_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return _round_page(request, get_object_or_404(Round, pk=pk), VoidForm())


def _round_page(
    request: HttpRequest,
    round_: Round,
    void_form: VoidForm,
    *,
    correction_form: CorrectionForm | None = None,
    refusal: str = "",
    status: int = 200,
) -> HttpResponse:
    """The round's history, cards, payouts and ledger entries, and whether its replay and its
    commitment check out. A round still being played shows no cards and no seed (FS-7)."""
    round_ = Round.objects.select_related(
        "table",
        "player",
        "seed_pair",
        "bet_paytable_version__paytable",
        "bonus_paytable_version__paytable",
    ).get(pk=round_.pk)
    over = round_.status != RoundStatus.DECIDING
    # The house checks the commitment whoever looks; a peer hand's seed itself is shown to
    # auditors only (FS-7b).
    seed = round_.revealed_server_seed() if over else None
    settlements = _with_corrections(BoxSettlement.objects.filter(round=round_).order_by("box"))
    context = {
        "round": round_,
        "over": over,
        "server_seed": shown_server_seed(round_, request.user) if over else None,
        "seed_revealed": seed is not None,
        # The facts as JSON, as the hand history stores them.
        "events": [
            (event, json.dumps(event.data)) for event in round_.events.select_related("actor")
        ]
        if over
        else [],
        "settlements": settlements,
        "decisions": round_decisions(round_.pk) if request.user.has_perm(READ_BOX_PLAY) else [],
        "entries": round_ledger_entries(round_),
        "commitment_ok": seed is not None and fairness.commitment(seed) == round_.commitment,
        "replay": replay_round(round_) if round_.status == RoundStatus.SETTLED else None,
        "void_form": void_form,
        "may_void": round_.status == RoundStatus.DECIDING and request.user.has_perm(VOID_ROUNDS),
        "corrections": round_.corrections.select_related("proposed_by", "approved_by"),
        "correction_form": correction_form or CorrectionForm([box.box for box in settlements]),
        "may_correct": round_.status == RoundStatus.SETTLED
        and round_.player_id is not None
        and request.user.has_perm(PROPOSE_CORRECTIONS),
        "may_approve_corrections": request.user.has_perm(APPROVE_CORRECTIONS),
        "correction_refusal": refusal,
    }
    return render(request, "staff/round.html", context, status=status)


# Limits ----------------------------------------------------------------------------------------


@require_GET
@requires(PROPOSE_LIMITS)
def limits(request: HttpRequest) -> HttpResponse:
    return _limits_page(request)


def _limit_value(value: Any) -> Any:
    """A limit as the page shows it: a yes/no setting in words."""
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    return value


@require_POST
@requires(APPROVE_LIMITS)
def reject_limits(request: HttpRequest, pk: int) -> HttpResponse:
    draft = get_object_or_404(TableLimits, pk=pk)
    refused = _reject(request, draft)
    if refused is not None:
        return _limits_page(request, draft, refused.lines())
    return redirect("staff:table", pk=draft.table_id)


def _limits_page(
    request: HttpRequest, refused: TableLimits | None = None, errors: Iterable[str] = ()
) -> HttpResponse:
    drafts = TableLimits.objects.filter(status=ChangeStatus.DRAFT).select_related(
        "table", "proposed_by", "bet_paytable", "bonus_paytable"
    )
    houses = bankrolls()
    by_table: dict[int, list[TableLimits]] = {}
    for draft in drafts.order_by("table_id", "number"):
        by_table.setdefault(draft.table_id, []).append(draft)
    rows = []
    for table in Table.objects.order_by("game", "currency", "name"):
        # One column per version (in force, then the drafts), one row per limit of the game.
        in_force = table.active_limits()
        versions = ([in_force] if in_force else []) + by_table.get(table.pk, [])
        fields = [
            (label_of(name), [_limit_value(getattr(version, name)) for version in versions])
            for name in game_of(table.game).limit_fields
        ]
        rows.append(
            {
                "table": table,
                "versions": versions,
                "fields": fields,
                # A banked table's limits whose top payout the bankroll cannot cover are
                # flagged before anyone approves them (HB-1).
                "top_payouts": [
                    top_payout(game_of(table.game), version, houses) for version in versions
                ]
                if game_of(table.game).banked
                else None,
            }
        )
    context = {"rows": rows, "refused": refused, "errors": list(errors)}
    return render(request, "staff/limits.html", context, status=400 if refused else 200)


@requires(PROPOSE_LIMITS)
def propose_limits(request: HttpRequest, pk: int) -> HttpResponse:
    table = get_object_or_404(Table, pk=pk)
    form = limits_form(table, request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        values = {name: form.cleaned_data.get(name) for name in game_of(table.game).limit_fields}
        try:
            proposed = table_services.propose_limits(
                table=table,
                values=values,
                reason=form.cleaned_data["reason"],
                by=acting_user(request),
            )
        except ChangeRefused as refused:
            add_refusal(form, refused.errors)
        else:
            messages.success(
                request,
                _("%(draft)s proposed; another pit staff member approves it.")
                % {"draft": proposed},
            )
            return redirect("staff:table", pk=table.pk)
    status = 400 if form.is_bound else 200
    return render(
        request, "staff/propose_limits.html", {"table": table, "form": form}, status=status
    )


@require_POST
@requires(APPROVE_LIMITS)
def approve_limits(request: HttpRequest, pk: int) -> HttpResponse:
    draft = get_object_or_404(TableLimits, pk=pk)
    try:
        table_services.approve_limits(draft, by=acting_user(request))
    except ChangeRefused as refused:
        return _limits_page(request, draft, refused.lines())
    messages.success(request, _("%(draft)s approved: in force now.") % {"draft": draft})
    response = redirect("staff:table", pk=draft.table_id)
    top = top_payout(game_of(draft.table.game), draft, bankrolls())
    if top is not None and top.over_share:
        messages.warning(
            request,
            _(
                "A round at the top of %(limits)s would hold %(amount)s %(currency)s, more than "
                "the %(share)s %(currency)s one player may hold of the bankroll: such openings "
                "are refused (HB-2). Lower the BONUS maximum or raise the player's share."
            )
            % {
                "limits": draft,
                "amount": top.amount,
                "share": top.player_share,
                "currency": draft.table.currency,
            },
        )
    if top is not None and top.uncovered:
        messages.warning(
            request,
            _(
                "A round at the top of %(limits)s can pay %(amount)s %(currency)s, more than "
                "the house bankroll has available: such openings are refused (HB-1) until the "
                "bankroll is funded."
            )
            % {"limits": draft, "amount": top.amount, "currency": draft.table.currency},
        )
    return response


# Paytables -------------------------------------------------------------------------------------


@require_GET
@requires(PROPOSE_PAYTABLES)
def paytables(request: HttpRequest) -> HttpResponse:
    return _paytables_page(request)


def _paytables_page(
    request: HttpRequest, refused: PaytableVersion | None = None, errors: Iterable[str] = ()
) -> HttpResponse:
    versions = PaytableVersion.objects.select_related(
        "proposed_by", "approved_by"
    ).prefetch_related("lines")
    rows = []
    for paytable in Paytable.objects.order_by("kind", "name"):
        mine = [v for v in versions.filter(paytable=paytable).order_by("-number")]
        for version in mine:
            version.ranked = lines_in_rank_order(version)  # type: ignore[attr-defined]
        in_force = next((v for v in mine if v.status == ChangeStatus.APPROVED), None)
        drafts = [v for v in mine if v.status == ChangeStatus.DRAFT]
        rows.append({"paytable": paytable, "in_force": in_force, "drafts": drafts})
    context = {"rows": rows, "refused": refused, "errors": list(errors)}
    return render(request, "staff/paytables.html", context, status=400 if refused else 200)


@requires(PROPOSE_PAYTABLES)
def propose_paytable(request: HttpRequest, pk: int) -> HttpResponse:
    paytable = get_object_or_404(Paytable, pk=pk)
    data = request.POST if request.method == "POST" else None
    form = PaytableVersionForm(data, paytable=paytable)
    if request.method == "POST" and form.is_valid():
        try:
            version = propose_paytable_version(
                paytable=paytable,
                lines=form.lines(),
                reason=form.cleaned_data["reason"],
                by=acting_user(request),
            )
        except ChangeRefused as refused:
            add_refusal(form, refused.errors)
        else:
            messages.success(
                request,
                _("%(draft)s proposed; another pit staff member approves it.") % {"draft": version},
            )
            return redirect("staff:paytable-version", pk=version.pk)
    status = 400 if form.is_bound else 200
    context = {"paytable": paytable, "form": form}
    return render(request, "staff/propose_paytable.html", context, status=status)


@require_POST
@requires(APPROVE_PAYTABLES)
def approve_paytable(request: HttpRequest, pk: int) -> HttpResponse:
    draft = get_object_or_404(PaytableVersion, pk=pk)
    try:
        approve_paytable_version(draft, by=acting_user(request))
    except ChangeRefused as refused:
        return _paytables_page(request, draft, refused.lines())
    messages.success(request, _("%(draft)s approved: in force now.") % {"draft": draft})
    return redirect("staff:paytables")


@require_POST
@requires(APPROVE_PAYTABLES)
def reject_paytable(request: HttpRequest, pk: int) -> HttpResponse:
    draft = get_object_or_404(PaytableVersion, pk=pk)
    refused = _reject(request, draft)
    if refused is not None:
        return _paytables_page(request, draft, refused.lines())
    return redirect("staff:paytables")


# Auditors: payouts review, ledger reconciliation ---------------------------------------------


@require_GET
@requires(REVIEW_PAYOUTS)
def payouts(request: HttpRequest) -> HttpResponse:
    form = PayoutFilterForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        return render(request, "staff/payouts.html", {"form": form}, status=400)
    filters = form.filters() if form.is_bound else {}
    source = reports_source()
    boxes = box_settlements(**filters, using=source.alias)
    page = Paginator(boxes, PAYOUTS_PER_PAGE).get_page(request.GET.get("page"))
    page.object_list = _with_corrections(page.object_list, using=source.alias)
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": form,
        "page": page,
        "query": query.urlencode(),
        "csv_url": f"{reverse('staff:payouts-csv')}?{query.urlencode()}",
        "totals": box_totals(boxes),
        "reports_source": source,
    }
    return said(render(request, "staff/payouts.html", context), source)


def box_totals(boxes: Any) -> dict[str, Decimal | None]:
    """What the filtered boxes staked, what they paid back (stakes returned with the winnings),
    the house's result and its hold, summed in one query."""
    sums = boxes.aggregate(
        staked=Sum(F("ante_staked") + F("bet_staked") + F("bonus_staked"), default=ZERO),
        players=Sum("total_result", default=ZERO),
    )
    staked, house = sums["staked"], -sums["players"]
    return {
        "staked": staked,
        "paid": staked - house,
        "house": house,
        "hold_percent": (house * 100 / staked).quantize(CENT) if staked else None,
    }


# A settled box's decision in words.
BOX_STATUS_WORDS: dict[str, Promise] = {
    BoxStatus.BET: pgettext_lazy("box", "bet"),
    BoxStatus.FOLDED: pgettext_lazy("box", "folded"),
    BoxStatus.DECIDING: pgettext_lazy("box", "deciding"),
}


def _with_corrections(
    settlements: Iterable[BoxSettlement], *, using: str = DEFAULT_DB_ALIAS
) -> list[BoxSettlement]:
    """The boxes, each with ``correction``: what approved settlement corrections added to it,
    and its hands and decision in the viewer's language (the stored ``hand`` is the engine's
    English, for the exports)."""
    boxes = list(settlements)
    added = approved_corrections({box.round_id for box in boxes}, using=using)
    for box in boxes:
        box.correction = added.get((box.round_id, box.box))  # type: ignore[attr-defined]
        box.hand_words = hand_name(evaluate(parse_cards(box.final_cards)))  # type: ignore[attr-defined]
        box.dealer_words = hand_name(evaluate(parse_cards(box.dealer_cards)))  # type: ignore[attr-defined]
        box.status_words = BOX_STATUS_WORDS.get(box.status, box.status)  # type: ignore[attr-defined]
    return boxes


CSV_COLUMNS = (
    "round", "box", "table", "player", "currency", "settled_at", "status", "initial_cards",
    "final_cards", "category", "hand", "dealer_cards", "dealer_qualifies", "bet_paytable_version",
    "bet_line", "bonus_paytable_version", "bonus_line", "ante_staked", "bet_staked",
    "bonus_staked", "ante_result", "bet_result", "bonus_result", "total_result", "correction",
)  # fmt: skip


def csv_row(box: BoxSettlement, corrected: Mapping[tuple[int, int], Decimal]) -> list[object]:
    """One settled box as the CSV writes it: money as numbers with two places, and what
    approved settlement corrections added to the box (0.00 for none)."""
    return [
        box.round_id, box.box, box.table.name, box.player.username, box.currency,
        box.settled_at.isoformat(), box.status, box.initial_cards, box.final_cards, box.category,
        box.hand, box.dealer_cards, "yes" if box.dealer_qualifies else "no",
        box.bet_paytable_version, box.bet_line, box.bonus_paytable_version, box.bonus_line,
        *(amount.quantize(CENT) for amount in (
            box.ante_staked, box.bet_staked, box.bonus_staked, box.ante_result, box.bet_result,
            box.bonus_result, box.total_result, corrected.get((box.round_id, box.box), Decimal(0)),
        )),
    ]  # fmt: skip


@require_GET
@requires(REVIEW_PAYOUTS)
def payouts_csv(request: HttpRequest) -> HttpResponseBase:
    """Exactly the filtered set of the payouts review, streamed."""
    form = PayoutFilterForm(request.GET)
    if not form.is_valid():
        errors = "; ".join(f"{field}: {' '.join(map(str, e))}" for field, e in form.errors.items())
        return HttpResponse(errors, status=400, content_type="text/plain; charset=utf-8")
    source = reports_source()
    boxes = box_settlements(**form.filters(), using=source.alias).iterator(chunk_size=500)
    # Few: a correction is a rare, approved exception.
    corrected = approved_corrections(using=source.alias)
    rows = (csv_row(box, corrected) for box in boxes)
    return said(csv_response("payouts.csv", CSV_COLUMNS, rows), source)


@require_GET
@requires(*READ_LEDGER)
def ledger(request: HttpRequest) -> HttpResponse:
    """The trial balance per currency, which must total zero, and the ledger's invariants."""
    with ledger_snapshot():
        check = check_ledger()
        balance = trial_balance()
    kinds = {
        currency: [
            (AccountKind(kind).label, Decimal(amount))
            for kind, amount in rows.items()
            if kind != "total"
        ]
        for currency, rows in balance.items()
    }
    totals = {currency: Decimal(rows["total"]) for currency, rows in balance.items()}
    context = {
        "check": check,
        "kinds": kinds,
        "totals": totals,
        "entry_totals": check.totals_by_currency,
        "problems": check.findings(),
        "reports": recent_ledger_reports(),
    }
    return render(request, "staff/ledger.html", context)


# Actual against theoretical RTP ---------------------------------------------------------------

READ_RTP = ("payouts.view_rtpobservation", "payouts.view_rtprun")


@require_GET
@requires(*READ_RTP)
def rtp(request: HttpRequest) -> HttpResponse:
    """The newest actual RTP of every table and paytable version beside its theoretical figure,
    alerts in red, and the chart of both."""
    source = reports_source()
    context: dict[str, Any] = {
        "observations": latest_rtp_observations(using=source.alias),
        "alerts": rtp_alerts(using=source.alias),
        "reports_source": source,
        "min_boxes": settings.RTP_OBSERVATION_MIN_BOXES,
        "model_error": settings.BEST_PLAY_MODEL_ERROR_ANTES,
    }
    # An observation started on demand: the page follows its task until it ends.
    task_id = request.GET.get("task", "")
    if task_id:
        result = AsyncResult(task_id)
        context["task"] = {
            "state": result.state,
            "alerts": result.result if result.successful() else None,
        }
        context["measuring"] = result.state not in ("SUCCESS", "FAILURE")
    return said(render(request, "staff/rtp.html", context), source)


@require_GET
@requires(*READ_RTP)
def rtp_chart(request: HttpRequest) -> HttpResponse:
    source = reports_source()
    chart = rtp_comparison_png(latest_rtp_observations(using=source.alias))
    return said(HttpResponse(chart, content_type="image/png"), source)
