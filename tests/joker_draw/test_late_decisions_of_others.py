"""A decision on someone else's round is as good as a decision on no round (JD-4): whoever
sends it, the round is not touched, even when its box is out of time."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from django.utils import timezone

from games.models import Round, RoundStatus
from payouts import services as money
from tests.fixtures.joker_draw import act, open_round
from tests.fixtures.users import api_client

D = Decimal


def test_a_stranger_deciding_on_an_overdue_round_folds_nothing(
    funded_player, other_player, pit, joker_table
):
    """The fold of an out-of-time box is the timer's alone (JD-4); a
    stranger's request is refused as for no round at all and changes nothing."""
    money.deposit(player=other_player, currency="USD", amount=D("10.00"), reason="cash", by=pit)
    body = open_round(api_client(funded_player), joker_table, [{"box": 1, "ante": "0.30"}]).json()
    Round.objects.filter(pk=body["id"]).update(
        decision_deadline=timezone.now() - timedelta(seconds=1)
    )

    refused = act(api_client(other_player), body["id"], "stranger", box=1, action="fold")

    assert refused.status_code == 404
    round_ = Round.objects.get(pk=body["id"])
    assert round_.status == RoundStatus.DECIDING
    assert not round_.events.filter(kind="fold").exists()


def test_an_anonymous_request_folds_nothing(funded_player, joker_table):
    body = open_round(api_client(funded_player), joker_table, [{"box": 1, "ante": "0.30"}]).json()
    Round.objects.filter(pk=body["id"]).update(
        decision_deadline=timezone.now() - timedelta(seconds=1)
    )

    refused = act(api_client(None), body["id"], "anonymous", box=1, action="fold")

    assert refused.status_code == 401
    assert Round.objects.get(pk=body["id"]).status == RoundStatus.DECIDING
