"""Sitting out at the peer tables: a player out of time on the table's number of hands in a row
is sat out (dealt no hand, charged no ante, bring-in or blind) until "I'm back", and cashed out
after the table's time sat out. RULES.md is silent on sitting out; the house's practice: a
player sat out is not counted for anything a hand decides by its players (ST-9's eight
players, DM-1's blinds and button, DM-5's draw limit) and owes no missed blinds on coming back.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from decimal import Decimal
from unittest import mock

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from casino.refusals import Kind
from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.engine import drawmaha as drawmaha_engine
from games.engine import stud as stud_engine
from games.models import Round, RoundEvent, Seat, SeatStatus
from games.peer.hands import HouseEvent
from games.stud.hand import Hand as StudHand
from games.stud.tasks import STUD as stud
from games.tables import services as table_services
from games.tables.replay import replay_round
from games.tables.rounds import RoundRefused
from games.tables.table_game import game_of
from games.tables.tasks import sweep_overdue_rounds
from payouts.approvals import ChangeRefused
from payouts.models import AccountKind, LedgerEntry
from tests.fixtures import drawmaha as drawmaha_play
from tests.fixtures.peer import assert_chips_held, balance, running, seat_everyone
from tests.fixtures.tables import make_stud_table
from tests.fixtures.users import api_client, make_user

D = Decimal
STUD_TABLES = "/api/v1/stud/tables/"
PASSIVE = ("bring_in", "check", "call", "show", "exchange", "take")


def settled(table) -> int:
    return Round.objects.filter(table=table, status="settled").count()


def run_out_of_time(table) -> None:
    """The player to act lets the action time run out; the sweeper takes the decision."""
    Round.objects.filter(pk=running(table).pk).update(
        decision_deadline=timezone.now() - timedelta(seconds=1)
    )
    sweep_overdue_rounds()


def play_hand(service, engine, table, *, absent=(), present=()) -> Round:
    """Play one hand to its end: the ``absent`` players' turns run out, and everybody else
    brings in, checks, calls, stands pat, takes the twist or shows. ``present`` players act
    in time in every hand they are dealt into."""
    over = settled(table) + 1
    hand_id = running(table).pk
    while settled(table) < over:
        hand = service.load_hand(running(table).engine_state)
        seat = hand.state.to_act
        seating = Seat.objects.get(pk=hand.seat_ids[seat])
        if seating.player in absent:
            run_out_of_time(table)
            continue
        options = {getattr(o, "kind", None) or o.choice for o in engine.legal_actions(hand.state)}
        kind = next(k for k in PASSIVE if k in options)
        service.act(player=seating.player, table=table, action=kind)
    return Round.objects.get(pk=hand_id)


def dealt_players(round_: Round) -> list[str]:
    return round_.events.get(kind="hand_opened").data["players"]


def seat_of(table, user) -> Seat:
    return Seat.objects.exclude(status=SeatStatus.LEFT).get(table=table, player=user)


def forced_bets_of(round_: Round) -> Decimal:
    """What the hand's antes and blinds put into the pot, by the ledger."""
    forced = round_.events.filter(kind__in=("ante", "small_blind", "big_blind"))
    references = [f"round:{round_.pk}:event:{sequence}" for sequence in
                  forced.values_list("sequence", flat=True)]  # fmt: skip
    entries = LedgerEntry.objects.filter(
        transaction__reference__in=references, account__kind=AccountKind.STAKES_IN_PLAY
    )
    return sum((entry.amount for entry in entries), D(0))


@pytest.fixture
def three_at_stud(players, stud_table, settings):
    seat_everyone(stud, stud_table, players, settings, "STUD_HAND_PAUSE_SECONDS")
    return stud_table


