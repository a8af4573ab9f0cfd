"""Voiding a round in progress (games.tables.voids): every stake back where it came from in
one balanced ledger transaction, the round voided with who and why, a second void refused, and
a peer table going on with its next hand. The ledger check passes after each."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from django.db import connection

from games.drawmaha.hand import Hand as DrawmahaHand
from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import Round, RoundStatus, Seat, SeatStatus
from games.stud.hand import Hand as StudHand
from games.stud.tasks import STUD as stud
from games.tables.rounds import RoundRefused
from games.tables.voids import void_round
from payouts.approvals import ChangeRefused
from payouts.models import AccountKind, LedgerTransaction
from tests.fixtures.ledger import assert_ledger_passes
from tests.fixtures.peer import (
    assert_next_hand_dealt,
    balance,
    committed,
    house,
    running,
    seat_everyone,
)

D = Decimal


def assert_voided(round_: Round, by, reason: str) -> dict[str, str]:
    """The round is voided with its reason, its last event says who and why, and its stakes
    came back in exactly one transaction; returns what the event says was returned."""
    round_.refresh_from_db()
    assert (round_.status, round_.void_reason) == (RoundStatus.VOIDED, reason)
    event = round_.events.order_by("sequence").last()
    assert event is not None
    assert (event.kind, event.actor, event.data["by"], event.data["reason"]) == (
        "voided",
        by,
        by.username,
        reason,
    )
    assert event.sequence == round_.history_length - 1
    assert LedgerTransaction.objects.filter(reference=f"round:{round_.pk}:void").count() == 1
    return event.data["returned"]


# Joker draw ------------------------------------------------------------------------------------


def test_a_joker_draw_round_returns_ante_extra_ante_bet_and_bonus(
    funded_player, three_box_table, pit
):
    """JD-2, JD-5, JD-7, JD-13: the antes, the extra ante of an exchange, a bet and the BONUS
    come back while the second box is still deciding."""
    round_ = joker_draw.open_round(
        player=funded_player,
        table=three_box_table,
        boxes=[BoxRequest(1, D("0.60"), D("0.30")), BoxRequest(2, D("0.30"))],
    ).round
    cards = round_.engine_state["boxes"][0]["cards"][:2]
    joker_draw.act(player=funded_player, round_id=round_.pk, box=1, action="exchange", cards=cards)
    joker_draw.act(player=funded_player, round_id=round_.pk, box=1, action="bet")
    # 0.60 + 0.30 + 0.30 at the deal, 0.60 for the exchange, then a bet of 2 x 1.20
    assert balance(funded_player) == D("95.80")
    void_round(round_, by=pit, reason="card reader fault")
    returned = assert_voided(round_, pit, "card reader fault")
    assert returned == {funded_player.username: "4.20"}
    assert balance(funded_player) == D("100.00")
    assert house(AccountKind.STAKES_IN_PLAY) == house(AccountKind.BONUS) == D("0.00")
    assert not round_.box_settlements.exists()
    assert_ledger_passes()


def test_a_second_void_and_a_settled_round_are_refused_and_move_nothing(
    funded_player, joker_table, pit, pit2
):
    round_ = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    void_round(round_, by=pit, reason="fault")
    transactions = LedgerTransaction.objects.count()
    with pytest.raises(ChangeRefused, match="already voided") as refused:
        void_round(round_, by=pit2, reason="again")
    assert list(refused.value.errors) == ["round"]
    assert LedgerTransaction.objects.count() == transactions
    assert round_.events.filter(kind="voided").count() == 1

    settled = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    joker_draw.act(player=funded_player, round_id=settled.pk, box=1, action="fold")
    with pytest.raises(ChangeRefused, match="settled round cannot be voided"):
        void_round(settled, by=pit, reason="too late")
    settled.refresh_from_db()
    assert settled.status == RoundStatus.SETTLED
    assert LedgerTransaction.objects.filter(reference=f"round:{settled.pk}:void").count() == 0
    assert_ledger_passes()


def test_a_void_needs_a_reason(funded_player, joker_table, pit):
    round_ = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    with pytest.raises(ChangeRefused) as refused:
        void_round(round_, by=pit, reason="  ")
    assert list(refused.value.errors) == ["reason"]
    round_.refresh_from_db()
    assert round_.status == RoundStatus.DECIDING
    assert balance(funded_player) == D("99.70")


@pytest.mark.django_db(transaction=True)
def test_a_void_and_a_decision_at_once_never_both_apply(funded_player, joker_table, pit):
    """The void takes the round's lock: either the bet settles the round and the void is
    refused, or the void goes first and the bet finds the round over (JD-8)."""
    round_ = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    start = threading.Barrier(2)

    def attempt(what: str) -> str:
        start.wait()
        try:
            if what == "void":
                void_round(round_, by=pit, reason="dispute")
            else:
                joker_draw.act(player=funded_player, round_id=round_.pk, box=1, action="bet")
            return f"{what} applied"
        except (ChangeRefused, RoundRefused):
            return f"{what} refused"
        finally:
            connection.close()

    with ThreadPoolExecutor(2) as pool:
        outcomes = set(pool.map(attempt, ["void", "bet"]))
    round_.refresh_from_db()
    if round_.status == RoundStatus.VOIDED:
        assert outcomes == {"void applied", "bet refused"}
        assert balance(funded_player) == D("100.00")
    else:
        assert outcomes == {"bet applied", "void refused"}
        assert round_.box_settlements.count() == 1
    assert_ledger_passes()


# Peer tables -----------------------------------------------------------------------------------


def to_act(table, hand_type) -> Seat:
    hand = hand_type.from_json(running(table).engine_state)
    number = hand.seats[hand.state.to_act]
    return Seat.objects.get(table=table, number=number, status__in=["seated", "leaving"])


def test_a_stud_hand_returns_everyones_pot_chips_even_to_a_player_who_left(
    players, stud_table, pit, settings
):
    """ST-2, ST-3: antes, the bring-in and a completion come back to the stacks; a player who
    folded and left gets the ante back in the wallet."""
    seat_everyone(stud, stud_table, players, settings, "STUD_HAND_PAUSE_SECONDS")
    hand = running(stud_table)
    stud.act(player=to_act(stud_table, StudHand).player, table=stud_table, action="bring_in")
    folder = to_act(stud_table, StudHand).player
    stud.act(player=folder, table=stud_table, action="fold")
    stud.leave(player=folder, table=stud_table)
    assert balance(folder) == D("199.50")  # cashed out less the ante in the pot
    stud.act(player=to_act(stud_table, StudHand).player, table=stud_table, action="complete")
    in_pot = committed(stud_table, StudHand)
    assert in_pot[folder.username] == D("0.50")
    void_round(hand, by=pit, reason="misdeal")
    returned = assert_voided(hand, pit, "misdeal")
    assert returned == {name: f"{amount:.2f}" for name, amount in in_pot.items()}
    assert balance(folder) == D("200.00")
    assert_next_hand_dealt(stud_table, hand, StudHand, D("60.00"))
    assert_ledger_passes()


def test_a_drawmaha_hand_returns_the_blinds_and_cashes_out_a_leaver(
    players, drawmaha_table, pit, settings
):
    """DM-1: the blinds and a raise come back; a player leaving mid-hand is cashed out whole."""
    seat_everyone(drawmaha, drawmaha_table, players, settings, "DRAWMAHA_HAND_PAUSE_SECONDS")
    hand = running(drawmaha_table)
    drawmaha.act(
        player=to_act(drawmaha_table, DrawmahaHand).player,
        table=drawmaha_table,
        action="raise",
        amount=D("4.00"),
    )
    blinds = committed(drawmaha_table, DrawmahaHand)
    leaver = next(p for p in players if blinds[p.username] == D("2.00"))  # the big blind
    drawmaha.leave(player=leaver, table=drawmaha_table)
    assert Seat.objects.get(table=drawmaha_table, player=leaver).status == SeatStatus.LEAVING
    void_round(hand, by=pit, reason="dealer exposed the flop")
    assert_voided(hand, pit, "dealer exposed the flop")
    assert balance(leaver) == D("200.00")
    assert Seat.objects.get(table=drawmaha_table, player=leaver).status == SeatStatus.LEFT
    assert_next_hand_dealt(drawmaha_table, hand, DrawmahaHand, D("60.00"))
    assert_ledger_passes()
