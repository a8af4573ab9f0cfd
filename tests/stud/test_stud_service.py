"""Seven-card stud tables through the service and the API, on PostgreSQL: seats, buy-in and
cash-out, hands that start by themselves, chips through the ledger, timers (ST-1..ST-13)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from casino.refusals import Kind
from games.engine import stud as engine
from games.models import Round, RoundEvent, Seat, SeatStatus
from games.peer.hands import from_cents
from games.stud.hand import Hand
from games.stud.replay import last_card_mismatches
from games.stud.tasks import STUD as stud
from games.stud.tasks import catch_up_stud_table
from games.tables.replay import replay_round
from games.tables.rounds import RoundRefused
from games.tables.tasks import sweep_overdue_rounds
from payouts import services as money
from payouts.models import AccountKind
from tests.fixtures.peer import assert_chips_held, balance, house, running
from tests.fixtures.stud import play_passively, to_act
from tests.fixtures.stud_play import eight_players_one_folds, passive
from tests.fixtures.tables import make_stud_table
from tests.fixtures.users import api_client, make_user

D = Decimal
TABLES = "/api/v1/stud/tables/"


def test_buy_in_moves_money_from_the_wallet_to_the_table(players, stud_table):
    ann = players[0]
    seat = stud.join(player=ann, table=stud_table, seat=3, buy_in=D("60.00"))
    assert (seat.number, seat.chips, seat.status) == (3, D("60.00"), SeatStatus.SEATED)
    assert balance(ann) == D("140.00")
    assert house(AccountKind.TABLE_CHIPS) == D("60.00")
    assert not Round.objects.filter(table=stud_table).exists()  # one player: no hand


@pytest.mark.parametrize(
    ("seat", "buy_in", "field"),
    [(9, "60.00", "seat"), (0, "60.00", "seat"), (1, "49.99", "buy_in"), (1, "500.01", "buy_in")],
)
def test_refused_seats_and_buy_ins_name_the_field_and_charge_nothing(
    players, stud_table, seat, buy_in, field
):
    """ST-1: the table's seats and buy-in range."""
    with pytest.raises(RoundRefused) as refused:
        stud.join(player=players[0], table=stud_table, seat=seat, buy_in=D(buy_in))
    assert (refused.value.field, refused.value.rule) == (field, "ST-1")
    assert balance(players[0]) == D("200.00")


def test_a_seat_is_taken_once_and_a_player_sits_once(players, stud_table):
    stud.join(player=players[0], table=stud_table, seat=1, buy_in=D("60.00"))
    with pytest.raises(RoundRefused, match="taken") as refused:
        stud.join(player=players[1], table=stud_table, seat=1, buy_in=D("60.00"))
    assert refused.value.kind == Kind.CONFLICT
    with pytest.raises(RoundRefused, match="already have a seat"):
        stud.join(player=players[0], table=stud_table, seat=2, buy_in=D("60.00"))


def test_no_buy_in_without_funds(players, stud_table):
    with pytest.raises(money.InsufficientFunds):
        stud.join(player=players[0], table=stud_table, seat=1, buy_in=D("300.00"))
    assert not Seat.objects.exists()


def test_two_players_with_chips_start_a_hand_with_antes_through_the_ledger(players, stud_table):
    """ST-1, ST-2, ST-3: the second player sitting down deals a hand: antes, third street."""
    ann, ben = players[:2]
    stud.join(player=ann, table=stud_table, seat=2, buy_in=D("60.00"))
    stud.join(player=ben, table=stud_table, seat=5, buy_in=D("80.00"))
    round_ = running(stud_table)
    hand = Hand.from_json(round_.engine_state)
    assert hand.seats == (2, 5)  # seat order from the dealer's left
    assert round_.player is None
    assert round_.commitment
    assert round_.decision_deadline
    assert house(AccountKind.STAKES_IN_PLAY) == D("1.00")  # two antes of 0.50
    assert house(AccountKind.TABLE_CHIPS) == D("139.00")
    assert_stacks = {s.number: s.chips for s in Seat.objects.filter(table=stud_table)}
    assert assert_stacks == {2: D("59.50"), 5: D("79.50")}
    kinds = list(RoundEvent.objects.filter(round=round_).values_list("kind", flat=True))
    assert kinds == ["hand_opened", "ante", "ante", "deal", "bring_in_seat"]


