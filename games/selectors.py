"""Read queries over tables."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Prefetch, Q, QuerySet

from casino.roles import STAFF_ROLES

from .models import Game, Round, Table, TableLimits, TableStatus

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


def rounds_for(
    user: User | AnonymousUser, *, game: str, table: int | None = None
) -> QuerySet[Round]:
    """Rounds the user may see: players their own, staff and auditors every round."""
    rounds = Round.objects.filter(table__game=game).select_related(
        "table", "player", "bet_paytable_version__paytable", "bonus_paytable_version__paytable"
    )
    if not is_staff_member(user):
        # A peer game's hand has no one player: it lists the players dealt in
        # (games.services.stud, games.services.drawmaha).
        own = (
            Q(engine_state__contains={"players": [user.pk]})
            if game in (Game.SEVEN_CARD_STUD, Game.DRAWMAHA)
            else Q(player=user)
        )
        rounds = rounds.filter(own) if user.is_authenticated else rounds.none()
    if table is not None:
        rounds = rounds.filter(table_id=table)
    return rounds.order_by("-id")
