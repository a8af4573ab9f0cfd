"""The fair-play report on hands played through the services (house rule of fair play, after
UKGC RTS 11): its reading of the stored hands, the page, the API and the CSV by role, the hands
behind a flagged pair (replay and PHH, which auditors may read), the stored alerts (nightly
task, "Run now", the staff frame's banner, one review with a note), and an alert's record kept
as raised."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from decimal import Decimal
from unittest import mock

import pytest
from django.conf import settings as django_settings
from django.db import DatabaseError, transaction
from django.template import Context, Template
from django.test import Client
from django.utils import timezone

from casino.gaming_day import gaming_day_of
from casino.roles import PLAYER
from games.drawmaha.tasks import DRAWMAHA
from games.engine import drawmaha as drawmaha_engine
from games.engine import stud as stud_engine
from games.engine.betting import Action, ActionKind
from games.engine.cards import parse_cards
from games.engine.dealer import Deck
from games.models import CollusionAlert, Round, RoundStatus, Seat
from games.peer import alerts
from games.peer.collusion import pairs_for, read_hand
from games.peer.tasks import raise_collusion_alerts
from games.stud.hand import Hand
from games.stud.tasks import STUD
from payouts.services import deposit
from tests.fixtures.peer import act_passively, dump_chips, running, seat_everyone
from tests.fixtures.users import api_client, logged_in, make_user

DUMPED_HANDS = 12
EARLIER = timedelta(hours=1)


@pytest.fixture
def dumped(players, stud_table, settings):
    """Ann receives, Ben dumps, over DUMPED_HANDS hands; no hand is dealt after them."""
    ann, ben, _cal = players
    dump_chips(stud_table, ann, ben, DUMPED_HANDS, settings)
    return ann, ben


def period():
    now = timezone.now()
    return now - EARLIER, now + EARLIER


def test_the_report_reads_the_stored_hands_and_flags_the_chip_flow(dumped, stud_table):
    ann, ben = dumped
    start, end = period()
    (pair,) = pairs_for(start=start, end=end)
    assert (pair.first, pair.second) == (ann, ben)
    assert pair.hands == DUMPED_HANDS
    # Every chip Ben lost went to Ann, less the rake: Ann's gain is the net flow to her, and
    # the flow, all one way, scores the sum of its hands' ranks by size (equal gains share
    # their mean rank) over the root of their summed squares.
    gain = Seat.objects.get(player=ann).chips - Decimal("100.00")
    assert pair.net_chips == -gain
    settled = Round.objects.filter(table=stud_table, status=RoundStatus.SETTLED)
    gains = []
    for round_ in settled:
        state = STUD.load_hand(round_.engine_state).state
        seat = STUD.load_hand(round_.engine_state).players.index(ann.pk)
        gains.append(state.finishing_stacks[seat] - state.starting_stacks[seat])
    assert all(g > 0 for g in gains)
    assert sum(gains) == gain * 100
    ranks = [
        sum(other < g for other in gains) + (sum(other == g for other in gains) + 1) / 2
        for g in gains
    ]
    assert len(set(gains)) < len(gains)  # some hands gave the same, and share a rank
    assert pair.chip_flow.score == pytest.approx(sum(ranks) / sum(r * r for r in ranks) ** 0.5)
    assert pair.chip_flow.score > 3.0
    assert pair.chip_flow.player == ann.pk
    assert pairs_for(start=start, end=end, threshold=3.0)[0].flagged
    assert not pairs_for(start=start, end=end, threshold=4.0)[0].flagged
    hands = {ref.round_id for ref in pair.chip_flow.hands}
    assert hands == set(settled.values_list("pk", flat=True))
    # Outside the period: nothing.
    assert pairs_for(start=end, end=end + EARLIER) == []


def test_a_strong_hand_folded_to_a_bet_is_read_as_such():
    """Seat 0 holds a pair of aces on third street (ST-2: down, down, up, dealt one at a time)
    and folds to seat 1's completion: a fold of a strong hand, facing seat 1."""
    deck = Deck.stacked(parse_cards("As 2c Ah 3d Kd 4h"))  # seat 0: As Ah | Kd; 1: 2c 3d | 4h
    table = stud_engine.StudTable(ante=10, bring_in=20, small_bet=50, big_bet=100)
    state, events = stud_engine.start_hand(table, [1000, 1000], deck)
    history = list(events)
    for kind in (ActionKind.COMPLETE, ActionKind.FOLD):  # seat 1 brings in by completing
        seat = state.to_act
        state, new = stud_engine.apply(state, Action(seat, kind))
        history += new
    hand = Hand(state, (1, 2), (7, 8), ())
    _results, decisions = read_hand(hand, [(e.kind, e.data) for e in history], STUD.folded_cards)
    fold = decisions[-1]
    assert (fold.seat, fold.kind, fold.facing, fold.strong) == (0, "fold", 1, True)


