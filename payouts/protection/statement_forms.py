"""The statement's period as the page, the API and the staff's CSV read it from a query string:
gaming days ``from`` to ``to``, both included; the last 30 days when none is given."""

from __future__ import annotations

from datetime import date
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from casino.day_range import DATE_INPUT, GamingDayField, GamingDayRangeForm
from casino.gaming_day import gaming_day_of

DEFAULT_DAYS = 30
# How far back a statement reaches: five years of gaming days (at least twelve months must be).
YEARS_KEPT = 5
ISO_DATE = ["%Y-%m-%d"]


def years_before(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year - years)
    except ValueError:  # the 29th of February, in a year without one
        return day.replace(year=day.year - years, day=28)


class StatementPeriodForm(GamingDayRangeForm):
    def day_field(self, label: Any) -> forms.DateField:
        return GamingDayField(
            label=label,
            required=False,
            widget=DATE_INPUT,
            input_formats=ISO_DATE,
            error_messages={"invalid": _("Give a date as YYYY-MM-DD.")},
        )

    def default_days(self) -> int:
        return DEFAULT_DAYS

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        first, last = self.days()
        today = gaming_day_of(timezone.now())
        earliest = years_before(today, YEARS_KEPT)
        if last > today:
            self.add_error(
                "to",
                forms.ValidationError(
                    _("The statement ends at the latest today, gaming day %(today)s."),
                    code="statement_in_future",
                    params={"today": today.isoformat()},
                ),
            )
        elif first < earliest:
            self.add_error(
                "from",
                forms.ValidationError(
                    _(
                        "A statement reaches back %(years)s years, to gaming day "
                        "%(earliest)s at the earliest."
                    ),
                    code="statement_too_old",
                    params={"years": YEARS_KEPT, "earliest": earliest.isoformat()},
                ),
            )
        return data

    def period(self) -> tuple[date, date]:
        return self.days()

    def refusal(self) -> tuple[str, str, str]:
        """The first refusal as the API words it: the field, its stable code, the message."""
        name, errors = next(iter(self.errors.as_data().items()))
        error = errors[0]
        code = "invalid_date" if error.code == "invalid" else str(error.code)
        return name, code, str(next(iter(error)))
