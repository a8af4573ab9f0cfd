"""Money under concurrency over real HTTP (the live server, one thread per request, PostgreSQL).

- 200 antes sent at once from one wallet funded for 50: exactly 50 rounds open, the balance
  never below zero.
- A bank test in the manner of Jepsen: players play joker draw rounds, sit down at and leave a
  stud table, and the cage takes deposits and pays withdrawals, all at once, while an auditor
  reads every account: every read sums to zero per currency (double entry, the cage included)
  and shows no wallet below zero. It is sized by operations, not seconds, so it does the same
  work on a fast machine and a busy one: each player tries ``BANK_ROUNDS`` rounds, the stud
  player ``BANK_SEATINGS`` seatings, the cage ``BANK_CAGE_MOVES`` deposits and withdrawals
  (``BANK_TEST_SCALE`` multiplies them all, for a longer soak).
"""

from __future__ import annotations

import os
import random
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import connection

from games.models import Game, Round, RoundStatus, Table
from games.tables import services as table_services
from payouts import services as money
from payouts.models import AccountKind, TransactionKind
from payouts.selectors import check_ledger
from tests.fixtures.http import ApiUser
from tests.fixtures.tables import joker_draw_limits, make_stud_table
from tests.fixtures.users import make_user

D = Decimal
ANTES = 200
FUNDED_FOR = 50
ANTE = D("0.30")
# More than the bank test did when it ran for 60 seconds, on a busy machine (156 rounds,
# 32 seatings, 108 cage moves): each figure is a number of attempts, each thread's own.
BANK_TEST_SCALE = float(os.environ.get("BANK_TEST_SCALE", "1"))
BANK_ROUNDS = round(60 * BANK_TEST_SCALE)
BANK_SEATINGS = round(40 * BANK_TEST_SCALE)
BANK_CAGE_MOVES = round(120 * BANK_TEST_SCALE)


def open_joker_tables(count: int, pit, pit2, paytables) -> list[Table]:
    def open_table(number: int) -> Table:
        try:
            table = table_services.create_table(
                name=f"Joker {number}", game=Game.JOKER_DRAW, currency="USD", by=pit, reason="t"
            )
            limits = table_services.propose_limits(
                table=table, values=joker_draw_limits(paytables), reason="t", by=pit
            )
            table_services.approve_limits(limits, by=pit2)
            return table_services.set_table_status(table, status="open", by=pit2, reason="t")
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(open_table, range(count)))


