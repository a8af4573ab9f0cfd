"""The limits every peer table has beside its game's own, and what they must satisfy."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _

from games.tables.limits import MIN_TIMEOUT_SECONDS

PEER_FIELDS = (
    "seats",
    "rake_percent",
    "rake_cap",
    "buy_in_min",
    "buy_in_max",
    "action_timeout_seconds",
)


def seat_problems(v: Mapping[str, Any], *, seats: tuple[int, int], rule: str) -> dict[str, str]:
    """What is wrong with the number of seats; ``rule`` is the game's rule on them."""
    low, high = seats
    if not low <= v["seats"] <= high:
        return {
            "seats": _("seats must be %(low)s to %(high)s (%(rule)s).")
            % {"low": low, "high": high, "rule": rule}
        }
    return {}


def money_problems(
    v: Mapping[str, Any], *, rake_rule: str, smallest_stake: Decimal
) -> dict[str, str]:
    """What is wrong with the rake, the buy-ins and the action time; ``rake_rule`` is the
    game's rule on the rake, ``smallest_stake`` its smallest forced bet."""
    errors: dict[str, str] = {}
    if not 0 <= v["rake_percent"] <= 100:
        errors["rake_percent"] = _("rake_percent must be from 0 to 100 (%(rule)s).") % {
            "rule": rake_rule
        }
    if v["buy_in_max"] < v["buy_in_min"]:
        errors["buy_in_max"] = _("buy_in_max must not be below buy_in_min.")
    if v["buy_in_min"] < smallest_stake:
        errors["buy_in_min"] = _("buy_in_min must cover at least one forced bet.")
    if v["action_timeout_seconds"] < MIN_TIMEOUT_SECONDS:
        errors["action_timeout_seconds"] = _(
            "action_timeout_seconds must be at least %(seconds)s."
        ) % {"seconds": MIN_TIMEOUT_SECONDS}
    return errors