def test_two_hands_timed_out_in_a_row_sit_a_player_out_and_no_ante_is_taken(players, three_at_stud):
    """The table's default (2 hands): cal runs out of time in two hands; from the third on
    cal is dealt no cards and pays no ante; the ledger's antes are the other two's only."""
    cal = players[2]
    table = three_at_stud
    first = play_hand(stud, stud_engine, table, absent=[cal])
    assert seat_of(table, cal).timeouts_in_a_row == 1
    assert seat_of(table, cal).sat_out_at is None
    second = play_hand(stud, stud_engine, table, absent=[cal])
    sitting = seat_of(table, cal)
    assert sitting.sat_out_at is not None
    assert sitting.cash_out_at == sitting.sat_out_at + timedelta(minutes=15)
    assert list(second.events.filter(kind=HouseEvent.SAT_OUT).values_list("data", flat=True)) == [
        {"seat": 2, "timeouts": 2, "cash_out_at": sitting.cash_out_at.isoformat()}
    ]  # engine seat 2 of the hand: cal, third from the dealer's left
    assert not first.events.filter(kind=HouseEvent.SAT_OUT).exists()
    # The hand history's file and recall read past it (the services' own event).
    assert api_client(cal).get(f"/api/v1/stud/hands/{second.pk}/phh/").status_code == 200
    recalled = api_client(cal).get(f"/api/v1/stud/hands/{second.pk}/").json()
    assert HouseEvent.SAT_OUT in [event["kind"] for event in recalled["events"]]
    chips, wallet = sitting.chips, balance(cal)
    for _ in range(2):
        following = running(table)
        assert dealt_players(following) == ["ann", "ben"]
        assert forced_bets_of(following) == D("1.00")  # two antes of 0.50, none of cal's
        assert not following.events.filter(kind="ante", data__seat=2).exists()
        play_hand(stud, stud_engine, table)
        assert seat_of(table, cal).chips == chips
        assert balance(cal) == wallet
    assert_chips_held(table)
    for round_ in Round.objects.filter(table=table, status="settled"):
        assert replay_round(round_).ok, replay_round(round_).mismatches
    call_command("ledger_check", verbosity=0)


def test_acting_in_time_starts_the_count_again(players, three_at_stud):
    cal = players[2]
    table = three_at_stud
    play_hand(stud, stud_engine, table, absent=[cal])
    play_hand(stud, stud_engine, table, present=[cal])
    assert seat_of(table, cal).timeouts_in_a_row == 0
    play_hand(stud, stud_engine, table, absent=[cal])
    sitting = seat_of(table, cal)
    assert (sitting.timeouts_in_a_row, sitting.sat_out_at) == (1, None)
    assert "cal" in dealt_players(running(table))


def test_im_back_deals_the_player_in_from_the_next_hand_never_mid_hand(players, three_at_stud):
    cal = players[2]
    table = three_at_stud
    play_hand(stud, stud_engine, table, absent=[cal])
    play_hand(stud, stud_engine, table, absent=[cal])
    in_play = running(table)
    assert dealt_players(in_play) == ["ann", "ben"]
    client = api_client(cal)
    answers = [
        client.post(f"{STUD_TABLES}{table.pk}/back/", format="json", HTTP_IDEMPOTENCY_KEY=key)
        for key in ("back-1", "back-1", "back-2")  # a retry, then pressing it again
    ]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert answers[0].json() == answers[1].json()
    assert answers[0].json()["your_sitting"]["sat_out_at"] is None
    assert running(table).pk == in_play.pk  # the hand being played goes on without cal
    in_hand = StudHand.from_json(running(table).engine_state).players
    assert list(in_hand) == in_play.engine_state["players"]
    play_hand(stud, stud_engine, table)
    following = running(table)
    assert dealt_players(following) == ["ann", "ben", "cal"]
    assert forced_bets_of(following) == D("1.50")
    assert seat_of(table, cal).timeouts_in_a_row == 0


