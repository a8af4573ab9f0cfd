"""Admin for money: read-only accounts and ledger, cage deposits and withdrawals, reversals,
and paytables with their maker-checker approval.

Balances and entries are never editable here; money moves only through payouts.services.
"""

from __future__ import annotations

import uuid
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join

from casino.http.permissions import acting_user
from casino.readonly_admin import ReadOnlyAdmin, ReadOnlyInline
from casino.roles import PLAYER
from games.joker_draw import rtp_lab as rtp
from games.joker_draw.limits import approve_paytable_version
from payouts import services
from payouts.forms import amount_field
from payouts.models import (
    CENT,
    Account,
    ChangeStatus,
    Currency,
    LedgerEntry,
    LedgerTransaction,
    Paytable,
    PaytableLine,
    PaytableVersion,
    ReconciliationReport,
    ReversalProposal,
    RtpObservation,
    RtpRun,
    RtpRunStatus,
    TransactionKind,
)


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "kind", "currency", "owner", "balance")
    list_filter = ("kind", "currency")
    search_fields = ("owner__username",)
    list_select_related = ("owner",)


class LedgerEntryInline(ReadOnlyInline):
    model = LedgerEntry
    fields = ("account", "amount", "currency")
    show_change_link = False


class CageForm(forms.Form):
    player = forms.ModelChoiceField(queryset=get_user_model().objects.filter(groups__name=PLAYER))
    currency = forms.ChoiceField(choices=Currency.choices)
    amount = amount_field(LedgerEntry, "amount", min_value=CENT)
    reason = forms.CharField(max_length=500)
    # One key per rendered form: submitting it twice moves the money once.
    idempotency_key = forms.CharField(widget=forms.HiddenInput)


