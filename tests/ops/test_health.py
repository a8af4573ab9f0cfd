"""The health checks (casino.health): /healthz says the process answers and touches nothing;
/readyz names each check, 200 when all pass and 503 naming what failed: the database down,
Redis down, a migration not applied, no Celery worker seen for a minute, a decision overdue.
Both answer anyone, over plain HTTP, to any Host, with no secret in the body."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder
from django.test import Client
from django.utils import timezone

from casino import health, workers
from games.models import Round
from games.tables.selectors import overdue_decisions
from tests.fixtures.tables import make_stud_table
from tests.fixtures.workers import private_broker_url

CHECKS = {"database", "migrations", "timers", "redis", "celery"}


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def heartbeat(age: int = 0) -> None:
    """A worker's heartbeat ``age`` seconds ago, by the broker's clock."""
    client = workers.redis_client(private_broker_url())
    now, _micro = client.time()
    client.zadd(workers.HEARTBEAT_KEY, {"celery@test": now - age})


@pytest.fixture(autouse=True)
def private_broker(settings) -> Iterator[None]:
    """Each test process's own Redis database as the broker (parallel tests share Redis), with
    no heartbeat in it; the checks' database connection closed after each test."""
    settings.CELERY_BROKER_URL = private_broker_url()
    # Generous for a shared test machine; the timeout has a test of its own.
    settings.HEALTH_CHECK_TIMEOUT = 5.0
    workers.redis_client(private_broker_url()).delete(workers.HEARTBEAT_KEY)
    yield
    health.close()


def ready(client: Client | None = None, **headers: str) -> tuple[int, dict]:
    response = (client or Client()).get("/readyz", headers=headers)
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    return response.status_code, response.json()


def failed(body: dict) -> dict[str, str]:
    return {name: state for name, state in body["checks"].items() if state != "ok"}


# Liveness --------------------------------------------------------------------------------------


def test_liveness_answers_without_touching_the_database():
    # No database access is allowed in this test: a query would fail it.
    response = Client().get("/healthz")
    assert (response.status_code, response.json()) == (200, {"status": "ok"})
    assert Client().head("/healthz").status_code == 200
    assert Client().post("/healthz").status_code == 405


def test_the_checks_answer_a_load_balancer_over_http_at_any_host(settings, transactional_db):
    """A load balancer probes the server's own address over plain HTTP: no redirect to HTTPS
    and no refusal of the Host header, while every other page gets both."""
    settings.SECURE_SSL_REDIRECT = True
    settings.ALLOWED_HOSTS = ["casino.example"]
    heartbeat()
    probe = Client(HTTP_HOST="10.1.2.3:8000")
    assert probe.get("/healthz").status_code == 200
    assert probe.get("/readyz").status_code == 200
    assert probe.get("/api/v1/tables/").status_code == 400  # DisallowedHost
    assert Client(HTTP_HOST="casino.example").get("/api/v1/tables/").status_code == 301


# Readiness ---------------------------------------------------------------------------------------


def test_ready_when_every_check_passes_with_no_sign_in(transactional_db):
    heartbeat(age=30)
    status, body = ready()
    assert status == 200
    assert body == {"status": "ok", "checks": dict.fromkeys(CHECKS, "ok")}


def test_a_real_worker_is_seen_by_its_heartbeat(celery_worker):
    # The worker's broker is this test process's own Redis database (private_broker).
    assert ready() == (200, {"status": "ok", "checks": dict.fromkeys(CHECKS, "ok")})
    # The heartbeat is the worker's, stamped by the broker's clock.
    client = workers.redis_client(private_broker_url())
    [(name, _stamp)] = client.zrange(workers.HEARTBEAT_KEY, 0, -1, withscores=True)
    assert name.decode().startswith("celery@")


def test_the_database_down_is_named(transactional_db, monkeypatch):
    heartbeat()
    settings_of = health.database_settings

    def unreachable() -> dict:
        return {**settings_of(), "HOST": "127.0.0.1", "PORT": closed_port()}

    monkeypatch.setattr(health, "database_settings", unreachable)
    status, body = ready()
    assert status == 503
    assert body["status"] == "unavailable"
    assert failed(body) == {"database": "failed", "migrations": "skipped", "timers": "skipped"}
    assert body["failed"]["database"] == "unreachable"
    monkeypatch.undo()
    health.close()
    assert ready()[0] == 200  # the next check connects again


