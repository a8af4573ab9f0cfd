"""What the stud source (002) asks beyond the deal, through the service and the API: the hand
history shows a hand's players every hand that reached the showdown and no folded hand, and an
uncalled winner may show (ST-10); the ante is posted automatically unless switched off, which
sits the player out; no short buys (ST-1)."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

import pytest

from games.engine import stud_phh
from games.models import Round, RoundEvent, Seat
from games.peer import services as peer_services
from games.stud.hand import Hand
from games.stud.tasks import STUD as stud
from payouts.models import AccountKind, LedgerTransaction
from tests.fixtures.peer import assert_chips_held, balance, house, running
from tests.fixtures.stud_play import stud_deck
from tests.fixtures.users import api_client, make_user

D = Decimal
TABLES = "/api/v1/stud/tables/"
HANDS = "/api/v1/stud/hands/"

# Ann (seat 1) brings in with the 2c and folds; Ben's kings full beat Cal's queen high.
ANN_DOWN = ["7h", "8d"]
THREE_WAY = (
    ["7h 8d 2c", "As Ad Kc", "Qs Jh 9c"],
    "3d | Ks 4c",
    "3h | Kd 5c",
    "3s | 2h 6d",
    "4h | 7c 8s",
)


@pytest.fixture
def stacked(monkeypatch):
    """Every hand at the table is dealt from the deck given (a stacked one, for a known
    showdown) instead of the committed shuffle."""

    def use(third: list[str], *streets: str) -> None:
        deck = stud_deck(third, *streets)
        monkeypatch.setattr(peer_services, "Deck", SimpleNamespace(shuffled=lambda *_: deck))

    return use


def act(table, user, action, **body):
    response = api_client(user).post(
        f"{TABLES}{table.pk}/actions/",
        {"action": action, **body},
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"{user.username}-{RoundEvent.objects.count()}",
    )
    assert response.status_code == 200, response.json()


def sit(users, table, buy_in="60.00"):
    for number, user in enumerate(users, start=1):
        stud.join(player=user, table=table, seat=number, buy_in=D(buy_in))


def down_cards(recalled: dict, seat: int) -> list[str]:
    """The down cards of table seat ``seat`` in a recalled hand's deal events."""
    return [
        dealt["card"]
        for event in recalled["events"]
        if event["kind"] == "deal"
        for dealt in event["data"]["cards"]
        if recalled["seats"][dealt["seat"]] == seat and dealt["face"] == "down"
    ]


def hand_of(recalled: dict, seat: int) -> dict:
    return next(h for h in recalled["hands"] if h["seat"] == seat)


def sit_then_deal(users, table, settings, buy_in="60.00") -> Round:
    """Seat every player first (a long pause), then deal them one hand."""
    settings.STUD_HAND_PAUSE_SECONDS = 3600
    sit(users, table, buy_in)
    settings.STUD_HAND_PAUSE_SECONDS = 0
    stud.catch_up(table.pk)
    hand = running(table)
    settings.STUD_HAND_PAUSE_SECONDS = 3600  # no next hand once this one is over
    return hand


def three_way_showdown(players, table, stacked, settings) -> Round:
    """Ann brings in and folds to Ben's completion; Ben and Cal check it down; Ben shows his
    kings full first and Cal mucks his queen high."""
    stacked(*THREE_WAY)
    ann, ben, cal = players
    hand = sit_then_deal(players, table, settings)
    act(table, ann, "bring_in")
    act(table, ben, "complete")
    act(table, cal, "call")
    act(table, ann, "fold")
    for _street in range(4):
        act(table, ben, "check")
        act(table, cal, "check")
    act(table, ben, "show")
    act(table, cal, "muck")
    hand.refresh_from_db()
    assert hand.status == "settled"
    return hand


# ST-10: the hand history -----------------------------------------------------------------------


