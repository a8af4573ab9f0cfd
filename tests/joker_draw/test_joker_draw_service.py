"""Joker draw rounds through the game service and the API, on PostgreSQL (JD-1..JD-16)."""

from __future__ import annotations

import hashlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from games.engine import fairness
from games.joker_draw import rtp_lab
from games.joker_draw import services as joker_draw
from games.joker_draw.paytables import approve_paytable_version, propose_paytable_version
from games.joker_draw.replay import replay_joker_draw
from games.joker_draw.services import BoxRequest
from games.joker_draw.tasks import expire_joker_draw_decision, fold_overdue_boxes
from games.models import BoxSettlement, Round, RoundEvent
from games.tables.rounds import RoundRefused
from games.tables.tasks import sweep_overdue_rounds
from payouts import services as money
from payouts.models import AccountKind, LedgerEntry
from tests.fixtures.joker_draw import ROUNDS, act, open_round, stacked_deck
from tests.fixtures.ledger import assert_ledger_passes
from tests.fixtures.users import api_client

D = Decimal


def balance(user, currency="USD") -> Decimal:
    return money.wallet(user, currency).balance


def test_opening_a_round_commits_to_the_shuffle_and_takes_ante_and_bonus(
    funded_player, joker_table
):
    """FS-2, JD-2, JD-3, JD-13."""
    client = api_client(funded_player)
    response = open_round(
        client, joker_table, [{"box": 1, "ante": "0.60", "bonus": "0.30"}], client_seed="lucky"
    )
    assert response.status_code == 201
    body = response.json()
    assert body["state"] == "deciding"
    assert body["client_seed"] == "lucky"
    assert body["nonce"] == 1
    assert "server_seed" not in body
    assert body["to_act"] == {"box": 1, "options": ["fold", "exchange", "bet"]}
    assert body["boxes"][0]["ante"] == "0.60"
    assert len(body["boxes"][0]["cards"]) == 5
    round_ = Round.objects.get(pk=body["id"])
    assert (
        body["commitment"] == hashlib.sha256(bytes.fromhex(round_.secret_server_seed())).hexdigest()
    )
    deck = fairness.deck_order(round_.secret_server_seed(), "lucky", 1, jokers=1)
    assert body["boxes"][0]["cards"] == [str(deck[i]) for i in (0, 2, 4, 6, 8)]  # JD-3
    assert balance(funded_player) == D("99.10")
    assert money.house_account(AccountKind.STAKES_IN_PLAY, "USD").balance == D("0.60")
    assert money.house_account(AccountKind.BONUS, "USD").balance == D("0.30")


@pytest.mark.parametrize(
    ("boxes", "field", "words"),
    [
        (
            [{"box": 1, "ante": "0.50"}],
            "boxes[1].ante",
            "not a whole multiple of the ante step 0.30 (JD-2)",
        ),
        ([{"box": 1, "ante": "12.30"}], "boxes[1].ante", "from 0.30 to 12.00 (JD-2)"),
        ([{"box": 1, "ante": "0.30", "bonus": "7.00"}], "boxes[1].bonus", "(JD-13)"),
        (
            [{"box": 1, "ante": "0.30"}, {"box": 2, "ante": "0.30"}],
            "boxes",
            "1 box per round (JD-15)",
        ),
        ([{"box": 2, "ante": "0.30"}], "boxes", "numbered 1 to 1"),
        ([{"box": 1, "ante": "1e9"}], "boxes", "digits, at most two decimal places"),
        ([], "boxes", "may not be empty"),
    ],
)
def test_refused_openings_name_the_field_and_charge_nothing(
    funded_player, joker_table, boxes, field, words
):
    response = open_round(api_client(funded_player), joker_table, boxes)
    assert response.status_code == 400
    assert words in str(response.json()["errors"])
    assert field in response.json()["errors"] or field == "boxes"
    assert balance(funded_player) == D("100.00")
    assert not Round.objects.exists()


