"""Transactions and prepared statements of the hot paths.

Django's cursors bind parameters on the client, into the statement's text, which the server
then parses and plans afresh each time. The few statements every round sends are better bound
and prepared by the server: each connection parses and plans them once (`prepare_threshold`
in the settings) and the parameters travel apart from the text.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from pghistory.runtime import _inject_history_context
from psycopg.types.datetime import TimestamptzLoader


def service_transaction() -> AbstractContextManager[None]:
    """A service's transaction: its own when it is called on its own, else its caller's, with
    no savepoint. A refusal inside a caller's transaction then rolls back the caller's whole
    transaction, which is what each caller wants (a request's, or a task's per table); a caller
    that means to carry on after a refusal wraps the call in a savepoint of its own."""
    return transaction.atomic(savepoint=False)


# One server-binding cursor for each thread's database connection (Django's connections are a
# thread's own), made again when Django opens a new one: a cursor is cheap to use again and
# dear to make.
_kept = threading.local()


@contextmanager
def prepared_cursor() -> Iterator[CursorWrapper]:
    """A cursor whose statements the server binds and prepares, wrapped as Django wraps its own
    (so they are counted and logged alike). Inside a pghistory context, which puts its own
    statement before each one and so cannot be prepared, Django's ordinary cursor."""
    db = connections[DEFAULT_DB_ALIAS]
    if _inject_history_context in db.execute_wrappers:
        with db.cursor() as ordinary:
            yield ordinary
        return
    db.ensure_connection()
    db.validate_thread_sharing()
    cursor: psycopg.Cursor[Any] | None = getattr(_kept, "cursor", None)
    if cursor is None or cursor.connection is not db.connection or cursor.closed:
        cursor = psycopg.Cursor(db.connection)
        # psycopg's own (compiled) loader for timestamps: Django's is written in Python. The
        # connection's time zone is UTC (Django sets it), so the values are the same.
        cursor.adapters.register_loader("timestamptz", TimestamptzLoader)
        _kept.cursor = cursor
    yield (CursorDebugWrapper if db.queries_logged else CursorWrapper)(cursor, db)
