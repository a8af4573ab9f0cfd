"""Celery beat on two nodes sends each scheduled job once (casino.beat): one beat leads by a
Redis lock, another takes over when it stops, and does not send again what the first sent."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
import redis
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from casino.beat import LOCK_NAME, LeaderScheduler
from casino.celery import app

pytestmark = pytest.mark.django_db(transaction=True)  # the beats read what the other wrote


@pytest.fixture
def hourly_job(monkeypatch) -> PeriodicTask:
    """An hourly job last run two hours ago, so it is due; the settings' own jobs left out."""
    monkeypatch.setitem(app.conf, "beat_schedule", {})
    every_hour = IntervalSchedule.objects.create(every=1, period=IntervalSchedule.HOURS)
    return PeriodicTask.objects.create(
        name="hourly report",
        task="reports.hourly",
        interval=every_hour,
        last_run_at=timezone.now() - timedelta(hours=2),
    )


@pytest.fixture
def beats(settings, monkeypatch) -> Any:
    settings.BEAT_LEADER_LOCK_SECONDS = 2
    sent: list[tuple[str, str]] = []
    made: list[LeaderScheduler] = []

    def make(node: str) -> LeaderScheduler:
        beat = LeaderScheduler(app=app)
        monkeypatch.setattr(beat, "send_task", lambda name, *a, **k: sent.append((node, name)))
        made.append(beat)
        return beat

    redis.Redis.from_url(settings.CELERY_BROKER_URL).delete(LOCK_NAME)  # none left from before
    yield make, sent
    for beat in made:
        beat.close()


def test_only_the_leading_beat_sends_a_due_job(hourly_job, beats):
    make, sent = beats
    node_a, node_b = make("a"), make("b")
    for _ in range(3):
        node_a.tick()
        node_b.tick()
    assert (node_a.leading, node_b.leading) == (True, False)
    assert sent == [("a", "reports.hourly")]


def test_a_beat_takes_over_a_stopped_leader_without_sending_its_job_again(hourly_job, beats):
    make, sent = beats
    node_a, node_b = make("a"), make("b")  # both read the job as due
    node_a.tick()
    assert sent == [("a", "reports.hourly")]
    node_a.close()  # node A's beat stops
    node_b.tick()
    assert node_b.leading
    assert sent == [("a", "reports.hourly")]  # B read the last run A wrote
    hourly_job.refresh_from_db()
    assert hourly_job.total_run_count == 1


def test_a_leader_that_stops_renewing_loses_the_lead_when_its_lock_expires(hourly_job, beats):
    make, _sent = beats
    node_a, node_b = make("a"), make("b")
    node_a.tick()
    node_a.lock.redis.pexpire(LOCK_NAME, 1)  # as if A had hung past the lock's time
    time.sleep(0.01)
    node_b.tick()
    node_a.tick()
    assert (node_a.leading, node_b.leading) == (False, True)
