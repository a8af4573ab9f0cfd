"""The audit room through Django's test client and the API: the rounds and pots of every game
with their totals, the ledger drilled down and as of a gaming day, the gaming-day report, RTP
measured on demand; and what a player, a curious auditor or a careless integrator gets."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone
from django.utils.html import escape
from rest_framework.test import APIClient

from casino.gaming_day import gaming_day_of
from casino.roles import PLAYER
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import BoxSettlement, Round, RoundStatus
from games.tables import gaming_day
from games.tables.voids import void_round
from payouts.models import Account, AccountKind, LedgerEntry, LedgerTransaction, RtpObservation
from payouts.services import deposit
from tests.fixtures import stud
from tests.fixtures.peer import seat_everyone
from tests.fixtures.tables import make_stud_table
from tests.fixtures.users import api_client, logged_in, make_user

D = Decimal
AUDIT_PAGES = (
    "/staff/payouts/rounds/",
    "/staff/payouts/rounds.csv",
    "/staff/gaming-day/",
    "/staff/gaming-day.csv",
    "/staff/gaming-day/chart.png",
    "/staff/ledger/accounts/",
    "/staff/ledger/accounts.csv",
    "/staff/ledger/trial-balance.csv",
)
AUDIT_API = (
    "/api/v1/staff/payouts/rounds/",
    "/api/v1/staff/ledger/trial-balance/",
    "/api/v1/staff/ledger/accounts/",
    "/api/v1/staff/gaming-day/",
    "/api/v1/staff/rtp/observations/",
)


@pytest.fixture
def three_games(settings, settled_boxes, pit, pit2):
    """Eight settled joker draw boxes (``settled_boxes``), a voided joker draw round, and two
    stud hands played out."""
    settings.STUD_HAND_PAUSE_SECONDS = 0
    ann = settled_boxes[0]
    voided = joker_draw.open_round(
        player=ann, table=Round.objects.first().table, boxes=[BoxRequest(1, D("0.90"))]
    ).round
    void_round(voided, by=pit, reason="a card was dropped")
    table = make_stud_table(pit, pit2)
    players = [make_user(name, PLAYER) for name in ("dan", "eve")]
    for user in players:
        deposit(player=user, currency="USD", amount=D("100.00"), reason="cash", by=pit)
    seat_everyone(stud.stud, table, players, settings, "STUD_HAND_PAUSE_SECONDS")
    stud.play_passively(table, hands=2)
    return voided, table


def csv_rows(response) -> list[dict[str, str]]:
    body = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(body)))


# Who may read, and who may not write ------------------------------------------------------------


def test_a_player_is_refused_every_audit_page_and_endpoint(three_games, player):
    client = logged_in(player)
    for url in AUDIT_PAGES:
        assert client.get(url).status_code == 403, url
    api = api_client(player)
    for url in AUDIT_API:
        response = api.get(url)
        assert response.status_code == 403, url
        assert response.json()["detail"]
    wallet = Account.objects.filter(kind=AccountKind.PLAYER_WALLET).first()
    assert api.get(f"/api/v1/staff/ledger/accounts/{wallet.pk}/entries/").status_code == 403


def test_an_anonymous_visitor_signs_in_first(three_games):
    for url in AUDIT_PAGES:
        response = Client().get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")
    for url in AUDIT_API:
        assert APIClient().get(url).status_code == 401, url


def test_an_auditor_reads_everything_and_can_change_nothing(three_games, auditor):
    client = logged_in(auditor)
    for url in AUDIT_PAGES:
        assert client.get(url).status_code == 200, url
    api = api_client(auditor)
    for url in AUDIT_API:
        assert api.get(url).status_code == 200, url
    before = (LedgerTransaction.objects.count(), RtpObservation.objects.count())
    # Writes: an RTP measurement (pit staff only) and methods the read-only API has not.
    assert client.post("/staff/rtp/observe/").status_code == 403
    assert api.post("/api/v1/staff/rtp/measurements/").status_code == 403
    for url in AUDIT_API:
        for method in (api.post, api.put, api.patch, api.delete):
            assert method(url, {}, format="json").status_code == 405, (method, url)
    assert (LedgerTransaction.objects.count(), RtpObservation.objects.count()) == before


def test_an_auditor_sees_no_link_to_a_pit_screen(three_games, auditor, pit):
    page = logged_in(auditor).get("/staff/gaming-day/").content.decode()
    start = page.index('class="staff-nav"')
    nav = page[start : page.index("</nav>", start)]
    for pit_only in ("/staff/limits/", "/staff/paytables/", 'href="/staff/"'):
        assert pit_only not in nav
    for audit in ("/staff/payouts/rounds/", "/staff/gaming-day/", "/staff/ledger/accounts/"):
        assert audit in nav
    pit_nav = logged_in(pit).get("/staff/gaming-day/").content.decode()
    assert "/staff/limits/" in pit_nav


# Rounds and pots of every game -------------------------------------------------------------------


def test_the_review_lists_every_game_with_the_totals_of_the_filtered_set(three_games, auditor):
    voided, _stud_table = three_games
    response = api_client(auditor).get("/api/v1/staff/payouts/rounds/")
    body = response.json()
    finished = Round.objects.filter(status__in=["settled", "voided"])
    assert body["count"] == finished.count() == 8 + 1 + 2
    assert {row["game"] for row in body["results"]} == {"joker_draw", "seven_card_stud"}
    # The totals are the ledger's: every posting of a finished round, summed by hand.
    staked = paid = house = D(0)
    for entry in LedgerEntry.objects.select_related("transaction", "account"):
        reference = entry.transaction.reference or ""
        if not reference.startswith("round:"):
            continue
        if not finished.filter(pk=int(reference.split(":")[1])).exists():
            continue
        kind = entry.account.kind
        if kind in ("stakes_in_play", "bonus") and entry.amount > 0:
            staked += entry.amount
        if kind in ("player_wallet", "table_chips") and entry.amount > 0:
            paid += entry.amount
        if kind in ("house_bankroll", "house_reserved", "rake"):
            house += entry.amount
    totals = body["totals"]
    assert (totals["staked"], totals["paid"], totals["house_result"]) == (
        f"{staked:.2f}",
        f"{paid:.2f}",
        f"{house:.2f}",
    )
    assert D(totals["staked"]) - D(totals["paid"]) == D(totals["house_result"])
    assert totals["hold_percent"] == f"{(house * 100 / staked).quantize(D('0.01')):.2f}"
    # The voided round gave every stake back, and says so.
    row = next(r for r in body["results"] if r["round"] == voided.pk)
    assert (row["status"], row["void_reason"]) == ("voided", "a card was dropped")
    assert row["staked"] == row["paid"] == "0.90"
    assert row["house_result"] == "0.00"
    # A stud hand: the number players see is the hand's at its table; the pot has a winner.
    hands = [r for r in body["results"] if r["game"] == "seven_card_stud"]
    assert sorted(r["number"] for r in hands) == [1, 2]
    for hand in hands:
        assert hand["winners"]
        assert D(hand["rake"]) > 0
        assert D(hand["house_result"]) == D(hand["rake"])
        paid_out = sum(D(w["amount"]) for w in hand["winners"])
        assert paid_out + D(hand["rake"]) <= D(hand["staked"])


def test_filters_narrow_the_page_the_api_and_the_csv_alike(three_games, auditor):
    voided, _stud_table = three_games
    query = {"game": "seven_card_stud"}
    api = api_client(auditor).get("/api/v1/staff/payouts/rounds/", query).json()
    assert api["count"] == 2
    page = logged_in(auditor).get("/staff/payouts/rounds/", query)
    assert page.status_code == 200
    assert page.content.decode().count('data-status="settled"') == 2
    response = logged_in(auditor).get("/staff/payouts/rounds.csv", query)
    rows = csv_rows(response)
    assert [row["round"] for row in rows] == [str(r["number"]) for r in api["results"]]
    today = timezone.localdate().isoformat()
    name = response["Content-Disposition"]
    assert "game-seven_card_stud" in name
    assert f"made-{today}" in name
    voided_only = api_client(auditor).get("/api/v1/staff/payouts/rounds/", {"status": "voided"})
    assert [r["round"] for r in voided_only.json()["results"]] == [voided.pk]


def test_bad_filters_are_refused_naming_the_field(three_games, auditor):
    api = api_client(auditor)
    for query, field in (
        ({"date_from": "2026-02-30"}, "date_from"),
        ({"date_from": "2026-03-02", "date_to": "2026-03-01"}, "date_to"),
        ({"player": "nobody"}, "player"),
        ({"table": "999999"}, "table"),
        ({"game": "roulette"}, "game"),
        ({"page": "0"}, "page"),
    ):
        response = api.get("/api/v1/staff/payouts/rounds/", query)
        assert response.status_code == 400, query
        assert field in response.json()["errors"], query
        page = logged_in(auditor).get("/staff/payouts/rounds/", query)
        if field != "page":
            assert page.status_code == 400, query


# The ledger, drilled down ------------------------------------------------------------------------


def test_the_trial_balance_drills_down_to_an_account_a_transaction_and_its_round(
    three_games, auditor
):
    client = logged_in(auditor)
    page = client.get("/staff/ledger/accounts/", {"currency": "USD", "kind": "player_wallet"})
    assert page.status_code == 200
    wallet = Account.objects.filter(kind=AccountKind.PLAYER_WALLET, owner__username="ann").get()
    assert f'data-account="{wallet.pk}"' in page.content.decode()
    entries = client.get(f"/staff/ledger/accounts/{wallet.pk}/").content.decode()
    stake = LedgerEntry.objects.filter(account=wallet, transaction__reference__endswith=":open")
    entry = stake.order_by("id").first()
    assert f'data-entry="{entry.pk}"' in entries
    detail = client.get(f"/staff/ledger/transactions/{entry.transaction_id}/").content.decode()
    round_id = int(entry.transaction.reference.split(":")[1])
    assert f'href="/staff/rounds/{round_id}/"' in detail
    api = api_client(auditor).get(f"/api/v1/staff/ledger/transactions/{entry.transaction_id}/")
    body = api.json()
    assert body["round"] == round_id
    assert sum(D(e["amount"]) for e in body["entries"]) == 0


def test_balances_as_of_a_gaming_day_leave_out_what_came_after(three_games, auditor, pit):
    yesterday = gaming_day_of(timezone.now()) - timedelta(days=1)
    api = api_client(auditor)
    before = api.get("/api/v1/staff/ledger/trial-balance/", {"as_of": yesterday.isoformat()})
    assert before.json() == []  # nothing was posted before today
    now = api.get("/api/v1/staff/ledger/trial-balance/").json()
    by_kind = {(row["currency"], row["kind"]): D(row["balance"]) for row in now}
    for account_kind in AccountKind:
        held = sum(a.balance for a in Account.objects.filter(kind=account_kind, currency="USD"))
        assert by_kind.get(("USD", account_kind.value), D(0)) == held
    assert sum(by_kind.values()) == 0
    ann = Account.objects.get(owner__username="ann", currency="USD")
    entries = api.get(f"/api/v1/staff/ledger/accounts/{ann.pk}/entries/").json()
    assert entries["count"] == LedgerEntry.objects.filter(account=ann).count()
    assert D(entries["results"][0]["balance_after"]) == ann.balance
    old = api.get(
        f"/api/v1/staff/ledger/accounts/{ann.pk}/entries/", {"as_of": yesterday.isoformat()}
    )
    assert old.json()["count"] == 0


def test_every_ledger_view_has_its_csv(three_games, auditor):
    client = logged_in(auditor)
    ann = Account.objects.get(owner__username="ann", currency="USD")
    rows = csv_rows(client.get(f"/staff/ledger/accounts/{ann.pk}.csv"))
    assert len(rows) == LedgerEntry.objects.filter(account=ann).count()
    assert D(rows[0]["balance_after"]) == ann.balance
    posted = LedgerEntry.objects.filter(account=ann).last().transaction
    rows = csv_rows(client.get(f"/staff/ledger/transactions/{posted.pk}.csv"))
    assert sum(D(row["amount"]) for row in rows) == 0
    trial = csv_rows(client.get("/staff/ledger/trial-balance.csv"))
    assert sum(D(row["balance"]) for row in trial) == 0
    accounts = client.get("/staff/ledger/accounts.csv", {"kind": "player_wallet"})
    assert "player_wallet" in accounts["Content-Disposition"]
    assert {row["owner"] for row in csv_rows(accounts)} >= {"ann", "ben"}


# The gaming-day report ---------------------------------------------------------------------------


def test_the_report_page_api_and_csv_agree(three_games, auditor):
    today = gaming_day_of(timezone.now())
    rows = gaming_day.daily_rows(today, today)
    assert {row.game for row in rows} == {"joker_draw", "seven_card_stud"}
    page = logged_in(auditor).get("/staff/gaming-day/", {"date": today.isoformat()})
    text = page.content.decode()
    for row in rows:
        assert f'data-table="{row.table_id}" data-flag="{row.flag.value}"' in text
    assert escape(gaming_day.Flag.NOT_APPLICABLE.label) in text
    body = api_client(auditor).get("/api/v1/staff/gaming-day/", {"date": today.isoformat()})
    days = body.json()["days"]
    assert [(d["table_id"], d["handle"], d["win"]) for d in days] == [
        (r.table_id, f"{r.handle:.2f}", f"{r.win:.2f}") for r in rows
    ]
    assert body.json()["month_to_date"]
    assert body.json()["year_to_date"]
    chart = logged_in(auditor).get("/staff/gaming-day/chart.png", {"date": today.isoformat()})
    assert chart.content.startswith(b"\x89PNG")
    response = logged_in(auditor).get("/staff/gaming-day.csv", {"date": today.isoformat()})
    assert f"gaming-day_{today.isoformat()}_{today.isoformat()}" in response["Content-Disposition"]
    assert len(csv_rows(response)) == len(rows)


def test_a_report_of_a_backwards_or_endless_range_is_refused(auditor):
    api = api_client(auditor)
    backwards = api.get("/api/v1/staff/gaming-day/", {"date": "2026-03-02", "to": "2026-03-01"})
    assert backwards.status_code == 400
    assert "to" in backwards.json()["errors"]
    endless = api.get("/api/v1/staff/gaming-day/", {"date": "2000-01-01", "to": "2026-01-01"})
    assert endless.status_code == 400
    assert logged_in(auditor).get("/staff/gaming-day/", {"date": "soon"}).status_code == 400


# RTP on demand -----------------------------------------------------------------------------------


def test_rtp_shows_an_empty_state_and_not_enough_data(settled_boxes, auditor, settings):
    page = logged_in(auditor).get("/staff/rtp/").content.decode()
    assert 'id="rtp-empty"' in page
    assert "rtp/chart.png" not in page  # no blank axes
    from games.joker_draw.rtp_monitor import observe_rtp

    observe_rtp()  # eight boxes: far fewer than an interval needs
    page = logged_in(auditor).get("/staff/rtp/").content.decode()
    assert "not enough data" in page
    low = RtpObservation.objects.filter(interval_low__isnull=False).first()
    assert low is not None
    assert f"{low.interval_low} – {low.interval_high}" not in page
    observations = api_client(auditor).get("/api/v1/staff/rtp/observations/").json()
    assert observations
    assert all(o["interval"] is None and not o["enough_data"] for o in observations)


def test_pit_staff_measure_rtp_on_demand_and_follow_the_task(settled_boxes, pit, monkeypatch):
    from games.joker_draw import tasks

    class Started:
        id = "3f2b8e0c-1d2a-4c3b-9e4f-5a6b7c8d9e0f"

    sent = []
    monkeypatch.setattr(tasks.observe_rtp, "delay", lambda: sent.append(1) or Started())
    response = logged_in(pit).post("/staff/rtp/observe/")
    assert response.status_code == 302
    assert response["Location"] == f"/staff/rtp/?task={Started.id}"
    page = logged_in(pit).get(response["Location"]).content.decode()
    assert 'data-state="PENDING"' in page
    assert 'http-equiv="refresh"' in page  # the page follows the task until it ends
    api = api_client(pit).post("/api/v1/staff/rtp/measurements/")
    assert (api.status_code, api.json()) == (202, {"task": Started.id})
    progress = api_client(pit).get(f"/api/v1/staff/rtp/measurements/{Started.id}/")
    assert progress.json() == {"state": "PENDING", "alerts": None}
    assert api_client(pit).get("/api/v1/staff/rtp/measurements/x';--/").status_code == 400
    assert len(sent) == 2


def test_the_round_review_counts_a_round_only_once_it_is_over(joker_table, funded_player, auditor):
    in_play = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    body = api_client(auditor).get("/api/v1/staff/payouts/rounds/").json()
    assert body["count"] == 0
    assert body["totals"]["staked"] == "0.00"
    assert Round.objects.get(pk=in_play.pk).status == RoundStatus.DECIDING


def test_the_box_review_totals_the_filtered_boxes(settled_boxes, auditor):
    page = logged_in(auditor).get("/staff/payouts/", {"player": "ben"})
    totals = page.context["totals"]
    boxes = BoxSettlement.objects.filter(player__username="ben")
    staked = sum((b.ante_staked + b.bet_staked + b.bonus_staked for b in boxes), D(0))
    paid = sum(
        (b.ante_staked + b.bet_staked + b.bonus_staked + b.total_result for b in boxes), D(0)
    )
    assert (totals["staked"], totals["paid"], totals["house"]) == (staked, paid, staked - paid)
    assert totals["hold_percent"] == ((staked - paid) * 100 / staked).quantize(D("0.01"))
    assert f'<td class="money">{staked}</td>' in page.content.decode()
