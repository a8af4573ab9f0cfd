"""The players' pages over the Django test client: who may open what, what each page shows,
that a player sees only their own rounds, and that a round still being played never shows its
seed or another player's cards. The live notices (server-sent events) are tested here too."""

from __future__ import annotations

import asyncio
import threading
import time
from decimal import Decimal

import pytest
import redis
from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import AsyncClient, Client

from games.drawmaha.hand import Hand as DrawmahaHand
from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.engine import fairness
from games.joker_draw import services as joker_draw
from games.joker_draw.selectors import dealt_cards
from games.joker_draw.services import BoxRequest
from games.models import Round, RoundStatus, TableStatus
from games.stud.hand import Hand as StudHand
from games.stud.tasks import STUD as stud
from games.tables import live, seeds
from games.tables import services as table_services
from payouts.services import deposit
from tests.fixtures.tables import make_drawmaha_table

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def funded(player, other_player, pit):
    for user in (player, other_player):
        deposit(player=user, currency="USD", amount=Decimal("500.00"), reason="cage", by=pit)


def play_round(user, table, *, finish: bool) -> Round:
    round_ = joker_draw.open_round(
        player=user, table=table, boxes=[BoxRequest(box=1, ante=Decimal("0.30"))]
    ).round
    if finish:
        joker_draw.act(player=user, round_id=round_.pk, box=1, action="fold")
        round_.refresh_from_db()
    return round_


def test_pages_ask_an_anonymous_visitor_to_sign_in(client, joker_table):
    for url in ("/play/", "/play/wallet/", "/play/recall/", f"/play/joker-draw/{joker_table.pk}/"):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"] == f"/accounts/login/?next={url}"


def test_a_player_signs_in_and_lands_in_the_lobby(client, player):
    page = client.get("/accounts/login/")
    assert page.status_code == 200
    assert b'<label for="id_username">' in page.content
    response = client.post("/accounts/login/", {"username": "alice", "password": "alice-pw"})
    assert response.status_code == 302
    assert response["Location"] == "/play/"
    wrong = Client().post("/accounts/login/", {"username": "alice", "password": "nope"})
    assert b"did not match" in wrong.content


def test_sign_out_is_a_post_button_and_signs_out(player):
    client = signed_in(player)
    lobby = client.get("/play/")
    assert b'action="/accounts/logout/"' in lobby.content
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/play/").status_code == 302


def test_lobby_lists_open_tables_of_each_game_with_their_limits(
    player, joker_table, stud_table, drawmaha_table, pit, pit2
):
    closed = make_drawmaha_table(pit, pit2, "Closed DM")
    table_services.set_table_status(closed, status=TableStatus.CLOSED, by=pit2, reason="test")
    page = signed_in(player).get("/play/").content.decode()
    assert f'href="/play/joker-draw/{joker_table.pk}/"' in page
    assert f'href="/play/stud/{stud_table.pk}/"' in page
    assert f'href="/play/drawmaha/{drawmaha_table.pk}/"' in page
    assert "Closed DM" not in page  # players see open tables only
    assert "Ante from 0.30 to 12.00 USD" in page
    assert "Fixed limit 5.00/10.00 USD" in page
    assert "Pot limit, blinds 1.00/2.00 USD" in page


def test_joker_table_form_carries_the_limits_in_force(player, joker_table):
    page = signed_in(player).get(f"/play/joker-draw/{joker_table.pk}/").content.decode()
    assert 'min="0.30" max="12.00" step="0.30"' in page  # JD-2: the ante's limits and step
    assert 'min="0.30" max="6.00" step="0.01"' in page  # the BONUS limits
    # Disabled until the script has looked for a round still open at the table.
    assert '<button type="submit" class="primary" disabled>Deal</button>' in page
    assert 'aria-live="polite"' in page


def test_peer_table_pages_and_their_game(player, stud_table, drawmaha_table):
    client = signed_in(player)
    stud_page = client.get(f"/play/stud/{stud_table.pk}/").content.decode()
    assert f'data-table-url="/api/v1/stud/tables/{stud_table.pk}/"' in stud_page
    assert 'min="50.00" max="500.00"' in stud_page  # the buy-in range
    drawmaha_page = client.get(f"/play/drawmaha/{drawmaha_table.pk}/").content.decode()
    assert f'data-table-url="/api/v1/drawmaha/tables/{drawmaha_table.pk}/"' in drawmaha_page
    # A table of another game, or an unknown game, is not found.
    assert client.get(f"/play/stud/{drawmaha_table.pk}/").status_code == 404
    assert client.get(f"/play/poker/{stud_table.pk}/").status_code == 404