def test_the_table_shows_own_down_cards_only_and_actions_to_the_player_to_act(
    players, stud_table, pit
):
    ann, ben = players[:2]
    stud.join(player=ann, table=stud_table, seat=1, buy_in=D("60.00"))
    stud.join(player=ben, table=stud_table, seat=2, buy_in=D("60.00"))
    first = to_act(stud_table).player
    views = {
        user.username: api_client(user).get(f"{TABLES}{stud_table.pk}/").json()
        for user in (ann, ben, pit)
    }
    for name, seat in (("ann", 1), ("ben", 2)):
        players_view = views[name]["hand"]["players"]
        own = next(p for p in players_view if p["seat"] == seat)
        other = next(p for p in players_view if p["seat"] != seat)
        assert len(own["down"]) == 2
        assert other["down"] is None
        assert other["down_count"] == 2
        assert len(other["up"]) == 1
        assert views[name]["your_seat"] == seat
    assert all(p["down"] is None for p in views["pitboss"]["hand"]["players"])
    assert "server_seed" not in str(views["pitboss"])
    hand = views[first.username]["hand"]
    assert hand["pot"] == "1.00"
    assert [a["action"] for a in hand["legal_actions"]] == ["bring_in", "complete"]  # ST-3
    assert hand["legal_actions"][0]["min_amount"] == "1.00"
    other_name = "ben" if first.username == "ann" else "ann"
    assert views[other_name]["hand"]["legal_actions"] == []


def test_a_hand_played_out_pays_the_pot_takes_the_rake_and_deals_the_next(players, stud_table):
    """ST-10, ST-11, ST-13: chips only move between stacks, the pot and the rake."""
    for number, user in enumerate(players, start=1):
        stud.join(player=user, table=stud_table, seat=number, buy_in=D("100.00"))
    play_passively(stud_table)
    settled = Round.objects.get(table=stud_table, status="settled")
    state = Hand.from_json(settled.engine_state).state
    assert state.street == engine.Street.OVER
    rake = house(AccountKind.RAKE)
    assert rake == from_cents(state.rake) > 0
    assert settled.events.filter(kind="pot_awarded").exists()
    nxt = running(stud_table)  # the next hand is dealt at once (no pause in tests)
    assert nxt.nonce == settled.nonce + 1
    stacks = sum((s.chips for s in Seat.objects.filter(table=stud_table)), D(0))
    assert stacks + rake + house(AccountKind.STAKES_IN_PLAY) == D("300.00")
    call_command("ledger_check", verbosity=0)


def test_refused_actions_name_the_rule_and_change_nothing(players, stud_table):
    ann, ben = players[:2]
    stud.join(player=ann, table=stud_table, seat=1, buy_in=D("60.00"))
    stud.join(player=ben, table=stud_table, seat=2, buy_in=D("60.00"))
    first = to_act(stud_table).player
    second = ben if first == ann else ann
    history = running(stud_table).history_length
    with pytest.raises(RoundRefused) as refused:
        stud.act(player=second, table=stud_table, action="bring_in")
    assert (refused.value.field, refused.value.rule) == ("seat", "ST-3")
    with pytest.raises(RoundRefused) as refused:
        stud.act(player=first, table=stud_table, action="complete", amount=D("7.00"))
    assert (refused.value.field, refused.value.rule) == ("amount", "ST-3")
    with pytest.raises(RoundRefused) as refused:
        stud.act(player=first, table=stud_table, action="check")
    assert refused.value.rule == "ST-3"
    assert running(stud_table).history_length == history


def test_an_overdue_player_checks_if_free_else_folds(players, stud_table):
    """The action timer: the bring-in is forced (ST-3); then a bet to call is folded."""
    ann, ben = players[:2]
    stud.join(player=ann, table=stud_table, seat=1, buy_in=D("60.00"))
    stud.join(player=ben, table=stud_table, seat=2, buy_in=D("60.00"))
    round_ = running(stud_table)
    Round.objects.filter(pk=round_.pk).update(decision_deadline=timezone.now())
    catch_up_stud_table(stud_table.pk)
    kinds = list(round_.events.order_by("sequence").values_list("kind", flat=True))
    assert kinds[-2:] == ["timed_out", "bring_in"]
    Round.objects.filter(pk=round_.pk).update(
        decision_deadline=timezone.now() - timedelta(seconds=1)
    )
    assert sweep_overdue_rounds() == 0  # joker draw rounds only; stud tables caught up too
    kinds = list(round_.events.order_by("sequence").values_list("kind", flat=True))
    assert kinds[-6:] == ["timed_out", "fold", "uncalled_bet_returned", "rake", "pot_awarded",
                          "hand_over"]  # fmt: skip
    round_.refresh_from_db()
    assert round_.status == "settled"
    call_command("ledger_check", verbosity=0)


