"""Admin for the joker draw's paytables: versions with their lines under maker-checker, the
RTP laboratory's runs that approval needs (JD-14), and the tables' RTP observations.

The models are the ledger's (``payouts``); approval goes through ``games.joker_draw.paytables``,
which enforces the rules and separation of duties exactly as the staff pages do.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import QuerySet
from django.forms import BaseInlineFormSet, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from casino.http.permissions import acting_user
from casino.readonly_admin import ReadOnlyAdmin, ReadOnlyInline
from games.joker_draw import rtp_lab
from games.joker_draw.paytables import (
    approve_paytable_version,
    no_game_in_bonus,
    unpayable_no_game_line,
)
from games.joker_draw.tasks import dispatch_rtp_run
from payouts.approvals import ChangeRefused, ChangeStatus
from payouts.models import (
    Paytable,
    PaytableLine,
    PaytableVersion,
    RtpObservation,
    RtpRun,
    RtpRunStatus,
)


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

    @admin.display(description=gettext_lazy("version in force"))
    def version_in_force(self, paytable: Paytable) -> str:
        version = paytable.active_version()
        return f"v{version.number}" if version else _("none approved yet")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class PaytableLineFormSet(BaseInlineFormSet):
    """A draft's lines as edited in the admin obey what a proposal obeys: the no-game line
    only in a bet paytable, paying a whole cent on every total ante of its tables (JD-11a)."""

    def clean(self) -> None:
        super().clean()
        version = self.instance
        if version.paytable_id is None:
            return  # the version's own form is refused already
        lines = {
            form.cleaned_data["category"]: Fraction(
                form.cleaned_data["odds_numerator"], form.cleaned_data["odds_denominator"]
            )
            for form in self.forms
            if form.cleaned_data
            and not form.cleaned_data.get("DELETE")
            and form.cleaned_data.get("odds_numerator")
            and form.cleaned_data.get("odds_denominator")
        }
        problems = no_game_in_bonus(version.paytable, lines) or unpayable_no_game_line(
            version.paytable, lines
        )
        if problems:
            raise ValidationError(list(problems.values()))


class PaytableLineInline(admin.TabularInline):
    model = PaytableLine
    formset = PaytableLineFormSet
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

    @admin.display(description=gettext_lazy("RTP (latest run)"))
    def latest_rtp(self, version: PaytableVersion) -> str:
        finished = version.rtp_runs.filter(status=RtpRunStatus.DONE).first()
        running = version.rtp_runs.filter(status=RtpRunStatus.RUNNING).first()
        failed = version.rtp_runs.filter(status=RtpRunStatus.FAILED).first()
        parts: list[str] = []
        if failed is not None and (finished is None or failed.created_at > finished.created_at):
            error = (failed.result or {}).get("error", _("no error recorded"))
            parts.append(format_html(_("run {} failed: {}<br>"), failed.pk, error))
        if running is not None:
            parts.append(
                format_html(
                    _("run {} {}: {} of {} chunks<br>"),
                    running.pk,
                    running.get_status_display(),
                    rtp_lab.chunks_done(running),
                    running.chunk_count,
                )
            )
        if finished is None:
            parts.append(_("not computed yet: approval needs a finished RTP run (JD-14)"))
        else:
            parts.append(
                format_html(
                    _(
                        '{}<br>run {}: {} strategy, {} rounds, seed {}<br><img src="{}" '
                        'alt="RTP chart of run {}" width="700">'
                    ),
                    rtp_lab.describe(finished),
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
            run = rtp_lab.start_approval_run(
                version, by=acting_user(request), dispatch=dispatch_rtp_run
            )
        except rtp_lab.RtpRefused as refused:
            self.message_user(request, str(refused), messages.ERROR)
        else:
            self.message_user(
                request,
                _("RTP run %(run)s started: %(rounds)s rounds on the workers.")
                % {"run": run.pk, "rounds": f"{run.rounds:,}"},
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

    @admin.action(description=gettext_lazy("Approve the selected drafts"), permissions=["approve"])
    def approve(self, request: HttpRequest, drafts: QuerySet[PaytableVersion]) -> None:
        for version in drafts:
            try:
                approve_paytable_version(version, by=acting_user(request))
            except ChangeRefused as refused:
                self.message_user(request, f"{version}: {refused}", messages.ERROR)
            else:
                self.message_user(
                    request, _("%(version)s approved.") % {"version": version}, messages.SUCCESS
                )

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
            raise Http404(_("no finished RTP run with this id"))
        return HttpResponse(rtp_lab.rtp_chart_png(run), content_type="image/png")


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
