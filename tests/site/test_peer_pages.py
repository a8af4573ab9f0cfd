"""The stud and Drawmaha pages' words and what they show to whom: each player's own hand named
by the API (and nobody else's), a finished hand's settlement explained line by line with the
rake once per pot (ST-13, DM-12), timeouts and voids; the recall paged by game; wallet entries
linked to their rounds and hands; and what an attacker guessing ids or seats gets: nothing."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.test import Client
from django.utils import timezone

from casino.roles import PLAYER
from games.drawmaha.serializers import table_json as drawmaha_table_json
from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.engine import drawmaha as drawmaha_engine
from games.engine import stud as stud_engine
from games.joker_draw import services as joker_draw
from games.joker_draw.services import BoxRequest
from games.models import Round, RoundStatus, Seat
from games.peer import services as peer_services
from games.peer.selectors import peer_table
from games.site import selectors as pages
from games.stud.hand import Hand as StudHand
from games.stud.serializers import table_json as stud_table_json
from games.stud.tasks import STUD as stud
from games.tables.voids import void_round
from payouts.services import deposit
from tests.fixtures.peer import act_passively, running
from tests.fixtures.stud_play import stud_deck
from tests.fixtures.users import make_user

pytestmark = pytest.mark.django_db

# Alice (seat 1) holds Th 9d with the 2c up; Bob (seat 2) As Ad with the Kc up, then kings.
DECK = stud_deck(["Th 9d 2c", "As Ad Kc"], "3d | Jc Ks", "3h | 5c Kd", "3s | 4d 2h", "4h | 8s 7c")


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def funded(player, other_player, pit):
    for user in (player, other_player):
        deposit(player=user, currency="USD", amount=Decimal("500.00"), reason="cage", by=pit)


@pytest.fixture
def stacked(monkeypatch):
    monkeypatch.setattr(peer_services, "Deck", SimpleNamespace(shuffled=lambda *_: DECK))


def seat_both(service, table, player, other_player):
    for number, user in enumerate((player, other_player), start=1):
        service.join(player=user, table=table, seat=number, buy_in=Decimal("100.00"))


def play_stud_to_the_end(table, player, other_player):
    """Bring in, check or call to the end; at the showdown a hand that cannot win is mucked."""
    hand = running(table)
    while hand.status == RoundStatus.DECIDING:
        state = StudHand.from_json(hand.engine_state)
        legal = {option.kind.value for option in stud_engine.legal_actions(state.state)}
        action = next(a for a in ("muck", "bring_in", "check", "call", "show") if a in legal)
        user = player if state.players[state.state.to_act] == player.pk else other_player
        stud.act(player=user, table=table, action=action)
        hand.refresh_from_db()
    return hand


def test_the_api_names_the_players_own_stud_hand_and_no_one_elses_down_cards(
    player, other_player, stud_table, funded, stacked, settings
):
    seat_both(stud, stud_table, player, other_player)
    settings.STUD_HAND_PAUSE_SECONDS = 3600  # no next hand
    seen = stud_table_json(stud_table, peer_table(stud_table), other_player)["hand"]["players"]
    # Third street: three cards make a pair or a high card (ST-4's reading), in words.
    assert [p["hand"] for p in seen] == [None, "Pair of aces"]
    seen = stud_table_json(stud_table, peer_table(stud_table), player)["hand"]["players"]
    assert [p["hand"] for p in seen] == ["Ten high", None]


def test_the_api_names_the_players_own_drawmaha_hand_both_ways_once_there_is_a_flop(
    player, other_player, drawmaha_table, funded
):
    seat_both(drawmaha, drawmaha_table, player, other_player)
    mine, theirs = sorted(
        drawmaha_table_json(drawmaha_table, peer_table(drawmaha_table), player)["hand"]["players"],
        key=lambda p: p["cards"] is None,
    )
    assert mine["draw_hand"]
    assert mine["omaha_hand"] is None
    assert theirs["draw_hand"] is None
    assert theirs["omaha_hand"] is None
    while running(drawmaha_table).engine_state["state"]["street"] == "preflop":
        act_passively(drawmaha, drawmaha_engine, drawmaha_table)
    seen = drawmaha_table_json(drawmaha_table, peer_table(drawmaha_table), player)["hand"]
    (mine,) = [p for p in seen["players"] if p["cards"] is not None]
    assert len(seen["board"]) == 3
    assert mine["omaha_hand"]


def test_a_finished_stud_hand_explains_the_pot_its_rake_once_and_the_cards_each_may_see(
    player, other_player, pit, stud_table, funded, stacked, settings
):
    seat_both(stud, stud_table, player, other_player)
    settings.STUD_HAND_PAUSE_SECONDS = 3600  # no next hand
    hand = play_stud_to_the_end(stud_table, player, other_player)
    seen = pages.finished_hand(pages.PEER_GAMES["stud"], hand, other_player)
    wins = [line for line in seen.settlement if " wins " in line]
    assert wins == [
        f"Main pot: Seat 2 (bob) wins {wins[0].split(' wins ')[1].split(' ')[0]} with "
        "Full house, kings full of aces."
    ]
    assert [line for line in seen.settlement if line.startswith("Rake")] == [
        f"Rake (Main pot): {seen.round.events.get(kind='rake').data['amount'] / 100:.2f}."
    ]
    # ST-10: Alice mucked at the showdown, so Bob sees her cards; each sees their own.
    alice, bob = seen.seats
    assert [c for c, _ in alice.cards] == ["Th", "9d", "8s", "2c", "Jc", "5c", "4d"]
    assert bob.mine
    assert bob.hands == ["Full house, kings full of aces"]
    assert seen.viewer_net == bob.net > 0
    assert "Seat 1 (alice) mucks." in seen.actions
    assert seen.actions[:2] == [  # the table's ante, 0.50
        "Seat 1 (alice) posts the ante 0.50.",
        "Seat 2 (bob) posts the ante 0.50.",
    ]


def test_a_drawmaha_showdown_names_each_half_and_takes_the_rake_once_per_pot(
    player, other_player, drawmaha_table, funded, settings
):
    seat_both(drawmaha, drawmaha_table, player, other_player)
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 3600  # no next hand
    hand = running(drawmaha_table)
    while hand.status == RoundStatus.DECIDING:
        act_passively(drawmaha, drawmaha_engine, drawmaha_table)
        hand.refresh_from_db()
    seen = pages.finished_hand(pages.PEER_GAMES["drawmaha"], hand, player)
    halves = [line for line in seen.settlement if " wins " in line]
    assert any(line.startswith("Main pot, draw half: ") for line in halves)
    assert any(line.startswith("Main pot, Omaha half: ") for line in halves)
    assert all(" with " in line for line in halves)
    # DM-12: one pot, raked once, though it is awarded in two halves.
    assert len([line for line in seen.settlement if line.startswith("Rake")]) == 1
    # Both hands reached the showdown (DM-11): both are shown, and named both ways.
    assert all(c for seat in seen.seats for c, _ in seat.cards)
    assert all(len(seat.hands) == 2 for seat in seen.seats)


def test_a_timed_out_player_is_told_the_hand_was_folded(
    player, other_player, stud_table, funded, settings
):
    seat_both(stud, stud_table, player, other_player)
    settings.STUD_HAND_PAUSE_SECONDS = 3600  # no next hand
    hand = running(stud_table)
    for _ in range(2):  # the forced bring-in (ST-3), then a bet to call: folded
        Round.objects.filter(pk=hand.pk).update(
            decision_deadline=timezone.now() - timedelta(seconds=1)
        )
        stud.catch_up(stud_table.pk)
    hand.refresh_from_db()
    assert hand.status == RoundStatus.SETTLED
    seen = pages.finished_hand(pages.PEER_GAMES["stud"], hand, player)
    folded = [line for line in seen.settlement if "timed out" in line]
    assert len(folded) == 1
    assert folded[0].endswith("timed out: hand folded.")


def test_a_voided_hand_says_the_stakes_went_back_and_why(
    player, other_player, pit, stud_table, funded
):
    seat_both(stud, stud_table, player, other_player)
    hand = void_round(running(stud_table), by=pit, reason="shuffler jammed")
    seen = pages.finished_hand(pages.PEER_GAMES["stud"], hand, player)
    assert seen.settlement == ["Voided by the pit: stakes returned (shuffler jammed)."]
    page = signed_in(player).get(f"/play/recall/stud/{hand.pk}/").content.decode()
    assert "Voided by the pit: stakes returned (shuffler jammed)." in page


def test_the_recall_pages_a_players_hands_and_shows_nobody_elses(
    player, other_player, pit, stud_table, funded, settings, monkeypatch
):
    monkeypatch.setattr(pages, "RECALL_PAGE_SIZE", 2)
    seat_both(stud, stud_table, player, other_player)
    for _ in range(3):  # three hands, each folded at once after the bring-in
        hand = running(stud_table)
        state = StudHand.from_json(hand.engine_state)
        first = player if state.players[state.state.to_act] == player.pk else other_player
        stud.act(player=first, table=stud_table, action="bring_in")
        second = other_player if first == player else player
        stud.act(player=second, table=stud_table, action="fold")
    hands = list(Round.objects.filter(table=stud_table).order_by("-id"))
    client = signed_in(player)
    first_page = client.get("/play/recall/?game=stud").content.decode()
    second_page = client.get("/play/recall/?game=stud&page=2").content.decode()
    for number, hand in enumerate(hands):
        link = f'href="/play/recall/stud/{hand.pk}/"'
        assert (link in first_page) == (number < 2)
        assert (link in second_page) == (number >= 2)
    assert "Page 1 of 2" in first_page
    assert 'href="?game=stud&amp;page=2"' in first_page
    # A stranger guessing ids: no hand in the list, 404 on each page of one.
    spy = signed_in(make_user("mallory", PLAYER))
    assert "/play/recall/stud/" not in spy.get("/play/recall/?game=stud").content.decode()
    for hand in hands:
        assert spy.get(f"/play/recall/stud/{hand.pk}/").status_code == 404
        assert spy.get(f"/play/recall/stud/{hand.pk}/summary/").status_code == 404
    # Another player's sitting named in the address lists none of their hands.
    sitting = Seat.objects.get(table=stud_table, player=player).pk
    assert (
        "/play/recall/stud/"
        not in spy.get(f"/play/recall/?game=stud&sitting={sitting}").content.decode()
    )
    assert client.get("/play/recall/?game=poker").status_code == 404


def test_a_drawmaha_recall_never_shows_an_opponents_folded_cards(
    player, other_player, pit, drawmaha_table, funded, settings
):
    seat_both(drawmaha, drawmaha_table, player, other_player)
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 3600  # no next hand
    hand = running(drawmaha_table)
    state = drawmaha.load_hand(hand.engine_state)
    folder = player if state.players[state.state.to_act] == player.pk else other_player
    winner = other_player if folder == player else player
    folded_cards = [str(c) for c in state.state.hands[state.state.to_act]]
    drawmaha.act(player=folder, table=drawmaha_table, action="fold")
    page = signed_in(winner).get(f"/play/recall/drawmaha/{hand.pk}/")
    text = page.content.decode()
    for card in folded_cards:
        assert f'data-card="{card}"' not in text
        assert f'"card": "{card}"' not in text
    assert len(page.context["hand"].dealt) == 5  # the winner's own cards to verify
    # The player who folded sees their own folded cards (folded ones too).
    own = signed_in(folder).get(f"/play/recall/drawmaha/{hand.pk}/").content.decode()
    assert all(f'data-card="{card}"' in own for card in folded_cards)
    # Staff see every card.
    assert len(signed_in(pit).get(f"/play/recall/drawmaha/{hand.pk}/").context["hand"].dealt) == 10


def test_wallet_entries_link_to_the_round_or_the_hands_of_the_sitting(
    player, other_player, stud_table, joker_table, funded, settings
):
    round_ = joker_draw.open_round(
        player=player, table=joker_table, boxes=[BoxRequest(box=1, ante=Decimal("0.30"))]
    ).round
    seat_both(stud, stud_table, player, other_player)
    sitting = Seat.objects.get(table=stud_table, player=player).pk
    wallet = signed_in(player).get("/play/wallet/").content.decode()
    assert f'href="/play/recall/joker-draw/{round_.pk}/"' in wallet
    recall_url = f"/play/recall/?game=stud&amp;sitting={sitting}"
    assert f'href="{recall_url}"' in wallet
    hand = running(stud_table)
    listed = signed_in(player).get(recall_url.replace("&amp;", "&")).content.decode()
    assert f'href="/play/recall/stud/{hand.pk}/"' in listed


def test_a_drawmaha_showdown_shows_the_five_cards_held_but_never_the_cards_exchanged_away(
    player, other_player, pit, drawmaha_table, funded, settings
):
    """DM-5, DM-11: at the showdown a player shows the five cards held; the two cards each
    exchanged away stay unseen by the other (staff see them)."""
    seat_both(drawmaha, drawmaha_table, player, other_player)
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 3600  # no next hand
    hand = running(drawmaha_table)
    thrown: dict[int, list[str]] = {}
    while hand.status == RoundStatus.DECIDING:
        loaded = drawmaha.load_hand(hand.engine_state)
        state = loaded.state
        if state.street == drawmaha_engine.Street.DRAW and state.to_act not in thrown:
            user = player if loaded.players[state.to_act] == player.pk else other_player
            cards = [str(card) for card in state.hands[state.to_act][:2]]
            thrown[state.to_act] = cards
            drawmaha.act(player=user, table=drawmaha_table, action="exchange", cards=cards)
        else:
            act_passively(drawmaha, drawmaha_engine, drawmaha_table)
        hand.refresh_from_db()
    loaded = drawmaha.load_hand(hand.engine_state)
    bob = loaded.players.index(other_player.pk)
    assert thrown[bob]
    page = signed_in(player).get(f"/play/recall/drawmaha/{hand.pk}/")
    text = page.content.decode()
    for card in thrown[bob]:
        assert not re.search(rf"\b{card}\b", " ".join(page.context["hand"].actions))
        assert f'data-card="{card}"' not in text
        assert card not in {d["card"] for d in page.context["hand"].dealt}
    for card in loaded.state.hands[bob]:  # shown at the showdown
        assert f'data-card="{card}"' in text
    staff = signed_in(pit).get(f"/play/recall/drawmaha/{hand.pk}/").context["hand"]
    assert set(thrown[bob]) <= {d["card"] for d in staff.dealt}
