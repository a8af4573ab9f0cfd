"""Drawmaha tables through the service, on PostgreSQL: seats and blinds through the ledger, the
button moving, hands played to the showdown with the pot in halves, refusals, timers, leavers,
and the replay of finished hands (DM-1..DM-12)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.utils import timezone

from games.engine import drawmaha as engine
from games.models import Round, RoundEvent, Seat, SeatStatus
from games.replay import replay_round
from games.services import drawmaha
from games.services.drawmaha import Hand
from games.services.peer_tables import from_cents
from games.services.rounds import RoundRefused
from games.tasks import catch_up_drawmaha_table, sweep_overdue_rounds
from payouts import services as money
from payouts.models import AccountKind
from tests.conftest import api_client, make_user

D = Decimal


@pytest.fixture
def players(pit):
    users = [make_user(name, "player") for name in ("ann", "ben", "cal")]
    for user in users:
        money.deposit(player=user, currency="USD", amount=D("200.00"), reason="cash", by=pit)
    return users


def balance(user) -> Decimal:
    return money.wallet(user, "USD").balance


def house(kind: str) -> Decimal:
    return money.house_account(kind, "USD").balance


def running(table) -> Round:
    return Round.objects.get(table=table, status="deciding")


def hand_of(table) -> Hand:
    return Hand.from_json(running(table).engine_state)


def to_act(table) -> Seat:
    hand = hand_of(table)
    seat = hand.state.to_act
    assert seat is not None
    number = hand.seats[seat]
    return Seat.objects.get(table=table, number=number, status__in=["seated", "leaving"])


def settled(table) -> int:
    return Round.objects.filter(table=table, status="settled").count()


def play_passively(table, hands=1):
    """Check or call, stand pat, take the twist: until ``hands`` more hands are over."""
    over = settled(table) + hands
    while settled(table) < over:
        seating = to_act(table)
        kinds = [option.kind.value for option in engine.legal_actions(hand_of(table).state)]
        action = next(k for k in ("check", "call", "exchange", "take") if k in kinds)
        drawmaha.act(player=seating.player, table=table, action=action)


def seat_everyone(table, users, settings):
    """Seat ``users`` from seat 1 with 100.00 each before the first hand is dealt to all."""
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 60
    for number, user in enumerate(users, start=1):
        drawmaha.join(player=user, table=table, seat=number, buy_in=D("100.00"))
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 0
    drawmaha.catch_up(table.pk)


def assert_chips_held(table):
    seated = Seat.objects.filter(table=table).exclude(status="left")
    assert house(AccountKind.TABLE_CHIPS) == sum((s.chips for s in seated), D(0))


def test_buy_in_and_refused_seats(players, drawmaha_table):
    ann, ben = players[:2]
    seat = drawmaha.join(player=ann, table=drawmaha_table, seat=3, buy_in=D("60.00"))
    assert (seat.number, seat.chips, balance(ann)) == (3, D("60.00"), D("140.00"))
    assert not Round.objects.filter(table=drawmaha_table).exists()  # one player: no hand
    for number, buy_in, field in [(8, "60.00", "seat"), (1, "39.99", "buy_in")]:
        with pytest.raises(RoundRefused) as refused:
            drawmaha.join(player=ben, table=drawmaha_table, seat=number, buy_in=D(buy_in))
        assert (refused.value.field, refused.value.rule) == (field, "DM-1")
    assert balance(ben) == D("200.00")


def test_two_players_start_a_hand_with_the_blinds_through_the_ledger(players, drawmaha_table):
    """DM-1, DM-2: heads-up the button posts the small blind; five cards each."""
    ann, ben = players[:2]
    drawmaha.join(player=ann, table=drawmaha_table, seat=2, buy_in=D("60.00"))
    drawmaha.join(player=ben, table=drawmaha_table, seat=5, buy_in=D("80.00"))
    round_ = running(drawmaha_table)
    hand = hand_of(drawmaha_table)
    assert (hand.seats, hand.button) == ((2, 5), 2)
    assert all(len(cards) == 5 for cards in hand.state.hands)
    assert house(AccountKind.STAKES_IN_PLAY) == D("3.00")  # blinds of 1.00 and 2.00
    stacks = {s.number: s.chips for s in Seat.objects.filter(table=drawmaha_table)}
    assert stacks == {2: D("59.00"), 5: D("78.00")}
    assert_chips_held(drawmaha_table)
    kinds = list(RoundEvent.objects.filter(round=round_).values_list("kind", flat=True))
    assert kinds == ["hand_opened", "small_blind", "big_blind", "deal"]


def test_a_hand_to_the_showdown_pays_both_halves_and_the_button_moves(
    players, drawmaha_table, settings
):
    """DM-5, DM-6, DM-11, DM-12: the draw, the showdown, the pot halved; the ledger checks."""
    seat_everyone(drawmaha_table, players, settings)
    first = running(drawmaha_table)
    assert hand_of(drawmaha_table).button == 1
    play_passively(drawmaha_table)
    first.refresh_from_db()
    parts = set(first.events.filter(kind="pot_awarded").values_list("data__part", flat=True))
    assert parts == {"draw", "omaha"}
    assert first.events.filter(kind="show").count() == 3
    assert first.events.filter(kind="exchange").count() == 3
    rake = sum(first.events.filter(kind="rake").values_list("data__amount", flat=True))
    assert rake > 0
    assert house(AccountKind.RAKE) == from_cents(rake)
    assert house(AccountKind.STAKES_IN_PLAY) == D("3.00")  # the next hand's blinds
    assert hand_of(drawmaha_table).button == 2  # DM-1: the button moved on
    assert_chips_held(drawmaha_table)
    call_command("ledger_check", verbosity=0)
    report = replay_round(first)
    assert report.ok, report.mismatches
    assert report.events_checked > 10


def test_refused_actions_name_the_rule_and_change_nothing(players, drawmaha_table):
    ann, ben = players[:2]
    drawmaha.join(player=ann, table=drawmaha_table, seat=1, buy_in=D("60.00"))
    drawmaha.join(player=ben, table=drawmaha_table, seat=2, buy_in=D("60.00"))
    before = running(drawmaha_table).history_length
    waiting = ben if to_act(drawmaha_table).player == ann else ann
    acting = to_act(drawmaha_table).player
    refusals = [
        (waiting, {"action": "call"}, "seat"),
        (acting, {"action": "exchange"}, "kind"),
        (acting, {"action": "raise", "amount": D("500.00")}, "amount"),
        (acting, {"action": "check", "cards": ["As"]}, "cards"),
        (acting, {"action": "dance"}, "action"),
    ]
    for user, body, field in refusals:
        with pytest.raises(RoundRefused) as refused:
            drawmaha.act(player=user, table=drawmaha_table, **body)
        assert refused.value.field == field, body
        assert refused.value.rule.startswith("DM-")
    assert running(drawmaha_table).history_length == before
    assert house(AccountKind.STAKES_IN_PLAY) == D("3.00")


def test_the_draw_exchanges_named_cards_and_a_bad_card_is_refused(players, drawmaha_table):
    ann, ben = players[:2]
    drawmaha.join(player=ann, table=drawmaha_table, seat=1, buy_in=D("60.00"))
    drawmaha.join(player=ben, table=drawmaha_table, seat=2, buy_in=D("60.00"))
    while hand_of(drawmaha_table).state.street != engine.Street.DRAW:
        kinds = [o.kind.value for o in engine.legal_actions(hand_of(drawmaha_table).state)]
        action = next(k for k in ("check", "call") if k in kinds)
        drawmaha.act(player=to_act(drawmaha_table).player, table=drawmaha_table, action=action)
    seating = to_act(drawmaha_table)
    hand = hand_of(drawmaha_table)
    own = hand.state.hands[hand.seats.index(seating.number)]
    with pytest.raises(RoundRefused) as refused:
        drawmaha.act(player=seating.player, table=drawmaha_table, action="exchange", cards=["Zz"])
    assert (refused.value.field, refused.value.rule) == ("cards", "DM-5")
    discards = [str(card) for card in own[:2]]
    drawmaha.act(player=seating.player, table=drawmaha_table, action="exchange", cards=discards)
    exchange = hand_of(drawmaha_table).state.exchanges[0]
    assert [str(card) for card in exchange.discards] == discards


def test_an_overdue_player_checks_or_folds_and_stands_pat_in_the_draw(players, drawmaha_table):
    ann, ben = players[:2]
    drawmaha.join(player=ann, table=drawmaha_table, seat=1, buy_in=D("60.00"))
    drawmaha.join(player=ben, table=drawmaha_table, seat=2, buy_in=D("60.00"))
    round_ = running(drawmaha_table)
    # Heads-up the button (small blind) acts first and owes a call: timed out, it folds.
    Round.objects.filter(pk=round_.pk).update(decision_deadline=timezone.now() - timedelta(1))
    catch_up_drawmaha_table(drawmaha_table.pk)
    round_.refresh_from_db()
    assert round_.status == "settled"
    assert round_.events.filter(kind="timed_out").count() == 1
    assert round_.events.filter(kind="fold").count() == 1
    # The next hand: everyone overdue, the sweeper checks through and stands pat to the end.
    second = running(drawmaha_table)
    drawmaha.act(player=to_act(drawmaha_table).player, table=drawmaha_table, action="call")
    for _ in range(40):
        second.refresh_from_db()
        if second.status == "settled":
            break
        Round.objects.filter(pk=second.pk).update(decision_deadline=timezone.now() - timedelta(1))
        sweep_overdue_rounds()
    assert second.status == "settled"
    assert set(second.events.filter(kind="exchange").values_list("data__count", flat=True)) == {0}
    assert not second.events.filter(kind="fold").exists()
    assert replay_round(second).ok
    assert_chips_held(drawmaha_table)
    call_command("ledger_check", verbosity=0)


def test_a_leaver_has_a_dead_hand_and_is_cashed_out_after_it(players, drawmaha_table, settings):
    seat_everyone(drawmaha_table, players, settings)
    round_ = running(drawmaha_table)
    leaver = to_act(drawmaha_table).player
    drawmaha.leave(player=leaver, table=drawmaha_table)
    assert round_.events.filter(kind="left_table").exists()
    assert round_.events.filter(kind="fold").exists()
    left = Seat.objects.get(table=drawmaha_table, player=leaver)
    assert left.status == SeatStatus.LEFT  # folded: the stack is cashed out at once
    assert balance(leaver) == D("200.00")  # acted before posting a blind: nothing lost
    play_passively(drawmaha_table)
    assert_chips_held(drawmaha_table)
    call_command("ledger_check", verbosity=0)
    round_.refresh_from_db()
    assert replay_round(round_).ok


def test_the_api_shows_own_cards_only_and_refuses_with_field_and_rule(players, drawmaha_table):
    ann, ben = players[:2]
    drawmaha.join(player=ann, table=drawmaha_table, seat=1, buy_in=D("60.00"))
    drawmaha.join(player=ben, table=drawmaha_table, seat=2, buy_in=D("60.00"))
    url = f"/api/v1/drawmaha/tables/{drawmaha_table.pk}/"
    view = api_client(ann).get(url).json()
    mine, theirs = view["hand"]["players"]
    assert len(mine["cards"]) == 5
    assert theirs["cards"] is None
    assert theirs["card_count"] == 5
    waiting = ben if to_act(drawmaha_table).player == ann else ann
    response = api_client(waiting).post(
        f"{url}actions/", {"action": "call"}, format="json", HTTP_IDEMPOTENCY_KEY="late-1"
    )
    assert response.status_code == 400
    assert "DM-" in str(response.json())
    assert "seat" in str(response.json())
