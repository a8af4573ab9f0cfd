"""The sweeper: the timers' back-up for every game's tables. The games' own timers are in their
packages' ``tasks`` modules."""

from __future__ import annotations

import logging
from collections.abc import Callable

from celery import shared_task
from django.db import connection, transaction

from games.tables import alerts
from games.tables.table_game import all_games

logger = logging.getLogger(__name__)

# How long one table's catch-up waits for a lock before it is given up until the next sweep.
CATCH_UP_LOCK_TIMEOUT = "2s"


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