class ReverseForm(forms.Form):
    reason = forms.CharField(max_length=500)


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "reason", "reference", "created_by", "created_at")
    list_filter = ("kind",)
    search_fields = ("reason", "reference", "entries__account__owner__username")
    inlines = (LedgerEntryInline,)
    readonly_fields = ("kind", "reason", "reference", "reverses", "created_by", "created_at")
    change_list_template = "admin/payouts/ledgertransaction/change_list.html"
    change_form_template = "admin/payouts/ledgertransaction/change_form.html"

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: LedgerTransaction | None = None,
    ) -> HttpResponse:
        # Offered for cage mistakes and house funding only: game money is never reversed.
        kinds = (*services.CAGE_KINDS, TransactionKind.HOUSE_FUNDING)
        context["reversible"] = obj is not None and obj.kind in kinds
        return super().render_change_form(request, context, add, change, form_url, obj)

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view
        return [
            path(
                "deposit/", view(self.cage_view), {"direction": "deposit"}, name="payouts_deposit"
            ),
            path(
                "withdraw/",
                view(self.cage_view),
                {"direction": "withdraw"},
                name="payouts_withdraw",
            ),
            path("<int:pk>/reverse/", view(self.reverse_view), name="payouts_reverse"),
            *super().get_urls(),
        ]

    def cage_view(self, request: HttpRequest, direction: str) -> HttpResponse:
        if not request.user.has_perm("payouts.cage_transaction"):
            raise PermissionDenied
        form = CageForm(request.POST or None, initial={"idempotency_key": uuid.uuid4().hex})
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            move = services.deposit if direction == "deposit" else services.withdraw
            try:
                with transaction.atomic():
                    txn = move(
                        player=data["player"],
                        currency=data["currency"],
                        amount=data["amount"],
                        reason=data["reason"],
                        by=acting_user(request),
                        reference=f"cage:{data['idempotency_key']}",
                    )
            except services.LedgerError as refused:
                form.add_error(
                    refused.field if refused.field in form.fields else None, refused.message
                )
            else:
                self.message_user(
                    request,
                    f"{direction.title()} posted as transaction #{txn.pk}.",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(
                    reverse("admin:payouts_ledgertransaction_change", args=[txn.pk])
                )
        context = {
            **self.admin_site.each_context(request),
            "title": f"Cage {direction}",
            "form": form,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/payouts/cage_form.html", context)

    def reverse_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """One person reverses a cage mistake; house funding is only proposed here, for a second
        staff member to approve; game money is refused (voids and settlement corrections)."""
        if not request.user.has_perm("payouts.reverse_transaction"):
            raise PermissionDenied
        original = LedgerTransaction.objects.filter(pk=pk).first()
        if original is None:
            raise Http404(f"There is no transaction #{pk}.")
        form = ReverseForm(request.POST or None)
        house_funding = original.kind == TransactionKind.HOUSE_FUNDING
        if request.method == "POST" and form.is_valid():
            reason, by = form.cleaned_data["reason"], acting_user(request)
            try:
                if house_funding:
                    proposal = services.propose_house_reversal(original, reason=reason, by=by)
                else:
                    txn = services.reverse_transaction(original, reason=reason, by=by)
            except services.LedgerError as refused:
                form.add_error(None, f"{refused.message} [{refused.code}]")
            else:
                if house_funding:
                    self.message_user(
                        request,
                        f"The reversal of transaction #{pk} is proposed; another staff member "
                        "approves it.",
                        messages.SUCCESS,
                    )
                    return HttpResponseRedirect(
                        reverse("admin:payouts_reversalproposal_change", args=[proposal.pk])
                    )
                self.message_user(
                    request, f"Transaction #{pk} reversed by #{txn.pk}.", messages.SUCCESS
                )
                return HttpResponseRedirect(
                    reverse("admin:payouts_ledgertransaction_change", args=[txn.pk])
                )
        verb = "Propose the reversal of" if house_funding else "Reverse"
        context = {
            **self.admin_site.each_context(request),
            "title": f"{verb} transaction #{pk}",
            "form": form,
            "original": original,
            "opts": self.model._meta,
        }
        # A refusal is a 4xx, as everywhere else.
        status = 400 if form.errors else 200
        return TemplateResponse(request, "admin/payouts/cage_form.html", context, status=status)


@admin.register(ReversalProposal)
class ReversalProposalAdmin(ReadOnlyAdmin):
    """Reversals of house money awaiting a second staff member, and those approved."""

    list_display = ("__str__", "status", "reason", "proposed_by", "approved_by", "reversal")
    list_filter = ("status",)
    fields = (
        "original", "status", "reason", "proposed_by", "proposed_at", "approved_by",
        "approved_at", "reversal",
    )  # fmt: skip
    actions = ("approve",)

    @admin.action(description="Approve the selected reversals", permissions=["approve"])
    def approve(self, request: HttpRequest, proposals: QuerySet[ReversalProposal]) -> None:
        for proposal in proposals:
            try:
                services.approve_house_reversal(proposal, by=acting_user(request))
            except services.ChangeRefused as refused:
                self.message_user(request, f"{proposal}: {refused}", messages.ERROR)
            except services.LedgerError as refused:
                self.message_user(
                    request, f"{proposal}: {refused.message} [{refused.code}]", messages.ERROR
                )
            else:
                self.message_user(request, f"{proposal}: posted.", messages.SUCCESS)

    def has_approve_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("payouts.approve_reversalproposal")


class PaytableVersionInline(ReadOnlyInline):
    model = PaytableVersion
    fields = ("number", "status", "reason", "proposed_by", "approved_by", "approved_at")


@admin.register(Paytable)
class PaytableAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "description", "version_in_force")
    list_filter = ("kind",)
    inlines = (PaytableVersionInline,)

    def get_readonly_fields(
        self, request: HttpRequest, obj: Paytable | None = None
    ) -> tuple[str, ...]:
        return ("name", "kind") if obj else ()

    @admin.display(description="version in force")
    def version_in_force(self, paytable: Paytable) -> str:
        version = paytable.active_version()
        return f"v{version.number}" if version else "none approved yet"

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class PaytableLineInline(admin.TabularInline):
    model = PaytableLine
    fields = ("category", "odds_numerator", "odds_denominator")
    extra = 3

    def _editable(self, obj: PaytableVersion | None) -> bool:
        return obj is None or obj.status == ChangeStatus.DRAFT

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._editable(obj) and super().has_add_permission(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._editable(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._editable(obj) and super().has_delete_permission(request, obj)


@admin.register(PaytableVersion)
class PaytableVersionAdmin(admin.ModelAdmin):
    list_display = ("__str__", "status", "proposed_by", "approved_by", "proposed_at")
    list_filter = ("status", "paytable")
    inlines = (PaytableLineInline,)
    actions = ("approve",)

    def get_fields(
        self, request: HttpRequest, obj: PaytableVersion | None = None
    ) -> tuple[str, ...]:
        if obj is None:
            return ("paytable", "reason")
        return (
            "paytable",
            "number",
            "status",
            "reason",
            "proposed_by",
            "proposed_at",
            "approved_by",
            "approved_at",
            "latest_rtp",
        )

    @admin.display(description="RTP (latest run)")
    def latest_rtp(self, version: PaytableVersion) -> str:
        finished = version.rtp_runs.filter(status=RtpRunStatus.DONE).first()
        running = version.rtp_runs.filter(status=RtpRunStatus.RUNNING).first()
        failed = version.rtp_runs.filter(status=RtpRunStatus.FAILED).first()
        parts: list[str] = []
        if failed is not None and (finished is None or failed.created_at > finished.created_at):
            error = (failed.result or {}).get("error", "no error recorded")
            parts.append(format_html("run {} failed: {}<br>", failed.pk, error))
        if running is not None:
            parts.append(
                format_html(
                    "run {} {}: {} of {} chunks<br>",
                    running.pk,
                    running.get_status_display(),
                    rtp.chunks_done(running),
                    running.chunk_count,
                )
            )
        if finished is None:
            parts.append("not computed yet: approval needs a finished RTP run (JD-14)")
        else:
            parts.append(
                format_html(
                    '{}<br>run {}: {} strategy, {} rounds, seed {}<br><img src="{}" '
                    'alt="RTP chart of run {}" width="700">',
                    rtp.describe(finished),
                    finished.pk,
                    finished.strategy_name,
                    f"{finished.rounds:,}",
                    finished.seed,
                    reverse("admin:payouts_rtprun_chart", args=[finished.pk]),
                    finished.pk,
                )
            )
        return format_html_join("", "{}", ((part,) for part in parts))

    def get_urls(self) -> list[URLPattern]:
        compute = path(
            "<int:pk>/compute-rtp/",
            self.admin_site.admin_view(self.compute_rtp),
            name="payouts_paytableversion_compute_rtp",
        )
        return [compute, *super().get_urls()]

    def compute_rtp(self, request: HttpRequest, pk: int) -> HttpResponse:
        """Start an RTP run of the version's current lines on the workers (JD-14)."""
        if request.method != "POST" or not request.user.has_perm("payouts.add_rtprun"):
            raise PermissionDenied
        version = PaytableVersion.objects.select_related("paytable").get(pk=pk)
        try:
            run = rtp.start_run(
                version, rounds=settings.RTP_APPROVAL_MIN_ROUNDS, by=acting_user(request)
            )
        except rtp.RtpRefused as refused:
            self.message_user(request, str(refused), messages.ERROR)
        else:
            self.message_user(
                request,
                f"RTP run {run.pk} started: {run.rounds:,} rounds on the workers.",
                messages.SUCCESS,
            )
        return HttpResponseRedirect(reverse("admin:payouts_paytableversion_change", args=[pk]))

    def get_readonly_fields(
        self, request: HttpRequest, obj: PaytableVersion | None = None
    ) -> tuple[str, ...]:
        return self.get_fields(request, obj) if obj else ()

    def save_model(
        self, request: HttpRequest, obj: PaytableVersion, form: Any, change: bool
    ) -> None:
        if change:
            return  # a draft's lines change through the inline; the version row stays as proposed
        with transaction.atomic():
            Paytable.objects.select_for_update().get(pk=obj.paytable_id)
            last = (
                obj.paytable.versions.order_by("-number").values_list("number", flat=True).first()
            )
            obj.number = (last or 0) + 1
            obj.proposed_by = acting_user(request)
            obj.save()

    @admin.action(description="Approve the selected drafts", permissions=["approve"])
    def approve(self, request: HttpRequest, drafts: QuerySet[PaytableVersion]) -> None:
        for version in drafts:
            try:
                approve_paytable_version(version, by=acting_user(request))
            except services.ChangeRefused as refused:
                self.message_user(request, f"{version}: {refused}", messages.ERROR)
            else:
                self.message_user(request, f"{version} approved.", messages.SUCCESS)

    def has_approve_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("payouts.approve_paytableversion")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # A draft's lines may be edited (by the inline); an approved version never.
        editable = obj is None or obj.status == ChangeStatus.DRAFT
        return editable and request.user.has_perm("payouts.add_paytableversion")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(RtpRun)
class RtpRunAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "status", "seed", "requested_by", "created_at", "finished_at")
    list_filter = ("status", "strategy_name")
    fields = (
        "paytable_version",
        "bet_paytable_version",
        "bonus_paytable_version",
        "lines",
        "strategy_name",
        "strategy",
        "rounds",
        "chunk_rounds",
        "seed",
        "status",
        "result",
        "requested_by",
        "created_at",
        "finished_at",
    )

    def get_urls(self) -> list[URLPattern]:
        chart = path(
            "<int:pk>/chart.png",
            self.admin_site.admin_view(self.chart),
            name="payouts_rtprun_chart",
        )
        return [chart, *super().get_urls()]

    def chart(self, request: HttpRequest, pk: int) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        run = RtpRun.objects.select_related("paytable_version__paytable").filter(pk=pk).first()
        if run is None or run.status != RtpRunStatus.DONE:
            raise Http404("no finished RTP run with this id")
        return HttpResponse(rtp.rtp_chart_png(run), content_type="image/png")


@admin.register(RtpObservation)
class RtpObservationAdmin(ReadOnlyAdmin):
    list_display = (
        "observed_at",
        "table",
        "kind",
        "paytable_version",
        "boxes",
        "actual_rtp",
        "interval_low",
        "interval_high",
        "theoretical_rtp",
        "alert",
    )
    list_filter = ("alert", "kind", "table")


@admin.register(ReconciliationReport)
class ReconciliationReportAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "ok")
    list_filter = ("ok",)
    fields = ("created_at", "ok", "trial_balance", "problems")
