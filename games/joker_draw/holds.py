"""What an opening may hold of the house bankroll (HB-1, HB-2, HB-3).

An opening holds its round's top payout (HB-1): the settlement can then never fail for house
funds. Holding is cheap for a player (0.30 with a 6.00 BONUS holds over 12,000.00 for the
decision time), so besides what the bankroll has available the holds are capped by a share of
the whole bankroll (available and reserved together): one player's rounds in play may hold
at most the table limits' ``player_bankroll_percent`` of it (HB-2), one table's at most
``table_bankroll_percent`` (HB-3); limits that set none take the environment's defaults. A
few players can then hold only a few shares, and the rest of the bankroll stays for everyone
else. A refusal says which stake would be accepted now, which a player could learn anyway by
trying smaller ones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Any

from django.db import connection
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from casino.refusals import Kind
from games.engine import joker_draw
from games.engine.joker_draw import Stake
from games.models import Table, TableLimits
from games.tables.rounds import RoundRefused
from games.tables.selectors import bankroll_shares, share_of
from payouts.models import CENT, AccountKind


class BankrollRule(StrEnum):
    """What the house bankroll holds back for the rounds in play."""

    HOUSE_COVER = "HB-1"  # the house covers every round's top payout
    PLAYER_SHARE = "HB-2"  # one player's rounds hold at most their share
    TABLE_SHARE = "HB-3"  # one table's rounds hold at most its share


ZERO = Decimal("0.00")

# Openings in one currency take this lock (and a number of the currency) from the check to
# their commit, so that two of them never both fit under a share only one fits under. They
# queue on the bankroll's ledger row in the same stretch anyway.
_LOCK = "SELECT pg_advisory_xact_lock(2802, hashtext(%s))"
# The bankroll in the currency, and what the player's and the table's rounds in play hold
# (the round being opened among them: it is written before the check).
_HOLDS = """
SELECT
  COALESCE((SELECT balance FROM payouts_account
            WHERE owner_id IS NULL AND kind = %(available)s AND currency = %(currency)s), 0),
  COALESCE((SELECT balance FROM payouts_account
            WHERE owner_id IS NULL AND kind = %(reserved)s AND currency = %(currency)s), 0),
  COALESCE(SUM(r.house_hold) FILTER (WHERE r.player_id = %(player)s), 0),
  COALESCE(SUM(r.house_hold) FILTER (WHERE r.table_id = %(table)s), 0)
FROM games_round r JOIN games_table t ON t.id = r.table_id
WHERE r.status = 'deciding' AND t.currency = %(currency)s
  AND (r.player_id = %(player)s OR r.table_id = %(table)s)
