"""The joker draw table page, the lobby and the rules pages over the Django test client: the
paytables in force beside the table in rank order, the hands and settlement lines in words in
the round's JSON, what the lobby says and keeps to itself, and what an attacker cannot read
before its time (the next server seed, the dealer's cards)."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from django.test import Client
from django.utils import timezone

from games.engine import fairness
from games.engine import joker_draw as engine
from games.joker_draw import rtp_lab
from games.joker_draw import services as joker_draw
from games.joker_draw.paytables import approve_paytable_version, propose_paytable_version
from games.joker_draw.selectors import paytables_in_force
from games.joker_draw.services import BoxRequest
from games.models import Round, RoundStatus
from games.stud.tasks import STUD as stud
from games.tables import seeds
from games.tables.voids import void_round
from payouts.services import deposit
from tests.fixtures.joker_draw import stacked_deck

pytestmark = pytest.mark.django_db
ROUNDS = "/api/v1/joker-draw/rounds/"


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
    """Box 1 is dealt a pair of jacks; the dealer 2 3 5 7 9, who exchanges all five for 4c 6d
    8c Td Qc (JD-9.6): queen high, no game (JD-10)."""
    deck = stacked_deck(["Jc Jd 4h 8s Kc"], "2c 3d 5h 7c 9d", "4c 6d 8c Td Qc")
    monkeypatch.setattr(fairness, "deck_order", lambda *args, **kwargs: deck)


def open_box(user, table, ante="0.30", bonus=None) -> Round:
    stake = BoxRequest(1, Decimal(ante), Decimal(bonus) if bonus else None)
    return joker_draw.open_round(player=user, table=table, boxes=[stake]).round


def round_json(user, round_: Round) -> dict:
    response = signed_in(user).get(f"{ROUNDS}{round_.pk}/")
    assert response.status_code == 200, response.content
    return response.json()


# The paytables in force ----------------------------------------------------------------------


def test_the_table_shows_both_paytables_in_force_highest_hand_first(player, joker_table):  # JD-14
    page = signed_in(player).get(f"/play/joker-draw/{joker_table.pk}/").content.decode()
    bet = page[page.index('data-testid="paytable-bet"') :]
    bet = bet[: bet.index("</table>")]
    rows = re.findall(r'<th scope="row">([^<]+)</th><td class="num">([^<]+)</td>', bet)
    assert rows == [
        ("Five of a kind", "20:1"),
        ("Royal flush", "10:1"),
        ("Straight flush", "5:1"),
        ("Four of a kind", "3:1"),
        ("Full house", "2:1"),
        ("Flush", "1:1"),
        ("Straight", "1:1"),
        ("Three of a kind", "1:1"),
        ("Two pair", "1:1"),
        ("Pair", "1:1"),
        ("No game (dealer does not qualify)", "2:3"),  # JD-11a: below every hand
    ]
    assert "Bet, version 1" in page
    assert "BONUS, version 1" in page
    bonus = page[page.index('data-testid="paytable-bonus"') :]
    assert re.search(r"Five of a kind</th><td class=\"num\">2000:1", bonus)
    # The house's code names of its paytables are not for players.
    assert "joker-draw-bet-default" not in page
    assert "joker-draw-bonus-example" not in page


def test_a_newly_approved_paytable_version_is_the_one_shown(
    player, joker_table, default_paytables, pit, pit2
):  # JD-14: the version in force, not the first
    lines = {
        "pair": Fraction(1),
        "two_pair": Fraction(1),
        "three_of_a_kind": Fraction(1),
        "straight": Fraction(1),
        "flush": Fraction(3, 2),
        "full_house": Fraction(2),
        "four_of_a_kind": Fraction(3),
        "straight_flush": Fraction(5),
        "royal_flush": Fraction(10),
        "five_of_a_kind": Fraction(25),
        # Cheaper elsewhere, so that best play stays under 100% on a short run (JD-11a, JD-14).
        "no_game": Fraction(1, 3),
    }
    lines["pair"] = Fraction(1, 2)
    version = propose_paytable_version(
        paytable=default_paytables["bet"], lines=lines, reason="richer flush", by=pit
    )
    rtp_lab.compute_now(version, seed=1)
    approve_paytable_version(version, by=pit2)
    limits = joker_table.active_limits()
    shown = {paytable.kind: paytable for paytable in paytables_in_force(limits)}
    assert shown["bet"].version == version
    assert shown["bet"].lines[0] == ("five_of_a_kind", Fraction(25))
    assert ("flush", Fraction(3, 2)) in shown["bet"].lines
    page = signed_in(player).get(f"/play/joker-draw/{joker_table.pk}/").content.decode()
    assert "Bet, version 2" in page
    assert '<th scope="row">Flush</th><td class="num">3:2</td>' in page
    assert '<th scope="row">Five of a kind</th><td class="num">25:1</td>' in page


def test_the_table_links_its_rules_and_shows_the_seed_commitment_field(player, joker_table):
    page = signed_in(player).get(f"/play/joker-draw/{joker_table.pk}/").content.decode()
    # The rules page shows the strategy card of this table's bet paytable.
    assert f'href="/play/rules/joker-draw/?table={joker_table.pk}"' in page
    assert 'id="seed-commitment"' in page  # FS-2: filled from /api/v1/me/seeds/
    assert 'id="client-seed"' in page
    assert 'role="status" aria-live="polite"' in page  # results are announced


# Hands and settlement lines in the round's JSON ------------------------------------------------


def test_the_players_hand_is_named_while_deciding_and_no_dealer_card_shows(
    player, joker_table, funded, stacked, pit
):  # JD-8: the dealer's hand stays down until every box is done
    round_ = open_box(player, joker_table)
    shown = round_json(player, round_)
    assert shown["boxes"][0]["hand_name"] == "Pair of jacks"
    assert "dealer" not in shown
    state = engine.from_json(round_.engine_state)
    text = signed_in(player).get(f"{ROUNDS}?table={joker_table.pk}").content.decode()
    for card in [*state.dealer_initial, *state.deck[state.dealt :]]:
        assert f'"{card}"' not in text
    # Staff read the round without its cards, so without its hand's name either.
    staff = round_json(pit, round_)
    assert staff["boxes"][0]["cards"] is None
    assert "hand_name" not in staff["boxes"][0]


def test_a_settled_round_names_the_dealers_hand_and_explains_each_line(
    player, joker_table, funded, stacked
):  # JD-10, JD-11, JD-13
    round_ = open_box(player, joker_table, ante="0.30", bonus="0.30")
    joker_draw.act(player=player, round_id=round_.pk, box=1, action="bet")
    shown = round_json(player, Round.objects.get(pk=round_.pk))
    assert shown["dealer"]["hand_name"] == "Queen high"
    assert shown["dealer"]["qualifies"] is False
    assert shown["boxes"][0]["explanation"] == [
        "Dealer does not qualify: ante pays 2:3 (0.20 won), bet returned.",
        "BONUS: your first five cards, Pair of jacks, pay nothing: 0.30 lost.",
    ]


def test_a_box_folded_by_the_timer_says_so(player, joker_table, funded):  # JD-4, JD-12
    round_ = open_box(player, joker_table)
    Round.objects.filter(pk=round_.pk).update(
        decision_deadline=timezone.now() - timedelta(seconds=1)
    )
    joker_draw.expire_decision(round_.pk)
    shown = round_json(player, Round.objects.get(pk=round_.pk))
    assert shown["state"] == RoundStatus.SETTLED
    assert shown["boxes"][0]["explanation"] == ["Timed out: box folded, ante 0.30 lost."]


def test_a_round_voided_by_the_pit_says_the_stakes_came_back(player, joker_table, funded, pit):
    round_ = open_box(player, joker_table)
    void_round(round_, by=pit, reason="dealer error")
    shown = round_json(player, Round.objects.get(pk=round_.pk))
    assert shown["explanation"] == "Round voided by the pit: stakes returned."


def test_the_next_server_seed_is_never_on_the_table_page_or_in_its_api(player, joker_table):
    # FS-2, FS-7: only its hash is published until the pair is rotated.
    secret = seeds.current_pair(player).server_seed
    client = signed_in(player)
    for url in (f"/play/joker-draw/{joker_table.pk}/", "/api/v1/me/seeds/", "/play/"):
        assert secret not in client.get(url).content.decode()


# The lobby -----------------------------------------------------------------------------------


def test_the_lobby_says_the_stakes_in_words_and_hides_the_house_settings(
    player, joker_table, stud_table, drawmaha_table, funded
):
    page = signed_in(player).get("/play/").content.decode()
    assert "Ante from 0.30 to 12.00 USD" in page
    assert "BONUS from 0.30 to 6.00" in page
    assert "Fixed limit 5.00/10.00 USD" in page
    assert "Pot limit, blinds 1.00/2.00 USD" in page
    assert "Buy-in from 50.00 to 500.00" in page
    # What the house configures is not the player's business (RTP bands, timers, code names).
    for internal in ("rtp", "RTP", "timeout", "seconds", "joker-draw-bet", "paytable", "rake"):
        assert internal not in page, internal
    assert re.search(r'data-testid="lobby-balance">[^<]*<strong[^>]*>500\.00 USD</strong>', page)
    assert 'href="/play/rules/joker-draw/"' in page
    assert 'href="/play/rules/stud/"' in page
    assert 'href="/play/rules/drawmaha/"' in page


def test_the_lobby_counts_the_players_at_each_table(
    player, other_player, joker_table, stud_table, funded
):
    stud.join(player=player, table=stud_table, seat=1, buy_in=Decimal("100.00"))
    open_box(other_player, joker_table)
    page = signed_in(player).get("/play/").content.decode()
    stud_row = page[page.index(f'data-testid="lobby-table-{stud_table.pk}"') :]
    assert "1 of 8 seats taken" in stud_row[: stud_row.index("</tr>")]
    joker_row = page[page.index(f'data-testid="lobby-table-{joker_table.pk}"') :]
    assert "1 player at the table" in joker_row[: joker_row.index("</tr>")]


# The rules pages -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "says"),
    [
        ("joker-draw", ["The dealer's fixed draw", "Three of a kind: keep them"]),  # JD-9
        ("stud", ["one common card is turned face up"]),  # ST-9
        ("drawmaha", ["The one-card twist", "rejected card is mucked"]),  # DM-6
    ],
)
def test_each_game_has_a_rules_page_open_to_anyone(client, game, says):
    page = client.get(f"/play/rules/{game}/")
    assert page.status_code == 200
    text = page.content.decode()
    for words in says:
        assert words in text
    assert 'aria-current="page"' in text


def test_the_rules_page_says_what_a_dealer_without_a_game_pays_now(client, joker_table, pit, pit2):
    """JD-11a: the no-game odds come from the bet paytable version in force at the open
    tables, not from the source's words."""
    said = "The dealer has no game: the ante is paid {} ({} for every {} staked)"
    assert said.format("2:3", 2, 3) in client.get("/play/rules/joker-draw/").content.decode()
    bet = joker_table.active_limits().bet_paytable
    # A pair's bet at 1:2 beside it keeps best play under 100% on a short run (JD-14).
    lines = {**bet.active_version().odds(), "no_game": Fraction(1, 3), "pair": Fraction(1, 2)}
    third = propose_paytable_version(paytable=bet, lines=lines, reason="a third", by=pit)
    rtp_lab.compute_now(third, seed=1)
    approve_paytable_version(third, by=pit2)
    page = client.get("/play/rules/joker-draw/").content.decode()
    assert said.format("1:3", 1, 3) in page
    assert "2:3" not in page


def test_an_unknown_rules_page_is_not_found(client):
    assert client.get("/play/rules/poker/").status_code == 404