@pytest.mark.django_db(transaction=True)
def test_200_antes_at_once_on_a_wallet_funded_for_50(
    live_server, player, pit, pit2, default_paytables
):
    # One table per ante: a player has one unfinished round per table (JD-4), so every
    # request competes for the wallet alone.
    tables = open_joker_tables(ANTES, pit, pit2, default_paytables)
    # Enough to hold the top payout of every round the wallet pays for (36.90 each, HB-1):
    # the wallet alone decides who plays.
    money.fund_house(currency="USD", amount=D("2000.00"), reason="bankroll", by=pit)
    money.deposit(player=player, currency="USD", amount=ANTE * FUNDED_FOR, reason="c", by=pit)
    alice = ApiUser(live_server.url, "alice")
    start = threading.Barrier(20)
    first_wave = {table.pk for table in tables[:20]}

    def ante(table: Table) -> int:
        if table.pk in first_wave:
            start.wait()  # the first wave leaves together, to meet on the wallet's row lock
        body = {"table": table.pk, "boxes": [{"box": 1, "ante": str(ANTE)}]}
        status, answer = alice.call("POST", "/api/v1/joker-draw/rounds/", body)
        assert status in (201, 409), answer
        if status == 409:
            assert "Insufficient funds" in answer["detail"], answer
        return status

    with ThreadPoolExecutor(max_workers=20) as pool:
        outcomes = Counter(pool.map(ante, tables))

    assert outcomes == {201: FUNDED_FOR, 409: ANTES - FUNDED_FOR}
    assert Round.objects.filter(status=RoundStatus.DECIDING).count() == FUNDED_FOR
    assert money.wallet(player, "USD").balance == D("0.00")
    result = check_ledger()
    assert result.ever_negative == []  # no running balance of any wallet went below zero
    assert result.ok, result


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_bank_every_read_sums_to_zero_while_money_moves(
    live_server, pit, pit2, auditor, joker_table, settings
):
    settings.STUD_HAND_PAUSE_SECONDS = 3600  # one player at a time: seats, no hands
    stud_table = make_stud_table(pit, pit2, name="Stud bank")
    names = ("ann", "ben", "cal", "dee")
    users = [make_user(name, "player") for name in names]
    for user in users:
        money.deposit(player=user, currency="USD", amount=D("100.00"), reason="c", by=pit)
    players = [ApiUser(live_server.url, name) for name in names]
    cage = ApiUser(live_server.url, "pitboss")
    reader = ApiUser(live_server.url, "auditor")
    done = threading.Event()
    counts: Counter[str] = Counter()
    bad_reads: list[object] = []

    def play(client: ApiUser, seed: int) -> None:
        chooser = random.Random(seed)
        for _attempt in range(BANK_ROUNDS):
            body = {"table": joker_table.pk, "boxes": [{"box": 1, "ante": "0.30"}]}
            status, round_ = client.call("POST", "/api/v1/joker-draw/rounds/", body)
            if status != 201:
                assert status == 409, round_  # a wallet played out
                continue
            short = False  # the cage took the wallet's money for a bet or an exchange
            while round_["state"] == "deciding":
                turn = round_["to_act"]
                action = "fold" if short else chooser.choice(turn["options"])
                step = {"box": turn["box"], "action": action}
                if action == "exchange":
                    box = next(b for b in round_["boxes"] if b["box"] == turn["box"])
                    count = 1 if box["exchanges"] else chooser.randint(1, 3)  # JD-6
                    step["cards"] = chooser.sample(box["cards"], count)
                path = f"/api/v1/joker-draw/rounds/{round_['id']}/actions/"
                status, answer = client.call("POST", path, step)
                if status == 409 and action != "fold":
                    assert "Insufficient funds" in answer["detail"], answer
                    short = True
                    continue
                assert status == 200, answer
                round_ = answer
            counts["rounds"] += 1

    def sit_and_leave(client: ApiUser) -> None:
        base = f"/api/v1/stud/tables/{stud_table.pk}/"
        for _attempt in range(BANK_SEATINGS):
            status, answer = client.call("POST", f"{base}seats/", {"seat": 1, "buy_in": "50.00"})
            assert status in (201, 409), answer  # 409: the cage paid the wallet out
            if status == 201:
                status, answer = client.call("POST", f"{base}leave/", {})
                assert status == 200, answer
                counts["seatings"] += 1

    def cage_moves(seed: int) -> None:
        chooser = random.Random(seed)
        for _move in range(BANK_CAGE_MOVES):
            direction = chooser.choice(["deposits", "withdrawals"])
            body = {
                "player": chooser.choice(names),
                "currency": "USD",
                "amount": f"{chooser.randint(1, 2000) / 100:.2f}",
                "reason": "bank test",
            }
            status, answer = cage.call("POST", f"/api/v1/cage/{direction}/", body)
            assert status in (201, 409), answer  # 409: a withdrawal beyond the wallet
            counts[f"cage {status}"] += 1

    def read() -> None:
        while not done.is_set():
            status, accounts = reader.call("GET", "/api/v1/accounts/")
            assert status == 200, accounts
            totals: dict[str, Decimal] = {}
            for account in accounts:
                currency = account["currency"]
                totals[currency] = totals.get(currency, D(0)) + D(account["balance"])
                if account["kind"] != AccountKind.CAGE and D(account["balance"]) < 0:
                    bad_reads.append(account)
            if any(totals.values()):
                bad_reads.append(totals)
            counts["reads"] += 1

    with ThreadPoolExecutor(max_workers=8) as pool:
        reading = pool.submit(read)
        work = [pool.submit(play, client, n) for n, client in enumerate(players[:3])]
        work += [pool.submit(sit_and_leave, players[3]), pool.submit(cage_moves, 7)]
        try:
            for future in work:
                future.result()
        finally:
            done.set()
        reading.result()

    assert bad_reads == []
    assert counts["reads"] >= 10
    assert counts["rounds"] >= 3
    assert counts["seatings"] >= 1
    assert counts["cage 201"] >= 3
    call_command("ledger_check", verbosity=0)
    result = check_ledger()
    assert result.ok, result
    assert result.totals_by_currency == {"USD": D(0)}
    assert money.house_account(AccountKind.TABLE_CHIPS, "USD").balance == 0
    moved = money.house_account(AccountKind.CAGE, "USD")
    assert moved.entries.filter(transaction__kind=TransactionKind.WITHDRAWAL).exists()
