"""Whole numbers people type into an address or a form: a table's id, a page's seat, the
odds of a paytable line.

`str.isdigit` passes digits `int` refuses (the superscript "²") and `int` refuses digits too
many to convert (over 4,300), so checking one and converting with the other ends in a server
error; these are read here, as ASCII digits of a length any database id fits in.
"""

from __future__ import annotations

import re

# 18 digits stay below 2**63: an id PostgreSQL's bigint holds, and more than any odds need.
WHOLE_NUMBER = re.compile(r"[0-9]{1,18}")


def whole_number(text: str | None) -> int | None:
    """``text`` as a whole number of up to 18 ASCII digits; None for anything else."""
    return int(text) if text is not None and WHOLE_NUMBER.fullmatch(text) else None
