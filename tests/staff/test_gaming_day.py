"""The gaming-day report against the ledger: rounds of all three games played over two gaming
days, a joker draw round just before and one just after the day's boundary, and every figure
summed again here in plain Python over the LedgerEntry rows."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core.management import CommandError, call_command

from casino.gaming_day import gaming_day_of
from games.drawmaha.tasks import DRAWMAHA
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import Round, RoundStatus
from games.stud.tasks import STUD
from games.tables import gaming_day
from games.tables.voids import void_round
from payouts.models import LedgerEntry, RtpRun
from tests.fixtures import drawmaha, stud
from tests.fixtures.clock import clock_at
from tests.fixtures.peer import seat_everyone
from tests.fixtures.tables import make_drawmaha_table, make_stud_table

D = Decimal
ZERO = Decimal("0.00")
STOCKHOLM = ZoneInfo("Europe/Stockholm")
FIRST, SECOND = date(2026, 3, 10), date(2026, 3, 11)
COLUMNS = "gaming_day,table,game,currency,rounds,handle,win,hold_percent,theoretical_win,rake,flag"


def local(day: date, hour: int, minute: int, second: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, second, tzinfo=STOCKHOLM)


def joker_round(player, table, ante: str, action: str, bonus: str | None = "0.30") -> Round:
    round_ = joker_draw.open_round(
        player=player, table=table, boxes=[BoxRequest(1, D(ante), D(bonus) if bonus else None)]
    ).round
    return joker_draw.act(player=player, round_id=round_.pk, box=1, action=action).round


@pytest.fixture
def two_gaming_days(settings, joker_table, players, pit, pit2):
    """Two gaming days (06:00 to 06:00 in Stockholm) of joker draw, stud and Drawmaha; one
    joker round voided and one still in play, which count nowhere."""
    settings.CASINO_TIME_ZONE = "Europe/Stockholm"
    settings.GAMING_DAY_STARTS_AT = "06:00"
    settings.STUD_HAND_PAUSE_SECONDS = settings.DRAWMAHA_HAND_PAUSE_SECONDS = 0
    ann, ben, cal = players
    with clock_at(local(FIRST, 7, 0)):
        stud_table = make_stud_table(pit, pit2, name="=HYPERLINK(1)")
        drawmaha_table = make_drawmaha_table(pit, pit2)
    with clock_at(local(FIRST, 9, 30)):
        for number, action in enumerate(["bet", "fold", "bet", "bet"]):
            joker_round(players[number % 3], joker_table, f"{0.30 * (number + 1):.2f}", action)
        seat_everyone(STUD, stud_table, [ann, ben], settings, "STUD_HAND_PAUSE_SECONDS")
        stud.play_passively(stud_table, hands=2)
        drawmaha.seat_everyone(drawmaha_table, [ben, cal], settings)
        drawmaha.play_passively(drawmaha_table, hands=1)
    with clock_at(local(FIRST, 12, 0)):
        voided = joker_draw.open_round(
            player=cal, table=joker_table, boxes=[BoxRequest(1, D("0.60"))]
        ).round
        void_round(voided, by=pit, reason="the dealer dropped a card")
    # Just before the boundary: still the first gaming day, though the calendar says the second.
    with clock_at(local(SECOND, 5, 59, 59)):
        joker_round(ann, joker_table, "1.20", "bet", bonus=None)
    # Just after: the second gaming day.
    with clock_at(local(SECOND, 6, 0, 0)):
        joker_round(ben, joker_table, "0.90", "bet")
        STUD.catch_up(stud_table.pk)  # the timer acts for whoever let the night pass (ST-3)
        stud.play_passively(stud_table, hands=1)
    with clock_at(local(SECOND, 22, 0)):
        DRAWMAHA.catch_up(drawmaha_table.pk)
        drawmaha.play_passively(drawmaha_table, hands=2)
        joker_draw.open_round(player=cal, table=joker_table, boxes=[BoxRequest(1, D("0.30"))])
    return joker_table, stud_table, drawmaha_table


@dataclass
class LedgerSums:
    rounds: set[int] = field(default_factory=set)
    players: set[int] = field(default_factory=set)
    handle: Decimal = ZERO
    win: Decimal = ZERO
    rake: Decimal = ZERO
    # By (bet version, BONUS version): what was staked on the game and on the BONUS.
    game_handle: dict[tuple, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    bonus_handle: dict[tuple, Decimal] = field(default_factory=lambda: defaultdict(Decimal))


def by_the_ledger() -> dict[tuple[date, int], LedgerSums]:
    """Each settled round's gaming day and table, and its postings summed over the rows."""
    rounds = {r.pk: r for r in Round.objects.all()}
    start = timedelta(hours=6)
    figures: dict[tuple[date, int], LedgerSums] = defaultdict(LedgerSums)
    for entry in LedgerEntry.objects.select_related("transaction", "account"):
        reference = entry.transaction.reference or ""
        if not reference.startswith("round:"):
            continue
        round_ = rounds[int(reference.split(":")[1])]
        if round_.status != RoundStatus.SETTLED or round_.settled_at is None:
            continue
        day = (round_.settled_at.astimezone(STOCKHOLM) - start).date()
        row = figures[(day, round_.table_id)]
        row.rounds.add(round_.pk)
        players = [round_.player_id] if round_.player_id else round_.engine_state["players"]
        row.players.update(players)
        versions = (round_.bet_paytable_version_id, round_.bonus_paytable_version_id)
        kind = entry.account.kind
        if kind in ("stakes_in_play", "bonus") and entry.amount > 0:
            row.handle += entry.amount
            staked = row.game_handle if kind == "stakes_in_play" else row.bonus_handle
            staked[versions] += entry.amount
        if kind in ("house_bankroll", "house_reserved", "rake"):
            row.win += entry.amount
        if kind == "rake":
            row.rake += entry.amount
    return figures


