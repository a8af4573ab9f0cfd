"""Decisions out of time at a peer table (ST-1, DM-1). The timer owns what is overdue: a look at
the table changes nothing and shows the decision ``overdue``; a decision after the deadline is
refused (409) under the table's lock and changes nothing; the next player's turn has not come
until the timer has decided for the late one; then the timer decides and the hand goes on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from casino.models import IdempotentRequest
from casino.refusals import Kind
from games.drawmaha.tasks import DRAWMAHA, catch_up_drawmaha_table
from games.engine import drawmaha as drawmaha_engine
from games.engine import stud as stud_engine
from games.models import Round, RoundEvent, RoundStatus, Seat
from games.stud.tasks import STUD, catch_up_stud_table
from games.tables.rounds import RoundRefused
from games.tables.tasks import sweep_overdue_rounds
from payouts.models import LedgerEntry
from tests.fixtures.peer import running, seat_everyone
from tests.fixtures.users import api_client


@dataclass(frozen=True)
class PeerCase:
    service: Any
    engine: Any
    timer: Any  # the game's timer task
    api: str
    table: str  # the fixture
    pause: str  # the setting of the pause between hands
    rule: str  # who may act at the table: the late decision's code


STUD_CASE = PeerCase(
    STUD, stud_engine, catch_up_stud_table, "stud", "stud_table", "STUD_HAND_PAUSE_SECONDS", "ST-1"
)
DRAWMAHA_CASE = PeerCase(
    DRAWMAHA,
    drawmaha_engine,
    catch_up_drawmaha_table,
    "drawmaha",
    "drawmaha_table",
    "DRAWMAHA_HAND_PAUSE_SECONDS",
    "DM-1",
)
GAMES = pytest.mark.parametrize("case", [STUD_CASE, DRAWMAHA_CASE], ids=["stud", "drawmaha"])
PASSIVE = ("bring_in", "check", "call", "show", "exchange", "take")


@pytest.fixture
def overdue_table(request, case: PeerCase, players, settings):
    """ann, ben and cal seated and dealt a hand, whose player to act has let the time run out."""
    table = request.getfixturevalue(case.table)
    seat_everyone(case.service, table, players, settings, case.pause)
    Round.objects.filter(pk=running(table).pk).update(decision_deadline=timezone.now())
    return table


def late_seat(case: PeerCase, table) -> Seat:
    hand = case.service.load_hand(running(table).engine_state)
    return Seat.objects.get(pk=hand.seat_ids[hand.state.to_act])


def next_seat(case: PeerCase, table) -> Seat:
    """The player whose turn comes once the timer has decided for the late one."""
    hand = case.service.load_hand(running(table).engine_state)
    late = hand.state.to_act
    after, _ = case.service.apply(hand.state, case.service.default_decision(hand.state, late))
    return Seat.objects.get(pk=hand.seat_ids[after.to_act])


def passive_action(case: PeerCase, table) -> str:
    state = case.service.load_hand(running(table).engine_state).state
    options = {getattr(o, "kind", None) or o.choice for o in case.engine.legal_actions(state)}
    return next(kind for kind in PASSIVE if kind in options)


def table_rows(table) -> tuple[list[Any], ...]:
    """Every row a catch-up could write at the table: its hands, their histories, its seats,
    the ledger and the stored answers to idempotent requests."""
    return (
        list(
            Round.objects.filter(table=table)
            .order_by("pk")
            .values_list("pk", "status", "engine_state", "decision_deadline", "history_length")
        ),
        list(RoundEvent.objects.filter(round__table=table).values_list("pk", flat=True)),
        list(
            Seat.objects.filter(table=table)
            .order_by("pk")
            .values_list("pk", "status", "chips", "timeouts_in_a_row", "sat_out_at")
        ),
        list(LedgerEntry.objects.values_list("pk", flat=True)),
        list(IdempotentRequest.objects.values_list("pk", flat=True)),
    )


def writes(queries: list[dict[str, str | None]]) -> list[str | None]:
    """The statements among ``queries`` that write or lock rows to write them; one whose text
    was not recorded (the ledger's prepared statements) counts as a write."""
    return [
        query["sql"]
        for query in queries
        if query["sql"] is None
        or query["sql"].lstrip().split(" ", 1)[0].upper() in ("INSERT", "UPDATE", "DELETE")
        or " FOR UPDATE" in query["sql"].upper()
        or " FOR NO KEY UPDATE" in query["sql"].upper()
    ]


def kinds(round_: Round) -> list[str]:
    return list(round_.events.order_by("sequence").values_list("kind", flat=True))


@GAMES
def test_a_look_at_an_overdue_table_writes_nothing_and_shows_the_decision_overdue(
    case, overdue_table
):
    """Neither the late player's look nor another's folds, deals or posts anything: the
    table shows the decision overdue, with no action offered to the late player."""
    table = overdue_table
    late, other = late_seat(case, table), next_seat(case, table)
    before = table_rows(table)
    for seat in (late, other):
        with CaptureQueriesContext(connection) as queries:
            view = api_client(seat.player).get(f"/api/v1/{case.api}/tables/{table.pk}/")
        assert view.status_code == 200
        assert writes(queries.captured_queries) == []
        hand = view.json()["hand"]
        assert (hand["to_act"], hand["overdue"], hand["legal_actions"]) == (late.number, True, [])
    assert table_rows(table) == before


@GAMES
def test_a_late_decision_is_refused_and_the_timer_then_decides(case, overdue_table):
    """The late player's own decision is refused with the table's rule of who may act (409)
    and changes nothing, nor is its answer stored under the key; the timer then takes the
    default decision and the hand goes on to the next player, in time."""
    table = overdue_table
    late, following = late_seat(case, table), next_seat(case, table)
    round_ = running(table)
    before = table_rows(table)
    response = api_client(late.player).post(
        f"/api/v1/{case.api}/tables/{table.pk}/actions/",
        {"action": passive_action(case, table)},
        format="json",
        HTTP_IDEMPOTENCY_KEY="late",
    )
    assert response.status_code == 409
    assert response.json()["code"] == case.rule
    assert "action" in response.json()["errors"]
    with pytest.raises(RoundRefused) as refused:  # the service refuses it under the lock too
        case.service.act(player=late.player, table=table, action=passive_action(case, table))
    assert (refused.value.kind, refused.value.rule) == (Kind.CONFLICT, case.rule)
    assert table_rows(table) == before

    case.timer(table.pk)
    round_.refresh_from_db()
    assert kinds(round_)[len(before[1])] == "timed_out"
    assert round_.status == RoundStatus.DECIDING
    assert round_.decision_deadline > timezone.now()
    assert late_seat(case, table) == following
    late.refresh_from_db()
    assert late.timeouts_in_a_row == 1
    view = api_client(following.player).get(f"/api/v1/{case.api}/tables/{table.pk}/").json()
    assert view["hand"]["overdue"] is False
    assert view["hand"]["legal_actions"]


@GAMES
def test_the_next_player_waits_for_the_timer_to_decide_for_the_late_one(case, overdue_table):
    """While the late player's decision is overdue it is still their turn: the next player's
    decision is out of turn and changes nothing; once the timer has decided, it is theirs."""
    table = overdue_table
    following = next_seat(case, table)
    before = table_rows(table)
    url = f"/api/v1/{case.api}/tables/{table.pk}/actions/"
    early = api_client(following.player).post(
        url, {"action": "fold"}, format="json", HTTP_IDEMPOTENCY_KEY="early"
    )
    assert early.status_code == 400
    assert "seat" in early.json()["errors"]
    assert table_rows(table) == before

    sweep_overdue_rounds()  # the timer's back-up decides the same way
    assert late_seat(case, table) == following
    in_turn = api_client(following.player).post(
        url, {"action": passive_action(case, table)}, format="json", HTTP_IDEMPOTENCY_KEY="now"
    )
    assert in_turn.status_code == 200


def test_leaving_while_another_is_overdue_leaves_their_decision_to_the_timer(
    players, stud_table, settings
):
    """Leaving is no decision out of time: the leaver's hand is dead, and the overdue bring-in
    is the timer's, brought in by default before the leaver's turn comes and folds it."""
    seat_everyone(STUD, stud_table, players[:2], settings, "STUD_HAND_PAUSE_SECONDS")
    round_ = running(stud_table)
    Round.objects.filter(pk=round_.pk).update(decision_deadline=timezone.now())
    late = late_seat(STUD_CASE, stud_table)
    other = Seat.objects.filter(table=stud_table).exclude(pk=late.pk).get()
    response = api_client(other.player).post(
        f"/api/v1/stud/tables/{stud_table.pk}/leave/",
        {},
        format="json",
        HTTP_IDEMPOTENCY_KEY="leave-after-late",
    )
    assert response.status_code == 200
    assert "timed_out" not in kinds(round_)
    catch_up_stud_table(stud_table.pk)
    history = kinds(round_)
    assert history.count("timed_out") == 1
    assert history.index("timed_out") < history.index("left_table")
