"""One way to show an amount on every page: in the active language's format, always two places
and grouped (1,234.50 in English, 1 234,50 in Russian and Swedish)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django import template
from django.utils import formats

register = template.Library()


@register.filter
def money(value: object, currency: str = "") -> str:
    """`{{ amount|money }}` or `{{ amount|money:"USD" }}`; what is not an amount shows as it is."""
    try:
        amount = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return str(value)
    shown = formats.number_format(amount, 2, use_l10n=True, force_grouping=True)
    return f"{shown} {currency}" if currency else shown
