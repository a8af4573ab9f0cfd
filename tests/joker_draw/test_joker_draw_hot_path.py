"""The joker draw hot path stays lean: how many statements an opening, a decision and a
settlement send to PostgreSQL, through the services and over the API; and the shortcuts it
takes keep the rules.

Each statement is a round trip to the database, paid by every round at every table; the counts
include the savepoints of a nested transaction. A change that needs more should say why here.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from casino.http.tokens import issue_token
from casino.models import IdempotentRequest
from games.engine import joker_draw as engine
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import BoxSettlement, Round, RoundStatus
from payouts import services as money
from payouts.models import LedgerTransaction
from tests.fixtures.joker_draw import act, open_round
from tests.fixtures.users import api_client

D60 = Decimal("0.60")
ONE_BOX = [{"box": 1, "ante": "0.30"}]

# Inside a test's own transaction a service's transaction is the test's (no savepoint), and
# the accounts a round posts to are read each time (they are kept per process only once their
# transaction commits, which a test's never does).
SERVICE = 1
# Every stake passes the player's protection first (payouts.protection.gate): the play
# session recorded, with the exclusion in force and the session time limit read back, in one
# statement; then the player's own limits in the table's currency, read and locked in one
# statement, so that two stakes racing against one limit are counted one after the other.
PROTECTION = 2
# The table (key-share locked) with the ids of the limits and paytables in force read in one
# statement, the next nonce taken from the player's seed pair, the round and its first events
# in one statement, the ledger's two (lock and read references; write everything).
# The bankroll's shares (HB-2, HB-3) take two more: the currency's lock, then the bankroll and
# the holds of the player's and the table's rounds in play read in one statement, which must
# come after the lock to see what the openings before it committed.
OPEN = SERVICE + 5 + 2 + PROTECTION
# The round locked with its table and decision timeout (a late decision is refused on it), the
# events and the round's new state in one statement, the ledger's two; a paid exchange or a
# bet passes the protection too.
EXCHANGE = SERVICE + 4 + PROTECTION
# As a decision: the box settlements ride on the round's statement (JD-11..13).
SETTLE = EXCHANGE
# Over the API: the player's role (this client is signed in without a token), the request's
# transaction (a savepoint in the test's), and the response stored under the Idempotency-Key.
# What is overdue is the timer's (JD-4): a decision's request reads nothing for it.
HTTP_OPEN = 1 + 2 + OPEN + 1
HTTP_SETTLE = 1 + 2 + SETTLE + 1
# A token sign-in reads the user and the role in one statement.
HTTP_TOKEN_SETTLE = HTTP_SETTLE


@pytest.fixture
def funded(player, pit, joker_table):
    """A player with 100.00 who has played a round, so the house's game accounts exist."""
    money.deposit(player=player, currency="USD", amount=Decimal("100.60"), reason="cash", by=pit)
    first = joker_draw.open_round(
        player=player, table=joker_table, boxes=[BoxRequest(1, D60)]
    ).round
    joker_draw.act(player=player, round_id=first.pk, box=1, action="fold")  # loses the ante
    return player


def test_an_opening_an_exchange_and_a_settlement_send_few_statements(
    funded, joker_table, django_assert_max_num_queries
):
    with django_assert_max_num_queries(OPEN):
        round_ = joker_draw.open_round(
            player=funded,
            table=joker_table,
            boxes=[BoxRequest(1, D60, Decimal("0.30"))],
        ).round
    cards = [str(card) for card in engine.from_json(round_.engine_state).boxes[0].cards[:2]]
    with django_assert_max_num_queries(EXCHANGE):
        joker_draw.act(player=funded, round_id=round_.pk, box=1, action="exchange", cards=cards)
    with django_assert_max_num_queries(SETTLE):
        round_ = joker_draw.act(player=funded, round_id=round_.pk, box=1, action="bet").round

    # Fewer statements, the same round: opened, exchanged, bet and settled once (JD-5, JD-11).
    assert round_.status == RoundStatus.SETTLED
    assert round_.events.count() == round_.history_length
    assert BoxSettlement.objects.filter(round=round_).count() == 1
    references = LedgerTransaction.objects.filter(reference__startswith=f"round:{round_.pk}:")
    # The ante and BONUS, the exchange's extra ante, the bet, the payout.
    assert references.count() == 4
    money_check = money.wallet(funded, "USD").balance
    settled = BoxSettlement.objects.get(round=round_)
    assert money_check == Decimal("100.00") + settled.total_result


def token_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issue_token(user, 'tests')[0]}")
    return client


def test_a_round_over_the_api_sends_few_statements(
    funded, joker_table, django_assert_max_num_queries
):
    client = api_client(funded)
    with django_assert_max_num_queries(HTTP_OPEN):
        opened = open_round(client, joker_table, ONE_BOX, key="open-1")
    assert opened.status_code == 201, opened.json()
    with django_assert_max_num_queries(HTTP_SETTLE):
        settled = act(client, opened.json()["id"], "bet-1", box=1, action="bet")
    assert settled.status_code == 200, settled.json()
    assert settled.json()["state"] == RoundStatus.SETTLED
    # The paytables the response names come with the round, not one query each.
    assert settled.json()["paytable_version"]["bet"]["paytable"] == "joker-draw-bet-default"


def test_a_token_sign_in_reads_the_user_and_the_role_together(
    funded, pit, joker_table, django_assert_max_num_queries
):
    client = token_client(funded)
    opened = open_round(client, joker_table, ONE_BOX, key="open-token")
    assert opened.status_code == 201, opened.json()
    with django_assert_max_num_queries(HTTP_TOKEN_SETTLE):
        settled = act(client, opened.json()["id"], "bet-token", box=1, action="bet")
    assert settled.status_code == 200, settled.json()
    # The role read with the token still decides: staff stake no money.
    refused = open_round(token_client(pit), joker_table, ONE_BOX, key="open-staff")
    assert refused.status_code == 403, refused.json()


def test_a_late_decision_over_the_api_is_refused_and_the_timer_folds_the_box(funded, joker_table):
    client = api_client(funded)
    opened = open_round(client, joker_table, [{"box": 1, "ante": "0.60"}], key="open-late").json()
    Round.objects.filter(pk=opened["id"]).update(
        decision_deadline=timezone.now() - timedelta(seconds=1)
    )

    late = act(client, opened["id"], "bet-late", box=1, action="bet")

    # JD-4: the late bet is refused and changes nothing; the refusal stores nothing under its key.
    assert late.status_code == 409, late.json()
    assert late.json()["errors"] == {"action": [late.json()["detail"]]}
    assert Round.objects.get(pk=opened["id"]).status == RoundStatus.DECIDING
    assert money.wallet(funded, "USD").balance == Decimal("99.40")
    # The timer folds the box, which ends the round (JD-8).
    joker_draw.expire_decision(opened["id"])
    round_ = Round.objects.get(pk=opened["id"])
    assert round_.status == RoundStatus.SETTLED
    box = engine.from_json(round_.engine_state).boxes[0]
    assert box.status == engine.BoxStatus.FOLDED
    assert round_.events.filter(kind="fold", data__timed_out=True).exists()
    assert not IdempotentRequest.objects.filter(key="bet-late").exists()
    assert money.wallet(funded, "USD").balance == Decimal("99.40")
