"""The API's cursor lists, newest first. A cursor is ours or refused with 400: DRF checks its
offset and direction, but would hand its position, any text, to the query as an id."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.request import Request

from casino.http.errors import InputRefused

LARGEST_ID = 2**63 - 1  # PostgreSQL's bigint


def _is_id(position: str) -> bool:
    return position.isascii() and position.isdigit() and int(position) <= LARGEST_ID


class NewestFirst(CursorPagination):
    ordering = "-id"
    page_size = 50

    def decode_cursor(self, request: Request) -> Cursor | None:
        try:
            cursor = super().decode_cursor(request)
        except NotFound:  # not base64, or an offset or direction that is no number
            raise self.refused() from None
        if cursor is not None and cursor.position is not None and not _is_id(str(cursor.position)):
            raise self.refused()
        return cursor

    def refused(self) -> InputRefused:
        return InputRefused(
            self.cursor_query_param,
            "invalid_cursor",
            _("This cursor is not one of the list's own; follow its next and previous links."),
        )


class NewestRoundsFirst(NewestFirst):
    page_size = 20


def newest_first_page(item: type[serializers.Serializer[Any]]) -> serializers.Serializer[Any]:
    """A page of these lists in the schema, for a view that pages by hand: the links to the
    next and previous pages (null at the ends) and the ``item``s, named as the schema names the
    pages of the generic views."""
    name = item.__name__.removesuffix("Serializer")
    return inline_serializer(
        f"Paginated{name}List",
        {
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": item(many=True),
        },
    )
