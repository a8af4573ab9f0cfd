"""Live tables: "table N changed" notices over Redis pub/sub, streamed to pages as server-sent
events.

The services call ``table_changed`` where a round or a seat changes; the notice goes out only
once the change is committed, so a page that re-fetches the table's JSON on a notice sees it.
A notice carries no cards or amounts: what a viewer may see is decided by the API alone.
Redis being down loses notices, never a change: pages also re-fetch after their own actions
and on a slow timer.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterator

import redis
import redis.asyncio as aioredis
from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from casino.metrics import LIVE_STREAMS_OPEN

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 15.0
# A stream ends after this long, so a page's session is checked again (its user may have
# logged out or the table closed); EventSource reconnects.
STREAM_SECONDS = 300.0


def channel(table_id: int) -> str:
    return f"casino:table:{table_id}"


@functools.lru_cache(maxsize=4)
def _redis(url: str) -> redis.Redis:
    """One client (and connection pool) per Redis URL for the process. Short timeouts: a request
    that commits a change must not wait on a Redis that is down or stuck."""
    return redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)


def table_changed(table_id: int) -> None:
    """Tell the table's watchers, once the current transaction commits, that it changed."""
    transaction.on_commit(lambda: _publish(table_id))


def _publish(table_id: int) -> None:
    try:
        _redis(settings.REDIS_URL).publish(channel(table_id), "changed")
    except redis.RedisError:
        logger.info("live notice for table %s not sent: Redis unreachable", table_id)


async def stream(table_id: int, *, lifetime: float | None = None) -> AsyncGenerator[str, None]:
    """Server-sent events for one table: ``event: changed`` on each notice, a comment line as a
    heartbeat every ``HEARTBEAT_SECONDS``, and an end after ``lifetime`` seconds (default
    ``STREAM_SECONDS``). Asynchronous: an open stream waits on Redis in the server's event
    loop and holds no thread or database connection."""
    # Reconnect after 3 s when the stream ends; a page whose Redis is down falls back to its timer.
    yield "retry: 3000\n\n"
    client = aioredis.Redis.from_url(
        settings.REDIS_URL, socket_connect_timeout=0.5, socket_timeout=0.5
    )
    pubsub = client.pubsub(ignore_subscribe_messages=True)
    try:
        try:
            await pubsub.subscribe(channel(table_id))
        except redis.RedisError:
            yield "event: unavailable\ndata: {}\n\n"
            return
        deadline = time.monotonic() + (STREAM_SECONDS if lifetime is None else lifetime)
        beat = time.monotonic() + HEARTBEAT_SECONDS
        while (now := time.monotonic()) < deadline:
            message = await pubsub.get_message(timeout=max(0.0, min(beat, deadline) - now))
            if message is not None and message["type"] == "message":
                yield f'event: changed\ndata: {{"table": {table_id}}}\n\n'
            elif time.monotonic() >= beat:
                yield ": heartbeat\n\n"
                beat = time.monotonic() + HEARTBEAT_SECONDS
    except redis.RedisError:
        yield "event: unavailable\ndata: {}\n\n"
    finally:
        await pubsub.aclose()
        await client.aclose()


def blocking(events: AsyncGenerator[str, None]) -> Iterator[str]:
    """``events`` for a WSGI server (the tests' live server), which sends a response from a
    plain iterator on its own thread: one event loop for the whole stream, pulled event by
    event (an asynchronous Redis connection belongs to its loop)."""
    loop = asyncio.new_event_loop()
    try:
        while True:
            try:
                yield loop.run_until_complete(anext(events))
            except StopAsyncIteration:
                return
    finally:
        loop.run_until_complete(events.aclose())
        loop.close()


# Open streams per user ---------------------------------------------------------------------------


def _streams_key(user_id: int) -> str:
    return f"casino:live-streams:{user_id}"


# A count left behind by a process that died with streams open lapses once no stream of that
# user can still be open.
_COUNT_SECONDS = int(STREAM_SECONDS) + 60


async def open_stream(user_id: int) -> bool:
    """Count one more open stream of the user, across every process (the shared cache); False,
    counting nothing, if the user already holds ``LIVE_STREAMS_PER_USER``."""
    key = _streams_key(user_id)
    await cache.aadd(key, 0, timeout=_COUNT_SECONDS)
    count = await cache.aincr(key)
    if count > settings.LIVE_STREAMS_PER_USER:
        await cache.adecr(key)
        return False
    await cache.atouch(key, timeout=_COUNT_SECONDS)
    return True


async def close_stream(user_id: int) -> None:
    with contextlib.suppress(ValueError):  # the count lapsed meanwhile: nothing to give back
        await cache.adecr(_streams_key(user_id))


async def counted(user_id: int, events: AsyncIterator[str]) -> AsyncGenerator[str, None]:
    """``events`` as one of the user's open streams (``open_stream`` counted it): the count
    goes down when the stream ends, however it ends (the client leaving included). The
    process's gauge of open streams (``/metrics``) counts it too, from its first event."""
    LIVE_STREAMS_OPEN.inc()
    try:
        async for event in events:
            yield event
    finally:
        LIVE_STREAMS_OPEN.dec()
        await close_stream(user_id)
