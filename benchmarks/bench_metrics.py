"""What the metrics cost a joker draw round: complete rounds per second with the instrumentation
of ``GET /metrics`` and without it, in the same run.

Run as ``python benchmarks/bench_metrics.py`` (``make bench``). Starts its own PostgreSQL and
Redis (or uses ``DATABASE_URL`` and ``REDIS_URL``), and keeps the series in a throwaway
``PROMETHEUS_MULTIPROC_DIR``, as the site does under ``make run`` (each increment a write to a
memory-mapped file). A round is an opening (ante) and a bet, two API requests through Django's
test client: the whole stack but the network. With metrics, every request is timed by the
middleware and the round's opening and settlement are counted; without, the middleware is left
out of the chain and the counters do nothing. The two take turns in ``SLICES`` slices each, so
that a machine busy with other work slows them alike. Also timed alone: the instrumentation of
one round (two requests observed, two counters moved), many times over.

Prints a table, saves ``benchmarks/results/metrics.json`` and exits non-zero if the rounds/s
with metrics fall more than ``TOLERANCE`` (5%) under those without. ``BENCH_METRICS_SECONDS``
sets each side's total time (30).
"""

from __future__ import annotations

import itertools
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from decimal import Decimal
from typing import Any

from support import machine, save_results, services

SECONDS = float(os.environ.get("BENCH_METRICS_SECONDS", "30"))
SLICES = 20
WARM_UP_ROUNDS = 30
TOLERANCE = 0.05
INSTRUMENTATION_ROUNDS = 20_000
MIDDLEWARE = "casino.metrics.RequestMetricsMiddleware"


@dataclass(frozen=True)
class Measure:
    measure: str
    value: float
    unit: str
    target: str = ""
    result: str = ""


@dataclass
class Side:
    rounds: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process's: the application's Python, not PostgreSQL's

    @property
    def per_second(self) -> float:
        return self.rounds / self.seconds if self.seconds else 0.0

    @property
    def cpu_ms_per_round(self) -> float:
        return 1000 * self.cpu_seconds / self.rounds if self.rounds else 0.0

    def add(self, other: Side) -> None:
        self.rounds += other.rounds
        self.seconds += other.seconds
        self.cpu_seconds += other.cpu_seconds


def prepare() -> tuple[str, int]:
    """An open joker draw table on the shipped paytables (approved on their shipped runs, as
    the tests' are) and a funded player's API token."""
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command

    from casino.http.tokens import issue_token
    from casino.roles import PIT_STAFF, PLAYER
    from games.joker_draw import rtp_lab
    from games.joker_draw.paytables import approve_paytable_version
    from games.models import Game
    from games.tables import services as tables
    from games.tables.table_game import game_of
    from payouts import services as money
    from payouts.approvals import ChangeStatus
    from payouts.models import Paytable, PaytableVersion

    maker = User.objects.create_user("bench-pit1")
    checker = User.objects.create_user("bench-pit2")
    for user in (maker, checker):
        user.groups.add(Group.objects.get(name=PIT_STAFF))
    call_command("load_paytables", verbosity=0)
    for version in PaytableVersion.objects.filter(status=ChangeStatus.DRAFT):
        rtp_lab.compute_now(version)  # the shipped best-play run for the bet paytable
        approve_paytable_version(version, by=checker)
    values = dict(game_of(Game.JOKER_DRAW).default_limits)
    values["bet_paytable"] = Paytable.objects.get(kind="bet")
    values["bonus_paytable"] = Paytable.objects.get(kind="bonus")
    table = tables.create_table(
        name="Bench", game=Game.JOKER_DRAW, currency="USD", by=maker, reason="bench"
    )
    limits = tables.propose_limits(table=table, values=values, reason="bench", by=maker)
    tables.approve_limits(limits, by=checker)
    tables.set_table_status(table, status="open", by=checker, reason="bench")
    money.fund_house(currency="USD", amount=Decimal("10000000.00"), reason="bench", by=maker)
    player = User.objects.create_user("bench-player")
    player.groups.add(Group.objects.get(name=PLAYER))
    money.deposit(
        player=player, currency="USD", amount=Decimal("1000000.00"), reason="bench", by=maker
    )
    return issue_token(player, "benchmark")[0], table.pk


class Player:
    """Complete rounds over the API, in process (Django's test client)."""

    keys = itertools.count(1)  # one count for both clients: every request is a new one

    def __init__(self, token: str, table: int, *, middleware: list[str]) -> None:
        from django.test import Client
        from django.test.utils import override_settings

        self.client = Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token}")
        self.table = table
        # The handler builds its middleware chain once, at its first request.
        with override_settings(MIDDLEWARE=middleware):
            self.client.handler.load_middleware()

    def post(self, path: str, body: dict[str, Any]) -> Any:
        response = self.client.post(
            path, body, content_type="application/json", HTTP_IDEMPOTENCY_KEY=f"m-{next(self.keys)}"
        )
        if response.status_code >= 300:
            raise RuntimeError(f"{path}: {response.status_code} {response.content[:300]!r}")
        return response.json()

    def play_round(self) -> None:
        stake = {"table": self.table, "boxes": [{"box": 1, "ante": "0.30"}]}
        opened = self.post("/api/v1/joker-draw/rounds/", stake)
        self.post(f"/api/v1/joker-draw/rounds/{opened['id']}/actions/", {"box": 1, "action": "bet"})


@contextmanager
def counters_off() -> Iterator[None]:
    """The services' counters do nothing (they are looked up on the module at each call)."""
    from casino import metrics

    names = ("round_opened", "round_settled", "decision_timed_out")
    kept = {name: getattr(metrics, name) for name in names}

    def nothing(game: str) -> None:
        return None

    for name in names:
        setattr(metrics, name, nothing)
    try:
        yield
    finally:
        for name, function in kept.items():
            setattr(metrics, name, function)