def edge(version_id: int, figure: str) -> Decimal:
    result = RtpRun.objects.get(paytable_version_id=version_id, status="done").result or {}
    return 1 - D(str(result[figure])) / 100


def theoretical(row: LedgerSums) -> Decimal:
    """The handle times the house edge of the RTP runs behind each paytable version."""
    total = D(0)
    for (bet, _bonus), amount in row.game_handle.items():
        total += amount * edge(bet, "game_rtp")
    for (_bet, bonus), amount in row.bonus_handle.items():
        total += amount * edge(bonus, "bonus_exact_rtp")
    return total.quantize(D("0.01"))


@pytest.mark.django_db
def test_the_report_equals_the_ledger_summed_by_hand_over_two_gaming_days(two_gaming_days):
    joker_table, stud_table, drawmaha_table = two_gaming_days
    expected = by_the_ledger()
    rows = gaming_day.daily_rows(FIRST, SECOND)
    assert {(row.gaming_day, row.table_id) for row in rows} == set(expected)
    assert {row.table_id for row in rows} == {joker_table.pk, stud_table.pk, drawmaha_table.pk}
    for row in rows:
        want = expected[(row.gaming_day, row.table_id)]
        assert row.rounds == len(want.rounds), row
        assert row.players == len(want.players), row
        assert row.handle == want.handle > 0, row
        assert row.win == want.win, row
        assert row.rake == want.rake, row
        assert row.hold_percent == (want.win * 100 / want.handle).quantize(D("0.01"))
        if row.table_id == joker_table.pk:
            assert row.theoretical_win == theoretical(want)
            assert row.rake == 0
            assert row.flag == gaming_day.Flag.NOT_ENOUGH_DATA  # a handful of rounds
        else:
            # A peer table's win is its rake; no paytable, no theoretical win.
            assert row.win == row.rake
            assert row.theoretical_win is None
            assert row.flag == gaming_day.Flag.NOT_APPLICABLE


