"""Drawmaha's timer, and the game that sends it: ``DRAWMAHA``, the Drawmaha tables' services
(``games.drawmaha.services.Drawmaha``) with this task as the timer that catches a table up."""

from __future__ import annotations

from celery import shared_task

from games.drawmaha.services import Drawmaha


@shared_task(name="games.tasks.catch_up_drawmaha_table", acks_late=True)
def catch_up_drawmaha_table(table_id: int) -> None:
    """Act for a Drawmaha player whose time ran out, or deal the hand that is due; harmless if
    nothing is due any more."""
    DRAWMAHA.catch_up(table_id)


DRAWMAHA = Drawmaha(timer=catch_up_drawmaha_table)
