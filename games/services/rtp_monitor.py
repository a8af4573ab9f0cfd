"""Actual against theoretical RTP, per table and paytable version (JD-14), for the auditors.

Each observation measures what a table's settled boxes returned on one paytable version, with
a 99% confidence interval (a ratio estimate: boxes stake different amounts), beside the RTP the
laboratory computed for that version. An alert is recorded when the theoretical RTP lies
outside the actual one's interval. For the bet paytable the theoretical figure assumes the
reference strategy, so players who play otherwise move the actual RTP legitimately; the BONUS
does not depend on play, so a BONUS alert means the table does not pay what its paytable says.
"""

from __future__ import annotations

import math
from decimal import Decimal

from django.conf import settings

from games.selectors import ReturnSums, return_sums
from payouts.models import PaytableKind, PaytableVersion, RtpObservation
from payouts.rtp import PERCENT_PLACES, rtp_of

Z_99 = 2.5758293035489  # two-sided 99% quantile of the normal distribution


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
            # Delta method: Var(R/S) ~ sum((r - ratio*s)^2) / ((n - 1) * n * mean(s)^2).
            residual = (
                sums.returned_squared - 2 * ratio * sums.cross + ratio * ratio * sums.staked_squared
            )
            mean_stake = sums.staked / sums.boxes
            variance = residual / ((sums.boxes - 1) * sums.boxes * mean_stake * mean_stake)
            half = Decimal(Z_99 * math.sqrt(max(float(variance), 0.0)))
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
