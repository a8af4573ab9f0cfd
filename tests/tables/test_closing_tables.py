"""Closing a table with players at it: refused with the list of the seated players, or done as
"close after this hand" (no new hand, the hand in play finishes, every seat is cashed out and
its player reads why); a player at a closed table can always read it and leave with the
chips, a stranger still gets 404; the reason of every opening and closing is kept."""

from __future__ import annotations

from decimal import Decimal

import pghistory.models
import pytest
from django.core.management import call_command

from casino.refusals import Kind
from games.models import Round, Seat, SeatStatus, Table, TableStatus
from games.stud.hand import Hand as StudHand
from games.stud.tasks import STUD as stud
from games.tables import services as table_services
from games.tables.replay import replay_round
from games.tables.services import PlayersSeated
from games.tables.tasks import sweep_overdue_rounds
from payouts.approvals import ChangeRefused
from payouts.models import AccountKind
from tests.fixtures.joker_draw import act, open_round
from tests.fixtures.peer import assert_chips_held, balance, house, running, seat_everyone
from tests.fixtures.stud import play_passively
from tests.fixtures.users import api_client, logged_in, make_user

D = Decimal
CLOSE_REASON = "No dealer until 22:00"


@pytest.fixture
def hand_in_play(players, stud_table, settings):
    seat_everyone(stud, stud_table, players, settings, "STUD_HAND_PAUSE_SECONDS")
    return running(stud_table)


def close(table, by, *, after_this_hand: bool) -> Table:
    return table_services.set_table_status(
        table,
        status=TableStatus.CLOSED,
        by=by,
        reason=CLOSE_REASON,
        cash_out_seated=after_this_hand,
    )


def test_a_close_with_players_seated_is_refused_with_their_list(hand_in_play, stud_table, pit):
    with pytest.raises(PlayersSeated) as refused:
        close(stud_table, pit, after_this_hand=False)
    assert (refused.value.code, refused.value.kind) == ("players_seated", Kind.CONFLICT)
    assert refused.value.seated == ["seat 1: ann", "seat 2: ben", "seat 3: cal"]
    assert "seat 2: ben" in refused.value.errors["status"]
    stud_table.refresh_from_db()
    assert (stud_table.status, stud_table.status_reason) == (TableStatus.OPEN, "test")
    assert Seat.objects.filter(table=stud_table, status=SeatStatus.SEATED).count() == 3


def test_close_after_this_hand_finishes_it_then_cashes_everybody_out(
    players, hand_in_play, stud_table, pit
):
    wallets = {user.username: balance(user) for user in players}
    close(stud_table, pit, after_this_hand=True)
    assert running(stud_table).pk == hand_in_play.pk  # the hand goes on
    assert Seat.objects.filter(table=stud_table, status=SeatStatus.SEATED).count() == 3
    play_passively(stud_table)
    hand_in_play.refresh_from_db()
    assert hand_in_play.status == "settled"
    assert not Round.objects.filter(table=stud_table, status="deciding").exists()  # no new hand
    assert not Seat.objects.filter(table=stud_table).exclude(status=SeatStatus.LEFT).exists()
    finishing = StudHand.from_json(hand_in_play.engine_state).state.finishing_stacks or ()
    assert sorted(balance(user) - wallets[user.username] for user in players) == sorted(
        D(stack) / 100 for stack in finishing
    )
    assert house(AccountKind.TABLE_CHIPS) == 0
    assert house(AccountKind.STAKES_IN_PLAY) == 0
    assert replay_round(hand_in_play).ok
    call_command("ledger_check", verbosity=0)
    sweep_overdue_rounds()  # nothing more happens
    assert not Round.objects.filter(table=stud_table, status="deciding").exists()


def test_a_close_between_hands_cashes_out_at_once(players, stud_table, pit, settings):
    settings.STUD_HAND_PAUSE_SECONDS = 60  # seated, the next hand not dealt yet
    for number, user in enumerate(players[:2], start=1):
        stud.join(player=user, table=stud_table, seat=number, buy_in=D("60.00"))
    close(stud_table, pit, after_this_hand=True)
    assert not Seat.objects.filter(table=stud_table).exclude(status=SeatStatus.LEFT).exists()
    assert [balance(user) for user in players[:2]] == [D("200.00"), D("200.00")]
    call_command("ledger_check", verbosity=0)


def test_a_seated_player_reads_the_closed_table_and_leaves_with_the_chips(
    players, hand_in_play, stud_table, pit
):
    ann = players[0]
    close(stud_table, pit, after_this_hand=True)
    client = api_client(ann)
    table = client.get(f"/api/v1/stud/tables/{stud_table.pk}/")
    assert table.status_code == 200
    assert (table.json()["status"], table.json()["status_reason"]) == ("closed", CLOSE_REASON)
    left = client.post(
        f"/api/v1/stud/tables/{stud_table.pk}/leave/", format="json", HTTP_IDEMPOTENCY_KEY="go"
    )
    assert left.status_code == 200
    play_passively(stud_table)
    assert Seat.objects.get(table=stud_table, player=ann).status == SeatStatus.LEFT
    assert_chips_held(stud_table)
    call_command("ledger_check", verbosity=0)
    # Cashed out, ann still reads why the table closed; its page says so.
    assert client.get(f"/api/v1/stud/tables/{stud_table.pk}/").status_code == 200
    page = logged_in(ann).get(f"/play/stud/{stud_table.pk}/")
    assert page.status_code == 200
    assert CLOSE_REASON in page.content.decode()