def test_a_player_sat_out_too_long_is_cashed_out_by_the_sweeper(players, three_at_stud):
    """After the table's time sat out (moved on by the clock) the sweeper cashes the seat out
    through the ledger, once; a second sweep changes nothing."""
    cal = players[2]
    table = three_at_stud
    play_hand(stud, stud_engine, table, absent=[cal])
    play_hand(stud, stud_engine, table, absent=[cal])
    sitting = seat_of(table, cal)
    chips, wallet = sitting.chips, balance(cal)
    sweep_overdue_rounds()
    assert Seat.objects.get(pk=sitting.pk).status == SeatStatus.SEATED  # not yet
    later = timezone.now() + timedelta(minutes=15, seconds=1)
    with mock.patch("django.utils.timezone.now", return_value=later):
        sweep_overdue_rounds()
        sweep_overdue_rounds()
    sitting.refresh_from_db()
    assert (sitting.status, sitting.chips) == (SeatStatus.LEFT, D("0.00"))
    assert balance(cal) == wallet + chips
    cash_out = LedgerEntry.objects.filter(transaction__reference=f"seat:{sitting.pk}:cash-out")
    assert cash_out.count() == 2  # one transaction, wallet and table chips
    assert_chips_held(table)
    call_command("ledger_check", verbosity=0)


def test_the_time_sat_out_is_a_table_setting_under_maker_checker(players, pit, pit2, settings):
    settings.STUD_HAND_PAUSE_SECONDS = 0
    table = make_stud_table(pit, pit2, "Stud quick", timeouts_to_sit_out=1, sit_out_minutes=3)
    ann, ben = players[:2]
    for number, user in enumerate((ann, ben), start=1):
        stud.join(player=user, table=table, seat=number, buy_in=D("60.00"))
    play_hand(stud, stud_engine, table, absent=[ben])
    sitting = seat_of(table, ben)
    assert sitting.cash_out_at == sitting.sat_out_at + timedelta(minutes=3)
    assert not Round.objects.filter(table=table, status="deciding").exists()  # ann alone
    limits = table.active_limits()
    in_force = {name: getattr(limits, name) for name in game_of(table.game).limit_fields}
    with pytest.raises(ChangeRefused) as refused:
        table_services.propose_limits(
            table=table,
            values={**in_force, "timeouts_to_sit_out": 0, "sit_out_minutes": 0},
            reason="never sit anyone out",
            by=pit,
        )
    assert set(refused.value.errors) >= {"timeouts_to_sit_out", "sit_out_minutes"}


@pytest.mark.django_db(transaction=True)
def test_a_sat_out_player_is_not_charged_by_concurrent_touches(players, three_at_stud):
    """The catch-ups of the table (the sweeper, the timer, sent more than once) racing to deal
    the next hand after the one that sat cal out: one hand is dealt, without cal."""
    cal = players[2]
    table = three_at_stud
    play_hand(stud, stud_engine, table, absent=[cal])
    # The second hand: cal's last turn runs out while the next hand is being raced for.
    with mock.patch("games.stud.services.Stud.pause_seconds", return_value=1):
        play_hand(stud, stud_engine, table, absent=[cal])
    assert not Round.objects.filter(table=table, status="deciding").exists()  # the pause

    def touch(_):
        try:
            stud.catch_up(table.pk)
        finally:
            connection.close()

    later = timezone.now() + timedelta(seconds=2)
    with mock.patch("django.utils.timezone.now", return_value=later), ThreadPoolExecutor(4) as pool:
        list(pool.map(touch, range(8)))
    hands = Round.objects.filter(table=table, status="deciding")
    assert hands.count() == 1
    assert dealt_players(hands.get()) == ["ann", "ben"]
    assert not RoundEvent.objects.filter(round=hands.get(), kind="ante", data__seat=2).exists()


def test_only_a_seated_player_comes_back_and_only_themselves(players, three_at_stud, pit):
    ben, cal = players[1:]
    table = three_at_stud
    play_hand(stud, stud_engine, table, absent=[cal])
    play_hand(stud, stud_engine, table, absent=[cal])
    # ben pressing "I'm back" brings back ben (who never left), not cal.
    answer = api_client(ben).post(
        f"{STUD_TABLES}{table.pk}/back/", format="json", HTTP_IDEMPOTENCY_KEY="ben-back"
    )
    assert answer.status_code == 200
    assert seat_of(table, cal).sat_out_at is not None
    stranger = make_user("dan", "player")
    answer = api_client(stranger).post(
        f"{STUD_TABLES}{table.pk}/back/", format="json", HTTP_IDEMPOTENCY_KEY="dan-back"
    )
    assert answer.status_code == 409
    assert "table" in answer.json()["errors"]
    staff = api_client(pit).post(
        f"{STUD_TABLES}{table.pk}/back/", format="json", HTTP_IDEMPOTENCY_KEY="pit-back"
    )
    assert staff.status_code == 403
    other_game = api_client(cal).post(
        f"/api/v1/drawmaha/tables/{table.pk}/back/", format="json", HTTP_IDEMPOTENCY_KEY="x"
    )
    assert other_game.status_code == 404
    assert seat_of(table, cal).sat_out_at is not None
    with pytest.raises(RoundRefused):
        drawmaha.come_back(player=cal, table=table)  # another game's service refuses too


