"""A player's own seat state at a peer table in Chromium, in English, Russian and Swedish: sat
out for running out of time, "I'm back", the table closed by the pit with its reason, and the
cash-out; the pit's close after this hand on the live tables screen."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import expect

from games.engine import stud as stud_engine
from games.models import Round, Seat, SeatStatus, TableStatus
from games.stud.tasks import STUD as stud
from games.tables import services as table_services
from games.tables.tasks import sweep_overdue_rounds
from payouts.services import deposit
from tests.fixtures.browser import COMBOS, EVERY_COMBO, TIMEOUT, in_language
from tests.fixtures.tables import make_stud_table

D = Decimal
REASON = "The pit closes at 03:00"


@pytest.fixture
def sat_out_table(player, other_player, pit, pit2, settings):
    """A stud table (one hand timed out sits a player out) where ``player`` ran out of time:
    sat out, with ``other_player`` alone and no hand dealt."""
    for user in (player, other_player):
        deposit(player=user, currency="USD", amount=D("500.00"), reason="cage", by=pit)
    settings.STUD_HAND_PAUSE_SECONDS = 60
    table = make_stud_table(pit, pit2, "Stud sit-out", timeouts_to_sit_out=1)
    for number, user in enumerate((player, other_player), start=1):
        stud.join(player=user, table=table, seat=number, buy_in=D("100.00"))
    settings.STUD_HAND_PAUSE_SECONDS = 0
    stud.catch_up(table.pk)
    while Round.objects.filter(table=table, status="deciding").exists():
        hand = Round.objects.get(table=table, status="deciding")
        state = stud.load_hand(hand.engine_state)
        seating = Seat.objects.get(pk=state.seat_ids[state.state.to_act])
        if seating.player == player:
            Round.objects.filter(pk=hand.pk).update(
                decision_deadline=timezone.now() - timedelta(seconds=1)
            )
            sweep_overdue_rounds()
            continue
        kinds = [option.kind.value for option in stud_engine.legal_actions(state.state)]
        action = next(k for k in ("bring_in", "check", "call", "show") if k in kinds)
        stud.act(player=seating.player, table=table, action=action)
    assert Seat.objects.get(table=table, player=player).sat_out_at is not None
    return table


@pytest.mark.parametrize(("language", "width"), COMBOS)
def test_a_player_sat_out_comes_back_then_cashes_out_of_the_closed_table(
    open_page, player, sat_out_table, pit, screenshot, language, width
):
    table = sat_out_table
    page = open_page(language, width, player)
    page.goto(f"/play/stud/{table.pk}/")
    sat_out = page.locator("#sat-out")
    expect(sat_out).to_be_visible()
    expect(sat_out).to_contain_text(in_language(language, "You are sitting out."))
    page.get_by_role("button", name=in_language(language, "I'm back")).click()
    expect(sat_out).to_be_hidden()
    assert Seat.objects.get(table=table, player=player).sat_out_at is None
    running = Round.objects.get(table=table, status="deciding")  # dealt in again at once
    assert "alice" in running.events.get(kind="hand_opened").data["players"]

    table_services.set_table_status(
        table, status=TableStatus.CLOSED, by=pit, reason=REASON, cash_out_seated=True
    )
    closed = page.locator("#table-closed")
    expect(closed).to_be_visible()
    expect(page.locator("#closed-reason")).to_have_text(REASON)
    screenshot(page, f"seat-status-closed-{language}-{width}")
    page.get_by_role("button", name=in_language(language, "Cash out")).click()
    leaving = Seat.objects.filter(table=table, player=player, status=SeatStatus.SEATED)
    for _ in range(TIMEOUT // 100):  # the request's answer comes back in the page, then here
        if not leaving.exists():
            break
        page.wait_for_timeout(100)
    # Leaving a hand in play: the hand is dead at the player's turn, then the stack is paid.
    while Round.objects.filter(table=table, status="deciding").exists():
        hand = Round.objects.get(table=table, status="deciding")
        state = stud.load_hand(hand.engine_state)
        other = Seat.objects.get(pk=state.seat_ids[state.state.to_act])
        kinds = [option.kind.value for option in stud_engine.legal_actions(state.state)]
        action = next(k for k in ("bring_in", "check", "call", "show") if k in kinds)
        stud.act(player=other.player, table=table, action=action)
    expect(page.locator("#closed-gone")).to_be_visible()
    expect(page.locator("#closed-gone")).to_contain_text(
        in_language(language, "Your chips from this table are back in your wallet.")
    )
    assert not Seat.objects.filter(table=table).exclude(status=SeatStatus.LEFT).exists()
    call_command("ledger_check", verbosity=0)
    screenshot(page, f"seat-status-cashed-out-{language}-{width}")


def test_the_seat_state_and_the_close_control_in_every_language_and_width(
    open_page, player, sat_out_table, pit, screenshot
):
    """One sweep of screenshots: the player sat out, and the pit's close refused with the
    seated players' list, in the three languages at both widths."""
    table = sat_out_table
    for language, width in EVERY_COMBO:
        page = open_page(language, width, player)
        page.goto(f"/play/stud/{table.pk}/")
        expect(page.locator("#sat-out")).to_be_visible()
        screenshot(page, f"seat-status-sat-out-{language}-{width}")
        staff = open_page(language, width, pit)
        staff.goto("/staff/")
        row = staff.locator(f'tr[data-table="{table.pk}"]')
        row.get_by_role("textbox").fill(REASON)
        row.locator("form.close-table button").click()
        seated = in_language(language, "seat %(number)s: %(name)s") % {"number": 1, "name": "alice"}
        expect(staff.get_by_text(seated, exact=False).first).to_be_visible()
        screenshot(staff, f"staff-close-refused-{language}-{width}")
        page.context.close()
        staff.context.close()
    table.refresh_from_db()
    assert table.status == TableStatus.OPEN