def play_for(player: Player, seconds: float, side: Side) -> None:
    stop_at = time.monotonic() + seconds
    started, cpu = time.perf_counter(), time.process_time()
    while time.monotonic() < stop_at:
        player.play_round()
        side.rounds += 1
    side.seconds += time.perf_counter() - started
    side.cpu_seconds += time.process_time() - cpu


def compare(token: str, table: int) -> tuple[Side, Side, list[dict[str, float]]]:
    from django.conf import settings

    with_metrics = Player(token, table, middleware=list(settings.MIDDLEWARE))
    bare = [name for name in settings.MIDDLEWARE if name != MIDDLEWARE]
    assert len(bare) == len(settings.MIDDLEWARE) - 1, "the metrics middleware is not installed"
    without = Player(token, table, middleware=bare)
    for _ in range(WARM_UP_ROUNDS):  # connections, prepared statements, caches
        with_metrics.play_round()
        with counters_off():
            without.play_round()
    sides = (Side(), Side())
    slices = []
    for turn in range(SLICES):
        # Each side goes first in every other slice pair.
        order = [(with_metrics, sides[0], False), (without, sides[1], True)]
        if turn % 2:
            order.reverse()
        rates = {}
        for player, side, off in order:
            slice_ = Side()
            if off:
                with counters_off():
                    play_for(player, SECONDS / SLICES, slice_)
            else:
                play_for(player, SECONDS / SLICES, slice_)
            side.add(slice_)
            rates["without" if off else "with"] = round(slice_.per_second, 1)
        slices.append(rates)
    return sides[0], sides[1], slices


def instrumentation_alone() -> float:
    """Microseconds the instrumentation of one round takes on its own: its two requests timed
    by the middleware (one histogram observation each) and its two counters moved."""
    from django.http import HttpRequest, HttpResponse
    from django.urls import resolve

    from casino import metrics

    requests = []
    for path in ("/api/v1/joker-draw/rounds/", "/api/v1/joker-draw/rounds/1/actions/"):
        request = HttpRequest()
        request.method = "POST"
        request.resolver_match = resolve(path)
        requests.append(request)
    response = HttpResponse(status=201)
    observe: Callable[..., None] = metrics.observe_request
    started = time.perf_counter()
    for _ in range(INSTRUMENTATION_ROUNDS):
        for request in requests:
            observe(request, response, 0.004)
        metrics.round_opened("joker_draw")  # outside a transaction: counted at once
        metrics.round_settled("joker_draw")
    return (time.perf_counter() - started) / INSTRUMENTATION_ROUNDS * 1e6


def main() -> int:
    # Short RTP runs approve the shipped paytables, as in the tests (tests/fixtures/tables.py).
    os.environ.setdefault("RTP_APPROVAL_MIN_ROUNDS", "5000")
    os.environ.setdefault("RTP_BEST_PLAY_ROUNDS", "5000")
    os.environ.setdefault("RTP_APPROVAL_MAX_SPREAD", "5.0")
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory(prefix="bench-metrics-") as directory:
        # Before prometheus_client is first imported (with Django): multiprocess mode, as served.
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory
        with services():
            token, table = prepare()
            with_metrics, without, slices = compare(token, table)
            alone_us = instrumentation_alone()
    ratio = with_metrics.per_second / without.per_second if without.per_second else 0.0
    cpu_ms = with_metrics.cpu_ms_per_round
    measures = [
        Measure("rounds/s without metrics", round(without.per_second, 1), "rounds/s"),
        Measure("rounds/s with metrics", round(with_metrics.per_second, 1), "rounds/s"),
        Measure(
            "with metrics over without",
            round(ratio, 3),
            "ratio",
            f">= {1 - TOLERANCE:.2f}",
            "PASS" if ratio >= 1 - TOLERANCE else "FAIL",
        ),
        Measure(
            "CPU of the application a round, without metrics",
            round(without.cpu_ms_per_round, 2),
            "ms",
        ),
        Measure(
            "CPU of the application a round, with metrics",
            round(with_metrics.cpu_ms_per_round, 2),
            "ms",
        ),
        Measure("instrumentation of one round, alone", round(alone_us, 1), "us"),
        Measure(
            "instrumentation alone, share of the CPU a round",
            round(alone_us / 10 / cpu_ms, 2) if cpu_ms else 0.0,
            "%",
        ),
    ]
    width = max(len(m.measure) for m in measures)
    print(
        f"Joker draw rounds over the API (Django's test client, one player), "
        f"{SECONDS:.0f} s a side in {SLICES} turns; series in PROMETHEUS_MULTIPROC_DIR"
    )
    print(f"{'measure':<{width}}  {'value':>9}  {'unit':<8}  {'target':<7}  result")
    for m in measures:
        print(f"{m.measure:<{width}}  {m.value:>9}  {m.unit:<8}  {m.target:<7}  {m.result}")
    turns = ", ".join(f"{s['with']}/{s['without']}" for s in slices)
    print(f"each turn's rounds/s, with/without: {turns}")
    print(f"(load average {load_at_start} at the start; {machine()['cpus']} CPUs)")
    save_results(
        "metrics",
        {
            "machine": {**machine(), "load_average_at_start": load_at_start},
            "seconds_per_side": SECONDS,
            "slices": slices,
            "rounds": {"with": with_metrics.rounds, "without": without.rounds},
            "measures": [asdict(m) for m in measures],
        },
    )
    return 0 if all(m.result != "FAIL" for m in measures) else 1


if __name__ == "__main__":
    sys.exit(main())