def test_drawmaha_deals_blinds_and_the_button_among_the_players_dealt_in(
    players, drawmaha_table, settings
):
    """DM-1: a player sat out posts no blind and the button moves among those dealt in."""
    cal = players[2]
    table = drawmaha_table
    seat_everyone(drawmaha, table, players, settings, "DRAWMAHA_HAND_PAUSE_SECONDS")
    play_hand(drawmaha, drawmaha_engine, table, absent=[cal])
    play_hand(drawmaha, drawmaha_engine, table, absent=[cal])
    assert seat_of(table, cal).sat_out_at is not None
    chips = seat_of(table, cal).chips
    buttons = []
    for _ in range(2):
        hand = running(table)
        assert dealt_players(hand) == ["ann", "ben"]
        assert forced_bets_of(hand) == D("3.00")  # one small and one big blind
        button = hand.events.get(kind="hand_opened").data["button"]
        buttons.append(drawmaha_play.hand_of(table).seats[button])
        play_hand(drawmaha, drawmaha_engine, table)
    assert sorted(buttons) == [1, 2]
    assert seat_of(table, cal).chips == chips
    assert_chips_held(table)
    call_command("ledger_check", verbosity=0)


def test_back_after_the_time_sat_out_is_refused_and_the_sweeper_cashes_out(players, three_at_stud):
    """The request is too late: "I'm back" is refused and changes nothing (the cash-out that
    is due is the sweeper's, not the request's); the sweeper then puts the chips in the
    wallet."""
    cal = players[2]
    table = three_at_stud
    play_hand(stud, stud_engine, table, absent=[cal])
    play_hand(stud, stud_engine, table, absent=[cal])
    sitting = seat_of(table, cal)
    due_at, chips, wallet = sitting.cash_out_at, sitting.chips, balance(cal)
    later = timezone.now() + timedelta(minutes=16)
    with mock.patch("django.utils.timezone.now", return_value=later):
        answer = api_client(cal).post(
            f"{STUD_TABLES}{table.pk}/back/", format="json", HTTP_IDEMPOTENCY_KEY="late"
        )
        assert answer.status_code == 409
        sitting.refresh_from_db()
        assert (sitting.cash_out_at, sitting.status) == (due_at, SeatStatus.SEATED)
        sweep_overdue_rounds()
    sitting.refresh_from_db()
    assert sitting.status == SeatStatus.LEFT
    assert balance(cal) == wallet + chips


def test_back_in_the_moment_after_the_time_sat_out_never_cancels_the_cash_out(
    players, three_at_stud
):
    """The time sat out ran out just before "I'm back" locked the table: the service itself
    refuses, and the cash-out still comes."""
    cal = players[2]
    table = three_at_stud
    play_hand(stud, stud_engine, table, absent=[cal])
    play_hand(stud, stud_engine, table, absent=[cal])
    sitting = seat_of(table, cal)
    due_at, chips, wallet = sitting.cash_out_at, sitting.chips, balance(cal)
    assert due_at is not None
    later = due_at + timedelta(seconds=1)
    with mock.patch("django.utils.timezone.now", return_value=later):
        with pytest.raises(RoundRefused) as refused:
            stud.come_back(player=cal, table=table)
        assert refused.value.kind == Kind.CONFLICT
        sitting.refresh_from_db()
        assert (sitting.cash_out_at, sitting.status) == (due_at, SeatStatus.SEATED)
        sweep_overdue_rounds()
    sitting.refresh_from_db()
    assert sitting.status == SeatStatus.LEFT
    assert balance(cal) == wallet + chips