def test_no_round_without_funds(player, joker_table):
    response = open_round(api_client(player), joker_table, [{"box": 1, "ante": "0.30"}])
    assert response.status_code == 409
    assert "Insufficient funds" in response.json()["detail"]
    assert not Round.objects.exists()


def test_a_closed_table_deals_no_round(funded_player, joker_table, pit):
    from games.tables.services import set_table_status

    set_table_status(joker_table, status="closed", by=pit, reason="end of shift")
    response = open_round(api_client(funded_player), joker_table, [{"box": 1, "ante": "0.30"}])
    assert response.status_code == 409
    assert "closed" in response.json()["detail"]


def test_exchange_and_bet_charge_the_wallet_and_the_round_settles(funded_player, joker_table):
    """JD-5..JD-8, JD-11: ante 0.30 -> 0.60 after an exchange, then a bet of 1.20."""
    client = api_client(funded_player)
    body = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}]).json()
    cards = body["boxes"][0]["cards"]
    exchanged = act(client, body["id"], "a1", box=1, action="exchange", cards=cards[:3]).json()
    assert exchanged["boxes"][0]["ante"] == "0.60"
    assert exchanged["boxes"][0]["exchanges"] == 1
    assert exchanged["to_act"]["options"] == ["fold", "exchange", "bet"]
    assert balance(funded_player) == D("99.40")
    settled = act(client, body["id"], "a2", box=1, action="bet").json()
    assert settled["state"] == "settled"
    assert settled["boxes"][0]["bet"] == "1.20"
    result = D(settled["boxes"][0]["result"]["total"])
    assert balance(funded_player) == D("100.00") + result
    assert "server_seed" not in settled  # FS-7: shown once the player rotates the pair
    assert len(settled["dealer"]["final"]) == 5
    assert "qualifies" in settled["dealer"]
    record = BoxSettlement.objects.get(round_id=body["id"])
    assert (record.ante_staked, record.bet_staked, record.total_result) == (
        D("0.60"),
        D("1.20"),
        result,
    )
    assert record.bet_paytable_version.number == 1
    assert replay_joker_draw(Round.objects.get(pk=body["id"])).ok


def test_a_dealer_without_a_game_pays_the_no_game_line_in_force_through_the_ledger(
    funded_player, joker_table, pit, pit2, monkeypatch
):
    """JD-11a: the house prices the no-game payment at 1:2; a box that bets a pair of jacks
    against a dealer who draws to queen high (JD-9.6, JD-10) wins half its ante, 0.15 on
    0.30, in the API, the wallet, the settlement record and the words the player reads."""
    bet = joker_table.active_limits().bet_paytable
    # The small hands' bets at 1:2 too, so that a short best-play run shows the house ahead
    # (JD-14);
    # the bet here is returned, the dealer having no game.
    cheaper = {line: Fraction(1, 2) for line in ("pair", "two_pair", "three_of_a_kind")}
    lines = {**bet.active_version().odds(), "no_game": Fraction(1, 2), **cheaper}
    half = propose_paytable_version(paytable=bet, lines=lines, reason="no game 1:2", by=pit)
    rtp_lab.compute_now(half, seed=1)
    approve_paytable_version(half, by=pit2)
    deck = stacked_deck(["Jc Jd 4h 8s Kc"], "2c 3d 5h 7c 9d", "4c 6d 8c Td Qc")
    monkeypatch.setattr(fairness, "deck_order", lambda *args, **kwargs: deck)
    client = api_client(funded_player)
    body = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}]).json()
    settled = act(client, body["id"], "bet", box=1, action="bet").json()
    assert settled["dealer"]["qualifies"] is False
    result = settled["boxes"][0]["result"]
    assert (result["ante"], result["bet"], result["total"]) == ("0.15", "0.00", "0.15")
    assert settled["boxes"][0]["explanation"] == [
        "Dealer does not qualify: ante pays 1:2 (0.15 won), bet returned."
    ]
    assert balance(funded_player) == D("100.15")
    record = BoxSettlement.objects.get(round_id=body["id"])
    assert (record.ante_result, record.bet_result, record.total_result) == (
        D("0.15"),
        D("0.00"),
        D("0.15"),
    )
    assert record.bet_paytable_version == half
    assert replay_joker_draw(Round.objects.get(pk=body["id"])).ok
    assert_ledger_passes()