@pytest.mark.django_db
def test_a_round_a_second_before_the_boundary_counts_on_the_day_before(two_gaming_days):
    joker_table = two_gaming_days[0]
    joker = {row.gaming_day: row for row in gaming_day.daily_rows(FIRST, SECOND)
             if row.table_id == joker_table.pk}  # fmt: skip
    # Four rounds at half past nine and the one at 05:59:59 next morning; the voided round
    # counts nowhere, the one still in play not yet.
    assert joker[FIRST].rounds == 5
    assert joker[SECOND].rounds == 1
    assert gaming_day_of(local(SECOND, 5, 59, 59)) == FIRST
    assert gaming_day_of(local(SECOND, 6, 0, 0)) == SECOND


@pytest.mark.django_db
def test_month_and_year_to_date_add_up_the_days(two_gaming_days):
    days = gaming_day.daily_rows(FIRST, SECOND)
    report = gaming_day.report(SECOND)
    for period in (gaming_day.Period.MONTH_TO_DATE, gaming_day.Period.YEAR_TO_DATE):
        for row in report[period]:
            mine = [day for day in days if day.table_id == row.table_id]
            assert row.gaming_day == SECOND
            assert row.rounds == sum(day.rounds for day in mine)
            assert row.handle == sum(day.handle for day in mine)
            assert row.win == sum(day.win for day in mine)
            # Players are counted once over the period, not once a day.
            assert row.players <= sum(day.players for day in mine)
    assert [r.table_id for r in report[gaming_day.Period.DAY]] == [
        r.table_id for r in days if r.gaming_day == SECOND
    ]


@pytest.mark.django_db
def test_the_command_writes_the_columns_and_a_row_per_table_and_day(two_gaming_days):
    out = io.StringIO()
    call_command("gaming_day_report", date=str(FIRST), to=str(SECOND), format="csv", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == COLUMNS
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    rows_by_key = {(row["gaming_day"], row["table"]): row for row in rows}
    for row in gaming_day.daily_rows(FIRST, SECOND):
        line = rows_by_key[(row.gaming_day.isoformat(), row.table if row.table[0] != "=" else
                            f"'{row.table}")]  # fmt: skip
        assert line["handle"] == f"{row.handle:.2f}"
        assert line["win"] == f"{row.win:.2f}"
        assert line["rounds"] == str(row.rounds)
        assert line["flag"] == row.flag.value
    # A table named like a formula is written as text, never as a formula.
    assert any(row["table"] == "'=HYPERLINK(1)" for row in rows)
    assert len(rows) == len(gaming_day.daily_rows(FIRST, SECOND))


@pytest.mark.django_db
def test_the_command_refuses_a_bad_date_or_range():
    with pytest.raises(CommandError, match="date"):
        call_command("gaming_day_report", date="2026-13-01", format="csv", stdout=io.StringIO())
    with pytest.raises(CommandError, match="to"):
        call_command("gaming_day_report", date="2026-03-11", to="2026-03-10", stdout=io.StringIO())


@pytest.mark.django_db
def test_a_hold_far_above_the_paytables_spread_is_flagged(settings, joker_table, players):
    """Forty boxes folded at once hold every ante: far outside what the paytables' spread
    allows forty rounds; below the minimum number of rounds the same hold is not judged."""
    settings.GAMING_DAY_MIN_ROUNDS = 40
    with clock_at(local(FIRST, 10, 0)):
        for number in range(40):
            joker_round(players[number % 3], joker_table, "0.30", "fold", bonus=None)
    (row,) = gaming_day.daily_rows(FIRST, FIRST)
    assert row.hold_percent == D("100.00")
    low, high = row.expected_hold
    assert high < D("100.00")
    assert low < row.theoretical_win * 100 / row.handle < high
    assert row.flag == gaming_day.Flag.OUTSIDE
    settings.GAMING_DAY_MIN_ROUNDS = 41
    assert gaming_day.daily_rows(FIRST, FIRST)[0].flag == gaming_day.Flag.NOT_ENOUGH_DATA


@pytest.mark.django_db
def test_a_gaming_day_with_no_rounds_has_no_rows(joker_table):
    assert gaming_day.daily_rows(FIRST, SECOND) == []