# The page, the API and the CSV ------------------------------------------------------------------


@pytest.mark.parametrize("role", ["auditor", "pit"])
def test_staff_read_the_report_with_the_hands_behind_a_flagged_pair(
    dumped, role, request, settings
):
    settings.COLLUSION_ALERT_SCORE = 3.0
    user = request.getfixturevalue(role)
    client = logged_in(user)
    page = client.get("/staff/fair-play/")
    assert page.status_code == 200
    body = page.content.decode()
    assert 'data-pair="ann-ben"' in body
    assert 'data-flagged="yes"' in body
    hand = Round.objects.filter(status=RoundStatus.SETTLED).order_by("id").first()
    assert f'href="/staff/rounds/{hand.pk}/"' in body
    assert f'href="/api/v1/stud/hands/{hand.pk}/phh/"' in body
    # The links work for the reader: the replay page and the PHH file after the hand.
    assert client.get(f"/staff/rounds/{hand.pk}/").status_code == 200
    phh = api_client(user).get(f"/api/v1/stud/hands/{hand.pk}/phh/")
    assert phh.status_code == 200
    assert b"variant" in phh.content


def test_players_get_403_and_visitors_sign_in(players):
    ann, _ben, _cal = players
    assert logged_in(ann).get("/staff/fair-play/").status_code == 403
    assert logged_in(ann).get("/staff/fair-play.csv").status_code == 403
    assert api_client(ann).get("/api/v1/staff/fair-play/").status_code == 403
    visitor = Client().get("/staff/fair-play/")
    assert visitor.status_code == 302
    assert "login" in visitor["Location"]


def test_the_api_gives_the_report_of_the_period(dumped, auditor, settings):
    settings.COLLUSION_ALERT_SCORE = 3.0
    today = gaming_day_of(timezone.now()).isoformat()
    api = api_client(auditor)
    answer = api.get(f"/api/v1/staff/fair-play/?from={today}&to={today}")
    assert answer.status_code == 200
    (pair,) = answer.json()["pairs"]
    assert pair["players"] == ["ann", "ben"]
    assert pair["flagged"] is True
    assert pair["chip_flow"]["player"] == "ann"
    assert len(pair["chip_flow"]["hands"]) == DUMPED_HANDS
    assert pair["chip_flow"]["hands"][0]["phh"].endswith("/phh/")
    # Heads up there is nobody else to compare with: soft play scores 0 and lists no hands.
    assert (pair["soft_play"]["score"], pair["soft_play"]["hands"]) == (0, [])
    # A period with no hands, and filters refused with the field named.
    empty = api.get("/api/v1/staff/fair-play/?from=2020-01-01&to=2020-01-02").json()
    assert empty["pairs"] == []
    refused = api.get(f"/api/v1/staff/fair-play/?from={today}&to=2020-01-01")
    assert refused.status_code == 400
    assert refused.json()["code"] == "date_order"
    assert "to" in refused.json()["errors"]
    assert api.get("/api/v1/staff/fair-play/?from=yesterday").status_code == 400


