"""The joker draw's table limits: what they are, a new table's first proposal, and what they
must satisfy (with messages naming the field and the rule)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any, cast

from django.utils.translation import gettext as _

from games.engine.joker_draw import NO_GAME_LINE, Stake, no_game_odds, top_payout
from games.joker_draw.holds import BankrollRule
from games.joker_draw.rtp_lab import band_problem
from games.models import TableLimits
from games.tables.limits import MIN_TIMEOUT_SECONDS, multiple, stakes_in_steps
from payouts.models import CENT, PaytableKind, PaytableVersion

D = Decimal
LIMIT_FIELDS = (
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
    "player_bankroll_percent",
    "table_bankroll_percent",
)
DEFAULT_LIMITS: dict[str, Any] = {
    "min_ante": D("0.30"),
    "max_ante": D("12.00"),
    "ante_step": D("0.30"),
    "bonus_min": D("0.30"),
    "bonus_max": D("6.00"),
    "boxes_per_round": 1,
    "decision_timeout_seconds": 60,
    "bet_rtp_min_percent": D("85.00"),
    "bet_rtp_max_percent": D("99.80"),  # the published paytable at best play (JD-14)
    "bonus_rtp_min_percent": D("85.00"),
    "bonus_rtp_max_percent": D("99.50"),
}

MAX_BOXES = 3  # JD-16: 3 boxes x (5 + 6) + 10 for the dealer = 43 of 53 cards
# JD-7: a box that bets has staked A+2A, 2A+4A or 3A+6A; these are the bets it can make.
BET_MULTIPLES_OF_ANTE = (2, 4, 6)


def unpayable_stake(stakes: Iterable[Decimal], odds: Mapping[str, Fraction]) -> str | None:
    """The first stake and line whose payout is not a whole cent, described; None if all pay."""
    for stake in stakes:
        cents = Fraction(stake / CENT)
        for category, ratio in odds.items():
            if (cents * ratio).denominator != 1:
                return _(
                    "a stake of %(stake)s on the %(category)s line at %(odds)s would pay a "
                    "fraction of a cent"
                ) % {
                    "stake": stake,
                    "category": category,
                    "odds": f"{ratio.numerator}:{ratio.denominator}",
                }
    return None


def bet_stakes(limits: Mapping[str, Any]) -> list[Decimal]:
    antes = stakes_in_steps(limits["min_ante"], limits["max_ante"], limits["ante_step"])
    return sorted({ante * multiple for ante in antes for multiple in BET_MULTIPLES_OF_ANTE})


def total_antes(limits: Mapping[str, Any]) -> list[Decimal]:
    """Every total ante a box can have at these limits: A, 2A, 3A for every legal ante A, a
    whole multiple of the ante step from min_ante to max_ante (JD-2, JD-5, JD-6), what the
    no-game line pays on (JD-11). A min_ante off the step is refused on its own."""
    step = limits["ante_step"]
    first = math.ceil(limits["min_ante"] / step) * step
    antes = stakes_in_steps(first, limits["max_ante"], step)
    return sorted({ante * (1 + exchanges) for ante in antes for exchanges in range(3)})


def hand_lines(odds: Mapping[str, Fraction]) -> dict[str, Fraction]:
    """A bet paytable's lines that pay the bet on a hand: all but the no-game line (JD-11)."""
    return {line: ratio for line, ratio in odds.items() if line != NO_GAME_LINE}


def unpayable_no_game(limits: Mapping[str, Any], odds: Fraction) -> str | None:
    """The first total ante on which the no-game odds would pay a fraction of a cent,
    described; None if every one pays whole cents (JD-2, JD-11a)."""
    for ante in total_antes(limits):
        if (Fraction(ante / CENT) * odds).denominator != 1:
            return _(
                "a total ante of %(ante)s at the no-game odds %(odds)s would pay a fraction of "
                "a cent"
            ) % {"ante": ante, "odds": f"{odds.numerator}:{odds.denominator}"}
    return None


