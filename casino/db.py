"""The prepared statements of the hot paths.

Django's cursors bind parameters on the client, into the statement's text, which the server
then parses and plans afresh each time. The few statements every round sends are better bound
and prepared by the server: each connection parses and plans them once (`prepare_threshold`
in the settings) and the parameters travel apart from the text.
"""

from __future__ import annotations

import psycopg
from django.db import connection
from django.db.backends.utils import CursorWrapper
from pghistory.runtime import _inject_history_context


def prepared_cursor() -> CursorWrapper:
    """A cursor whose statements the server binds and prepares, wrapped as Django wraps its own
    (so they are counted and logged alike). Inside a pghistory context, which puts its own
    statement before each one and so cannot be prepared, Django's ordinary cursor."""
    if _inject_history_context in connection.execute_wrappers:
        return connection.cursor()
    connection.ensure_connection()
    connection.validate_thread_sharing()
    cursor = psycopg.Cursor(connection.connection)
    if connection.queries_logged:
        return connection.make_debug_cursor(cursor)
    return connection.make_cursor(cursor)
