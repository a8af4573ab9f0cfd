"""The staff API's shapes for the pit: tables, limits' versions, paytable versions and their
diff, RTP runs. Input is checked here for shape (money as strings, odds as "5:1"), by the
services for the rules."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from django.db import models
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from games.joker_draw.paytable_selectors import (
    PaytableDiff,
    RtpProgress,
    lines_in_rank_order,
    odds_text,
)
from games.models import Game, Table, TableLimits
from games.tables.serializers import limit_values
from games.tables.table_game import game_of
from payouts.models import Currency, Paytable, PaytableCategory, PaytableKind, PaytableVersion
from payouts.serializers import AmountField

ODDS = re.compile(r"[1-9][0-9]{0,8}(:[1-9][0-9]{0,8})?")


class ReasonSerializer(serializers.Serializer[None]):
    reason = serializers.CharField(max_length=500, help_text=_("Why (kept in the history)."))


class StatusChangeSerializer(ReasonSerializer):
    # Closing a peer table with players seated: after the hand in play, cash them all out.
    cash_out_seated = serializers.BooleanField(
        default=False, help_text=_("after this hand: cash out the seated players")
    )


class NewTableSerializer(serializers.Serializer[None]):
    name = serializers.CharField(max_length=Table._meta.get_field("name").max_length)  # type: ignore[arg-type]
    game = serializers.ChoiceField(choices=Game.choices)
    currency = serializers.ChoiceField(choices=Currency.choices)
    reason = serializers.CharField(max_length=500, help_text=_("Why (kept in the history)."))


class StaffTableSerializer(serializers.ModelSerializer[Table]):
    class Meta:
        model = Table
        fields = ("id", "name", "game", "currency", "status", "created_at")


class LimitsVersionSerializer(serializers.ModelSerializer[TableLimits]):
    proposed_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    approved_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    limits = serializers.SerializerMethodField()

    class Meta:
        model = TableLimits
        fields = (
            "id", "table", "number", "status", "reason", "proposed_by", "proposed_at",
            "approved_by", "approved_at", "limits",
        )  # fmt: skip

    def get_limits(self, version: TableLimits) -> dict[str, str | int | bool | None]:
        return limit_values(version, version.table.game)


def limits_serializer(game: str) -> type[serializers.Serializer[Any]]:
    """The limits a proposal of ``game``'s tables sends: money as strings with two places,
    paytables by name; each may be left out (the rules then say what is missing)."""
    fields: dict[str, serializers.Field[Any, Any, Any, Any]] = {}
    for name in game_of(game).limit_fields:
        column = TableLimits._meta.get_field(name)
        options: dict[str, Any] = {"required": False, "allow_null": True}
        if isinstance(column, models.ForeignKey):
            kind = PaytableKind.BET if name == "bet_paytable" else PaytableKind.BONUS
            fields[name] = serializers.SlugRelatedField(
                slug_field="name", queryset=Paytable.objects.filter(kind=kind), **options
            )
        elif isinstance(column, models.DecimalField) and column.decimal_places == 2:
            if column.max_digits == 14:
                fields[name] = AmountField(**options)
            else:  # percents
                fields[name] = serializers.DecimalField(
                    max_digits=column.max_digits, decimal_places=2, min_value=0, **options
                )
        elif isinstance(column, models.BooleanField):
            fields[name] = serializers.BooleanField(**options)
        else:
            fields[name] = serializers.IntegerField(min_value=1, max_value=32767, **options)
    return type("LimitsProposal", (serializers.Serializer,), fields)


class LimitsProposalSerializer(serializers.Serializer[None]):
    """A proposal: the limits of the table's game (the names ``GET /api/v1/tables/`` shows),
    money as strings with two places, paytables by name."""

    limits = serializers.DictField(child=serializers.JSONField())
    reason = serializers.CharField(max_length=500)


class PaytableVersionSerializer(serializers.ModelSerializer[PaytableVersion]):
    paytable: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="name", read_only=True
    )
    proposed_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    approved_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    lines = serializers.SerializerMethodField()

    class Meta:
        model = PaytableVersion
        fields = (
            "id", "paytable", "number", "status", "reason", "proposed_by", "proposed_at",
            "approved_by", "approved_at", "lines",
        )  # fmt: skip

    def get_lines(self, version: PaytableVersion) -> dict[str, str]:
        """Each hand category's odds as "pays:per", highest hand first."""
        return {category: odds_text(odds) for category, _, odds in lines_in_rank_order(version)}


class PaytableProposalSerializer(serializers.Serializer[None]):
    paytable = serializers.SlugRelatedField(slug_field="name", queryset=Paytable.objects.all())
    lines = serializers.DictField(
        child=serializers.CharField(max_length=19),
        help_text=_('Odds by hand category, as "pays:per" or a whole number: {"pair": "1:1"}.'),
    )
    reason = serializers.CharField(max_length=500)

    def validate_lines(self, lines: dict[str, str]) -> dict[str, Fraction]:
        if not lines:
            raise serializers.ValidationError(
                _("A paytable version needs at least one line (JD-14)."), code="no_lines"
            )
        odds = {}
        for category, text in lines.items():
            if category not in PaytableCategory.values:
                raise serializers.ValidationError(
                    _("%(category)s is not a hand category (JD-14).") % {"category": category},
                    code="unknown_category",
                )
            if not ODDS.fullmatch(text):
                raise serializers.ValidationError(
                    _("%(odds)s: odds are written like 5:1 or 3:2, above zero (JD-14).")
                    % {"odds": text},
                    code="odds",
                )
            numerator, _sep, denominator = text.partition(":")
            odds[category] = Fraction(int(numerator), int(denominator or "1"))
        return odds


class PaytableLineDiffSerializer(serializers.Serializer[None]):
    category = serializers.CharField()
    in_force = serializers.CharField(allow_null=True)
    proposed = serializers.CharField(allow_null=True)
    change = serializers.ChoiceField(choices=["added", "removed", "changed", "same"])


class PaytableDiffSerializer(serializers.Serializer[PaytableDiff]):
    version = serializers.IntegerField(source="version.pk")
    in_force = serializers.IntegerField(source="in_force.pk", allow_null=True)
    lines = serializers.SerializerMethodField()
    rtp_in_force = serializers.DecimalField(max_digits=9, decimal_places=4, allow_null=True)
    rtp_proposed = serializers.DecimalField(max_digits=9, decimal_places=4, allow_null=True)
    typical_in_force = serializers.DecimalField(max_digits=9, decimal_places=4, allow_null=True)
    typical_proposed = serializers.DecimalField(max_digits=9, decimal_places=4, allow_null=True)

    def get_lines(self, diff: PaytableDiff) -> list[dict[str, str | None]]:
        return [
            {
                "category": line.category,
                "in_force": odds_text(line.in_force) or None,
                "proposed": odds_text(line.proposed) or None,
                "change": line.change,
            }
            for line in diff.lines
        ]


class RtpRunStartSerializer(serializers.Serializer[None]):
    """Nothing to send: a run of the version's current lines, as long as approval needs."""


class RtpRunSerializer(serializers.Serializer[RtpProgress]):
    id = serializers.IntegerField(source="run.pk")
    paytable_version = serializers.IntegerField(source="run.paytable_version_id")
    status = serializers.CharField(source="run.status")
    rounds = serializers.IntegerField(source="run.rounds")
    chunks = serializers.IntegerField()
    chunks_done = serializers.IntegerField()
    percent = serializers.IntegerField()
    rtp = serializers.CharField(allow_null=True, help_text=_("Percent, once the run is done."))
    error = serializers.CharField()
    result = serializers.JSONField(source="run.result")
