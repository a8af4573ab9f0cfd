"""Actual against theoretical RTP, per table and paytable version (JD-14), for the auditors.

Each observation measures what a table's settled boxes returned on one paytable version, with
a 99% confidence interval (a ratio estimate: boxes stake different amounts), beside the RTP the
laboratory computed for that version. An alert is recorded when the theoretical RTP lies
outside the actual one's interval. For the bet paytable the theoretical figure assumes the
reference strategy, so players who play otherwise move the actual RTP legitimately; the BONUS
does not depend on play, so a BONUS alert means the table does not pay what its paytable says.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from django.conf import settings

from games.engine.joker_draw_rtp import ratio_spread99
from games.joker_draw.rtp_lab import PERCENT_PLACES, rtp_of
from games.joker_draw.selectors import ReturnSums, return_sums
from payouts.models import PaytableKind, PaytableVersion, RtpObservation


def observe_rtp() -> list[RtpObservation]:
    """Record today's observation of every table and paytable version that settled boxes."""
    observations = []
    for kind in (PaytableKind.BET, PaytableKind.BONUS):
        for sums in return_sums(kind):
            observations.append(_observe(kind, sums))
    return observations


def _observe(kind: str, sums: ReturnSums) -> RtpObservation:
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
    alert = (
        theoretical is not None
        and low is not None
        and high is not None
        and sums.boxes >= settings.RTP_OBSERVATION_MIN_BOXES
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
    )


def _percent(ratio: Decimal) -> Decimal:
    return (ratio * 100).quantize(PERCENT_PLACES)
