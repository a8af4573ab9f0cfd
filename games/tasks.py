"""Celery tasks of the games: decision timers and the sweeper that backs them up."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from games.models import Game, Round, RoundStatus
from games.services import joker_draw


@shared_task(acks_late=True)
def expire_joker_draw_decision(round_id: int) -> None:
    """Fold the box whose decision time ran out; harmless if it has acted meanwhile."""
    joker_draw.expire_decision(round_id)


@shared_task
def sweep_overdue_rounds() -> int:
    """Fold every overdue decision, so a lost timer delays a fold but never loses one."""
    overdue = Round.objects.filter(
        status=RoundStatus.DECIDING,
        table__game=Game.JOKER_DRAW,
        decision_deadline__lte=timezone.now(),
    ).values_list("pk", flat=True)
    for round_id in overdue:
        joker_draw.expire_decision(round_id)
    return len(overdue)