def _no_game_odds_in_force(paytable: Any) -> Fraction:
    """The no-game odds the bet paytable's version in force pays; the source's 2:3 while it
    has none, or is not a bet paytable (refused below with its own message)."""
    version = paytable.active_version() if paytable.kind == PaytableKind.BET else None
    return no_game_odds(version.odds() if version is not None else {})


def bonus_stakes(limits: Mapping[str, Any]) -> list[Decimal]:
    return list(stakes_in_steps(limits["bonus_min"], limits["bonus_max"], CENT))


def limit_problems(v: Mapping[str, Any]) -> dict[str, str]:
    errors: dict[str, str] = {}
    step = v["ante_step"]
    problem = unpayable_no_game(v, _no_game_odds_in_force(v["bet_paytable"]))
    if problem:
        errors["ante_step"] = _(
            "With the ante step %(step)s %(problem)s: the no-game payout on every legal total "
            "ante must be a whole cent (JD-2, JD-11); the bet paytable's no_game line sets its "
            "odds (JD-11a)."
        ) % {"step": step, "problem": problem}
        return errors
    for name in ("min_ante", "max_ante"):
        if not multiple(v[name], step):
            errors[name] = _(
                "%(ante)s is not a whole multiple of the ante step %(step)s (JD-2)."
            ) % {"ante": v[name], "step": step}
    if v["max_ante"] < v["min_ante"]:
        errors["max_ante"] = _("max_ante must not be below min_ante (JD-2).")
    if v["bonus_max"] < v["bonus_min"]:
        errors["bonus_max"] = _("bonus_max must not be below bonus_min (JD-13).")
    if not 1 <= v["boxes_per_round"] <= MAX_BOXES:
        errors["boxes_per_round"] = _(
            "boxes_per_round must be 1 to %(most)s: more boxes could run the 53-card deck out of "
            "cards (JD-16)."
        ) % {"most": MAX_BOXES}
    for kind in PaytableKind:
        if not v[f"{kind}_rtp_min_percent"] < v[f"{kind}_rtp_max_percent"] <= 100:
            errors[f"{kind}_rtp_max_percent"] = _(
                "The %(kind)s RTP band needs %(kind)s_rtp_min_percent below "
                "%(kind)s_rtp_max_percent, at most 100 (JD-14)."
            ) % {"kind": kind}
    for name, rule in (
        ("player_bankroll_percent", BankrollRule.PLAYER_SHARE),
        ("table_bankroll_percent", BankrollRule.TABLE_SHARE),
    ):
        if v.get(name) is not None and v[name] > 100:
            errors[name] = _("%(name)s is a share of the bankroll: at most 100 (%(rule)s).") % {
                "name": name,
                "rule": rule,
            }
    if v["decision_timeout_seconds"] < MIN_TIMEOUT_SECONDS:
        errors["decision_timeout_seconds"] = _(
            "decision_timeout_seconds must be at least %(seconds)s."
        ) % {"seconds": MIN_TIMEOUT_SECONDS}
    if errors:
        return errors
    for name, kind, stakes in (
        ("bet_paytable", PaytableKind.BET, bet_stakes(v)),
        ("bonus_paytable", PaytableKind.BONUS, bonus_stakes(v)),
    ):
        paytable = v[name]
        if paytable.kind != kind:
            errors[name] = _("%(paytable)s is not a %(kind)s (JD-14).") % {
                "paytable": paytable,
                "kind": PaytableKind(kind).label,
            }
            continue
        version: PaytableVersion | None = paytable.active_version()
        if version is None:
            errors[name] = _("%(paytable)s has no approved version yet (JD-14).") % {
                "paytable": paytable
            }
            continue
        problem = unpayable_stake(stakes, hand_lines(version.odds()))
        if problem:
            errors[name] = _("With these limits %(problem)s (JD-2).") % {"problem": problem}
            continue
        band = (_("this table"), v[f"{kind}_rtp_min_percent"], v[f"{kind}_rtp_max_percent"])
        refused = band_problem(version, [band])
        if refused:
            errors[name] = refused["rtp"]
    return errors


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
