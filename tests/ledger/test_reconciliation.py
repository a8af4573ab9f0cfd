"""The reconciliation sees the game state, not only the ledger: the table chips account against
the seats' stacks, stakes in play and BONUS held against the rounds in play. A ledger that
balances perfectly with itself still fails the check when a sub-ledger holds money no seat or
round accounts for; `ledger_check` names the check, the nightly report keeps it, and the
auditors' reconciliation page shows it in red."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db.models import F
from django.test import Client

from casino.roles import PLAYER
from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.engine import drawmaha as drawmaha_engine
from games.engine import joker_draw as joker_draw_engine
from games.engine import stud as stud_engine
from games.joker_draw import services as joker_draw
from games.models import Round, RoundStatus, Seat
from games.stud.tasks import STUD as stud
from payouts import services as money
from payouts.models import AccountKind, TransactionKind
from payouts.reconciliation import record_report
from payouts.selectors import check_ledger
from tests.fixtures.tables import make_drawmaha_table, make_stud_table
from tests.fixtures.users import make_user

D = Decimal
TABLE_CHIPS = "table chips differing from the seats' stacks"
STAKES = "stakes in play differing from the stakes of rounds in play"
BONUS = "BONUS held differing from the BONUS bets of rounds in play"
RESERVED = "house reservations differing from the holds of open rounds"


@pytest.fixture
def funded(pit) -> list:
    users = [make_user(name, PLAYER) for name in ("ann", "ben", "cal")]
    for user in users:
        money.deposit(player=user, currency="USD", amount=D("500.00"), reason="cash", by=pit)
    return users


def peer_hands(players, pit, pit2, settings) -> None:
    """A stud and a Drawmaha table, each with a hand settled (the first player who may fold
    does) and the next one in play."""
    settings.STUD_HAND_PAUSE_SECONDS = settings.DRAWMAHA_HAND_PAUSE_SECONDS = 0
    for service, engine, table in (
        (stud, stud_engine, make_stud_table(pit, pit2)),
        (drawmaha, drawmaha_engine, make_drawmaha_table(pit, pit2)),
    ):
        for number, user in enumerate(players, start=1):
            service.join(player=user, table=table, seat=number, buy_in=D("100.00"))
        while not Round.objects.filter(table=table, status=RoundStatus.SETTLED).exists():
            running = Round.objects.get(table=table, status=RoundStatus.DECIDING)
            hand = service.load_hand(running.engine_state)
            legal = [option.kind.value for option in engine.legal_actions(hand.state)]
            to_act = hand.state.to_act
            assert to_act is not None  # a hand in play waits for a player
            seating = Seat.objects.get(pk=hand.seat_ids[to_act])
            action = "fold" if "fold" in legal else legal[0]
            service.act(player=seating.player, table=table, action=action)


def failed_checks() -> dict[str, list[str]]:
    return {name: found for name, found in check_ledger().findings() if found}


def ledger_check_fails() -> str:
    with pytest.raises(CommandError) as failed:
        call_command("ledger_check", stdout=StringIO())
    return str(failed.value)


def test_a_seat_stack_changed_in_the_database_fails_the_check(funded, pit, stud_table):
    ann, ben, _ = funded
    stud.join(player=ann, table=stud_table, seat=1, buy_in=D("100.00"))
    stud.join(player=ben, table=stud_table, seat=2, buy_in=D("100.00"))
    call_command("ledger_check", stdout=StringIO())  # a hand in play, consistent
    Seat.objects.filter(table=stud_table, player=ann).update(chips=F("chips") + D("250.00"))
    assert failed_checks() == {TABLE_CHIPS: ["USD: held 199.00, the seats' stacks 449.00"]}
    assert TABLE_CHIPS in ledger_check_fails()


def test_bonus_money_with_no_round_in_play_fails_the_check(pit):
    """A balanced transaction is not enough: the BONUS account holds bets of rounds in play."""
    money.post_transaction(
        kind=TransactionKind.HOUSE_FUNDING,
        postings=[
            money.Posting(money.house_account(AccountKind.CAGE, "USD"), D("-208000.00")),
            money.Posting(money.house_account(AccountKind.BONUS, "USD"), D("208000.00")),
        ],
        reason="moved by hand",
        created_by=pit,
    )
    assert failed_checks() == {BONUS: ["USD: held 208000.00, BONUS bets in rounds in play 0.00"]}
    message = ledger_check_fails()
    assert BONUS in message
    assert STAKES not in message


def test_stakes_in_play_with_no_round_fail_the_check(funded, pit):
    money.post_transaction(
        kind=TransactionKind.STAKE,
        postings=[
            money.Posting(money.wallet(funded[0], "USD"), D("-5.00")),
            money.Posting(money.house_account(AccountKind.STAKES_IN_PLAY, "USD"), D("5.00")),
        ],
        reason="a stake without a round",
        created_by=pit,
    )
    assert failed_checks() == {STAKES: ["USD: held 5.00, staked in rounds in play 0.00"]}
    assert STAKES in ledger_check_fails()


def test_a_busy_consistent_casino_passes(funded, pit, pit2, three_box_table, settings):
    """Joker draw rounds in play (with BONUS bets; one after an exchange, one with a box bet and
    another still to decide) and settled, a stud and a Drawmaha hand each in play and settled."""
    ann, ben, cal = funded
    table, box = three_box_table, joker_draw.BoxRequest
    settled = joker_draw.open_round(
        player=ann, table=table, boxes=[box(1, D("0.60"), D("0.30"))]
    ).round
    joker_draw.act(player=ann, round_id=settled.pk, box=1, action="bet")
    two_boxes = joker_draw.open_round(
        player=ann, table=table, boxes=[box(1, D("0.30"), D("0.60")), box(2, D("0.90"))]
    ).round
    joker_draw.act(player=ann, round_id=two_boxes.pk, box=1, action="bet")
    exchanged = joker_draw.open_round(
        player=ben, table=table, boxes=[box(1, D("0.90"), D("0.30"))]
    ).round
    dealt = joker_draw_engine.from_json(Round.objects.get(pk=exchanged.pk).engine_state)
    cards = [str(card) for card in dealt.boxes[0].cards[:2]]
    joker_draw.act(player=ben, round_id=exchanged.pk, box=1, action="exchange", cards=cards)
    peer_hands([ben, cal], pit, pit2, settings)
    assert Round.objects.filter(status=RoundStatus.SETTLED).count() == 3
    assert Round.objects.filter(status=RoundStatus.DECIDING).count() == 4
    # Money really sits in each sub-ledger the checks reconcile.
    for kind in (
        AccountKind.STAKES_IN_PLAY,
        AccountKind.BONUS,
        AccountKind.TABLE_CHIPS,
        AccountKind.HOUSE_RESERVED,
    ):
        assert money.house_account(kind, "USD").balance > 0
    result = check_ledger()
    assert [name for name, _ in result.sub_ledgers] == [TABLE_CHIPS, STAKES, BONUS, RESERVED]
    assert result.ok, result.findings()
    out = StringIO()
    call_command("ledger_check", stdout=out)
    assert f"{TABLE_CHIPS}: none" in out.getvalue()
    assert record_report().ok


def test_the_nightly_report_and_the_reconciliation_page_show_the_new_checks(
    funded, pit, auditor, stud_table
):
    ann, ben, _ = funded
    stud.join(player=ann, table=stud_table, seat=1, buy_in=D("100.00"))
    stud.join(player=ben, table=stud_table, seat=2, buy_in=D("100.00"))
    client = Client()
    client.force_login(auditor)
    page = client.get("/staff/ledger/").content.decode().replace("&#x27;", "'")
    assert "The ledger reconciles" in page
    for name in (TABLE_CHIPS, STAKES, BONUS, RESERVED):
        assert f'<tr><th>{name}</th><td class="good">none</td></tr>' in page
    Seat.objects.filter(table=stud_table, player=ben).update(chips=D("400.00"))
    report = record_report()
    assert not report.ok
    assert report.problems == {TABLE_CHIPS: ["USD: held 199.00, the seats' stacks 499.50"]}
    page = client.get("/staff/ledger/").content.decode().replace("&#x27;", "'")
    assert "The ledger does NOT reconcile" in page
    found = "USD: held 199.00, the seats' stacks 499.50"
    assert f'<tr><th>{TABLE_CHIPS}</th><td class="mismatch">{found}</td></tr>' in page
    assert f'<span class="mismatch">{TABLE_CHIPS}: {found}</span>' in page  # the nightly report
