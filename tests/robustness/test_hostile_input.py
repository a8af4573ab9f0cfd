"""A player probing the API: malformed amounts, unknown and duplicate cards, actions out of turn,
other players' rounds and tables. Each is refused with a 4xx naming the field (and the rule)
and changes nothing. And no secret of an unfinished round (hole cards, the deck, the server
seed) shows in any answer, page or log line to anyone but its owner, the seed to no one
(FS-2, FS-7, JD-4, JD-5, ST-1, DM-1)."""

from __future__ import annotations

import json
import logging
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from games.models import Round
from games.stud.hand import Hand as StudHand
from games.stud.tasks import STUD as stud
from tests.fixtures.refusals import amount_requests, post, refused, snapshot
from tests.fixtures.routes import fetch, routes
from tests.fixtures.tables import make_stud_table
from tests.fixtures.users import api_client
from tests.fixtures.world import Secrets, World, cards, leaks

MALFORMED = ["1e9", "-0.30", "0.3000001", "NaN", "Infinity", "1" * 400, "", " 0.30", 0.3, None]


@pytest.mark.parametrize("amount", MALFORMED, ids=repr)
def test_malformed_amounts_are_refused_everywhere_money_comes_in(world: World, amount):
    before = snapshot()
    alice = api_client(world.player)
    joker = f"/api/v1/joker-draw/rounds/{world.open_round.pk}/"
    stakes = amount_requests(world, amount)
    for number, (url, body, field) in enumerate(stakes):
        if amount is None and field in ("bonus", "amount"):
            continue  # no BONUS bet, or an action without an amount, is a valid choice
        refused(post(alice, url, body, key=f"bad-{number}"), field)
    cage = api_client(world.pit)
    body = {"player": "alice", "currency": "USD", "amount": amount, "reason": "cash"}
    refused(post(cage, "/api/v1/cage/deposits/", body), "amount")
    assert alice.get(joker).json()["state"] == "deciding"
    assert snapshot() == before


@pytest.mark.parametrize(
    ("cards", "why"),
    [
        (["Xx"], "cards"),
        (["1s"], "cards"),
        (["As", "As"], "cards"),  # a card named twice
        (["JK", "JK"], "cards"),
        ([""], "cards"),
        (["A"], "cards"),
        (["Ass"], "cards"),
        ("As", "cards"),  # a string, not a list
        ([1, 2], "cards"),
    ],
)
def test_unknown_and_duplicate_cards_are_refused(world: World, cards, why):
    before = snapshot()
    alice = api_client(world.player)
    url = f"/api/v1/joker-draw/rounds/{world.open_round.pk}/actions/"
    refused(post(alice, url, {"box": 1, "action": "exchange", "cards": cards}), why)
    assert snapshot() == before


def test_cards_not_in_the_hand_and_too_many_are_refused(world: World):
    before = snapshot()
    alice = api_client(world.player)
    url = f"/api/v1/joker-draw/rounds/{world.open_round.pk}/actions/"
    held = alice.get(f"/api/v1/joker-draw/rounds/{world.open_round.pk}/").json()["boxes"][0][
        "cards"
    ]
    absent = next(c for c in ("As", "Kd", "2c", "7h", "JK", "9s") if c not in held)
    body = refused(post(alice, url, {"box": 1, "action": "exchange", "cards": [absent]}), "cards")
    assert "JD-5" in body["detail"]
    refused(post(alice, url, {"box": 1, "action": "exchange", "cards": [*held, absent]}), "cards")
    refused(post(alice, url, {"box": 2, "action": "fold"}), "box")
    refused(post(alice, url, {"box": 1, "action": "fold", "cards": held[:1]}), "cards")
    refused(post(alice, url, {"box": 1, "action": "double"}), "action")
    assert snapshot() == before


