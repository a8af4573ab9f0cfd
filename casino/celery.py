"""Celery application: timers, settlement jobs, reports and simulations run here, the game's
and the laboratory's on queues of their own (casino/settings.py, CELERY_TASK_ROUTES)."""

import os

from celery import Celery

from casino import metrics, workers

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

app = Celery("casino")
app.config_from_object("django.conf:settings", namespace="CELERY")
# The task modules live in the packages of the games and of the ledger.
app.autodiscover_tasks(
    ["games.tables", "games.peer", "games.joker_draw", "games.stud", "games.drawmaha", "payouts"]
)
# Each worker's heartbeat, which readiness (casino.health) reads; importing casino.workers
# connected its signal receivers (the request id, a log line per task, Django's logging).
app.steps["consumer"].add(workers.Heartbeat)
# Every task a worker runs is counted and timed by its name and outcome (GET /metrics).
metrics.count_celery_tasks()
