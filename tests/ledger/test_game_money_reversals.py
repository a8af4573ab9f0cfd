"""Game money is never reversed by one person (the rogue pit boss): a settlement, a stake, a
buy-in or a cash-out is refused with a stable code; house funding is reversed only when a
second staff member approves; a round in play is still voided when an earlier one-person
reversal took its stake back. A settled round is put right by a settlement correction
(tests/joker_draw/test_corrections.py); a round in play is voided in every state
(tests/tables/test_voids_in_every_state.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from casino.roles import PLAYER
from games.engine import stud as stud_engine
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import RoundStatus
from games.stud.hand import Hand as StudHand
from games.stud.tasks import STUD as stud
from games.tables.replay import replay_round
from games.tables.voids import void_round
from payouts import services as money
from payouts.approvals import ChangeStatus
from payouts.models import AccountKind, LedgerTransaction, ReversalProposal, TransactionKind
from payouts.services import LedgerError, Posting
from tests.fixtures.joker_draw import lost_round
from tests.fixtures.ledger import assert_ledger_passes
from tests.fixtures.peer import (
    act_passively,
    assert_next_hand_dealt,
    balance,
    house,
    running,
    seat_everyone,
)
from tests.fixtures.users import logged_in, make_user

D = Decimal


def legacy_reversal(original: LedgerTransaction, by) -> LedgerTransaction:
    """What one pit boss could post before game money was refused: the opposite entries."""
    return money.post_transaction(
        kind=TransactionKind.REVERSAL,
        postings=[Posting(e.account, -e.amount) for e in original.entries.all()],
        reason="reversed by one person",
        created_by=by,
        reverses=original,
    )


# One person reverses game money: refused --------------------------------------------------------


def game_transaction(kind: str, player, joker_table, stud_table, pit) -> LedgerTransaction:
    if kind == "settlement of a lost round":
        return LedgerTransaction.objects.get(
            reference=f"round:{lost_round(player, joker_table).pk}:settle"
        )
    if kind == "stake of a live round":
        round_ = joker_draw.open_round(
            player=player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
        ).round
        return LedgerTransaction.objects.get(reference=f"round:{round_.pk}:open")
    if kind == "rake of a finished hand":
        return rake_of_a_passive_hand(stud_table, player, pit)
    seat = stud.join(player=player, table=stud_table, seat=1, buy_in=D("60.00"))
    if kind == "buy-in of a seated player":
        return LedgerTransaction.objects.get(reference=f"seat:{seat.pk}:buy-in")
    stud.leave(player=player, table=stud_table)
    return LedgerTransaction.objects.get(reference=f"seat:{seat.pk}:cash-out")


def rake_of_a_passive_hand(stud_table, player, pit) -> LedgerTransaction:
    """ST-13: a stud hand of ``player`` and another, checked and called down to the showdown."""
    other = make_user("opponent", PLAYER)
    money.deposit(player=other, currency="USD", amount=D("100.00"), reason="cash", by=pit)
    for number, user in enumerate((player, other), start=1):
        stud.join(player=user, table=stud_table, seat=number, buy_in=D("60.00"))
    for _ in range(100):
        rake = LedgerTransaction.objects.filter(kind=TransactionKind.RAKE).first()
        if rake is not None:
            return rake
        act_passively(stud, stud_engine, stud_table)
    raise AssertionError("the hand took no rake")


GAME_MONEY = (
    "settlement of a lost round",
    "stake of a live round",
    "buy-in of a seated player",
    "cash-out",
    "rake of a finished hand",
)


@pytest.mark.parametrize("kind", GAME_MONEY)
def test_one_person_cannot_reverse_game_money(kind, funded_player, joker_table, stud_table, pit):
    original = game_transaction(kind, funded_player, joker_table, stud_table, pit)
    posted, wallet = LedgerTransaction.objects.count(), balance(funded_player)
    with pytest.raises(LedgerError) as refused:
        money.reverse_transaction(original, reason="player complained", by=pit)
    assert refused.value.code == "game_money_not_reversible"
    assert "void the round in play" in refused.value.message
    assert "settlement correction" in refused.value.message

    page = logged_in(pit).post(
        f"/admin/payouts/ledgertransaction/{original.pk}/reverse/", {"reason": "complaint"}
    )
    assert page.status_code == 400
    assert "[game_money_not_reversible]" in page.content.decode()
    assert (LedgerTransaction.objects.count(), balance(funded_player)) == (posted, wallet)
    assert not LedgerTransaction.objects.filter(reverses=original).exists()
    assert_ledger_passes()


def test_the_admin_offers_no_reversal_of_game_money_and_still_of_a_cage_mistake(
    funded_player, joker_table, pit
):
    settle = LedgerTransaction.objects.get(
        reference=f"round:{lost_round(funded_player, joker_table).pk}:settle"
    )
    page = logged_in(pit).get(f"/admin/payouts/ledgertransaction/{settle.pk}/change/")
    assert "Reverse this transaction" not in page.content.decode()
    cash = LedgerTransaction.objects.filter(kind=TransactionKind.DEPOSIT).first()
    page = logged_in(pit).get(f"/admin/payouts/ledgertransaction/{cash.pk}/change/")
    assert "Reverse this transaction" in page.content.decode()


def test_a_live_round_whose_stake_reversal_was_refused_plays_on(funded_player, joker_table, pit):
    round_ = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    stake = LedgerTransaction.objects.get(reference=f"round:{round_.pk}:open")
    with pytest.raises(LedgerError):
        money.reverse_transaction(stake, reason="complaint", by=pit)
    round_ = joker_draw.act(player=funded_player, round_id=round_.pk, box=1, action="bet").round
    assert round_.status == RoundStatus.SETTLED
    assert replay_round(round_).ok
    assert_ledger_passes()


# House funding: two people ----------------------------------------------------------------------


def test_house_funding_is_reversed_only_when_a_second_person_approves(joker_table, pit, pit2):
    funding = LedgerTransaction.objects.get(kind=TransactionKind.HOUSE_FUNDING)
    bankroll = house(AccountKind.HOUSE_BANKROLL)
    with pytest.raises(LedgerError) as refused:
        money.reverse_transaction(funding, reason="keyed twice", by=pit)
    assert refused.value.code == "house_money_needs_second_person"

    page = logged_in(pit).post(
        f"/admin/payouts/ledgertransaction/{funding.pk}/reverse/", {"reason": "keyed twice"}
    )
    assert page.status_code == 302
    proposal = ReversalProposal.objects.get(original=funding)
    assert (proposal.status, proposal.proposed_by, proposal.reversal) == ("draft", pit, None)
    assert house(AccountKind.HOUSE_BANKROLL) == bankroll

    action = {"action": "approve", "_selected_action": [proposal.pk]}
    own = logged_in(pit).post("/admin/payouts/reversalproposal/", action, follow=True)
    assert "separation of duties" in own.content.decode()
    proposal.refresh_from_db()
    assert proposal.status == ChangeStatus.DRAFT
    assert not LedgerTransaction.objects.filter(reverses=funding).exists()

    logged_in(pit2).post("/admin/payouts/reversalproposal/", action)
    proposal.refresh_from_db()
    assert (proposal.status, proposal.approved_by) == (ChangeStatus.APPROVED, pit2)
    assert proposal.reversal == LedgerTransaction.objects.get(reverses=funding)
    assert house(AccountKind.HOUSE_BANKROLL) == bankroll - D("10000.00")
    with pytest.raises(LedgerError) as again:
        money.propose_house_reversal(funding, reason="again", by=pit)
    assert again.value.code == "already_reversed"
    assert_ledger_passes()


def test_a_cage_mistake_is_still_reversed_by_one_person(funded_player, pit):
    deposit = LedgerTransaction.objects.get(kind=TransactionKind.DEPOSIT)
    money.reverse_transaction(deposit, reason="wrong player", by=pit)
    assert balance(funded_player) == D("0.00")
    assert_ledger_passes()


# Reversals posted before the rule: shown, and never in the way of a void ----------------------


def test_the_replay_shows_a_settlement_reversed_by_one_person(funded_player, joker_table, pit):
    round_ = lost_round(funded_player, joker_table)
    legacy_reversal(LedgerTransaction.objects.get(reference=f"round:{round_.pk}:settle"), pit)
    report = replay_round(round_)
    assert not report.ok
    assert any("reversed by" in problem for problem in report.mismatches)


def test_a_joker_draw_round_whose_stake_was_reversed_is_still_voided(
    funded_player, joker_table, pit
):
    round_ = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.60"), D("0.30"))]
    ).round
    legacy_reversal(LedgerTransaction.objects.get(reference=f"round:{round_.pk}:open"), pit)
    assert balance(funded_player) == D("100.00")  # the stakes came back once already
    void_round(round_, by=pit, reason="stuck after a reversal")
    round_.refresh_from_db()
    assert round_.status == RoundStatus.VOIDED
    assert balance(funded_player) == D("100.00")  # and not a second time
    assert house(AccountKind.STAKES_IN_PLAY) == house(AccountKind.BONUS) == D("0.00")
    assert_ledger_passes()


def test_a_stud_hand_whose_ante_was_reversed_is_still_voided(players, stud_table, pit, settings):
    seat_everyone(stud, stud_table, players[:2], settings, "STUD_HAND_PAUSE_SECONDS")
    hand = running(stud_table)
    ante = LedgerTransaction.objects.filter(
        reference__startswith=f"round:{hand.pk}:event:", kind=TransactionKind.STAKE
    ).first()
    legacy_reversal(ante, pit)
    void_round(hand, by=pit, reason="stuck after a reversal")
    assert_next_hand_dealt(stud_table, hand, StudHand, D("60.00"))
    assert_ledger_passes()
