"""What every Celery process does beside its tasks: it logs as the web does, carries the request
id from a request into the tasks it queues, writes one log line per task, and a worker tells
Redis that it is alive (the heartbeat ``casino.health`` reads).

- Logging: Celery leaves the logging Django's ``LOGGING`` set up alone (``setup_logging`` has a
  receiver), so a worker's and beat's lines are in ``LOG_FORMAT`` too, with the same fields.
- The request id: a task published while a request id is bound (in a request, or in a task)
  carries it in a message header (``before_task_publish``); the task binds it while it runs
  (``task_prerun``), so the lines it logs, and the tasks it queues in turn, carry it. A task
  with none (queued by beat) takes its own task id.
- One line per task (logger ``casino.tasks``, ``task_postrun``): its name, id, state and
  duration, and the table or round its arguments name (``table_id``, ``round_id``).
- The heartbeat: each worker stamps its name with Redis's own clock in one sorted set every
  ``WORKER_HEARTBEAT_SECONDS`` (a bootstep on the worker's timer, in its main process). A
  readiness check reads the newest stamp with one command, where ``celery inspect ping``
  would broadcast to every worker and wait a second or more for the answers; Redis's clock on
  both sides means no clock of two machines is compared.
"""

from __future__ import annotations

import functools
import inspect
import logging
import time
from contextvars import Token
from typing import Any

import redis
from celery import Task, bootsteps, signals

from casino import logs

logger = logging.getLogger("casino.tasks")

# The message header a task's request id travels in.
REQUEST_ID_HEADER = "casino_request_id"
# Each worker's name, scored with the Redis server's time (seconds) of its last heartbeat.
HEARTBEAT_KEY = "casino:celery:workers"
# A worker not seen for a day is dropped from the set (and the set with the last of them).
HEARTBEAT_FORGET_SECONDS = 86_400
REDIS_TIMEOUT_SECONDS = 2.0

_STAMP = """
local now = tonumber(redis.call('TIME')[1])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('EXPIRE', KEYS[1], ARGV[2])
return now
"""


@functools.cache
def redis_client(url: str, timeout: float = REDIS_TIMEOUT_SECONDS) -> redis.Redis:
    """One client (and connection pool) per URL and timeout in each process; every command
    gives up after ``timeout`` seconds, connecting included."""
    return redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)


def stamp_heartbeat(broker_url: str, worker: str) -> None:
    """Record that ``worker`` is alive now, by the clock of the Redis at ``broker_url``."""
    client = redis_client(broker_url)
    client.eval(_STAMP, 1, HEARTBEAT_KEY, worker, HEARTBEAT_FORGET_SECONDS)


class Heartbeat(bootsteps.StartStopStep):
    """The worker's heartbeat, on the consumer's timer: once when the consumer starts (and
    starts again after a lost broker connection), then every ``WORKER_HEARTBEAT_SECONDS``."""

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        self.timer_entry: Any = None
        super().__init__(parent, **kwargs)

    def start(self, parent: Any) -> None:
        from django.conf import settings

        self.beat(parent)
        self.timer_entry = parent.timer.call_repeatedly(
            settings.WORKER_HEARTBEAT_SECONDS, self.beat, (parent,), priority=10
        )

    def stop(self, parent: Any) -> None:
        if self.timer_entry is not None:
            self.timer_entry.cancel()
            self.timer_entry = None

    shutdown = stop

    def beat(self, parent: Any) -> None:
        try:
            stamp_heartbeat(parent.app.conf.broker_url, parent.hostname)
        except redis.RedisError:
            # Redis is down: the worker cannot take tasks either, and readiness says so.
            logger.warning("could not write the worker's heartbeat", exc_info=True)


# Logging ------------------------------------------------------------------------------------


@signals.setup_logging.connect
def keep_django_logging(**kwargs: Any) -> None:
    """Celery configures no logging of its own: Django's LOGGING (``casino.logs``) stands."""


# The request id and a line per task --------------------------------------------------------


@signals.before_task_publish.connect
def carry_request_id(headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
    request_id = logs.request_id()
    if request_id is not None and headers is not None:
        headers.setdefault(REQUEST_ID_HEADER, request_id)


@functools.cache
def _parameters(task_name: str, task: Task) -> inspect.Signature | None:
    try:
        return inspect.signature(task.run)
    except (TypeError, ValueError):
        return None


def subject_of(task: Task, args: Any, kwargs: Any) -> dict[str, int]:
    """``{"table": id}`` and/or ``{"round": id}`` from the task's ``table_id`` / ``round_id``."""
    signature = _parameters(task.name, task)
    if signature is None:
        return {}
    try:
        bound = signature.bind_partial(*(args or ()), **(kwargs or {})).arguments
    except TypeError:
        return {}
    subject = {}
    for parameter, field in (("table_id", "table"), ("round_id", "round")):
        if isinstance(bound.get(parameter), int):
            subject[field] = bound[parameter]
    return subject


# The context each running task bound, and when it started, by task id (a thread pool may run
# several at once; prefork runs one per process).
_running: dict[str, tuple[Token[Any], float]] = {}


@signals.task_prerun.connect
def bind_task(
    task_id: str | None = None,
    task: Task | None = None,
    args: Any = None,
    kwargs: Any = None,
    **extra: Any,
) -> None:
    if task is None or task_id is None:
        return
    incoming = getattr(task.request, REQUEST_ID_HEADER, None)
    request_id = logs.sane_request_id(incoming) or logs.sane_request_id(task_id)
    token = logs.bind(request_id=request_id or logs.new_request_id())
    logs.bind(**subject_of(task, args, kwargs))
    _running[task_id] = (token, time.perf_counter())


@signals.task_postrun.connect
def log_task(
    task_id: str | None = None,
    task: Task | None = None,
    state: str | None = None,
    **extra: Any,
) -> None:
    if task is None or task_id is None or task_id not in _running:
        return
    token, started = _running.pop(task_id)
    duration_ms = round((time.perf_counter() - started) * 1000, 1)
    level = {"FAILURE": logging.ERROR, "RETRY": logging.WARNING}.get(state or "", logging.INFO)
    try:
        logger.log(
            level,
            "task %s %s in %s ms",
            task.name,
            state,
            duration_ms,
            extra={
                "task": task.name,
                "task_id": task_id,
                "state": state,
                "duration_ms": duration_ms,
            },
        )
    finally:
        logs.reset(token)
