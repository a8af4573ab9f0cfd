"""Collusion alerts: the pairs the collusion report (``games.peer.collusion``) flags, stored by
the nightly check or an auditor's "Run now" so that the staff screens show them without
recomputing the report, and marked reviewed, once, with a note."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from casino.refusals import Kind
from games.models import AlertKind, CollusionAlert
from games.peer.collusion import PairSignals, pairs_for
from games.tables.rounds import RoundRefused

if TYPE_CHECKING:
    from django.contrib.auth.models import User

SCORE = Decimal("0.01")


def raise_alerts(*, start: datetime, end: datetime) -> list[CollusionAlert]:
    """Store an alert for each pair the report flags over ``start``..``end`` at the threshold
    ``COLLUSION_ALERT_SCORE``, unless the pair already had one raised since ``start`` (the
    nightly check reads overlapping periods: one alert for the same play)."""
    flagged = [pair for pair in pairs_for(start=start, end=end) if pair.flagged]
    with transaction.atomic():
        alerted = {
            (alert.currency, alert.first_player_id, alert.second_player_id)
            for alert in CollusionAlert.objects.filter(raised_at__gte=start, kind=AlertKind.SIGNALS)
        }
        return [
            _alert(pair, start, end)
            for pair in flagged
            if (pair.currency, pair.first.pk, pair.second.pk) not in alerted
        ]


def _alert(pair: PairSignals, start: datetime, end: datetime) -> CollusionAlert:
    return CollusionAlert.objects.create(
        period_start=start,
        period_end=end,
        currency=pair.currency,
        first_player=pair.first,
        second_player=pair.second,
        hands=pair.hands,
        chip_flow_score=Decimal(pair.chip_flow.score).quantize(SCORE),
        soft_play_score=Decimal(pair.soft_play.score).quantize(SCORE),
        strong_folds_score=Decimal(pair.strong_folds.score).quantize(SCORE),
        net_chips=pair.net_chips,
    )


class AlertRefused(RoundRefused):
    def __init__(self, message: str, *, field: str, code: str) -> None:
        super().__init__(
            message,
            field=field,
            rule=code,
            kind=Kind.CONFLICT if field == "alert" else Kind.INVALID,
        )


def review_alert(*, alert_id: int, by: User, note: str) -> CollusionAlert:
    """Mark an open alert reviewed, with why (``note``, required), by whom and when: once."""
    note = note.strip()
    if not note:
        raise AlertRefused(
            _("Say what the review found."), field="note", code="review_note_required"
        )
    with transaction.atomic():
        alert = CollusionAlert.objects.select_for_update().get(pk=alert_id)
        if alert.reviewed_at is not None:
            raise AlertRefused(
                _("This alert was reviewed already."), field="alert", code="alert_reviewed"
            )
        alert.reviewed_at = timezone.now()
        alert.reviewed_by = by
        alert.review_note = note
        alert.save(update_fields=["reviewed_at", "reviewed_by", "review_note"])
    return alert
