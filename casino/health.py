"""Health checks for a load balancer or an orchestrator: ``GET /healthz`` and ``GET /readyz``.

``/healthz`` (liveness) says the process answers: 200 ``{"status": "ok"}``, touching nothing.
``/readyz`` (readiness) says whether this process can serve the casino now, by five checks:

- ``database``: PostgreSQL answers ``SELECT 1``;
- ``migrations``: every migration of the code running here is recorded as applied (a newer
  one recorded that this code does not know is fine: see the upgrade order in the README);
- ``timers``: no decision of any game is overdue by more than ``HEALTH_OVERDUE_SECONDS``
  (the joker draw's timer is a beat tick each second and the sweeper catches every table up
  every 15 s, so an older one means the timers are stuck); one read of the partial index of
  the deciding rounds' deadlines (``games.tables.selectors.overdue_decisions``);
- ``redis``: the broker's Redis answers;
- ``celery``: a worker's heartbeat (``casino.workers``) is younger than
  ``HEALTH_WORKER_MAX_AGE`` seconds, by Redis's own clock.

200 ``{"status": "ok", "checks": {"database": "ok", ...}}`` when all pass, else 503 with
``"status": "unavailable"``, each check ``ok``, ``failed``, ``timeout`` or ``skipped`` (it
could not be asked: the database or Redis is down), and ``failed``: a few words on each
failure. The body holds no secret, no host name and no error text; the reasons go to the log
(logger ``casino.health``).

Cheap enough to call every second: the database checks are three small statements on one
connection this process keeps for them, Redis's two commands one round trip. Each check runs
on a thread of its own kind (one for the database, one for Redis) and the answer waits at most
``HEALTH_CHECK_TIMEOUT`` seconds for them (a check still running then is ``timeout``, and is
not started again behind itself); the connections give up on their own after that long too
(PostgreSQL's ``statement_timeout``, Redis's socket timeouts).

Both answer from a middleware that comes before every other but the request log
(``casino.http.request_log``): before ``SecurityMiddleware``'s redirect to HTTPS and before
anything reads the Host header, so a load balancer's probe over plain HTTP to the server's
own address is answered, whatever ``SECURE_SSL_REDIRECT`` and ``ALLOWED_HOSTS`` say. That is
safe because the answers build no URL from the Host header, set no cookie and need no sign-in.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import logging
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import redis
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder
from django.db.utils import load_backend
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone

from casino import workers
from games.tables.selectors import overdue_decisions

logger = logging.getLogger(__name__)

LIVE_PATHS = frozenset({"/healthz", "/healthz/"})
READY_PATHS = frozenset({"/readyz", "/readyz/"})

OK, FAILED, TIMEOUT, SKIPPED = "ok", "failed", "timeout", "skipped"


@dataclass(frozen=True)
class Outcome:
    state: str
    reason: str = ""


PASSED = Outcome(OK)


# The database -------------------------------------------------------------------------------


def database_settings() -> dict[str, Any]:
    """The default database's settings, with the checks' timeouts: a connection of its own
    that gives up connecting, and any statement, after ``HEALTH_CHECK_TIMEOUT``."""
    database = copy.deepcopy(connections.settings[DEFAULT_DB_ALIAS])
    milliseconds = max(1, int(settings.HEALTH_CHECK_TIMEOUT * 1000))
    options = database.setdefault("OPTIONS", {})
    # libpq waits at least 2 s; the answer does not wait for it (HEALTH_CHECK_TIMEOUT).
    options.setdefault("connect_timeout", max(2, math.ceil(settings.HEALTH_CHECK_TIMEOUT)))
    options["options"] = f"{options.get('options', '')} -c statement_timeout={milliseconds}"
    return database


@functools.cache
def expected_migrations() -> dict[tuple[str, str], tuple[tuple[str, str], ...]]:
    """Every migration of the code running here (read from disk once a process), each with
    those it replaces if it is a squashed one."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    return {
        key: tuple(tuple(replaced) for replaced in migration.replaces)
        for key, migration in loader.graph.nodes.items()
    }


