"""The limits players set on their own play (RTS 12), enforced in the services: each limit at
each place money goes in, the cooling-off, the periods of the gaming day, and two stakes
racing against one limit."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.db import transaction
from django.utils import timezone

from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.stud.tasks import STUD
from payouts.protection import limits
from payouts.protection.limits import LimitReached
from payouts.protection.models import LimitChange, LimitKind, PlayerLimit
from payouts.services import deposit
from tests.fixtures.clock import clock_at
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
    # Antes 0.60 after the exchange; a bet would make 0.60 + 1.20.
    refusal = refused_with(
        "max_stake", joker_draw.act, player=funded_player, round_id=round_.pk, box=1, action="bet"
    )
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