def test_st10_every_player_of_the_hand_sees_every_showdown_hand_mucked_ones_included(
    players, stud_table, stacked, settings
):
    """Source 002: a hand that reached the showdown and was not shown can be seen by the
    hand's other players in its history; Ann, who folded, sees them too."""
    hand = three_way_showdown(players, stud_table, stacked, settings)
    for viewer in players:
        recalled = api_client(viewer).get(f"{HANDS}{hand.pk}/").json()
        assert hand_of(recalled, 2) == {
            "seat": 2, "up": ["Kc", "Ks", "Kd", "2h"], "down": ["As", "Ad", "7c"],
            "folded": False, "showdown": "shown", "shown_after_the_hand": False,
        }  # fmt: skip
        assert hand_of(recalled, 3) == {
            "seat": 3, "up": ["9c", "4c", "5c", "6d"], "down": ["Qs", "Jh", "8s"],
            "folded": False, "showdown": "mucked", "shown_after_the_hand": False,
        }  # fmt: skip
        assert down_cards(recalled, 3) == ["Qs", "Jh", "8s"]
        actions = stud_phh.loads(api_client(viewer).get(f"{HANDS}{hand.pk}/phh/").content.decode())
        assert {"d dh p3 QsJh9c", "d dh p3 8s", "p3 sm"} <= set(actions.actions)


def test_st10_a_folded_hand_is_never_shown_to_the_other_players(
    players, stud_table, stacked, settings, pit, client
):
    """Ann folded on third street: Ben and Cal see her door card (it was face up) but never
    her down cards, in the recall, the PHH file or the recall page's cards; Ann sees her own,
    staff and auditors see everything."""
    ann, ben, cal = players
    hand = three_way_showdown(players, stud_table, stacked, settings)
    for viewer in (ben, cal):
        recalled = api_client(viewer).get(f"{HANDS}{hand.pk}/").json()
        assert hand_of(recalled, 1) == {
            "seat": 1, "up": ["2c"], "down": None, "folded": True, "showdown": None,
            "shown_after_the_hand": False,
        }  # fmt: skip
        assert down_cards(recalled, 1) == ["??", "??"]
        dealt_to_ann = [
            dealt for event in recalled["events"] if event["kind"] == "deal"
            for dealt in event["data"]["cards"] if dealt["seat"] == 0 and dealt["face"] == "down"
        ]  # fmt: skip
        assert all(set(dealt) == {"seat", "face", "card"} for dealt in dealt_to_ann)
        listed = api_client(viewer).get(f"{HANDS}?table={stud_table.pk}").json()["results"]
        assert down_cards(next(h for h in listed if h["id"] == hand.pk), 1) == ["??", "??"]
        actions = stud_phh.loads(api_client(viewer).get(f"{HANDS}{hand.pk}/phh/").content.decode())
        assert "d dh p1 ????2c" in actions.actions
        assert not set(ANN_DOWN) & {card for action in actions.actions for card in _cards(action)}
        client.force_login(viewer)
        page = client.get(f"/play/recall/stud/{hand.pk}/")
        assert page.status_code == 200
        on_page = {dealt["card"] for dealt in page.context["hand"].dealt}
        assert not set(ANN_DOWN) & on_page
        assert not any(f'data-card="{card}"' in page.content.decode() for card in ANN_DOWN)
        assert {"As", "Qs", "2c"} <= on_page
    own = api_client(ann).get(f"{HANDS}{hand.pk}/").json()
    assert hand_of(own, 1)["down"] == ANN_DOWN
    assert down_cards(own, 1) == ANN_DOWN
    assert hand_of(api_client(pit).get(f"{HANDS}{hand.pk}/").json(), 1)["down"] == ANN_DOWN
    staff_file = stud_phh.loads(api_client(pit).get(f"{HANDS}{hand.pk}/phh/").content.decode())
    assert "d dh p1 7h8d2c" in staff_file.actions


def _cards(action: str) -> set[str]:
    """The cards named in a PHH action's last word (``d dh p1 7h8d2c``: 7h, 8d, 2c)."""
    word = action.split()[-1]
    return {word[i : i + 2] for i in range(0, len(word) - 1, 2)}