class DatabaseChecks:
    """``database``, ``migrations`` and ``timers`` on one connection of the checks' own, used
    only on the checks' database thread (Django's connections belong to the thread that made
    them)."""

    names = ("database", "migrations", "timers")

    def __init__(self) -> None:
        self.wrapper: BaseDatabaseWrapper | None = None

    def __call__(self) -> dict[str, Outcome]:
        try:
            self.select_one()
        except Exception as error:
            self.close()
            _log_failure("database", error)
            return {"database": Outcome(FAILED, "unreachable"), **_skipped(self.names[1:])}
        outcomes = {"database": PASSED}
        for name, check in (("migrations", self.migrations), ("timers", self.timers)):
            try:
                outcomes[name] = check()
            except Exception as error:
                _log_failure(name, error)
                outcomes[name] = Outcome(FAILED, "could not be read")
        return outcomes

    def connect(self) -> BaseDatabaseWrapper:
        if self.wrapper is None:
            database = database_settings()
            self.wrapper = load_backend(database["ENGINE"]).DatabaseWrapper(
                database, DEFAULT_DB_ALIAS
            )
        return self.wrapper

    def select_one(self) -> None:
        kept = self.wrapper is not None and self.wrapper.connection is not None
        try:
            with self.connect().cursor() as cursor:
                cursor.execute("SELECT 1")
        except Exception:
            if not kept:
                raise
            # The connection kept from the last check may have died with a server that has
            # come back since: one more try on a new one.
            self.close()
            with self.connect().cursor() as cursor:
                cursor.execute("SELECT 1")

    def migrations(self) -> Outcome:
        table = self.connect().ops.quote_name(MigrationRecorder.Migration._meta.db_table)
        with self.connect().cursor() as cursor:
            cursor.execute(f"SELECT app, name FROM {table}")  # noqa: S608 - a fixed name
            applied = {(app, name) for app, name in cursor.fetchall()}
        missing = [
            key
            for key, replaces in expected_migrations().items()
            if key not in applied and not (replaces and set(replaces) <= applied)
        ]
        if missing:
            return Outcome(FAILED, f"{len(missing)} not applied")
        return PASSED

    def timers(self) -> Outcome:
        now = timezone.now()
        allowed = timedelta(seconds=settings.HEALTH_OVERDUE_SECONDS)
        oldest = overdue_decisions(now - allowed).values_list("decision_deadline", flat=True)[:1]
        sql, params = oldest.query.get_compiler(connection=self.connect()).as_sql()
        with self.connect().cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        if row is None:
            return PASSED
        late = int((now - row[0]).total_seconds())
        return Outcome(FAILED, f"a decision overdue by {late} s")

    def close(self) -> None:
        if self.wrapper is not None:
            # A broken connection is being dropped anyway.
            with contextlib.suppress(Exception):
                self.wrapper.close()
            self.wrapper = None


# Redis and the workers ----------------------------------------------------------------------


def redis_checks() -> dict[str, Outcome]:
    """``redis`` and ``celery``: the broker's clock and the newest worker heartbeat, in one
    round trip."""
    client = workers.redis_client(settings.CELERY_BROKER_URL, settings.HEALTH_CHECK_TIMEOUT)
    try:
        pipe = client.pipeline(transaction=False)
        pipe.time()
        pipe.zrevrange(workers.HEARTBEAT_KEY, 0, 0, withscores=True)
        (seconds, _micro), newest = pipe.execute()
    except redis.RedisError as error:
        _log_failure("redis", error)
        return {"redis": Outcome(FAILED, "unreachable"), **_skipped(("celery",))}
    if not newest:
        return {"redis": PASSED, "celery": Outcome(FAILED, "no worker seen")}
    age = int(seconds - newest[0][1])
    if age > settings.HEALTH_WORKER_MAX_AGE:
        return {"redis": PASSED, "celery": Outcome(FAILED, f"no worker seen for {age} s")}
    return {"redis": PASSED, "celery": PASSED}


# Running the checks -------------------------------------------------------------------------