def test_refused_actions_change_nothing(funded_player, other_player, joker_table):
    client = api_client(funded_player)
    body = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}]).json()
    cards = body["boxes"][0]["cards"]
    cases = [
        ({"box": 1, "action": "exchange", "cards": ["As", "As"]}, 400),
        ({"box": 1, "action": "exchange", "cards": ["Xx"]}, 400),
        ({"box": 1, "action": "exchange", "cards": []}, 400),
        ({"box": 1, "action": "raise"}, 400),
        ({"box": 2, "action": "bet"}, 400),
    ]
    for n, (request, status) in enumerate(cases):
        assert act(client, body["id"], f"bad-{n}", **request).status_code == status
    stranger = act(api_client(other_player), body["id"], "x", box=1, action="bet")
    assert stranger.status_code == 404
    not_mine = next(c for c in ["2c", "3d", "4h", "5s", "6c", "7d", "8h"] if c not in cards)
    refused = act(client, body["id"], "bad-card", box=1, action="exchange", cards=[not_mine])
    assert refused.status_code == 400
    assert "not in box 1's hand (JD-5)" in refused.json()["errors"]["cards"][0]
    assert balance(funded_player) == D("99.70")
    assert RoundEvent.objects.filter(round_id=body["id"]).count() == 2  # opened, dealt


def test_second_exchange_of_two_cards_is_refused(funded_player, joker_table):
    """JD-6."""
    client = api_client(funded_player)
    body = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}]).json()
    first = act(
        client, body["id"], "a1", box=1, action="exchange", cards=body["boxes"][0]["cards"][:2]
    ).json()
    refused = act(
        client, body["id"], "a2", box=1, action="exchange", cards=first["boxes"][0]["cards"][:2]
    )
    assert refused.status_code == 400
    assert refused.json()["errors"]["cards"] == [
        "the second exchange is of exactly one card (JD-6)."
    ]


def test_a_bet_after_a_fold_is_refused(funded_player, joker_table):
    client = api_client(funded_player)
    body = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}]).json()
    assert act(client, body["id"], "f", box=1, action="fold").json()["state"] == "settled"
    refused = act(client, body["id"], "b", box=1, action="bet")
    assert refused.status_code == 409
    assert "over" in refused.json()["detail"]


def test_unfinished_round_hides_cards_and_seed_from_staff(funded_player, pit, joker_table):
    body = open_round(api_client(funded_player), joker_table, [{"box": 1, "ante": "0.30"}]).json()
    seen = api_client(pit).get(f"{ROUNDS}{body['id']}/").json()
    assert seen["boxes"][0]["cards"] is None
    assert "server_seed" not in seen
    round_ = Round.objects.get(pk=body["id"])
    assert round_.secret_server_seed() not in str(seen)


def test_a_player_lists_only_their_own_rounds(funded_player, other_player, pit, joker_table):
    money.deposit(player=other_player, currency="USD", amount=D("10.00"), reason="cash", by=pit)
    open_round(api_client(funded_player), joker_table, [{"box": 1, "ante": "0.30"}], key="k1")
    open_round(api_client(other_player), joker_table, [{"box": 1, "ante": "0.30"}], key="k2")
    mine = api_client(funded_player).get(f"{ROUNDS}?table={joker_table.pk}").json()["results"]
    assert [r["player"] for r in mine] == ["alice"]
    assert len(api_client(pit).get(ROUNDS).json()["results"]) == 2


