"""The one way a range of gaming days is read from a query string or a form: the statement, the
fair-play report and the gaming-day report. Each day lies within the calendar's gaming days
(``FIRST_GAMING_DAY`` to ``LAST_GAMING_DAY``: the calendar's own ends have no whole gaming day),
the last is no earlier than the first, the range is at most ``longest_days`` long, and a day left
out is counted back from the other without leaving the calendar."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from casino.gaming_day import FIRST_GAMING_DAY, LAST_GAMING_DAY, gaming_day_of

DATE_INPUT = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


class GamingDayField(forms.DateField):
    """A gaming day the calendar holds from its start to its end (9999-12-31 has no end)."""

    default_validators = [MinValueValidator(FIRST_GAMING_DAY), MaxValueValidator(LAST_GAMING_DAY)]


def current_gaming_day() -> date:
    return gaming_day_of(timezone.now())


def days_before(day: date, days: int) -> date:
    """The gaming day ``days`` before ``day``, or the calendar's first when that is earlier."""
    if (day - FIRST_GAMING_DAY).days <= days:
        return FIRST_GAMING_DAY
    return day - timedelta(days=days)


class GamingDayRangeForm(forms.Form):
    """Gaming days ``first_name`` to ``last_name``, both included and both optional: by default
    the ``default_days()`` gaming days up to the current one. The fields are added by name, as
    ``from`` is a Python word."""

    first_name = "from"
    last_name = "to"
    first_label = _("From gaming day")
    last_label = _("To gaming day")
    longest_days: int | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields = {
            self.first_name: self.day_field(self.first_label),
            self.last_name: self.day_field(self.last_label),
            **self.fields,
        }

    def day_field(self, label: Any) -> forms.DateField:
        return GamingDayField(label=label, required=False, widget=DATE_INPUT)

    def default_days(self) -> int:
        return 1

    def default_range(self, first: date | None, last: date | None) -> tuple[date, date]:
        """The range when a day is left out."""
        last = last or current_gaming_day()
        return first or days_before(last, self.default_days() - 1), last

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        first, last = self.default_range(data.get(self.first_name), data.get(self.last_name))
        if last < first:
            self.add_error(
                self.last_name,
                forms.ValidationError(
                    _("The last gaming day is before the first."), code="date_order"
                ),
            )
        elif self.longest_days is not None and (last - first).days >= self.longest_days:
            self.add_error(
                self.last_name,
                forms.ValidationError(
                    _("Ask for at most %(days)s gaming days at once."),
                    code="max_range",
                    params={"days": self.longest_days},
                ),
            )
        data[self.first_name], data[self.last_name] = first, last
        return data

    def days(self) -> tuple[date, date]:
        return self.cleaned_data[self.first_name], self.cleaned_data[self.last_name]
