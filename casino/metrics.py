"""The series every process keeps for ``GET /metrics`` (Prometheus), and what keeps them.

Counters and histograms are kept where things happen: the web processes time each request by
the view it resolved to (``RequestMetricsMiddleware``), the services count the rounds and hands
they open and settle and the decisions that timed out, once their transaction has committed
(``round_opened``, ``round_settled``, ``decision_timed_out``), the live table streams count
themselves open and closed, and the Celery workers count and time each task by its name and
how it ended (``count_celery_tasks``, connected by ``casino.celery``). What is read from the
database at scrape time (the timers' lag, the bankroll, the ledger check) is not kept here: the
``/metrics`` view computes it (``games.staff.metrics``).

Several processes serve the site and run its tasks, so each keeps its series in files of its
own under ``PROMETHEUS_MULTIPROC_DIR`` (``prometheus_client``'s multiprocess mode, chosen when
the library is first imported) and ``/metrics`` sums them. The directory must be emptied
before the first process starts: ``scripts/run.sh`` empties it before it starts the worker,
beat and the web server; ``scripts/serve.sh`` on its own serves from a new one. What an ended
process counted stays in the sums; the open streams it held are dropped at the next scrape
(``forget_dead_processes``). Without the variable (tests, a shell) each process keeps its
series in memory and shows only its own.
"""

from __future__ import annotations

import glob
import os
import re
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.db import transaction
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
)
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.registry import Collector

# A counter's creation time is one more series per label set, which the multiprocess mode
# never exports: a single process shows what several do.
disable_created_metrics()

# The label of a request no URL pattern matched: random paths add no series.
UNMATCHED = "unmatched"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