def test_a_player_who_leaves_mid_hand_is_folded_and_cashed_out(players, stud_table):
    """Leaving out of turn marks the seat; at the turn, facing a bet, the player is folded, and
    the stack goes back to the wallet once the cards are dead."""
    for number, user in enumerate(players[:2], start=1):
        stud.join(player=user, table=stud_table, seat=number, buy_in=D("100.00"))
    bringer = to_act(stud_table)
    leaver = Seat.objects.exclude(pk=bringer.pk).get(table=stud_table)
    stud.leave(player=leaver.player, table=stud_table)
    leaver.refresh_from_db()
    assert leaver.status == SeatStatus.LEAVING
    round_ = running(stud_table)
    stud.act(player=bringer.player, table=stud_table, action="complete")  # a bet to call
    leaver.refresh_from_db()
    assert leaver.status == SeatStatus.LEFT
    assert leaver.chips == 0
    kinds = list(round_.events.order_by("sequence").values_list("kind", flat=True))
    assert kinds[-6:-4] == ["left_table", "fold"]
    assert balance(leaver.player) == D("199.50")  # lost the ante only
    round_.refresh_from_db()
    assert round_.status == "settled"
    assert not Round.objects.filter(table=stud_table, status="deciding").exists()  # one left
    assert_chips_held(stud_table)
    call_command("ledger_check", verbosity=0)


def test_a_player_who_leaves_with_a_check_free_still_folds(players, stud_table):
    """A dead hand never wins: on fourth street with nobody to call, the leaver is folded, not
    checked through, and the other player takes the pot."""
    for number, user in enumerate(players[:2], start=1):
        stud.join(player=user, table=stud_table, seat=number, buy_in=D("100.00"))
    first = to_act(stud_table)
    stud.act(player=first.player, table=stud_table, action="bring_in")
    stud.act(player=to_act(stud_table).player, table=stud_table, action="call")
    round_ = running(stud_table)
    leaver = to_act(stud_table)  # first to act on fourth street: a check is free
    state = Hand.from_json(round_.engine_state).state
    assert "check" in {option.kind.value for option in engine.legal_actions(state)}
    stud.leave(player=leaver.player, table=stud_table)
    kinds = list(round_.events.order_by("sequence").values_list("kind", flat=True))
    assert "left_table" in kinds
    assert kinds[kinds.index("left_table") + 1] == "fold"
    round_.refresh_from_db()
    assert round_.status == "settled"
    leaver.refresh_from_db()
    assert (leaver.status, leaver.chips) == (SeatStatus.LEFT, 0)
    assert_chips_held(stud_table)
    call_command("ledger_check", verbosity=0)
    call_command("replay_round", round_.pk)  # the dead-hand fold replays from the seed


def test_a_player_not_in_a_hand_leaves_at_once_with_the_stack(players, stud_table):
    ann = players[0]
    stud.join(player=ann, table=stud_table, seat=4, buy_in=D("75.00"))
    seat = stud.leave(player=ann, table=stud_table)
    assert seat.status == SeatStatus.LEFT
    assert seat.chips == 0
    assert balance(ann) == D("200.00")
    assert house(AccountKind.TABLE_CHIPS) == 0
    stud.join(player=players[1], table=stud_table, seat=4, buy_in=D("75.00"))  # free again


def test_a_hand_resumes_from_the_database_after_a_restart(players, stud_table):
    """Nothing lives outside the database: a fresh process carries on from the stored state."""
    ann, ben = players[:2]
    stud.join(player=ann, table=stud_table, seat=1, buy_in=D("60.00"))
    stud.join(player=ben, table=stud_table, seat=2, buy_in=D("60.00"))
    stored = running(stud_table).engine_state
    assert Hand.from_json(stored).to_json() == stored
    play_passively(stud_table)
    call_command("ledger_check", verbosity=0)
    assert_chips_held(stud_table)  # a hand is running: its pot is in stakes in play