def test_st10_a_player_not_in_the_hand_sees_nothing_of_it(players, stud_table, stacked, settings):
    hand = three_way_showdown(players, stud_table, stacked, settings)
    outsider = make_user("dan", "player")
    assert api_client(outsider).get(f"{HANDS}{hand.pk}/").status_code == 404
    assert api_client(outsider).get(f"{HANDS}{hand.pk}/phh/").status_code == 404
    assert api_client(outsider).post(f"{HANDS}{hand.pk}/show/").status_code == 404


# Two players: Ann brings in, Ben completes and Ann folds: Ben wins uncalled.
HEADS_UP = (["7h 8d 2c", "As Ad Kc"],)


def uncalled_win(players, table, stacked, settings) -> Round:
    stacked(*HEADS_UP)
    ann, ben = players[:2]
    hand = sit_then_deal([ann, ben], table, settings)
    act(table, ann, "bring_in")
    act(table, ben, "complete")
    act(table, ann, "fold")
    hand.refresh_from_db()
    assert hand.status == "settled"
    return hand


def test_st10_an_uncalled_winner_may_show_after_the_hand(players, stud_table, stacked, settings):
    """The winner need not show (ST-10) and by default does not; if Ben chooses to show, Ann
    sees his cards in the history from then on. Showing twice is showing once."""
    ann, ben = players[:2]
    hand = uncalled_win(players, stud_table, stacked, settings)
    before = api_client(ann).get(f"{HANDS}{hand.pk}/").json()
    assert hand_of(before, 2)["down"] is None
    assert down_cards(before, 2) == ["??", "??"]
    for _ in range(2):
        shown = api_client(ben).post(f"{HANDS}{hand.pk}/show/")
        assert shown.status_code == 200
        assert hand_of(shown.json(), 2)["shown_after_the_hand"] is True
    after = api_client(ann).get(f"{HANDS}{hand.pk}/").json()
    assert hand_of(after, 2)["down"] == ["As", "Ad"]
    assert down_cards(after, 2) == ["As", "Ad"]
    assert hand_of(after, 1)["down"] == ["7h", "8d"]  # her own
    assert down_cards(api_client(ben).get(f"{HANDS}{hand.pk}/").json(), 1) == ["??", "??"]
    text = api_client(ann).get(f"{HANDS}{hand.pk}/phh/").content.decode()
    assert "d dh p2 AsAdKc" in stud_phh.loads(text).actions
    assert hand.shown_hands.count() == 1


def test_st10_only_the_uncalled_winner_shows_and_only_after_the_hand(
    players, stud_table, stacked, settings
):
    ann, ben = players[:2]
    hand = uncalled_win(players, stud_table, stacked, settings)
    refused = api_client(ann).post(f"{HANDS}{hand.pk}/show/")
    assert refused.status_code == 400
    assert "ST-10" in refused.json()["errors"]["hand"][0]
    assert not hand.shown_hands.exists()
    settings.STUD_HAND_PAUSE_SECONDS = 0
    stud.catch_up(stud_table.pk)  # the next hand, still being played
    refused = api_client(ben).post(f"{HANDS}{running(stud_table).pk}/show/")
    assert refused.status_code == 409
    assert "ST-10" in refused.json()["errors"]["hand"][0]


def test_st10_a_hand_at_the_showdown_is_not_shown_again(players, stud_table, stacked, settings):
    hand = three_way_showdown(players, stud_table, stacked, settings)
    refused = api_client(players[2]).post(f"{HANDS}{hand.pk}/show/")
    assert refused.status_code == 400
    assert "ST-10" in refused.json()["errors"]["hand"][0]
    assert not hand.shown_hands.exists()


# The automatic ante and sitting out (source 002) ----------------------------------------------


def auto_ante(user, table, on):
    return api_client(user).post(f"{TABLES}{table.pk}/ante/", {"on": on}, format="json")


