"""What the joker draw services hand back and how their transactions meet their callers'.

A service returns the round with its engine state as objects (the response needs no second
reading of the stored state); a service's transaction is its caller's when there is one, so a
refusal rolls back all of the caller's work; and a decision after its box's time ran out is
refused by the service, the fold being the timer's (JD-4).
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import transaction
from django.utils import timezone

from casino.refusals import Kind
from games.engine import joker_draw as engine
from games.joker_draw import services as joker_draw
from games.joker_draw.serializers import round_json
from games.joker_draw.services import BoxRequest
from games.models import BoxSettlement, Round, RoundStatus
from games.tables.rounds import RoundRefused
from payouts import services as money
from payouts.models import LedgerTransaction

D = Decimal


@pytest.fixture
def funded_player(player, pit):
    money.deposit(player=player, currency="USD", amount=D("100.00"), reason="cash", by=pit)
    return player


def test_each_move_returns_the_round_with_the_state_it_stored(funded_player, joker_table):
    def shown_as_stored(play: joker_draw.RoundPlay) -> None:
        assert play.state == engine.from_json(play.round.engine_state)
        # The response of a move shows exactly what the stored round shows.
        stored = Round.objects.get(pk=play.round.pk)
        assert round_json(play.round, funded_player, state=play.state) == round_json(
            stored, funded_player
        )

    opened = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"), D("0.30"))]
    )
    shown_as_stored(opened)
    assert opened.state.phase == engine.Phase.DECIDING
    settled = joker_draw.act(player=funded_player, round_id=opened.round.pk, box=1, action="bet")
    shown_as_stored(settled)
    assert settled.round.status == RoundStatus.SETTLED
    assert settled.state.phase == engine.Phase.SETTLED


def test_a_settlement_records_the_dealer_hand_the_engine_judged(funded_player, joker_table):
    """JD-10: the box settlement names the dealer's hand as the round's history does."""
    round_ = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    joker_draw.act(player=funded_player, round_id=round_.pk, box=1, action="bet")

    judged = round_.events.get(kind="dealer_hand").data
    box = BoxSettlement.objects.get(round=round_)
    assert (box.dealer_category, box.dealer_qualifies) == (judged["category"], judged["qualifies"])


def test_a_refusal_inside_a_callers_transaction_rolls_back_all_of_the_callers_work(
    funded_player, pit, joker_table
):
    """No savepoint of the service's own: the caller's transaction goes with the refusal."""
    transactions = LedgerTransaction.objects.count()
    with transaction.atomic():
        money.deposit(player=funded_player, currency="USD", amount=D("5.00"), reason="x", by=pit)
        with pytest.raises(RoundRefused) as refused:
            joker_draw.open_round(
                player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.31"))]
            )
    assert (refused.value.rule, refused.value.field) == ("JD-2", "boxes[1].ante")
    assert money.wallet(funded_player, "USD").balance == D("100.00")
    assert LedgerTransaction.objects.count() == transactions


def test_a_late_decision_is_refused_and_the_fold_left_to_the_timer(funded_player, joker_table):
    """JD-4: the service refuses a decision after the deadline and does not fold the box
    itself; the timer (or the next request, before its own transaction) folds it."""
    round_ = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.60"))]
    ).round
    Round.objects.filter(pk=round_.pk).update(
        decision_deadline=timezone.now() - timedelta(seconds=1)
    )

    with pytest.raises(RoundRefused) as refused, transaction.atomic():
        joker_draw.act(player=funded_player, round_id=round_.pk, box=1, action="bet")

    late = refused.value
    assert (late.rule, late.kind, late.field) == ("JD-4", Kind.CONFLICT, "action")
    round_.refresh_from_db()
    assert round_.status == RoundStatus.DECIDING
    assert not round_.events.filter(kind="fold").exists()
    assert money.wallet(funded_player, "USD").balance == D("99.40")  # the bet took nothing

    folded = joker_draw.expire_decision(round_.pk)
    assert folded is not None
    assert folded.round.status == RoundStatus.SETTLED
    assert folded.state.boxes[0].status == engine.BoxStatus.FOLDED
    assert round_.events.get(kind="fold").data["timed_out"] is True
    assert joker_draw.expire_decision(round_.pk) is None  # nothing is overdue any more
