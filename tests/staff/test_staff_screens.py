"""The staff screens through Django's test client, on PostgreSQL: who may open what, open and
close, voiding, limits and paytables under maker-checker, the payouts review with its filters
and CSV, the round detail with its replay check, and the ledger reconciliation."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from games.engine import stud as stud_engine
from games.joker_draw import rtp_lab
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import (
    BoxSettlement,
    Game,
    Round,
    RoundStatus,
    Seat,
    TableLimits,
    TableStatus,
)
from games.staff import views
from games.stud.hand import Hand as StudHand
from games.stud.tasks import STUD as stud
from games.tables import seeds
from games.tables import services as table_services
from games.tables.replay import ReplayReport
from payouts import services as money
from payouts.approvals import ChangeStatus
from payouts.models import AccountKind, Paytable, PaytableVersion
from payouts.selectors import check_ledger
from tests.fixtures.tables import make_stud_table
from tests.fixtures.users import make_user

D = Decimal


def signed_in(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def field_error(response, field: str) -> str:
    """The error a page shows next to the field (its element ``id_FIELD-error``)."""
    found = re.search(rf'id="id_{field}-error"[^>]*>([^<]*)<', response.content.decode())
    return found[1].strip() if found else ""


def house(kind: str) -> Decimal:
    return money.house_account(kind, "USD").balance


@pytest.fixture
def stud_hand(pit, pit2, settings):
    """An open stud table with a hand in progress between two players."""
    settings.STUD_HAND_PAUSE_SECONDS = 0
    table = make_stud_table(pit, pit2)
    for number, name in enumerate(("ann", "ben"), start=1):
        user = make_user(name, "player")
        money.deposit(player=user, currency="USD", amount=D("100.00"), reason="cash", by=pit)
        stud.join(player=user, table=table, seat=number, buy_in=D("60.00"))
    return Round.objects.get(table=table, status=RoundStatus.DECIDING)


# Who may open what -----------------------------------------------------------------------------

PIT_SCREENS = ("live", "live-fragment", "limits", "paytables", "propose-limits", "propose-paytable")
AUDIT_SCREENS = ("payouts", "payouts-csv", "ledger", "round", "rtp", "rtp-chart")
SEES = {
    "pit": set(PIT_SCREENS) | set(AUDIT_SCREENS),  # pit staff read everything too
    "auditor": set(AUDIT_SCREENS),
    "admin_user": set(PIT_SCREENS) | set(AUDIT_SCREENS),
    "player": set(),
}


def screen_url(name: str, round_: Round, paytable: Paytable) -> str:
    args = {
        "round": f"/staff/rounds/{round_.pk}/",
        "propose-limits": f"/staff/limits/tables/{round_.table_id}/propose/",
        "propose-paytable": f"/staff/paytables/{paytable.pk}/propose/",
    }
    fixed = {
        "live": "/staff/",
        "live-fragment": "/staff/live/tables/",
        "limits": "/staff/limits/",
        "paytables": "/staff/paytables/",
        "payouts": "/staff/payouts/",
        "payouts-csv": "/staff/payouts.csv",
        "ledger": "/staff/ledger/",
        "rtp": "/staff/rtp/",
        "rtp-chart": "/staff/rtp/chart.png",
    }
    return args.get(name) or fixed[name]


@pytest.mark.parametrize("role", ["player", "pit", "auditor", "admin_user"])
def test_each_role_opens_its_screens_and_gets_403_elsewhere(role, request, stud_hand):
    user = request.getfixturevalue(role)
    paytable = Paytable.objects.create(name="bet-test", kind="bet")
    client = signed_in(user)
    for name in (*PIT_SCREENS, *AUDIT_SCREENS):
        response = client.get(screen_url(name, stud_hand, paytable))
        expected = 200 if name in SEES[role] else 403
        assert response.status_code == expected, (role, name)


def test_anonymous_visitors_are_sent_to_sign_in(stud_hand):
    paytable = Paytable.objects.create(name="bet-test", kind="bet")
    client = Client()
    for name in (*PIT_SCREENS, *AUDIT_SCREENS):
        url = screen_url(name, stud_hand, paytable)
        response = client.get(url)
        assert response.status_code == 302, name
        assert response["Location"] == f"/accounts/login/?next={url}"


def test_changes_need_the_pit_staff_permissions(stud_hand, player, auditor):
    table = stud_hand.table
    for user in (player, auditor):
        client = signed_in(user)
        status = client.post(
            f"/staff/tables/{table.pk}/status/", {"status": "closed", "reason": "x"}
        )
        void = client.post(f"/staff/rounds/{stud_hand.pk}/void/", {"reason": "x"})
        assert (status.status_code, void.status_code) == (403, 403)
    table.refresh_from_db()
    stud_hand.refresh_from_db()
    assert (table.status, stud_hand.status) == (TableStatus.OPEN, RoundStatus.DECIDING)


# The pit: live tables, open and close, void ---------------------------------------------------


def test_the_live_view_shows_players_stacks_and_takings_from_the_ledger(stud_hand, pit):
    table = stud_hand.table
    while Round.objects.get(pk=stud_hand.pk).status == RoundStatus.DECIDING:
        hand = StudHand.from_json(Round.objects.get(pk=stud_hand.pk).engine_state)
        seat = Seat.objects.get(table=table, number=hand.seats[hand.state.to_act])
        kinds = {option.kind.value for option in stud_engine.legal_actions(hand.state)}
        action = "bring_in" if "bring_in" in kinds else "fold"
        stud.act(player=seat.player, table=table, action=action)
    page = signed_in(pit).get("/staff/live/tables/").content.decode()
    row = page[page.index(f'data-table="{table.pk}"') :]
    for seat in Seat.objects.filter(table=table):
        assert f"seat {seat.number}: {seat.player.username} {seat.chips}" in row
    rake = house(AccountKind.RAKE)
    assert rake > 0
    assert f"{rake} USD" in row  # a peer table's takings: the rake, from the ledger


def test_the_live_view_describes_a_hand_in_progress_without_cards(stud_hand, pit):
    page = signed_in(pit).get("/staff/").content.decode()
    assert f"hand {stud_hand.nonce}: Third street, pot 1.00" in page  # two antes of 0.50 (ST-2)
    assert f'href="/staff/rounds/{stud_hand.pk}/"' in page
    assert "setInterval" in page  # the page polls its fragment


def test_the_live_view_shows_a_joker_round_and_the_house_net_today(settled_boxes, pit):
    ann = settled_boxes[0]
    round_ = joker_draw.open_round(
        player=ann, table=BoxSettlement.objects.first().table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    page = signed_in(pit).get("/staff/live/tables/").content.decode()
    assert f"round {round_.pk}: ann, 1 box(es), box 1 to decide" in page
    # The bankroll funded; the open round holds part of it (HB-1).
    house_net = (
        house(AccountKind.HOUSE_BANKROLL) + house(AccountKind.HOUSE_RESERVED) - D("10000.00")
    )
    assert house_net != 0
    assert f"{house_net} USD" in page


def test_pit_staff_close_and_open_a_table_with_a_reason(stud_hand, pit):
    table = stud_hand.table
    client = signed_in(pit)
    close = {"status": "closed", "reason": "end of shift"}
    # Players are seated: refused with their list unless closed after this hand.
    refused = client.post(f"/staff/tables/{table.pk}/status/", close)
    assert refused.status_code == 400
    assert "Players are seated: seat 1: " in refused.content.decode()
    table.refresh_from_db()
    assert table.status == TableStatus.OPEN
    response = client.post(f"/staff/tables/{table.pk}/status/", {**close, "cash_out_seated": "on"})
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.status == TableStatus.CLOSED
    refused = client.post(f"/staff/tables/{table.pk}/status/", {"status": "open", "reason": ""})
    assert refused.status_code == 400
    # The refusal stands next to the reason box, on the table's page.
    assert field_error(refused, "reason") == "This field is required."
    table.refresh_from_db()
    assert table.status == TableStatus.CLOSED


def test_a_table_without_approved_limits_does_not_open(pit):
    table = table_services.create_table(
        name="New stud", game="seven_card_stud", currency="USD", by=pit, reason="test"
    )
    response = signed_in(pit).post(
        f"/staff/tables/{table.pk}/status/", {"status": "open", "reason": "go"}
    )
    assert response.status_code == 400
    assert field_error(response, "status") == "A table opens only once its limits are approved."
    table.refresh_from_db()
    assert table.status == TableStatus.CLOSED


def test_pit_staff_void_a_hand_once_with_a_reason(stud_hand, pit, pit2):
    url = f"/staff/rounds/{stud_hand.pk}/void/"
    page = signed_in(pit).get(f"/staff/rounds/{stud_hand.pk}/").content.decode()
    assert 'id="void-form"' in page
    assert "secret until the round is over" in page
    no_reason = signed_in(pit).post(url, {"reason": ""})
    assert no_reason.status_code == 400
    response = signed_in(pit).post(url, {"reason": "shuffler jammed"})
    assert response.status_code == 302
    stud_hand.refresh_from_db()
    assert (stud_hand.status, stud_hand.void_reason) == (RoundStatus.VOIDED, "shuffler jammed")
    again = signed_in(pit2).post(url, {"reason": "again"})
    assert again.status_code == 409
    assert "already voided" in again.content.decode()
    assert check_ledger().ok
    detail = signed_in(pit).get(f"/staff/rounds/{stud_hand.pk}/").content.decode()
    assert "Voided: shuffler jammed" in detail
    assert "voided" in detail
    assert "pitboss" in detail
    assert 'id="void-form"' not in detail


# Limits and paytables --------------------------------------------------------------------------


def stud_limits_post(**changes: str) -> dict[str, str]:
    values = {
        "ante": "0.50", "bring_in": "1.00", "small_bet": "4.00", "big_bet": "8.00", "seats": "8",
        "rake_percent": "5.00", "rake_cap": "3.00", "buy_in_min": "50.00",
        "buy_in_max": "500.00", "action_timeout_seconds": "30", "reason": "smaller bets",
    }  # fmt: skip
    values.update(changes)
    return values


def test_limits_are_proposed_then_approved_by_someone_else(stud_hand, pit, pit2):
    table = stud_hand.table
    form = signed_in(pit).get(f"/staff/limits/tables/{table.pk}/propose/").content.decode()
    assert 'name="small_bet"' in form
    assert 'value="5.00"' in form
    assert 'name="open_pair_big_bet"' in form  # ST-5, the table's choice
    response = signed_in(pit).post(f"/staff/limits/tables/{table.pk}/propose/", stud_limits_post())
    assert response.status_code == 302
    draft = TableLimits.objects.get(table=table, status=ChangeStatus.DRAFT)
    assert draft.small_bet == D("4.00")
    listing = signed_in(pit).get("/staff/limits/").content.decode()
    assert f"<th>v{draft.number} draft</th>" in listing
    assert "<td>smaller bets</td>" in listing

    own = signed_in(pit).post(f"/staff/limits/{draft.pk}/approve/")
    assert own.status_code == 400
    assert "cannot approve it (separation of duties)" in own.content.decode()
    draft.refresh_from_db()
    assert draft.status == ChangeStatus.DRAFT

    assert signed_in(pit2).post(f"/staff/limits/{draft.pk}/approve/").status_code == 302
    table.refresh_from_db()
    assert table.active_limits().small_bet == D("4.00")


def test_a_rule_switch_is_on_or_off_never_unknown(pit, pit2):
    """ST-5's open pair is a checkbox: on by the source's rule for a new table, off when the pit
    unticks it, never the column's "unknown" that the other games' rows hold."""
    table = table_services.create_table(
        name="Stud 9", game=Game.SEVEN_CARD_STUD, currency="USD", by=pit, reason="new"
    )
    form = signed_in(pit).get(f"/staff/limits/tables/{table.pk}/propose/").content.decode()
    switch = re.search(r"<input[^>]*name=\"open_pair_big_bet\"[^>]*>", form)
    assert switch is not None
    assert 'type="checkbox"' in switch[0]
    assert "checked" in switch[0]
    assert "unknown" not in form.lower()
    for posted, stored in (({"open_pair_big_bet": "on"}, True), ({}, False)):
        TableLimits.objects.filter(table=table, status=ChangeStatus.DRAFT).delete()
        signed_in(pit).post(
            f"/staff/limits/tables/{table.pk}/propose/", {**stud_limits_post(), **posted}
        )
        draft = TableLimits.objects.get(table=table, status=ChangeStatus.DRAFT)
        assert draft.open_pair_big_bet is stored


def test_limits_breaking_a_rule_are_refused_naming_the_field_and_rule(stud_hand, pit):
    table = stud_hand.table
    response = signed_in(pit).post(
        f"/staff/limits/tables/{table.pk}/propose/", stud_limits_post(bring_in="4.00")
    )
    assert response.status_code == 400
    assert "The bring-in must be less than the small bet (ST-1)." in response.content.decode()
    assert not TableLimits.objects.filter(table=table, status=ChangeStatus.DRAFT).exists()


def test_a_paytable_version_is_proposed_and_its_proposer_may_not_approve_it(pit):
    paytable = Paytable.objects.create(name="bet-test", kind="bet")
    url = f"/staff/paytables/{paytable.pk}/propose/"
    bad = signed_in(pit).post(url, {"reason": "new", "pair": "1:0", "flush": "x"})
    assert bad.status_code == 400
    page = bad.content.decode()
    assert "Odds must be above zero (JD-14)." in page
    assert "odds are written like 5:1 or 3:2 (JD-14)" in page
    assert not PaytableVersion.objects.filter(paytable=paytable).exists()

    response = signed_in(pit).post(url, {"reason": "new", "pair": "1", "flush": "3:2"})
    assert response.status_code == 302
    version = PaytableVersion.objects.get(paytable=paytable)
    assert {line.category: line.odds for line in version.lines.all()} == {
        "pair": 1,
        "flush": D(3) / 2,
    }
    assert "v1 draft" in signed_in(pit).get("/staff/paytables/").content.decode()
    own = signed_in(pit).post(f"/staff/paytables/versions/{version.pk}/approve/")
    assert own.status_code == 400
    assert "cannot approve it (separation of duties)" in own.content.decode()
    version.refresh_from_db()
    assert version.status == ChangeStatus.DRAFT


def test_another_pit_staff_member_approves_a_paytable_version(default_paytables, pit2, pit):
    """JD-14: the version proposed through the screen, its RTP computed, approved by another."""
    bonus = default_paytables["bonus"]
    in_force = bonus.active_version()
    odds = {c: f"{o.numerator}:{o.denominator}" for c, o in in_force.odds().items()}
    response = signed_in(pit).post(
        f"/staff/paytables/{bonus.pk}/propose/", {"reason": "same again", **odds}
    )
    assert response.status_code == 302
    draft = bonus.versions.get(status=ChangeStatus.DRAFT)
    rtp_lab.compute_now(draft, seed=1)
    assert signed_in(pit2).post(f"/staff/paytables/versions/{draft.pk}/approve/").status_code == 302
    assert bonus.active_version() == draft
    assert draft.odds() == in_force.odds()


# Payouts review --------------------------------------------------------------------------------


def csv_rows(response) -> list[dict[str, str]]:
    body = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(body)))


def test_the_csv_holds_exactly_the_filtered_boxes_as_in_the_database(settled_boxes, auditor):
    ann = settled_boxes[0]
    response = signed_in(auditor).get("/staff/payouts.csv", {"player": "ann"})
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = csv_rows(response)
    expected = BoxSettlement.objects.filter(player=ann).order_by("-settled_at", "-round_id")
    assert len(rows) == expected.count() == 4
    for row, box in zip(rows, expected, strict=True):
        assert (row["round"], row["player"], row["table"]) == (
            str(box.round_id),
            "ann",
            box.table.name,
        )
        for field in ("ante_staked", "bet_staked", "bonus_staked", "total_result"):
            assert row[field] == f"{getattr(box, field):.2f}"
        assert row["bet_paytable_version"] == str(box.bet_paytable_version)
        assert (row["final_cards"], row["category"], row["bet_line"]) == (
            box.final_cards,
            box.category,
            box.bet_line,
        )


def test_each_filter_narrows_the_review_and_the_csv_alike(settled_boxes, auditor, joker_table):
    client = signed_in(auditor)
    everything = BoxSettlement.objects.all()
    some = everything.order_by("total_result")[2]
    at_least = everything.filter(total_result__gte=some.total_result)
    at_most = everything.filter(total_result__lte=some.total_result)
    today = timezone.now().date()
    cases = [
        ({"table": joker_table.pk}, everything.filter(table=joker_table)),
        ({"category": some.category}, everything.filter(category=some.category)),
        ({"min_amount": str(some.total_result)}, at_least),
        ({"max_amount": str(some.total_result)}, at_most),
        ({"date_from": today.isoformat(), "date_to": today.isoformat()}, everything),
        ({"date_from": (today + timedelta(days=1)).isoformat()}, everything.none()),
    ]  # fmt: skip
    for params, expected in cases:
        rows = csv_rows(client.get("/staff/payouts.csv", params))
        wanted = {(box.round_id, box.box) for box in expected}
        assert {(int(r["round"]), int(r["box"])) for r in rows} == wanted, params
        page = client.get("/staff/payouts/", params).content.decode()
        assert page.count('<tr data-round="') == len(wanted), params


def test_bad_filters_are_refused_naming_the_field(settled_boxes, auditor):
    client = signed_in(auditor)
    for params, message in (
        ({"player": "nobody"}, "player: No player is called &#x27;nobody&#x27;."),
        ({"min_amount": "5", "max_amount": "1"}, "max_amount: max_amount must not be below"),
        ({"date_from": "2026-02-30"}, "date_from: Enter a valid date."),
        ({"min_amount": "1.234"}, "min_amount: Ensure that there are no more than 2 decimal"),
    ):
        page = client.get("/staff/payouts/", params)
        assert page.status_code == 400
        assert message in page.content.decode()
        assert client.get("/staff/payouts.csv", params).status_code == 400


def test_the_review_is_paginated(settled_boxes, auditor, monkeypatch):
    monkeypatch.setattr(views, "PAYOUTS_PER_PAGE", 5)
    client = signed_in(auditor)
    first = client.get("/staff/payouts/", {"player": ""}).content.decode()
    second = client.get("/staff/payouts/", {"player": "", "page": 2}).content.decode()
    assert (first.count('<tr data-round="'), second.count('<tr data-round="')) == (5, 3)
    assert "page 1 of 2" in first


# Round detail and the ledger -------------------------------------------------------------------


def test_a_settled_round_shows_its_cards_history_and_replay_match(settled_boxes, auditor):
    box = BoxSettlement.objects.filter(status="bet").first()
    page = signed_in(auditor).get(f"/staff/rounds/{box.round_id}/").content.decode()
    assert box.final_cards in page
    assert box.dealer_cards in page
    assert '<span class="good">match</span>' in page
    assert "once the seed pair is rotated (FS-7)" in page  # the player's pair shuffles on
    assert box.round.secret_server_seed() not in page
    assert "dealer_reveal" in page
    assert 'id="void-form"' not in page
    seeds.rotate(box.player)
    page = signed_in(auditor).get(f"/staff/rounds/{box.round_id}/").content.decode()
    assert "the revealed seed matches the commitment" in page
    assert box.round.secret_server_seed() in page


def test_a_replay_mismatch_is_shown_in_red(settled_boxes, auditor, monkeypatch):
    box = BoxSettlement.objects.first()
    report = ReplayReport(box.round_id, mismatches=["box 1: replayed 1.00, recorded 2.00"])
    monkeypatch.setattr(views, "replay_round", lambda round_: report)
    page = signed_in(auditor).get(f"/staff/rounds/{box.round_id}/").content.decode()
    assert '<span class="mismatch">mismatch</span>' in page
    assert "box 1: replayed 1.00, recorded 2.00" in page


def test_the_trial_balance_totals_zero_per_currency(settled_boxes, auditor):
    page = signed_in(auditor).get("/staff/ledger/").content.decode()
    assert "The ledger reconciles" in page
    assert page.count('class="money good">0.00</td>') == 2  # balances and entries, USD
    bankroll = f'<td>House bankroll</td><td class="money">{house("house_bankroll")}</td>'
    assert bankroll in page


def test_a_ledger_mismatch_is_shown_in_red(settled_boxes, auditor, monkeypatch):
    real = check_ledger()
    broken = type(real)(**{**real.__dict__, "stale_balances": [(7, D("1.00"), D("2.00"))]})
    monkeypatch.setattr(views, "check_ledger", lambda: broken)
    page = signed_in(auditor).get("/staff/ledger/").content.decode()
    assert "The ledger does NOT reconcile" in page
    assert '<td class="mismatch">account 7: cached 1.00, entries 2.00</td>' in page


def test_nightly_reports_are_listed_with_what_they_found(settled_boxes, auditor):
    from payouts.models import ReconciliationReport
    from payouts.reconciliation import record_report

    assert record_report().ok
    ReconciliationReport.objects.create(
        ok=False,
        trial_balance={"USD": {"total": "0.00"}},
        problems={"negative balances": ["account 9"]},
    )
    page = signed_in(auditor).get("/staff/ledger/").content.decode()
    assert page.count('<td class="good">reconciles</td>') == 1
    assert '<td class="mismatch">does NOT reconcile</td>' in page
    assert '<span class="mismatch">negative balances: account 9</span>' in page


def test_actual_rtp_beside_the_theoretical_with_alerts_in_red(
    settled_boxes, auditor, joker_table, settings
):
    from games.joker_draw.rtp_monitor import observe_rtp

    settings.RTP_OBSERVATION_MIN_BOXES = 2
    observations = {o.kind: o for o in observe_rtp()}
    page = signed_in(auditor).get("/staff/rtp/").content.decode()
    bonus = observations["bonus"]
    assert bonus.theoretical_rtp == D("95.7229")
    row = (
        f'<td class="money">{bonus.boxes}</td><td class="money">{bonus.staked}</td>'
        f'<td class="money">{bonus.returned}</td>'
    )
    assert row in page
    assert page.count("ALERT: theoretical outside the interval") == bonus.alert
    assert page.count("ALERT: paid outside what the decisions taken should return") == (
        observations["bet"].alert
    )
    assert page.count('<tr class="mismatch">') == 2 * sum(o.alert for o in observations.values())
    chart = signed_in(auditor).get("/staff/rtp/chart.png")
    assert chart["Content-Type"] == "image/png"
    assert chart.content.startswith(b"\x89PNG")
