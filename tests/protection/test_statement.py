"""The player's account statement (RTS 12: deposits, withdrawals, net deposits, stakes and
results per period, at least twelve months back, as CSV) against the ledger: joker draw rounds,
a stud sitting with a buy-in, a rebuy and a cash-out, cage deposits and withdrawals and a cage
mistake reversed, on several gaming days; every figure summed again here in plain Python over
the LedgerEntry rows."""

from __future__ import annotations

import csv
import io
from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from casino.gaming_day import gaming_day_of
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import Seat
from games.stud.tasks import STUD as stud
from payouts.models import AccountKind, LedgerEntry, TransactionKind
from payouts.protection.statement import statement
from payouts.services import deposit, reverse_transaction, withdraw
from tests.fixtures.clock import clock_at
from tests.fixtures.stud import play_passively
from tests.fixtures.tables import make_stud_table
from tests.fixtures.users import api_client, make_user

D = Decimal
ZERO = D("0.00")
STATEMENT = "/api/v1/me/statement/"
STOCKHOLM = ZoneInfo("Europe/Stockholm")


def local(day: date, hour: int, minute: int = 0, second: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, second, tzinfo=STOCKHOLM)


def today() -> date:
    return gaming_day_of(timezone.now())


def joker_round(player, table, ante: str, action: str, bonus: str | None = "0.30") -> None:
    round_ = joker_draw.open_round(
        player=player, table=table, boxes=[BoxRequest(1, D(ante), D(bonus) if bonus else None)]
    ).round
    joker_draw.act(player=player, round_id=round_.pk, box=1, action=action)


def ledger_sums(player, currency: str, start: datetime, end: datetime) -> dict[str, Decimal]:
    """The wallet's entries between two moments, summed by what they are, one entry at a time:
    a reversal counts with the transaction it reverses."""
    sums = dict.fromkeys(("deposits", "withdrawals", "stakes", "returns", "all"), ZERO)
    entries = LedgerEntry.objects.filter(
        account__owner=player, account__kind=AccountKind.PLAYER_WALLET, currency=currency
    ).select_related("transaction__reverses")
    for entry in entries:
        if not start <= entry.transaction.created_at < end:
            continue
        posted = entry.transaction
        kind = posted.reverses.kind if posted.reverses else posted.kind
        sums["all"] += entry.amount
        if kind == TransactionKind.DEPOSIT:
            sums["deposits"] += entry.amount
        elif kind == TransactionKind.WITHDRAWAL:
            sums["withdrawals"] -= entry.amount
        elif kind == TransactionKind.STAKE:
            sums["stakes"] -= entry.amount
        elif kind in (TransactionKind.SETTLEMENT, TransactionKind.CORRECTION):
            sums["returns"] += entry.amount
    return sums


@pytest.fixture
def stockholm(settings):
    settings.CASINO_TIME_ZONE = "Europe/Stockholm"
    settings.GAMING_DAY_STARTS_AT = "06:00"


@pytest.fixture
def played(stockholm, settings, player, other_player, joker_table, pit, pit2):
    """Alice over four gaming days ten to seven days ago: a deposit, joker draw rounds lost and
    played out, a stud sitting (buy-in, rebuy, a hand against Bob, cash-out), a withdrawal, a
    deposit keyed wrongly and reversed at the cage."""
    first = today() - timedelta(days=10)
    settings.STUD_HAND_PAUSE_SECONDS = 3600
    with clock_at(local(first, 12)):
        deposit(player=player, currency="USD", amount=D("300.00"), reason="cash", by=pit)
        deposit(player=other_player, currency="USD", amount=D("300.00"), reason="cash", by=pit)
        deposit(player=player, currency="FUN", amount=D("50.00"), reason="chips", by=pit)
        for ante, action in [("0.30", "fold"), ("0.60", "bet"), ("0.90", "bet")]:
            joker_round(player, joker_table, ante, action)
    with clock_at(local(first + timedelta(days=1), 20)):
        table = make_stud_table(pit, pit2)
        stud.join(player=player, table=table, seat=1, buy_in=D("50.00"))
        stud.rebuy(player=player, table=table, amount=D("20.00"))
        stud.join(player=other_player, table=table, seat=2, buy_in=D("60.00"))
        settings.STUD_HAND_PAUSE_SECONDS = 0
        stud.catch_up(table.pk)
        play_passively(table)
        settings.STUD_HAND_PAUSE_SECONDS = 3600
        # A player who leaves between hands is cashed out at once.
        stud.leave(player=player, table=table)
    with clock_at(local(first + timedelta(days=2), 5, 59, 59)):
        joker_round(player, joker_table, "0.30", "bet", bonus=None)
        withdraw(player=player, currency="USD", amount=D("40.00"), reason="cash out", by=pit)
    with clock_at(local(first + timedelta(days=3), 6)):
        mistake = deposit(player=player, currency="USD", amount=D("25.00"), reason="typo", by=pit)
        reverse_transaction(mistake, reason="keyed twice", by=pit)
    assert not Seat.objects.filter(player=player, status="seated").exists()
    return first


