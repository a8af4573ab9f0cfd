"""A time-out or self-exclusion at the peer tables: the seat is dealt no new hand, the hand in
play is finished, and the seat is cashed out through the ledger after it (the sweeper does it
too, so a restart loses nothing; once). Buy-ins and rebuys are refused. A player whose reality
check is due, or whose session time limit is reached, keeps the seat but is not dealt in."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from casino.roles import PLAYER
from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.models import Round, Seat, SeatStatus
from games.stud.tasks import STUD as stud
from games.tables.tasks import sweep_overdue_rounds
from payouts.models import LedgerEntry
from payouts.protection import conduct, limits
from payouts.protection.models import ExclusionKind, LimitKind, PlaySession
from tests.fixtures import drawmaha as drawmaha_play
from tests.fixtures import stud as stud_play
from tests.fixtures.ledger import assert_ledger_passes
from tests.fixtures.peer import assert_chips_held, balance, running, seat_everyone
from tests.fixtures.users import api_client, make_user

D = Decimal


def time_out(player):
    conduct.take_exclusion(
        player=player, kind=ExclusionKind.TIME_OUT, until=timezone.now() + timedelta(days=2)
    )


def dealt(round_: Round) -> list[str]:
    return round_.events.get(kind="hand_opened").data["players"]


def seat_of(table, user) -> Seat:
    return Seat.objects.filter(table=table, player=user).latest("pk")


@pytest.mark.parametrize(
    ("service", "play", "pause"),
    [
        (stud, stud_play.play_passively, "STUD_HAND_PAUSE_SECONDS"),
        (drawmaha, drawmaha_play.play_passively, "DRAWMAHA_HAND_PAUSE_SECONDS"),
    ],
    ids=["stud", "drawmaha"],
)
def test_an_excluded_seat_finishes_the_hand_and_is_cashed_out_after_it(
    players, stud_table, drawmaha_table, settings, service, play, pause
):
    table = stud_table if service is stud else drawmaha_table
    seat_everyone(service, table, players, settings, pause)
    cal = players[2]
    in_play = running(table)
    assert "cal" in dealt(in_play)
    time_out(cal)
    sweep_overdue_rounds()  # the hand in play is not cut short: the seat holds live cards
    assert seat_of(table, cal).status == SeatStatus.SEATED
    play(table)
    sitting = seat_of(table, cal)
    assert (sitting.status, sitting.chips) == (SeatStatus.LEFT, D("0.00"))
    cash_out = LedgerEntry.objects.filter(transaction__reference=f"seat:{sitting.pk}:cash-out")
    assert cash_out.count() == 2
    assert balance(cal) == D("200.00") - D("60.00") + cash_out.get(amount__gt=0).amount
    following = running(table)
    assert following.pk != in_play.pk
    assert dealt(following) == ["ann", "ben"]
    sweep_overdue_rounds()  # once: nothing more to cash out
    assert cash_out.count() == 2
    assert_chips_held(table)
    assert_ledger_passes()


def test_the_sweeper_cashes_out_an_excluded_seat_between_hands(players, stud_table):
    ann = players[0]
    stud.join(player=ann, table=stud_table, seat=1, buy_in=D("60.00"))  # alone: no hand
    # The buy-in is a stake, and the chips at the table are still the player's.
    assert conduct.current_session(ann).net_result == {"USD": D("0.00")}
    time_out(ann)
    sweep_overdue_rounds()
    assert seat_of(stud_table, ann).status == SeatStatus.LEFT
    assert balance(ann) == D("200.00")
    assert_ledger_passes()


def test_buy_in_and_rebuy_are_refused_while_excluded(players, stud_table, settings):
    ann, ben, cal = players
    seat_everyone(stud, stud_table, [ann, ben], settings, "STUD_HAND_PAUSE_SECONDS")
    stud.join(player=cal, table=stud_table, seat=3, buy_in=D("50.00"))  # waits for the next
    time_out(cal)
    client = api_client(cal)
    rebuy = client.post(
        f"/api/v1/stud/tables/{stud_table.pk}/rebuy/",
        {"amount": "10.00"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="rebuy-1",
    )
    assert (rebuy.status_code, rebuy.json()["code"]) == (403, "time_out")
    other = make_user("dan", PLAYER)
    time_out(other)
    sat = api_client(other).post(
        f"/api/v1/stud/tables/{stud_table.pk}/seats/",
        {"seat": 4, "buy_in": "50.00"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="seat-1",
    )
    assert (sat.status_code, sat.json()["code"]) == (403, "time_out")
    assert not Seat.objects.filter(player=other).exists()
    stud_play.play_passively(stud_table)
    assert seat_of(stud_table, cal).status == SeatStatus.LEFT
    assert balance(cal) == D("200.00")
    assert_ledger_passes()


def test_a_reality_check_due_keeps_the_seat_out_of_the_deal_until_acknowledged(
    players, stud_table, settings
):
    ann, ben, cal = players
    seat_everyone(stud, stud_table, [ann, ben], settings, "STUD_HAND_PAUSE_SECONDS")
    stud.join(player=cal, table=stud_table, seat=3, buy_in=D("60.00"))  # waits for the next
    PlaySession.objects.filter(player=cal).update(reality_check_due_at=timezone.now())
    stud_play.play_passively(stud_table)
    assert dealt(running(stud_table)) == ["ann", "ben"]
    assert seat_of(stud_table, cal).status == SeatStatus.SEATED  # the seat waits
    conduct.acknowledge_reality_check(player=cal)
    stud_play.play_passively(stud_table)
    assert dealt(running(stud_table)) == ["ann", "ben", "cal"]
    assert_ledger_passes()


def test_the_session_time_limit_keeps_the_seat_out_of_the_deal(players, stud_table, settings):
    ann, ben, cal = players
    limits.set_limit(player=cal, kind=LimitKind.SESSION_TIME, currency="", value=D(30))
    seat_everyone(stud, stud_table, [ann, ben], settings, "STUD_HAND_PAUSE_SECONDS")
    stud.join(player=cal, table=stud_table, seat=3, buy_in=D("60.00"))
    PlaySession.objects.filter(player=cal).update(started_at=timezone.now() - timedelta(minutes=30))
    stud_play.play_passively(stud_table)
    assert dealt(running(stud_table)) == ["ann", "ben"]
    assert seat_of(stud_table, cal).status == SeatStatus.SEATED