def test_drawmaha_cards_out_of_the_hand_and_out_of_turn_are_refused(world: World):
    before = snapshot()
    url = f"/api/v1/drawmaha/tables/{world.drawmaha_table.pk}/actions/"
    for user in (world.player, world.other_player):
        client = api_client(user)
        refused(post(client, url, {"action": "exchange", "cards": ["Zz"]}), "cards")
        view = client.get(f"/api/v1/drawmaha/tables/{world.drawmaha_table.pk}/").json()
        if not view["hand"]["legal_actions"]:  # not this player's turn
            body = post(client, url, {"action": "fold"})
            assert 400 <= body.status_code < 500
            assert body.json()["detail"]
    assert snapshot() == before


def test_stud_action_out_of_turn_is_refused(world: World):
    before = snapshot()
    url = f"/api/v1/stud/tables/{world.stud_table.pk}/"
    waiting = [
        user
        for user in (world.player, world.other_player)
        if not api_client(user).get(url).json()["hand"]["legal_actions"]
    ]
    assert len(waiting) == 1
    response = post(api_client(waiting[0]), f"{url}actions/", {"action": "fold"})
    assert response.status_code in (400, 409)
    # The table's own seat numbers (1 and 2 here), not the engine's.
    seat_of = {u: 1 if u == world.player else 2 for u in (world.player, world.other_player)}
    acting = 3 - seat_of[waiting[0]]
    assert f"seat {acting} acts now, not seat {seat_of[waiting[0]]}" in response.json()["detail"]
    assert "ST-3" in response.json()["detail"]
    assert snapshot() == before


def test_other_players_rounds_and_tables_are_not_theirs(world: World, pit, pit2):
    before = snapshot()
    bob = api_client(world.other_player)
    mine = f"/api/v1/joker-draw/rounds/{world.open_round.pk}/"
    assert bob.get(mine).status_code == 404
    body = refused(post(bob, f"{mine}actions/", {"box": 1, "action": "fold"}), "round", status=404)
    assert "No such round" in body["detail"]
    listed = bob.get(f"/api/v1/joker-draw/rounds/?table={world.joker_table.pk}").json()
    assert world.open_round.pk not in [r["id"] for r in listed["results"]]
    # A table where bob has no seat: nothing to leave, no turn to take.
    empty = make_stud_table(pit, pit2, name="Stud empty")
    stud.join(player=world.player, table=empty, seat=1, buy_in=Decimal("50.00"))
    before = snapshot()
    for path in ("leave/", "actions/"):
        response = post(bob, f"/api/v1/stud/tables/{empty.pk}/{path}", {"action": "fold"})
        assert 400 <= response.status_code < 500, response.content
        assert "seat" in response.json()["detail"].lower()
    assert bob.get("/api/v1/stud/hands/999999/").status_code == 404
    assert bob.get("/api/v1/joker-draw/rounds/?table=x").status_code == 400
    assert snapshot() == before


# Secrets ----------------------------------------------------------------------------------------


def _viewers(world: World) -> dict[str, tuple[User | None, Secrets]]:
    staff = world.secrets["staff"]
    return {
        "anonymous": (None, staff),
        "player": (world.player, world.secrets[world.player.username]),
        "other_player": (world.other_player, world.secrets[world.other_player.username]),
        "pit": (world.pit, staff),
        "auditor": (world.auditor, staff),
        "admin_user": (world.admin_user, staff),
    }


@pytest.mark.parametrize(
    "viewer", ["anonymous", "player", "other_player", "pit", "auditor", "admin_user"]
)
def test_no_page_or_answer_shows_a_secret_of_an_unfinished_round(world: World, sample_ids, viewer):
    user, forbidden = _viewers(world)[viewer]
    clients: list[Client] = [Client()]
    if user is not None:
        clients[0].force_login(user)
        token = APIClient()
        token.credentials(HTTP_AUTHORIZATION=f"Token {world.token(user)}")
        clients.append(token)
    seen = 0
    for route in routes():
        url = route.url(sample_ids)
        if url is None:
            continue
        for client in clients:
            response = fetch(client, url)
            if response.streaming:
                continue
            text = response.content.decode(errors="replace")
            assert not leaks(text, forbidden), (url, leaks(text, forbidden)[:3])
            seen += 1
    assert seen > 40


