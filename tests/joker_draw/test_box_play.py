"""Settled joker draw boxes judged against best play (JD-5..JD-7, JD-11, JD-12), and the nightly
RTP check that compares what a table paid with what its players' decisions should have returned
(JD-14): it catches a table that pays a line wrong although its players play best, and leaves a
table that pays right alone.

The rounds of the monitor's test are played in the engine and recorded as the service records
them (the round, its hand history and its payout records), so that hundreds of boxes cost a
second or two; everything after is the product's own path: the assessment reads the hand
history, the check reads the records.
"""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction

import pytest
from django.db.models import Sum
from django.utils import timezone

from games.engine import fairness, joker_draw
from games.engine.cards import ALL_CARDS, Card, parse_cards
from games.engine.joker_draw import Bet, Exchange, Fold, Stake
from games.engine.joker_draw_best import Solution
from games.engine.joker_draw_review import BET, FOLD, Draw, review
from games.joker_draw import best_play, box_play, sql
from games.joker_draw import services as joker_draw_service
from games.joker_draw.rtp_monitor import observe_rtp
from games.joker_draw.services import BoxRequest, settlement_records
from games.models import BoxPlay, BoxSettlement, Game, Round, RoundStatus, Table, TableStatus
from games.tables import services as table_services
from payouts.models import PaytableKind, PaytableVersion
from payouts.services import deposit
from tests.fixtures.joker_draw import stacked_deck
from tests.fixtures.tables import joker_draw_limits

D = Decimal
ANTE = D("0.30")  # JD-2: the default limits' ante step
pytestmark = pytest.mark.django_db


@pytest.fixture
def bet_version(default_paytables) -> PaytableVersion:
    version = default_paytables["bet"].active_version()
    assert version is not None
    return version


@pytest.fixture
def solution(bet_version) -> Solution:
    found = best_play.solution_for(bet_version.odds())
    assert found is not None, "the shipped default bet paytable's best play"
    return found


# The review of one box, in the engine ---------------------------------------------------------


def test_a_fold_is_worth_exactly_the_antes_it_loses(solution):
    # JD-12: a box that folds loses its total ante, one original ante per exchange more.
    dealt = parse_cards("2c 7d 9h Js 4c")
    at_once = review(solution, dealt, [], FOLD)
    assert at_once.expected == -1.0
    assert at_once.loss == pytest.approx(solution.first_options(dealt)[0].ev + 1)
    draw = Draw(tuple(parse_cards("2c 7d 4c")), tuple(parse_cards("Qh Qd 3s")))
    after_one = review(solution, dealt, [draw], FOLD)
    assert after_one.expected == -2.0
    assert len(after_one.decisions) == 2


def test_best_play_gives_nothing_away_and_a_bet_is_worth_the_models_value(solution):
    dealt = parse_cards("Ah Kh Qh Jh 3c")
    best = solution.first_options(dealt)[0]
    assert best.action == "exchange"  # four to a royal flush
    discarded = tuple(card for card in dealt if card not in best.keep)
    hand = [*best.keep, *parse_cards("Th")[: len(discarded)]]
    played = review(solution, dealt, [Draw(discarded, tuple(hand[len(best.keep) :]))], BET)
    assert played.decisions[0].loss == 0
    later = solution.later_options(hand, discarded, 1)
    bet = next(option for option in later if option.action == "bet")
    assert played.expected == bet.ev > 2  # a royal flush: the dealer rarely stands in its way
    assert played.loss == pytest.approx(later[0].ev - bet.ev)


def test_a_decision_the_rules_do_not_offer_is_refused(solution):
    dealt = parse_cards("2c 7d 9h Js 4c")
    with pytest.raises(ValueError, match="closed"):
        review(solution, dealt, [], "exchange")
    draw = Draw(tuple(parse_cards("2c")), tuple(parse_cards("3c")))
    with pytest.raises(ValueError, match="draws"):
        review(solution, dealt, [draw, draw, draw], BET)


# Boxes played through the service --------------------------------------------------------------


