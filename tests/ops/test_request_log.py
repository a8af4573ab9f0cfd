"""Logs (casino.logs, casino.http.request_log, casino.workers): one line per request and per
Celery task, JSON with LOG_FORMAT=json; the request id from a sane X-Request-ID header or
made, answered in the response and carried into the tasks the request queues."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.test import Client

from casino import logs
from casino.celery import app as celery_app
from casino.http.request_log import subject_of
from payouts.tasks import nightly_ledger_report
from tests.fixtures.users import api_client, logged_in
from tests.fixtures.workers import ROOT, private_broker_url

Lines = Callable[[], list[dict]]


@pytest.fixture
def json_lines() -> Iterator[Lines]:
    """The JSON lines logged during the test, as the console handler writes them with
    LOG_FORMAT=json (the same formatter and filter)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.json_formatter())
    handler.addFilter(logs.ContextFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines() if line]
    finally:
        root.removeHandler(handler)


def request_line(lines: Lines) -> dict:
    [line] = [line for line in lines() if line["logger"] == "casino.requests"]
    return line


def test_a_request_logs_one_json_line_with_its_request_id_user_and_duration(player, json_lines):
    response = api_client(player).get("/api/v1/wallets/", HTTP_X_REQUEST_ID="lb-7f3a.42")
    assert response.status_code == 200
    assert response["X-Request-ID"] == "lb-7f3a.42"
    line = request_line(json_lines)
    assert line["request_id"] == "lb-7f3a.42"
    assert line["user_id"] == player.pk
    assert isinstance(line["duration_ms"], float)
    assert line["duration_ms"] >= 0
    assert (line["method"], line["path"], line["status"]) == ("GET", "/api/v1/wallets/", 200)
    assert line["level"] == "INFO"
    assert line["time"].endswith("+00:00")
    assert "code" not in line  # not a refusal


def test_a_signed_in_page_logs_its_user(player, json_lines):
    assert logged_in(player).get("/play/").status_code == 200
    assert request_line(json_lines)["user_id"] == player.pk


def test_a_request_without_an_id_gets_one_made(json_lines, db):
    response = Client().get("/api/v1/tables/")
    made = response["X-Request-ID"]
    assert len(made) == 32
    assert int(made, 16) >= 0
    line = request_line(json_lines)
    assert line["request_id"] == made
    assert "user_id" not in line  # nobody signed in


@pytest.mark.parametrize(
    "incoming",
    [
        'ok\n{"level": "CRITICAL", "message": "forged"}',
        "a" * 10_000,
        "spaces are not allowed",
        'quote"d',
        "tab\there",
        "ünïcode",
        "",
    ],
)
def test_an_unsafe_request_id_is_replaced(incoming, json_lines, db):
    response = Client().get("/api/v1/tables/", headers={"X-Request-ID": incoming})
    made = response["X-Request-ID"]
    assert made != incoming
    assert len(made) == 32
    line = request_line(json_lines)
    assert line["request_id"] == made
    assert all("forged" not in json.dumps(each) for each in json_lines())
    assert "a" * 200 not in json.dumps(json_lines())


