"""The nightly fair-play check on Celery beat: collusion alerts for the last gaming days."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from casino.gaming_day import gaming_day_bounds, gaming_day_of
from games.peer.alerts import raise_alerts


@shared_task(name="games.peer.tasks.raise_collusion_alerts", acks_late=True)
def raise_collusion_alerts() -> int:
    """Alerts for the pairs flagged over the last ``COLLUSION_PERIOD_DAYS`` whole gaming days;
    returns how many were raised (a pair alerted in the period already is not again)."""
    last = gaming_day_of(timezone.now()) - timedelta(days=1)
    first = last - timedelta(days=settings.COLLUSION_PERIOD_DAYS - 1)
    start, end = gaming_day_bounds(first, last)
    return len(raise_alerts(start=start, end=end))