def test_st1_a_player_who_switches_the_ante_off_sits_out(players, stud_table, settings):
    """Source 002: the ante is posted automatically; switched off, the player is dealt no
    hand and no ante is taken until it is on again. A hand already dealt goes on."""
    ann, ben, cal = players
    settings.STUD_HAND_PAUSE_SECONDS = 3600
    sit(players, stud_table)
    response = auto_ante(cal, stud_table, False)
    assert response.status_code == 200
    assert [s["auto_ante"] for s in response.json()["seats"]] == [True, True, False]
    settings.STUD_HAND_PAUSE_SECONDS = 0
    stud.catch_up(stud_table.pk)
    hand = running(stud_table)
    assert Hand.from_json(hand.engine_state).seats == (1, 2)
    assert [e.data["seat"] for e in RoundEvent.objects.filter(round=hand, kind="ante")] == [0, 1]
    assert Seat.objects.get(player=cal).chips == D("60.00")
    settings.STUD_HAND_PAUSE_SECONDS = 3600
    assert auto_ante(cal, stud_table, True).status_code == 200
    assert running(stud_table) == hand  # the hand being played goes on without Cal
    bring_in = Hand.from_json(hand.engine_state).state.to_act
    act(stud_table, (ann, ben)[bring_in], "bring_in")
    act(stud_table, (ann, ben)[1 - bring_in], "complete")
    act(stud_table, (ann, ben)[bring_in], "fold")
    settings.STUD_HAND_PAUSE_SECONDS = 0
    stud.catch_up(stud_table.pk)
    assert Hand.from_json(running(stud_table).engine_state).seats == (1, 2, 3)
    assert_chips_held(stud_table)


def test_st1_a_table_of_players_sitting_out_deals_no_hand(players, stud_table):
    ann, ben = players[:2]
    stud.join(player=ann, table=stud_table, seat=1, buy_in=D("60.00"))
    assert auto_ante(ann, stud_table, False).status_code == 200
    stud.join(player=ben, table=stud_table, seat=2, buy_in=D("60.00"))
    stud.catch_up(stud_table.pk)
    assert not Round.objects.filter(table=stud_table).exists()
    assert auto_ante(ann, stud_table, True).status_code == 200
    assert Hand.from_json(running(stud_table).engine_state).seats == (1, 2)


def test_st1_only_a_seated_player_switches_the_ante(players, stud_table):
    refused = auto_ante(players[0], stud_table, False)
    assert refused.status_code == 409
    assert "ST-1" in refused.json()["errors"]["table"][0]
    stud.join(player=players[0], table=stud_table, seat=1, buy_in=D("60.00"))
    assert auto_ante(players[0], stud_table, "perhaps").status_code == 400
    assert Seat.objects.get(player=players[0]).auto_ante is True


# No short buys (source 002) -------------------------------------------------------------------


def rebuy(user, table, amount, key):
    return api_client(user).post(
        f"{TABLES}{table.pk}/rebuy/", {"amount": amount}, format="json", HTTP_IDEMPOTENCY_KEY=key
    )


