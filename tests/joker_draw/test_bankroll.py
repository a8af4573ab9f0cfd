"""The house bankroll (HB-1): every joker draw opening holds the round's top payout of the
bankroll until the round is settled or voided, so a settlement never fails for house funds; an
opening the bankroll cannot cover is refused, and pit staff see what is held and what is left.

The joker table's bankroll is 10,000.00 USD (tests.fixtures.tables). With the shipped paytables a
box's top payout is 3 antes (two exchanges, paid 1:1) + 6 antes at 20:1 (five of a kind) + the
BONUS at 2000:1: 0.30 and a BONUS of 4.00 hold 8,036.90; 0.30 alone holds 36.90.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.test import Client
from django.utils import timezone

from casino.refusals import Kind
from games.engine import fairness
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import BoxSettlement, Round, RoundStatus
from games.tables import services as table_services
from games.tables.rounds import RoundRefused
from games.tables.voids import void_round
from payouts import services as money
from payouts.models import Account, AccountKind, LedgerTransaction
from payouts.reconciliation import record_report
from payouts.selectors import check_ledger
from tests.fixtures.joker_draw import open_round, stacked_deck
from tests.fixtures.tables import joker_draw_limits
from tests.fixtures.users import api_client, make_user

D = Decimal
BANKROLL = D("10000.00")
ANTE = D("0.30")
ANTE_HOLD = D("36.90")  # 0.90 at 1:1 and 1.80 at 20:1
RESERVED_CHECK = "house reservations differing from the holds of open rounds"
STAKES_CHECK = "stakes in play differing from the stakes of rounds in play"


def hold_for(bonus: str) -> Decimal:
    return ANTE_HOLD + 2000 * D(bonus)


@pytest.fixture
def five_aces(monkeypatch):
    """Every round deals box 1 four aces and the joker: five of a kind, the top line of both
    paytables (JD-13, JD-14); the dealer's 2 3 5 7 9 draws five and makes twos full of threes."""
    deck = stacked_deck(["As Ah Ad Ac JK"], "2c 3d 5h 7s 9c")
    monkeypatch.setattr(fairness, "deck_order", lambda *args, **kwargs: deck)


def funded(name: str, pit, amount: str = "100.00"):
    user = make_user(name, "player")
    money.deposit(player=user, currency="USD", amount=D(amount), reason="cash", by=pit)
    return user


def house(kind: str, currency: str = "USD") -> Decimal:
    return money.house_account(kind, currency).balance


def ledger_state() -> tuple[int, dict[int, Decimal]]:
    return (
        LedgerTransaction.objects.count(),
        dict(Account.objects.values_list("pk", "balance")),
    )


def test_an_opening_the_bankroll_cannot_cover_is_refused_and_moves_nothing(joker_table, pit):
    """HB-1: 0.30 with the top BONUS of 6.00 can win 12,036.90; the bankroll has 10,000.00."""
    alice = funded("alice", pit)
    before = ledger_state()
    client = api_client(alice)
    boxes = [{"box": 1, "ante": "0.30", "bonus": "6.00"}]

    refused = open_round(client, joker_table, boxes, key="top-bonus")

    assert refused.status_code == 409, refused.json()
    body = refused.json()
    assert "(HB-1)" in body["detail"]
    assert body["errors"] == {"boxes": [body["detail"]]}
    # A curious player learns neither the bankroll nor how far short it is.
    assert "10000" not in str(body)
    assert "12036" not in str(body)
    assert ledger_state() == before
    assert not Round.objects.exists()

    # The refusal stored nothing under its key: once the house is funded the retry plays.
    money.fund_house(currency="USD", amount=D("2036.90"), reason="more bankroll", by=pit)
    opened = open_round(client, joker_table, boxes, key="top-bonus")
    assert opened.status_code == 201, opened.json()
    round_ = Round.objects.get()
    assert round_.house_hold == hold_for("6.00") == D("12036.90")
    assert house(AccountKind.HOUSE_BANKROLL) == 0
    assert house(AccountKind.HOUSE_RESERVED) == D("12036.90")
    # The hold moves with the stakes, in the opening's one ledger transaction.
    opening = LedgerTransaction.objects.get(reference__startswith=f"round:{round_.pk}:")
    assert opening.entries.get(account__kind=AccountKind.HOUSE_RESERVED).amount == D("12036.90")


