"""Read queries of the joker draw."""

from __future__ import annotations

from django.utils import timezone

from games.models import Game, Round, RoundStatus


def overdue_rounds() -> list[tuple[int, int]]:
    """Each joker draw round with a box out of time, and its table."""
    return list(
        Round.objects.filter(
            status=RoundStatus.DECIDING,
            table__game=Game.JOKER_DRAW,
            decision_deadline__lte=timezone.now(),
        ).values_list("pk", "table_id")
    )
