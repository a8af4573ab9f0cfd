"""The breaks page (/play/breaks/), the break shown in the lobby and at the tables, the tables'
reality check notice, and the staff's read-only partial of a player's conduct."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.template.loader import render_to_string
from django.utils import timezone

from payouts.protection import conduct, selectors
from payouts.protection.models import Exclusion, PlaySession
from tests.fixtures.clock import clock_at
from tests.fixtures.users import logged_in

BREAKS = "/play/breaks/"


@pytest.fixture
def start_of_play(player):
    """An hour of play with its reality check acknowledged, ending now."""
    start = timezone.now() - timedelta(minutes=61)
    for minute in range(0, 60, 10):
        with clock_at(start + timedelta(minutes=minute)):
            conduct.check_stake(player=player, starts_play=True)
    with clock_at(start + timedelta(minutes=60)):
        conduct.acknowledge_reality_check(player=player)
    return start


def test_a_player_takes_a_time_out_in_two_steps(player, joker_table):
    client = logged_in(player)
    assert client.get(BREAKS).status_code == 200
    asked = client.post(BREAKS, {"step": "choose", "length": "1w"})
    assert asked.status_code == 200
    assert 'data-testid="break-confirm"' in asked.content.decode()
    assert not Exclusion.objects.exists()  # nothing until confirmed
    until = asked.context["confirm_until"]
    assert timedelta(days=6, hours=23) < until - timezone.now() <= timedelta(weeks=1)
    form = asked.context["confirm"]
    unconfirmed = client.post(
        BREAKS, {"step": "confirm", "kind": "time_out", "until": form.initial["until"]}
    )
    assert unconfirmed.status_code == 200
    assert not Exclusion.objects.exists()
    done = client.post(
        BREAKS,
        {"step": "confirm", "kind": "time_out", "until": form.initial["until"], "confirm": "on"},
    )
    assert done.status_code == 302
    exclusion = Exclusion.objects.get(player=player)
    assert exclusion.until == until
    lobby = client.get("/play/").content.decode()
    assert 'data-testid="on-break"' in lobby
    assert f"/play/joker-draw/{joker_table.pk}/" not in lobby  # no table to open
    table = client.get(f"/play/joker-draw/{joker_table.pk}/").content.decode()
    assert 'data-testid="on-break"' in table
    assert (
        'id="stake-form" class="stake-bar" novalidate aria-labelledby="stake-title" hidden' in table
    )


def test_a_forged_confirmation_is_checked_by_the_service(player):
    client = logged_in(player)
    page = client.post(
        BREAKS,
        {
            "step": "confirm",
            "kind": "time_out",
            "until": (timezone.now() + timedelta(hours=2)).isoformat(),
            "confirm": "on",
        },
    )
    assert page.status_code == 200
    assert not Exclusion.objects.exists()
    assert page.context["confirm"].non_field_errors()


def test_the_interval_is_saved_from_the_page(player):
    client = logged_in(player)
    assert client.post(BREAKS, {"step": "interval", "minutes": "30"}).status_code == 302
    assert PlaySession.objects.get(player=player).reality_check_minutes == 30
    assert client.post(BREAKS, {"step": "interval", "minutes": "31"}).status_code == 200
    assert PlaySession.objects.get(player=player).reality_check_minutes == 30


def test_staff_take_no_breaks(pit):
    assert logged_in(pit).get(BREAKS).status_code == 403


def test_the_tables_carry_the_reality_check_notice(player, joker_table, stud_table):
    for page in (f"/play/joker-draw/{joker_table.pk}/", f"/play/stud/{stud_table.pk}/"):
        html = logged_in(player).get(page).content.decode()
        assert 'id="reality-check"' in html
        assert 'role="alertdialog"' in html
        assert "/static/play/reality_check." in html


def test_the_staff_partial_shows_exclusions_checks_and_the_session(player, start_of_play):
    conduct.take_exclusion(player=player, kind="time_out", until=timezone.now() + timedelta(days=3))
    html = render_to_string(
        "staff/player/_conduct.html", {"conduct": selectors.player_conduct(player)}
    )
    assert 'data-testid="exclusion-in-force"' in html
    assert 'data-testid="current-session"' in html
    assert "60" in html  # minutes at the acknowledgement
    facts = selectors.player_conduct(player)
    assert [row.in_force for row in facts.exclusions] == [True]
    assert len(facts.reality_checks) == 1
    assert facts.session is not None


def test_the_staff_partial_of_a_player_who_never_played(player):
    html = render_to_string(
        "staff/player/_conduct.html", {"conduct": selectors.player_conduct(player)}
    )
    assert 'data-testid="exclusion-in-force"' not in html
    assert 'data-testid="current-session"' not in html
