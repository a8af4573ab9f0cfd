"""The gaming-day report, the table-game statistics a regulator asks for (in the manner of
Maryland's COMAR 36.05.03.25): per table, game and currency and per gaming day, month to date
or year to date, the handle, the win, the hold, the theoretical win, the rake, the rounds and
the players.

Every amount is summed from the ledger, in SQL: a round's postings carry its reference
("round:ID:..."). A round counts on the gaming day it was settled (played out); a voided round
gave every stake back and counts nowhere, a round still in play not yet. Its figures are all
its postings, a settlement correction approved later included.

- handle: what players put in play, the money posted into the house's stakes in play and
  BONUS accounts (a joker draw box's antes, bets and BONUS bets; a peer hand's chips put in
  the pot);
- win: what the house kept, the round's net on the bankroll, its reserved part and the rake
  (at a joker draw table the players' losses less their wins; at a peer table the rake);
- theoretical win: the handle times the house edge the RTP laboratory measured for the
  paytable versions the rounds were played under; not applicable at peer tables, where the
  house's whole win is its rake.

The hold is flagged when it falls outside the 95% interval the paytables' spread gives the
day's rounds (a round of several boxes counted as one box of their whole stake, which widens
the interval: a flag is never raised for want of counting boxes), or "not enough data" below
``GAMING_DAY_MIN_ROUNDS`` rounds.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from enum import StrEnum
from statistics import NormalDist
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.utils.translation import gettext_lazy as _

from casino.gaming_day import gaming_day_bounds, starts_after_midnight, zone
from games.models import Game, RoundStatus, Table
from games.tables.table_game import ExpectedReturn, game_of
from payouts.models import CENT, AccountKind

ZERO = Decimal("0.00")
_Z95 = NormalDist().inv_cdf(0.975)


class Flag(StrEnum):
    """What the hold says against the paytables' expectation; the value is the CSV's code."""

    WITHIN = "within"
    OUTSIDE = "outside"
    NOT_ENOUGH_DATA = "not_enough_data"
    NO_THEORETICAL = "no_theoretical"
    NOT_APPLICABLE = "not_applicable"

    @property
    def label(self) -> str:
        return str(FLAG_LABELS[self])


FLAG_LABELS = {
    Flag.WITHIN: _("within the expected interval"),
    Flag.OUTSIDE: _("OUTSIDE the expected interval"),
    Flag.NOT_ENOUGH_DATA: _("not enough data"),
    Flag.NO_THEORETICAL: _("no RTP computed for the paytable"),
    Flag.NOT_APPLICABLE: _("not applicable: the rake is the house's win"),
}


class Period(StrEnum):
    DAY = "day"
    MONTH_TO_DATE = "month_to_date"
    YEAR_TO_DATE = "year_to_date"


PERIOD_LABELS = {
    Period.DAY: _("Gaming day"),
    Period.MONTH_TO_DATE: _("Month to date"),
    Period.YEAR_TO_DATE: _("Year to date"),
}


@dataclass(frozen=True)
class GamingDayRow:
    """One table's figures over one gaming day (``gaming_day``) or over a period ending on it."""

    gaming_day: date
    table_id: int
    table: str
    game: str
    currency: str
    rounds: int
    players: int
    handle: Decimal
    win: Decimal
    rake: Decimal
    theoretical_win: Decimal | None
    expected_hold: tuple[Decimal, Decimal] | None
    """The 95% interval of the hold (percent) the paytables lead one to expect."""
    flag: Flag

    @property
    def hold_percent(self) -> Decimal | None:
        return _percent(self.win, self.handle)

    @property
    def game_label(self) -> str:
        return str(Game(self.game).label)


def daily_rows(first: date, last: date, *, using: str = DEFAULT_DB_ALIAS) -> list[GamingDayRow]:
    """Every table's figures for each gaming day from ``first`` to ``last`` that it settled
    rounds on, by day, then table, summed on the database ``using``."""
    return _rows(first, last, by_day=True, using=using)


def period_rows(first: date, last: date, *, using: str = DEFAULT_DB_ALIAS) -> list[GamingDayRow]:
    """Every table's figures over the gaming days ``first`` to ``last`` together (a month or
    a year to date), dated ``last``."""
    return _rows(first, last, by_day=False, using=using)


