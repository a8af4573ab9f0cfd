"""Three players at one seven-card stud table over real HTTP: they sit down, the hand starts
after the table's pause, they play several hands to the showdown and leave; then the ledger
checks and every chip is back in a wallet or in the rake (ST-1..ST-13)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.management import call_command

from games.models import Round, Seat
from games.stud.tasks import catch_up_stud_table
from payouts import services as money
from payouts.models import AccountKind
from tests.fixtures.http import Player
from tests.fixtures.tables import make_stud_table
from tests.fixtures.users import make_user

HANDS = 4


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_three_players_play_hands_to_showdown_over_http(live_server, pit, pit2, settings):
    settings.STUD_HAND_PAUSE_SECONDS = 1  # the three sit down before the first hand
    table = make_stud_table(pit, pit2, name="Stud HTTP")
    users = [make_user(name, "player") for name in ("ann", "ben", "cal")]
    for user in users:
        money.deposit(player=user, currency="USD", amount=Decimal("200.00"), reason="c", by=pit)
    clients = [Player(live_server.url, user.username) for user in users]
    base = f"/api/v1/stud/tables/{table.pk}/"
    for number, client in enumerate(clients, start=1):
        view = client.call("POST", f"{base}seats/", {"seat": number * 2, "buy_in": "100.00"})
        assert view["your_seat"] == number * 2
    assert view["hand"] is None  # the pause after the last player sat down

    seen_showdowns = 0
    for _ in range(2000):
        if Round.objects.filter(table=table, status="settled").count() >= HANDS:
            break
        for client in clients:
            view = client.call("GET", base)
            hand = view["hand"]
            if hand is None:
                catch_up_stud_table(table.pk)  # the timer: the pause over, it deals
                continue
            if hand["to_act"] != view["your_seat"]:
                continue
            assert len(hand["players"]) == len(clients)
            own = next(p for p in hand["players"] if p["seat"] == view["your_seat"])
            assert own["down"] is not None
            if hand["street"] != "showdown":  # shown hands are open to all (ST-10)
                assert all(p["down"] is None for p in hand["players"] if p is not own)
            kinds = [a["action"] for a in hand["legal_actions"]]
            action = next(k for k in ("bring_in", "check", "call", "show") if k in kinds)
            seen_showdowns += action == "show"
            client.call("POST", f"{base}actions/", {"action": action})
    settled = Round.objects.filter(table=table, status="settled")
    assert settled.count() >= HANDS
    assert seen_showdowns >= HANDS  # every hand went to the showdown
    for round_ in settled:
        assert round_.events.filter(kind="show").exists()

    history = clients[0].call("GET", f"/api/v1/stud/hands/?table={table.pk}")
    finished = [h for h in history["results"] if h["state"] == "settled"]
    assert len(finished) >= HANDS
    # FS-7b: a seated player reads no seed of a hand played; leaving the table reveals them all.
    assert not any(h["server_seed"] for h in finished)

    for client in clients:
        client.call("POST", f"{base}leave/", {})
    assert not Seat.objects.filter(table=table).exclude(status="left").exists()
    history = clients[0].call("GET", f"/api/v1/stud/hands/?table={table.pk}")
    assert all(h["server_seed"] for h in history["results"] if h["state"] == "settled")
    call_command("ledger_check", verbosity=0)
    rake = money.house_account(AccountKind.RAKE, "USD").balance
    assert rake > 0
    assert money.house_account(AccountKind.TABLE_CHIPS, "USD").balance == 0
    assert money.house_account(AccountKind.STAKES_IN_PLAY, "USD").balance == 0
    wallets = sum((money.wallet(user, "USD").balance for user in users), Decimal(0))
    assert wallets + rake == Decimal("600.00")