def test_a_covered_top_bonus_win_settles_although_other_rounds_drained_the_bankroll(
    joker_table, pit, five_aces
):
    alice, bob, cal = (funded(name, pit) for name in ("alice", "bob", "cal"))

    # Alice's round holds 8,036.90 of the 10,000.00.
    mine = joker_draw.open_round(
        player=alice, table=joker_table, boxes=[BoxRequest(1, ANTE, D(4))]
    ).round
    assert mine.house_hold == hold_for("4.00")
    assert house(AccountKind.HOUSE_BANKROLL) == BANKROLL - hold_for("4.00") == D("1963.10")

    # Bob's fits in what is left, and wins his BONUS at the top line (1,800.00) and his bet.
    bobs = joker_draw.open_round(
        player=bob, table=joker_table, boxes=[BoxRequest(1, ANTE, D("0.9"))]
    ).round
    joker_draw.act(player=bob, round_id=bobs.pk, box=1, action="bet")
    bob_won = BoxSettlement.objects.get(round=bobs).total_result
    assert bob_won == D("1800.00") + ANTE + 20 * 2 * ANTE

    # Cal's would need more than the bankroll has left: refused, nothing moved (the refusal
    # rolls back its caller's transaction: here a savepoint of the test's).
    before = ledger_state()
    with pytest.raises(RoundRefused) as refused, transaction.atomic():
        joker_draw.open_round(player=cal, table=joker_table, boxes=[BoxRequest(1, ANTE, D(4))])
    assert (refused.value.rule, refused.value.kind, refused.value.field) == (
        "HB-1",
        Kind.CONFLICT,
        "boxes",
    )
    assert ledger_state() == before

    # Alice's five of a kind still pays in full: 8,000.00 on the BONUS, the ante and the bet.
    settled = joker_draw.act(player=alice, round_id=mine.pk, box=1, action="bet").round
    assert settled.status == RoundStatus.SETTLED
    box = BoxSettlement.objects.get(round=mine)
    assert (box.bonus_line, box.bonus_result) == ("five_of_a_kind", D("8000.00"))
    assert money.wallet(alice, "USD").balance == D("100.00") + box.total_result
    assert house(AccountKind.HOUSE_RESERVED) == 0
    assert house(AccountKind.HOUSE_BANKROLL) == BANKROLL - bob_won - box.total_result
    call_command("ledger_check", verbosity=0)

    # The player's next round is dealt: nothing is left stuck.
    again = joker_draw.open_round(
        player=alice, table=joker_table, boxes=[BoxRequest(1, ANTE)]
    ).round
    assert again.status == RoundStatus.DECIDING


@pytest.mark.parametrize("ending", ["bet", "fold", "timed-out fold", "void"])
def test_the_hold_is_released_however_the_round_ends(joker_table, pit, ending):
    alice = funded("alice", pit)
    round_ = joker_draw.open_round(
        player=alice, table=joker_table, boxes=[BoxRequest(1, ANTE)]
    ).round
    assert (house(AccountKind.HOUSE_RESERVED), house(AccountKind.HOUSE_BANKROLL)) == (
        ANTE_HOLD,
        BANKROLL - ANTE_HOLD,
    )

    if ending == "void":
        void_round(round_, by=pit, reason="dealer error")
    elif ending == "timed-out fold":
        Round.objects.filter(pk=round_.pk).update(
            decision_deadline=timezone.now() - timedelta(seconds=1)
        )
        joker_draw.expire_decision(round_.pk)
    else:
        joker_draw.act(player=alice, round_id=round_.pk, box=1, action=ending)

    round_.refresh_from_db()
    assert round_.status != RoundStatus.DECIDING
    players_net = sum(b.total_result for b in BoxSettlement.objects.filter(round=round_))
    assert house(AccountKind.HOUSE_RESERVED) == 0
    assert house(AccountKind.HOUSE_BANKROLL) == BANKROLL - players_net
    assert check_ledger().ok


