"""Celery application: timers, settlement jobs, reports and simulations run here."""

import os

from celery import Celery

from casino import metrics

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

app = Celery("casino")
app.config_from_object("django.conf:settings", namespace="CELERY")
# The task modules live in the packages of the games and of the ledger.
app.autodiscover_tasks(
    ["games.tables", "games.peer", "games.joker_draw", "games.stud", "games.drawmaha", "payouts"]
)
# Every task a worker runs is counted and timed by its name and outcome (GET /metrics).
metrics.count_celery_tasks()