"""


@dataclass(frozen=True)
class Room:
    """How much more this opening may hold under each rule; the tightest one binds."""

    rooms: dict[BankrollRule, Decimal]

    @property
    def binding(self) -> tuple[BankrollRule, Decimal]:
        return min(self.rooms.items(), key=lambda item: item[1])


def check_hold(
    *,
    player_id: int,
    table: Table,
    limits: TableLimits,
    stakes: Sequence[Stake],
    hold: Decimal,
    bet_odds: joker_draw.Paytable,
    bonus_odds: joker_draw.Paytable,
) -> None:
    """Refuse the opening whose ``hold`` (already written with its round) the bankroll cannot
    cover or would leave one player or one table holding more than their share; the refusal
    names the rule and the stake that would be accepted now."""
    with connection.cursor() as cursor:
        cursor.execute(_LOCK, [table.currency])
        cursor.execute(
            _HOLDS,
            {
                "available": AccountKind.HOUSE_BANKROLL,
                "reserved": AccountKind.HOUSE_RESERVED,
                "currency": table.currency,
                "player": player_id,
                "table": table.pk,
            },
        )
        available, reserved, players, tables = cursor.fetchone()
    bankroll = available + reserved
    player_percent, table_percent = bankroll_shares(limits)
    room = Room(
        {
            BankrollRule.HOUSE_COVER: available,
            BankrollRule.PLAYER_SHARE: share_of(bankroll, player_percent) - (players - hold),
            BankrollRule.TABLE_SHARE: share_of(bankroll, table_percent) - (tables - hold),
        }
    )
    rule, most = room.binding
    if hold <= most:
        return

    def top_payout(capped: Sequence[Stake]) -> Decimal:
        return joker_draw.top_payout(capped, bet_paytable=bet_odds, bonus_paytable=bonus_odds)

    raise HoldRefused(rule, accepted_stake(stakes, most, limits, top_payout))


def accepted_stake(
    stakes: Sequence[Stake],
    most: Decimal,
    limits: TableLimits,
    top_payout: Callable[[Sequence[Stake]], Decimal],
) -> dict[str, Decimal] | None:
    """The largest stake like the one asked whose top payout is at most ``most``: the BONUS
    of every box capped, else no BONUS, else every ante capped without BONUS; None when not
    even the table's lowest ante fits."""

    def fits(capped: Sequence[Stake]) -> bool:
        return top_payout(capped) <= most

    def capped(ante: Decimal | None, bonus: Decimal | None) -> list[Stake]:
        return [
            dataclasses.replace(
                stake,
                ante=stake.ante if ante is None else min(stake.ante, ante),
                bonus=None if not bonus or stake.bonus is None else min(stake.bonus, bonus),
            )
            for stake in stakes
        ]

    bonus_min, ante_min = limits.bonus_min or CENT, limits.min_ante or CENT
    bonuses = [stake.bonus for stake in stakes if stake.bonus]
    if bonuses:
        bonus = _largest(bonus_min, max(bonuses), CENT, lambda b: fits(capped(None, b)))
        if bonus is not None:
            return {"bonus": bonus}
        if fits(capped(None, None)):
            return {"bonus": ZERO}
    step = limits.ante_step or CENT
    ante = _largest(ante_min, max(s.ante for s in stakes), step, lambda a: fits(capped(a, None)))
    return None if ante is None else {"ante": ante, "bonus": ZERO}


def _largest(
    low: Decimal, high: Decimal, step: Decimal, fits: Callable[[Decimal], bool]
) -> Decimal | None:
    """The largest of low, low + step, ... below ``high`` that fits (fitting is monotone)."""
    lo, hi = 0, int((high - low) / step) - 1  # the number of steps above low
    if hi < 0 or not fits(low):
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(low + mid * step):
            lo = mid
        else:
            hi = mid - 1
    return low + lo * step


class HoldRefused(RoundRefused):
    """An opening refused for what it would hold of the bankroll, saying what stake would be
    accepted now (``accepted``, also in the body for programs)."""

    def __init__(self, rule: BankrollRule, accepted: dict[str, Decimal] | None) -> None:
        self.accepted = accepted
        reason = {
            BankrollRule.HOUSE_COVER: _("The house cannot cover this round's top payout."),
            BankrollRule.PLAYER_SHARE: _(
                "Your rounds in play would hold more of the house bankroll than one player may."
            ),
            BankrollRule.TABLE_SHARE: _(
                "The rounds in play at this table would hold more of the house bankroll than "
                "one table may."
            ),
        }[rule]
        super().__init__(
            f"{reason} {accepted_words(accepted)}", field="boxes", rule=rule, kind=Kind.CONFLICT
        )

    def extra(self) -> dict[str, Any]:
        if self.accepted is None:
            return {"accepted": None}
        return {"accepted": {name: str(amount) for name, amount in self.accepted.items()}}


def accepted_words(accepted: dict[str, Decimal] | None) -> str:
    if accepted is None:
        return _("No stake can be accepted now: try again when rounds in play end.")
    if "ante" in accepted:
        return _("An ante of at most %(ante)s on each box, without BONUS, would be accepted.") % {
            "ante": number_format(accepted["ante"], 2)
        }
    if accepted["bonus"]:
        return _("A BONUS of at most %(bonus)s on each box would be accepted.") % {
            "bonus": number_format(accepted["bonus"], 2)
        }
    return _("The same antes without BONUS would be accepted.")
