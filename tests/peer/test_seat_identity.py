"""A seat is a new sitting every time a player sits down (ST-1, DM-1): a player who leaves a hand,
is folded and cashed out, and sits down again in the same seat with a small buy-in plays with
that buy-in only. The hand they left never moves the new stack, and every player can still cash
out all their chips. Played at every street of seven-card stud and of Drawmaha."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from types import ModuleType
from typing import Any

import pytest
from django.core.management import call_command

from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.engine import drawmaha as drawmaha_engine
from games.engine import stud as stud_engine
from games.models import Round, Seat, SeatStatus
from games.peer.hands import from_cents
from games.stud.tasks import STUD as stud
from games.tables.replay import replay_round
from games.tables.rounds import RoundRefused
from games.tables.voids import void_round
from payouts import services as money
from payouts.models import AccountKind
from tests.fixtures.peer import assert_chips_held, balance, house, running
from tests.fixtures.tables import make_drawmaha_table, make_stud_table

D = Decimal
BUY_IN, REBUY = D("400.00"), D("50.00")


@dataclass(frozen=True)
class Peer:
    service: Any  # the game: join, leave, act, catch_up, load_hand
    engine: ModuleType
    make_table: Any
    pause_setting: str
    passive: tuple[str, ...]  # the first legal one is taken: nobody folds, nobody raises


STUD = Peer(
    stud,
    stud_engine,
    make_stud_table,
    "STUD_HAND_PAUSE_SECONDS",
    ("bring_in", "check", "call", "show"),
)
DRAWMAHA = Peer(
    drawmaha,
    drawmaha_engine,
    make_drawmaha_table,
    "DRAWMAHA_HAND_PAUSE_SECONDS",
    ("check", "call", "exchange", "take"),
)
STREETS = [
    *(
        pytest.param(STUD, street, id=f"stud-{street}")
        for street in ("third", "fourth", "fifth", "sixth", "seventh")
    ),
    *(
        pytest.param(DRAWMAHA, street, id=f"drawmaha-{street}")
        for street in ("preflop", "flop", "draw", "turn", "river")
    ),
]


def hand_of(peer: Peer, table):
    return peer.service.load_hand(running(table).engine_state)


def to_act(peer: Peer, table) -> Seat:
    """The seat whose turn it is in the running hand."""
    hand = hand_of(peer, table)
    number = hand.seats[hand.state.to_act]
    return Seat.objects.get(table=table, number=number, status__in=["seated", "leaving"])


def act_passively(peer: Peer, table) -> None:
    kinds = {option.kind.value for option in peer.engine.legal_actions(hand_of(peer, table).state)}
    action = next(kind for kind in peer.passive if kind in kinds)
    peer.service.act(player=to_act(peer, table).player, table=table, action=action)


def three_players_in_a_hand(peer: Peer, table, players, pit, settings) -> Round:
    """ann, ben and cal, 1000.00 each in the wallet, sit down in seats 1 to 3 with 400.00 and
    are dealt one hand; the next hand waits for its pause."""
    for user in players:
        money.deposit(player=user, currency="USD", amount=D("800.00"), reason="cash", by=pit)
    setattr(settings, peer.pause_setting, 60)
    for number, user in enumerate(players, start=1):
        peer.service.join(player=user, table=table, seat=number, buy_in=BUY_IN)
    setattr(settings, peer.pause_setting, 0)
    peer.service.catch_up(table.pk)
    round_ = running(table)
    setattr(settings, peer.pause_setting, 60)  # no next hand: the stacks stay still after it
    return round_


def leave_and_sit_down_again(peer: Peer, table, street: str) -> tuple[Seat, Seat]:
    """Play to ``street``; the player to act leaves, is folded (or, in the draw, at the next
    betting round) and cashed out, then sits down again in the same seat with 50.00."""
    while hand_of(peer, table).state.street != street:
        act_passively(peer, table)
    old = to_act(peer, table)
    peer.service.leave(player=old.player, table=table)
    old.refresh_from_db()
    while old.status != SeatStatus.LEFT:
        act_passively(peer, table)
        old.refresh_from_db()
    assert old.chips == 0
    new = peer.service.join(player=old.player, table=table, seat=old.number, buy_in=REBUY)
    assert (new.number, new.status) == (old.number, SeatStatus.SEATED)
    assert new.pk != old.pk
    return old, new


@pytest.mark.parametrize(("peer", "street"), STREETS)
def test_a_player_back_in_the_same_seat_has_the_new_buy_in_only(
    peer, street, players, pit, pit2, settings
):
    table = peer.make_table(pit, pit2)
    round_ = three_players_in_a_hand(peer, table, players, pit, settings)
    old, new = leave_and_sit_down_again(peer, table, street)
    leaver = old.player
    cashed_out = balance(leaver) - D("600.00") + REBUY
    assert running(table) == round_  # the hand the player left goes on without them
    with pytest.raises(RoundRefused, match="not in this hand"):
        peer.service.act(player=leaver, table=table, action="fold")
    while Round.objects.filter(pk=round_.pk, status="deciding").exists():
        act_passively(peer, table)
        new.refresh_from_db()
        assert new.chips == REBUY  # the hand left behind never touches the new stack
        assert_chips_held(table)
    assert replay_round(Round.objects.get(pk=round_.pk)).ok
    assert balance(leaver) == D("600.00") + cashed_out - REBUY
    # Everyone cashes out every chip they have: the table chips are exactly enough.
    for seating in Seat.objects.filter(table=table).exclude(status=SeatStatus.LEFT):
        stack = seating.chips
        before = balance(seating.player)
        peer.service.leave(player=seating.player, table=table)
        assert balance(seating.player) == before + stack
    assert balance(leaver) == D("600.00") + cashed_out
    assert house(AccountKind.TABLE_CHIPS) == 0
    assert house(AccountKind.STAKES_IN_PLAY) == 0
    wallets = sum((balance(user) for user in players), D(0))
    assert wallets + house(AccountKind.RAKE) == D("3000.00")
    call_command("ledger_check", verbosity=0)


@pytest.mark.parametrize("peer", [STUD, DRAWMAHA], ids=["stud", "drawmaha"])
def test_a_void_pays_the_chips_of_a_sitting_that_left_to_the_wallet_not_the_new_seat(
    peer, players, pit, pit2, settings
):
    """The pot goes back by sitting: the chips the leaver had committed go to their wallet, and
    their new seat keeps the new buy-in."""
    table = peer.make_table(pit, pit2)
    round_ = three_players_in_a_hand(peer, table, players, pit, settings)
    old, new = leave_and_sit_down_again(peer, table, "fourth" if peer is STUD else "flop")
    hand = hand_of(peer, table)
    committed = from_cents(hand.state.chips[hand.seats.index(old.number)].committed)
    assert committed > 0
    before = balance(old.player)
    void_round(round_, by=pit, reason="shuffler jammed")
    new.refresh_from_db()
    assert new.chips == REBUY
    assert balance(old.player) == before + committed
    assert_chips_held(table)
    call_command("ledger_check", verbosity=0)