def test_a_stranger_still_gets_404_for_a_closed_table(players, hand_in_play, stud_table, pit):
    close(stud_table, pit, after_this_hand=True)
    stranger = api_client(make_user("dan", "player"))
    assert stranger.get(f"/api/v1/stud/tables/{stud_table.pk}/").status_code == 404
    leave = stranger.post(
        f"/api/v1/stud/tables/{stud_table.pk}/leave/", format="json", HTTP_IDEMPOTENCY_KEY="x"
    )
    assert leave.status_code == 404
    assert (
        logged_in(make_user("eve", "player")).get(f"/play/stud/{stud_table.pk}/").status_code == 404
    )
    lobby = api_client(make_user("fay", "player")).get("/api/v1/tables/").json()
    assert stud_table.pk not in [table["id"] for table in lobby]


def test_a_sitting_cannot_be_bought_back_into_a_closed_table(
    players, hand_in_play, stud_table, pit
):
    close(stud_table, pit, after_this_hand=True)
    play_passively(stud_table)
    answer = api_client(players[0]).post(
        f"/api/v1/stud/tables/{stud_table.pk}/seats/",
        {"seat": 1, "buy_in": "60.00"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="again",
    )
    assert answer.status_code == 409
    assert "table" in answer.json()["errors"]


def test_seats_left_at_a_table_closed_without_cashing_out_are_cashed_out_by_the_sweeper(
    players, stud_table, pit, settings
):
    """A table closed by an older release, or by hand in the database, with players seated:
    the sweeper cashes them out (restart-safe, once)."""
    settings.STUD_HAND_PAUSE_SECONDS = 60
    for number, user in enumerate(players[:2], start=1):
        stud.join(player=user, table=stud_table, seat=number, buy_in=D("60.00"))
    Table.objects.filter(pk=stud_table.pk).update(status=TableStatus.CLOSED)
    sweep_overdue_rounds()
    sweep_overdue_rounds()
    assert [balance(user) for user in players[:2]] == [D("200.00"), D("200.00")]
    call_command("ledger_check", verbosity=0)


def test_a_banked_table_closes_with_rounds_in_play_which_finish(funded_player, joker_table, pit):
    """Joker draw: a round in play finishes at a closed table (its player still reads the
    table); no new round opens."""
    client = api_client(funded_player)
    opened = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}])
    assert opened.status_code == 201
    table_services.set_table_status(
        joker_table, status=TableStatus.CLOSED, by=pit, reason=CLOSE_REASON
    )
    assert logged_in(funded_player).get(f"/play/joker-draw/{joker_table.pk}/").status_code == 200
    done = act(client, opened.json()["id"], "fold-1", box=1, action="fold")
    assert done.status_code == 200
    assert done.json()["state"] == "settled"
    again = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}], key="open-2")
    assert again.status_code == 409
    # Its round over, the player no longer sees the closed table.
    assert logged_in(funded_player).get(f"/play/joker-draw/{joker_table.pk}/").status_code == 404
    call_command("ledger_check", verbosity=0)


def test_every_open_and_close_keeps_its_reason_with_who_did_it(stud_table, pit, pit2):
    close(stud_table, pit, after_this_hand=False)
    table_services.set_table_status(
        stud_table, status=TableStatus.OPEN, by=pit2, reason="Back from the break"
    )
    events = pghistory.models.Events.objects.tracks(stud_table).order_by("pgh_created_at")
    changes = [
        (e.pgh_diff["status"][1], e.pgh_diff["status_reason"][1], e.pgh_context["user"])
        for e in events
        if e.pgh_label == "update" and "status" in (e.pgh_diff or {})
    ]
    assert changes[-2:] == [
        ("closed", CLOSE_REASON, pit.pk),
        ("open", "Back from the break", pit2.pk),
    ]
    stud_table.refresh_from_db()
    assert stud_table.status_reason == "Back from the break"


@pytest.mark.parametrize("reason", ["", "   "])
def test_a_change_of_status_needs_a_reason(stud_table, pit, reason):
    with pytest.raises(ChangeRefused) as refused:
        table_services.set_table_status(
            stud_table, status=TableStatus.CLOSED, by=pit, reason=reason
        )
    assert "reason" in refused.value.errors
    stud_table.refresh_from_db()
    assert stud_table.status == TableStatus.OPEN


def test_the_staff_api_closes_a_table_with_players_seated_only_after_this_hand(
    players, hand_in_play, stud_table, pit
):
    """An integrator closing through the staff API reads the refusal's own code and the
    seated players, and can close after this hand as the page does."""
    staff = api_client(pit)
    url = f"/api/v1/staff/tables/{stud_table.pk}/close/"
    refused = staff.post(url, {"reason": CLOSE_REASON}, format="json", HTTP_IDEMPOTENCY_KEY="c1")
    assert refused.status_code == 409
    assert refused.json()["code"] == "players_seated"
    assert "seat 2: ben" in refused.json()["errors"]["status"][0]
    stud_table.refresh_from_db()
    assert stud_table.status == TableStatus.OPEN
    closed = staff.post(
        url,
        {"reason": CLOSE_REASON, "cash_out_seated": True},
        format="json",
        HTTP_IDEMPOTENCY_KEY="c2",
    )
    assert closed.status_code == 200, closed.content
    assert closed.json()["status"] == "closed"
    assert running(stud_table).pk == hand_in_play.pk  # the hand in play goes on
    play_passively(stud_table)
    assert not Seat.objects.filter(table=stud_table).exclude(status=SeatStatus.LEFT).exists()
    call_command("ledger_check", verbosity=0)
