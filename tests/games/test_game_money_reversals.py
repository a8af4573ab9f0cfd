"""Game money is never reversed by one person (the rogue pit boss): a settlement, a stake, a
buy-in or a cash-out is refused with a stable code; house funding is reversed only when a
second staff member approves; a settled round is put right by a settlement correction that a
second staff member approves, which the payout review and the replay show; a round in play is
voided, in every state, even one whose stake an earlier one-person reversal took back."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from casino.roles import PLAYER
from games.drawmaha import services as drawmaha
from games.engine import drawmaha as drawmaha_engine
from games.engine import stud as stud_engine
from games.joker_draw import corrections
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import Round, RoundStatus, Seat, SettlementCorrection
from games.stud import services as stud
from games.tables.replay import replay_round
from games.tables.voids import void_round
from payouts import services as money
from payouts.models import (
    AccountKind,
    ChangeStatus,
    LedgerTransaction,
    ReversalProposal,
    TransactionKind,
)
from payouts.selectors import check_ledger
from payouts.services import ChangeRefused, LedgerError, Posting
from tests.conftest import make_user
from tests.games.test_voids import assert_next_hand_dealt, running, seat_everyone

D = Decimal


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def balance(user) -> Decimal:
    return money.wallet(user, "USD").balance


def house(kind: str) -> Decimal:
    return money.house_account(kind, "USD").balance


def assert_ledger_passes() -> None:
    assert check_ledger().ok
    call_command("ledger_check", verbosity=0)


@pytest.fixture
def funded_player(player, pit):
    money.deposit(player=player, currency="USD", amount=D("100.00"), reason="cash", by=pit)
    return player


def lost_round(player, table) -> Round:
    """JD-5: a box that folds at once loses its ante of 0.30."""
    round_ = joker_draw.open_round(
        player=player, table=table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    return joker_draw.act(player=player, round_id=round_.pk, box=1, action="fold").round


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


# Settlement corrections: two people, shown by the payouts review and the replay -----------------


def test_a_settlement_correction_is_proposed_by_one_and_approved_by_another(
    funded_player, joker_table, pit, pit2, auditor
):
    round_ = lost_round(funded_player, joker_table)
    wallet, bankroll = balance(funded_player), house(AccountKind.HOUSE_BANKROLL)
    proposed = logged_in(pit).post(
        f"/staff/rounds/{round_.pk}/corrections/",
        {"box_1": "0.30", "reason": "the fold was the table's fault"},
    )
    assert proposed.status_code == 302
    correction = SettlementCorrection.objects.get(round=round_)
    assert (correction.amounts, correction.status) == ({"1": "0.30"}, ChangeStatus.DRAFT)
    assert balance(funded_player) == wallet

    own = logged_in(pit).post(f"/staff/corrections/{correction.pk}/approve/")
    assert own.status_code == 400
    assert "separation of duties" in own.content.decode()
    action = {"action": "approve", "_selected_action": [correction.pk]}
    admin = logged_in(pit).post("/admin/games/settlementcorrection/", action, follow=True)
    assert "separation of duties" in admin.content.decode()
    with pytest.raises(ChangeRefused, match="separation of duties"):
        corrections.approve_correction(correction, by=pit)
    assert balance(funded_player) == wallet

    assert logged_in(pit2).post(f"/staff/corrections/{correction.pk}/approve/").status_code == 302
    correction.refresh_from_db()
    assert (correction.status, correction.approved_by) == (ChangeStatus.APPROVED, pit2)
    assert correction.transaction.reference == f"round:{round_.pk}:correction:{correction.pk}"
    assert correction.transaction.kind == TransactionKind.CORRECTION
    assert balance(funded_player) == wallet + D("0.30")
    assert house(AccountKind.HOUSE_BANKROLL) == bankroll - D("0.30")

    report = replay_round(round_)
    assert report.ok, report.mismatches
    assert len(report.corrections) == 1
    assert "box 1 +0.30" in report.corrections[0]
    out = StringIO()
    call_command("replay_round", round_.pk, stdout=out)
    assert "CORRECTED correction" in out.getvalue()
    review = logged_in(auditor).get("/staff/payouts/").content.decode()
    assert "0.30 (approved correction)" in review
    assert "box 1: 0.30" in logged_in(auditor).get(f"/staff/rounds/{round_.pk}/").content.decode()
    # The export says what was paid, as the review does: the box's result and its correction.
    export = logged_in(auditor).get("/staff/payouts.csv")
    (row,) = csv.DictReader(io.StringIO(b"".join(export.streaming_content).decode()))
    assert (row["round"], row["total_result"], row["correction"]) == (
        str(round_.pk),
        "-0.30",
        "0.30",
    )
    assert_ledger_passes()


def test_a_correction_changed_by_a_colleague_is_approved_by_a_third(
    funded_player, joker_table, pit, pit2, admin_user
):
    import pghistory

    round_ = lost_round(funded_player, joker_table)
    correction = corrections.propose_correction(
        round_, amounts={1: D("0.30")}, reason="misread", by=pit
    )
    with pghistory.context(user=pit2.pk):
        SettlementCorrection.objects.filter(pk=correction.pk).update(amounts={"1": "30.00"})
    with pytest.raises(ChangeRefused, match="whoever changes a draft cannot approve it"):
        corrections.approve_correction(correction, by=pit2)
    corrections.approve_correction(correction, by=admin_user)
    assert balance(funded_player) == D("99.70") + D("30.00")


def test_a_second_correction_waits_until_the_first_is_decided(
    funded_player, joker_table, pit, pit2
):
    """A form sent twice proposes one correction: a round with a draft waiting takes no other,
    so one approver's pass over the list cannot pay the player twice."""
    round_ = lost_round(funded_player, joker_table)
    first = corrections.propose_correction(round_, amounts={1: D("0.30")}, reason="r", by=pit)
    with pytest.raises(ChangeRefused) as refused:
        corrections.propose_correction(round_, amounts={1: D("0.30")}, reason="r", by=pit)
    assert "already waiting" in refused.value.errors["round"]
    assert list(SettlementCorrection.objects.values_list("pk", flat=True)) == [first.pk]
    corrections.approve_correction(first, by=pit2)
    # Once decided, a further correction may be proposed (and needs its own approval).
    second = corrections.propose_correction(round_, amounts={1: D("0.10")}, reason="r2", by=pit)
    assert second.status == ChangeStatus.DRAFT


