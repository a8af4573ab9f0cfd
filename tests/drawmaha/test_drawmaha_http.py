"""Three players at one Drawmaha table over real HTTP: they sit down, play several hands to the
showdown (checking or calling, exchanging two cards, taking or rejecting the twist) and leave;
then the ledger checks and every chip is back in a wallet or in the rake (DM-1..DM-12)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.management import call_command

from games.drawmaha.tasks import catch_up_drawmaha_table
from games.models import Round, Seat
from games.tables.replay import replay_round
from payouts import services as money
from payouts.models import AccountKind
from tests.fixtures.http import Player
from tests.fixtures.tables import make_drawmaha_table
from tests.fixtures.users import make_user

HANDS = 4


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_three_players_play_drawmaha_hands_over_http(live_server, pit, pit2, settings):
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 1  # the three sit down before the first hand
    table = make_drawmaha_table(pit, pit2, name="Drawmaha HTTP")
    users = [make_user(name, "player") for name in ("ann", "ben", "cal")]
    for user in users:
        money.deposit(player=user, currency="USD", amount=Decimal("200.00"), reason="c", by=pit)
    clients = [Player(live_server.url, user.username) for user in users]
    base = f"/api/v1/drawmaha/tables/{table.pk}/"
    for number, client in enumerate(clients, start=1):
        view = client.call("POST", f"{base}seats/", {"seat": number, "buy_in": "100.00"})
        assert view["your_seat"] == number
    assert view["hand"] is None  # the pause after the last player sat down

    twists = 0
    for _ in range(3000):
        if Round.objects.filter(table=table, status="settled").count() >= HANDS:
            break
        for client in clients:
            view = client.call("GET", base)
            hand = view["hand"]
            if hand is None:
                catch_up_drawmaha_table(table.pk)  # the timer: the pause over, it deals
                continue
            if hand["to_act"] != view["your_seat"]:
                continue
            own = next(p for p in hand["players"] if p["seat"] == view["your_seat"])
            assert all(p["cards"] is None for p in hand["players"] if p is not own)
            options = {a["action"]: a for a in hand["legal_actions"]}
            if "exchange" in options:
                # Two cards from the first player, one (a twist, DM-6) from the others.
                count = 2 if own["seat"] == 1 else 1
                body = {"action": "exchange", "cards": own["cards"][:count]}
            elif "take" in options:
                twists += 1
                body = {"action": "take" if twists % 2 else "reject"}
            else:
                body = {"action": next(k for k in ("check", "call") if k in options)}
            client.call("POST", f"{base}actions/", body)
    settled = Round.objects.filter(table=table, status="settled")
    assert settled.count() >= HANDS
    assert twists >= HANDS
    for round_ in settled:
        parts = set(round_.events.filter(kind="pot_awarded").values_list("data__part", flat=True))
        assert parts == {"draw", "omaha"}  # DM-11: every hand went to the showdown
        report = replay_round(round_)
        assert report.ok, report.mismatches

    history = clients[0].call("GET", f"/api/v1/drawmaha/hands/?table={table.pk}")
    finished = [h for h in history["results"] if h["state"] == "settled"]
    assert len(finished) >= HANDS
    assert all(h["events"] for h in finished)
    # FS-7b: a seated player reads no seed of a hand played; leaving the table reveals them all.
    assert not any(h["server_seed"] for h in finished)
    one = clients[1].call("GET", f"/api/v1/drawmaha/hands/{finished[0]['id']}/")
    assert one["finishing_stacks"]

    for client in clients:
        client.call("POST", f"{base}leave/", {})
    assert not Seat.objects.filter(table=table).exclude(status="left").exists()
    history = clients[0].call("GET", f"/api/v1/drawmaha/hands/?table={table.pk}")
    assert all(h["server_seed"] for h in history["results"] if h["state"] == "settled")
    call_command("ledger_check", verbosity=0)
    rake = money.house_account(AccountKind.RAKE, "USD").balance
    assert rake > 0
    assert money.house_account(AccountKind.TABLE_CHIPS, "USD").balance == 0
    assert money.house_account(AccountKind.STAKES_IN_PLAY, "USD").balance == 0
    wallets = sum((money.wallet(user, "USD").balance for user in users), Decimal(0))
    assert wallets + rake == Decimal("600.00")
