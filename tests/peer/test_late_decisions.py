"""A decision that comes after its time at a peer table (ST-1, DM-1): the request first takes
the overdue decision by default, committed on its own, then refuses the late one; refusing it
undoes neither the default decision nor what followed it, and stores nothing under the key."""

from __future__ import annotations

from decimal import Decimal

from django.utils import timezone

from casino.models import IdempotentRequest
from casino.roles import PLAYER
from games.drawmaha.tasks import DRAWMAHA
from games.models import Round, RoundStatus, Seat
from games.stud.tasks import STUD
from payouts.services import deposit
from tests.fixtures.users import api_client, make_user

D = Decimal


def seated_pair(game, table, pit) -> None:
    """ann and ben sit down; the first hand is dealt at once (the table's pause is 0)."""
    for number, name in enumerate(("ann", "ben"), start=1):
        user = make_user(name, PLAYER)
        deposit(player=user, currency="USD", amount=D("200.00"), reason="cash", by=pit)
        game.join(player=user, table=table, seat=number, buy_in=D("100.00"))


def late_player(game, table) -> tuple[Round, Seat]:
    """The running hand, made overdue, and the seat whose decision it waits for."""
    round_ = Round.objects.get(table=table, status=RoundStatus.DECIDING)
    hand = game.load_hand(round_.engine_state)
    seat = Seat.objects.get(table=table, number=hand.seats[hand.state.to_act])
    Round.objects.filter(pk=round_.pk).update(decision_deadline=timezone.now())
    return round_, seat


def kinds(round_: Round) -> list[str]:
    return list(round_.events.order_by("sequence").values_list("kind", flat=True))


def test_a_late_stud_decision_is_refused_after_the_forced_bring_in(pit, stud_table):
    """ST-3: the overdue bring-in is brought in by default; the late player's own bring-in is
    then out of turn (400) and the default bring-in stays."""
    seated_pair(STUD, stud_table, pit)
    round_, seat = late_player(STUD, stud_table)
    response = api_client(seat.player).post(
        f"/api/v1/stud/tables/{stud_table.pk}/actions/",
        {"action": "bring_in"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="late-bring-in",
    )
    assert response.status_code == 400
    assert f"not seat {seat.number}" in str(response.json())
    assert kinds(round_)[-2:] == ["timed_out", "bring_in"]
    assert not IdempotentRequest.objects.filter(key="late-bring-in").exists()


def test_a_late_drawmaha_call_finds_the_hand_folded_by_default(pit, drawmaha_table, settings):
    """DM-1: heads-up the button acts first facing the big blind; out of time it folds, which
    ends the hand; the late call then finds no hand in play (409)."""
    seated_pair(DRAWMAHA, drawmaha_table, pit)
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 3600  # no next hand for the late call to land in
    round_, seat = late_player(DRAWMAHA, drawmaha_table)
    response = api_client(seat.player).post(
        f"/api/v1/drawmaha/tables/{drawmaha_table.pk}/actions/",
        {"action": "call"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="late-call",
    )
    assert response.status_code == 409
    assert "DM-2" in str(response.json())
    round_.refresh_from_db()
    assert round_.status == RoundStatus.SETTLED
    assert "timed_out" in kinds(round_)
    assert (
        round_.events.get(kind="fold").data["seat"]
        == round_.events.get(kind="timed_out").data["seat"]
    )
    assert not IdempotentRequest.objects.filter(key="late-call").exists()


def test_leaving_after_an_overdue_decision_keeps_the_decision(pit, stud_table):
    """Leaving takes the overdue decision first too: the stud bring-in is brought in by
    default before the other player leaves, so the leaver's hand is dead at their turn."""
    seated_pair(STUD, stud_table, pit)
    round_, seat = late_player(STUD, stud_table)
    other = Seat.objects.filter(table=stud_table).exclude(pk=seat.pk).get()
    response = api_client(other.player).post(
        f"/api/v1/stud/tables/{stud_table.pk}/leave/",
        {},
        format="json",
        HTTP_IDEMPOTENCY_KEY="leave-after-late",
    )
    assert response.status_code == 200
    history = kinds(round_)
    assert history.count("timed_out") == 1
    assert history.index("timed_out") < history.index("left_table")
