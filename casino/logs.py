"""The context every log line carries, and the two formats lines are written in.

A request (``casino.http.request_log``) or a Celery task (``casino.workers``) binds its request
id, and what it knows of its user, table and round, in a context variable for as long as it
runs; ``ContextFilter`` copies them onto every record logged meanwhile, whichever logger
logged it. ``LOG_FORMAT`` chooses how the console handler writes a record: ``text`` (the
default, for a person at ``make run``) or ``json`` (one JSON object a line, for a log
collector; python-json-logger writes it).

Nothing here imports Django or an app: the logging configuration loads this module while
Django sets itself up.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Mapping
from contextvars import ContextVar, Token
from types import MappingProxyType
from typing import Any

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter

# The fields a request or task may bind, in the order the text format shows them.
FIELDS = ("request_id", "user_id", "table", "round")

# An incoming request id is kept only if it is short and made of characters that cannot break
# a log line or a header: an attacker's newline, quote or 10 kB never reaches a log.
MAX_REQUEST_ID = 128
_SANE_REQUEST_ID = re.compile(rf"[A-Za-z0-9._:@+=/-]{{1,{MAX_REQUEST_ID}}}")

_NOTHING_BOUND: Mapping[str, Any] = MappingProxyType({})
_context: ContextVar[Mapping[str, Any]] = ContextVar("casino_log_context", default=_NOTHING_BOUND)


def sane_request_id(value: object) -> str | None:
    """``value`` if it may serve as a request id as it is, else None."""
    if isinstance(value, str) and _SANE_REQUEST_ID.fullmatch(value):
        return value
    return None


def new_request_id() -> str:
    return uuid.uuid4().hex


def bind(**values: Any) -> Token[Mapping[str, Any]]:
    """Add ``values`` (None leaves a field out) to the context of the lines logged from here
    on; ``reset`` with the token returned puts back the context as it was."""
    known = {key: value for key, value in values.items() if value is not None}
    return _context.set({**_context.get(), **known})


def reset(token: Token[Mapping[str, Any]]) -> None:
    _context.reset(token)


def context() -> Mapping[str, Any]:
    """The fields bound now: ``request_id``, and ``user_id``, ``table``, ``round`` if known."""
    return _context.get()


def request_id() -> str | None:
    return _context.get().get("request_id")


class ContextFilter(logging.Filter):
    """Puts the bound fields on each record (a field the record already has is kept)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in _context.get().items():
            if not hasattr(record, key):
                setattr(record, key, value)
        return True


def json_formatter() -> logging.Formatter:
    """One JSON object a line: ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message``,
    the bound fields and whatever ``extra`` the line was logged with (``duration_ms``,
    ``status``, ``code``, ...); an exception's traceback as ``exc_info``."""
    return JsonFormatter(
        "%(levelname)s %(name)s %(message)s",
        rename_fields={"levelname": "level", "name": "logger"},
        timestamp="time",
        # uvicorn's copy of its message with terminal colours.
        reserved_attrs=[*RESERVED_ATTRS, "color_message"],
    )


class TextFormatter(logging.Formatter):
    """A plain line for a person: time, level, logger and message, then the bound fields
    (``request_id=... user_id=...``) when there are any."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = " ".join(f"{key}={getattr(record, key)}" for key in FIELDS if hasattr(record, key))
        if not fields:
            return line
        # The traceback, if any, stays below the line it belongs to.
        first, newline, rest = line.partition("\n")
        return f"{first} [{fields}]{newline}{rest}"


LOG_FORMATS = ("text", "json")


def logging_config(log_format: str, level: str) -> dict[str, Any]:
    """The LOGGING setting: every record, Django's and Celery's included, goes through one
    console handler (standard error) in ``log_format``."""
    handler = {
        "class": "logging.StreamHandler",
        "filters": ["context"],
        "formatter": log_format,
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "casino.logs.ContextFilter"}},
        "formatters": {
            "text": {"()": "casino.logs.TextFormatter"},
            "json": {"()": "casino.logs.json_formatter"},
        },
        "handlers": {"console": handler},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
            # The web server's own lines (uvicorn's workers load these settings): its access
            # log is off (scripts/serve.sh), casino.http.request_log writes the request lines.
            "uvicorn": {"handlers": ["console"], "level": "INFO", "propagate": False},
            "uvicorn.access": {"handlers": [], "propagate": False},
        },
    }
