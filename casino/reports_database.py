"""Where the auditors' reports read from: a hot standby of the database, when one is configured.

With ``REPORTS_DATABASE_URL`` naming a standby fed by streaming replication, the heavy reads
(the gaming-day report, the payouts reviews, statements, their CSVs, the fair-play report, the
RTP observations) go through the ``reports`` alias, off the primary the tables play on. A
standby more than ``REPORTS_MAX_LAG_SECONDS`` behind, or one that cannot be reached, is passed
over: the report reads from the primary and says so. Reads that decide money (a settlement,
the balance a stake is checked against) never come here.

Nothing is ever written through the alias: ``ReportsRouter`` sends every write and migration to
the primary, and its connections are read-only even where the alias names the primary.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.models import Model
from django.http.response import HttpResponseBase
from django.utils.translation import gettext as _

REPORTS = "reports"
# Pages, CSVs and API answers of reports say in this header where they were read from.
SOURCE_HEADER = "X-Reports-Source"
# One measurement of the standby serves every report of every process for this long, so a page
# pays for it at most once (and an unreachable standby's connection timeout just as rarely).
LAG_CHECK_SECONDS = 5
_LAG_CACHE_KEY = "reports-database-lag"
_UNREACHABLE = -1.0

# Measured on the standby. A standby that has replayed all the WAL its running receiver got is
# up to date: an idle primary sends nothing, so the last replayed transaction only grows old.
# Otherwise the lag is the age of that transaction (NULL before the first: unknown, too far).
_LAG = """
    SELECT CASE
        WHEN NOT pg_is_in_recovery() THEN 0
        WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()
             AND EXISTS (SELECT FROM pg_stat_wal_receiver) THEN 0
        ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp())
    END
"""

logger = logging.getLogger(__name__)


class Fallback(StrEnum):
    """Why a report read from the primary although a standby is configured."""

    LAGGING = "lagging"
    UNREACHABLE = "unreachable"


@dataclass(frozen=True)
class ReportsSource:
    """The database alias a report reads from, and why it is the primary if it is."""

    alias: str
    fallback: Fallback | None = None

    @property
    def notice(self) -> str:
        """What the page says when it fell back to the primary; empty when it did not."""
        if self.fallback is Fallback.LAGGING:
            return _(
                "The reporting replica is more than %(seconds)s seconds behind: this page was "
                "read from the main database."
            ) % {"seconds": settings.REPORTS_MAX_LAG_SECONDS}
        if self.fallback is Fallback.UNREACHABLE:
            return _(
                "The reporting replica cannot be reached: this page was read from the main "
                "database."
            )
        return ""

    def header(self) -> str:
        """The source header's value: ``replica``, or ``primary`` and the fallback's reason."""
        if self.alias == REPORTS:
            return "replica"
        return f"primary; fallback={self.fallback}" if self.fallback else "primary"


def reports_source() -> ReportsSource:
    """Where a report reads from now: the standby when one is configured, reachable and at most
    ``REPORTS_MAX_LAG_SECONDS`` behind, else the primary."""
    if not settings.REPORTS_DATABASE_URL:
        return ReportsSource(DEFAULT_DB_ALIAS)
    lag = cache.get(_LAG_CACHE_KEY)
    if lag is None:
        lag = _measured_lag()
        cache.set(_LAG_CACHE_KEY, lag, LAG_CHECK_SECONDS)
    if lag == _UNREACHABLE:
        return ReportsSource(DEFAULT_DB_ALIAS, Fallback.UNREACHABLE)
    if lag > settings.REPORTS_MAX_LAG_SECONDS:
        return ReportsSource(DEFAULT_DB_ALIAS, Fallback.LAGGING)
    return ReportsSource(REPORTS)


def _measured_lag() -> float:
    """The standby's lag in seconds (infinite when unknown), or ``_UNREACHABLE``."""
    connection = connections[REPORTS]
    try:
        with connection.cursor() as cursor:
            cursor.execute(_LAG)
            (lag,) = cursor.fetchone()
    except DatabaseError:
        logger.warning("The reports replica cannot be reached; reports read the primary.")
        connection.close()
        return _UNREACHABLE
    return float("inf") if lag is None else float(lag)


ResponseT = TypeVar("ResponseT", bound=HttpResponseBase)


def said(response: ResponseT, source: ReportsSource) -> ResponseT:
    """The response with the source header: where its report was read from."""
    response[SOURCE_HEADER] = source.header()
    return response


class ReportsRouter:
    """Every write and every migration goes to the primary: an object read through the reports
    alias is saved on the primary, and no migration ever runs on the standby."""

    def db_for_write(self, model: type[Model], **hints: Any) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, first: Model, second: Model, **hints: Any) -> bool | None:
        # Both aliases hold the same rows.
        databases = {first._state.db, second._state.db}
        return True if databases <= {DEFAULT_DB_ALIAS, REPORTS} else None

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        return False if db == REPORTS else None
