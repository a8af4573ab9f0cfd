"""Seven-card stud's table limits: what they are, a new table's first proposal, and what they
must satisfy."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal as D
from typing import Any

from django.utils.translation import gettext as _

from games.engine.rules import StudRule
from games.peer.limits import (
    PEER_FIELDS,
    SIT_OUT_MINUTES,
    TIMEOUTS_TO_SIT_OUT,
    money_problems,
    seat_problems,
)

LIMIT_FIELDS = ("ante", "bring_in", "small_bet", "big_bet", "open_pair_big_bet", *PEER_FIELDS)
DEFAULT_LIMITS: dict[str, Any] = {
    "ante": D("0.50"),
    "bring_in": D("1.00"),
    "small_bet": D("5.00"),
    "big_bet": D("10.00"),
    "open_pair_big_bet": True,  # ST-5, the source's rule
    "seats": 8,
    "rake_percent": D("5.00"),
    "rake_cap": D("3.00"),
    "buy_in_min": D("50.00"),
    "buy_in_max": D("500.00"),
    "action_timeout_seconds": 30,
    "timeouts_to_sit_out": TIMEOUTS_TO_SIT_OUT,
    "sit_out_minutes": SIT_OUT_MINUTES,
}


def limit_problems(v: Mapping[str, Any]) -> dict[str, str]:
    errors = seat_problems(v, seats=(2, 8), rule=StudRule.TABLE)
    if v["bring_in"] >= v["small_bet"]:
        errors["bring_in"] = _("The bring-in must be less than the small bet (ST-1).")
    if v["big_bet"] < v["small_bet"]:
        errors["big_bet"] = _("The big bet must not be below the small bet (ST-1).")
    return errors | money_problems(v, rake_rule=StudRule.SIDE_POTS, smallest_stake=v["bring_in"])
