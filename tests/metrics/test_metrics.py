"""GET /metrics: who may read it (an allowed address, the right bearer token, never a stranger,
whatever X-Forwarded-For says), the Prometheus text format, the counters the services move (by
game, only once committed), the series summed over several processes, the HTTP durations by view
and never by path, the Celery tasks by name and state, and the gauges read at scrape time (the
timers' lag and stuck tables, the bankroll, the last ledger check, the open live streams)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from casino import metrics
from casino.roles import PLAYER
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.joker_draw.tasks import compute_rtp_chunk, fold_overdue_boxes
from games.models import Round
from games.stud.tasks import STUD as stud
from games.tables import live
from games.tables.selectors import _overdue
from payouts.models import ReconciliationReport
from payouts.selectors import bankrolls
from payouts.services import deposit
from tests.fixtures.stud import play_passively
from tests.fixtures.users import make_user
from tests.fixtures.workers import ROOT

D = Decimal
STRANGER = "203.0.113.7"
TOKEN = "a-long-random-scrape-token"
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def read(response) -> Samples:
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def scrape(**headers) -> Samples:
    """/metrics as Prometheus reads it from loopback."""
    return read(Client().get("/metrics", **headers))


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


# Who may read it ----------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"HTTP_AUTHORIZATION": "Bearer wrong-token"},
        {"HTTP_AUTHORIZATION": f"Bearer {TOKEN}x"},
        {"HTTP_AUTHORIZATION": f"Token {TOKEN}"},  # the API's scheme is not the scrape's
        {"HTTP_X_FORWARDED_FOR": "127.0.0.1"},  # no proxy of ours: a header anyone can write
    ],
    ids=["nothing", "wrong token", "longer token", "other scheme", "forged forwarded-for"],
)
def test_a_stranger_gets_what_an_unknown_path_gets(settings, headers):
    settings.METRICS_TOKEN = TOKEN
    stranger = Client(REMOTE_ADDR=STRANGER)
    unknown = stranger.get("/no-such-page")
    for method in (stranger.get, stranger.post, stranger.head):
        refused = method("/metrics", **headers)
        assert refused.status_code == 404 == unknown.status_code
        assert b"casino_" not in refused.content
    assert refused.content == stranger.head("/no-such-page").content


@pytest.mark.django_db
def test_no_token_configured_means_no_bearer_access(settings):
    settings.METRICS_TOKEN = ""
    stranger = Client(REMOTE_ADDR=STRANGER)
    assert stranger.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404
    assert stranger.get("/metrics", HTTP_AUTHORIZATION="Bearer").status_code == 404


@pytest.mark.django_db
def test_the_allowed_addresses_and_the_right_token_read_the_text_format(settings):
    settings.METRICS_TOKEN = TOKEN
    assert value(scrape(), "casino_metrics_database_up") == 1  # loopback, by default
    assert read(Client(REMOTE_ADDR="::1").get("/metrics"))
    assert read(Client(REMOTE_ADDR="::ffff:127.0.0.1").get("/metrics"))  # IPv4 on a v6 socket
    stranger = Client(REMOTE_ADDR=STRANGER)
    assert read(stranger.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}"))
    assert read(stranger.get("/metrics", HTTP_AUTHORIZATION=f"bearer  {TOKEN} "))
    # A scraper's network may be allowed instead; loopback then is not.
    settings.METRICS_ALLOWED_ADDRESSES = ["10.0.0.0/8"]
    assert read(Client(REMOTE_ADDR="10.1.2.3").get("/metrics"))
    assert Client().get("/metrics").status_code == 404
    # Allowed callers are refused only a method the endpoint has not.
    assert Client(REMOTE_ADDR="10.1.2.3").post("/metrics").status_code == 405


@pytest.mark.django_db
def test_behind_our_proxy_the_address_is_the_one_the_proxy_saw(settings):
    """With NUM_PROXIES=1 the connection is the proxy's (here on loopback): the client is the
    address it appended, whatever the client wrote before it."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    proxy = Client(REMOTE_ADDR="127.0.0.1")
    assert proxy.get("/metrics", HTTP_X_FORWARDED_FOR=STRANGER).status_code == 404
    forged = f"127.0.0.1, {STRANGER}"  # the client wrote 127.0.0.1; the proxy added its address
    assert proxy.get("/metrics", HTTP_X_FORWARDED_FOR=forged).status_code == 404
    assert read(proxy.get("/metrics", HTTP_X_FORWARDED_FOR="127.0.0.1"))


# The counters -------------------------------------------------------------------------------------


def test_a_round_opened_and_settled_moves_the_counters_of_its_game(
    joker_table, funded_player, django_capture_on_commit_callbacks
):
    before = scrape()
    with django_capture_on_commit_callbacks(execute=True):
        opened = joker_draw.open_round(
            player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
        ).round
    middle = scrape()
    with django_capture_on_commit_callbacks(execute=True):
        joker_draw.act(player=funded_player, round_id=opened.pk, box=1, action="bet")
    after = scrape()

    def moved(name, since, until, game="joker_draw"):
        return value(until, name, game=game) - value(since, name, game=game)

    assert moved("casino_rounds_opened_total", before, middle) == 1
    assert moved("casino_rounds_settled_total", before, middle) == 0
    assert moved("casino_rounds_opened_total", middle, after) == 0
    assert moved("casino_rounds_settled_total", middle, after) == 1
    for game in ("seven_card_stud", "drawmaha"):
        assert moved("casino_rounds_opened_total", before, after, game) == 0


