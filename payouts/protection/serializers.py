"""The limits over the API: money as strings like every amount, the session time in minutes."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from payouts.models import Currency
from payouts.protection.models import LimitKind
from payouts.serializers import AmountField


class LimitRequestSerializer(serializers.Serializer[None]):
    kind = serializers.ChoiceField(choices=LimitKind.choices)
    currency = serializers.ChoiceField(
        choices=Currency.choices,
        required=False,
        allow_blank=True,
        help_text="the wallet's currency; none for the session time limit",
    )
    value = AmountField(
        min_value=Decimal("0.00"),
        allow_null=True,
        help_text='money as a string ("50.00"), the session time in minutes ("90"); '
        "null removes the limit (after the cooling-off)",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["kind"] != LimitKind.SESSION_TIME and not attrs.get("currency"):
            raise serializers.ValidationError(
                {"currency": [_("A money limit needs the currency of one of your wallets.")]},
                code="required",
            )
        return attrs


class LimitsRequestSerializer(serializers.Serializer[None]):
    limits = serializers.ListField(
        child=LimitRequestSerializer(),
        allow_empty=False,
        max_length=len(LimitKind.values) * len(Currency.values),
    )


class LimitSerializer(serializers.Serializer[Any]):
    """A ``LimitState``, or a list of them."""

    kind = serializers.ChoiceField(choices=LimitKind.choices)
    name = serializers.CharField(source="label", help_text="the limit in words, in your language")
    currency = serializers.CharField(help_text='"" for the session time limit')
    value = serializers.DecimalField(
        max_digits=14, decimal_places=2, allow_null=True, help_text="in force now; null: none"
    )
    pending = serializers.BooleanField(help_text="a raise or removal waits out the cooling-off")
    pending_value = serializers.DecimalField(
        max_digits=14, decimal_places=2, allow_null=True, help_text="what applies then"
    )
    applies_at = serializers.DateTimeField(allow_null=True)
    used = serializers.DecimalField(
        max_digits=14,
        decimal_places=2,
        allow_null=True,
        help_text="deposited or lost in the period so far",
    )
    near = serializers.BooleanField(help_text="at least 80% of the limit is used")
    resets_at = serializers.DateTimeField(
        allow_null=True, help_text="when the period's count starts again"
    )
