"""Form fields for money, shared by the admin and the staff screens."""

from __future__ import annotations

from typing import Any

from django import forms
from django.db import models

from payouts.models import decimal_column, largest_amount


def amount_field(model: type[models.Model], name: str, **kwargs: Any) -> forms.DecimalField:
    """A form field for an amount bound for (or compared with) the column ``model.name``: its
    digits, places and largest value come from the column, so no form takes what it cannot
    hold."""
    column = decimal_column(model, name)
    limit = largest_amount(model, name)
    kwargs.setdefault("min_value", -limit)
    return forms.DecimalField(
        max_digits=column.max_digits,
        decimal_places=column.decimal_places,
        max_value=limit,
        **kwargs,
    )
