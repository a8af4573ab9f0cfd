"""The pit's pages in /staff/: a table created, given limits, approved by a second person and
opened, each page saying the next step; a paytable version beside the one in force with its
RTP computed and followed; the live pit's rounds with their stakes and countdown; the admin's
list of changes in words."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

import pytest
from django.test import Client

from games.joker_draw import best_play, rtp_lab
from games.joker_draw import services as joker_draw
from games.joker_draw.paytables import propose_paytable_version
from games.models import Table, TableLimits, TableStatus
from payouts.approvals import ChangeStatus
from payouts.models import RtpRun
from tests.staff.test_staff_screens import field_error, stud_limits_post

D = Decimal


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def step_of(page) -> str:
    found = re.search(r'data-step="([a-z_]+)"', page.content.decode())
    return found[1] if found else ""


def test_a_new_table_is_led_from_creation_to_opening(pit, pit2):
    maker, checker = signed_in(pit), signed_in(pit2)
    created = maker.post(
        "/staff/tables/new/",
        {"name": "Stud 7", "game": "seven_card_stud", "currency": "USD", "reason": "new pit"},
    )
    table = Table.objects.get(name="Stud 7")
    # Straight on to its limits.
    assert created["Location"] == f"/staff/limits/tables/{table.pk}/propose/"
    assert table.status == TableStatus.CLOSED
    assert step_of(maker.get(f"/staff/tables/{table.pk}/")) == "propose_limits"

    proposed = maker.post(f"/staff/limits/tables/{table.pk}/propose/", stud_limits_post())
    assert proposed["Location"] == f"/staff/tables/{table.pk}/"
    page = maker.get(f"/staff/tables/{table.pk}/")
    assert step_of(page) == "approve_limits"
    draft = TableLimits.objects.get(table=table)
    # The maker is told someone else approves; the checker gets the button.
    assert f"/staff/limits/{draft.pk}/approve/" not in page.content.decode()
    assert (
        f"/staff/limits/{draft.pk}/approve/"
        in checker.get(page.request["PATH_INFO"]).content.decode()
    )

    assert (
        checker.post(f"/staff/limits/{draft.pk}/approve/")["Location"]
        == f"/staff/tables/{table.pk}/"
    )
    assert step_of(checker.get(f"/staff/tables/{table.pk}/")) == "open"
    opened = checker.post(f"/staff/tables/{table.pk}/status/", {"status": "open", "reason": "go"})
    assert opened["Location"] == f"/staff/tables/{table.pk}/"
    page = checker.get(f"/staff/tables/{table.pk}/").content.decode()
    table.refresh_from_db()
    assert table.status == TableStatus.OPEN
    # The history says who did what and why.
    assert "new pit" in page
    assert "smaller bets" in page
    assert re.search(r"status: <del>closed</del> → <ins>open</ins>", page)


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"name": ""}, "name", "This field is required."),
        ({"game": "roulette"}, "game", "Select a valid choice. roulette is not one of the "
         "available choices."),
        ({"reason": ""}, "reason", "This field is required."),
    ],
)  # fmt: skip
def test_a_table_that_cannot_be_created_says_why_next_to_the_field(pit, changes, field, message):
    body = {"name": "T", "game": "drawmaha", "currency": "USD", "reason": "r", **changes}
    response = signed_in(pit).post("/staff/tables/new/", body)
    assert response.status_code == 400
    assert field_error(response, field) == message
    assert not Table.objects.exists()


def test_a_second_table_of_one_name_is_refused_next_to_the_name(pit):
    body = {"name": "Twin", "game": "drawmaha", "currency": "USD", "reason": "r"}
    signed_in(pit).post("/staff/tables/new/", body)
    again = signed_in(pit).post("/staff/tables/new/", body)
    assert field_error(again, "name") == "There is a table called Twin already."
    assert Table.objects.count() == 1


def test_an_auditor_and_a_player_may_not_create_a_table(auditor, player):
    body = {"name": "Mine", "game": "drawmaha", "currency": "USD", "reason": "r"}
    assert signed_in(auditor).post("/staff/tables/new/", body).status_code == 403
    assert signed_in(player).post("/staff/tables/new/", body).status_code == 403
    assert not Table.objects.exists()


def test_an_empty_reason_box_is_not_an_error_before_it_is_used(joker_table, pit):
    page = signed_in(pit).get(f"/staff/tables/{joker_table.pk}/").content.decode()
    assert 'id="id_reason-error"' not in page
    assert 'aria-invalid="true"' not in page
    css = signed_in(pit).get("/staff/").content.decode()
    assert ".staff input:invalid:not(:user-invalid)" in css


def test_a_paytable_version_is_shown_beside_the_one_in_force(default_paytables, pit, pit2):
    bet = default_paytables["bet"]
    in_force = bet.active_version()
    lines = dict(in_force.odds())
    lines["flush"] = lines["flush"] + 1
    dropped = min(lines, key=lambda c: lines[c])
    del lines[dropped]
    # A modest top line: 5,000 rounds of a long shot give an interval too wide for approval.
    lines["five_of_a_kind"] = lines.get("five_of_a_kind", Fraction(20)) + 10
    version = propose_paytable_version(paytable=bet, lines=lines, reason="promo", by=pit)
    page = signed_in(pit2).get(f"/staff/paytables/versions/{version.pk}/").content.decode()
    changes = dict(re.findall(r'data-category="([a-z_]+)" data-change="([a-z]+)"', page))
    assert changes["flush"] == "changed"
    assert changes[dropped] == "removed"
    assert changes["five_of_a_kind"] == (
        "changed" if "five_of_a_kind" in in_force.odds() else "added"
    )
    # Rank order: the highest hand first.
    order = list(changes)
    assert order.index("five_of_a_kind") < order.index("straight_flush") < order.index("flush")
    assert 'data-rtp="in-force"' in page
    assert "not computed" in page

    started = signed_in(pit2).post(f"/staff/paytables/versions/{version.pk}/rtp/")
    assert started.status_code == 302
    run = RtpRun.objects.get(paytable_version=version)
    progress = signed_in(pit2).get(f"/staff/rtp/runs/{run.pk}/progress/").json()
    assert (progress["status"], progress["percent"], progress["chunks_done"]) == ("running", 0, 0)
    assert run.strategy_name == rtp_lab.BEST  # a bet paytable is priced at best play
    RtpRun.objects.filter(pk=run.pk).update(seed=1)  # the same 5,000 rounds on every run
    best_play.solve_now(version.odds(), rtp_lab.odds_text(version.odds()))  # the workers solve
    rtp_lab.compute_chunk(run.pk, 0)  # one chunk in, as a worker stores it
    progress = signed_in(pit2).get(f"/staff/rtp/runs/{run.pk}/progress/").json()
    assert progress["chunks_done"] == 1
    assert progress["percent"] == 100 * 1 // run.chunk_count
    rtp_lab.run_in_process(run)
    page = signed_in(pit2).get(f"/staff/paytables/versions/{version.pk}/").content.decode()
    assert 'data-status="done"' in page
    assert "not computed" not in page.split('data-rtp="proposed"')[1].split("</td>")[0]


def test_compute_rtp_is_for_the_pit_only(default_paytables, auditor):
    version = default_paytables["bet"].active_version()
    assert (
        signed_in(auditor).post(f"/staff/paytables/versions/{version.pk}/rtp/").status_code == 403
    )
    assert not RtpRun.objects.filter(requested_by=auditor).exists()


def test_the_live_pit_shows_each_joker_round_with_its_stakes_and_countdown(
    joker_table, funded_player, pit
):
    boxes = [joker_draw.BoxRequest(1, D("0.60"), D("0.30"))]
    round_ = joker_draw.open_round(player=funded_player, table=joker_table, boxes=boxes).round
    page = signed_in(pit).get("/staff/live/tables/").content.decode()
    row = page.split(f'data-round="{round_.pk}"')[1].split("</div>")[0]
    assert "staked 0.60 USD, BONUS 0.30 USD" in row
    deadline = re.search(r'class="countdown" data-deadline="([^"]+)"', row)
    assert deadline is not None
    assert deadline[1].startswith(round_.decision_deadline.strftime("%Y-%m-%dT%H:%M:%S"))


def test_the_admins_list_of_changes_is_in_words(joker_table, pit, admin_user):
    page = signed_in(admin_user).get("/admin/pghistory/events/").content.decode()
    assert "Pgh obj model" not in page
    assert "Pgh diff" not in page
    for column in ("When", "What", "Who", "Change (old -&gt; new)", "Why"):
        assert f">{column}<" in page or f">{column}</a>" in page, column
    assert "status: closed → open" in page


def test_the_paytable_history_page_lists_versions(default_paytables, pit):
    bonus = default_paytables["bonus"]
    page = signed_in(pit).get(f"/staff/paytables/{bonus.pk}/history/").content.decode()
    assert f"{bonus.name} v1" in page
    assert ChangeStatus.APPROVED in page


def test_a_tables_history_in_the_admin_is_the_recorded_one(joker_table, admin_user):
    page = signed_in(admin_user).get(f"/admin/games/table/{joker_table.pk}/history/")
    text = page.content.decode()
    assert page.status_code == 200
    assert "doesn’t have a change history" not in text
    assert re.search(r"status: <del>closed</del> → <ins>open</ins>", text)
