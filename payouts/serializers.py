from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from casino.roles import PLAYER
from payouts.models import (
    CENT,
    MONEY_DIGITS,
    MONEY_PLACES,
    Account,
    Currency,
    LedgerEntry,
    decimal_column,
    largest_amount,
)

# Every amount that comes in ends up in ledger entries; their column sets its digits and limit.
AMOUNT_COLUMN = decimal_column(LedgerEntry, "amount")
AMOUNT_PATTERN = re.compile(rf"[0-9]+(\.[0-9]{{1,{AMOUNT_COLUMN.decimal_places}}})?")
BALANCE_COLUMN = decimal_column(Account, "balance")


class WalletSerializer(serializers.ModelSerializer[Account]):
    class Meta:
        model = Account
        fields = ("currency", "balance")


class AccountSerializer(serializers.ModelSerializer[Account]):
    owner: serializers.SlugRelatedField[Account] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = Account
        fields = ("id", "kind", "currency", "owner", "balance")


class WalletEntrySerializer(serializers.ModelSerializer[LedgerEntry]):
    transaction = serializers.IntegerField(source="transaction_id")
    kind = serializers.CharField(source="transaction.kind")
    reason = serializers.CharField(source="transaction.reason")
    balance_after = serializers.DecimalField(
        max_digits=BALANCE_COLUMN.max_digits, decimal_places=BALANCE_COLUMN.decimal_places
    )
    created_at = serializers.DateTimeField()

    class Meta:
        model = LedgerEntry
        fields = ("id", "transaction", "kind", "reason", "amount", "balance_after", "created_at")


class AmountField(serializers.DecimalField):
    """Money in, as the API sends it out: a string of digits with at most two decimal places.

    Exponents ("1e9"), signs, NaN and numbers (floats) are refused rather than interpreted.
    """

    default_error_messages = {
        "format": _(
            'Send amounts as a string such as "12.30": digits, at most two decimal places.'
        ),
        "max_value": _("The ledger holds amounts up to {max_value}."),
    }

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_digits", AMOUNT_COLUMN.max_digits)
        kwargs.setdefault("decimal_places", AMOUNT_COLUMN.decimal_places)
        kwargs.setdefault("max_value", largest_amount(LedgerEntry, "amount"))
        kwargs.setdefault("min_value", CENT)
        super().__init__(**kwargs)

    def validate_empty_values(self, data: Any) -> tuple[bool, Any]:
        # DRF reads "" as null where null is allowed; an empty string is no amount: refused.
        return serializers.Field.validate_empty_values(self, data)

    def to_internal_value(self, data: Any) -> Decimal:
        if not isinstance(data, str) or not AMOUNT_PATTERN.fullmatch(data):
            self.fail("format")
        # Before the digits are counted: the answer then says what the largest amount is.
        if self.max_value is not None and Decimal(data) > self.max_value:
            self.fail("max_value", max_value=self.max_value)
        return super().to_internal_value(data)


class MoneyField(serializers.DecimalField):
    """Money out, as every answer writes it: a string with two decimal places, signed where it
    is a result ("-5.00")."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_digits=MONEY_DIGITS, decimal_places=MONEY_PLACES, **kwargs)


class CageMovementSerializer(serializers.Serializer[None]):
    player = serializers.SlugRelatedField(
        slug_field="username", queryset=get_user_model().objects.filter(groups__name=PLAYER)
    )
    currency = serializers.ChoiceField(choices=Currency.choices)
    amount = AmountField()
    reason = serializers.CharField(max_length=500)


class CageReceiptSerializer(serializers.Serializer[None]):
    """A cage deposit or withdrawal as posted: its ledger transaction and the wallet's balance
    after it."""

    transaction = serializers.IntegerField()
    player = serializers.CharField()
    currency = serializers.ChoiceField(choices=Currency.choices)
    amount = MoneyField()
    balance = MoneyField()