def test_an_overdue_decision_is_folded_by_the_timer_and_a_late_touch_changes_nothing(
    funded_player, joker_table
):
    """Decision timeout (JD-4): the timer task folds; a decision after the deadline is refused
    and changes nothing until the timer has folded the box."""
    client = api_client(funded_player)
    first = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}], key="o1").json()
    Round.objects.filter(pk=first["id"]).update(
        decision_deadline=timezone.now() - timedelta(seconds=1)
    )
    expire_joker_draw_decision(first["id"])
    folded = Round.objects.get(pk=first["id"])
    assert folded.status == "settled"
    assert folded.events.get(kind="fold").data["timed_out"] is True

    second = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}], key="o2").json()
    Round.objects.filter(pk=second["id"]).update(
        decision_deadline=timezone.now() - timedelta(seconds=1)
    )
    late = act(client, second["id"], "late", box=1, action="bet")
    assert late.status_code == 409
    assert Round.objects.get(pk=second["id"]).status == "deciding"
    assert balance(funded_player) == D("99.40")
    expire_joker_draw_decision(second["id"])
    assert Round.objects.get(pk=second["id"]).status == "settled"
    assert balance(funded_player) == D("99.40")


def test_each_box_has_its_full_time_from_the_deadline_of_the_box_before(
    funded_player, three_box_table
):
    """JD-4: a timed-out box is folded, and the next box's time runs from that deadline."""
    client = api_client(funded_player)
    boxes = [{"box": 1, "ante": "0.30"}, {"box": 2, "ante": "0.30"}]
    body = open_round(client, three_box_table, boxes).json()
    missed = timezone.now() - timedelta(seconds=10)
    Round.objects.filter(pk=body["id"]).update(decision_deadline=missed)
    expire_joker_draw_decision(body["id"])
    round_ = Round.objects.get(pk=body["id"])
    timeout = timedelta(seconds=three_box_table.active_limits().decision_timeout_seconds)
    assert round_.status == "deciding"
    assert [e.data["box"] for e in round_.events.filter(kind="fold")] == [1]
    assert round_.decision_deadline == missed + timeout


def test_the_sweeper_folds_what_a_lost_timer_missed(funded_player, joker_table):
    body = open_round(api_client(funded_player), joker_table, [{"box": 1, "ante": "0.30"}]).json()
    assert sweep_overdue_rounds() == 0
    Round.objects.filter(pk=body["id"]).update(
        decision_deadline=timezone.now() - timedelta(seconds=1)
    )
    assert sweep_overdue_rounds() == 1
    assert Round.objects.get(pk=body["id"]).status == "settled"


def test_the_one_second_tick_hands_each_overdue_round_to_a_worker_that_folds_it(
    celery_worker, funded_player, joker_table
):
    """JD-4 on the real worker: the beat tick finds the boxes out of time and a fold task folds
    each; a round still in time is left alone."""
    client = api_client(funded_player)
    late = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}], key="late").json()
    assert fold_overdue_boxes() == 0
    Round.objects.filter(pk=late["id"]).update(
        decision_deadline=timezone.now() - timedelta(seconds=1)
    )

    assert fold_overdue_boxes() == 1
    deadline = time.monotonic() + 60
    while Round.objects.get(pk=late["id"]).status != "settled":
        assert time.monotonic() < deadline, celery_worker.output()
        time.sleep(0.1)
    folded = Round.objects.get(pk=late["id"])
    assert folded.events.get(kind="fold").data["timed_out"] is True
    assert balance(funded_player) == D("99.70")  # the ante is lost, nothing more
    assert fold_overdue_boxes() == 0


def test_one_unfinished_round_per_player_and_table(funded_player, joker_table):
    client = api_client(funded_player)
    open_round(client, joker_table, [{"box": 1, "ante": "0.30"}], key="o1")
    second = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}], key="o2")
    assert second.status_code == 409
    assert "Finish your round" in second.json()["detail"]


def test_the_same_action_key_twice_applies_once(funded_player, joker_table):
    client = api_client(funded_player)
    body = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}]).json()
    cards = body["boxes"][0]["cards"][:1]
    first = act(client, body["id"], "same", box=1, action="exchange", cards=cards)
    again = act(client, body["id"], "same", box=1, action="exchange", cards=cards)
    assert first.content == again.content
    assert Round.objects.get(pk=body["id"]).engine_state["boxes"][0]["exchanges"] == 1
    assert balance(funded_player) == D("99.40")