def test_a_peer_hand_dealt_and_settled_moves_the_counters_of_its_game(
    stud_table, pit, django_capture_on_commit_callbacks
):
    before = scrape()
    with django_capture_on_commit_callbacks(execute=True):
        for number, name in enumerate(("ann", "ben"), start=1):
            user = make_user(name, PLAYER)
            deposit(player=user, currency="USD", amount=D("200.00"), reason="cash", by=pit)
            stud.join(player=user, table=stud_table, seat=number, buy_in=D("100.00"))
        play_passively(stud_table)  # the next hand is dealt as this one ends
    after = scrape()
    hands = Round.objects.filter(table=stud_table)
    for name, rounds in (
        ("casino_rounds_opened_total", hands.count()),
        ("casino_rounds_settled_total", hands.filter(status="settled").count()),
    ):
        game = "seven_card_stud"
        assert value(after, name, game=game) - value(before, name, game=game) == rounds
    assert hands.filter(status="settled").count() == 1


def test_a_rolled_back_opening_counts_nothing(joker_table, funded_player):
    """The counters move when the transaction commits: inside the test's transaction, which
    never commits, an opening counts nothing."""
    before = value(scrape(), "casino_rounds_opened_total", game="joker_draw")
    joker_draw.open_round(player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))])
    assert value(scrape(), "casino_rounds_opened_total", game="joker_draw") == before


def test_a_decision_out_of_time_counts_as_timed_out(
    joker_table, funded_player, django_capture_on_commit_callbacks
):
    opened = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    Round.objects.filter(pk=opened.pk).update(
        decision_deadline=timezone.now() - timedelta(seconds=1)
    )
    before = scrape()
    with django_capture_on_commit_callbacks(execute=True):
        joker_draw.expire_decision(opened.pk)
    after = scrape()
    for name in ("casino_decisions_timed_out_total", "casino_rounds_settled_total"):
        assert value(after, name, game="joker_draw") - value(before, name, game="joker_draw") == 1


# HTTP ---------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_requests_are_timed_by_the_view_never_by_the_path():
    client = Client()
    for n in range(5):
        client.get(f"/random-{n}-{time.monotonic_ns()}/")
    client.get("/api/v1/wallets/")  # 401 or 403: the view is still the one it resolved to
    client.get("/")
    samples = scrape()
    views = {
        dict(labels)["view"]
        for (name, labels) in samples
        if name == "casino_http_request_duration_seconds_count"
    }
    assert {metrics.UNMATCHED, "home"} <= views
    assert not any("random" in view or "/" in view for view in views)
    home = value(
        samples, "casino_http_request_duration_seconds_count", view="home", method="GET",
        status="2xx",
    )  # fmt: skip
    assert home >= 1
    buckets = [
        labels
        for (name, labels) in samples
        if name == "casino_http_request_duration_seconds_bucket" and ("view", "home") in labels
    ]
    assert buckets


# Several processes --------------------------------------------------------------------------------

_CHILD = """
import sys
import django
django.setup()
from casino import metrics
metrics.round_opened("joker_draw")  # outside a transaction: counted at once
metrics.decision_timed_out("drawmaha")
metrics.LIVE_STREAMS_OPEN.inc()
print("counted", flush=True)
sys.stdin.readline()  # a stream stays open until the test lets this process end
"""


