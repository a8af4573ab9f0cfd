"""The fair-play report as the staff screens, the API and the CSV show it: the period asked for
(gaming days, ``from`` and ``to``), every pair of players who shared peer hands in it with
their collusion signals (``games.peer.collusion``), the hands behind a flagged pair linked to
their replay and PHH file, and the alerts raised."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS
from django.urls import reverse

from casino.day_range import GamingDayRangeForm
from casino.gaming_day import gaming_day_bounds
from games.models import CollusionAlert
from games.peer.collusion import HandRef, PairSignals, Signal, pairs_for
from games.staff.audit_forms import LONGEST_REPORT_DAYS
from games.tables.table_game import game_of

SIGNALS = ("chip_flow", "soft_play", "strong_folds")


class FairPlayForm(GamingDayRangeForm):
    """``from`` and ``to`` gaming days; by default the last ``COLLUSION_PERIOD_DAYS`` gaming days
    up to the current one."""

    longest_days = LONGEST_REPORT_DAYS

    def default_days(self) -> int:
        return settings.COLLUSION_PERIOD_DAYS

    def bounds(self) -> tuple[datetime, datetime]:
        return gaming_day_bounds(*self.days())


@dataclass(frozen=True)
class HandLink:
    ref: HandRef
    replay: str  # the staff's round page: its history, cards and replay check
    phh: str  # the hand history file (PHH)


def hand_links(refs: tuple[HandRef, ...]) -> list[HandLink]:
    return [
        HandLink(
            ref,
            reverse("staff:round", args=[ref.round_id]),
            reverse(f"{game_of(ref.game).slug}-hand-phh", args=[ref.round_id]),
        )
        for ref in refs
    ]


def behind(pair: PairSignals, signal: Signal) -> tuple[HandRef, ...]:
    """The hands behind a signal of a flagged pair that scored (others are no evidence)."""
    return signal.hands if pair.flagged and signal.score > 0 else ()


def report(form: FairPlayForm, *, using: str = DEFAULT_DB_ALIAS) -> list[PairSignals]:
    start, end = form.bounds()
    return pairs_for(start=start, end=end, using=using)


def open_alerts() -> Any:
    return CollusionAlert.objects.filter(reviewed_at__isnull=True).select_related(
        "first_player", "second_player", "table"
    )


def recent_reviews() -> Any:
    return (
        CollusionAlert.objects.filter(reviewed_at__isnull=False)
        .select_related("first_player", "second_player", "reviewed_by")
        .order_by("-reviewed_at")[:20]
    )


def _who(pair: PairSignals, player: int | None) -> str | None:
    if player is None:
        return None
    return pair.first.username if player == pair.first.pk else pair.second.username


def signal_json(pair: PairSignals, signal: Signal) -> dict[str, Any]:
    return {
        "score": round(signal.score, 2),
        "z": round(signal.z, 2),
        "player": _who(pair, signal.player),
        "rate_with_other": None if signal.between is None else round(signal.between, 4),
        "rate_with_others": None if signal.others is None else round(signal.others, 4),
        "hands": [
            {
                "round": link.ref.round_id,
                "game": link.ref.game,
                "table": link.ref.table,
                "number": link.ref.number,
                "replay": link.replay,
                "phh": link.phh,
            }
            for link in hand_links(behind(pair, signal))
        ],
    }


def pair_json(pair: PairSignals) -> dict[str, Any]:
    return {
        "currency": pair.currency,
        "players": [pair.first.username, pair.second.username],
        "hands": pair.hands,
        "net_chips": str(pair.net_chips),  # from the first player to the second
        "score": round(pair.score, 2),
        "flagged": pair.flagged,
        **{name: signal_json(pair, getattr(pair, name)) for name in SIGNALS},
    }


CSV_COLUMNS = (
    "currency", "first_player", "second_player", "hands", "net_chips_first_to_second",
    "chip_flow", "soft_play", "soft_play_player", "aggression_with_other",
    "aggression_with_others", "strong_folds", "strong_folds_player", "strong_share_to_other",
    "strong_share_to_others", "flagged", "hands_behind",
)  # fmt: skip


def csv_row(pair: PairSignals) -> list[object]:
    def rate(value: float | None) -> object:
        return "" if value is None else f"{value:.4f}"

    hands = sorted({ref.round_id for name in SIGNALS for ref in behind(pair, getattr(pair, name))})
    soft, folds = pair.soft_play, pair.strong_folds
    return [
        pair.currency, pair.first.username, pair.second.username, pair.hands, pair.net_chips,
        f"{pair.chip_flow.score:.2f}", f"{soft.score:.2f}", _who(pair, soft.player) or "",
        rate(soft.between), rate(soft.others), f"{folds.score:.2f}",
        _who(pair, folds.player) or "", rate(folds.between), rate(folds.others),
        "yes" if pair.flagged else "no", " ".join(map(str, hands)),
    ]  # fmt: skip