HTTP_REQUEST_DURATION = Histogram(
    "casino_http_request_duration_seconds",
    "Time from a request reaching the application to its response, by the view its path "
    "resolved to (never the raw path), method and status class.",
    ["view", "method", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
ROUNDS_OPENED = Counter(
    "casino_rounds_opened",
    "Rounds opened (a joker draw round, a peer hand dealt), by game.",
    ["game"],
)
ROUNDS_SETTLED = Counter(
    "casino_rounds_settled",
    "Rounds settled (voids are not settlements), by game.",
    ["game"],
)
DECISIONS_TIMED_OUT = Counter(
    "casino_decisions_timed_out",
    "Decisions the timer took because a player ran out of time (a joker draw box folded, a "
    "peer player's default decision), by game.",
    ["game"],
)
# Summed over the live processes: a process that ended took its streams with it.
LIVE_STREAMS_OPEN = Gauge(
    "casino_live_streams_open",
    "Live table streams (server-sent events) open now, over every web process.",
    multiprocess_mode="livesum",
)
CELERY_TASKS = Counter(
    "casino_celery_tasks",
    "Celery tasks run, by task name and the state they ended in (SUCCESS, FAILURE, RETRY, ...).",
    ["task", "state"],
)
CELERY_TASK_DURATION = Histogram(
    "casino_celery_task_duration_seconds",
    "How long Celery tasks ran, by task name and the state they ended in.",
    ["task", "state"],
    buckets=(0.005, 0.025, 0.1, 0.25, 1.0, 2.5, 10.0, 30.0, 60.0, 300.0, 900.0),
)


# Games -------------------------------------------------------------------------------------------


def _after_commit(counter: Counter, game: str) -> None:
    # A rolled-back transaction counts nothing; outside one, on_commit runs at once.
    child = counter.labels(game=game)
    transaction.on_commit(child.inc)


def round_opened(game: str) -> None:
    """A round (or peer hand) of ``game`` opens in the current transaction."""
    _after_commit(ROUNDS_OPENED, game)


def round_settled(game: str) -> None:
    """A round (or peer hand) of ``game`` is settled in the current transaction."""
    _after_commit(ROUNDS_SETTLED, game)


def decision_timed_out(game: str) -> None:
    """The timer takes a decision of ``game`` in the current transaction."""
    _after_commit(DECISIONS_TIMED_OUT, game)


# HTTP --------------------------------------------------------------------------------------------


def view_label(request: HttpRequest) -> str:
    """The resolved view's name ("namespace:name", or its dotted path when unnamed), or
    ``UNMATCHED``: the label set is the URL patterns', whatever paths clients send."""
    match = getattr(request, "resolver_match", None)
    return match.view_name if match is not None else UNMATCHED


def observe_request(request: HttpRequest, response: HttpResponseBase, seconds: float) -> None:
    method = request.method if request.method in _METHODS else "other"
    HTTP_REQUEST_DURATION.labels(
        view=view_label(request), method=method, status=f"{response.status_code // 100}xx"
    ).observe(seconds)


class RequestMetricsMiddleware:
    """Times every request by the view it resolved to. The outermost middleware, so what the
    others answer (a redirect, a refusal) is timed too; sync and async alike, so an
    asynchronous view (the live stream) stays asynchronous. A streaming response is timed
    until its headers, not its end."""

    sync_capable = True
    async_capable = True

    def __init__(
        self,
        get_response: Callable[[HttpRequest], HttpResponseBase]
        | Callable[[HttpRequest], Awaitable[HttpResponseBase]],
    ) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self.__acall__(request)
        started = time.perf_counter()
        response = self.get_response(request)
        observe_request(request, response, time.perf_counter() - started)  # type: ignore[arg-type]
        return response

    async def __acall__(self, request: HttpRequest) -> HttpResponseBase:
        started = time.perf_counter()
        response = await self.get_response(request)  # type: ignore[misc]
        observe_request(request, response, time.perf_counter() - started)
        return response


# Celery ------------------------------------------------------------------------------------------

# When each running task of this process began, by task id.
_task_started: dict[str, float] = {}


def task_started(task_id: str | None = None, **_: Any) -> None:
    if task_id is not None:
        _task_started[task_id] = time.perf_counter()


def task_ended(
    task_id: str | None = None, task: Any = None, state: str | None = None, **_: Any
) -> None:
    began = _task_started.pop(task_id, None) if task_id is not None else None
    name = getattr(task, "name", None) or "unknown"
    ended = state or "unknown"
    CELERY_TASKS.labels(task=name, state=ended).inc()
    if began is not None:
        CELERY_TASK_DURATION.labels(task=name, state=ended).observe(time.perf_counter() - began)


def count_celery_tasks() -> None:
    """Count and time every task this process runs (Celery's task_prerun and task_postrun,
    which a task's worker process sends, whatever the task's outcome)."""
    from celery import signals

    signals.task_prerun.connect(task_started, weak=False, dispatch_uid="casino.metrics.started")
    signals.task_postrun.connect(task_ended, weak=False, dispatch_uid="casino.metrics.ended")


# Exposition --------------------------------------------------------------------------------------


class _ThisProcess(Collector):
    """The default registry's series (this process's own, with its CPU and memory)."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


_LIVE_FILE = re.compile(r"gauge_live\w+?_(\d+)\.db$")


def forget_dead_processes(directory: str) -> None:
    """Drop the live gauges (``livesum``: the open streams) of processes that have ended, as
    ``mark_process_dead`` would if a server called it when it lost a worker; uvicorn and
    Celery do not. The files are on this machine: the processes that wrote them were too."""
    for path in glob.glob(os.path.join(directory, "gauge_live*.db")):
        found = _LIVE_FILE.search(os.path.basename(path))
        if found is None:
            continue
        pid = int(found.group(1))
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            mark_process_dead(pid, directory)
        except PermissionError:
            pass  # alive, another user's


def registry(*scrape_time: Collector) -> CollectorRegistry:
    """What ``/metrics`` shows: every process's series, summed from ``PROMETHEUS_MULTIPROC_DIR``
    when it is set (else this process's own), and the ``scrape_time`` collectors, read now."""
    shown = CollectorRegistry(auto_describe=False)  # nothing is collected until the scrape
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        forget_dead_processes(directory)
        MultiProcessCollector(shown, path=directory)
    else:
        shown.register(_ThisProcess())
    for collector in scrape_time:
        shown.register(collector)
    return shown
