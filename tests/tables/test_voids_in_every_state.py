"""A round in play is voided in every state (games.tables.voids): a joker draw round at every
decision, a stud or Drawmaha hand on every street; the stakes come back, the ledger checks, and
a peer table deals its next hand."""

from __future__ import annotations

from decimal import Decimal

import pytest

from games.drawmaha.hand import Hand as DrawmahaHand
from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.engine import drawmaha as drawmaha_engine
from games.engine import stud as stud_engine
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import RoundStatus
from games.stud.hand import Hand as StudHand
from games.stud.tasks import STUD as stud
from games.tables.voids import void_round
from payouts.models import AccountKind
from tests.fixtures.ledger import assert_ledger_passes
from tests.fixtures.peer import (
    act_passively,
    assert_next_hand_dealt,
    balance,
    house,
    running,
    seat_everyone,
)

D = Decimal


@pytest.mark.parametrize("exchanges", [0, 1, 2])
def test_a_joker_draw_round_is_voided_at_every_decision(exchanges, funded_player, joker_table, pit):
    """JD-5, JD-6: before the first decision, after one exchange and after two."""
    round_ = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"), D("0.30"))]
    ).round
    for count in (2, 1)[:exchanges]:
        cards = round_.engine_state["boxes"][0]["cards"][:count]
        round_ = joker_draw.act(
            player=funded_player, round_id=round_.pk, box=1, action="exchange", cards=cards
        ).round
    assert balance(funded_player) < D("100.00")
    void_round(round_, by=pit, reason="fault")
    round_.refresh_from_db()
    assert round_.status == RoundStatus.VOIDED
    assert balance(funded_player) == D("100.00")
    assert house(AccountKind.STAKES_IN_PLAY) == house(AccountKind.BONUS) == D("0.00")
    assert_ledger_passes()


def play_passively(service, engine, table, street: str) -> None:
    """Play passively until the running hand reaches ``street``."""
    for _ in range(100):
        if service.load_hand(running(table).engine_state).state.street == street:
            return
        act_passively(service, engine, table)
    raise AssertionError(f"the hand never reached {street}")


@pytest.mark.parametrize("street", [s.value for s in stud_engine.Street if s.value != "over"])
def test_a_stud_hand_is_voided_on_every_street(street, players, stud_table, pit, settings):
    seat_everyone(stud, stud_table, players[:2], settings, "STUD_HAND_PAUSE_SECONDS")
    hand = running(stud_table)
    play_passively(stud, stud_engine, stud_table, street)
    void_round(hand, by=pit, reason="fault")
    assert_next_hand_dealt(stud_table, hand, StudHand, D("60.00"))
    assert_ledger_passes()


@pytest.mark.parametrize("street", [s.value for s in drawmaha_engine.Street if s.value != "over"])
def test_a_drawmaha_hand_is_voided_on_every_street(street, players, drawmaha_table, pit, settings):
    seat_everyone(drawmaha, drawmaha_table, players[:2], settings, "DRAWMAHA_HAND_PAUSE_SECONDS")
    hand = running(drawmaha_table)
    play_passively(drawmaha, drawmaha_engine, drawmaha_table, street)
    void_round(hand, by=pit, reason="fault")
    assert_next_hand_dealt(drawmaha_table, hand, DrawmahaHand, D("60.00"))
    assert_ledger_passes()
