"""Read queries over tables."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Prefetch, QuerySet

from casino.roles import STAFF_ROLES

from .models import Table, TableLimits, TableStatus

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


def is_staff_member(user: User | AnonymousUser) -> bool:
    return user.is_superuser or user.groups.filter(name__in=STAFF_ROLES).exists()


def tables_for(user: User | AnonymousUser, *, game: str | None = None) -> QuerySet[Table]:
    """Tables with their approved limits; players see open tables only, staff every table."""
    approved = (
        TableLimits.objects.filter(status="approved")
        .select_related("bet_paytable", "bonus_paytable")
        .order_by("-number")
    )
    tables = Table.objects.prefetch_related(
        Prefetch("limits_versions", queryset=approved, to_attr="approved_limits")
    )
    if not is_staff_member(user):
        tables = tables.filter(status=TableStatus.OPEN)
    if game:
        tables = tables.filter(game=game)
    return tables.order_by("game", "currency", "name")