def test_a_closed_table_is_not_found_by_a_player(player, joker_table, pit2):
    table_services.set_table_status(joker_table, status=TableStatus.CLOSED, by=pit2, reason="x")
    assert signed_in(player).get(f"/play/joker-draw/{joker_table.pk}/").status_code == 404


def test_wallet_shows_the_balance_and_the_transactions(player, joker_table, funded):
    play_round(player, joker_table, finish=True)
    page = signed_in(player).get("/play/wallet/").content.decode()
    assert '<span class="amount" data-testid="balance-USD">499.70</span>' in page
    assert "cage" in page
    assert "antes and BONUS" in page
    assert ">-0.30<" in page
    assert signed_in(player).get("/play/wallet/?currency=XYZ").status_code == 404


def test_recall_lists_only_the_players_own_rounds(player, other_player, joker_table, funded):
    mine = play_round(player, joker_table, finish=True)
    theirs = play_round(other_player, joker_table, finish=True)
    client = signed_in(player)
    page = client.get("/play/recall/").content.decode()
    assert f'href="/play/recall/joker-draw/{mine.pk}/"' in page
    assert f'href="/play/recall/joker-draw/{theirs.pk}/"' not in page
    assert client.get(f"/play/recall/joker-draw/{theirs.pk}/").status_code == 404


def test_a_settled_round_shows_its_seeds_and_every_dealt_card_position(player, joker_table, funded):
    round_ = play_round(player, joker_table, finish=True)
    settled = signed_in(player).get(f"/play/recall/joker-draw/{round_.pk}/").content.decode()
    assert round_.secret_server_seed() not in settled  # the pair is live: it shuffles on
    assert 'id="verify"' not in settled
    seeds.rotate(player)
    response = signed_in(player).get(f"/play/recall/joker-draw/{round_.pk}/")
    page = response.content.decode()
    assert round_.secret_server_seed() in page  # FS-7: revealed once the pair is rotated
    assert round_.commitment in page
    assert 'id="verify"' in page
    # One box and the dealer: ten cards, at the deck positions the seeds give (JD-3).
    deck = fairness.deck_order(
        round_.secret_server_seed(), round_.client_seed, round_.nonce, jokers=1
    )
    dealt = response.context["dealt"]
    assert [d["position"] for d in dealt] == list(range(10))
    assert [d["card"] for d in dealt] == [str(card) for card in deck[:10]]


def test_dealt_cards_of_a_round_with_exchanges_follow_the_deck(player, joker_table, funded):
    round_ = play_round(player, joker_table, finish=False)
    state = joker_draw.joker_draw.from_json(round_.engine_state)
    throw = [str(card) for card in state.boxes[0].cards[:2]]
    joker_draw.act(player=player, round_id=round_.pk, box=1, action="exchange", cards=throw)
    joker_draw.act(player=player, round_id=round_.pk, box=1, action="bet")
    round_.refresh_from_db()
    deck = fairness.deck_order(
        round_.secret_server_seed(), round_.client_seed, round_.nonce, jokers=1
    )
    dealt = dealt_cards(round_)
    # JD-4, JD-8: the exchange and the dealer's draw take the next cards off the top.
    assert [position for position, _ in dealt] == list(range(len(dealt)))
    assert len(dealt) >= 12
    assert [card for _, card in dealt] == [str(card) for card in deck[: len(dealt)]]


def _quoted_cards(page: str, cards) -> list[str]:
    """The cards that appear in the page as JSON strings ("As"): how the pages carry cards.
    Bare two-letter codes are no evidence: "9d" can be part of a hex seed."""
    return [str(card) for card in cards if f'"{card}"' in page]


def test_a_round_in_play_never_shows_its_seed_or_deck(player, other_player, joker_table, funded):
    round_ = play_round(player, joker_table, finish=False)
    state = joker_draw.joker_draw.from_json(round_.engine_state)
    own = signed_in(player).get(f"/play/recall/joker-draw/{round_.pk}/")
    assert own.status_code == 200
    page = own.content.decode()
    assert round_.secret_server_seed() not in page  # FS-2: secret until the round is over
    assert 'id="verify"' not in page
    assert own.context["dealt"] == []
    # The player sees their own cards, never the dealer's nor the rest of the deck.
    assert _quoted_cards(page, state.boxes[0].cards) == [str(c) for c in state.boxes[0].cards]
    assert _quoted_cards(page, set(state.deck) - set(state.boxes[0].cards)) == []
    for url in ("/play/recall/", f"/play/recall/joker-draw/{round_.pk}/"):
        other = signed_in(other_player).get(url).content.decode()
        assert round_.secret_server_seed() not in other
        assert _quoted_cards(other, state.deck) == []