def test_the_totals_equal_the_ledger_and_the_balances_add_up(played, player):
    """Every figure of the statement equals the wallet's ledger entries summed one by one; the
    opening balance plus net deposits plus net result is the closing balance, which is the
    wallet's balance; the rows add up to the totals."""
    first, last = played - timedelta(days=1), today()
    body = api_client(player).get(STATEMENT, {"from": first, "to": last}).json()
    assert (body["from"], body["to"], body["rows_per"]) == (str(first), str(last), "day")
    by_currency = {c["currency"]: c for c in body["currencies"]}
    assert set(by_currency) == {"USD", "FUN"}
    usd = by_currency["USD"]
    start = local(first, 6)
    sums = ledger_sums(player, "USD", start, local(last + timedelta(days=1), 6))
    assert usd["opening_balance"] == "0.00"
    for name in ("deposits", "withdrawals", "stakes", "returns"):
        assert D(usd[name]) == sums[name], name
    assert sums["deposits"] == D("300.00")  # the reversed deposit nets out of its column
    assert sums["withdrawals"] == D("40.00")
    assert sums["stakes"] > D("70.00")  # the buy-in and the rebuy, and the joker stakes
    assert D(usd["net_deposits"]) == D("260.00")
    assert D(usd["net_result"]) == sums["returns"] - sums["stakes"]
    closing = D(usd["opening_balance"]) + D(usd["net_deposits"]) + D(usd["net_result"])
    assert D(usd["closing_balance"]) == closing == sums["all"]
    assert closing == player.accounts.get(currency="USD").balance
    for name in ("deposits", "withdrawals", "stakes", "returns", "net_result"):
        assert sum(D(row[name]) for row in usd["rows"]) == D(usd[name]), name
    for earlier, later in zip(usd["rows"], usd["rows"][1:], strict=False):
        assert earlier["closing_balance"] == later["opening_balance"]
    fun = by_currency["FUN"]
    assert (fun["deposits"], fun["stakes"], fun["closing_balance"]) == ("50.00", "0.00", "50.00")


def test_a_round_just_before_the_gaming_day_starts_is_on_the_day_before(played, player):
    """The joker round at 05:59:59 in Stockholm belongs to the gaming day before (06:00 starts
    it): it is in that day's row, and a statement from the next day has it in its opening
    balance, not in its stakes."""
    usd = _usd(player, played, played + timedelta(days=3))
    days = {row["from"]: row for row in usd["rows"]}
    assert sorted(days) == [str(played + timedelta(days=n)) for n in (0, 1, 3)]
    evening = days[str(played + timedelta(days=1))]
    assert evening["withdrawals"] == "40.00"
    day = played + timedelta(days=1)
    sums = ledger_sums(player, "USD", local(day, 6), local(day + timedelta(days=1), 6))
    assert D(evening["stakes"]) == sums["stakes"] > D("70.30")  # buy-in, rebuy, 05:59 round
    morning = days[str(played + timedelta(days=3))]
    assert (morning["deposits"], morning["stakes"]) == ("0.00", "0.00")
    later = _usd(player, played + timedelta(days=2), played + timedelta(days=2))
    assert (later["stakes"], later["withdrawals"], later["rows"]) == ("0.00", "0.00", [])
    assert later["opening_balance"] == evening["closing_balance"] == later["closing_balance"]


def _usd(player, first: date, last: date) -> dict:
    response = api_client(player).get(STATEMENT, {"from": str(first), "to": str(last)})
    assert response.status_code == 200, response.json()
    return next(c for c in response.json()["currencies"] if c["currency"] == "USD")


def test_the_default_is_the_last_thirty_gaming_days(played, player):
    body = api_client(player).get(STATEMENT).json()
    assert (body["from"], body["to"]) == (str(today() - timedelta(days=29)), str(today()))


