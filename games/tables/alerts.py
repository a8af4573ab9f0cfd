"""Alerts for the pit: a table whose timers the sweeper could not catch up.

A failed catch-up is rolled back and logged with its traceback; the table is also marked in the
shared cache (Redis whenever there is one, so the Celery worker's mark reaches the web
processes) and the live tables screen shows the mark in red until a catch-up of that table
succeeds again, or for ``ALERT_SECONDS`` after the last failure.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict

from django.core.cache import cache
from django.utils import timezone

ALERT_SECONDS = 3600


class CatchUpFailure(TypedDict):
    at: str
    """When the last attempt failed (ISO 8601, UTC)."""
    error: str


def _key(table_id: int) -> str:
    return f"casino:catch-up-failed:{table_id}"


def catch_up_failed(table_id: int, error: Exception) -> None:
    failure: CatchUpFailure = {
        "at": timezone.now().isoformat(timespec="seconds"),
        "error": f"{type(error).__name__}: {error}"[:500],
    }
    cache.set(_key(table_id), failure, timeout=ALERT_SECONDS)


def clear_catch_up_failures(table_ids: Iterable[int]) -> None:
    cache.delete_many([_key(table_id) for table_id in table_ids])


def catch_up_failures(table_ids: Iterable[int]) -> dict[int, CatchUpFailure]:
    """The tables among ``table_ids`` whose last catch-up failed, with the failure."""
    keys = {_key(table_id): table_id for table_id in table_ids}
    return {keys[key]: failure for key, failure in cache.get_many(list(keys)).items()}