def test_the_same_action_key_twice_applies_once(players, stud_table):
    ann, ben = players[:2]
    client = {u.pk: api_client(u) for u in (ann, ben)}
    for number, user in enumerate((ann, ben), start=1):
        response = client[user.pk].post(
            f"{TABLES}{stud_table.pk}/seats/",
            {"seat": number, "buy_in": "60.00"},
            format="json",
            HTTP_IDEMPOTENCY_KEY="sit",
        )
        assert response.status_code == 201, response.json()
    first = to_act(stud_table).player
    for _ in range(2):
        response = client[first.pk].post(
            f"{TABLES}{stud_table.pk}/actions/",
            {"action": "complete", "amount": "5.00"},
            format="json",
            HTTP_IDEMPOTENCY_KEY="act-1",
        )
        assert response.status_code == 200
    assert running(stud_table).events.filter(kind="complete").count() == 1
    refused = client[first.pk].post(
        f"{TABLES}{stud_table.pk}/actions/",
        {"action": "raise", "amount": "10.00"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="act-2",
    )
    assert refused.status_code == 400
    assert refused.json()["errors"]["seat"][0].endswith("(ST-3).")


def test_seat_buy_in_needs_an_idempotency_key(players, stud_table):
    response = api_client(players[0]).post(
        f"{TABLES}{stud_table.pk}/seats/", {"seat": 1, "buy_in": "60.00"}, format="json"
    )
    assert response.status_code == 400
    assert not Seat.objects.exists()


def test_every_hand_replays_from_its_seed_and_a_tampered_one_does_not(players, stud_table, capsys):
    """FS-7: the deck from the revealed seed, the recorded decisions, the same events, stacks
    and ledger; a history edited in memory is caught."""
    for number, user in enumerate(players, start=1):
        stud.join(player=user, table=stud_table, seat=number, buy_in=D("100.00"))
    play_passively(stud_table, hands=2)
    stud.act(player=to_act(stud_table).player, table=stud_table, action="bring_in")
    Round.objects.filter(pk=running(stud_table).pk).update(decision_deadline=timezone.now())
    catch_up_stud_table(stud_table.pk)  # a timed-out decision replays too
    for round_ in Round.objects.filter(table=stud_table, status="settled"):
        report = replay_round(round_)
        assert report.ok, report.mismatches
        assert report.events_checked > 10
        call_command("replay_round", round_.pk)
        assert "replay matches" in capsys.readouterr().out
    round_ = Round.objects.filter(table=stud_table, status="settled").first()
    round_.client_seed = "tampered"
    report = replay_round(round_)
    assert not report.ok
    assert any(m.startswith("event 4: recorded deal") for m in report.mismatches)  # 3 antes
    assert not replay_round(running(stud_table)).ok  # an unfinished hand has no seed to show


def test_the_replay_checks_st9_on_the_recorded_events():
    """ST-9 on a hand's own record: eight players, one folds to the bring-in; the last card
    comes from the undealt cards and the burns. A record whose reshuffle returns the folded
    cards, or that deals one again, is reported with the rule."""
    state, events, folder = eight_players_one_folds(engine.Street.THIRD)
    state, more = passive(state)
    played = [(event.kind, event.data) for event in events + more]
    assert last_card_mismatches(played) == []
    folded = [str(card) for card in state.hands[folder].cards]
    number, reshuffle = next((n, d) for n, (k, d) in enumerate(played, 1) if k == "reshuffle")
    tampered = list(played)
    tampered[number - 1] = ("reshuffle", {**reshuffle, "returned": reshuffle["returned"] + folded})
    (mismatch,) = last_card_mismatches(tampered)
    assert mismatch.startswith(f"event {number}: the reshuffle returns")
    assert mismatch.endswith("(ST-9)")
    seventh = next(n for n, (k, d) in enumerate(played, 1) if k == "deal" and n > number)
    deal = dict(played[seventh - 1][1])
    deal["cards"] = [{**deal["cards"][0], "card": folded[0]}, *deal["cards"][1:]]
    tampered = [*played[: seventh - 1], ("deal", deal), *played[seventh:]]
    assert last_card_mismatches(tampered) == [
        f"event {seventh}: {folded[0]}, folded by seat {folder}, is dealt again (ST-9)"
    ]


def test_a_joker_draw_table_is_no_stud_table(players, joker_table):
    response = api_client(players[0]).get(f"{TABLES}{joker_table.pk}/")
    assert response.status_code == 404
    with pytest.raises(RoundRefused, match="not a table of Seven-card stud") as refused:
        stud.join(player=players[0], table=joker_table, seat=1, buy_in=D("60.00"))
    assert refused.value.rule == "ST-1"


@pytest.mark.django_db(transaction=True)
def test_two_decisions_at_once_never_both_apply(pit, pit2, settings):
    """The table row lock serialises decisions: of two sent at once for the player to act,
    exactly one is applied and the other is refused as out of turn."""
    settings.STUD_HAND_PAUSE_SECONDS = 0
    table = make_stud_table(pit, pit2, name="Stud race")
    for number, name in enumerate(("ann", "ben", "cal"), start=1):
        user = make_user(name, "player")
        money.deposit(player=user, currency="USD", amount=D("100.00"), reason="cash", by=pit)
        stud.join(player=user, table=table, seat=number, buy_in=D("60.00"))
    bringer = to_act(table)
    round_ = running(table)
    events_before = round_.events.count()
    start = threading.Barrier(2)

    def decide(_: int) -> str:
        start.wait()
        try:
            stud.act(player=bringer.player, table=table, action="bring_in")
            return "applied"
        except RoundRefused:
            return "refused"
        finally:
            connection.close()

    with ThreadPoolExecutor(2) as pool:
        outcomes = sorted(pool.map(decide, range(2)))
    assert outcomes == ["applied", "refused"]
    kinds = list(round_.events.order_by("sequence").values_list("kind", flat=True))
    assert kinds[events_before:].count("bring_in") == 1
    assert_chips_held(table)
    call_command("ledger_check", verbosity=0)