def test_the_owner_sees_their_own_cards_and_never_the_seed(world: World):
    round_ = (
        api_client(world.player).get(f"/api/v1/joker-draw/rounds/{world.open_round.pk}/").json()
    )
    assert round_["boxes"][0]["cards"]  # their own cards...
    assert "server_seed" not in round_  # ...but not the seed before the end (FS-7)
    assert world.open_round.secret_server_seed() not in json.dumps(round_)


def test_no_log_line_carries_a_secret(world: World, caplog, settings, pit, pit2):
    """Play a joker draw round and deal a stud hand with every logger at DEBUG."""
    settings.DEBUG = True  # the SQL logger too: no query parameters may reach a log
    django_logger = logging.getLogger("django")
    django_logger.addHandler(caplog.handler)
    try:
        with caplog.at_level(logging.DEBUG):
            bob = api_client(world.other_player)
            opened = post(
                bob,
                "/api/v1/joker-draw/rounds/",
                {"table": world.joker_table.pk, "boxes": [{"box": 1, "ante": "0.30"}]},
                key="log-1",
            ).json()
            table = make_stud_table(pit, pit2, name="Stud logged")
            for number, user in enumerate((world.player, world.other_player), start=1):
                post(
                    api_client(user),
                    f"/api/v1/stud/tables/{table.pk}/seats/",
                    {"seat": number, "buy_in": "50.00"},
                    key=f"seat-{number}",
                )
    finally:
        django_logger.removeHandler(caplog.handler)
    joker = Round.objects.get(pk=opened["id"])
    hand = Round.objects.filter(table=table).get()
    hidden = [tuple(opened["boxes"][0]["cards"])]
    hidden += [cards(seat.down) for seat in StudHand.from_json(hand.engine_state).state.hands]
    forbidden = Secrets((joker.secret_server_seed(), hand.secret_server_seed()), tuple(hidden))
    logged = "\n".join(record.getMessage() for record in caplog.records) + caplog.text
    assert not leaks(logged, forbidden), leaks(logged, forbidden)[:3]


@pytest.mark.parametrize(
    "text",
    [
        '{"cards": ["As", "Kd", "JK", "7c", "2h"]}',
        '["As","Kd","JK","7c","2h"]',
        "dealt ['As', 'Kd', 'JK', '7c', '2h']",
        "As Kd JK 7c 2h",
        '<li class="card">As</li>\n<li class="card red">Kd</li><li>JK</li><li>7c</li><li>2h</li>',
    ],
)
def test_the_leak_detector_finds_hidden_cards_however_written(text):
    hidden = Secrets(("seed",), (("As", "Kd", "JK", "7c", "2h"),))
    assert leaks(text, hidden) == ["As Kd JK 7c 2h"]
    assert leaks(text.replace("7c", "7d"), hidden) == []
    assert leaks(f"{text} seed", hidden) == ["seed", "As Kd JK 7c 2h"]


def test_two_hidden_cards_leak_only_written_alone():
    down = Secrets((), (("Jd", "3c"),))
    assert leaks('{"down": ["Jd", "3c"], "up": ["7h"]}', down) == ["Jd 3c"]
    assert leaks('{"cards": ["9s", "Jd", "3c", "Ah", "2d"]}', down) == []
    # A form token or a hash is not a hand, though four of its letters read as two cards.
    assert leaks('<input name="csrfmiddlewaretoken" value="x0Jd3cQ">', down) == []
    assert leaks("sha256 a1Jd3c0f", down) == []
    assert leaks("<li>Jd</li> <li>3c</li>", down) == ["Jd 3c"]