def test_redis_down_is_named_and_no_secret_is_shown(transactional_db, settings):
    port = closed_port()
    settings.CELERY_BROKER_URL = f"redis://:hunter2-secret@127.0.0.1:{port}/0"
    response = Client().get("/readyz")
    body = response.json()
    assert response.status_code == 503
    assert failed(body) == {"redis": "failed", "celery": "skipped"}
    text = response.content.decode()
    for secret in ("hunter2", str(port), "127.0.0.1", settings.SECRET_KEY):
        assert secret not in text
    assert set(body) == {"status", "checks", "failed"}


def test_a_migration_not_applied_is_named(transactional_db):
    heartbeat()
    recorder = MigrationRecorder(connection)
    latest = max(name for app, name in recorder.applied_migrations() if app == "games")
    recorder.record_unapplied("games", latest)
    try:
        status, body = ready()
    finally:
        recorder.record_applied("games", latest)
    assert status == 503
    assert failed(body) == {"migrations": "failed"}
    assert body["failed"] == {"migrations": "1 not applied"}
    assert ready()[0] == 200


def test_a_migration_the_code_does_not_know_yet_is_no_failure(transactional_db):
    """During an upgrade the new code's migrations run first, while the old code still
    serves: a migration recorded that this code does not have keeps it ready."""
    heartbeat()
    recorder = MigrationRecorder(connection)
    recorder.record_applied("games", "9999_from_the_next_release")
    try:
        assert ready()[0] == 200
    finally:
        recorder.record_unapplied("games", "9999_from_the_next_release")


def test_a_stale_worker_heartbeat_is_named(transactional_db):
    heartbeat(age=61)
    status, body = ready()
    assert status == 503
    assert failed(body) == {"celery": "failed"}
    reason = body["failed"]["celery"]
    assert reason.startswith("no worker seen for ")
    assert 61 <= int(reason.split()[-2]) < 70  # seconds pass on a busy machine


def test_no_worker_ever_seen_is_named(transactional_db):
    status, body = ready()
    assert (status, failed(body)) == (503, {"celery": "failed"})


def _deciding_round(table, seconds_late: int) -> Round:
    return Round.objects.create(
        table=table,
        nonce=Round.objects.filter(table=table).count() + 1,
        commitment="0" * 64,
        client_seed="health",
        engine_state={},
        decision_deadline=timezone.now() - timedelta(seconds=seconds_late),
    )


def test_a_decision_overdue_past_the_allowance_is_named(transactional_db, pit, pit2, settings):
    settings.HEALTH_OVERDUE_SECONDS = 60
    heartbeat()
    table = make_stud_table(pit, pit2)
    late = _deciding_round(table, seconds_late=30)  # late, but the sweeper's to catch
    assert ready()[0] == 200
    late.decision_deadline = timezone.now() - timedelta(seconds=90)
    late.save(update_fields=["decision_deadline"])
    status, body = ready()
    assert status == 503
    assert failed(body) == {"timers": "failed"}
    assert body["failed"]["timers"].startswith("a decision overdue by 9")
    # A finished round's deadline is cleared; a settled round is never overdue anyway.
    Round.objects.filter(pk=late.pk).update(status="settled")
    assert ready()[0] == 200


def test_overdue_decisions_are_found_by_the_partial_index(db):
    """The timers check reads the index of the deciding rounds' deadlines, not the rounds."""
    query = overdue_decisions(timezone.now()).values_list("decision_deadline", flat=True)[:1]
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        plan = query.explain()
    assert "deciding_rounds_by_deadline" in plan


def test_a_hung_check_answers_timeout_in_time_and_is_not_queued_again(
    transactional_db, settings, monkeypatch
):
    heartbeat()
    settings.HEALTH_CHECK_TIMEOUT = 0.3
    redis_probe = health.PROBES[1]
    release = threading.Event()
    runs = []

    def hangs() -> dict:
        runs.append(1)
        release.wait(10)
        return health.redis_checks()

    monkeypatch.setattr(redis_probe, "run", hangs)
    try:
        started = time.monotonic()
        status, body = ready()
        assert time.monotonic() - started < 2.0
        assert (status, failed(body)) == (503, {"redis": "timeout", "celery": "timeout"})
        time.sleep(0.4)  # the hung run is older than the timeout now
        status, body = ready()
        assert (status, failed(body)) == (503, {"redis": "timeout", "celery": "timeout"})
        assert len(runs) == 1  # nothing queued behind the hung run
    finally:
        release.set()
    time.sleep(0.2)
    settings.HEALTH_CHECK_TIMEOUT = 5.0
    assert ready()[0] == 200
    assert len(runs) == 2