def _skipped(names: tuple[str, ...]) -> dict[str, Outcome]:
    return {name: Outcome(SKIPPED) for name in names}


def _log_failure(name: str, error: BaseException) -> None:
    logger.warning("readiness check %s failed: %s: %s", name, type(error).__name__, error)


class Probe:
    """A set of checks run on a thread of their own. A run still going when the next answer
    is asked for is waited for again while it is younger than the timeout, and never queued
    behind: a hung database holds one thread, not one per second."""

    def __init__(self, kind: str, names: tuple[str, ...], run: Callable[[], dict[str, Outcome]]):
        self.names, self.run = names, run
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"readyz-{kind}")
        self.lock = threading.Lock()
        self.future: Future[dict[str, Outcome]] | None = None
        self.started = 0.0

    def start(self, timeout: float) -> Future[dict[str, Outcome]] | None:
        """The run to wait for: a new one, or the one still going; None if that one hangs."""
        now = time.monotonic()
        with self.lock:
            if self.future is None or self.future.done():
                self.future, self.started = self.executor.submit(self.run), now
            elif now - self.started > timeout:
                return None
            return self.future

    def outcomes(self, future: Future[dict[str, Outcome]] | None, deadline: float) -> dict:
        if future is not None:
            try:
                return future.result(timeout=max(0.0, deadline - time.monotonic()))
            except FutureTimeout:
                pass
            except Exception as error:  # a check that raised: failed, never a 500
                _log_failure("/".join(self.names), error)
                return {name: Outcome(FAILED, "could not be read") for name in self.names}
        logger.warning("readiness checks %s timed out", ", ".join(self.names))
        return {name: Outcome(TIMEOUT, "no answer in time") for name in self.names}

    def call(self, function: Callable[[], object], timeout: float = 10.0) -> None:
        """Run ``function`` on the probe's thread and wait for it."""
        self.executor.submit(function).result(timeout=timeout)


_database = DatabaseChecks()
PROBES = (
    Probe("database", DatabaseChecks.names, _database),
    Probe("redis", ("redis", "celery"), redis_checks),
)


def readiness() -> dict[str, Outcome]:
    """Every check's outcome, in at most about ``HEALTH_CHECK_TIMEOUT`` seconds."""
    timeout = settings.HEALTH_CHECK_TIMEOUT
    deadline = time.monotonic() + timeout
    started = [(probe, probe.start(timeout)) for probe in PROBES]
    outcomes: dict[str, Outcome] = {}
    for probe, future in started:
        outcomes.update(probe.outcomes(future, deadline))
    return outcomes


def close() -> None:
    """Close the checks' database connection (on its thread), e.g. before the database is
    dropped; the next check opens a new one."""
    PROBES[0].call(_database.close)


# The answers ------------------------------------------------------------------------------


def live_response() -> JsonResponse:
    return JsonResponse({"status": "ok"})


def ready_response() -> JsonResponse:
    outcomes = readiness()
    body: dict[str, Any] = {
        "status": "ok",
        "checks": {name: outcome.state for name, outcome in outcomes.items()},
    }
    failed = {name: o.reason or o.state for name, o in outcomes.items() if o.state != OK}
    if not failed:
        return JsonResponse(body)
    return JsonResponse({**body, "status": "unavailable", "failed": failed}, status=503)


class HealthCheckMiddleware:
    """Answers ``/healthz`` and ``/readyz`` before any other middleware sees the request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        expected_migrations()  # read from disk now, not in the first check's second

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path_info
        if path not in LIVE_PATHS and path not in READY_PATHS:
            return self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            response: HttpResponse = JsonResponse({"status": "method not allowed"}, status=405)
            response["Allow"] = "GET, HEAD"
        else:
            response = live_response() if path in LIVE_PATHS else ready_response()
        response["Cache-Control"] = "no-store"
        # The request log has the line (a failing check at WARNING): Django's own "Service
        # Unavailable" ERROR line every second of an outage would only repeat it.
        response._has_been_logged = True  # type: ignore[attr-defined]
        return response