def report(day: date, *, using: str = DEFAULT_DB_ALIAS) -> dict[Period, list[GamingDayRow]]:
    """A gaming day's report: the day, the month to date and the year to date."""
    return {
        Period.DAY: daily_rows(day, day, using=using),
        Period.MONTH_TO_DATE: period_rows(day.replace(day=1), day, using=using),
        Period.YEAR_TO_DATE: period_rows(day.replace(month=1, day=1), day, using=using),
    }


# The queries -------------------------------------------------------------------------------------

# A round's money: the references of its postings name it ("round:ID:open", "round:ID:event:N",
# "round:ID:settle", "round:ID:correction:N"). Only settled rounds count.
_ROUNDS = """
    SELECT r.id, r.table_id, r.player_id, r.engine_state,
           r.bet_paytable_version_id AS bet_version, r.bonus_paytable_version_id AS bonus_version,
           {day} AS day
    FROM games_round r
    WHERE r.status = %(settled)s AND r.settled_at >= %(start)s AND r.settled_at < %(end)s
"""
_DAY = "((r.settled_at AT TIME ZONE %(zone)s) - %(starts)s::interval)::date"

_MONEY = """
    WITH rounds AS ({rounds}),
    money AS (
        SELECT CASE WHEN t.reference LIKE 'round:%%'
                    THEN split_part(t.reference, ':', 2)::bigint END AS round_id,
               COALESCE(SUM(e.amount) FILTER (
                   WHERE a.kind = %(stakes)s AND e.amount > 0), 0.00) AS game_handle,
               COALESCE(SUM(e.amount) FILTER (
                   WHERE a.kind = %(bonus)s AND e.amount > 0), 0.00) AS bonus_handle,
               COALESCE(SUM(e.amount) FILTER (WHERE a.kind = ANY(%(house)s)), 0.00) AS win,
               COALESCE(SUM(e.amount) FILTER (WHERE a.kind = %(rake)s), 0.00) AS rake
        FROM payouts_ledgertransaction t
        JOIN payouts_ledgerentry e ON e.transaction_id = t.id
        JOIN payouts_account a ON a.id = e.account_id
        WHERE t.reference LIKE 'round:%%'
          AND CASE WHEN t.reference LIKE 'round:%%'
                   THEN split_part(t.reference, ':', 2)::bigint END IN (SELECT id FROM rounds)
        GROUP BY 1
    )
    SELECT rounds.day, rounds.table_id, rounds.bet_version, rounds.bonus_version,
           COUNT(*), SUM(m.game_handle), SUM(m.bonus_handle), SUM(m.win), SUM(m.rake)
    FROM rounds JOIN money m ON m.round_id = rounds.id
    GROUP BY 1, 2, 3, 4
"""

# A banked round's player, or every player a peer hand dealt in (its stored "players").
_PLAYERS = """
    WITH rounds AS ({rounds})
    SELECT rounds.day, rounds.table_id, COUNT(DISTINCT p.player)
    FROM rounds
    CROSS JOIN LATERAL (
        SELECT rounds.player_id::text AS player WHERE rounds.player_id IS NOT NULL
        UNION ALL
        SELECT jsonb_array_elements_text(rounds.engine_state -> 'players')
        WHERE rounds.player_id IS NULL
    ) p
    GROUP BY 1, 2
"""


@dataclass
class _Sums:
    rounds: int = 0
    handle: Decimal = ZERO
    win: Decimal = ZERO
    rake: Decimal = ZERO
    theoretical: Decimal | None = ZERO
    variance: float = 0.0  # of the win, from the paytables' spread