def test_a_stud_hand_in_play_shows_no_hole_cards_or_seed_to_the_other_player(
    player, other_player, stud_table, funded
):
    stud.join(player=player, table=stud_table, seat=1, buy_in=Decimal("100.00"))
    stud.join(player=other_player, table=stud_table, seat=2, buy_in=Decimal("100.00"))
    hand = Round.objects.get(table=stud_table, status=RoundStatus.DECIDING)
    state = StudHand.from_json(hand.engine_state).state
    hole_cards = [*state.hands[0].down, *state.hands[1].down]
    for user in (player, other_player):
        client = signed_in(user)
        assert (
            f'href="/play/recall/stud/{hand.pk}/"'
            in client.get("/play/recall/?game=stud").content.decode()
        )
        page = client.get(f"/play/recall/stud/{hand.pk}/").content.decode()
        assert hand.secret_server_seed() not in page
        assert _quoted_cards(page, hole_cards) == []
        assert '"events"' not in page  # the history is shown once the hand is over


def test_a_finished_peer_hand_shows_each_cards_shuffle_and_position(
    player, other_player, auditor, drawmaha_table, funded
):
    drawmaha.join(player=player, table=drawmaha_table, seat=1, buy_in=Decimal("100.00"))
    drawmaha.join(player=other_player, table=drawmaha_table, seat=2, buy_in=Decimal("100.00"))
    hand = Round.objects.get(table=drawmaha_table, status=RoundStatus.DECIDING)
    state = DrawmahaHand.from_json(hand.engine_state)
    first = User.objects.get(pk=state.players[state.state.to_act])
    assert signed_in(first).get(f"/play/recall/drawmaha/{hand.pk}/").context["hand"].dealt == []
    drawmaha.act(player=first, table=drawmaha_table, action="fold")
    hand.refresh_from_db()
    assert hand.status == RoundStatus.SETTLED
    # Staff see every card, and auditors the seed (FS-7b); a player only their own cards and
    # the hands shown (none: DM-10).
    response = signed_in(auditor).get(f"/play/recall/drawmaha/{hand.pk}/")
    assert 'id="verify"' in response.content.decode()
    # DM-2: five cards each off one shuffle (FS-5), at the positions the seeds give.
    deck = fairness.deck_order(hand.secret_server_seed(), hand.client_seed, hand.nonce)
    dealt = response.context["hand"].dealt
    assert [(d["shuffle"], d["position"]) for d in dealt] == [(0, n) for n in range(10)]
    assert [d["card"] for d in dealt] == [str(card) for card in deck[:10]]
    assert response.context["hand"].reshuffles == []
    own = signed_in(first).get(f"/play/recall/drawmaha/{hand.pk}/").context["hand"].dealt
    folded = state.state.hands[state.players.index(first.pk)]
    assert sorted(d["card"] for d in own) == sorted(str(card) for card in folded)


def test_a_player_cannot_open_the_admin_or_the_staff_screens(player):
    client = signed_in(player)
    admin = client.get("/admin/")
    assert admin.status_code == 302
    assert admin["Location"].startswith("/admin/login/")
    assert client.get("/staff/").status_code == 403


def test_the_home_page_links_the_lobby(client):
    assert b'href="/play/"' in client.get("/").content


# Live notices ----------------------------------------------------------------------------------


def test_a_committed_change_is_published_to_the_tables_channel(
    player, stud_table, funded, django_capture_on_commit_callbacks
):
    listener = redis.Redis.from_url(settings.REDIS_URL).pubsub(ignore_subscribe_messages=True)
    listener.subscribe(live.channel(stud_table.pk))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        stud.join(player=player, table=stud_table, seat=1, buy_in=Decimal("100.00"))
    assert listener.get_message(timeout=0.2) is None  # nothing before the commit
    for callback in callbacks:
        callback()
    message = listener.get_message(timeout=2)
    assert message is not None
    assert message["data"] == b"changed"
    listener.close()


def events_of(table_id: int, **kwargs) -> list[str]:
    async def collect():
        return [event async for event in live.stream(table_id, **kwargs)]

    return asyncio.run(collect())


