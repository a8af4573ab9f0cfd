"""Play sessions and reality checks (UKGC RTS 13): a session runs from the first stake after a
break of PLAY_SESSION_BREAK_MINUTES; every interval of play the player chose (60 minutes by
default) a reality check falls due, and no stake is taken until the player acknowledges it."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import ProgrammingError, connection, transaction
from django.utils import timezone

from casino.refusals import Kind
from payouts.models import TransactionKind
from payouts.protection import conduct, limits
from payouts.protection.models import LimitKind, PlaySession, RealityCheck
from payouts.services import Posting, house_account, post_transaction, wallet
from tests.fixtures.clock import clock_at
from tests.fixtures.users import api_client

D = Decimal
REALITY_CHECK = "/api/v1/me/reality-check/"


def stake(player, *, starts_play=True):
    conduct.check_stake(player=player, starts_play=starts_play)


def play_for(player, start, minutes):
    """A stake every ten minutes from ``start``, the last one before ``minutes``."""
    for minute in range(0, minutes, 10):
        with clock_at(start + timedelta(minutes=minute)):
            stake(player)


def refusal(player, **kwargs) -> conduct.ConductRefused:
    with pytest.raises(conduct.ConductRefused) as refused:
        stake(player, **kwargs)
    return refused.value


@pytest.fixture
def start():
    return timezone.now().replace(microsecond=0)


def test_a_session_begins_at_the_first_stake_and_goes_on_until_a_break(player, start):
    with clock_at(start):
        stake(player)
    with clock_at(start + timedelta(minutes=29)):
        stake(player)
        assert conduct.current_session(player).started_at == start
    # 30 minutes without a stake end it; the next stake begins a new one.
    with clock_at(start + timedelta(minutes=59)):
        assert conduct.current_session(player) is None
        stake(player)
        assert conduct.current_session(player).started_at == start + timedelta(minutes=59)


def test_the_break_between_sessions_is_a_setting(player, start, settings):
    settings.PLAY_SESSION_BREAK_MINUTES = 5
    with clock_at(start):
        stake(player)
    with clock_at(start + timedelta(minutes=6)):
        assert conduct.current_session(player) is None


def test_the_reality_check_falls_due_at_60_minutes_of_play_and_not_before(player, start):
    play_for(player, start, 60)
    with clock_at(start + timedelta(minutes=59, seconds=59)):
        stake(player, starts_play=False)
    with clock_at(start + timedelta(minutes=60)):
        refused = refusal(player)
        # Inside a round too: the player acknowledges in a second and goes on.
        assert refusal(player, starts_play=False).code == "reality_check_due"
    assert (refused.code, refused.kind) == ("reality_check_due", Kind.CONFLICT)
    assert refused.extra()["session"]["minutes"] == 60
    assert refused.extra()["session"]["started_at"] == start.isoformat()


def test_acknowledged_the_stakes_go_on_and_the_next_check_is_an_interval_later(player, start):
    for minute in (0, 20, 40):
        with clock_at(start + timedelta(minutes=minute)):
            stake(player)
    with clock_at(start + timedelta(minutes=61)):
        conduct.acknowledge_reality_check(player=player)
        stake(player)
    for minute in (80, 100, 120):
        with clock_at(start + timedelta(minutes=minute)):
            stake(player)
    with clock_at(start + timedelta(minutes=121)):
        assert refusal(player).code == "reality_check_due"
    (check,) = RealityCheck.objects.filter(player=player)
    assert (check.session_started_at, check.due_at) == (start, start + timedelta(minutes=60))
    assert (check.acknowledged_at, check.minutes) == (start + timedelta(minutes=61), 61)


def test_acknowledging_twice_or_when_nothing_is_due_keeps_one_row(player, start):
    with clock_at(start):
        stake(player)
        conduct.acknowledge_reality_check(player=player)  # nothing due yet
    play_for(player, start, 60)
    with clock_at(start + timedelta(minutes=60)):
        conduct.acknowledge_reality_check(player=player)
        conduct.acknowledge_reality_check(player=player)
    assert RealityCheck.objects.filter(player=player).count() == 1


def test_the_net_result_counts_play_and_the_chips_at_tables_but_no_deposit(
    funded_player, start, pit
):
    player = funded_player
    with clock_at(start):
        stake(player)
        post_transaction(
            kind=TransactionKind.STAKE,
            postings=[
                Posting(wallet(player, "USD"), D("-7.50")),
                Posting(house_account("stakes_in_play", "USD"), D("7.50")),
            ],
        )
        post_transaction(
            kind=TransactionKind.SETTLEMENT,
            postings=[
                Posting(house_account("stakes_in_play", "USD"), D("-2.50")),
                Posting(wallet(player, "USD"), D("2.50")),
            ],
        )
    session = conduct.current_session(player, start + timedelta(minutes=1))
    assert session.net_result == {"USD": D("-5.00")}  # the deposit before it is no play


def test_a_reality_check_row_is_never_changed_or_deleted(player, start):
    play_for(player, start, 60)
    with clock_at(start + timedelta(minutes=60)):
        conduct.acknowledge_reality_check(player=player)
    for statement in (
        "UPDATE protection_realitycheck SET minutes = 1",
        "DELETE FROM protection_realitycheck",
    ):
        with (
            pytest.raises(ProgrammingError, match="Cannot update or delete rows"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(statement)
    assert RealityCheck.objects.get(player=player).minutes == 60


def test_the_player_chooses_the_interval_and_a_shorter_one_applies_at_once(player, start):
    with clock_at(start):
        stake(player)
    with clock_at(start + timedelta(minutes=10)):
        body = api_client(player).put(REALITY_CHECK, {"minutes": 15}, format="json").json()
    assert body["reality_check_minutes"] == 15
    assert body["next_due_at"] == (start + timedelta(minutes=25)).isoformat()
    with clock_at(start + timedelta(minutes=25)):
        assert refusal(player).code == "reality_check_due"
    refused = api_client(player).put(REALITY_CHECK, {"minutes": 7}, format="json")
    assert refused.status_code == 400
    assert "minutes" in refused.json()["errors"]


def test_the_api_shows_the_session_and_acknowledges(player, start):
    client = api_client(player)
    assert client.get(REALITY_CHECK).json()["started_at"] is None
    play_for(player, start, 60)
    with clock_at(start + timedelta(minutes=60, seconds=30)):
        body = client.get(REALITY_CHECK).json()
        assert body["due"] is True
        assert (body["minutes"], body["started_at"]) == (60, start.isoformat())
        acknowledged = client.post(REALITY_CHECK).json()
        again = client.post(REALITY_CHECK).json()
    assert acknowledged["due"] is False
    assert acknowledged == again
    assert acknowledged["next_due_at"] == (start + timedelta(minutes=120, seconds=30)).isoformat()
    assert RealityCheck.objects.filter(player=player).count() == 1


def test_staff_have_no_reality_checks(pit, auditor):
    for user in (pit, auditor):
        assert api_client(user).get(REALITY_CHECK).status_code == 403
        assert api_client(user).post(REALITY_CHECK).status_code == 403
    assert api_client(None).get(REALITY_CHECK).status_code in (401, 403)


def test_the_session_limit_refuses_new_play_once_reached(player, start):
    with clock_at(start):
        limits.set_limit(player=player, kind=LimitKind.SESSION_TIME, currency="", value=D(30))
        stake(player)
    with clock_at(start + timedelta(minutes=29)):
        stake(player)
    with clock_at(start + timedelta(minutes=30)):
        stake(player, starts_play=False)  # a round in play is finished
        refused = refusal(player)
    assert (refused.code, refused.kind) == ("session_time_limit", Kind.CONFLICT)
    assert refused.extra()["limit"] == {"kind": "session_time", "minutes": 30}
    # After a break a new session begins, and play goes on.
    with clock_at(start + timedelta(minutes=60)):
        stake(player)
    assert PlaySession.objects.get(player=player).started_at == start + timedelta(minutes=60)
