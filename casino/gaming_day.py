"""The casino's gaming day: it begins at ``GAMING_DAY_STARTS_AT`` in ``CASINO_TIME_ZONE``, not
at midnight. The gaming-day report and the players' own limits count by it, so both agree on
where a day, a week (from Monday's gaming day) and a month (from the 1st's) begin."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from django.conf import settings


class Period(StrEnum):
    DAY = "day"
    WEEK = "week"
    MONTH = "month"


def zone() -> ZoneInfo:
    return ZoneInfo(settings.CASINO_TIME_ZONE)


def starts_after_midnight() -> timedelta:
    hours, minutes = (int(part) for part in settings.GAMING_DAY_STARTS_AT.split(":"))
    return timedelta(hours=hours, minutes=minutes)


def gaming_day_of(moment: datetime) -> date:
    """The gaming day a moment belongs to: the calendar day in the casino's time zone on which
    the gaming day that holds it began."""
    local = moment.astimezone(zone())
    return (local - starts_after_midnight()).date()


def gaming_day_start(day: date) -> datetime:
    """The moment gaming day ``day`` begins."""
    return datetime.combine(day, time(0), tzinfo=zone()) + starts_after_midnight()


def gaming_day_bounds(first: date, last: date) -> tuple[datetime, datetime]:
    """The moment gaming day ``first`` begins and the moment gaming day ``last`` ends."""
    return gaming_day_start(first), gaming_day_start(last + timedelta(days=1))


def period_bounds(period: Period, moment: datetime) -> tuple[datetime, datetime]:
    """The period of gaming days holding ``moment``: when it began and when the next begins."""
    day = gaming_day_of(moment)
    if period == Period.DAY:
        first, after = day, day + timedelta(days=1)
    elif period == Period.WEEK:
        first = day - timedelta(days=day.weekday())
        after = first + timedelta(days=7)
    else:
        first = day.replace(day=1)
        after = (first + timedelta(days=32)).replace(day=1)
    return gaming_day_start(first), gaming_day_start(after)
