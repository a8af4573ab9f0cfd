"""The bankroll's holds as a weapon (HB-1, HB-2, HB-3): an opening holds its round's top payout
for the decision time, and a cheap stake holds a lot (0.30 with a 6.00 BONUS holds 12,036.90),
so a few accounts could reserve the whole bankroll and every other player's opening would be
refused. One player's, and one table's, rounds in play hold at most a share of the bankroll,
set in the table's limits (proposed by one pit staff member, approved by another) or by the
environment; a refusal says which stake would be accepted.

The bankroll here is the demo's, 100,104.50 USD. Holds with the shipped paytables: 0.30 alone
36.90, each cent of BONUS 20.00 more; 1.20 with a BONUS of 0.30 holds 747.60.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client

from games.models import Round, RoundStatus
from games.tables import services as table_services
from games.tables.services import ChangeRefused
from payouts import services as money
from payouts.models import AccountKind
from payouts.selectors import check_ledger
from tests.fixtures.joker_draw import open_round
from tests.fixtures.tables import joker_draw_limits
from tests.fixtures.users import api_client, make_user

D = Decimal
DEMO_BANKROLL = D("100104.50")
HONEST = [{"box": 1, "ante": "1.20", "bonus": "0.30"}]
# A greedy attacker's BONUS bets, largest first, then none at all.
GREEDY = ("6.00", "3.00", "1.50", "0.75", "0.30", None)


@pytest.fixture
def demo_bankroll(joker_table, pit):
    money.fund_house(
        currency="USD", amount=DEMO_BANKROLL - D("10000.00"), reason="demo bankroll", by=pit
    )
    return joker_table


def with_shares(table, paytables, pit, pit2, player=None, table_share=None):
    """New limits with these shares (None: the environment's), proposed and approved."""
    draft = table_services.propose_limits(
        table=table,
        values=joker_draw_limits(
            paytables, player_bankroll_percent=player, table_bankroll_percent=table_share
        ),
        reason="bankroll shares",
        by=pit,
    )
    return table_services.approve_limits(draft, by=pit2)


def funded(name, pit, amount="100.00"):
    user = make_user(name, "player")
    money.deposit(player=user, currency="USD", amount=D(amount), reason="cash", by=pit)
    return user


def greedy_opening(client, table) -> str | None:
    """The largest BONUS on a 0.30 ante the house takes now; None when it takes none."""
    for n, bonus in enumerate(GREEDY):
        box = {"box": 1, "ante": "0.30", **({"bonus": bonus} if bonus else {})}
        if open_round(client, table, [box], key=f"greedy-{n}").status_code == 201:
            return bonus or "0.00"
    return None


def held() -> tuple[Decimal, Decimal]:
    def balance(kind):
        return money.house_account(kind, "USD").balance

    return balance(AccountKind.HOUSE_BANKROLL), balance(AccountKind.HOUSE_RESERVED)


def test_eleven_cheap_accounts_cannot_lock_an_honest_player_out(
    demo_bankroll, pit, pit2, default_paytables, settings
):
    """HB-2: without a share per player, eleven accounts staking 53.10 in all held all but
    98.60 of the bankroll and the honest player's opening was refused (HB-1)."""
    settings.BANKROLL_PLAYER_PERCENT = D("2")
    settings.BANKROLL_TABLE_PERCENT = D("25")
    with_shares(demo_bankroll, default_paytables, pit, pit2)  # the environment's shares

    taken = [
        greedy_opening(api_client(funded(f"cheap{n}", pit, "10.00")), demo_bankroll)
        for n in range(11)
    ]

    honest = api_client(funded("honest", pit))
    opened = open_round(honest, demo_bankroll, HONEST, key="honest")
    assert opened.status_code == 201, opened.json()
    assert Round.objects.get(pk=opened.json()["id"]).house_hold == D("747.60")

    # Each account held at most 2% of the bankroll (2,002.09): a BONUS of 0.75, 1,536.90.
    assert taken == ["0.75"] * 11
    available, reserved = held()
    assert reserved == 11 * D("1536.90") + D("747.60")
    assert available == DEMO_BANKROLL - reserved
    assert check_ledger().ok


def test_a_refusal_says_which_bonus_would_be_accepted_and_that_bonus_is(
    demo_bankroll, pit, pit2, default_paytables, settings
):
    settings.BANKROLL_PLAYER_PERCENT = D("2")
    with_shares(demo_bankroll, default_paytables, pit, pit2)
    client = api_client(funded("alice", pit))
    before = held()

    refused = open_round(client, demo_bankroll, [{"box": 1, "ante": "0.30", "bonus": "6.00"}])

    assert refused.status_code == 409
    body = refused.json()
    assert body["code"] == "HB-2"
    assert body["detail"] == (
        "Your rounds in play would hold more of the house bankroll than one player may. "
        "A BONUS of at most 0.98 on each box would be accepted (HB-2)."
    )
    assert body["errors"] == {"boxes": [body["detail"]]}
    assert body["accepted"] == {"bonus": "0.98"}
    assert held() == before
    # 2% of 100,104.50 is 2,002.09: a BONUS of 0.98 holds 1,996.90, one of 0.99 2,016.90.
    too_much = [{"box": 1, "ante": "0.30", "bonus": "0.99"}]
    assert open_round(client, demo_bankroll, too_much, key="0.99").status_code == 409
    offered = [{"box": 1, "ante": "0.30", "bonus": "0.98"}]
    assert open_round(client, demo_bankroll, offered, key="0.98").status_code == 201

    # With that round in play, the player's share has 5.19 left: not even 0.30 alone fits.
    other_table = table_services.create_table(
        name="Joker 2", game="joker_draw", currency="USD", by=pit, reason="test"
    )
    with_shares(other_table, default_paytables, pit, pit2)
    table_services.set_table_status(other_table, status="open", by=pit2, reason="test")
    second = open_round(client, other_table, [{"box": 1, "ante": "0.30"}], key="second")
    assert second.status_code == 409
    assert second.json()["code"] == "HB-2"
    assert second.json()["accepted"] is None
    assert "No stake can be accepted now" in second.json()["detail"]


def test_one_table_holds_at_most_its_share_and_the_other_tables_play(
    demo_bankroll, pit, pit2, default_paytables
):
    """HB-3: the table's share is 5% (5,005.22); each player may hold 2% (2,002.09)."""
    with_shares(demo_bankroll, default_paytables, pit, pit2, player=D(2), table_share=D(5))
    stake = [{"box": 1, "ante": "0.30", "bonus": "0.98"}]  # holds 1,996.90
    for name in ("ann", "ben"):
        assert open_round(api_client(funded(name, pit)), demo_bankroll, stake).status_code == 201

    refused = open_round(api_client(funded("cal", pit)), demo_bankroll, stake)

    assert refused.status_code == 409
    body = refused.json()
    assert body["code"] == "HB-3"
    assert body["detail"].startswith(
        "The rounds in play at this table would hold more of the house bankroll than one table may."
    )
    # 5,005.22 less 3,993.80 leaves 1,011.42: a BONUS of 0.48 holds 996.90.
    assert body["accepted"] == {"bonus": "0.48"}
    cheaper = [{"box": 1, "ante": "0.30", "bonus": "0.48"}]
    dan = api_client(funded("dan", pit))
    assert open_round(dan, demo_bankroll, cheaper).status_code == 201

    # Once a round ends its hold goes back to the table's share.
    first = Round.objects.filter(player__username="ann").get()
    api_client(first.player).post(
        f"/api/v1/joker-draw/rounds/{first.pk}/actions/",
        {"box": 1, "action": "fold"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="fold",
    )
    assert Round.objects.get(pk=first.pk).status != RoundStatus.DECIDING
    assert open_round(api_client(funded("cal3", pit)), demo_bankroll, stake).status_code == 201


def test_a_share_above_the_whole_bankroll_is_refused_naming_the_field(
    joker_table, pit, default_paytables
):
    with pytest.raises(ChangeRefused) as refused:
        table_services.propose_limits(
            table=joker_table,
            values=joker_draw_limits(default_paytables, player_bankroll_percent=D("100.01")),
            reason="everything and more",
            by=pit,
        )
    assert "(HB-2)" in refused.value.errors["player_bankroll_percent"]


def test_the_shares_are_the_tables_limits_and_the_proposer_cannot_approve_them(
    joker_table, pit, default_paytables
):
    """A rogue pit boss cannot lift a table's share alone: limits need a second person."""
    draft = table_services.propose_limits(
        table=joker_table,
        values=joker_draw_limits(default_paytables, table_bankroll_percent=D("100")),
        reason="lift it",
        by=pit,
    )
    with pytest.raises(ChangeRefused):
        table_services.approve_limits(draft, by=pit)
    client = Client()
    client.force_login(pit)
    page = client.get(f"/staff/limits/tables/{joker_table.pk}/propose/")
    assert page.status_code == 200
    assert 'name="player_bankroll_percent"' in page.content.decode()


# The pit's screens -------------------------------------------------------------------------------


def pit_page(user, url, language="en", method="get"):
    client = Client()
    client.force_login(user)
    response = getattr(client, method)(url, follow=True, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def test_the_live_page_shows_what_each_table_and_player_holds_and_alerts_when_low(
    demo_bankroll, pit, pit2, default_paytables, settings
):
    with_shares(demo_bankroll, default_paytables, pit, pit2, player=D(2), table_share=D(25))
    ann, ben = funded("ann", pit), funded("ben", pit)
    open_round(api_client(ann), demo_bankroll, [{"box": 1, "ante": "0.30", "bonus": "0.98"}])
    open_round(api_client(ben), demo_bankroll, [{"box": 1, "ante": "0.30"}])

    page = pit_page(pit, "/staff/live/tables/")
    # 2,033.80 of 100,104.50 is 2.03%; ann's 1,996.90 is 1.99%, ben's 36.90 0.04%.
    table = demo_bankroll.pk
    assert (
        f'<tr data-holding="table-{table}"><td><a href="/staff/tables/{table}/">table Joker 1</a>'
        '</td><td>2</td><td class="money">2033.80 USD</td><td class="money">2.03%</td></tr>'
    ) in page
    rows = [f'data-holding="player-{user.pk}"' for user in (ann, ben)]
    assert page.index(rows[0]) < page.index(rows[1])  # the largest hold first
    assert '<td class="money">1996.90 USD</td><td class="money">1.99%</td>' in page
    assert '<td class="money">36.90 USD</td><td class="money">0.04%</td>' in page
    assert 'role="alert" data-currency="USD"' not in page

    # 98,070.70 available is 97.97% of the bankroll: under an alert threshold of 98%.
    settings.BANKROLL_ALERT_PERCENT = D("98")
    page = pit_page(pit, "/staff/")
    assert (
        "Only 98070.70 USD of the 100104.50 USD bankroll is available, under 98%: openings will "
        "be refused (HB-1)."
    ) in page
    russian = pit_page(pit, "/staff/live/tables/", language="ru")
    assert "Зарезервировано под идущие раздачи, по столам и по игрокам" in russian
    assert "Из банкролла 100" in russian
    swedish = pit_page(pit, "/staff/live/tables/", language="sv")
    assert "Reserverat för pågående givar, per bord och per spelare" in swedish


def test_approving_limits_whose_top_round_no_player_may_hold_warns_the_approver(
    demo_bankroll, pit, pit2, default_paytables
):
    """The default limits' top round holds 13,476.00; 2% of the bankroll is 2,002.09."""
    draft = table_services.propose_limits(
        table=demo_bankroll,
        values=joker_draw_limits(default_paytables, player_bankroll_percent=D(2)),
        reason="a player's share",
        by=pit,
    )
    page = pit_page(pit2, f"/staff/limits/{draft.pk}/approve/", method="post")
    assert (
        f"A round at the top of {draft} would hold 13476.00 USD, more than the 2002.09 USD one "
        "player may hold of the bankroll: such openings are refused (HB-2)."
    ) in page
    live = pit_page(pit, "/staff/live/tables/")
    assert "more than the 2002.09 USD one player may hold: such openings are refused" in live
    limits = pit_page(pit, "/staff/limits/")
    assert "more than the 2002.09 USD one player may hold (HB-2)" in limits
