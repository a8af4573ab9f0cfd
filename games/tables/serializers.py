from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers

from games.models import Table, TableLimits
from games.tables.table_game import game_of


class TableSerializer(serializers.ModelSerializer[Table]):
    limits = serializers.SerializerMethodField()
    limits_version = serializers.SerializerMethodField()

    class Meta:
        model = Table
        fields = (
            "id",
            "name",
            "game",
            "currency",
            "status",
            "status_reason",
            "limits_version",
            "limits",
        )

    def _limits(self, table: Table) -> Any:
        approved = getattr(table, "approved_limits", None)
        return approved[0] if approved else table.active_limits()

    def get_limits_version(self, table: Table) -> int | None:
        limits = self._limits(table)
        return limits.number if limits else None

    def get_limits(self, table: Table) -> dict[str, str | int | bool | None]:
        """The limits in force, money as strings with two places, paytables by name."""
        limits = self._limits(table)
        return limit_values(limits, table.game) if limits is not None else {}


def limit_values(limits: TableLimits, game: str) -> dict[str, str | int | bool | None]:
    """A version's limits of its table's ``game``: money as strings with two places, paytables
    by name."""
    shown: dict[str, str | int | bool | None] = {}
    for name in game_of(game).limit_fields:
        value = getattr(limits, name)
        if isinstance(value, Decimal):
            shown[name] = f"{value:.2f}"
        elif value is None or isinstance(value, bool | int):
            shown[name] = value
        else:
            shown[name] = str(value)
    return shown
