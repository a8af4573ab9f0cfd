"""The limits players set on their own play (RTS 12), enforced in the services: each limit at
each place money goes in, the cooling-off, the periods of the gaming day, and two stakes
racing against one limit."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.db import ProgrammingError, transaction
from django.utils import timezone

from games.drawmaha.tasks import DRAWMAHA
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.stud.tasks import STUD
from payouts.protection import limits
from payouts.protection.limits import LimitReached
from payouts.protection.models import LimitChange, LimitKind, PlayerLimit
from payouts.services import deposit, withdraw
from tests.fixtures import drawmaha
from tests.fixtures.clock import clock_at
from tests.fixtures.joker_draw import lost_round
from tests.fixtures.refusals import snapshot
from tests.fixtures.stud import to_act

D = Decimal
UTC = ZoneInfo("UTC")


def set_limit(player, kind, value, currency="USD"):
    return limits.set_limit(
        player=player, kind=kind, currency=currency, value=None if value is None else D(value)
    )


def refused_with(code: str, call, *args, **kwargs) -> LimitReached:
    """``call`` is refused with ``code`` and moves nothing."""
    before = snapshot()
    # A service's refusal rolls back its caller's transaction: here a savepoint of the test's.
    with pytest.raises(LimitReached) as refusal, transaction.atomic():
        call(*args, **kwargs)
    assert refusal.value.code == code
    assert snapshot() == before
    return refusal.value


# Each limit where money goes in ----------------------------------------------------------------


def test_a_cage_deposit_over_the_daily_deposit_limit_is_refused_naming_it(funded_player, pit):
    set_limit(funded_player, LimitKind.DEPOSIT_DAY, "150.00")
    deposit(player=funded_player, currency="USD", amount=D("50.00"), reason="cash", by=pit)
    refusal = refused_with(
        "deposit_limit",
        deposit,
        player=funded_player,
        currency="USD",
        amount=D("0.01"),
        reason="cash",
        by=pit,
    )
    body = refusal.extra()
    assert body["limit"] == {"kind": "deposit_day", "currency": "USD", "value": "150.00"}
    assert datetime.fromisoformat(body["resets_at"]) > timezone.now()
    assert "deposit limit per day" in refusal.message


def test_an_ante_and_bonus_over_the_daily_loss_limit_are_refused(funded_player, joker_table):
    set_limit(funded_player, LimitKind.LOSS_DAY, "0.50")
    refusal = refused_with(
        "loss_limit",
        joker_draw.open_round,
        player=funded_player,
        table=joker_table,
        boxes=[BoxRequest(1, D("0.30"), bonus=D("0.30"))],
    )
    assert refusal.messages() == {"boxes": [refusal.message]}
    assert "loss limit per day" in refusal.message
    joker_draw.open_round(player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))])


def test_the_bet_over_the_loss_limit_is_refused_and_the_box_may_still_fold(
    funded_player, joker_table
):
    set_limit(funded_player, LimitKind.LOSS_WEEK, "0.80")
    round_ = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    # The bet costs two antes, 0.60: 0.30 + 0.60 is over 0.80.
    refused_with(
        "loss_limit", joker_draw.act, player=funded_player, round_id=round_.pk, box=1, action="bet"
    )
    joker_draw.act(player=funded_player, round_id=round_.pk, box=1, action="fold")


def test_an_exchange_over_the_maximum_stake_is_refused(funded_player, joker_table):
    set_limit(funded_player, LimitKind.MAX_STAKE, "0.60")
    round_ = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    card = round_.engine_state["boxes"][0]["cards"][0]
    joker_draw.act(player=funded_player, round_id=round_.pk, box=1, action="exchange", cards=[card])
    # Antes 0.60 after the first exchange: a second one would make 0.90.
    round_.refresh_from_db()
    card = round_.engine_state["boxes"][0]["cards"][0]
    refusal = refused_with(
        "max_stake",
        joker_draw.act,
        player=funded_player,
        round_id=round_.pk,
        box=1,
        action="exchange",
        cards=[card],
    )
    assert refusal.messages() == {"action": [refusal.message]}
    assert "resets_at" not in refusal.extra()
    assert refusal.extra()["limit"]["kind"] == "max_stake"


def test_a_buy_in_over_the_loss_limit_is_refused(players, stud_table):
    ann = players[0]
    set_limit(ann, LimitKind.LOSS_MONTH, "59.99")
    refused_with("loss_limit", STUD.join, player=ann, table=stud_table, seat=1, buy_in=D("60.00"))
    STUD.join(player=ann, table=stud_table, seat=1, buy_in=D("59.99"))


def test_a_peer_raise_over_the_maximum_stake_is_refused(players, stud_table, settings):
    for number, user in enumerate(players[:2], start=1):
        STUD.join(player=user, table=stud_table, seat=number, buy_in=D("60.00"))
    bring_in = to_act(stud_table)
    set_limit(bring_in.player, LimitKind.MAX_STAKE, "4.00")
    # Ante 0.50; completing to the small bet, 5.00, makes 5.50 in the hand.
    refused_with(
        "max_stake",
        STUD.act,
        player=bring_in.player,
        table=stud_table,
        action="complete",
    )
    STUD.act(player=bring_in.player, table=stud_table, action="bring_in")


def test_a_rebuy_over_the_loss_limit_is_refused(players, stud_table):
    ann = players[0]
    STUD.join(player=ann, table=stud_table, seat=1, buy_in=D("60.00"))
    set_limit(ann, LimitKind.LOSS_DAY, "100.00")
    refused_with("loss_limit", STUD.rebuy, player=ann, table=stud_table, amount=D("40.01"))
    STUD.rebuy(player=ann, table=stud_table, amount=D("40.00"))


def test_a_cash_out_gives_back_room_under_the_loss_limit(players, stud_table):
    ann = players[0]
    set_limit(ann, LimitKind.LOSS_DAY, "100.00")
    STUD.join(player=ann, table=stud_table, seat=1, buy_in=D("60.00"))
    STUD.leave(player=ann, table=stud_table)
    assert limits.counted(ann.pk, "USD", timezone.now())[LimitKind.LOSS_DAY] == D("0.00")
    STUD.join(player=ann, table=stud_table, seat=1, buy_in=D("100.00"))


def test_withdrawals_are_never_refused(funded_player, pit):
    set_limit(funded_player, LimitKind.DEPOSIT_DAY, "0.00")
    set_limit(funded_player, LimitKind.LOSS_DAY, "0.00")
    withdraw(player=funded_player, currency="USD", amount=D("100.00"), reason="cash", by=pit)


# Periods of gaming days ------------------------------------------------------------------------

# Tuesday 24 November 2026; a gaming day starts at 06:00 (UTC, the default time zone).
TUESDAY = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


def lose_ante(player, table, at):
    with clock_at(at):
        lost_round(player, table)


def test_a_loss_yesterday_does_not_count_today_but_this_week(funded_player, joker_table):
    lose_ante(funded_player, joker_table, TUESDAY)
    with clock_at(TUESDAY):
        set_limit(funded_player, LimitKind.LOSS_DAY, "0.30")
        set_limit(funded_player, LimitKind.LOSS_WEEK, "0.60")
    before_six = TUESDAY.replace(day=25, hour=5, minute=59)
    with clock_at(before_six):  # still Tuesday's gaming day
        refusal = refused_with(
            "loss_limit",
            joker_draw.open_round,
            player=funded_player,
            table=joker_table,
            boxes=[BoxRequest(1, D("0.30"))],
        )
        assert refusal.extra()["limit"]["kind"] == "loss_day"
        assert refusal.extra()["resets_at"] == "2026-11-25T06:00:00+00:00"
    lose_ante(funded_player, joker_table, TUESDAY.replace(day=25, hour=6))  # Wednesday's
    with clock_at(TUESDAY.replace(day=25, hour=7)):
        refusal = refused_with(
            "loss_limit",
            joker_draw.open_round,
            player=funded_player,
            table=joker_table,
            boxes=[BoxRequest(1, D("0.30"))],
        )
        assert refusal.extra()["limit"]["kind"] == "loss_day"
    # Thursday: the day starts again, the week does not (0.60 lost on Tuesday and Wednesday).
    with clock_at(TUESDAY.replace(day=26, hour=7)):
        refusal = refused_with(
            "loss_limit",
            joker_draw.open_round,
            player=funded_player,
            table=joker_table,
            boxes=[BoxRequest(1, D("0.30"))],
        )
        assert refusal.extra()["limit"]["kind"] == "loss_week"
        assert refusal.extra()["resets_at"] == "2026-11-30T06:00:00+00:00"
    # Monday before six is still the week's Sunday; from six the week starts again.
    monday = datetime(2026, 11, 30, 5, 59, tzinfo=UTC)
    with clock_at(monday):
        assert limits.counted(funded_player.pk, "USD", monday)[LimitKind.LOSS_WEEK] == D("0.60")
    lose_ante(funded_player, joker_table, monday + timedelta(minutes=1))


def test_the_month_starts_on_the_first_gaming_day_in_the_casinos_time_zone(
    funded_player, joker_table, settings
):
    settings.CASINO_TIME_ZONE = "Europe/Stockholm"
    # 30 November 05:30 UTC is 06:30 in Stockholm: the gaming day of 30 November.
    lose_ante(funded_player, joker_table, datetime(2026, 11, 30, 5, 30, tzinfo=UTC))
    december = datetime(2026, 12, 1, 5, 0, tzinfo=UTC)  # 06:00 in Stockholm: 1 December
    spent = limits.counted(funded_player.pk, "USD", december)
    assert spent[LimitKind.LOSS_MONTH] == D("0.00")
    assert spent[LimitKind.LOSS_WEEK] == D("0.30")
    assert limits.resets_at(LimitKind.LOSS_MONTH, december) == datetime(
        2027, 1, 1, 6, 0, tzinfo=ZoneInfo("Europe/Stockholm")
    )


def test_a_drawmaha_raise_over_the_maximum_stake_is_refused(players, drawmaha_table, settings):
    drawmaha.seat_everyone(drawmaha_table, players[:2], settings)
    acting = drawmaha.to_act(drawmaha_table)
    set_limit(acting.player, LimitKind.MAX_STAKE, "5.00")
    refusal = refused_with(
        "max_stake",
        DRAWMAHA.act,
        player=acting.player,
        table=drawmaha_table,
        action="raise",
        amount=D("6.00"),
    )
    assert "6.00" in refusal.message
    DRAWMAHA.act(player=acting.player, table=drawmaha_table, action="call")


# The cooling-off -------------------------------------------------------------------------------


def test_lowering_applies_at_once_and_raising_after_the_cooling_off(player, pit):
    deposit(player=player, currency="USD", amount=D("1.00"), reason="cash", by=pit)
    start = timezone.now()
    with clock_at(start):
        set_limit(player, LimitKind.LOSS_DAY, "100.00")
        assert limits.in_force(player, LimitKind.LOSS_DAY, "USD") == D("100.00")
        set_limit(player, LimitKind.LOSS_DAY, "200.00")
        assert limits.in_force(player, LimitKind.LOSS_DAY, "USD") == D("100.00")
    row = PlayerLimit.objects.get(player=player, kind=LimitKind.LOSS_DAY)
    assert row.pending_value == D("200.00")
    assert row.applies_at == start + timedelta(hours=24)
    assert limits.in_force(player, LimitKind.LOSS_DAY, "USD", start + timedelta(hours=23)) == D(
        "100.00"
    )
    assert limits.in_force(player, LimitKind.LOSS_DAY, "USD", start + timedelta(hours=24)) == D(
        "200.00"
    )
    assert [(c.old_value, c.new_value) for c in LimitChange.objects.order_by("pk")] == [
        (None, D("100.00")),
        (D("100.00"), D("200.00")),
    ]


def test_a_second_raise_replaces_the_pending_one_and_its_time(player, pit):
    deposit(player=player, currency="USD", amount=D("1.00"), reason="cash", by=pit)
    start = timezone.now()
    set_limit(player, LimitKind.MAX_STAKE, "10.00")
    with clock_at(start):
        set_limit(player, LimitKind.MAX_STAKE, "20.00")
    with clock_at(start + timedelta(hours=5)):
        set_limit(player, LimitKind.MAX_STAKE, "30.00")
    row = PlayerLimit.objects.get(player=player, kind=LimitKind.MAX_STAKE)
    assert (row.value, row.pending_value) == (D("10.00"), D("30.00"))
    assert row.applies_at == start + timedelta(hours=29)


def test_the_history_of_a_limit_cannot_be_changed(player, pit):
    deposit(player=player, currency="USD", amount=D("1.00"), reason="cash", by=pit)
    set_limit(player, LimitKind.LOSS_DAY, "10.00")
    with pytest.raises(ProgrammingError, match="Cannot update or delete"), transaction.atomic():
        LimitChange.objects.update(new_value=D("1000.00"))
    with pytest.raises(ProgrammingError, match="Cannot update or delete"), transaction.atomic():
        LimitChange.objects.all().delete()
    assert LimitChange.objects.get().new_value == D("10.00")


def test_the_session_time_limit_is_kept_in_minutes_for_the_play_sessions(player):
    assert limits.session_minutes(player) is None
    limits.set_limit(player=player, kind=LimitKind.SESSION_TIME, currency="USD", value=D("90"))
    assert limits.session_minutes(player) == 90
    # Longer waits out the cooling-off; shorter applies at once.
    limits.set_limit(player=player, kind=LimitKind.SESSION_TIME, currency="", value=D("120"))
    assert limits.session_minutes(player) == 90
    assert limits.session_minutes(player, timezone.now() + timedelta(hours=24, minutes=1)) == 120
    limits.set_limit(player=player, kind=LimitKind.SESSION_TIME, currency="", value=D("30"))
    assert limits.session_minutes(player, timezone.now() + timedelta(days=2)) == 30
