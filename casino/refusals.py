"""A refusal by a rule of the product, in the domain's words: no HTTP here.

Games, the ledger and the maker-checker steps raise a ``Refused`` carrying its ``kind`` (what sort
of refusal it is), a stable ``code`` (a rule id such as ``JD-4``, or a name such as
``insufficient_funds``) and its messages by field. The API's one handler
(``casino.http.errors``) maps each kind to its status; a page or a command reads the same
refusal its own way.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    """What sort of refusal: a request that breaks a rule whatever the moment (``INVALID``), one
    the moment refuses (``CONFLICT``: the round is over, the funds are short), a thing that is
    not there for the asker (``NOT_FOUND``), or one the asker may not do (``FORBIDDEN``)."""

    INVALID = "invalid"
    CONFLICT = "conflict"
    NOT_FOUND = "not_found"
    FORBIDDEN = "forbidden"


class Refused(Exception):
    """A request refused by a rule of the product, wherever it was refused: its ``kind``, the
    messages by field, and the stable ``code``."""

    kind: Kind = Kind.INVALID
    code: str

    def messages(self) -> dict[str, list[str]]:
        raise NotImplementedError

    def extra(self) -> dict[str, Any]:
        """Fields the answer carries beside the messages (when a limit resets, until when a
        player is excluded, ...)."""
        return {}


class FieldRefused(Refused):
    """A refusal of one field with one message: the common case."""

    def __init__(self, message: str, *, field: str, code: str, kind: Kind = Kind.INVALID) -> None:
        super().__init__(message)
        self.message, self.field, self.code, self.kind = message, field, code, kind

    def messages(self) -> dict[str, list[str]]:
        return {self.field: [self.message]}