def test_the_url_names_the_table_and_the_refusal_its_code(player, stud_table, json_lines):
    response = api_client(player).post(
        f"/api/v1/stud/tables/{stud_table.pk}/seats/",
        {"seat": 1, "buy_in": "1000000.00"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="sit-1",
    )
    assert response.status_code >= 400
    code = response.json()["code"]
    line = request_line(json_lines)
    assert line["table"] == stud_table.pk
    assert line["code"] == code
    assert line["user_id"] == player.pk


def test_the_url_names_the_round(player, json_lines):
    response = api_client(player).get("/api/v1/joker-draw/rounds/987654/")
    assert response.status_code == 404
    line = request_line(json_lines)
    assert line["round"] == 987654
    assert line["code"] == "not_found"


def test_a_refusal_at_the_edge_logs_its_code(json_lines, db):
    response = Client().get("/api/v1/tables/?name=%00")
    assert response.status_code == 400
    assert request_line(json_lines)["code"] == "nul_character"


def test_which_urls_name_a_table_or_a_round():
    assert subject_of("stud-seats", "api/v1/stud/tables/<int:pk>/seats/", {"pk": 3}) == {"table": 3}
    assert subject_of("stud-hand", "api/v1/stud/hands/<int:pk>/", {"pk": 4}) == {"round": 4}
    assert subject_of("play:peer-table", "play/<slug:game>/<int:pk>/", {"pk": 5}) == {"table": 5}
    assert subject_of("play:recall-round", "play/recall/joker-draw/<int:pk>/", {"pk": 6}) == {
        "round": 6
    }
    assert subject_of("staff:player", "staff/players/<int:pk>/", {"pk": 7}) == {}
    assert subject_of("play:lobby", "play/", {}) == {}


def test_lines_logged_during_a_request_carry_its_context():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.TextFormatter())
    handler.addFilter(logs.ContextFilter())
    logger = logging.getLogger("tests.ops.context")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        token = logs.bind(request_id="r-1", table=9)
        logger.warning("inside")
        logs.reset(token)
        logger.warning("outside")
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    inside, outside = stream.getvalue().splitlines()
    assert inside.endswith("tests.ops.context: inside [request_id=r-1 table=9]")
    assert outside.endswith("tests.ops.context: outside")


def test_log_format_json_makes_every_line_json():
    """The settings' LOGGING with LOG_FORMAT=json, in a process of its own: every line on
    standard error is one JSON object, the request's with its fields."""
    script = (
        "import django; django.setup()\n"
        "from django.test import Client\n"
        "Client().get('/api/v1/wallets/', headers={'X-Request-ID': 'from-the-lb'})\n"
        "Client().get('/healthz')\n"
    )
    result = subprocess.run(  # noqa: S603 - this interpreter, a fixed script
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**os.environ, "LOG_FORMAT": "json", "DJANGO_SETTINGS_MODULE": "casino.settings"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    lines = [json.loads(line) for line in result.stderr.splitlines()]
    [line] = [line for line in lines if line["logger"] == "casino.requests"]
    assert line["request_id"] == "from-the-lb"
    assert line["status"] in (401, 403)
    assert line["code"] == "not_authenticated"
    # The load balancer's passing checks are left out at INFO.
    assert all(each.get("path") != "/healthz" for each in lines)


# Celery tasks --------------------------------------------------------------------------------


@pytest.fixture
def json_worker(transactional_db, monkeypatch, request):
    """A real Celery worker (tests.fixtures.workers) logging JSON lines. The worker commits
    what its tasks write: the test's data is committed too, and flushed after it."""
    monkeypatch.setenv("LOG_FORMAT", "json")
    return request.getfixturevalue("celery_worker")


def task_line(worker, task_id: str, timeout: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for text in worker.output().splitlines():
            if not text.startswith("{"):
                continue  # Celery's banner, printed before logging starts
            line = json.loads(text)
            if line["logger"] == "casino.tasks" and line.get("task_id") == task_id:
                return line
        time.sleep(0.2)
    raise AssertionError(f"no line for task {task_id}:\n{worker.output()}")


def test_a_task_a_request_queues_logs_the_requests_id(json_worker, pit):
    assert celery_app.conf.broker_url == private_broker_url()
    response = api_client(pit).post(
        "/api/v1/staff/rtp/measurements/", HTTP_X_REQUEST_ID="measure-rtp-7"
    )
    assert response.status_code == 202
    line = task_line(json_worker, response.json()["task"])
    assert line["request_id"] == "measure-rtp-7"
    assert line["task"] == "games.tasks.observe_rtp"
    assert line["state"] == "SUCCESS"
    assert line["level"] == "INFO"
    assert isinstance(line["duration_ms"], float)
    # A task queued outside any request (as beat queues them) goes by its own task id.
    queued = nightly_ledger_report.delay()
    assert task_line(json_worker, queued.id)["request_id"] == queued.id
    # Every line the worker logged is JSON.
    for text in Path(json_worker.log).read_text().splitlines():
        if text.startswith("{"):
            json.loads(text)
