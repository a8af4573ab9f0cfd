"""Admin for money: read-only accounts and ledger, cage deposits and withdrawals, reversals,
and the nightly reconciliation reports.

Balances and entries are never editable here; money moves only through payouts.services.
"""

from __future__ import annotations

import uuid
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from casino.http.permissions import acting_user
from casino.readonly_admin import ReadOnlyAdmin, ReadOnlyInline
from casino.roles import PLAYER
from payouts import approvals, services
from payouts.forms import amount_field
from payouts.models import (
    CENT,
    Account,
    Currency,
    LedgerEntry,
    LedgerTransaction,
    ReconciliationReport,
    ReversalProposal,
    TransactionKind,
)
from payouts.protection.limits import LimitReached


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
    player = forms.ModelChoiceField(
        queryset=get_user_model().objects.filter(groups__name=PLAYER),
        label=gettext_lazy("Player"),
    )
    currency = forms.ChoiceField(choices=Currency.choices, label=gettext_lazy("Currency"))
    amount = amount_field(LedgerEntry, "amount", min_value=CENT, label=gettext_lazy("Amount"))
    reason = forms.CharField(max_length=500, label=gettext_lazy("Reason"))
    # One key per rendered form: submitting it twice moves the money once.
    idempotency_key = forms.CharField(widget=forms.HiddenInput)


class ReverseForm(forms.Form):
    reason = forms.CharField(max_length=500, label=gettext_lazy("Reason"))


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(ReadOnlyAdmin):
    list_display = ("number", "kind", "reason", "reference", "created_by", "created_at")
    list_filter = ("kind",)
    search_fields = ("reason", "reference", "entries__account__owner__username")
    inlines = (LedgerEntryInline,)
    readonly_fields = ("kind", "reason", "reference", "reverses", "created_by", "created_at")
    change_list_template = "admin/payouts/ledgertransaction/change_list.html"
    change_form_template = "admin/payouts/ledgertransaction/change_form.html"

    @admin.display(description=gettext_lazy("transaction no."), ordering="id")
    def number(self, txn: LedgerTransaction) -> int:
        return txn.pk

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
            except (services.LedgerError, LimitReached) as refused:
                form.add_error(
                    refused.field if refused.field in form.fields else None, refused.message
                )
            else:
                self.message_user(
                    request,
                    (
                        _("Deposit posted as transaction #%(transaction)s.")
                        if direction == "deposit"
                        else _("Withdrawal posted as transaction #%(transaction)s.")
                    )
                    % {"transaction": txn.pk},
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(
                    reverse("admin:payouts_ledgertransaction_change", args=[txn.pk])
                )
        context = {
            **self.admin_site.each_context(request),
            "title": _("Cage deposit") if direction == "deposit" else _("Cage withdrawal"),
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
            raise Http404(_("There is no transaction #%(transaction)s.") % {"transaction": pk})
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
                        _(
                            "The reversal of transaction #%(transaction)s is proposed; another "
                            "staff member approves it."
                        )
                        % {"transaction": pk},
                        messages.SUCCESS,
                    )
                    return HttpResponseRedirect(
                        reverse("admin:payouts_reversalproposal_change", args=[proposal.pk])
                    )
                self.message_user(
                    request,
                    _("Transaction #%(transaction)s reversed by #%(reversal)s.")
                    % {"transaction": pk, "reversal": txn.pk},
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(
                    reverse("admin:payouts_ledgertransaction_change", args=[txn.pk])
                )
        title = (
            _("Propose the reversal of transaction #%(transaction)s")
            if house_funding
            else _("Reverse transaction #%(transaction)s")
        )
        context = {
            **self.admin_site.each_context(request),
            "title": title % {"transaction": pk},
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

    @admin.action(
        description=gettext_lazy("Approve the selected reversals"), permissions=["approve"]
    )
    def approve(self, request: HttpRequest, proposals: QuerySet[ReversalProposal]) -> None:
        for proposal in proposals:
            try:
                services.approve_house_reversal(proposal, by=acting_user(request))
            except approvals.ChangeRefused as refused:
                self.message_user(request, f"{proposal}: {refused}", messages.ERROR)
            except services.LedgerError as refused:
                self.message_user(
                    request, f"{proposal}: {refused.message} [{refused.code}]", messages.ERROR
                )
            else:
                self.message_user(
                    request, _("%(proposal)s: posted.") % {"proposal": proposal}, messages.SUCCESS
                )

    def has_approve_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("payouts.approve_reversalproposal")


@admin.register(ReconciliationReport)
class ReconciliationReportAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "ok")
    list_filter = ("ok",)
    fields = ("created_at", "ok", "trial_balance", "problems")
