"""Actual against theoretical RTP, per table and paytable version (JD-14), for the auditors.

Each observation measures what a table's settled boxes returned on one paytable version, with
a 99% confidence interval (a ratio estimate: boxes stake different amounts), beside the RTP the
laboratory computed for that version.

The BONUS does not depend on play: an alert is recorded when its theoretical RTP lies outside
the actual one's interval. The bet game does: a skilled player takes more than a typical one,
so its actual RTP is compared with what the decisions its players actually took should have
returned (``games.joker_draw.box_play``): the sum, over the boxes judged against best play, of
the value of each box's closing decision given the cards it had seen. What the table paid them
minus that sum has mean zero when the table pays as its paytable says, whatever the players'
skill; its 99% interval comes from the rounds' spread (a round's boxes share the dealer),
widened by the dealer model's own systematic error (``BEST_PLAY_MODEL_ERROR_ANTES`` per box,
about 0.005 antes), so a table that pays correctly raises no alert however many boxes it
settles. An alert means the table paid outside that interval. Beside it stand the paytable's
best-play band and its typical-play (reference strategy) figure, from the laboratory's
best-play run.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from statistics import NormalDist

from django.conf import settings

from casino.reports_database import reports_source
from games.engine.joker_draw_rtp import ratio_spread99
from games.joker_draw import box_play
from games.joker_draw.rtp_lab import BEST, PERCENT_PLACES, rtp_of
from games.joker_draw.selectors import DecisionSums, ReturnSums, decision_sums, return_sums
from payouts.models import PaytableKind, PaytableVersion, RtpObservation, RtpRun

_Z99 = NormalDist().inv_cdf(0.995)


def observe_rtp() -> list[RtpObservation]:
    """Judge the boxes not yet judged against best play, then record today's observation of
    every table and paytable version that settled boxes."""
    box_play.assess_boxes()
    # The judgements were just written: their sums are the primary's. The boxes' sums, over
    # every settled box, are the heavy read, the reports database's.
    decisions = {(sums.table_id, sums.paytable_version_id): sums for sums in decision_sums()}
    reports = reports_source().alias
    observations = []
    for kind in (PaytableKind.BET, PaytableKind.BONUS):
        for sums in return_sums(kind, using=reports):
            taken = decisions.get((sums.table_id, sums.paytable_version_id))
            observations.append(_observe(kind, sums, taken if kind == PaytableKind.BET else None))
    return observations


def _observe(kind: str, sums: ReturnSums, taken: DecisionSums | None) -> RtpObservation:
    version = PaytableVersion.objects.select_related("paytable").get(pk=sums.paytable_version_id)
    actual = low = high = None
    if sums.staked > 0:
        ratio = sums.returned / sums.staked
        actual = _percent(ratio)
        if sums.boxes > 1:
            half = Decimal(
                ratio_spread99(
                    sums.boxes,
                    returned=Fraction(sums.returned),
                    staked=Fraction(sums.staked),
                    returned_sq=Fraction(sums.returned_squared),
                    staked_sq=Fraction(sums.staked_squared),
                    returned_staked=Fraction(sums.cross),
                )
            )
            low, high = _percent(max(ratio - half, Decimal(0))), _percent(ratio + half)
    measured = rtp_of(version)
    theoretical, run = measured if measured else (None, None)
    enough = sums.boxes >= settings.RTP_OBSERVATION_MIN_BOXES
    figures = _against_decisions(taken) if taken is not None else {}
    if kind == PaytableKind.BET:
        alert = bool(figures.pop("outside", False))
    else:
        alert = (
            theoretical is not None
            and low is not None
            and high is not None
            and enough
            and not low <= theoretical <= high
        )
    return RtpObservation.objects.create(
        table_id=sums.table_id,
        paytable_version=version,
        kind=kind,
        boxes=sums.boxes,
        staked=sums.staked,
        returned=sums.returned,
        actual_rtp=actual,
        interval_low=low,
        interval_high=high,
        theoretical_rtp=theoretical,
        rtp_run=run,
        alert=alert,
        **figures,
        **(_bands(run) if kind == PaytableKind.BET else {}),
    )


def _against_decisions(taken: DecisionSums) -> dict[str, object]:
    """The actual RTP of the boxes judged against best play beside the RTP their decisions
    should have returned, with its 99% interval; ``outside`` when the actual lies outside it
    over enough boxes."""
    staked = taken.staked
    if taken.rounds < 2 or staked <= 0:
        return {"assessed_boxes": taken.boxes}
    n = taken.rounds  # the spread is the rounds': a round's boxes share the dealer's hand
    mean = taken.difference / n
    variance = max((taken.difference_squared - n * mean * mean) / (n - 1), Decimal(0))
    half = (
        Decimal(_Z99 * math.sqrt(float(n * variance)))
        + Decimal(str(settings.BEST_PLAY_MODEL_ERROR_ANTES)) * taken.antes
    )
    expected = staked + taken.expected
    return {
        "assessed_boxes": taken.boxes,
        "assessed_rtp": _percent((staked + taken.paid) / staked),
        "decisions_rtp": _percent(expected / staked),
        "decisions_low": _percent(max(expected - half, Decimal(0)) / staked),
        "decisions_high": _percent((expected + half) / staked),
        "outside": taken.boxes >= settings.RTP_OBSERVATION_MIN_BOXES
        and abs(taken.difference) > half,
    }


def _bands(run: RtpRun | None) -> dict[str, Decimal | None]:
    """The best-play band and the typical play's figure of a best-play run, when there is one."""
    if run is None or run.strategy_name != BEST or not run.result:
        return {}
    low, high = (Decimal(str(end)) for end in run.result["game_ci99"])
    typical = run.result.get("typical", {}).get("game_rtp")
    return {
        "best_play_low": low.quantize(PERCENT_PLACES),
        "best_play_high": high.quantize(PERCENT_PLACES),
        "typical_rtp": None if typical is None else Decimal(str(typical)).quantize(PERCENT_PLACES),
    }


def _percent(ratio: Decimal) -> Decimal:
    return (ratio * 100).quantize(PERCENT_PLACES)