def _rows(first: date, last: date, *, by_day: bool, using: str) -> list[GamingDayRow]:
    start, end = gaming_day_bounds(first, last)
    params: dict[str, Any] = {
        "settled": RoundStatus.SETTLED,
        "start": start,
        "end": end,
        "zone": str(zone()),
        "starts": starts_after_midnight(),
        "stakes": AccountKind.STAKES_IN_PLAY,
        "bonus": AccountKind.BONUS,
        "house": [AccountKind.HOUSE_BANKROLL, AccountKind.HOUSE_RESERVED, AccountKind.RAKE],
        "rake": AccountKind.RAKE,
    }
    rounds = _ROUNDS.format(day=_DAY if by_day else "%(last)s::date")
    params["last"] = last
    with connections[using].cursor() as cursor:
        cursor.execute(_MONEY.format(rounds=rounds), params)
        money = cursor.fetchall()
        cursor.execute(_PLAYERS.format(rounds=rounds), params)
        players = {(day, table_id): count for day, table_id, count in cursor.fetchall()}
    tables = Table.objects.using(using).in_bulk({row[1] for row in money})
    expected: dict[tuple[int | None, int | None], ExpectedReturn | None] = {}
    sums: dict[tuple[date, int], _Sums] = defaultdict(_Sums)
    for day, table_id, bet, bonus, count, game_handle, bonus_handle, win, rake in money:
        game = game_of(tables[table_id].game)
        row = sums[(day, table_id)]
        row.rounds += count
        row.handle += game_handle + bonus_handle
        row.win += win
        row.rake += rake
        if not game.banked:
            continue
        if (bet, bonus) not in expected:
            expected[(bet, bonus)] = game.expected_return(bet, bonus)
        edge = expected[(bet, bonus)]
        if edge is None or row.theoretical is None:
            row.theoretical = None
            continue
        row.theoretical += game_handle * edge.game_edge + bonus_handle * edge.bonus_edge
        # Var(win) of ``count`` rounds: each spread per unit times the mean stake, squared.
        row.variance += (
            (edge.game_spread * float(game_handle)) ** 2
            + (edge.bonus_spread * float(bonus_handle)) ** 2
        ) / count
    result = []
    for (day, table_id), row in sums.items():
        table = tables[table_id]
        banked = game_of(table.game).banked
        interval = _expected_hold(row) if banked and row.theoretical is not None else None
        result.append(
            GamingDayRow(
                gaming_day=day,
                table_id=table_id,
                table=table.name,
                game=table.game,
                currency=table.currency,
                rounds=row.rounds,
                players=players.get((day, table_id), 0),
                handle=row.handle,
                win=row.win,
                rake=row.rake,
                theoretical_win=row.theoretical.quantize(CENT)
                if banked and row.theoretical is not None
                else None,
                expected_hold=interval,
                flag=_flag(row, banked, interval),
            )
        )
    return sorted(result, key=lambda r: (r.gaming_day, r.game, r.currency, r.table))


def _expected_hold(row: _Sums) -> tuple[Decimal, Decimal] | None:
    if not row.handle or row.theoretical is None:
        return None
    centre = float(row.theoretical / row.handle)
    half = _Z95 * math.sqrt(row.variance) / float(row.handle)
    low, high = (Decimal(100 * value).quantize(CENT) for value in (centre - half, centre + half))
    return low, high


def _flag(row: _Sums, banked: bool, interval: tuple[Decimal, Decimal] | None) -> Flag:
    if not banked:
        return Flag.NOT_APPLICABLE
    if row.theoretical is None:
        return Flag.NO_THEORETICAL
    if row.rounds < settings.GAMING_DAY_MIN_ROUNDS or interval is None:
        return Flag.NOT_ENOUGH_DATA
    hold = _percent(row.win, row.handle)
    low, high = interval
    return Flag.WITHIN if hold is not None and low <= hold <= high else Flag.OUTSIDE


def _percent(part: Decimal, whole: Decimal) -> Decimal | None:
    return (part * 100 / whole).quantize(CENT) if whole else None


# The CSV of the report, the command's and the staff page's.
CSV_COLUMNS = (
    "gaming_day", "table", "game", "currency", "rounds", "handle", "win", "hold_percent",
    "theoretical_win", "rake", "flag",
)  # fmt: skip


def csv_row(row: GamingDayRow) -> list[object]:
    """One row as the CSV writes it: amounts as numbers, an empty cell where a figure does not
    apply, the flag as its code."""
    return [
        row.gaming_day.isoformat(), row.table, row.game, row.currency, row.rounds,
        row.handle, row.win, row.hold_percent, row.theoretical_win, row.rake, row.flag.value,
    ]  # fmt: skip