@pytest.mark.django_db(transaction=True)
def test_two_actions_at_once_never_both_apply(player, pit, pit2, default_paytables):
    from games.tables import services as tables
    from tests.fixtures.tables import joker_draw_limits

    table = tables.create_table(name="J", game="joker_draw", currency="USD", by=pit, reason="t")
    tables.approve_limits(
        tables.propose_limits(
            table=table, values=joker_draw_limits(default_paytables), reason="t", by=pit
        ),
        by=pit2,
    )
    tables.set_table_status(table, status="open", by=pit, reason="t")
    money.deposit(player=player, currency="USD", amount=D("10.00"), reason="cash", by=pit)
    money.fund_house(currency="USD", amount=D("1000.00"), reason="bankroll", by=pit)
    round_ = joker_draw.open_round(
        player=player, table=table, boxes=[BoxRequest(1, D("0.30"))]
    ).round
    start = threading.Barrier(2)

    def decide(action: str) -> str:
        start.wait()
        try:
            joker_draw.act(player=player, round_id=round_.pk, box=1, action=action)
            return "applied"
        except RoundRefused:
            return "refused"
        finally:
            connection.close()

    with ThreadPoolExecutor(2) as pool:
        outcomes = sorted(pool.map(decide, ["bet", "fold"]))
    assert outcomes == ["applied", "refused"]
    round_.refresh_from_db()
    assert round_.status == "settled"
    assert round_.events.filter(kind__in=["bet", "fold"]).count() == 1
    call_command("ledger_check", verbosity=0)


def test_replay_detects_a_tampered_history(funded_player, joker_table):
    client = api_client(funded_player)
    body = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}]).json()
    act(client, body["id"], "b", box=1, action="bet")
    round_ = Round.objects.get(pk=body["id"])
    assert replay_joker_draw(round_).ok
    round_.seed_pair.server_seed = "00" * 32
    report = replay_joker_draw(round_)
    assert not report.ok
    assert "does not match the commitment (FS-2)" in report.mismatches[0]


def test_replay_round_command(funded_player, joker_table, capsys):
    client = api_client(funded_player)
    body = open_round(client, joker_table, [{"box": 1, "ante": "0.30", "bonus": "0.30"}]).json()
    act(client, body["id"], "f", box=1, action="fold")
    call_command("replay_round", body["id"])
    assert "replay matches" in capsys.readouterr().out
    ledger_net = sum(e.amount for e in LedgerEntry.objects.filter(account__owner=funded_player))
    assert ledger_net == D("100.00") + D(
        api_client(funded_player)
        .get(f"{ROUNDS}{body['id']}/")
        .json()["boxes"][0]["result"]["total"]
    )


def test_the_admin_shows_seed_and_history_only_once_a_round_is_over_and_its_pair_rotated(
    funded_player, auditor, joker_table
):
    """FS-7: the history once the round is over, the seed once its player rotates the pair."""
    from django.test import Client

    client = api_client(funded_player)
    body = open_round(client, joker_table, [{"box": 1, "ante": "0.30"}]).json()
    round_ = Round.objects.get(pk=body["id"])
    staff = Client()
    staff.force_login(auditor)
    page = staff.get(f"/admin/games/round/{round_.pk}/change/")
    assert page.status_code == 200
    assert round_.secret_server_seed().encode() not in page.content
    assert b"round_opened" not in page.content  # the hand history holds the cards
    act(client, body["id"], "f", box=1, action="fold")
    page = staff.get(f"/admin/games/round/{round_.pk}/change/")
    assert b"dealer_reveal" in page.content
    assert round_.secret_server_seed().encode() not in page.content  # the pair is still live
    client.post("/api/v1/me/seeds/rotate/", HTTP_IDEMPOTENCY_KEY="rotate")
    page = staff.get(f"/admin/games/round/{round_.pk}/change/")
    assert round_.secret_server_seed().encode() in page.content
