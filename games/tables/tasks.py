"""Celery tasks of the games: decision timers and the sweeper that backs them up."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from celery import shared_task
from django.db import connection, transaction
from django.utils import timezone

from games.drawmaha import services as drawmaha
from games.joker_draw import services as joker_draw
from games.joker_draw.selectors import overdue_rounds
from games.models import Game, Round, RoundStatus, Seat, SeatStatus
from games.stud import services as stud
from games.tables import alerts

logger = logging.getLogger(__name__)

# How long one table's catch-up waits for a lock before it is given up until the next sweep.
CATCH_UP_LOCK_TIMEOUT = "2s"


@shared_task(name="games.tasks.catch_up_stud_table", acks_late=True)
def catch_up_stud_table(table_id: int) -> None:
    """Act for a stud player whose time ran out, or deal the hand that is due; harmless if
    nothing is due any more."""
    stud.catch_up(table_id)


@shared_task(name="games.tasks.catch_up_drawmaha_table", acks_late=True)
def catch_up_drawmaha_table(table_id: int) -> None:
    """Act for a Drawmaha player whose time ran out, or deal the hand that is due; harmless if
    nothing is due any more."""
    drawmaha.catch_up(table_id)


@shared_task(name="games.tasks.sweep_overdue_rounds")
def sweep_overdue_rounds() -> int:
    """Fold every overdue decision and deal every due stud and Drawmaha hand, so a lost timer
    delays a fold or a deal but never loses one. Each table is caught up in a transaction of
    its own: one that fails is rolled back, logged and shown to the pit
    (``games.tables.alerts``), and the other tables are still caught up. Returns how many joker
    draw rounds were overdue."""
    overdue = overdue_rounds()
    caught_up: set[int] = set()
    failed: set[int] = set()
    catch_ups: list[tuple[int, Callable[[], object]]] = [
        (table_id, functools.partial(joker_draw.expire_decision, round_id))
        for round_id, table_id in overdue
    ]
    for game, catch_up in (
        (Game.SEVEN_CARD_STUD, stud.catch_up),
        (Game.DRAWMAHA, drawmaha.catch_up),
    ):
        catch_ups += [
            (table_id, functools.partial(catch_up, table_id))
            for table_id in _peer_tables_to_touch(game)
        ]
    for table_id, catch_up_table in catch_ups:
        (caught_up if _caught_up(table_id, catch_up_table) else failed).add(table_id)
    alerts.clear_catch_up_failures(caught_up - failed)
    return len(overdue)


def _caught_up(table_id: int, catch_up: Callable[[], object]) -> bool:
    """Run one table's catch-up on its own; False (logged and alerted) if it failed."""
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                # A request that hangs holding the table's lock fails this table's catch-up
                # after a short wait, instead of holding up every other table's with it.
                cursor.execute(
                    "SELECT set_config('lock_timeout', %s, true)", [CATCH_UP_LOCK_TIMEOUT]
                )
            catch_up()
    except Exception as error:
        # Any failure: a stuck round must not keep the casino's other tables from their timers.
        logger.exception("catch-up of table %s failed", table_id)
        alerts.catch_up_failed(table_id, error)
        return False
    return True


def _peer_tables_to_touch(game: str) -> set[int]:
    """Tables of a peer game with an overdue decision, or seated players a hand may be due to."""
    overdue = Round.objects.filter(
        status=RoundStatus.DECIDING, table__game=game, decision_deadline__lte=timezone.now()
    ).values_list("table_id", flat=True)
    seated = Seat.objects.filter(status=SeatStatus.SEATED, table__game=game).values_list(
        "table_id", flat=True
    )
    return set(overdue) | set(seated)
