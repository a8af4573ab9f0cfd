"""Celery tasks of the games: decision timers and the sweeper that backs them up."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from games.models import Game, Round, RoundStatus, Seat, SeatStatus
from games.services import joker_draw, stud


@shared_task(acks_late=True)
def expire_joker_draw_decision(round_id: int) -> None:
    """Fold the box whose decision time ran out; harmless if it has acted meanwhile."""
    joker_draw.expire_decision(round_id)


@shared_task(acks_late=True)
def catch_up_stud_table(table_id: int) -> None:
    """Act for a stud player whose time ran out, or deal the hand that is due; harmless if
    nothing is due any more."""
    stud.catch_up(table_id)


@shared_task
def sweep_overdue_rounds() -> int:
    """Fold every overdue decision and deal every due stud hand, so a lost timer delays a fold
    or a deal but never loses one."""
    overdue = Round.objects.filter(
        status=RoundStatus.DECIDING,
        table__game=Game.JOKER_DRAW,
        decision_deadline__lte=timezone.now(),
    ).values_list("pk", flat=True)
    for round_id in overdue:
        joker_draw.expire_decision(round_id)
    stud_tables = set(
        Round.objects.filter(
            status=RoundStatus.DECIDING,
            table__game=Game.SEVEN_CARD_STUD,
            decision_deadline__lte=timezone.now(),
        ).values_list("table_id", flat=True)
    ) | set(
        Seat.objects.filter(status=SeatStatus.SEATED, table__game=Game.SEVEN_CARD_STUD).values_list(
            "table_id", flat=True
        )
    )
    for table_id in stud_tables:
        stud.catch_up(table_id)
    return len(overdue)
