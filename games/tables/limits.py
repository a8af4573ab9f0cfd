"""What a table's limits must satisfy, per game, with messages naming the field and the rule.

One function serves the admin, the API and the services, so a configuration refused in one
place is refused everywhere with the same words.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any, cast

from games.engine.joker_draw import Stake, top_payout
from games.joker_draw.rtp_lab import band_problem
from games.models import Game, TableLimits
from payouts.models import CENT, PaytableKind, PaytableVersion

JOKER_DRAW_FIELDS = (
    "min_ante",
    "max_ante",
    "ante_step",
    "bonus_min",
    "bonus_max",
    "boxes_per_round",
    "decision_timeout_seconds",
    "bet_paytable",
    "bonus_paytable",
    "bet_rtp_min_percent",
    "bet_rtp_max_percent",
    "bonus_rtp_min_percent",
    "bonus_rtp_max_percent",
)
PEER_FIELDS = (
    "seats",
    "rake_percent",
    "rake_cap",
    "buy_in_min",
    "buy_in_max",
    "action_timeout_seconds",
)
GAME_FIELDS: dict[str, tuple[str, ...]] = {
    Game.JOKER_DRAW: JOKER_DRAW_FIELDS,
    Game.SEVEN_CARD_STUD: ("ante", "bring_in", "small_bet", "big_bet", *PEER_FIELDS),
    Game.DRAWMAHA: ("small_blind", "big_blind", "draw_limit", *PEER_FIELDS),
}
ALL_LIMIT_FIELDS = tuple(dict.fromkeys(f for fields in GAME_FIELDS.values() for f in fields))
OPTIONAL_FIELDS = frozenset({"rake_cap"})

D = Decimal
DEFAULT_LIMITS: dict[str, dict[str, Any]] = {
    Game.JOKER_DRAW: {
        "min_ante": D("0.30"),
        "max_ante": D("12.00"),
        "ante_step": D("0.30"),
        "bonus_min": D("0.30"),
        "bonus_max": D("6.00"),
        "boxes_per_round": 1,
        "decision_timeout_seconds": 60,
        "bet_rtp_min_percent": D("85.00"),
        "bet_rtp_max_percent": D("99.50"),
        "bonus_rtp_min_percent": D("85.00"),
        "bonus_rtp_max_percent": D("99.50"),
    },
    Game.SEVEN_CARD_STUD: {
        "ante": D("0.50"),
        "bring_in": D("1.00"),
        "small_bet": D("5.00"),
        "big_bet": D("10.00"),
        "seats": 8,
        "rake_percent": D("5.00"),
        "rake_cap": D("3.00"),
        "buy_in_min": D("50.00"),
        "buy_in_max": D("500.00"),
        "action_timeout_seconds": 30,
    },
    Game.DRAWMAHA: {
        "small_blind": D("1.00"),
        "big_blind": D("2.00"),
        "draw_limit": True,
        "seats": 7,
        "rake_percent": D("5.00"),
        "rake_cap": D("3.00"),
        "buy_in_min": D("40.00"),
        "buy_in_max": D("400.00"),
        "action_timeout_seconds": 30,
    },
}

MAX_JOKER_DRAW_BOXES = 3  # JD-16: 3 boxes x (5 + 6) + 10 for the dealer = 43 of 53 cards
MIN_TIMEOUT_SECONDS = 5
SEATS: dict[str, tuple[int, int]] = {Game.SEVEN_CARD_STUD: (2, 8), Game.DRAWMAHA: (2, 7)}
# JD-7: a box that bets has staked A+2A, 2A+4A or 3A+6A; these are the bets it can make.
BET_MULTIPLES_OF_ANTE = (2, 4, 6)


def stakes_in_steps(low: Decimal, high: Decimal, step: Decimal) -> Iterable[Decimal]:
    stake = low
    while stake <= high:
        yield stake
        stake += step


def unpayable_stake(stakes: Iterable[Decimal], odds: Mapping[str, Fraction]) -> str | None:
    """The first stake and line whose payout is not a whole cent, described; None if all pay."""
    for stake in stakes:
        cents = Fraction(stake / CENT)
        for category, ratio in odds.items():
            if (cents * ratio).denominator != 1:
                return (
                    f"a stake of {stake} on the {category} line at "
                    f"{ratio.numerator}:{ratio.denominator} would pay a fraction of a cent"
                )
    return None


def joker_draw_bet_stakes(limits: Mapping[str, Any]) -> list[Decimal]:
    antes = stakes_in_steps(limits["min_ante"], limits["max_ante"], limits["ante_step"])
    return sorted({ante * multiple for ante in antes for multiple in BET_MULTIPLES_OF_ANTE})


def joker_draw_bonus_stakes(limits: Mapping[str, Any]) -> list[Decimal]:
    return list(stakes_in_steps(limits["bonus_min"], limits["bonus_max"], CENT))


def _multiple(amount: Decimal, step: Decimal) -> bool:
    return amount % step == 0


def validate_limits(game: str, values: Mapping[str, Any]) -> dict[str, str]:
    """Every broken rule as {field: message}; empty when the limits may be saved."""
    errors: dict[str, str] = {}
    fields = GAME_FIELDS[game]
    for name in ALL_LIMIT_FIELDS:
        value = values.get(name)
        if name not in fields:
            if value is not None:
                errors[name] = f"{name} is not a limit of {Game(game).label}."
        elif value is None and name not in OPTIONAL_FIELDS:
            errors[name] = f"{name} is required for {Game(game).label}."
        elif isinstance(value, Decimal) and value <= 0 and name != "rake_percent":
            errors[name] = f"{name} must be above zero."
    if errors:
        return errors
    if game == Game.JOKER_DRAW:
        _validate_joker_draw(values, errors)
    else:
        _validate_peer_game(game, values, errors)
    return errors


def _validate_joker_draw(v: Mapping[str, Any], errors: dict[str, str]) -> None:
    step = v["ante_step"]
    if (step / CENT) % 3 != 0:
        errors["ante_step"] = (
            f"The ante step {step} must be a multiple of 0.03, so that the 2:3 no-game payout "
            "on every legal ante is a whole cent (JD-2, JD-11)."
        )
        return
    for name in ("min_ante", "max_ante"):
        if not _multiple(v[name], step):
            errors[name] = f"{v[name]} is not a whole multiple of the ante step {step} (JD-2)."
    if v["max_ante"] < v["min_ante"]:
        errors["max_ante"] = "max_ante must not be below min_ante (JD-2)."
    if v["bonus_max"] < v["bonus_min"]:
        errors["bonus_max"] = "bonus_max must not be below bonus_min (JD-13)."
    if not 1 <= v["boxes_per_round"] <= MAX_JOKER_DRAW_BOXES:
        errors["boxes_per_round"] = (
            f"boxes_per_round must be 1 to {MAX_JOKER_DRAW_BOXES}: more boxes could run the "
            "53-card deck out of cards (JD-16)."
        )
    for kind in PaytableKind:
        if not v[f"{kind}_rtp_min_percent"] < v[f"{kind}_rtp_max_percent"] <= 100:
            errors[f"{kind}_rtp_max_percent"] = (
                f"The {kind} RTP band needs {kind}_rtp_min_percent below "
                f"{kind}_rtp_max_percent, at most 100 (JD-14)."
            )
    if v["decision_timeout_seconds"] < MIN_TIMEOUT_SECONDS:
        errors["decision_timeout_seconds"] = (
            f"decision_timeout_seconds must be at least {MIN_TIMEOUT_SECONDS}."
        )
    if errors:
        return
    for name, kind, stakes in (
        ("bet_paytable", PaytableKind.BET, joker_draw_bet_stakes(v)),
        ("bonus_paytable", PaytableKind.BONUS, joker_draw_bonus_stakes(v)),
    ):
        paytable = v[name]
        if paytable.kind != kind:
            errors[name] = f"{paytable} is not a {PaytableKind(kind).label} (JD-14)."
            continue
        version: PaytableVersion | None = paytable.active_version()
        if version is None:
            errors[name] = f"{paytable} has no approved version yet (JD-14)."
            continue
        problem = unpayable_stake(stakes, version.odds())
        if problem:
            errors[name] = f"With these limits {problem} (JD-2)."
            continue
        band = ("this table", v[f"{kind}_rtp_min_percent"], v[f"{kind}_rtp_max_percent"])
        refused = band_problem(version, [band])
        if refused:
            errors[name] = refused["rtp"]


def top_round_payout(limits: TableLimits) -> Decimal | None:
    """The most one round at the top of these joker draw limits can cost the house: every box
    at the top ante and the top BONUS, at the top lines of the paytable versions in force
    (what an opening holds of the bankroll, HB-1); None for other games, or while a paytable
    has no approved version."""
    if limits.bet_paytable is None or limits.bonus_paytable is None:
        return None
    bet, bonus = limits.bet_paytable.active_version(), limits.bonus_paytable.active_version()
    if bet is None or bonus is None:
        return None
    stakes = [
        Stake(box=n, ante=cast(Decimal, limits.max_ante), bonus=limits.bonus_max)
        for n in range(1, (limits.boxes_per_round or 1) + 1)
    ]
    return top_payout(stakes, bet_paytable=bet.odds(), bonus_paytable=bonus.odds())


def _validate_peer_game(game: str, v: Mapping[str, Any], errors: dict[str, str]) -> None:
    low, high = SEATS[game]
    rule = "ST-1" if game == Game.SEVEN_CARD_STUD else "DM-1"
    if not low <= v["seats"] <= high:
        errors["seats"] = f"seats must be {low} to {high} ({rule})."
    if game == Game.SEVEN_CARD_STUD:
        if v["bring_in"] >= v["small_bet"]:
            errors["bring_in"] = "The bring-in must be less than the small bet (ST-1)."
        if v["big_bet"] < v["small_bet"]:
            errors["big_bet"] = "The big bet must not be below the small bet (ST-1)."
        smallest_stake = v["bring_in"]
    else:
        if v["big_blind"] < v["small_blind"]:
            errors["big_blind"] = "The big blind must not be below the small blind (DM-1)."
        smallest_stake = v["big_blind"]
    rake_rule = "ST-13" if game == Game.SEVEN_CARD_STUD else "DM-12"
    if not 0 <= v["rake_percent"] <= 100:
        errors["rake_percent"] = f"rake_percent must be from 0 to 100 ({rake_rule})."
    if v["buy_in_max"] < v["buy_in_min"]:
        errors["buy_in_max"] = "buy_in_max must not be below buy_in_min."
    if v["buy_in_min"] < smallest_stake:
        errors["buy_in_min"] = "buy_in_min must cover at least one forced bet."
    if v["action_timeout_seconds"] < MIN_TIMEOUT_SECONDS:
        errors["action_timeout_seconds"] = (
            f"action_timeout_seconds must be at least {MIN_TIMEOUT_SECONDS}."
        )
