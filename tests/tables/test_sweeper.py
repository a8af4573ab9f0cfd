"""The sweeper catches every table up on its own: one stuck round is rolled back, logged and
shown to the pit, and every other table's overdue decisions and due hands still go ahead
(JD-4, ST-3: a player who does not act in time is acted for; a hand deals itself when due)."""

from __future__ import annotations

import logging
import threading
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import connections
from django.test import Client
from django.utils import timezone

from casino.roles import PLAYER
from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import Round, RoundStatus
from games.peer import services as peer_services
from games.stud.tasks import STUD as stud
from games.tables.tasks import sweep_overdue_rounds
from payouts.services import deposit
from tests.fixtures.tables import make_drawmaha_table, make_stud_table
from tests.fixtures.users import make_user

D = Decimal


def seated_pair(table, names, pit, join):
    users = [make_user(name, PLAYER) for name in names]
    for number, user in enumerate(users, start=1):
        deposit(player=user, currency="USD", amount=D("200.00"), reason="cash", by=pit)
        join(player=user, table=table, seat=number, buy_in=D("100.00"))
    return users


def overdue(table) -> Round:
    round_ = Round.objects.get(table=table, status=RoundStatus.DECIDING)
    Round.objects.filter(pk=round_.pk).update(
        decision_deadline=timezone.now() - timedelta(seconds=1)
    )
    return round_


def kinds(round_: Round) -> list[str]:
    return list(round_.events.order_by("sequence").values_list("kind", flat=True))


@pytest.fixture
def casino_floor(pit, pit2, joker_table, settings):
    """A stud table whose round cannot be folded, a stud table with a player out of time, a
    Drawmaha table with a hand due and a joker draw round out of time."""
    settings.STUD_HAND_PAUSE_SECONDS = 0
    stuck_table = make_stud_table(pit, pit2, name="Stud stuck")
    seated_pair(stuck_table, ("ann", "ben"), pit, stud.join)
    late_table = make_stud_table(pit, pit2, name="Stud late")
    seated_pair(late_table, ("cal", "dee"), pit, stud.join)
    # The players sit during the pause, so the hand waits for a timer: the timer is lost.
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 3600
    due_table = make_drawmaha_table(pit, pit2)
    seated_pair(due_table, ("eve", "fay"), pit, drawmaha.join)
    assert not Round.objects.filter(table=due_table).exists()
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 0
    gus = make_user("gus", PLAYER)
    deposit(player=gus, currency="USD", amount=D("100.00"), reason="cash", by=pit)
    joker_round = joker_draw.open_round(
        player=gus, table=joker_table, boxes=[BoxRequest(box=1, ante=D("0.30"))]
    ).round
    return {
        "stuck": overdue(stuck_table),
        "late": overdue(late_table),
        "due_table": due_table,
        "joker": overdue(joker_table),
        "joker_round": joker_round,
    }


def test_one_stuck_round_does_not_stop_the_other_tables_timers(
    casino_floor, monkeypatch, caplog, pit
):
    stuck = casino_floor["stuck"]
    stuck_history = kinds(stuck)
    fold = peer_services.play

    def unsettleable(peer, round_, *args, **kwargs):
        if round_.pk == stuck.pk:
            raise RuntimeError("the pot cannot be settled")
        return fold(peer, round_, *args, **kwargs)

    monkeypatch.setattr(peer_services, "play", unsettleable)

    with caplog.at_level(logging.ERROR, logger="games.tables.tasks"):
        assert sweep_overdue_rounds() == 1  # the joker draw round

    # The stuck round is as it was: its timed-out event, written before the failure, rolled back.
    assert kinds(stuck) == stuck_history
    stuck.refresh_from_db()
    assert stuck.status == RoundStatus.DECIDING
    failure = next(r for r in caplog.records if r.exc_info)
    assert f"table {stuck.table_id}" in failure.getMessage()
    assert "the pot cannot be settled" in str(failure.exc_info[1])
    # Every other table was caught up.
    assert kinds(casino_floor["late"])[-2:] == ["timed_out", "bring_in"]  # ST-3
    assert Round.objects.filter(
        table=casino_floor["due_table"], status=RoundStatus.DECIDING
    ).exists()
    assert Round.objects.get(pk=casino_floor["joker"].pk).status == RoundStatus.SETTLED
    call_command("ledger_check", verbosity=0)

    # The pit sees which table is stuck, and why, on the live tables screen.
    client = Client()
    client.force_login(pit)
    page = client.get("/staff/").content.decode()
    assert page.count("Timers stuck") == 1
    assert "the pot cannot be settled" in page

    # Once the round can be settled again, the next sweep folds it and the alert goes.
    monkeypatch.setattr(peer_services, "play", fold)
    sweep_overdue_rounds()
    assert kinds(stuck)[-2:] == ["timed_out", "bring_in"]
    assert "Timers stuck" not in client.get("/staff/").content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_table_locked_by_a_hung_request_does_not_stop_the_other_tables_timers(casino_floor):
    """A request that hangs while holding a table's lock: the sweep gives that table up after a
    short wait instead of waiting with it, and catches up every other table."""
    stuck = casino_floor["stuck"]
    locked, swept = threading.Event(), threading.Event()
    held_to_the_end = []

    def hung_request():
        with connections["default"].cursor() as cursor:
            cursor.execute("BEGIN")
            cursor.execute("SELECT 1 FROM games_table WHERE id = %s FOR UPDATE", [stuck.table_id])
            locked.set()
            held_to_the_end.append(swept.wait(timeout=120))
            cursor.execute("ROLLBACK")
        connections.close_all()

    locker = threading.Thread(target=hung_request)
    locker.start()
    assert locked.wait(timeout=30)
    try:
        assert sweep_overdue_rounds() == 1
    finally:
        swept.set()
        locker.join()
    assert held_to_the_end == [True]  # the sweep ended while the table was still locked
    assert Round.objects.get(pk=stuck.pk).status == RoundStatus.DECIDING
    assert kinds(casino_floor["late"])[-2:] == ["timed_out", "bring_in"]  # ST-3
    assert Round.objects.get(pk=casino_floor["joker"].pk).status == RoundStatus.SETTLED
