"""Players against best play for staff: each player's average given away per round and per
original ante, the advantage players with their rounds linked to the replay, on the page and
in the staff API; pit and auditors read, players get 403, and nobody rewrites a judged box."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import DatabaseError, transaction
from django.test import Client

from games.models import BoxPlay, BoxSettlement
from tests.fixtures.users import api_client

D = Decimal
PAGE = "/staff/best-play/"
API = "/api/v1/staff/best-play/players/"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def judged(settled_boxes, settings):
    """The eight settled boxes judged: ann (boxes 0, 2, 4, 6) gives away a hundredth of an
    ante per box, ben (1, 3, 5, 7) a third of one."""
    settings.BEST_PLAY_ADVANTAGE_MIN_ROUNDS = 4
    settings.BEST_PLAY_ADVANTAGE_MAX_LOSS = 0.02
    ann, ben = settled_boxes
    for settlement in BoxSettlement.objects.order_by("round_id"):
        ante = settlement.ante_staked
        share = D("0.01") if settlement.player == ann else D("0.333333")
        BoxPlay.objects.create(
            settlement=settlement,
            base_ante=ante,
            expected_result=-ante,
            loss=(ante * share).quantize(D("0.000001")),
            decisions=[],
            solution="0" * 64,
        )
    return ann, ben


def test_each_player_given_away_per_round_and_the_advantage_players_rounds(judged, auditor):
    ann, ben = judged
    page = signed_in(auditor).get(PAGE)
    assert page.status_code == 200
    html = page.content.decode()
    # ann: antes 0.30, 0.90, 1.50, 2.10 (4.80) at a hundredth: 0.048 over 4 rounds.
    assert (
        f'<tr data-player="{ann.pk}" class="good"><td><a href="/staff/players/{ann.pk}/">ann</a>'
        '</td><td>USD</td><td class="money">4</td><td class="money">4</td>'
        '<td class="money">0.048000</td><td class="money">0.0120</td>'
        '<td class="money">0.0100</td></tr>'
    ) in html
    assert f'<tr data-player="{ben.pk}"><td>' in html  # not an advantage player
    assert html.count("data-advantage=") == 1
    assert f'data-advantage="{ann.pk}"' in html
    for settlement in BoxSettlement.objects.filter(player=ann):
        assert f'<a href="/staff/rounds/{settlement.round_id}/">' in html
    for settlement in BoxSettlement.objects.filter(player=ben):
        assert f'<a href="/staff/rounds/{settlement.round_id}/">' not in html


def test_the_staff_api_lists_the_same_figures(judged, pit):
    ann, _ben = judged
    rows = {row["player"]: row for row in api_client(pit).get(API).json()}
    assert rows["ann"]["per_ante"] == "0.0100"
    assert rows["ann"]["per_round"] == "0.0120"
    assert rows["ann"]["advantage_player"] is True
    rounds = {r["round"] for r in rows["ann"]["rounds_played"]}
    assert rounds == set(BoxSettlement.objects.filter(player=ann).values_list("round", flat=True))
    assert all(r["replay"] == f"/staff/rounds/{r['round']}/" for r in rows["ann"]["rounds_played"])
    assert rows["ben"]["advantage_player"] is False
    assert rows["ben"]["rounds_played"] == []
    assert [row["player"] for row in api_client(pit).get(API).json()] == ["ann", "ben"]


def test_too_few_rounds_make_no_advantage_player(judged, auditor, settings):
    settings.BEST_PLAY_ADVANTAGE_MIN_ROUNDS = 5  # ann has played four
    html = signed_in(auditor).get(PAGE).content.decode()
    assert 'id="no-advantage-players"' in html
    assert not any(row["advantage_player"] for row in api_client(auditor).get(API).json())


def test_a_player_reaches_neither_the_page_nor_the_api(judged):
    ann, _ben = judged
    assert signed_in(ann).get(PAGE).status_code == 403
    assert api_client(ann).get(API).status_code == 403
    assert api_client(None).get(API).status_code == 401


@pytest.mark.django_db
def test_an_empty_page_says_why(auditor):
    html = signed_in(auditor).get(PAGE).content.decode()
    assert 'id="best-play-empty"' in html
    assert 'id="no-advantage-players"' in html


def test_a_judged_box_is_never_rewritten_or_deleted(judged):
    play = BoxPlay.objects.first()
    for change in (
        lambda: BoxPlay.objects.filter(pk=play.pk).update(loss=D("0")),
        lambda: BoxPlay.objects.filter(pk=play.pk).delete(),
    ):
        with (
            pytest.raises(DatabaseError, match="Cannot update or delete rows"),
            transaction.atomic(),
        ):
            change()
    assert BoxPlay.objects.get(pk=play.pk).loss == play.loss