def test_twelve_months_and_more_are_there_month_by_month(stockholm, player, pit):
    """A deposit thirteen months ago and one this month: a statement of the fourteen months
    has a row per month with money in it, and the first deposit in the right one."""
    long_ago = today() - timedelta(days=400)
    with clock_at(local(long_ago, 12)):
        deposit(player=player, currency="USD", amount=D("10.00"), reason="cash", by=pit)
    deposit(player=player, currency="USD", amount=D("5.00"), reason="cash", by=pit)
    first = long_ago.replace(day=1)
    body = api_client(player).get(STATEMENT, {"from": first, "to": today()}).json()
    assert body["rows_per"] == "month"
    usd = body["currencies"][0]
    assert [(row["from"], row["deposits"]) for row in usd["rows"]] == [
        (str(first), "10.00"),
        (str(today().replace(day=1)), "5.00"),
    ]
    assert usd["rows"][0]["to"] == str(
        (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    )
    assert (usd["deposits"], usd["closing_balance"]) == ("15.00", "15.00")
    after = api_client(player).get(STATEMENT, {"from": long_ago + timedelta(days=1)}).json()
    assert after["currencies"][0]["opening_balance"] == "10.00"


@pytest.mark.parametrize(
    ("query", "field", "code"),
    [
        ({"from": "2026-13-01"}, "from", "invalid_date"),
        ({"to": "yesterday"}, "to", "invalid_date"),
        ({"from": "01/02/2026"}, "from", "invalid_date"),
        ({"from": "2026-01-10", "to": "2026-01-09"}, "to", "date_order"),
        ({"to": "+1"}, "to", "statement_in_future"),
        ({"from": "-5y"}, "from", "statement_too_old"),
    ],
)
def test_a_bad_period_is_refused_naming_the_field(player, query, field, code):
    tomorrow, too_old = today() + timedelta(days=1), today().replace(year=today().year - 5)
    query = {
        name: {"+1": str(tomorrow), "-5y": str(too_old - timedelta(days=1))}.get(value, value)
        for name, value in query.items()
    }
    response = api_client(player).get(STATEMENT, query)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == code
    assert list(body["errors"]) == [field]
    assert body["detail"] == body["errors"][field][0]


def test_five_years_back_is_the_earliest(player):
    earliest = today().replace(year=today().year - 5)
    response = api_client(player).get(STATEMENT, {"from": earliest})
    assert response.status_code == 200


def test_the_csv_is_the_same_statement(played, player):
    first, last = played, played + timedelta(days=3)
    client = api_client(player)
    body = client.get(STATEMENT, {"from": first, "to": last}).json()
    for response in (
        client.get(STATEMENT, {"from": first, "to": last, "format": "csv"}),
        client.get(STATEMENT, {"from": first, "to": last}, HTTP_ACCEPT="text/csv"),
    ):
        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/csv")
        assert response["Content-Disposition"] == (
            f'attachment; filename="statement_{first}_{last}.csv"'
        )
        rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
        for currency in body["currencies"]:
            mine = [row for row in rows if row["currency"] == currency["currency"]]
            assert [row["period"] for row in mine] == ["day"] * len(currency["rows"]) + ["total"]
            for row, figures in zip(mine, [*currency["rows"], currency], strict=True):
                assert row["first_gaming_day"] == figures["from"]
                assert row["last_gaming_day"] == figures["to"]
                for name in ("opening_balance", "deposits", "withdrawals", "stakes"):
                    assert row[name] == figures[name]
                for name in ("returns", "net_deposits", "net_result", "closing_balance"):
                    assert row[name] == figures[name]


def test_a_refused_csv_is_the_json_refusal(player):
    response = api_client(player).get(STATEMENT, {"from": "never", "format": "csv"})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_date"


def test_the_sums_are_two_queries_however_many_entries(played, player):
    with CaptureQueriesContext(connection) as queries:
        found = statement(player, played - timedelta(days=30), today())
    assert len(queries) == 2
    assert len(found.currencies) == 2


# The attacker ------------------------------------------------------------------------------


def test_no_parameter_reaches_another_players_statement(played, player, other_player):
    """Bob asks for Alice's statement every way a curious player might: he gets his own."""
    client = api_client(other_player)
    own = client.get(STATEMENT, {"from": played, "to": today()}).json()
    for extra in ({"player": player.pk}, {"user": player.username}, {"owner": player.pk}):
        body = client.get(STATEMENT, {"from": played, "to": today(), **extra}).json()
        assert body == own
    bob = next(c for c in own["currencies"] if c["currency"] == "USD")
    assert (bob["deposits"], bob["withdrawals"]) == ("300.00", "0.00")
    assert client.get(f"{STATEMENT}{player.pk}/").status_code == 404


@pytest.mark.parametrize("role", ["pit_staff", "auditor", "admin"])
def test_staff_have_no_statement_of_their_own(db, role):
    staff = make_user(f"staff-{role}", role)
    response = api_client(staff).get(STATEMENT)
    assert response.status_code == 403
    assert "staff page" in response.json()["detail"]


def test_a_visitor_is_asked_to_sign_in(db):
    assert api_client(None).get(STATEMENT).status_code == 401


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_the_statement_only_reads(player, method):
    response = getattr(api_client(player), method)(STATEMENT, {}, format="json")
    assert response.status_code == 405
