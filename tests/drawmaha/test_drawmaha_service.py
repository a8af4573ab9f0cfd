"""Drawmaha tables through the service, on PostgreSQL: seats and blinds through the ledger, the
button moving, hands played to the showdown with the pot in halves, refusals, timers, leavers,
the replay of finished hands, restarts, idempotent requests and races (DM-1..DM-12)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from games.drawmaha.hand import Hand
from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.drawmaha.tasks import catch_up_drawmaha_table
from games.engine import drawmaha as engine
from games.models import Round, RoundEvent, Seat, SeatStatus, Table
from games.peer.hands import from_cents
from games.tables.replay import replay_round
from games.tables.rounds import RoundRefused
from games.tables.tasks import sweep_overdue_rounds
from payouts import services as money
from payouts.models import AccountKind
from tests.fixtures.drawmaha import (
    hand_of,
    own_cards,
    play_passively,
    play_to_the_draw,
    play_with_twists,
    seat_everyone,
    stand_pat_until_a_twist,
    to_act,
)
from tests.fixtures.peer import assert_chips_held, balance, house, running
from tests.fixtures.tables import make_drawmaha_table
from tests.fixtures.users import api_client, make_user

D = Decimal


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
    play_to_the_draw(drawmaha_table)
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


def test_a_hand_resumes_from_the_database_after_a_restart(players, drawmaha_table, settings):
    """Nothing lives outside the database: in the draw, with a twist card shown and waiting for
    its answer (DM-6), the stored state is the whole hand, and a fresh process (fresh table and
    user objects, the API) carries it on to the end."""
    seat_everyone(drawmaha_table, players, settings)
    play_to_the_draw(drawmaha_table)
    drawer = to_act(drawmaha_table)
    thrown = own_cards(drawmaha_table, drawer)[0]
    drawmaha.act(player=drawer.player, table=drawmaha_table, action="exchange", cards=[thrown])
    stand_pat_until_a_twist(drawmaha_table)
    round_ = running(drawmaha_table)
    stored = round_.engine_state
    hand = Hand.from_json(stored)
    assert hand.to_json() == stored
    seat = hand.seats.index(drawer.number)
    assert hand.state.to_act == seat
    shown = hand.state.exchanges[0].twist
    assert [(o.kind.value, o.card) for o in engine.legal_actions(hand.state)] == [
        ("take", shown), ("reject", shown),
    ]  # fmt: skip

    table = Table.objects.get(pk=drawmaha_table.pk)
    user = User.objects.get(pk=drawer.player_id)
    response = api_client(user).post(
        f"/api/v1/drawmaha/tables/{table.pk}/actions/",
        {"action": "reject"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="after-restart",
    )
    assert response.status_code == 200, response.json()
    exchange = next(e for e in hand_of(table).state.exchanges if e.seat == seat)
    assert (exchange.twist, exchange.twist_taken) == (shown, False)
    assert len(exchange.received) == 1
    assert exchange.received[0] != shown
    play_passively(table)
    round_.refresh_from_db()
    assert round_.status == "settled"
    assert [e.data["seat"] for e in round_.events.filter(kind="twist_rejected")] == [seat]
    report = replay_round(round_)
    assert report.ok, report.mismatches
    call_command("ledger_check", verbosity=0)
    assert_chips_held(table)


def test_the_same_action_key_twice_applies_once(players, drawmaha_table):
    """A bet and an exchange (DM-5) sent twice with one key each apply once; the second answer
    is the first, byte for byte; the same key with another body is refused."""
    ann, ben = players[:2]
    client = {u.pk: api_client(u) for u in (ann, ben)}
    base = f"/api/v1/drawmaha/tables/{drawmaha_table.pk}/"
    for number, user in enumerate((ann, ben), start=1):
        response = client[user.pk].post(
            f"{base}seats/",
            {"seat": number, "buy_in": "60.00"},
            format="json",
            HTTP_IDEMPOTENCY_KEY="sit",
        )
        assert response.status_code == 201, response.json()
    round_ = running(drawmaha_table)

    def send(user, body, key):
        return client[user.pk].post(
            f"{base}actions/", body, format="json", HTTP_IDEMPOTENCY_KEY=key
        )

    first = to_act(drawmaha_table).player
    answers = [send(first, {"action": "call"}, "act-1") for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].content == answers[1].content
    assert round_.events.filter(kind="call").count() == 1
    play_to_the_draw(drawmaha_table)
    drawer = to_act(drawmaha_table)
    thrown = own_cards(drawmaha_table, drawer)[:2]
    body = {"action": "exchange", "cards": thrown}
    answers = [send(drawer.player, body, "draw-1") for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].content == answers[1].content
    assert list(round_.events.filter(kind="exchange").values_list("data__discards", flat=True)) == [
        thrown
    ]
    other = send(drawer.player, {"action": "exchange", "cards": thrown[:1]}, "draw-1")
    assert other.status_code == 409
    refused = send(drawer.player, {"action": "exchange"}, "draw-2")  # the other player's turn
    assert refused.status_code == 400
    assert refused.json()["errors"]["seat"][0].endswith("(DM-5).")
    assert round_.events.filter(kind="exchange").count() == 1


def test_every_hand_replays_from_its_seed_and_a_tampered_one_does_not(
    players, drawmaha_table, settings, capsys
):
    """FS-7: the deck from the revealed seed, the recorded decisions (bets, exchanges, taken and
    rejected twists, a timed-out draw), the same events, stacks and ledger; a history edited in
    memory is caught."""
    seat_everyone(drawmaha_table, players, settings)
    play_passively(drawmaha_table)
    play_with_twists(drawmaha_table, hands=2)
    play_to_the_draw(drawmaha_table)
    Round.objects.filter(pk=running(drawmaha_table).pk).update(decision_deadline=timezone.now())
    catch_up_drawmaha_table(drawmaha_table.pk)  # a timed-out exchange replays too (DM-5)
    play_passively(drawmaha_table)
    finished = list(Round.objects.filter(table=drawmaha_table, status="settled"))
    kinds = {kind for r in finished for kind in r.events.values_list("kind", flat=True)}
    assert {"twist_taken", "twist_rejected", "timed_out"} <= kinds
    for round_ in finished:
        report = replay_round(round_)
        assert report.ok, report.mismatches
        assert report.events_checked > 10
        call_command("replay_round", round_.pk)
        assert "replay matches" in capsys.readouterr().out
    round_ = finished[0]
    round_.client_seed = "tampered"
    report = replay_round(round_)
    assert not report.ok
    assert any(m.startswith("event 3: recorded deal") for m in report.mismatches)  # 2 blinds
    assert not replay_round(running(drawmaha_table)).ok  # an unfinished hand shows no seed


@pytest.mark.django_db(transaction=True)
def test_two_decisions_at_once_never_both_apply(pit, pit2, settings):
    """The table row lock serialises decisions: of two sent at once for the player to act, a
    call, an exchange in the draw (DM-5) or the twist's take against its reject (DM-6),
    exactly one is applied and the other is refused."""
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 0
    table = make_drawmaha_table(pit, pit2, name="Drawmaha race")
    for number, name in enumerate(("ann", "ben", "cal"), start=1):
        user = make_user(name, "player")
        money.deposit(player=user, currency="USD", amount=D("100.00"), reason="cash", by=pit)
        drawmaha.join(player=user, table=table, seat=number, buy_in=D("60.00"))
    round_ = running(table)

    def race(seating: Seat, *bodies: dict) -> tuple[list[str], list[str]]:
        """Send ``bodies`` at once for the player in ``seating``: the outcomes, and the events
        the race added to the hand."""
        before = round_.events.count()
        start = threading.Barrier(len(bodies))

        def decide(body: dict) -> str:
            start.wait()
            try:
                drawmaha.act(player=seating.player, table=table, **body)
                return "applied"
            except RoundRefused:
                return "refused"
            finally:
                connection.close()

        with ThreadPoolExecutor(len(bodies)) as pool:
            outcomes = sorted(pool.map(decide, bodies))
        added = list(round_.events.order_by("sequence").values_list("kind", flat=True))[before:]
        return outcomes, added

    outcomes, added = race(to_act(table), {"action": "call"}, {"action": "call"})
    assert (outcomes, added) == (["applied", "refused"], ["call"])
    play_to_the_draw(table)
    drawer = to_act(table)
    exchange = {"action": "exchange", "cards": own_cards(table, drawer)[:1]}
    outcomes, added = race(drawer, exchange, exchange)
    assert (outcomes, added) == (["applied", "refused"], ["exchange"])
    stand_pat_until_a_twist(table)
    outcomes, added = race(drawer, {"action": "take"}, {"action": "reject"})
    assert outcomes == ["applied", "refused"]
    assert added.count("twist_taken") + added.count("twist_rejected") == 1
    play_passively(table)
    round_.refresh_from_db()
    assert round_.status == "settled"
    assert replay_round(round_).ok
    assert_chips_held(table)
    call_command("ledger_check", verbosity=0)
