"""Retries of every money-moving endpoint over real HTTP: the same request sent five times with
one Idempotency-Key, one after another and all at once, has one effect and five byte-identical
answers; the same key with another body is refused (409) and changes nothing."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from django.core.management import call_command

from casino.models import IdempotentRequest
from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import Round, RoundEvent, Seat, Table
from games.peer.services import PeerGame
from games.stud.tasks import STUD as stud
from payouts import services as money
from payouts.models import LedgerTransaction
from tests.fixtures.http import ApiUser
from tests.fixtures.tables import make_drawmaha_table, make_stud_table
from tests.fixtures.users import make_user
from tests.fixtures.world import World

D = Decimal
RETRIES = 5
TABLES: dict[str, tuple[Callable[..., Table], PeerGame[Any, Any]]] = {
    "stud": (make_stud_table, stud),
    "drawmaha": (make_drawmaha_table, drawmaha),
}


@dataclass
class Request:
    username: str
    path: str
    body: dict[str, Any]
    other_body: dict[str, Any]  # the same key with this body must be refused


def _to_act(world: World, base_url: str, game: str) -> tuple[str, dict[str, Any]]:
    """Who acts now in the sample hand, and a passive action for them."""
    table = world.stud_table if game == "stud" else world.drawmaha_table
    for user in (world.player, world.other_player):
        status, view = ApiUser(base_url, user.username).call(
            "GET", f"/api/v1/{game}/tables/{table.pk}/"
        )
        assert status == 200, view
        kinds = [option["action"] for option in view["hand"]["legal_actions"]]
        if kinds:
            action = next(k for k in ("bring_in", "check", "call") if k in kinds)
            return user.username, {"action": action}
    raise AssertionError("nobody to act in the sample hand")


def cage_deposit(world: World, base_url: str) -> Request:
    body = {"player": "alice", "currency": "USD", "amount": "25.00", "reason": "cash"}
    return Request("pitboss", "/api/v1/cage/deposits/", body, {**body, "amount": "26.00"})


def cage_withdrawal(world: World, base_url: str) -> Request:
    body = {"player": "alice", "currency": "USD", "amount": "5.00", "reason": "cash out"}
    return Request("pitboss", "/api/v1/cage/withdrawals/", body, {**body, "player": "bob"})


def joker_round(world: World, base_url: str) -> Request:
    body = {"table": world.joker_table.pk, "boxes": [{"box": 1, "ante": "0.30"}]}
    other = {**body, "boxes": [{"box": 1, "ante": "0.60"}]}
    return Request("bob", "/api/v1/joker-draw/rounds/", body, other)


def joker_action(world: World, base_url: str) -> Request:
    # A one-box round: the fold closes it, so the effect is the settlement (JD-8, JD-11).
    round_ = joker_draw.open_round(
        player=world.other_player,
        table=world.joker_table,
        boxes=[BoxRequest(box=1, ante=D("0.30"))],
    ).round
    path = f"/api/v1/joker-draw/rounds/{round_.pk}/actions/"
    return Request("bob", path, {"box": 1, "action": "fold"}, {"box": 1, "action": "bet"})


def seat(game: str) -> Callable[[World, str], Request]:
    def request(world: World, base_url: str) -> Request:
        carol = make_user("carol", "player")
        money.deposit(player=carol, currency="USD", amount=D("300.00"), reason="c", by=world.pit)
        table = world.stud_table if game == "stud" else world.drawmaha_table
        body = {"seat": 3, "buy_in": "100.00"}
        return Request(
            "carol", f"/api/v1/{game}/tables/{table.pk}/seats/", body, {**body, "seat": 4}
        )

    return request


def leave(game: str) -> Callable[[World, str], Request]:
    def request(world: World, base_url: str) -> Request:
        # Alone at a table, so the cash-out is at once.
        make_table, service = TABLES[game]
        table = make_table(world.pit, world.pit2, name=f"{game} leave")
        service.join(player=world.player, table=table, seat=1, buy_in=D("50.00"))
        return Request("alice", f"/api/v1/{game}/tables/{table.pk}/leave/", {}, {"now": True})

    return request


def hand_action(game: str) -> Callable[[World, str], Request]:
    def request(world: World, base_url: str) -> Request:
        username, body = _to_act(world, base_url, game)
        table = world.stud_table if game == "stud" else world.drawmaha_table
        return Request(
            username, f"/api/v1/{game}/tables/{table.pk}/actions/", body, {"action": "fold"}
        )

    return request


ENDPOINTS = {
    "cage deposit": cage_deposit,
    "cage withdrawal": cage_withdrawal,
    "joker draw round": joker_round,
    "joker draw action": joker_action,
    "stud seat": seat("stud"),
    "drawmaha seat": seat("drawmaha"),
    "stud leave": leave("stud"),
    "drawmaha leave": leave("drawmaha"),
    "stud action": hand_action("stud"),
    "drawmaha action": hand_action("drawmaha"),
}


def effects() -> tuple[int, int, int, int]:
    return (
        LedgerTransaction.objects.count(),
        Round.objects.count(),
        Seat.objects.count(),
        RoundEvent.objects.exclude(actor=None).count(),
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("mode", ["in sequence", "in parallel"])
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_five_retries_have_one_effect_and_one_answer(live_server, world, settings, endpoint, mode):
    settings.STUD_HAND_PAUSE_SECONDS = settings.DRAWMAHA_HAND_PAUSE_SECONDS = 3600
    request = ENDPOINTS[endpoint](world, live_server.url)
    client = ApiUser(live_server.url, request.username)
    key = f"retry-{endpoint}"
    before = effects()
    if mode == "in sequence":
        answers = [client.raw("POST", request.path, request.body, key=key)]
        once = effects()
        answers += [client.raw("POST", request.path, request.body, key=key) for _ in range(4)]
        assert effects() == once
    else:
        start = threading.Barrier(RETRIES)

        def send(_: int) -> tuple[int, bytes]:
            start.wait()
            return client.raw("POST", request.path, request.body, key=key)

        with ThreadPoolExecutor(max_workers=RETRIES) as pool:
            answers = list(pool.map(send, range(RETRIES)))
    status, content = answers[0]
    assert status in (200, 201), content
    assert answers == [(status, content)] * RETRIES
    after = effects()
    assert after[0] - before[0] == 1  # one ledger transaction: the request's money moved once
    assert IdempotentRequest.objects.filter(key=key).count() == 1

    conflict = client.call("POST", request.path, request.other_body, key=key)
    assert conflict[0] == 409
    assert "Idempotency-Key" in conflict[1]["detail"]
    assert effects() == after
    call_command("ledger_check", verbosity=0)
