"""CSV files for spreadsheets: every export of the product is written by `csv_response`.

A spreadsheet reads a cell that starts with `=`, `+`, `-` or `@` (or a tab or carriage return
before one) as a formula, so a table or player named `=HYPERLINK(...)` would run in an
auditor's spreadsheet. Text starting so is written after an apostrophe, which spreadsheets show
as text; numbers are passed as numbers (Decimal, int) and written as they are, signs included,
so `-0.30` stays a number.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from decimal import Decimal

from django.http import StreamingHttpResponse

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> str:
    """One cell: a number as a number, anything else as text that is never a formula."""
    if isinstance(value, Decimal | int) and not isinstance(value, bool):
        return format(value, "f") if isinstance(value, Decimal) else str(value)
    text = "" if value is None else str(value)
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


class _Echo:
    """csv.writer writes to this and gets the line back, to stream it."""

    def write(self, line: str) -> str:
        return line


def csv_lines(header: Iterable[str], rows: Iterable[Iterable[object]]) -> Iterator[str]:
    writer = csv.writer(_Echo())
    yield writer.writerow([cell(name) for name in header])
    for row in rows:
        yield writer.writerow([cell(value) for value in row])


def csv_response(
    filename: str, header: Iterable[str], rows: Iterable[Iterable[object]]
) -> StreamingHttpResponse:
    """The rows streamed as a CSV attachment (rows may be a lazy iterator over a query)."""
    response = StreamingHttpResponse(
        csv_lines(header, rows), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