def test_st1_no_short_buys_a_rebuy_tops_up_to_the_minimum(players, stud_table, stacked, settings):
    """Source 002: Ann bought in for the minimum (50.00) and lost her ante and bring-in. A
    rebuy that leaves her stack below the minimum is refused, naming the amount and the rule,
    and moves nothing; one that reaches it is taken once, however often it is sent."""
    stacked(*HEADS_UP)
    ann, ben = players[:2]
    settings.STUD_HAND_PAUSE_SECONDS = 3600
    stud.join(player=ann, table=stud_table, seat=1, buy_in=D("50.00"))
    stud.join(player=ben, table=stud_table, seat=2, buy_in=D("100.00"))
    settings.STUD_HAND_PAUSE_SECONDS = 0
    stud.catch_up(stud_table.pk)
    settings.STUD_HAND_PAUSE_SECONDS = 3600
    act(stud_table, ann, "bring_in")
    act(stud_table, ben, "complete")
    act(stud_table, ann, "fold")
    stack = Seat.objects.get(player=ann).chips
    assert stack < D("50.00")
    wallet = balance(ann)
    refused = rebuy(ann, stud_table, "0.25", "short")
    assert refused.status_code == 400
    message = refused.json()["errors"]["amount"][0]
    assert "no short buys" in message
    assert f"({stack + D('0.25')})" in message
    assert "(ST-1)" in message
    assert (balance(ann), Seat.objects.get(player=ann).chips) == (wallet, stack)
    top_up = D("50.00") - stack
    for _ in range(2):
        response = rebuy(ann, stud_table, f"{top_up:.2f}", "top-up")
        assert response.status_code == 200
    assert Seat.objects.get(player=ann).chips == D("50.00")
    assert balance(ann) == wallet - top_up
    assert LedgerTransaction.objects.filter(reference__contains=":rebuy:").count() == 1
    assert_chips_held(stud_table)


@pytest.mark.parametrize("amount", ["451.00", "0.00", "-5.00"])
def test_st1_a_rebuy_stays_within_the_buy_in(players, stud_table, amount):
    ann = players[0]
    stud.join(player=ann, table=stud_table, seat=1, buy_in=D("50.00"))
    refused = rebuy(ann, stud_table, amount, "over")
    assert refused.status_code == 400
    assert "amount" in refused.json()["errors"]
    assert Seat.objects.get(player=ann).chips == D("50.00")
    assert balance(ann) == D("150.00")


def test_st1_no_rebuy_while_the_players_hand_is_played(players, stud_table):
    ann, ben = players[:2]
    sit([ann, ben], stud_table)
    refused = rebuy(ann, stud_table, "10.00", "mid-hand")
    assert refused.status_code == 409
    assert "(ST-1)" in refused.json()["errors"]["amount"][0]
    assert Seat.objects.get(player=ann).chips == D("59.50")  # the ante is in the pot
    assert house(AccountKind.TABLE_CHIPS) == D("119.00")


def test_st1_no_rebuy_after_folding_until_the_hand_is_over(players, stud_table, stacked, settings):
    """A player who folded is still a sitting of the hand being played: chips go on between
    hands only, so a rebuy then is refused and moves nothing (the next action by anyone would
    otherwise write the stack the hand knows over the rebought one)."""
    stacked(*THREE_WAY)
    ann, ben, cal = players
    sit_then_deal(players, stud_table, settings)
    act(stud_table, ann, "bring_in")
    act(stud_table, ben, "complete")
    act(stud_table, cal, "call")
    act(stud_table, ann, "fold")
    stack, wallet = Seat.objects.get(player=ann).chips, balance(ann)
    refused = rebuy(ann, stud_table, "100.00", "after-fold")
    assert refused.status_code == 409
    assert "(ST-1)" in refused.json()["errors"]["amount"][0]
    act(stud_table, ben, "check")
    assert (Seat.objects.get(player=ann).chips, balance(ann)) == (stack, wallet)
    assert_chips_held(stud_table)


def test_the_new_operations_are_in_the_openapi_schema(client):
    """ST-1, ST-10: the rebuy, the automatic ante and the uncalled winner's show are documented
    with their request bodies."""
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    paths, bodies = schema["paths"], schema["components"]["schemas"]
    rebuy_body = paths["/api/v1/stud/tables/{id}/rebuy/"]["post"]
    assert any(p["name"] == "Idempotency-Key" for p in rebuy_body["parameters"])
    assert bodies["Rebuy"]["required"] == ["amount"]
    assert "ante" in paths["/api/v1/stud/tables/{id}/ante/"]["post"]["summary"]
    assert bodies["AutoAnte"]["properties"]["on"]["type"] == "boolean"
    assert "ST-10" in paths["/api/v1/stud/hands/{id}/show/"]["post"]["summary"]
