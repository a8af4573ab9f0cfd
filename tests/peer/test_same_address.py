"""One address, one seat at a peer table (house rule of fair play, code ``same_address``): two
accounts signed in from one address, or sitting down from it, may not sit at the same stud or
Drawmaha table, nor add chips there, nor decide in a hand both were dealt; one who signs in from
a seated partner's address while seated is sat out before the next deal, with an alert. The
address is the throttles' (``NUM_PROXIES``): a header the client writes itself changes
nothing, and players behind the casino's own proxy are told apart by the address the proxy
forwards. The refusal never names the other player."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from casino.models import SignInAddress
from casino.refusals import Kind
from games.drawmaha.tasks import DRAWMAHA
from games.models import AlertKind, CollusionAlert, Seat, SeatStatus
from games.peer.fair_play import SameAddress
from games.stud.tasks import STUD
from payouts.models import LedgerTransaction
from tests.fixtures.drawmaha import to_act as drawmaha_to_act
from tests.fixtures.peer import balance, running
from tests.fixtures.stud import to_act as stud_to_act
from tests.fixtures.users import api_client

TOKEN = "/api/v1/auth/token/"
HOME, CAFE, PROXY = "203.0.113.7", "198.51.100.20", "192.0.2.1"


@pytest.fixture(autouse=True)
def nothing_shared(settings):
    settings.FAIR_PLAY_SHARED_ADDRESSES = []
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 0}


def signed_in(user, address: str, forwarded: str | None = None) -> APIClient:
    """An API client that logged in with a password from ``address`` (through a proxy that
    forwarded ``forwarded``, if given), and keeps sending requests from there."""
    extra: dict[str, Any] = {"REMOTE_ADDR": address}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    client = APIClient(**extra)
    answer = client.post(
        TOKEN, {"username": user.username, "password": f"{user.username}-pw"}, format="json"
    )
    assert answer.status_code == 200, answer.content
    client.credentials(HTTP_AUTHORIZATION=f"Token {answer.json()['token']}")
    return client


def sit(client: APIClient, game: str, table, seat: int, key: str):
    return client.post(
        f"/api/v1/{game}/tables/{table.pk}/seats/",
        {"seat": seat, "buy_in": "60.00"},
        format="json",
        HTTP_IDEMPOTENCY_KEY=key,
    )


def seated(table) -> list[str]:
    return sorted(
        Seat.objects.filter(table=table)
        .exclude(status=SeatStatus.LEFT)
        .values_list("player__username", flat=True)
    )


@pytest.mark.parametrize("game", ["stud", "drawmaha"])
def test_a_second_account_from_one_address_is_refused_and_not_named(
    game, players, stud_table, drawmaha_table
):
    table = stud_table if game == "stud" else drawmaha_table
    ann, ben, _cal = players
    assert sit(signed_in(ann, HOME), game, table, 1, "ann").status_code == 201
    before = balance(ben), LedgerTransaction.objects.count()

    answer = sit(signed_in(ben, HOME), game, table, 2, "ben")

    assert answer.status_code == 409
    body = answer.json()
    assert body["code"] == "same_address"
    assert "table" in body["errors"]
    assert "ann" not in answer.content.decode()  # privacy: never who shares the address
    assert seated(table) == ["ann"]
    assert (balance(ben), LedgerTransaction.objects.count()) == before  # nothing moved
    assert Seat.objects.get(player=ann).client_address == HOME


def test_a_player_who_last_signed_in_from_a_seated_players_address_is_refused(players, stud_table):
    """Ann sat down from home, then went to a café and signed in there; Ben signs in at the
    café: Ann's last sign-in address is the café's, so Ben may not sit with her."""
    ann, ben, _cal = players
    assert sit(signed_in(ann, HOME), "stud", stud_table, 1, "ann").status_code == 201
    signed_in(ann, CAFE)
    assert sit(signed_in(ben, CAFE), "stud", stud_table, 2, "ben").json()["code"] == (
        "same_address"
    )


def test_signing_in_at_home_then_sitting_down_elsewhere_does_not_help(players, stud_table):
    """Ben signs in from the address Ann sat down from, then sits down from another one."""
    ann, ben, _cal = players
    assert sit(signed_in(ann, HOME), "stud", stud_table, 1, "ann").status_code == 201
    signed_in(ben, HOME)
    cafe = APIClient(REMOTE_ADDR=CAFE)
    cafe.force_authenticate(ben)
    assert sit(cafe, "stud", stud_table, 2, "ben").json()["code"] == "same_address"


def test_players_from_different_addresses_sit_together(players, stud_table):
    ann, ben, cal = players
    for number, (user, address) in enumerate(
        [(ann, HOME), (ben, CAFE), (cal, "2001:db8::5")], start=1
    ):
        assert (
            sit(signed_in(user, address), "stud", stud_table, number, user.username).status_code
            == 201
        )
    assert seated(stud_table) == ["ann", "ben", "cal"]


def test_a_forged_forwarded_header_does_not_help_without_our_proxies(players, stud_table):
    """NUM_PROXIES=0: X-Forwarded-For is the client's own writing and is ignored."""
    ann, ben, _cal = players
    assert sit(signed_in(ann, HOME), "stud", stud_table, 1, "ann").status_code == 201
    forged = signed_in(ben, HOME, forwarded="198.51.100.99")
    assert SignInAddress.objects.get(user=ben).address == HOME
    answer = forged.post(
        f"/api/v1/stud/tables/{stud_table.pk}/seats/",
        {"seat": 2, "buy_in": "60.00"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="ben",
        HTTP_X_FORWARDED_FOR="198.51.100.98",
    )
    assert answer.json()["code"] == "same_address"


def test_players_behind_our_proxy_are_told_apart_by_the_forwarded_address(
    players, stud_table, settings
):
    """NUM_PROXIES=1: both come through the casino's proxy (one connection address); the
    proxy appends each one's own address, which is what counts. A client's own entries before
    it are not."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    ann, ben, cal = players
    assert sit(signed_in(ann, PROXY, HOME), "stud", stud_table, 1, "ann").status_code == 201
    assert sit(signed_in(ben, PROXY, CAFE), "stud", stud_table, 2, "ben").status_code == 201
    assert Seat.objects.get(player=ben).client_address == CAFE
    # Cal writes Ben's address first; the proxy appends Cal's real one, Ann's: refused.
    answer = sit(signed_in(cal, PROXY, f"{CAFE}, {HOME}"), "stud", stud_table, 3, "cal")
    assert answer.json()["code"] == "same_address"


def test_a_seat_that_was_left_no_longer_counts(players, stud_table):
    ann, ben, _cal = players
    assert sit(signed_in(ann, HOME), "stud", stud_table, 1, "ann").status_code == 201
    STUD.leave(player=ann, table=stud_table)
    assert sit(signed_in(ben, HOME), "stud", stud_table, 2, "ben").status_code == 201


def test_the_casinos_own_terminals_may_share_a_table(players, stud_table, settings):
    settings.FAIR_PLAY_SHARED_ADDRESSES = ["203.0.113.0/24"]
    ann, ben, _cal = players
    assert sit(signed_in(ann, HOME), "stud", stud_table, 1, "ann").status_code == 201
    assert sit(signed_in(ben, "203.0.113.8"), "stud", stud_table, 2, "ben").status_code == 201


def test_a_rebuy_from_a_seated_players_address_is_refused(players, stud_table, settings):
    """Ben sat down from the café, then signed in from Ann's home and rebuys from there: no
    chips go onto a table shared with an account from his address; his stack is unchanged."""
    settings.STUD_HAND_PAUSE_SECONDS = 600  # no hand dealt: the rebuy is between hands
    ann, ben, _cal = players
    assert sit(signed_in(ann, HOME), "stud", stud_table, 1, "ann").status_code == 201
    assert sit(signed_in(ben, CAFE), "stud", stud_table, 2, "ben").status_code == 201
    home = signed_in(ben, HOME)
    answer = home.post(
        f"/api/v1/stud/tables/{stud_table.pk}/rebuy/",
        {"amount": "20.00"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="rebuy",
    )
    assert answer.status_code == 409
    assert answer.json()["code"] == "same_address"
    assert Seat.objects.get(player=ben, status=SeatStatus.SEATED).chips == Decimal("60.00")


def test_the_service_refuses_an_address_given_by_the_view(players, drawmaha_table):
    """Services read no request: the address is a keyword argument."""
    ann, ben, _cal = players
    DRAWMAHA.join(
        player=ann, table=drawmaha_table, seat=1, buy_in=Decimal("60.00"), client_address=HOME
    )
    with pytest.raises(SameAddress) as refused:
        DRAWMAHA.join(
            player=ben, table=drawmaha_table, seat=2, buy_in=Decimal("60.00"), client_address=HOME
        )
    assert refused.value.kind == Kind.CONFLICT
    assert refused.value.code == "same_address"


def test_signing_in_at_the_site_records_the_address(player, client):
    client.post(
        "/accounts/login/",
        {"username": player.username, "password": f"{player.username}-pw"},
        REMOTE_ADDR=CAFE,
    )
    assert SignInAddress.objects.get(user=player).address == CAFE


# Two seated players who come to share an address -------------------------------------------------


def act(client: APIClient, game: str, table, key: str):
    """The passive decision of the player to act (bring in, check, call or show; fold when
    there is none), as the table's legal actions offer it."""
    legal = client.get(f"/api/v1/{game}/tables/{table.pk}/").json()["hand"]["legal_actions"]
    kinds = [option["action"] for option in legal]
    action = next((k for k in ("bring_in", "check", "call", "show") if k in kinds), "fold")
    return client.post(
        f"/api/v1/{game}/tables/{table.pk}/actions/",
        {"action": action},
        format="json",
        HTTP_IDEMPOTENCY_KEY=key,
    )


@pytest.mark.parametrize("game", ["stud", "drawmaha"])
def test_a_decision_from_the_address_of_another_player_in_the_hand_is_refused(
    game, players, stud_table, drawmaha_table, settings
):
    """Ann at home and Ben at the café are dealt a hand; Ben then signs in from Ann's home. From
    then on neither decides from there while both are in the hand: the decision is refused and
    the hand is as it was. Before, the same decision went through."""
    settings.STUD_HAND_PAUSE_SECONDS = settings.DRAWMAHA_HAND_PAUSE_SECONDS = 0
    table = stud_table if game == "stud" else drawmaha_table
    ann, ben, _cal = players
    clients = {"ann": signed_in(ann, HOME), "ben": signed_in(ben, CAFE)}
    assert sit(clients["ann"], game, table, 1, "ann").status_code == 201
    assert sit(clients["ben"], game, table, 2, "ben").status_code == 201
    to_act = stud_to_act if game == "stud" else drawmaha_to_act
    hand = running(table)
    first = act(clients[to_act(table).player.username], game, table, "first")
    assert first.status_code == 200, first.content

    clients["ben"] = signed_in(ben, HOME)
    turn = to_act(table).player.username
    before = running(table).history_length
    answer = act(clients[turn], game, table, "second")

    assert answer.status_code == 409, answer.content
    assert answer.json()["code"] == "same_address"
    assert ({"ann", "ben"} - {turn}).pop() not in answer.content.decode()
    assert running(table).pk == hand.pk
    assert running(table).history_length == before


def test_a_sign_in_from_a_seated_partners_address_sits_the_newcomer_out(
    players, stud_table, auditor, settings
):
    """Ann sat down at home, Ben at the café; then Ben signs in from Ann's home. Before the next
    deal Ben, who came last, is sat out: the hand is dealt to Ann and Cal only, and the auditors
    get one alert naming the pair and the table."""
    settings.STUD_HAND_PAUSE_SECONDS = 600
    ann, ben, cal = players
    assert sit(signed_in(ann, HOME), "stud", stud_table, 1, "ann").status_code == 201
    assert sit(signed_in(ben, CAFE), "stud", stud_table, 2, "ben").status_code == 201
    signed_in(ben, HOME)
    settings.STUD_HAND_PAUSE_SECONDS = 0

    STUD.catch_up(stud_table.pk)
    assert sit(signed_in(cal, "2001:db8::5"), "stud", stud_table, 3, "cal").status_code == 201
    STUD.catch_up(stud_table.pk)

    assert Seat.objects.get(player=ben, status=SeatStatus.SEATED).sat_out_at is not None
    assert sorted(running(stud_table).engine_state["players"]) == sorted([ann.pk, cal.pk])
    (alert,) = CollusionAlert.objects.all()
    assert (alert.kind, alert.table, {alert.first_player, alert.second_player}) == (
        AlertKind.SHARED_ADDRESS,
        stud_table,
        {ann, ben},
    )
    report = api_client(auditor).get("/api/v1/staff/fair-play/").json()
    assert [a["kind"] for a in report["open_alerts"]] == ["shared_address"]


def test_the_casinos_terminals_share_an_address_while_seated(players, stud_table, settings):
    """Addresses in FAIR_PLAY_SHARED_ADDRESSES are not compared before a deal either."""
    settings.STUD_HAND_PAUSE_SECONDS = 600
    settings.FAIR_PLAY_SHARED_ADDRESSES = [HOME]
    ann, ben, _cal = players
    assert sit(signed_in(ann, HOME), "stud", stud_table, 1, "ann").status_code == 201
    assert sit(signed_in(ben, CAFE), "stud", stud_table, 2, "ben").status_code == 201
    signed_in(ben, HOME)
    settings.STUD_HAND_PAUSE_SECONDS = 0
    STUD.catch_up(stud_table.pk)
    assert sorted(running(stud_table).engine_state["players"]) == sorted([ann.pk, ben.pk])
    assert not CollusionAlert.objects.exists()
