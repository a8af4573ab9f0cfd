"""Seven-card stud's timer, and the game that sends it: ``STUD``, the stud tables' services
(``games.stud.services.Stud``) with this task as the timer that catches a table up."""

from __future__ import annotations

from celery import shared_task

from games.stud.services import Stud


@shared_task(name="games.tasks.catch_up_stud_table", acks_late=True)
def catch_up_stud_table(table_id: int) -> None:
    """Act for a stud player whose time ran out, or deal the hand that is due; harmless if
    nothing is due any more."""
    STUD.catch_up(table_id)


STUD = Stud(timer=catch_up_stud_table)