@pytest.mark.parametrize(
    ("amounts", "reason", "field"),
    [
        ({1: D("0.30")}, " ", "reason"),
        ({2: D("0.30")}, "r", "amounts.2"),
        ({1: D("0")}, "r", "amounts.1"),
        ({1: D("0.305")}, "r", "amounts.1"),
        ({}, "r", "amounts"),
    ],
)
def test_a_correction_names_a_box_of_the_round_an_amount_and_a_reason(
    amounts, reason, field, funded_player, joker_table, pit
):
    round_ = lost_round(funded_player, joker_table)
    with pytest.raises(ChangeRefused) as refused:
        corrections.propose_correction(round_, amounts=amounts, reason=reason, by=pit)
    assert field in refused.value.errors
    assert not SettlementCorrection.objects.exists()


def test_a_round_in_play_is_voided_not_corrected(funded_player, joker_table, pit):
    round_ = joker_draw.open_round(
        player=funded_player, table=joker_table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    with pytest.raises(ChangeRefused) as refused:
        corrections.propose_correction(round_, amounts={1: D("0.30")}, reason="r", by=pit)
    assert "a round in play is voided" in refused.value.errors["round"]


def test_a_correction_taking_back_more_than_the_wallet_holds_is_refused(
    funded_player, joker_table, pit, pit2
):
    round_ = lost_round(funded_player, joker_table)
    correction = corrections.propose_correction(
        round_, amounts={1: D("-500.00")}, reason="paid twice", by=pit
    )
    posted = LedgerTransaction.objects.count()
    with pytest.raises(ChangeRefused) as refused:
        corrections.approve_correction(correction, by=pit2)
    assert "Insufficient funds" in refused.value.errors["amounts"]
    correction.refresh_from_db()
    assert correction.status == ChangeStatus.DRAFT
    assert LedgerTransaction.objects.count() == posted


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
    assert_next_hand_dealt(stud_table, hand, stud.Hand, D("60.00"))
    assert_ledger_passes()


# A round in play is voided in every state -------------------------------------------------------


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


def act_passively(service, engine, table) -> None:
    """The player to act in the running hand checks, calls, stands pat or shows."""
    hand = service.Hand.from_json(running(table).engine_state)
    state = hand.state
    player = Seat.objects.get(table=table, number=hand.seats[state.to_act], status="seated").player
    options = {getattr(o, "kind", None) or o.choice for o in engine.legal_actions(state)}
    kind = next(k for k in ("exchange", "check", "call", "bring_in", "show") if k in options)
    service.act(player=player, table=table, action=kind)


def play_passively(service, engine, table, street: str) -> None:
    """Play passively until the running hand reaches ``street``."""
    for _ in range(100):
        if service.Hand.from_json(running(table).engine_state).state.street == street:
            return
        act_passively(service, engine, table)
    raise AssertionError(f"the hand never reached {street}")


@pytest.mark.parametrize("street", [s.value for s in stud_engine.Street if s.value != "over"])
def test_a_stud_hand_is_voided_on_every_street(street, players, stud_table, pit, settings):
    seat_everyone(stud, stud_table, players[:2], settings, "STUD_HAND_PAUSE_SECONDS")
    hand = running(stud_table)
    play_passively(stud, stud_engine, stud_table, street)
    void_round(hand, by=pit, reason="fault")
    assert_next_hand_dealt(stud_table, hand, stud.Hand, D("60.00"))
    assert_ledger_passes()


@pytest.mark.parametrize("street", [s.value for s in drawmaha_engine.Street if s.value != "over"])
def test_a_drawmaha_hand_is_voided_on_every_street(street, players, drawmaha_table, pit, settings):
    seat_everyone(drawmaha, drawmaha_table, players[:2], settings, "DRAWMAHA_HAND_PAUSE_SECONDS")
    hand = running(drawmaha_table)
    play_passively(drawmaha, drawmaha_engine, drawmaha_table, street)
    void_round(hand, by=pit, reason="fault")
    assert_next_hand_dealt(drawmaha_table, hand, drawmaha.Hand, D("60.00"))
    assert_ledger_passes()


def test_only_pit_staff_propose_and_approve_corrections_on_the_staff_pages(
    funded_player, joker_table, pit, auditor
):
    round_ = lost_round(funded_player, joker_table)
    form = {"box_1": "0.30", "reason": "misread"}
    for outsider in (funded_player, auditor):
        page = logged_in(outsider).post(f"/staff/rounds/{round_.pk}/corrections/", form)
        assert page.status_code == 403
    correction = corrections.propose_correction(
        round_, amounts={1: D("0.30")}, reason="misread", by=pit
    )
    for outsider in (funded_player, auditor):
        page = logged_in(outsider).post(f"/staff/corrections/{correction.pk}/approve/")
        assert page.status_code == 403
    correction.refresh_from_db()
    assert correction.status == ChangeStatus.DRAFT


def test_a_refused_proposal_on_the_staff_page_is_a_400_naming_the_field(
    funded_player, joker_table, pit
):
    round_ = lost_round(funded_player, joker_table)
    page = logged_in(pit).post(
        f"/staff/rounds/{round_.pk}/corrections/", {"box_1": "0.00", "reason": "misread"}
    )
    assert page.status_code == 400
    assert "must be a non-zero amount in whole cents" in page.content.decode()
    assert not SettlementCorrection.objects.exists()
