"""Celery beat on every node, one leader: the schedule is sent by exactly one beat at a time.

Each node may run its own beat (no node is special, so losing any one loses nothing), but a
scheduled job must run once. The beats elect a leader with a Redis lock (redis-py's ``Lock``,
on the broker's Redis): only the holder sends due jobs, renewing the lock on every tick; the
others only try to take it. A leader that dies stops renewing, its lock expires after
``BEAT_LEADER_LOCK_SECONDS`` and another beat takes over.

The schedule and each job's last run stay in the database (django-celery-beat), and the
leader writes a job's last run as soon as it sends it (``CELERY_BEAT_SYNC_EVERY``), and a beat
that takes over reads them afresh before it sends anything: a nightly job its predecessor
already sent is not sent again.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import redis
from django.conf import settings
from django_celery_beat.schedulers import DatabaseScheduler
from redis.exceptions import LockError

logger = logging.getLogger(__name__)

LOCK_NAME = "casino:beat-leader"


class LeaderScheduler(DatabaseScheduler):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        seconds = settings.BEAT_LEADER_LOCK_SECONDS
        client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=seconds / 3)
        self.lock = client.lock(LOCK_NAME, timeout=seconds, thread_local=False)
        self.leading = False
        super().__init__(*args, **kwargs)

    def tick(self, *args: Any, **kwargs: Any) -> float:
        if not self._lead():
            return min(1.0, settings.BEAT_LEADER_LOCK_SECONDS / 3)
        return float(super().tick(*args, **kwargs))

    def _lead(self) -> bool:
        """Whether this beat leads now: it renews the lock it holds, or takes a free one."""
        was_leading = self.leading
        try:
            if self.leading:
                self.lock.reacquire()
            else:
                self.leading = bool(self.lock.acquire(blocking=False))
        except (LockError, redis.RedisError) as error:  # lost to expiry, or Redis away
            logger.warning("beat: not leading (%s)", error)
            self.leading = False
        if self.leading and not was_leading:
            logger.info("beat: leading the schedule")
            self._read_schedule_afresh()
        return self.leading

    def _read_schedule_afresh(self) -> None:
        """The last runs as the previous leader left them in the database: a last run written
        by the scheduler does not mark the schedule changed, so this beat's own copy, read
        when it started, would send again what the previous leader sent."""
        self._schedule = self.all_as_schedule()
        self._heap: list[Any] = []
        self._heap_invalidated = True

    def close(self) -> None:
        if self.leading:
            with contextlib.suppress(LockError, redis.RedisError):
                self.lock.release()  # the next beat need not wait for the lock to expire
        super().close()
