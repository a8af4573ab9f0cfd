"""Celery tasks of the games: decision timers and the sweeper that backs them up."""

from __future__ import annotations

import logging
from collections.abc import Callable

from celery import shared_task
from django.db import connection, transaction
from django.utils import timezone

from casino.faults import fault_point
from games.joker_draw import rtp_monitor
from games.joker_draw import services as joker_draw
from games.models import Game, Round, RoundStatus
from games.tables import alerts
from games.tables.table_game import all_games

logger = logging.getLogger(__name__)

# How long one table's catch-up waits for a lock before it is given up until the next sweep.
CATCH_UP_LOCK_TIMEOUT = "2s"


@shared_task(name="games.tasks.expire_joker_draw_decision", acks_late=True)
def expire_joker_draw_decision(round_id: int) -> None:
    """Fold the box whose decision time ran out; harmless if it has acted meanwhile, or if this
    is a redelivery of a timer that already ran (README, Crashes)."""
    fault_point("timer.started")
    joker_draw.expire_decision(round_id)
    fault_point("timer.committed")  # folded, but the broker never heard the task end


@shared_task(name="games.tasks.fold_overdue_boxes")
def fold_overdue_boxes() -> int:
    """The joker draw decision timer (JD-4), on Celery beat's one-second tick: each round with
    a box out of time goes to a fold task of its own. No request sends a broker message for
    its timer; a fold comes at most about a second after the deadline, and a decision that
    comes after the deadline is refused on arrival anyway. Returns how many were handed on."""
    overdue = _overdue_joker_draw_rounds()
    for round_id, _table_id in overdue:
        expire_joker_draw_decision.delay(round_id)
    return len(overdue)


@shared_task(name="games.tasks.sweep_overdue_rounds")
def sweep_overdue_rounds() -> int:
    """Fold every overdue decision and deal every due hand of every game, so a lost timer
    delays a fold or a deal but never loses one. Each table is caught up in a transaction of
    its own: one that fails is rolled back, logged and shown to the pit
    (``games.tables.alerts``), and the other tables are still caught up. Returns how many
    rounds were overdue (caught up one by one: the joker draw's)."""
    catch_ups = [catch_up for game in all_games() for catch_up in game.overdue()]
    caught_up: set[int] = set()
    failed: set[int] = set()
    for catch_up in catch_ups:
        (caught_up if _caught_up(catch_up.table_id, catch_up.run) else failed).add(
            catch_up.table_id
        )
    alerts.clear_catch_up_failures(caught_up - failed)
    return sum(catch_up.round_id is not None for catch_up in catch_ups)


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


def _overdue_joker_draw_rounds() -> list[tuple[int, int]]:
    """Each joker draw round with a box out of time, and its table."""
    return list(
        Round.objects.filter(
            status=RoundStatus.DECIDING,
            table__game=Game.JOKER_DRAW,
            decision_deadline__lte=timezone.now(),
        ).values_list("pk", "table_id")
    )


@shared_task(name="games.tasks.observe_rtp", acks_late=True)
def observe_rtp() -> int:
    """Record actual against theoretical RTP of every table and paytable version; returns how
    many observations raised an alert."""
    return sum(observation.alert for observation in rtp_monitor.observe_rtp())
