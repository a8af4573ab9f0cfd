"""Hundreds of joker draw rounds over real HTTP with random legal decisions (JD-1..JD-16),
then the proofs: the ledger checks, every round replays, and the money only moved around."""

from __future__ import annotations

import hashlib
import json
import random
import urllib.request
from decimal import Decimal

import pytest
from django.core.management import call_command

from games.joker_draw.replay import replay_joker_draw
from games.models import Round
from payouts import services as money
from payouts.models import Account

ROUNDS = 200


class Player:
    def __init__(self, base_url: str, username: str, password: str) -> None:
        self.base_url = base_url
        self.keys = 0
        token = self.call(
            "POST", "/api/v1/auth/token/", {"username": username, "password": password}
        )
        self.token = token["token"]

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(self.base_url + path, method=method)  # noqa: S310 - local test server
        request.add_header("Content-Type", "application/json")
        if getattr(self, "token", None):
            request.add_header("Authorization", f"Token {self.token}")
        if method == "POST" and body is not None and path != "/api/v1/auth/token/":
            self.keys += 1
            request.add_header("Idempotency-Key", f"k{self.keys}")
        data = json.dumps(body).encode() if body is not None else None
        with urllib.request.urlopen(request, data, timeout=30) as response:  # noqa: S310
            return json.loads(response.read())


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_hundreds_of_rounds_over_http_replay_and_balance(
    live_server, player, pit, pit2, default_paytables
):
    from games.tables import services as tables
    from tests.fixtures.tables import joker_draw_limits

    table = tables.create_table(
        name="Joker HTTP", game="joker_draw", currency="USD", by=pit, reason="t"
    )
    limits = tables.propose_limits(
        table=table,
        values=joker_draw_limits(default_paytables, boxes_per_round=3),
        reason="t",
        by=pit,
    )
    tables.approve_limits(limits, by=pit2)
    tables.set_table_status(table, status="open", by=pit, reason="t")
    money.fund_house(currency="USD", amount=Decimal("100000.00"), reason="bankroll", by=pit)
    money.deposit(player=player, currency="USD", amount=Decimal("5000.00"), reason="cash", by=pit)
    before = {a.pk: a.balance for a in Account.objects.all()}

    client = Player(live_server.url, "alice", "alice-pw")
    published = client.call("GET", "/api/v1/me/seeds/")["commitment"]  # FS-2: before any stake
    chooser = random.Random(20261130)
    for _ in range(ROUNDS):
        boxes = [
            {"box": n, "ante": chooser.choice(["0.30", "0.60", "0.90", "3.00"])}
            | ({"bonus": "0.30"} if chooser.random() < 0.3 else {})
            for n in range(1, chooser.randint(1, 3) + 1)
        ]
        round_ = client.call(
            "POST", "/api/v1/joker-draw/rounds/", {"table": table.pk, "boxes": boxes}
        )
        while round_["state"] == "deciding":
            turn = round_["to_act"]
            action = chooser.choice(turn["options"])
            body = {"box": turn["box"], "action": action}
            if action == "exchange":
                hand = next(b["cards"] for b in round_["boxes"] if b["box"] == turn["box"])
                exchanged = next(b["exchanges"] for b in round_["boxes"] if b["box"] == turn["box"])
                count = 1 if exchanged else chooser.randint(1, 5)
                body["cards"] = chooser.sample(hand, count)
            round_ = client.call("POST", f"/api/v1/joker-draw/rounds/{round_['id']}/actions/", body)
        assert round_["commitment"] == published
        assert "server_seed" not in round_  # FS-7: secret until the pair is rotated
    rotation = client.call("POST", "/api/v1/me/seeds/rotate/", {})
    assert rotation["revealed"]["commitment"] == published
    assert rotation["revealed"]["rounds"] == ROUNDS
    assert (
        hashlib.sha256(bytes.fromhex(rotation["revealed"]["server_seed"])).hexdigest() == published
    )

    call_command("ledger_check", verbosity=0)
    assert Round.objects.filter(status="settled").count() == ROUNDS
    for settled in Round.objects.all():
        report = replay_joker_draw(settled)
        assert report.ok, report.mismatches
    after = {a.pk: a.balance for a in Account.objects.all()}
    changes = {pk: after[pk] - before.get(pk, Decimal(0)) for pk in after}
    assert sum(changes.values()) == 0  # players' and the house's changes cancel out
    wallet = money.wallet(player, "USD")
    assert changes[wallet.pk] != 0
