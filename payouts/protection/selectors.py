"""Read queries over player protection."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.utils import timezone

from payouts.protection import conduct
from payouts.protection.models import (
    REALITY_CHECK_DEFAULT_MINUTES,
    Exclusion,
    LimitChange,
    PlaySession,
    RealityCheck,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def exclusions_of(player: User) -> list[Exclusion]:
    return list(Exclusion.objects.filter(player=player))


def limit_history(player: User, count: int = 100) -> list[LimitChange]:
    """The player's latest requests to change a limit, newest first."""
    return list(LimitChange.objects.filter(limit__player=player).select_related("limit")[:count])


def reality_check_minutes(player: User) -> int:
    chosen = (
        PlaySession.objects.filter(player=player)
        .values_list("reality_check_minutes", flat=True)
        .first()
    )
    return chosen or REALITY_CHECK_DEFAULT_MINUTES


@dataclass(frozen=True)
class ExclusionRow:
    exclusion: Exclusion
    in_force: bool


@dataclass(frozen=True)
class Conduct:
    """What the staff read about one player's own decisions on their play (read only)."""

    exclusions: list[ExclusionRow]
    in_force: Exclusion | None
    reality_checks: list[RealityCheck]
    session: conduct.Session | None
    reality_check_minutes: int


def player_conduct(player: User, now: datetime | None = None) -> Conduct:
    now = now or timezone.now()
    exclusions = exclusions_of(player)
    return Conduct(
        exclusions=[ExclusionRow(row, row.starts_at <= now < row.until) for row in exclusions],
        in_force=conduct.exclusion_in_force(player, now),
        reality_checks=list(RealityCheck.objects.filter(player=player)[:100]),
        session=conduct.current_session(player, now),
        reality_check_minutes=reality_check_minutes(player),
    )