def _child(directory: Path) -> subprocess.Popen[str]:
    process = subprocess.Popen(  # noqa: S603 - this interpreter, a fixed script
        [sys.executable, "-c", _CHILD],
        cwd=ROOT,
        env={**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(directory)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "counted"
    return process


@pytest.mark.django_db
def test_counters_add_up_over_processes_and_ended_processes_keep_theirs(tmp_path, monkeypatch):
    """Two processes count into one PROMETHEUS_MULTIPROC_DIR, as the web and worker processes
    do; /metrics (another process) sums them. Counters keep what an ended process counted;
    the open streams of an ended process are gone with it."""
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    first, second = _child(tmp_path), _child(tmp_path)
    try:
        both = scrape()
        assert value(both, "casino_rounds_opened_total", game="joker_draw") == 2
        assert value(both, "casino_decisions_timed_out_total", game="drawmaha") == 2
        assert value(both, "casino_live_streams_open") == 2
        first.communicate("\n", timeout=30)
        one_left = scrape()
        assert value(one_left, "casino_rounds_opened_total", game="joker_draw") == 2
        assert value(one_left, "casino_live_streams_open") == 1
    finally:
        for process in (first, second):
            if process.poll() is None:
                process.communicate("\n", timeout=30)
    assert value(scrape(), "casino_live_streams_open") == 0
    assert value(scrape(), "casino_rounds_opened_total", game="joker_draw") == 2


@pytest.fixture
def metrics_dir(tmp_path, monkeypatch) -> Path:
    """A PROMETHEUS_MULTIPROC_DIR that the processes started after it (a worker) share."""
    directory = tmp_path / "metrics"
    directory.mkdir()
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(directory))
    return directory


def test_celery_tasks_are_counted_and_timed_by_name_and_state(metrics_dir, celery_worker):
    assert fold_overdue_boxes.delay().get(timeout=60) == 0
    assert fold_overdue_boxes.delay().get(timeout=60) == 0
    with pytest.raises(Exception, match="does not exist"):
        compute_rtp_chunk.delay(987654321, 0).get(timeout=60)
    samples = scrape()
    fold = "games.tasks.fold_overdue_boxes"
    chunk = "payouts.tasks.compute_rtp_chunk"
    assert value(samples, "casino_celery_tasks_total", task=fold, state="SUCCESS") == 2
    assert value(samples, "casino_celery_tasks_total", task=chunk, state="FAILURE") == 1
    assert (
        value(samples, "casino_celery_task_duration_seconds_count", task=fold, state="SUCCESS") == 2
    )
    assert value(samples, "casino_celery_task_duration_seconds_sum", task=fold, state="SUCCESS")


# Read at scrape time ------------------------------------------------------------------------------


def test_the_lag_gauge_shows_an_overdue_decision(joker_table, funded_player, pit, settings):
    settings.METRICS_TIMER_STUCK_SECONDS = 60
    on_time = scrape()
    assert value(on_time, "casino_decision_timer_lag_seconds") == 0
    assert value(on_time, "casino_tables_timers_stuck") == 0
    late = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    other = make_user("bea", PLAYER)
    deposit(player=other, currency="USD", amount=D("100.00"), reason="cash", by=pit)
    joker_draw.open_round(player=other, table=joker_table, boxes=[BoxRequest(1, D("0.30"))])

    Round.objects.filter(pk=late.pk).update(
        decision_deadline=timezone.now() - timedelta(seconds=30)
    )
    a_little = scrape()
    assert 30 <= value(a_little, "casino_decision_timer_lag_seconds") < 60
    assert value(a_little, "casino_tables_timers_stuck") == 0  # not yet past the threshold

    Round.objects.filter(pk=late.pk).update(
        decision_deadline=timezone.now() - timedelta(seconds=90)
    )
    stuck = scrape()
    assert 90 <= value(stuck, "casino_decision_timer_lag_seconds") < 120
    assert value(stuck, "casino_tables_timers_stuck") == 1

    joker_draw.expire_decision(late.pk)  # the timer catches up
    caught_up = scrape()
    assert value(caught_up, "casino_decision_timer_lag_seconds") == 0
    assert value(caught_up, "casino_tables_timers_stuck") == 0


@pytest.mark.django_db
def test_the_timers_are_read_from_the_deadline_index():
    """Both timer reads can be answered from the deciding rounds' deadline index alone (the
    planner, free to choose, takes it once the rounds are many)."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
    plans = [
        _overdue(timezone.now()).values("decision_deadline").order_by("decision_deadline")[:1],
        _overdue(timezone.now()).values("table_id").distinct(),
    ]
    for plan in plans:
        assert "deciding_rounds_by_deadline" in plan.explain()


def test_the_bankroll_gauges_are_the_ledgers(joker_table, funded_player):
    joker_draw.open_round(player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))])
    samples = scrape()
    house = bankrolls()["USD"]
    assert house.reserved > 0
    assert value(samples, "casino_bankroll_available", currency="USD") == float(house.available)
    assert value(samples, "casino_bankroll_reserved", currency="USD") == float(house.reserved)


@pytest.mark.django_db
def test_the_ledger_check_gauge_is_the_last_checks_result():
    assert ("casino_ledger_check_ok", frozenset()) not in scrape()  # never checked: no sample
    call_command("ledger_check", verbosity=0)  # the command keeps its result too
    passed = scrape()
    assert value(passed, "casino_ledger_check_ok") == 1
    assert value(passed, "casino_ledger_check_timestamp_seconds") == pytest.approx(
        time.time(), abs=60
    )
    ReconciliationReport.objects.create(ok=False, trial_balance={}, problems={"x": ["1"]})
    assert value(scrape(), "casino_ledger_check_ok") == 0


def test_the_live_stream_gauge_counts_the_streams_open():
    async def stream():
        yield "retry: 3000\n\n"
        yield ": heartbeat\n\n"

    async def watch() -> list[float]:
        seen = [metrics.LIVE_STREAMS_OPEN._value.get()]
        events = live.counted(1, stream())
        await anext(events)
        seen.append(metrics.LIVE_STREAMS_OPEN._value.get())
        await events.aclose()  # the client left
        seen.append(metrics.LIVE_STREAMS_OPEN._value.get())
        return seen

    before, open_, closed = asyncio.run(watch())
    assert (open_ - before, closed - before) == (1, 0)