def _play(monkeypatch, player, table, deck, *decisions):
    """One round of one box of 0.30 on a stacked deck, decided as `decisions` say."""
    monkeypatch.setattr(fairness, "deck_order", lambda *args, **kwargs: deck)
    opened = joker_draw_service.open_round(player=player, table=table, boxes=[BoxRequest(1, ANTE)])
    for action, cards in decisions:
        joker_draw_service.act(
            player=player, round_id=opened.round.pk, box=1, action=action, cards=cards
        )
    return BoxSettlement.objects.get(round=opened.round)


def test_each_settled_box_is_judged_once_from_its_hand_history(
    joker_table, player, pit, solution, monkeypatch
):
    deposit(player=player, currency="USD", amount=D("100.00"), reason="cash", by=pit)
    deck = stacked_deck(["2c 7d 9h Js 4c"], "3d 5d 8s Tc Kd", then="Qh Qd 3s 9c")
    folded = _play(monkeypatch, player, joker_table, deck, ("fold", []))
    drew = _play(
        monkeypatch,
        player,
        joker_table,
        deck,
        ("exchange", ["2c", "7d", "4c"]),  # JD-5: three cards for Qh Qd 3s
        ("exchange", ["3s"]),  # JD-6: one card for 9c
        ("bet", []),
    )
    # Settlement does not judge: that happens after, off the round's path.
    assert not BoxPlay.objects.exists()
    assert box_play.assess_boxes() == 2
    assert box_play.assess_boxes() == 0  # once per box, whoever runs it again
    play = BoxPlay.objects.get(settlement=folded)
    assert play.expected_result == -ANTE
    first = solution.first_options(parse_cards("2c 7d 9h Js 4c"))
    assert float(play.loss) == pytest.approx(0.3 * (first[0].ev + 1), abs=1e-6)
    assert play.decisions[0]["taken"] == {"action": "fold", "keep": [], "ev": -1.0}
    play = BoxPlay.objects.get(settlement=drew)
    assert [d["taken"]["action"] for d in play.decisions] == ["exchange", "exchange", "bet"]
    third = solution.later_options(parse_cards("9h Js Qh Qd 9c"), parse_cards("2c 7d 4c 3s"), 2)
    bet = next(option for option in third if option.action == "bet")
    assert float(play.expected_result) == pytest.approx(0.3 * bet.ev, abs=1e-6)


def test_boxes_of_a_paytable_nobody_has_solved_wait(joker_table, player, pit, monkeypatch):
    deposit(player=player, currency="USD", amount=D("10.00"), reason="cash", by=pit)
    deck = stacked_deck(["2c 7d 9h Js 4c"], "3d 5d 8s Tc Kd")
    _play(monkeypatch, player, joker_table, deck, ("fold", []))
    solved = best_play.solution_for
    monkeypatch.setattr(best_play, "solution_for", lambda odds: None)
    assert box_play.assess_boxes() == 0
    monkeypatch.setattr(best_play, "solution_for", solved)
    assert box_play.assess_boxes() == 1


# The nightly check against the decisions taken ----------------------------------------------------


def _second_table(pit, pit2, paytables) -> Table:
    table = table_services.create_table(
        name="Joker 2", game=Game.JOKER_DRAW, currency="USD", by=pit, reason="test"
    )
    limits = table_services.propose_limits(
        table=table, values=joker_draw_limits(paytables, boxes_per_round=3), reason="t", by=pit
    )
    table_services.approve_limits(limits, by=pit2)
    return table_services.set_table_status(table, status=TableStatus.OPEN, by=pit2, reason="t")


def _best_action(solution: Solution, box: joker_draw.Box, seen: list[Card]) -> joker_draw.Action:
    options = (
        solution.first_options(box.cards)
        if box.exchanges == 0
        else solution.later_options(box.cards, seen, box.exchanges)
    )
    best = options[0]
    if best.action == "exchange":
        return Exchange(box.number, tuple(c for c in box.cards if c not in best.keep))
    return Bet(box.number) if best.action == "bet" else Fold(box.number)


