"""Best play prices the bet paytable (JD-14, JD-11a): the shipped run and table, approval by
best play's upper end, and the `best_play` command."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.engine import joker_draw_rtp as lab
from games.joker_draw import best_play, rtp_lab
from games.joker_draw.paytables import approve_paytable_version, propose_paytable_version
from games.tables import services as table_services
from payouts.approvals import ChangeRefused, ChangeStatus
from payouts.models import BestPlaySolution, PaytableVersion, RtpChunk, RtpRunStatus
from tests.fixtures.tables import joker_draw_limits

pytestmark = pytest.mark.django_db


def bet_version(paytables) -> PaytableVersion:
    return paytables["bet"].active_version()


def test_the_shipped_paytable_is_priced_by_its_shipped_best_play_run(default_paytables):
    version = bet_version(default_paytables)
    run = rtp_lab.rtp_of(version)[1]
    assert (run.strategy_name, run.rounds) == (rtp_lab.BEST, 180_000_000)
    low, high = run.result["game_ci99"]
    assert high - low <= 0.04  # +/- 0.02 points, as approval asks by default
    typical = run.result["typical"]
    assert typical["game_rtp"] < run.result["game_rtp"] - 5  # the reference gives away more
    regret = run.result["regret"]
    assert regret["rtp_points"] >= 0
    # The regret is measured on at least 10,000 sampled decisions at each of the three.
    assert all(stage["decisions"] >= 10_000 for stage in regret["stages"].values())
    assert regret["rtp_points_standard_error"] < 0.005


def test_any_chunk_of_the_shipped_run_recomputes_to_the_last_unit(default_paytables):
    version = bet_version(default_paytables)
    run = rtp_lab.rtp_of(version)[1]
    odds = version.odds()
    solution = best_play.solution_for(odds)
    chunks = RtpChunk.objects.filter(run=run)
    # One chunk of best play, and one of typical play (played on the first chunks only).
    chunk = chunks.get(index=random.Random().randrange(run.chunk_count))
    seed = lab.chunk_seed(run.seed, chunk.index)
    assert lab.simulate(odds, {}, solution, chunk.rounds, seed).to_json() == chunk.tally
    typical = random.Random().choice(list(chunks.exclude(typical_tally=None)))
    seed = lab.chunk_seed(run.seed, typical.index)
    assert lab.simulate(odds, {}, lab.REFERENCE, typical.rounds, seed).to_json() == (
        typical.typical_tally
    )


def test_approval_is_refused_when_best_play_leaves_a_tables_band(
    default_paytables, joker_table, pit, pit2
):
    # The table's band ends below the upper end of best play's interval: a new version with the
    # same lines cannot be approved, though typical play (about 91%) would be well inside.
    with pytest.raises(ChangeRefused, match="outside the allowed band"):
        table_services.propose_limits(
            table=joker_table,
            values=joker_draw_limits(default_paytables, bet_rtp_max_percent=Decimal("95.00")),
            reason="a tighter band",
            by=pit,
        )
    version = propose_paytable_version(
        paytable=default_paytables["bet"],
        lines=bet_version(default_paytables).odds(),
        reason="the same lines again",
        by=pit,
    )
    rtp_lab.compute_now(version)
    assert approve_paytable_version(version, by=pit2).status == ChangeStatus.APPROVED


def test_the_command_prints_the_best_first_decision_with_every_option(default_paytables):
    out = StringIO()
    call_command("best_play", paytable="joker-draw-bet-default", cards="Kh Kd 7c 4s 2d", stdout=out)
    advice = json.loads(out.getvalue())
    assert advice["decision"] == "exchange"
    assert sorted(advice["keep"]) == ["Kd", "Kh"]
    assert len(advice["options"]) == 33
    evs = [option["ev"] for option in advice["options"]]
    assert evs == sorted(evs, reverse=True)
    assert {"action": "fold", "ev": -1.0} in advice["options"]


def test_the_command_answers_the_later_decisions(default_paytables):
    out = StringIO()
    call_command(
        "best_play",
        paytable="joker-draw-bet-default",
        cards="2c 3c 4c 5c 9d",
        after="Kh Qd",
        stdout=out,
    )
    advice = json.loads(out.getvalue())
    # Second decision (JD-6): fold, bet, or one of five cards out.
    assert len(advice["options"]) == 7
    assert advice["decision"] == "exchange"
    assert sorted(advice["keep"]) == ["2c", "3c", "4c", "5c"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"cards": "Kh Kd 7c 4s"}, "five different cards"),
        ({"cards": "Kh Kd 7c 4s Zz"}, "--cards"),
        ({"cards": "Kh Kd 7c 4s 2d", "paytable": "joker-draw-bonus-example"}, "not a bet"),
        ({"cards": "Kh Kd 7c 4s 2d", "paytable": "nope"}, "no paytable"),
    ],
)
def test_the_command_names_what_is_wrong(default_paytables, options, message):
    with pytest.raises(CommandError, match=message):
        call_command("best_play", **{"paytable": "joker-draw-bet-default", **options})


def test_a_paytable_nobody_solved_waits_for_its_solution(default_paytables, pit):
    odds = {**bet_version(default_paytables).odds(), "full_house": 1}
    version = propose_paytable_version(
        paytable=default_paytables["bet"], lines=odds, reason="cheaper full house", by=pit
    )
    with pytest.raises(CommandError, match="not solved yet"):
        call_command(
            "best_play",
            paytable="joker-draw-bet-default",
            cards="Kh Kd 7c 4s 2d",
            stdout=StringIO(),
        )
    run = rtp_lab.start_run(version, rounds=1_000, strategy_name=rtp_lab.BEST, seed=1)
    assert rtp_lab.waiting_best_runs(run.strategy["digest"]) == [run.pk]
    solving = BestPlaySolution.objects.get(digest=run.strategy["digest"])
    assert solving.status == RtpRunStatus.RUNNING
    with pytest.raises(RuntimeError, match="not solved yet"):
        rtp_lab.compute_chunk(run.pk, 0)