def test_the_event_stream_sends_a_notice_for_each_change():
    async def first_notice():
        events = live.stream(4242, lifetime=3)
        assert await anext(events) == "retry: 3000\n\n"
        timer = threading.Timer(0.3, live._publish, args=(4242,))
        timer.start()
        assert await anext(events) == 'event: changed\ndata: {"table": 4242}\n\n'
        await events.aclose()

    asyncio.run(first_notice())


def test_the_event_stream_beats_while_quiet_and_ends_after_its_lifetime(monkeypatch):
    monkeypatch.setattr(live, "HEARTBEAT_SECONDS", 0.2)
    started = time.monotonic()
    events = events_of(4243, lifetime=0.5)
    assert 0.5 <= time.monotonic() - started < 2
    assert events == ["retry: 3000\n\n", ": heartbeat\n\n", ": heartbeat\n\n"]


def test_a_quiet_stream_outlives_the_redis_socket_timeout():
    # Waiting for a notice longer than a read may take on the socket is no Redis failure.
    assert events_of(4244, lifetime=1.2) == ["retry: 3000\n\n"]


def test_without_redis_the_stream_says_so_and_publishing_is_harmless(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    assert events_of(1, lifetime=1) == [
        "retry: 3000\n\n",
        "event: unavailable\ndata: {}\n\n",
    ]
    live._publish(1)  # logs and returns


async def open_events(client, table):
    """The status of the table's event stream and, when it streams, its whole body."""
    response = await client.get(f"/play/tables/{table.pk}/events/")
    if not response.streaming:
        return response.status_code, None
    return response.status_code, b"".join([chunk async for chunk in response.streaming_content])


def test_the_events_view_streams_for_a_visible_table_only(player, stud_table, pit2, monkeypatch):
    monkeypatch.setattr(live, "STREAM_SECONDS", 0.1)

    async def watch():
        client = AsyncClient()
        await client.aforce_login(player)
        response = await client.get(f"/play/tables/{stud_table.pk}/events/")
        assert response.status_code == 200
        assert response["Content-Type"] == "text/event-stream"
        body = b"".join([chunk async for chunk in response.streaming_content])
        assert body == b"retry: 3000\n\n"
        await sync_to_async(table_services.set_table_status)(
            stud_table, status=TableStatus.CLOSED, by=pit2, reason="x"
        )
        assert (await open_events(client, stud_table))[0] == 404
        # A visitor is sent to sign in, and gets no stream.
        visitor = await AsyncClient().get(f"/play/tables/{stud_table.pk}/events/")
        assert visitor.status_code == 302
        assert visitor["Location"].startswith("/accounts/login/")

    async_to_sync(watch)()


def test_a_wsgi_server_gets_the_stream_event_by_event(player, stud_table, monkeypatch):
    """The tests' live server is WSGI: the same stream, from a plain iterator."""
    monkeypatch.setattr(live, "STREAM_SECONDS", 0.1)
    response = signed_in(player).get(f"/play/tables/{stud_table.pk}/events/")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == b"retry: 3000\n\n"


def test_a_player_holds_only_so_many_streams_open(
    player, other_player, stud_table, settings, monkeypatch
):
    """Each open stream counts against its user until it ends, however it ends; over
    LIVE_STREAMS_PER_USER the page gets 429 (and keeps its slow timer)."""
    settings.LIVE_STREAMS_PER_USER = 2
    monkeypatch.setattr(live, "STREAM_SECONDS", 0.1)
    url = f"/play/tables/{stud_table.pk}/events/"

    async def crowd():
        alice, bob = AsyncClient(), AsyncClient()
        await alice.aforce_login(player)
        await bob.aforce_login(other_player)
        first, second = await alice.get(url), await alice.get(url)
        assert (first.status_code, second.status_code) == (200, 200)
        refused = await alice.get(url)
        assert refused.status_code == 429
        assert "Too many live tables open" in refused.content.decode()
        assert (await bob.get(url)).status_code == 200  # counted per user
        # A stream that ends gives its place back.
        assert b"".join([chunk async for chunk in first.streaming_content])
        assert (await alice.get(url)).status_code == 200
        assert (await alice.get(url)).status_code == 429

    async_to_sync(crowd)()


def test_the_lobby_of_the_demo_data_shows_every_game_in_both_currencies(settings):
    settings.DEBUG = True
    call_command("seed_demo")
    page = signed_in(User.objects.get(username="player1")).get("/play/").content.decode()
    for path in ("joker-draw", "stud", "drawmaha"):
        assert page.count(f'href="/play/{path}/') == 2  # USD and FUN