def test_the_csv_holds_every_pair_with_its_scores(dumped, auditor, settings):
    settings.COLLUSION_ALERT_SCORE = 3.0
    answer = logged_in(auditor).get("/staff/fair-play.csv")
    assert answer.status_code == 200
    assert "fair-play" in answer["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(b"".join(answer.streaming_content).decode())))
    (row,) = rows
    assert (row["first_player"], row["second_player"], row["flagged"]) == ("ann", "ben", "yes")
    assert int(row["hands"]) == DUMPED_HANDS
    assert float(row["chip_flow"]) > 3.0
    assert len(row["hands_behind"].split()) == DUMPED_HANDS
    bad = logged_in(auditor).get("/staff/fair-play.csv?to=2020-13-01")
    assert bad.status_code == 400


# Alerts ------------------------------------------------------------------------------------------


def test_alerts_are_raised_once_for_a_period_and_show_in_the_staff_frame(
    dumped, auditor, pit, settings
):
    settings.COLLUSION_ALERT_SCORE = 3.0
    start, end = period()
    (alert,) = alerts.raise_alerts(start=start, end=end)
    assert (alert.first_player.username, alert.second_player.username) == ("ann", "ben")
    assert alert.hands == DUMPED_HANDS
    (pair,) = pairs_for(start=start, end=end)
    assert alert.chip_flow_score == Decimal(pair.chip_flow.score).quantize(Decimal("0.01"))
    assert alert.net_chips == pair.net_chips
    assert alerts.raise_alerts(start=start, end=end) == []  # the same play: no second alert
    for user in (auditor, pit):
        page = logged_in(user).get("/staff/payouts/rounds/").content.decode()
        assert 'id="collusion-alerts"' in page
        assert 'href="/staff/fair-play/#alerts"' in page


def test_the_banner_costs_one_query_and_is_not_shown_without_alerts(
    auditor, django_assert_num_queries
):
    template = Template("{% load fair_play %}{% open_collusion_alerts as n %}{{ n }}")
    with django_assert_num_queries(1):
        assert template.render(Context()) == "0"
    page = logged_in(auditor).get("/staff/payouts/rounds/").content.decode()
    assert 'id="collusion-alerts"' not in page


def test_the_nightly_task_reads_the_last_whole_gaming_days(dumped, settings):
    settings.COLLUSION_ALERT_SCORE = 3.0
    assert raise_collusion_alerts() == 0  # today's play is not a whole gaming day yet
    tomorrow = timezone.now() + timedelta(days=1)
    with mock.patch("games.peer.tasks.timezone.now", return_value=tomorrow):
        assert raise_collusion_alerts() == 1
    alert = CollusionAlert.objects.get()
    assert alert.period_end - alert.period_start == timedelta(days=settings.COLLUSION_PERIOD_DAYS)
    schedule = django_settings.CELERY_BEAT_SCHEDULE["nightly-collusion-check"]
    assert schedule["task"] == raise_collusion_alerts.name


def test_an_auditor_runs_the_check_now_and_the_pit_may_not(dumped, auditor, pit, settings):
    settings.COLLUSION_ALERT_SCORE = 3.0
    today = gaming_day_of(timezone.now()).isoformat()
    period_ = {"from": today, "to": today}
    assert logged_in(pit).post("/staff/fair-play/run/", period_).status_code == 403
    assert not CollusionAlert.objects.exists()
    answer = logged_in(auditor).post("/staff/fair-play/run/", period_)
    assert answer.status_code == 302
    assert CollusionAlert.objects.count() == 1
    assert logged_in(auditor).post("/staff/fair-play/run/", {"to": "x"}).status_code == 400


def test_an_auditor_marks_an_alert_reviewed_once_with_a_note(dumped, auditor, pit, settings):
    settings.COLLUSION_ALERT_SCORE = 3.0
    (alert,) = alerts.raise_alerts(start=period()[0], end=period()[1])
    url = f"/staff/fair-play/alerts/{alert.pk}/review/"
    assert logged_in(pit).post(url, {"note": "friends"}).status_code == 403
    assert logged_in(dumped[0]).post(url, {"note": "nothing"}).status_code == 403
    empty = logged_in(auditor).post(url, {"note": "  "})
    assert empty.status_code == 400
    alert.refresh_from_db()
    assert alert.reviewed_at is None
    assert (
        logged_in(auditor).post(url, {"note": "Same household; accounts closed."}).status_code
        == 302
    )
    alert.refresh_from_db()
    assert (alert.reviewed_by, alert.review_note) == (auditor, "Same household; accounts closed.")
    assert alert.reviewed_at is not None
    again = logged_in(auditor).post(url, {"note": "again"})
    assert again.status_code == 409
    alert.refresh_from_db()
    assert alert.review_note == "Same household; accounts closed."
    # Reviewed: the banner is gone, the review is listed with who made it.
    page = logged_in(auditor).get("/staff/fair-play/").content.decode()
    assert 'id="collusion-alerts"' not in page
    assert "Same household; accounts closed." in page


def test_an_alert_is_kept_as_it_was_raised(dumped, settings):
    """Not even a direct write changes what an alert raised, nor removes it."""
    settings.COLLUSION_ALERT_SCORE = 3.0
    (alert,) = alerts.raise_alerts(start=period()[0], end=period()[1])
    for change in (
        lambda: CollusionAlert.objects.filter(pk=alert.pk).update(chip_flow_score=0),
        lambda: CollusionAlert.objects.filter(pk=alert.pk).delete(),
    ):
        with pytest.raises(DatabaseError), transaction.atomic():
            change()
    assert CollusionAlert.objects.get(pk=alert.pk).chip_flow_score == alert.chip_flow_score


def test_drawmaha_hands_are_read_too(players, drawmaha_table, settings):
    """A Drawmaha hand of three checked and called down: every pair shared it, and what each
    winner gained came, pair by pair, from the others (the chip flow's apportioning)."""
    seat_everyone(DRAWMAHA, drawmaha_table, players, settings, "DRAWMAHA_HAND_PAUSE_SECONDS")
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 600  # one hand only
    hand = running(drawmaha_table)
    while Round.objects.get(pk=hand.pk).status == RoundStatus.DECIDING:
        act_passively(DRAWMAHA, drawmaha_engine, drawmaha_table)
    start, end = period()
    pairs = pairs_for(start=start, end=end)
    assert len(pairs) == 3
    assert all(pair.hands == 1 for pair in pairs)
    for user in players:
        gain = Seat.objects.get(player=user).chips - Decimal("60.00")
        if gain > 0:
            inflow = sum(
                (pair.net_chips if pair.second == user else -pair.net_chips)
                for pair in pairs
                if user in (pair.first, pair.second)
            )
            assert abs(inflow - gain) <= Decimal("0.02")


def test_player_names_in_the_csv_are_never_formulas(stud_table, pit, auditor, settings):
    """Players who named themselves as spreadsheet formulas are written as text."""
    names = ("=HYPERLINK(1)", "@SUM(A1)")
    users = [make_user(name, PLAYER) for name in names]
    for user in users:
        deposit(player=user, currency="USD", amount=Decimal("200.00"), reason="cash", by=pit)
    dump_chips(stud_table, *users, 10, settings)
    answer = logged_in(auditor).get("/staff/fair-play.csv")
    (row,) = list(csv.reader(io.StringIO(b"".join(answer.streaming_content).decode())))[1:]
    assert {row[1], row[2]} == {f"'{name}" for name in names}
    assert not any(cell.startswith(("=", "@", "+")) for cell in row)
