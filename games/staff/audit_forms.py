"""The auditors' filters: the rounds review, the gaming-day report and the ledger as of a day.
Every one is optional but the report's day, and each is checked on its own; the API reads the
same forms from its query string."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _

from casino.day_range import DATE_INPUT, GamingDayField, GamingDayRangeForm, current_gaming_day
from casino.gaming_day import gaming_day_bounds
from games.models import Game, RoundStatus, Table
from payouts.models import AccountKind, Currency

# Longer ranges are read year by year: a report of one request stays a few years' rows.
LONGEST_REPORT_DAYS = 366


class RoundReviewForm(forms.Form):
    date_from = GamingDayField(label=_("From gaming day"), required=False, widget=DATE_INPUT)
    date_to = GamingDayField(label=_("To gaming day"), required=False, widget=DATE_INPUT)
    game = forms.ChoiceField(
        label=_("Game"), required=False, choices=[("", _("every game")), *Game.choices]
    )
    table = forms.ModelChoiceField(
        Table.objects.order_by("game", "name"),
        label=_("Table"),
        required=False,
        empty_label=_("every table"),
    )
    status = forms.ChoiceField(
        label=_("Status"),
        required=False,
        choices=[
            ("", _("settled or voided")),
            (RoundStatus.SETTLED, _("settled")),
            (RoundStatus.VOIDED, _("voided")),
        ],
    )
    player = forms.CharField(label=_("Player"), required=False, max_length=150)

    def clean_player(self) -> User | None:
        username = self.cleaned_data["player"].strip()
        if not username:
            return None
        user = User.objects.filter(username=username).first()
        if user is None:
            raise forms.ValidationError(
                _("No player is called %(name)s."), code="unknown_player", params={"name": username}
            )
        return user

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("date_from") and data.get("date_to") and data["date_to"] < data["date_from"]:
            self.add_error(
                "date_to",
                forms.ValidationError(
                    _("The last gaming day is before the first."), code="date_order"
                ),
            )
        return data

    def filters(self) -> dict[str, Any]:
        return {name: self.cleaned_data.get(name) for name in self.fields} | {
            "game": self.cleaned_data.get("game") or "",
            "status": self.cleaned_data.get("status") or "",
        }

    def describe(self) -> list[str]:
        """The filters set, as words for a file name."""
        words = []
        for name in self.fields:
            value = self.cleaned_data.get(name)
            if value not in (None, ""):
                words.append(f"{name}-{value.pk if isinstance(value, Table) else value}")
        return words


class GamingDayForm(GamingDayRangeForm):
    """The report's gaming day ``date`` (the current one by default) and, for a range, ``to``."""

    first_name, first_label = "date", _("Gaming day")
    longest_days = LONGEST_REPORT_DAYS

    def default_range(self, first: date | None, last: date | None) -> tuple[date, date]:
        first = first or current_gaming_day()
        return first, last or first


class LedgerAsOfForm(forms.Form):
    as_of = GamingDayField(
        label=_("Balances as of the end of gaming day"), required=False, widget=DATE_INPUT
    )
    currency = forms.ChoiceField(
        label=_("Currency"), required=False, choices=[("", _("every currency")), *Currency.choices]
    )
    kind = forms.ChoiceField(
        label=_("Account kind"),
        required=False,
        choices=[("", _("every kind")), *AccountKind.choices],
    )

    def moment(self) -> datetime | None:
        """The end of the chosen gaming day, or None for now."""
        day = self.cleaned_data.get("as_of")
        return gaming_day_bounds(day, day)[1] if day else None