def _settled_round(table, player, version, solution, deck, pays) -> None:
    """Three boxes of 0.30 played best on `deck`, the engine settling by `pays` while the
    round names `version`: recorded as the service records a settled round."""
    stakes = [Stake(box, ANTE) for box in (1, 2, 3)]
    state, events = joker_draw.start_round(deck, stakes, bet_paytable=pays, bonus_paytable={})
    round_ = Round.objects.create(
        table=table,
        nonce=Round.objects.count() + 1,
        player=player,
        commitment="-",
        client_seed="-",
        engine_state=joker_draw.to_json(state),
        bet_paytable_version=version,
    )
    seen: dict[int, list[Card]] = {box.number: [] for box in state.boxes}
    while (box := state.to_act) is not None:
        action = _best_action(solution, box, seen[box.number])
        if isinstance(action, Exchange):
            seen[box.number] += action.cards
        state, more = joker_draw.apply(state, action)
        events += more
    now = timezone.now()
    round_.engine_state = joker_draw.to_json(state)
    round_.status, round_.settled_at, round_.history_length = RoundStatus.SETTLED, now, len(events)
    records = settlement_records(round_, state, events, at=now)
    sql.save_round(round_, events, start=0, actor_id=None, settlements=records)


ROUNDS = 150  # of three boxes at each table


def test_the_monitor_catches_a_table_that_pays_a_line_wrong_although_its_players_play_best(
    three_box_table, default_paytables, bet_version, solution, player, pit, pit2, settings
):
    # JD-14: the version pays two pair 1:1; the crooked table's settlement pays it 20:1.
    settings.RTP_OBSERVATION_MIN_BOXES = 3 * ROUNDS
    crooked = _second_table(pit, pit2, default_paytables)
    odds = bet_version.odds()
    assert odds["two_pair"] == 1
    wrong = {**odds, "two_pair": Fraction(20)}
    rng = random.Random(27)
    for _ in range(ROUNDS):
        deck = rng.sample(ALL_CARDS, len(ALL_CARDS))
        _settled_round(three_box_table, player, bet_version, solution, deck, odds)
        _settled_round(crooked, player, bet_version, solution, deck, wrong)
    observations = {o.table_id: o for o in observe_rtp() if o.kind == PaytableKind.BET}
    honest, caught = observations[three_box_table.pk], observations[crooked.pk]
    assert BoxPlay.objects.count() == 2 * 3 * ROUNDS
    # Best play gives nothing away: the same solution took every decision and judged it.
    assert BoxPlay.objects.aggregate(total=Sum("loss"))["total"] == 0
    assert honest.assessed_boxes == caught.assessed_boxes == 3 * ROUNDS
    assert honest.decisions_rtp == caught.decisions_rtp  # the same decks, the same decisions
    assert honest.decisions_low <= honest.assessed_rtp <= honest.decisions_high
    assert not honest.alert
    assert caught.assessed_rtp > caught.decisions_high
    assert caught.alert


def test_the_interval_is_widened_by_the_dealer_models_error(
    three_box_table, bet_version, solution, player, settings
):
    settings.RTP_OBSERVATION_MIN_BOXES = 2
    rng = random.Random(5)
    for _ in range(4):
        deck = rng.sample(ALL_CARDS, len(ALL_CARDS))
        _settled_round(three_box_table, player, bet_version, solution, deck, bet_version.odds())
    narrow = next(o for o in observe_rtp() if o.kind == PaytableKind.BET)
    settings.BEST_PLAY_MODEL_ERROR_ANTES = 0.5
    wide = next(o for o in observe_rtp() if o.kind == PaytableKind.BET)
    # Twelve boxes of 0.30: the interval widens by (0.5 - 0.005) * 3.60 either side.
    staked = sum(b.ante_staked + b.bet_staked for b in BoxSettlement.objects.all())
    widened = D("0.495") * 12 * ANTE / staked * 100
    assert wide.decisions_high - narrow.decisions_high == pytest.approx(widened, abs=D("0.0002"))