def test_the_ledger_check_fails_on_a_hold_with_no_open_round(joker_table, pit, auditor):
    alice = funded("alice", pit)
    round_ = joker_draw.open_round(
        player=alice, table=joker_table, boxes=[BoxRequest(1, ANTE)]
    ).round
    assert check_ledger().ok

    # The round ended behind the ledger's back: its hold stays reserved for nothing (and its
    # ante staked for nothing).
    Round.objects.filter(pk=round_.pk).update(status=RoundStatus.SETTLED)

    found = dict(check_ledger().findings())[RESERVED_CHECK]
    assert found == ["USD: held 36.90, holds of open rounds 0.00"]
    with pytest.raises(CommandError):
        call_command("ledger_check", verbosity=0)
    assert record_report().problems == {
        RESERVED_CHECK: found,
        STAKES_CHECK: ["USD: held 0.30, staked in rounds in play 0.00"],
    }
    page = Client()
    page.force_login(auditor)
    html = page.get("/staff/ledger/").content.decode()
    assert f'<td class="mismatch">{found[0]}</td>' in html


def test_the_ledger_check_fails_on_an_open_round_the_ledger_holds_nothing_for(joker_table, pit):
    alice = funded("alice", pit)
    round_ = joker_draw.open_round(
        player=alice, table=joker_table, boxes=[BoxRequest(1, ANTE)]
    ).round
    Round.objects.filter(pk=round_.pk).update(house_hold=D("1.00"))

    assert dict(check_ledger().findings())[RESERVED_CHECK] == [
        "USD: held 36.90, holds of open rounds 1.00"
    ]


@pytest.mark.django_db(transaction=True)
def test_two_openings_at_once_never_both_take_the_last_of_the_bankroll(joker_table, pit):
    """Each opening holds 8,036.90; the bankroll covers one of them."""
    players = [funded(name, pit) for name in ("ann", "ben")]
    start = threading.Barrier(2)

    def opening(player) -> str:
        start.wait()
        try:
            joker_draw.open_round(
                player=player, table=joker_table, boxes=[BoxRequest(1, ANTE, D(4))]
            )
            return "opened"
        except RoundRefused as refused:
            return refused.rule
        finally:
            connection.close()

    with ThreadPoolExecutor(2) as pool:
        outcomes = sorted(pool.map(opening, players))
    assert outcomes == ["HB-1", "opened"]
    assert house(AccountKind.HOUSE_RESERVED) == hold_for("4.00")
    assert check_ledger().ok


# The staff screens -------------------------------------------------------------------------------


def staff_page(user, url: str) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(url, follow=True)
    assert response.status_code == 200
    return response.content.decode()


def test_the_live_page_shows_the_bankroll_available_and_reserved_per_currency(joker_table, pit):
    money.fund_house(currency="FUN", amount=D("500.00"), reason="play money", by=pit)
    alice = funded("alice", pit)
    joker_draw.open_round(player=alice, table=joker_table, boxes=[BoxRequest(1, ANTE)])

    for url in ("/staff/", "/staff/live/tables/"):
        page = staff_page(pit, url)
        usd = '<td>USD</td><td class="money">9963.10</td><td class="money">36.90</td>'
        assert usd in page
        assert '<td>FUN</td><td class="money">500.00</td><td class="money">0.00</td>' in page


FLAG = "more than the bankroll has available"


def test_limits_whose_top_payout_the_bankroll_cannot_cover_are_flagged(joker_table, pit):
    # The default limits' top round: 12.00 ante, 6.00 BONUS, one box: 36.00 + 1,440.00 + 12,000.00.
    live = staff_page(pit, "/staff/live/tables/")
    row = live[live.index(f'data-table="{joker_table.pk}"') :]
    assert "can pay 13476.00 USD, more than the bankroll has available" in row
    limits = staff_page(pit, "/staff/limits/")
    assert f'<td class="money bad">13476.00 USD<br>{FLAG} (HB-1)</td>' in limits

    # Funded enough, the flag goes.
    money.fund_house(currency="USD", amount=D("3476.00"), reason="more bankroll", by=pit)
    assert FLAG not in staff_page(pit, "/staff/live/tables/")
    assert '<td class="money">13476.00 USD</td>' in staff_page(pit, "/staff/limits/")


def test_approving_limits_the_bankroll_cannot_cover_warns_the_approver(
    joker_table, pit, pit2, default_paytables
):
    draft = table_services.propose_limits(
        table=joker_table,
        values=joker_draw_limits(default_paytables, boxes_per_round=2),
        reason="two boxes",
        by=pit,
    )
    client = Client()
    client.force_login(pit2)
    page = client.post(f"/staff/limits/{draft.pk}/approve/", follow=True).content.decode()
    assert (
        f'<li class="warning">A round at the top of {draft} can pay 26952.00 USD, more than the '
        "house bankroll has available"
    ) in page
