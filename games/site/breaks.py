"""The player's breaks page, /play/breaks/: the reality check interval, and a time-out or
self-exclusion taken in two steps (choose, then confirm what it means and until when). The
services decide; the page only asks."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, cast

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from casino.frame import plays_at_tables
from casino.http.permissions import acting_user
from payouts.protection import conduct, selectors
from payouts.protection.models import REALITY_CHECK_CHOICES, ExclusionKind

# The lengths the page offers (the API takes any end within the ranges).
LENGTHS = {
    "24h": (ExclusionKind.TIME_OUT, timedelta(hours=24), 0),
    "3d": (ExclusionKind.TIME_OUT, timedelta(days=3), 0),
    "1w": (ExclusionKind.TIME_OUT, timedelta(weeks=1), 0),
    "2w": (ExclusionKind.TIME_OUT, timedelta(weeks=2), 0),
    "6w": (ExclusionKind.TIME_OUT, timedelta(weeks=6), 0),
    "6m": (ExclusionKind.SELF_EXCLUSION, timedelta(0), 6),
    "1y": (ExclusionKind.SELF_EXCLUSION, timedelta(0), 12),
    "2y": (ExclusionKind.SELF_EXCLUSION, timedelta(0), 24),
    "5y": (ExclusionKind.SELF_EXCLUSION, timedelta(0), 60),
}
LENGTH_CHOICES = [
    ("24h", pgettext_lazy("time-out", "Time-out: 24 hours")),
    ("3d", pgettext_lazy("time-out", "Time-out: 3 days")),
    ("1w", pgettext_lazy("time-out", "Time-out: 1 week")),
    ("2w", pgettext_lazy("time-out", "Time-out: 2 weeks")),
    ("6w", pgettext_lazy("time-out", "Time-out: 6 weeks")),
    ("6m", pgettext_lazy("self-exclusion", "Self-exclusion: 6 months")),
    ("1y", pgettext_lazy("self-exclusion", "Self-exclusion: 1 year")),
    ("2y", pgettext_lazy("self-exclusion", "Self-exclusion: 2 years")),
    ("5y", pgettext_lazy("self-exclusion", "Self-exclusion: 5 years")),
]


def ends(length: str, now: datetime) -> tuple[str, datetime]:
    kind, delta, months = LENGTHS[length]
    return kind, (conduct.months_later(now, months) if months else now + delta)


class BreakForm(forms.Form):
    length = forms.ChoiceField(label=gettext_lazy("How long"), choices=LENGTH_CHOICES)


class ConfirmForm(forms.Form):
    kind = forms.ChoiceField(choices=ExclusionKind.choices, widget=forms.HiddenInput)
    until = forms.DateTimeField(widget=forms.HiddenInput)
    confirm = forms.BooleanField(
        label=gettext_lazy("I understand that nobody can end it early."), required=True
    )


class IntervalForm(forms.Form):
    minutes = forms.TypedChoiceField(label=gettext_lazy("A reality check every"), coerce=int)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Labelled per request, in its language.
        cast(forms.TypedChoiceField, self.fields["minutes"]).choices = [
            (m, ngettext("%(minutes)d minute", "%(minutes)d minutes", m) % {"minutes": m})
            for m in REALITY_CHECK_CHOICES
        ]


@login_required
def breaks(request: HttpRequest) -> HttpResponse:
    """The page: what is in force, the interval, and taking a break in two steps."""
    if not plays_at_tables(request.user):
        raise PermissionDenied(_("Only players take breaks from play."))
    player = acting_user(request)
    step = request.POST.get("step")
    interval = IntervalForm(
        request.POST if step == "interval" else None,
        initial={"minutes": selectors.reality_check_minutes(player)},
    )
    chosen = BreakForm(request.POST if step == "choose" else None)
    confirm: ConfirmForm | None = None
    confirming: tuple[str, datetime] | None = None
    if step == "interval" and interval.is_valid():
        conduct.choose_reality_check(player=player, minutes=interval.cleaned_data["minutes"])
        return redirect("play:breaks")
    if step == "choose" and chosen.is_valid():
        confirming = ends(chosen.cleaned_data["length"], timezone.now())
        confirm = ConfirmForm(initial={"kind": confirming[0], "until": confirming[1].isoformat()})
    if step == "confirm":
        confirm = ConfirmForm(request.POST)
        if confirm.is_valid():
            kind, until = confirm.cleaned_data["kind"], confirm.cleaned_data["until"]
            try:
                conduct.take_exclusion(player=player, kind=kind, until=until)
            except conduct.ConductRefused as refused:
                confirm.add_error(None, refused.message)
                confirming = kind, until
            else:
                return redirect("play:breaks")
    return render(
        request,
        "play/breaks.html",
        {
            "in_force": conduct.exclusion_in_force(player),
            "exclusions": selectors.exclusions_of(player),
            "interval": interval,
            "chosen": chosen,
            "confirm": confirm,
            "confirm_kind": confirming[0] if confirming else None,
            "confirm_until": confirming[1] if confirming else None,
        },
    )
