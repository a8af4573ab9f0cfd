"""Drawmaha's table limits: what they are, a new table's first proposal, and what they must
satisfy."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal as D
from typing import Any

from django.utils.translation import gettext as _

from games.engine.rules import DrawmahaRule
from games.peer.limits import (
    PEER_FIELDS,
    SIT_OUT_MINUTES,
    TIMEOUTS_TO_SIT_OUT,
    money_problems,
    seat_problems,
)

LIMIT_FIELDS = ("small_blind", "big_blind", "draw_limit", *PEER_FIELDS)
DEFAULT_LIMITS: dict[str, Any] = {
    "small_blind": D("1.00"),
    "big_blind": D("2.00"),
    "draw_limit": True,
    "seats": 7,
    "rake_percent": D("5.00"),
    "rake_cap": D("3.00"),
    "buy_in_min": D("40.00"),
    "buy_in_max": D("400.00"),
    "action_timeout_seconds": 30,
    "timeouts_to_sit_out": TIMEOUTS_TO_SIT_OUT,
    "sit_out_minutes": SIT_OUT_MINUTES,
}


def limit_problems(v: Mapping[str, Any]) -> dict[str, str]:
    errors = seat_problems(v, seats=(2, 7), rule=DrawmahaRule.TABLE)
    if v["big_blind"] < v["small_blind"]:
        errors["big_blind"] = _("The big blind must not be below the small blind (DM-1).")
    return errors | money_problems(
        v, rake_rule=DrawmahaRule.SIDE_POTS, smallest_stake=v["big_blind"]
    )
